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
    stream.flags = flags
    ctx.streams[stream.handle] = stream
    return stream.handle


def destroy(m: Machine, th: HostThread, handle) -> None:
    if handle == 0 or handle is None:
        fail(ACL_ERROR_INVALID_PARAM, "the default stream cannot be destroyed; it goes with aclrtResetDevice")
    while True:          # checked again after a wait: another thread may have destroyed it (or reset its device)
        stream = m.stream(th, handle, api="aclrtDestroyStream")
        if stream.idle:
            break
        m.block_until(th, lambda stream=stream: stream.idle, f"destroying stream {stream.stream_id}",
                      on=("stream", stream.handle))
    hazards.learn(m, th, (stream,))      # the destroy waited for the stream's work: the host knows it is done
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
    m.settle()                   # the device side catches up first: what started before the call runs on
    m.sim.drop(stream, ACL_ERROR_RT_STREAM_ABORT, th.clock)
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


def get_id(m: Machine, th: HostThread, handle) -> int:
    """aclrtStreamGetId (RT-API 06): the stream's id on its device; 0/None is the default stream."""
    return m.stream(th, handle, check_context=False).stream_id


def get_flags(m: Machine, th: HostThread, handle) -> int:
    """aclrtStreamGetFlags (RT-API 06): the flags the stream was created with; the default
    stream's vary by product, the sandbox's are 0."""
    return m.stream(th, handle, check_context=False).flags


class StreamConfigs:
    """aclrtStreamConfigHandle objects (src/acl/aclrt_c/runtime/stream.c): plain host records
    of a flag, a priority and a work buffer (kept, not used: the sandbox's streams need no
    work memory), read by aclrtCreateStreamV2."""

    # attr -> (name, the value size the acl layer requires: uint32_t for the priority, else 8)
    ATTRS = {C.ACL_RT_STREAM_WORK_ADDR_PTR: ("work_ptr", 8), C.ACL_RT_STREAM_WORK_SIZE: ("work_size", 8),
             C.ACL_RT_STREAM_FLAG: ("flag", 8), C.ACL_RT_STREAM_PRIORITY: ("priority", 4)}

    def __init__(self, m):
        self.handles: dict[int, dict] = {}

    def get(self, handle) -> dict:
        config = self.handles.get(handle) if handle else None
        if config is None:
            fail(ACL_ERROR_INVALID_PARAM, f"{handle!r} is not a live aclrtStreamConfigHandle "
                 "(make one with aclrtCreateStreamConfigHandle)")
        return config


def create_config(m: Machine, th: HostThread) -> int:
    handle = m.new_handle()
    m.feature(StreamConfigs).handles[handle] = dict(work_ptr=0, work_size=0, flag=0, priority=0)
    return handle


def destroy_config(m: Machine, th: HostThread, handle) -> None:
    configs = m.feature(StreamConfigs)
    configs.get(handle)
    del configs.handles[handle]


def set_config_opt(m: Machine, th: HostThread, handle, attr: int, value, value_size: int) -> None:
    """aclrtSetStreamConfigOpt: null handle or value, an attr outside 0..3, a value size other
    than the C type's (priority: 4, the others: 8) or a priority above 7 -> 100000."""
    config = m.feature(StreamConfigs).get(handle)
    if value is None:
        fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamConfigOpt: attrValue is null")
    if attr not in StreamConfigs.ATTRS:
        fail(ACL_ERROR_INVALID_PARAM, f"aclrtSetStreamConfigOpt: attr {attr} is not an aclrtStreamConfigAttr (0..3)")
    name, need = StreamConfigs.ATTRS[attr]
    if value_size != need:
        fail(ACL_ERROR_INVALID_PARAM, f"aclrtSetStreamConfigOpt: valueSize {value_size} is invalid for {name}, "
             f"it should be {need}")
    value = int(value)
    if name == "priority" and not 0 <= value <= LOWEST_PRIORITY:
        fail(ACL_ERROR_INVALID_PARAM, f"aclrtSetStreamConfigOpt: priority {value} is invalid, it should be in [0, 7]")
    config[name] = value


def create_v2(m: Machine, th: HostThread, handle) -> int:
    """aclrtCreateStreamV2: a stream with the config's flag and priority (a null config: both 0)."""
    config = m.feature(StreamConfigs).get(handle) if handle else dict(flag=0, priority=0)
    return create(m, th, config["priority"], config["flag"])
