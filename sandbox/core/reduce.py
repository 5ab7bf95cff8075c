"""aclrtReduceAsync: a stream task that adds ``count`` bytes of src into dst, element by element.

Rules (hicann/runtime src/acl/aclrt_impl/memory.cpp aclrtReduceAsyncImpl, then
src/runtime/api/impl/api_error.cc ReduceAsyncV2): the acl layer refuses a null dst or src, a
reserve that is not NULL and an unsupported data type with 100000 (the facade's checks); the
runtime refuses count 0, a kind other than ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM and a count over
the largest on-device copy with 107000.  Memory outside an allocation, host memory, or memory of
another device than the stream's is 107000 too (sandbox choice, as for copies).  ``count`` is in
bytes; whole elements are added (a partial last element is left alone).  The task runs on the
device's D2D DMA engine (SDMA) for the time a D2D copy of ``count`` bytes takes; for the hazard
checks it reads src and reads and writes dst.
"""
from __future__ import annotations

from .errors import ACL_ERROR_RT_PARAM_INVALID, fail
from .memory import check_span
from .tasks import Task

SUM = 10                      # ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM (acl_rt.h aclrtReduceKind)


def reduce_async(m, th, dst, src, count, kind, dtype, stream_handle) -> None:
    stream = m.stream(th, stream_handle, api="aclrtReduceAsync")
    if count == 0:
        fail(ACL_ERROR_RT_PARAM_INVALID, "count must be > 0 bytes")
    if kind != SUM:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"kind must be ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM ({SUM}), got {kind}")
    spans = []
    for ptr, what in ((dst, "dst"), (src, "src")):
        buf = m.buffer(ptr)
        offset = check_span(buf, ptr, count, f"aclrtReduceAsync {what}")
        if buf.kind != "device" or buf.device != stream.device:
            fail(ACL_ERROR_RT_PARAM_INVALID, f"{what} must be device memory of device {stream.device}, the "
                 f"stream's device")
        spans.append((buf, offset))
    (dbuf, doff), (sbuf, soff) = spans
    n = count // dtype.itemsize * dtype.itemsize

    def add():
        out = dbuf.dense_view(doff, n).view(dtype)
        out += sbuf.dense_view(soff, n).view(dtype)
    p = m.profile
    m.submit(th, stream, Task.new(
        "reduce", "REDUCE_ASYNC", m.devices[stream.device].d2d, nbytes=count, effect=add,
        duration=p.dma_latency_ns + int(count * 1e9 / p.hbm_bandwidth),
        access=((sbuf, soff, count, False), (dbuf, doff, count, True))))
