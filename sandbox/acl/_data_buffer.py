"""aclDataBuffer: a host record of an address and a size, as the acl library keeps it.

A data buffer names the memory a model's input or output lives in (src/acl/aclrt_impl/
data_buffer.cpp): create records (data, size) and may record a null address (an output to be
filled later), update replaces both, the getters read them back, and a null buffer reads as a
null address and size 0 (data_buffer.cpp:86-109).  aclGetDataBufferSize returns the size as a
uint32 (data_buffer.cpp:95-101), aclGetDataBufferSizeV2 as a size_t.  Nothing of it reaches the
runtime, so, like the acl layer's other records, it lives in the facade.  Sandbox choice: a
handle that names no live buffer is refused with 100000 by destroy and update and reads as 0
(on a board it is undefined behaviour).
"""

from __future__ import annotations

from ..core.errors import ACL_ERROR_INVALID_PARAM, fail
from ._declare import api, handle, ptr, size


class DataBuffers:
    """One machine's live data buffers: handle -> [address, size] (``Machine.feature``)."""

    def __init__(self, m):
        self.live: dict[int, list[int]] = {}

    def get(self, buffer: int) -> list[int]:
        record = self.live.get(buffer) if buffer else None
        if record is None:
            what = "null" if not buffer else "not a live aclDataBuffer (made by aclCreateDataBuffer)"
            fail(ACL_ERROR_INVALID_PARAM, f"dataBuffer {buffer:#x} is {what}")
        return record


@api("aclCreateDataBuffer", cost="query", defaults=(0,), bare=True)
def create_data_buffer(m, th, data: ptr, size: size):
    """The handle of a new data buffer recording (data, size); data may be 0 (data_buffer.cpp:60-66)."""
    buffer = m.new_handle()
    m.feature(DataBuffers).live[buffer] = [data, size]
    return buffer


@api("aclDestroyDataBuffer", cost="query")
def destroy_data_buffer(m, th, data_buffer: handle) -> None:
    """Destroy the record; the memory it names is the caller's to free (data_buffer.cpp:68-76)."""
    buffers = m.feature(DataBuffers)
    buffers.get(data_buffer)
    del buffers.live[data_buffer]


@api("aclUpdateDataBuffer", cost="query")
def update_data_buffer(m, th, data_buffer: handle, data: ptr, size: size) -> None:
    m.feature(DataBuffers).get(data_buffer)[:] = [data, size]


def _read(m, buffer: int, index: int) -> int:
    record = m.feature(DataBuffers).live.get(buffer) if buffer else None
    return 0 if record is None else record[index]


@api("aclGetDataBufferAddr", cost=0, defaults=(0,), bare=True)
def get_data_buffer_addr(m, th, data_buffer: handle):
    return _read(m, data_buffer, 0)


@api("aclGetDataBufferSize", cost=0, defaults=(0,), bare=True)
def get_data_buffer_size(m, th, data_buffer: handle):
    return _read(m, data_buffer, 1) & 0xFFFF_FFFF  # a uint32 in the C call


@api("aclGetDataBufferSizeV2", cost=0, defaults=(0,), bare=True)
def get_data_buffer_size_v2(m, th, data_buffer: handle):
    return _read(m, data_buffer, 1)
