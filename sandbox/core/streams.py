"""Streams: creation with priority, destruction, synchronize and query.

All streams are non-blocking: the default stream does not synchronise with other streams
(RT-DG 03-02).  Priority 0 is the highest, 7 the lowest; values outside are clamped; it
only orders tasks waiting for the same engine and never preempts (profiles whose chip does
not support priorities ignore it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import constants as C
from . import hazards
from .sync import Sync
from .sync import synchronize as synchronize_on
from .errors import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_STREAM_ABORT,
                     ACL_ERROR_RT_STREAM_CAPTURED, fail)

if TYPE_CHECKING:
    from .machine import Machine
    from .objects import HostThread

LOWEST_PRIORITY = 7


def create(m: Machine, th: HostThread, priority: int = 0, flags: int = 0) -> int:
    """``flags`` (ACL_STREAM_FAST_LAUNCH, ...) change nothing here: every stream behaves the same."""
    ctx = m.current_context(th)
    priority = min(max(priority, 0), LOWEST_PRIORITY)
    stream = m.create_stream(ctx, priority, t=th.clock)
    ctx.streams[stream.handle] = stream
    return stream.handle


def destroy(m: Machine, th: HostThread, handle) -> None:
    if handle == 0 or handle is None:
        fail(ACL_ERROR_INVALID_PARAM, "the default stream cannot be destroyed; it goes with aclrtResetDevice")
    while True:          # checked again after a wait: another thread may have destroyed it (or reset its device)
        stream = m.stream(th, handle, api="aclrtDestroyStream")
        if stream.idle:
            break
        m.block_until(th, lambda stream=stream: stream.idle, f"destroying stream {stream.stream_id}")
    hazards.learn(m, th, (stream,))      # the destroy waited for the stream's work: the host knows it is done
    stream.context.streams.pop(stream.handle, None)
    m.retire_stream(stream, th.clock)


def destroy_force(m: Machine, th: HostThread, handle) -> None:
    """aclrtDestroyStreamForce (RT-API 06; acl src/acl/aclrt_impl/stream.cpp, runtime
    api_error.cc StreamDestroy): destroys without waiting.  Null -> 100000 (the acl layer);
    a capturing stream -> 107027.  The stream's tasks that have not started never run: the
    trace shows each finishing at once with 107023 ACL_ERROR_RT_STREAM_ABORT (a marker: no
    call can report it, the stream is gone); a task already running runs to its end.
    The host learns nothing about the dropped work (no hazards.learn)."""
    if handle == 0 or handle is None:
        fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStreamForce: the stream must not be null (the default "
             "stream cannot be destroyed; it goes with aclrtResetDevice)")
    stream = m.stream(th, handle, api="aclrtDestroyStreamForce")
    if stream.capture is not None:
        fail(ACL_ERROR_RT_STREAM_CAPTURED, f"aclrtDestroyStreamForce: stream {stream.stream_id} is capturing; "
             "end the capture (aclmdlRICaptureEnd) first")
    m.sim.drop(stream, ACL_ERROR_RT_STREAM_ABORT, th.clock)
    stream.context.streams.pop(stream.handle, None)
    m.retire_stream(stream, th.clock)


def synchronize(m: Machine, th: HostThread, handle) -> None:
    stream = m.stream(th, handle, check_context=False)
    sync = Sync("aclrtSynchronizeStream", f"synchronizing stream {stream.stream_id}", stream.device, stream=stream)
    synchronize_on(m, th, sync, lambda: stream.idle, learns=(stream,), report=(stream,))


def query(m: Machine, th: HostThread, handle) -> int:
    stream = m.stream(th, handle, check_context=False)
    m.graphs.refuse_stream_sync(stream, "aclrtStreamQuery")
    if stream.idle:
        hazards.learn(m, th, (stream,))       # "complete" tells the host the work is done
    return C.ACL_STREAM_STATUS_COMPLETE if stream.idle else C.ACL_STREAM_STATUS_NOT_READY


def set_failure_mode(m: Machine, th: HostThread, handle, mode: int) -> None:
    """aclrtSetStreamFailureMode (RT-API 06): once per stream; stop-on-failure covers the context.

    The docs say the mode may be set only once per stream; the code of a second call is not
    documented, we answer 107000 ACL_ERROR_RT_PARAM_INVALID.  On A2/A3, setting
    ACL_STOP_ON_FAILURE on one stream makes every stream of its context stop on failure.
    """
    stream = m.stream(th, handle, check_context=False)
    if mode not in (C.ACL_CONTINUE_ON_FAILURE, C.ACL_STOP_ON_FAILURE):
        fail(ACL_ERROR_INVALID_PARAM, f"failure mode must be ACL_CONTINUE_ON_FAILURE or ACL_STOP_ON_FAILURE, got {mode}")
    if stream.failure_mode_set:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"stream {stream.stream_id} already has its failure mode: "
             "aclrtSetStreamFailureMode may be called only once per stream")
    stream.failure_mode, stream.failure_mode_set = mode, True
    if mode == C.ACL_STOP_ON_FAILURE:
        stream.context.stop_on_failure = True


def get_priority(m: Machine, th: HostThread, handle) -> int:
    return m.stream(th, handle, check_context=False).priority
