"""Streams: creation with priority, destruction, synchronize and query.

All streams are non-blocking: the default stream does not synchronise with other streams
(RT-DG 03-02).  Priority 0 is the highest, 7 the lowest; values outside are clamped; it
only orders tasks waiting for the same engine and never preempts (profiles whose chip does
not support priorities ignore it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import constants as C, hazards, trace as T, learner_code
from . import notifies
from .capture import graphs
from .synchronize import Sync, synchronize as synchronize_on
from ..errors import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, ACL_ERROR_RT_INTERNAL_ERROR,
                     ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_STREAM_ABORT, describe, fail)

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import HostThread

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
    api_error.cc StreamDestroy): destroys without waiting for the queue.  Null -> 100000 (the
    acl layer, in acl/rt.py); a capturing stream -> 107027.  The stream's tasks that have not started never
    run: the trace shows each finishing at once with 107023 ACL_ERROR_RT_STREAM_ABORT (a marker:
    no call can report it, the stream is gone).  A task already running on the device runs to
    its end, and the call returns after it (Stream::TearDown, src/runtime/core/src/stream/
    stream.cc:1409-1475, loops until the stream has no pending task), so the host may free what
    the stream used; a reached notify or value wait is dropped with the rest, a host callback is not waited for."""
    stream = m.stream(th, handle, api="aclrtDestroyStreamForce", uncaptured=True)
    m.settle()                   # the device side catches up first: what started before the call runs on
    m.sim.drop(stream, ACL_ERROR_RT_STREAM_ABORT, th.clock)
    notifies.discard_reached(m, stream, ACL_ERROR_RT_STREAM_ABORT, th.clock)
    head = stream.queue[0] if stream.queue else None
    if head is not None and head.engine is not None and not head.engine.shared:
        m.block_until(th, lambda: stream.idle, f"destroying stream {stream.stream_id}")
    if stream.idle:
        hazards.learn(m, th, (stream,))
    m.retire_stream(stream, th.clock)


def stop(m: Machine, th: HostThread, handle) -> None:
    """aclrtStreamStop (api_error.cc:6593 null 107000; api_impl.cc:7566-7600, docs 06: A2/A3 only, 207000;
    "stops the running task, does not clean the tasks").  Sandbox model: the running task ends now with
    507000, the rest wait, and a synchronize of the stream is 507000 (as the official sample's README
    shows) until aclrtStreamAbort (the stream is usable again) or aclrtDestroyStreamForce."""
    if not m.profile.stream_abort_supported or handle == 0 or handle is None:
        fail(ACL_ERROR_RT_PARAM_INVALID if m.profile.stream_abort_supported else ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             f"aclrtStreamStop: needs a created stream (not the default one) on A2/A3 ({m.profile.soc_name})")
    stream = m.stream(th, handle, api="aclrtStreamStop")
    m.settle()
    m.sim.stop(stream, ACL_ERROR_RT_INTERNAL_ERROR, th.clock)


def abort(m: Machine, th: HostThread, handle) -> None:
    """aclrtStreamAbort (acl_rt.h:3483; api_error.cc:6600: null is the default stream; context.cc:2781-2860,
    A2/A3 only): the running task stops and the others are discarded, each ending with 107023 (their
    status in the trace), which the next synchronize of the stream returns; then the stream is normal."""
    if not m.profile.stream_abort_supported:
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"aclrtStreamAbort is not supported on {m.profile.soc_name}")
    stream = m.stream(th, handle, api="aclrtStreamAbort")
    m.settle()
    if stream.queue:
        stream.pending_error, stream.pending_message = ACL_ERROR_RT_STREAM_ABORT, "the stream was aborted"
    m.sim.drop(stream, ACL_ERROR_RT_STREAM_ABORT, th.clock, stop=True)
    notifies.discard_reached(m, stream, ACL_ERROR_RT_STREAM_ABORT, th.clock)
    m.block_until(th, lambda: stream.idle, f"aborting stream {stream.stream_id}", learns=(stream,))


def synchronize(m: Machine, th: HostThread, handle) -> None:
    stream = m.stream(th, handle, check_context=False)
    if stream.stopped:
        fail(ACL_ERROR_RT_INTERNAL_ERROR, f"stream {stream.stream_id} was stopped (aclrtStreamStop): its tasks "
             "will not run; discard them with aclrtStreamAbort or aclrtDestroyStreamForce")
    sync = Sync("aclrtSynchronizeStream", f"synchronizing stream {stream.stream_id}", stream.device, stream=stream)
    synchronize_on(m, th, sync, lambda: stream.idle, learns=(stream,), report=(stream,))


def query(m: Machine, th: HostThread, handle) -> int:
    stream = m.stream(th, handle, check_context=False)
    graphs(m).refuse_stream_sync(stream, "aclrtStreamQuery")
    if stream.idle:
        hazards.learn(m, th, (stream,))       # "complete" tells the host the work is done
    return C.ACL_STREAM_STATUS_COMPLETE if stream.idle else C.ACL_STREAM_STATUS_NOT_READY


def set_failure_mode(m: Machine, th: HostThread, handle, mode: int) -> None:
    """aclrtSetStreamFailureMode (RT-API 06): once per stream; stop-on-failure covers the context.

    The docs say the mode may be set only once per stream; the code of a second call is not
    documented, we answer 107000 ACL_ERROR_RT_PARAM_INVALID.  On every product with the call,
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


class StreamStates:
    """aclrtRegStreamStateCallback (acl_rt.h:5362; api_error.cc:6707; stream_state_callback_manager.cc:22-91):
    a name not a string, or registered twice: 107000; None unregisters.  Every default and created
    stream calls each, in name order, with (stream, state, args): 1 CREATE_POST once made (stream.cc:809),
    2 DESTROY_PRE before it goes (context.cc:99), on the calling thread; one registry per process.
    As user code (core/learner_code.py) what it raises is text in its CallbackRun record (kind "stream_state")."""

    def __init__(self, m):
        self.m, self.callbacks = m, {}          # pid -> name -> (fn, args): one registry per process
        m.hooks.add("stream_state", self.notify)

    def notify(self, stream, state: int) -> None:
        th = self.m.current_thread()
        for name, (fn, args) in sorted(self.callbacks.get(stream.context.process.pid, {}).items()):
            start, th.clock = th.clock, th.clock + self.m.profile.host_costs.default
            error = learner_code.run(self.m, "callback", th.tid, fn, stream.handle, state, args)
            self.m.log.append(T.CallbackRun(start, th.clock, th.tid, 0, "stream_state", name, False, error))


def reg_state_callback(m: Machine, th: HostThread, name, fn, args) -> None:
    callbacks = m.feature(StreamStates).callbacks.setdefault(th.process.pid, {})
    if not isinstance(name, str) or fn is not None and name in callbacks:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"aclrtRegStreamStateCallback: regName {describe(name)} is not a string, "
             "or already registered (unregister it first: callback None)")
    if fn is not None and not callable(fn):
        fail(ACL_ERROR_INVALID_PARAM, f"callback must be a function (or None to unregister), got {describe(fn)}")
    if fn is None:
        callbacks.pop(name, None)
    else:
        callbacks[name] = (fn, args)


def available(m: Machine, th: HostThread) -> int:
    """aclrtGetStreamAvailableNum: the streams the current device still takes (api_impl.cc:1878-1901)."""
    ctx = m.current_context(th)
    return m.profile.max_streams - m.devices[ctx.device].live_streams


def get_priority(m: Machine, th: HostThread, handle) -> int:
    return m.stream(th, handle, check_context=False).priority


def get_id(m: Machine, th: HostThread, handle) -> int:
    """aclrtStreamGetId (RT-API 06): the stream's id on its device; 0/None is the default stream."""
    return m.stream(th, handle, check_context=False).stream_id


def get_flags(m: Machine, th: HostThread, handle) -> int:
    """aclrtStreamGetFlags (RT-API 06): the flags the stream was created with; the default
    stream's vary by product, the sandbox's are 0."""
    return m.stream(th, handle, check_context=False).flags
