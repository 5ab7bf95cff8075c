"""Events: record snapshots, waits, queries and elapsed time.

* Record(e, s) snapshots the work already submitted to s: a marker task queued on s;
  the event completes when that marker does (RT-API 07).
* StreamWaitEvent(s2, e) makes every later task of s2 wait for the snapshot e held at
  the moment of the call; a later record does not move a wait already issued.
* Record and wait fail (107003) when event and stream are on different devices;
  Synchronize and Query of another device's event succeed (RT-DG 05).
* On a capturing stream, record, wait and reset take only Ex events (and ACL_EVENT_EXTERNAL ones):
  an event of aclrtCreateEvent or aclrtCreateEventWithFlag is refused with 207000 and the capture goes
  on (api_impl.cc:2168-2172 record, 1645-1652 wait, 2238-2243 reset; RT-DG 04-02:104).
* A stream waits only on an event whose flags hold ACL_EVENT_SYNC, ACL_EVENT_EXTERNAL or ACL_EVENT_IPC;
  any other is refused with 207000 (api_error.cc:1414-1416, event.hpp:133-136 IsEventWithoutWaitTask).
* Elapsed time and timestamps read any recorded event's time, whatever its flags (the runtime
  checks only EXTERNAL and IPC: api_error.cc:1852-1859, 1868-1873); asked before the record has
  completed, its timestamp is still unset: 107006 ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID (event.cc:
  1265-1269, 1302-1304; errcode_manage.cc:198); never recorded: 507000 (event.cc:1249-1250, 197).
* Reset (runtime api_error.cc EventReset, event.hpp IsEventWithoutWaitTask): plain events
  carry the runtime's default flags, which include a sync bit, and reset on any ordinary
  stream; a WithFlag event is refused with 207000 when its flags are exactly ACL_EVENT_IPC or
  hold none of ACL_EVENT_SYNC, ACL_EVENT_EXTERNAL, ACL_EVENT_IPC (the docs' rule, "only
  ACL_EVENT_SYNC events", is stricter than the code).
* aclrtQueryEvent (the older query, acl event.cpp:124-138; event.cc:1173-1187): NOT_READY while the
  event's last record is queued or running, else COMPLETE, a never-recorded event included.
  aclrtQueryEventWaitStatus (api_impl.cc:2299-2325, event.cc:1216-1243): COMPLETE once every wait
  issued for the event has run (an event without a wait task, or never waited for, is complete).
* aclrtGetEventId: the runtime's id of an event with a wait task (SYNC, EXTERNAL, IPC, or a plain
  event), numbered per device from 0 in creation order; an event without one has none: 507000
  (event.cc:505-513, errcode_manage.cc:197).  aclrtGetEventAvailNum: how many more events the
  current device takes (api_impl.cc:1914-1931: the driver's count of free ids).
* Elapsed time is read from the device's timestamp counter: ticks = floor(t / resolution),
  ms = (ticks_end - ticks_start) / ticks_per_ms (RT-SRC event.cc).
* IPC events (aclrtCreateEventExWithFlag(ACL_EVENT_IPC), A2/A3 only: api_error.cc:1664-1667, else 207000).
  aclrtIpcGetEventHandle exports one (only such an event: api_impl_event.cc:70-74, 107000): a 64-byte handle
  (acl_rt.h:86, 1011-1013) whose first 8 bytes are the driver's share id (ipc_event.cc:202; here 1, 2, ... in
  the order of first export, the rest zero), the same on every call.  aclrtIpcOpenEventHandle, in any process,
  the exporter's included (rt_utest_ipc_event.cc:230), makes a new IPC event in the caller's current context
  (api_impl_event.cc:37-45, so on its device; the runtime enables the peer link itself, ipc_event.cc:236-249),
  and each open makes another one.  All of them are one event: they share its current record (the shared
  index of ipc_event.cc:375-416), so a record in one process completes a wait, a synchronize or a query in
  another, and a wait joins the recording process's clocks (core/hazards.py).  Query and synchronize of one
  never recorded answer complete at once (ipc_event.cc:478-482, 503-507); a wait for a finished record queues
  no task there (424-427), here one that is ready at once.  Record and wait keep the same-device rule above
  (sandbox choice: IpcEventRecord/Wait check no device).  Record and wait on a capturing
  stream (api_error.cc:1410-1413, 1709-1711), reset, elapsed time and timestamp (1758, 1858, 1872): 207000.
  Destroying the exported event leaves the opened ones working (each holds its own mapping: ipc_event.cc:
  593-616); its handle then opens nothing (sandbox choice: the driver's code is not in the sources; 107000,
  the runtime's code for the driver's invalid value, errcode_manage.cc:86).  Opened events go with their
  context: at aclrtResetDevice, aclFinalize or the process's end.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import constants as C, hazards, trace as T
from ..errors import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     ACL_ERROR_RT_INTERNAL_ERROR, ACL_ERROR_RT_NO_EVENT_RESOURCE, ACL_ERROR_RT_PARAM_INVALID,
                     ACL_ERROR_RT_STREAM_CONTEXT, ACL_ERROR_RT_STREAM_NOT_CAPTURED, fail)
from .capture import graphs
from ..objects import Event
from .synchronize import Sync, synchronize as synchronize_on
from ..tasks import Task

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import Event, HostThread, Stream

_EX_FLAGS = C.ACL_EVENT_SYNC | C.ACL_EVENT_CAPTURE_STREAM_PROGRESS | C.ACL_EVENT_TIME_LINE | C.ACL_EVENT_IPC
KNOWN_FLAGS = (C.ACL_EVENT_SYNC | C.ACL_EVENT_CAPTURE_STREAM_PROGRESS | C.ACL_EVENT_TIME_LINE
               | C.ACL_EVENT_DEVICE_USE_ONLY | C.ACL_EVENT_EXTERNAL | C.ACL_EVENT_IPC)


def create(m: Machine, th: HostThread, flags: int | None, ex: bool = False) -> int:
    """``ex``: aclrtCreateEventExWithFlag (api_error.cc:1653-1674): not an OR of SYNC, CAPTURE_STREAM_PROGRESS,
    TIME_LINE, or IPC alone: 107000; a "new mode" event (api_impl.cc:2072), refused by aclrtResetEvent."""
    ctx = m.current_context(th)
    bits = 0 if flags is None else flags
    if ex and (bits & ~_EX_FLAGS or not bits & _EX_FLAGS or bits & C.ACL_EVENT_IPC and bits != C.ACL_EVENT_IPC):
        fail(ACL_ERROR_RT_PARAM_INVALID, f"aclrtCreateEventExWithFlag: flag {bits:#x} is invalid: an OR of "
             "ACL_EVENT_SYNC, ACL_EVENT_CAPTURE_STREAM_PROGRESS, ACL_EVENT_TIME_LINE, or ACL_EVENT_IPC alone")
    if ex and bits == C.ACL_EVENT_IPC:
        _ipc_supported(m)
    if not ex and flags is not None and (bits <= 0 or bits & ~KNOWN_FLAGS):
        fail(ACL_ERROR_INVALID_PARAM, f"event flag {flags!r} is not a combination of ACL_EVENT_* flags")
    if not ex and bits & C.ACL_EVENT_EXTERNAL and bits != C.ACL_EVENT_EXTERNAL:
        fail(ACL_ERROR_INVALID_PARAM, "ACL_EVENT_EXTERNAL cannot be combined with other flags")
    dev = m.devices[ctx.device]
    if dev.live_events >= m.profile.max_events:
        fail(ACL_ERROR_RT_NO_EVENT_RESOURCE, f"device {ctx.device} already has {dev.live_events} events, the most a "
             f"{m.profile.soc_name} allows ({m.profile.max_events})")
    ev = Event(m.new_handle(), ctx, bits, flags is None)
    ev.ex = ex
    if ev.plain or ev.flags & _WAITABLE:
        ev.event_id, dev.next_event_id = dev.next_event_id, dev.next_event_id + 1
    dev.live_events += 1
    ctx.events[ev.handle] = ev
    m.events[ev.handle] = ev
    m.log.append(T.EventCreated(th.clock, ev.handle, ctx.device, ev.flags))
    return ev.handle


def _event_and_stream(m: Machine, th: HostThread, handle, stream_handle, api: str) -> tuple[Event, Stream]:
    """The event and the stream a record, wait or reset names: on the same device."""
    ev = m.event(handle)
    stream = m.stream(th, stream_handle, api=api)
    if ev.device != stream.device:
        fail(ACL_ERROR_RT_STREAM_CONTEXT,
             f"{api}: the event belongs to device {ev.device} but stream {stream.stream_id} runs on device "
             f"{stream.device}; events and streams must be on the same device")
    if ev.flags == C.ACL_EVENT_IPC and stream.capture is not None:
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"{api}: IPC events cannot be used on a capturing stream")
    if stream.capture is not None and not ev.ex and ev.flags != C.ACL_EVENT_EXTERNAL:
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"{api}: an event of aclrtCreateEvent or aclrtCreateEventWithFlag "
             "cannot be used on a capturing stream: create it with aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)")
    return ev, stream


def _external(stream, external: bool, api: str) -> tuple:
    """EXTERNAL record/wait (WithFlag; acl/rt.py checks the flag): off a capture 107029 (api_impl.cc:1612,
    2155); else the task is captured and each replay records, or waits for, the event itself (core/features/capture.py)."""
    if external and stream.capture is None:
        fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, f"{api}: stream {stream.stream_id} is not capturing; the EXTERNAL "
             "flag is for a capture (aclmdlRICaptureBegin) that syncs with work outside it")
    return (("external", 1),) if external else ()


def record(m: Machine, th: HostThread, handle, stream_handle, external: bool = False) -> None:
    ev, stream = _event_and_stream(m, th, handle, stream_handle, "aclrtRecordEvent")
    detail = _external(stream, external, "aclrtRecordEventWithFlag") if external else ()
    task = m.submit(th, stream, Task.new("event_record", "EVENT_RECORD", event=ev, detail=detail))
    if not external:
        ev.record_task = task


_WAITABLE = C.ACL_EVENT_SYNC | C.ACL_EVENT_EXTERNAL | C.ACL_EVENT_IPC


def stream_wait(m: Machine, th: HostThread, stream_handle, handle, external: bool = False) -> None:
    ev, stream = _event_and_stream(m, th, handle, stream_handle, "aclrtStreamWaitEvent")
    detail = _external(stream, external, "aclrtStreamWaitEventWithFlag") if external else ()
    if not ev.plain and not ev.flags & _WAITABLE:     # api_error.cc:1414-1416
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"this event's flags ({ev.flags:#x}) hold none of ACL_EVENT_SYNC, "
             "ACL_EVENT_EXTERNAL, ACL_EVENT_IPC: it has no wait task, so streams cannot wait on it")
    if len(ev.waits) > 16:                # forget the waits already run: only the pending ones matter
        ev.waits = [task for task in ev.waits if not task.done]
    ev.waits.append(m.submit(th, stream, Task.new("event_wait", "EVENT_WAIT", waits_on=None if external
                                                  else ev.record_task, event=ev, detail=detail)))


def reset(m: Machine, th: HostThread, handle, stream_handle) -> None:
    ev, stream = _event_and_stream(m, th, handle, stream_handle, "aclrtResetEvent")
    if ev.ex or not ev.plain and (ev.flags == C.ACL_EVENT_IPC or not ev.flags & _WAITABLE):
        what = "an aclrtCreateEventExWithFlag event (api_impl.cc:2199-2216)" if ev.ex else "this event"
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"aclrtResetEvent: {what} (flags {ev.flags:#x}) needs no reset; only "
             "events of aclrtCreateEvent, or aclrtCreateEventWithFlag with ACL_EVENT_SYNC, are reset")

    snapshot = ev.record_task

    def forget():
        if ev.record_task is snapshot:     # a record issued after the reset stands
            ev.record_task = None
    m.submit(th, stream, Task.new("event_reset", "EVENT_RESET", effect=forget, event=ev))


def synchronize(m: Machine, th: HostThread, handle) -> None:
    ev = m.event(handle)
    task = ev.record_task            # (never recorded: nothing to wait for)
    synchronize_on(m, th, Sync("aclrtSynchronizeEvent", "synchronizing an event", ev.device, event=ev),
                   None if task is None else (lambda: task.done), learns=(task,))


def query_status(m: Machine, th: HostThread, handle) -> int:
    ev = m.event(handle)
    graphs(m).refuse_event(ev, "aclrtQueryEventStatus", query=True)
    task = ev.record_task
    done = task.done if task is not None else ev.flags == C.ACL_EVENT_IPC
    if done and task is not None:
        hazards.learn(m, th, (task,))         # "complete" tells the host the work is done
    return C.ACL_EVENT_RECORDED_STATUS_COMPLETE if done else C.ACL_EVENT_RECORDED_STATUS_NOT_READY


def query(m: Machine, th: HostThread, handle) -> int:
    """aclrtQueryEvent: ACL_EVENT_STATUS_NOT_READY while the last record has not run, else COMPLETE."""
    ev = m.event(handle)
    graphs(m).refuse_event(ev, "aclrtQueryEvent", query=True)
    task = ev.record_task
    if task is not None and task.done:
        hazards.learn(m, th, (task,))         # "complete" tells the host the work is done
    return C.ACL_EVENT_STATUS_NOT_READY if task is not None and not task.done else C.ACL_EVENT_STATUS_COMPLETE


def query_wait_status(m: Machine, th: HostThread, handle) -> int:
    """aclrtQueryEventWaitStatus: COMPLETE once every wait issued for the event has run."""
    ev = m.event(handle)
    ev.waits = [task for task in ev.waits if not task.done]
    return C.ACL_EVENT_WAIT_STATUS_NOT_READY if ev.waits else C.ACL_EVENT_WAIT_STATUS_COMPLETE


def event_id(m: Machine, th: HostThread, handle) -> int:
    ev = m.event(handle)
    if ev.event_id is None:
        fail(ACL_ERROR_RT_INTERNAL_ERROR, f"this event (flags {ev.flags:#x}) has no wait task, so the runtime gave "
             "it no event id (event.cc:505-513)")
    return ev.event_id


def available(m: Machine, th: HostThread) -> int:
    """aclrtGetEventAvailNum: the events the current device still takes."""
    ctx = m.current_context(th)
    return m.profile.max_events - m.devices[ctx.device].live_events


def ticks(m: Machine, t: int) -> int:
    return t * m.profile.timer_ticks_per_ms // 1_000_000


def _timed(ev: Event, which: str) -> Task:
    """The finished task that recorded ``ev``, or the refusal of a call that reads its time."""
    if ev.flags in (C.ACL_EVENT_IPC, C.ACL_EVENT_EXTERNAL):
        kind = "an IPC" if ev.flags == C.ACL_EVENT_IPC else "an EXTERNAL"
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"{which} is {kind} event, which keeps no timestamp")
    task = ev.record_task
    if task is None:
        fail(ACL_ERROR_RT_INTERNAL_ERROR, f"{which} has not been recorded")
    if not isinstance(task, Task) or not task.done:   # (a capture's Recorded is never done)
        fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
             f"{which} has not completed yet, so its timestamp is unset: synchronize it (aclrtSynchronizeEvent) first")
    return task


def get_timestamp(m: Machine, th: HostThread, handle) -> int:
    """aclrtEventGetTimestamp (RT-API 07): when the event's recorded work finished, in us since
    the device booted (the sandbox's boot is t = 0), read from the same timestamp counter as
    aclrtEventElapsedTime; refused as that call refuses each of its events (the sandbox's choice)."""
    ev = m.event(handle)
    graphs(m).refuse_event(ev, "aclrtEventGetTimestamp", query=True)
    return ticks(m, _timed(ev, "the event").end_t) * 1000 // m.profile.timer_ticks_per_ms


def elapsed_time(m: Machine, th: HostThread, start_handle, end_handle) -> float:
    start, end = m.event(start_handle), m.event(end_handle)
    for ev in (start, end):
        graphs(m).refuse_event(ev, "aclrtEventElapsedTime", query=True)
    started, ended = (_timed(ev, f"the {which} event") for ev, which in ((start, "start"), (end, "end")))
    return (ticks(m, ended.end_t) - ticks(m, started.end_t)) / m.profile.timer_ticks_per_ms


class IpcEvents:
    """The IPC events exported so far, by the key their handle carries."""

    def __init__(self, m: Machine):
        self.exported: dict[int, Event] = {}


def _ipc_supported(m: Machine) -> None:
    if not m.profile.ipc_event_supported:       # RT_FEATURE_IPC_EVENT (api_c_standard_soc.cc:1468, 1488)
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"IPC events are not supported on {m.profile.soc_name}")


def ipc_get_handle(m: Machine, th: HostThread, handle) -> bytes:
    ev = m.event(handle)
    _ipc_supported(m)
    if not ev.ex or ev.flags != C.ACL_EVENT_IPC:
        fail(ACL_ERROR_RT_PARAM_INVALID, "only an event of aclrtCreateEventExWithFlag(ACL_EVENT_IPC) has an IPC "
             f"handle; this one's flags are {ev.flags:#x}")
    if not ev.ipc_key:
        exported = m.feature(IpcEvents).exported
        ev.ipc_key = len(exported) + 1
        exported[ev.ipc_key] = ev
    return ev.ipc_key.to_bytes(8, "little") + bytes(C.ACL_IPC_EVENT_HANDLE_SIZE - 8)


def ipc_open_handle(m: Machine, th: HostThread, key: int) -> int:
    """``key``: the first 8 bytes of the handle (ipc_event.cc:219), as an int."""
    _ipc_supported(m)
    m.current_context(th)
    source = m.feature(IpcEvents).exported.get(key)
    if source is None or not source.alive:
        fail(ACL_ERROR_RT_PARAM_INVALID, "the handle names no live IPC event: pass the bytes aclrtIpcGetEventHandle "
             "returned, before the exporting process destroys the event")
    ev = m.events[create(m, th, C.ACL_EVENT_IPC, ex=True)]
    ev.shared, ev.ipc_key, ev.opened = source.shared, key, True
    return ev.handle


def destroy(m: Machine, th: HostThread, handle) -> None:
    ev = m.event(handle)
    ev.alive = False
    ev.context.events.pop(ev.handle, None)
    m.events.pop(ev.handle, None)
    m.devices[ev.device].live_events -= 1
    m.log.append(T.EventDestroyed(th.clock, ev.handle))
