"""Floating-point overflow: the saturation mode, each stream's overflow switch, the overflow status.

The rules and codes are cited beside each call in sandbox/acl/rt.py.  A kernel on a stream in
saturation mode, or whose switch was on at launch, runs under numpy's floating-point flags: if
its arithmetic overflows (inf or nan made from finite values), saturation makes its written
float views saturate (inf to the largest finite value of its sign, nan, whose sign the host's
arithmetic decides, to the largest positive one) and the switch sets the process's overflow
status on that device to 1, at the kernel's completion.
"""
from __future__ import annotations

import numpy as np

from ..constants import ACL_RT_OVERFLOW_MODE_SATURATION as SATURATION
from ..errors import ACL_ERROR_RT_FEATURE_NOT_SUPPORT, ACL_ERROR_RT_PARAM_INVALID, fail
from .. import learner_code
from ..allocator import Buffer
from .builtin_tasks import device_span
from ..tasks import Task

STATUS_BYTES = 64                             # OVERFLOW_OUTPUT_SIZE (src/runtime/core/inc/task/task_base.hpp:49)


def watch(m, stream, k):
    """How to run kernel ``k``'s body on ``stream``: None (as any kernel), or under the flags."""
    saturate, switch = stream.sat_mode == SATURATION, stream.overflow_switch
    status = stream.context.process.overflow_status
    if not saturate and not switch:
        return None

    def run(m, kind, index, fn, *values):
        flags: list[str] = []
        with np.errstate(over="call", invalid="call", call=lambda what, flag: flags.append(what)):
            error = learner_code.run(m, kind, index, fn, *values)
        if flags and not error:
            for view, dtype, writes in zip(values, k.pointer_types, k.param_writes):
                if saturate and writes and dtype is not None and dtype.kind == "f":
                    top = np.finfo(dtype).max
                    np.nan_to_num(view, copy=False, nan=top, posinf=top, neginf=-top)
            if switch:
                status[stream.device] = 1
        return error
    return run


def status_task(m, th, handle, ptr: int = 0, size: int = STATUS_BYTES) -> None:
    """aclrtGetOverflowStatus (``ptr``): a D2D copy of the status to [ptr, ptr + 64); else aclrtResetOverflowStatus."""
    api, kind = ("aclrtGetOverflowStatus", "memcpy") if ptr else ("aclrtResetOverflowStatus", "memset")
    if size != STATUS_BYTES:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"outputSize must be {STATUS_BYTES} bytes, got {size}")
    stream = m.stream(th, handle, api=api, uncaptured=True)
    words, device = th.process.overflow_status, stream.device
    buf, off = device_span(m, stream, ptr, size, f"{api} outputAddr") if ptr else (None, 0)

    def effect():
        if buf is None:
            words.pop(device, None)
        else:                     # the status word, then zeros (copied: a big allocation stays sparse)
            status = np.array([words.get(device, 0)] + [0] * 15, np.uint32).view(np.uint8)
            buf.copy_from(off, Buffer(0, size, status), 0, size)
    m.submit(th, stream, Task.new(kind, api, m.devices[device].d2d, effect=effect, nbytes=size,
                                  duration=m.profile.dma_latency_ns, access=((buf, off, size, True),) if ptr else ()))


def set_mode(m, th, mode: int) -> None:
    if mode in (0, 1) and mode not in m.profile.overflow_modes:      # api_c.cc:3149-3159, before the range
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"{m.profile.soc_name} does not support overflow mode {mode}")
    if mode not in (0, 1):                                           # api_error.cc:5994-5997
        fail(ACL_ERROR_RT_PARAM_INVALID, f"mode must be ACL_RT_OVERFLOW_MODE_SATURATION (0) or _INFNAN (1), got {mode}")
    th.process.sat_mode = mode


def get_mode(m, th) -> int:
    return th.process.sat_mode


def set_switch(m, th, handle, flag: int) -> None:
    if m.profile.overflow_check_supported:          # else success, and nothing kept (api_c_stream.cc:555-561)
        m.stream(th, handle, api="aclrtSetStreamOverflowSwitch", uncaptured=True).overflow_switch = flag


def get_switch(m, th, handle) -> int:
    stream = m.stream(th, handle, api="aclrtGetStreamOverflowSwitch")
    return stream.overflow_switch if m.profile.stars_scheduler else 1       # api_impl.cc:6981
