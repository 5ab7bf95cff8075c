"""The built-in tasks (docs/zh/dev_guide/03-04_system_tasks.md): aclrtReduceAsync, aclrtRandomNumAsync.

aclrtReduceAsync adds ``count`` bytes of src into dst, element by element.  Rules (hicann/runtime
src/acl/aclrt_impl/memory.cpp aclrtReduceAsyncImpl, then src/runtime/api/impl/api_error.cc
ReduceAsyncV2): the acl layer refuses a null dst or src, a reserve that is not NULL and an
unsupported data type with 100000 (the facade's checks); the runtime refuses count 0, a kind
other than ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM and a count over the largest on-device copy with
107000.  Memory outside an allocation, host memory, or memory of another device than the
stream's is 107000 too (sandbox choice, as for copies).  ``count`` is in bytes; whole elements
are added (a partial last element is left alone).  The task runs on the device's D2D DMA engine
(SDMA) for the time a D2D copy of ``count`` bytes takes; for the hazard checks it reads src and
reads and writes dst.

aclrtRandomNumAsync (rules and codes: sandbox/acl/_random.py) reads and writes its 16-byte counter
and writes its results, at completion, on the D2D DMA engine (the device's DSA is not modelled).
"""
from __future__ import annotations

import numpy as np

from ..errors import ACL_ERROR_RT_FEATURE_NOT_SUPPORT, ACL_ERROR_RT_PARAM_INVALID, fail
from ..allocator import Buffer, check_span
from ..tasks import Task

SUM = 10                      # ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM (acl_rt.h aclrtReduceKind)


def device_span(m, stream, ptr: int, count: int, what: str):
    """(buffer, offset) of [ptr, ptr + count) in device memory of the stream's device, else 107000."""
    buf = m.buffer(ptr)
    offset = check_span(buf, ptr, count, what)
    if buf.kind != "device" or buf.device != stream.device:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{what} must be device memory of device {stream.device}, the stream's device")
    return buf, offset


def reduce_async(m, th, dst, src, count, kind, dtype, stream_handle) -> None:
    stream = m.stream(th, stream_handle, api="aclrtReduceAsync")
    if count == 0:
        fail(ACL_ERROR_RT_PARAM_INVALID, "count must be > 0 bytes")
    if kind != SUM:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"kind must be ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM ({SUM}), got {kind}")
    dbuf, doff = device_span(m, stream, dst, count, "aclrtReduceAsync dst")
    sbuf, soff = device_span(m, stream, src, count, "aclrtReduceAsync src")
    n = count // dtype.itemsize * dtype.itemsize

    def add():  # (through copies of the n bytes: a big buffer stays sparse)
        out, addend = np.empty(n, np.uint8), np.empty(n, np.uint8)
        dbuf.read_into(doff, out)
        sbuf.read_into(soff, addend)
        out.view(dtype)[...] += addend.view(dtype)
        dbuf.copy_from(doff, Buffer(0, n, out), 0, n)
    p = m.profile
    m.submit(th, stream, Task.new(
        "reduce", "REDUCE_ASYNC", m.devices[stream.device].d2d, nbytes=count, effect=add,
        duration=p.dma_latency_ns + int(count * 1e9 / p.hbm_bandwidth),
        access=((sbuf, soff, count, False), (dbuf, doff, count, True))))


def random_num(m, th, stream_handle, reserve, decode) -> None:
    """``decode()`` checks the task info, then gives (result address, bytes, counter address, generate)."""
    if not m.profile.random_num_supported:          # rtsLaunchRandomNumTask (api_c_kernel.cc:208-210)
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"aclrtRandomNumAsync: {m.profile.soc_name} has no random-number task")
    if reserve is not None:                          # api_error.cc:7116-7117, before the context
        fail(ACL_ERROR_RT_PARAM_INVALID, "reserve must be NULL (None)")
    stream = m.stream(th, stream_handle, api="aclrtRandomNumAsync")
    out, nbytes, counter, generate = decode()
    obuf, ooff = device_span(m, stream, out, nbytes, "aclrtRandomNumAsync randomResultAddr")
    cbuf, coff = device_span(m, stream, counter, 16, "aclrtRandomNumAsync randomCounterAddr")

    def fill():
        state = np.zeros(16, np.uint8)
        cbuf.read_into(coff, state)
        values, state = generate(state)
        obuf.copy_from(ooff, Buffer(0, nbytes, values), 0, nbytes)
        cbuf.copy_from(coff, Buffer(0, 16, state), 0, 16)
    m.submit(th, stream, Task.new(
        "random_num", "RANDOM_NUM", m.devices[stream.device].d2d, nbytes=nbytes, effect=fill,
        duration=m.profile.dma_latency_ns + int(nbytes * 1e9 / m.profile.hbm_bandwidth),
        access=((cbuf, coff, 16, True), (obuf, ooff, nbytes, True))))
