"""``acl.media``: the DVPP media interfaces; the sandbox models their device memory only.

``dvpp_malloc``/``dvpp_free`` (acldvppMalloc/acldvppFree) allocate and free device memory of
the current device for the media engines (the official samples read and write image buffers
through it, and copy them with acl.rt.memcpy).  The sandbox has no DVPP engines: the resize,
crop, JPEG, PNG and video calls refuse with 207000 (``_unmodelled.py``).
"""

from __future__ import annotations

from ..core import constants as C
from ..core.features import memory_calls
from ._declare import api, positive_size, ptr


@api("acldvppMalloc", cost="malloc", defaults=(0,))
def dvpp_malloc(m, th, size: positive_size):
    """(dev_ptr, ret): ``size`` bytes of device memory for DVPP on the current device (huge pages
    first, as DVPP buffers are large images)."""
    return memory_calls.malloc(m, th, size, C.ACL_MEM_MALLOC_HUGE_FIRST)


@api("acldvppFree", cost="free")
def dvpp_free(m, th, dev_ptr: ptr) -> None:
    """Free memory of acl.media.dvpp_malloc."""
    return memory_calls.free(m, th, dev_ptr)
