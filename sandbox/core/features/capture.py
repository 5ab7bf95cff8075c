"""ACL Graph: capturing stream work into a model run instance (aclmdlRI) and replaying it.

Between aclmdlRICaptureBegin(stream) and aclmdlRICaptureEnd(stream) the tasks issued to the
stream are recorded, not run (RT-DG 04-01).  aclmdlRIExecuteAsync(ri, stream) then submits
all of them for one host call: the per-task launch cost is paid once, at capture, so the
replayed kernels reach the device together and run back to back.

Rules (RT-DG 04-01/04-02, RT-API 15, RT-FAQ ACLGraph, RT-DES aclgraph.md, RT-SRC errcode map):

* Begin on the default stream: a null stream is 100000 in the acl layer (model_ri.cpp:53), the
  default stream's own handle 207000 (api_impl_aclgraph.cc:35-37).  Any task on the default
  stream while a capture is active in its context: 107031 (the runtime's code for the default
  stream joining a capture, api_impl.cc:1631, 2178, 2224; for a launch, the sandbox's choice).
  Begin on a stream already capturing: 107027.  A mode outside GLOBAL/THREAD_LOCAL/RELAXED: 107000.  Not on 310B (the API reference lists it unsupported
  there; 310P and A2/A3 support it; the profile's ``acl_graph_supported``): 207000.
* Cross-stream capture: a stream joins the capture (same RI) by waiting on an event
  recorded on a captured stream.  At End every captured task must lead, through stream
  order and record/wait pairs, to the origin stream's last task; a side stream that never
  rejoined, or got tasks after it rejoined, fails End with 107025 and the capture is dropped.
  Waiting, inside one capture, on an event recorded in another: 107032.
* End on a stream that is not capturing: 107029 (RT-DES: "stream is not in capture
  status"); on a side stream instead of the origin: 107036; from another thread when the
  capture mode is not RELAXED: 107038.
* Synchronizing or querying a captured stream, a captured event, or the device/context of
  an active capture is illegal in every mode (107041, RT-FAQ); it invalidates the capture
  (status INVALIDATED), later tasks on it fail and End answers 507903.  Querying or timing
  an event recorded inside a capture: 107028.
* "Unsafe" functions: blocking aclrtMemcpy/aclrtMemset are refused with 107030, from pageable
  or pinned host memory alike (RT-SRC api_impl.cc MemCopySync checks the capture mode and never
  the memory); an async copy with pageable host memory is turned into a blocking one by the
  runtime and refused with 107041 (RT-SRC api_error.cc MemcpyAsync: "converted to a
  synchronous operation").  A thread is refused when its own mode (see
  aclmdlRICaptureThreadExchangeMode, default GLOBAL) is GLOBAL and any other thread has a
  GLOBAL capture active, or its mode is not RELAXED and it began a non-RELAXED capture that
  is still active.  A pageable async copy onto a captured stream is refused in every mode
  with 107000 ACL_ERROR_RT_PARAM_INVALID, before the mode is looked at (api_error.cc
  MemcpyAsync: only pinned host memory can be captured).
* Executing an RI that is still capturing: 107026; destroying it while a launch has
  tasks not finished: 107037.  Launches of one RI run one after the other, whatever the
  stream (RT-API 15).
* EXTERNAL record/wait (core/features/events.py; api_impl_capture_event.cc:110-118 captures the event itself):
  a replayed record is the event's new record, a replayed wait waits for its record as of the launch.
* aclmdlRIExecute (the blocking form) is documented as not usable with captured RIs: 207000.

Choices where the documents are silent are marked "sandbox choice" below.
"""
from __future__ import annotations

import json

from .. import constants as C, trace as T
from ..tasks import Task
from ..errors import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC,
                     ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, ACL_ERROR_RT_EVENT_CAPTURED,
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT, ACL_ERROR_RT_FILE_OPEN, ACL_ERROR_RT_MODEL_CAPTURED,
                     ACL_ERROR_RT_MODEL_RUNNING, ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT,
                     ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED,
                     ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD, ACL_ERROR_RT_STREAM_CAPTURED,
                     ACL_ERROR_RT_STREAM_CONTEXT, ACL_ERROR_RT_STREAM_NOT_CAPTURED, ACL_ERROR_RT_STREAM_UNJOINED,
                     ACL_ERROR_STREAM_CAPTURE_CONFLICT, fail)

GLOBAL = C.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL
THREAD_LOCAL = C.ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL
RELAXED = C.ACL_MODEL_RI_CAPTURE_MODE_RELAXED
MODE_NAMES = {v: k for k, v in vars(C).items() if k.startswith("ACL_MODEL_RI_CAPTURE_MODE_")}
NONE, ACTIVE, INVALIDATED = (C.ACL_MODEL_RI_CAPTURE_STATUS_NONE, C.ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
                             C.ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED)

# aclmdlRITaskType (RT-API 25-02; acl_rt.h:589-597) of the task kinds a capture can hold (others: DEFAULT)
TASK_TYPES = {"kernel": "KERNEL", "event_record": "EVENT_RECORD", "event_wait": "EVENT_WAIT",
              "event_reset": "EVENT_RESET", "value_write": "VALUE_WRITE", "value_wait": "VALUE_WAIT"}


class Recorded:
    """One task held by a model run instance: its specification (a Task never submitted
    itself), copied and submitted at each launch."""
    __slots__ = ("index", "capture", "stream", "spec", "kind", "name", "event", "waits_on", "prev")
    # an event whose last record is this task is a "captured event"; it has no device completion
    done = False
    vc = None                                          # no happens-before clock until replayed

    def __init__(self, index, capture, stream, spec, waits_on, prev):
        self.index, self.capture, self.stream, self.spec = index, capture, stream, spec
        self.kind, self.name, self.event = spec.kind, spec.name, spec.event
        self.waits_on, self.prev = waits_on, prev      # Recorded (same capture) or None


class ModelRI:
    """A model run instance: the recorded tasks of one capture, replayable on a stream."""

    def __init__(self, handle: int, number: int, context, origin, mode: int, thread):
        self.handle = handle
        self.number = number                  # 1, 2, ... in creation order (the "model id")
        self.context = context
        self.device = origin.device
        self.origin = origin
        self.mode = mode
        self.thread = thread                  # the thread that began the capture
        self.status = ACTIVE                  # ACTIVE / INVALIDATED while capturing, then "ready"
        self.invalid_reason = ""
        self.streams = [origin]               # captured streams in join order (origin first)
        self.records: list[Recorded] = []
        self.last: dict[int, Recorded] = {}   # stream handle -> its last recorded task
        self.side_streams: list = []          # internal replay streams, one per captured side stream
        self.launches: list[list] = []        # tasks of each launch
        self.sink = None                      # last replayed origin task of the latest launch
        self.alive = True

    @property
    def capturing(self) -> bool:
        return self.status in (ACTIVE, INVALIDATED)

    def executing(self) -> bool:
        return any(not task.done for tasks in self.launches[-1:] for task in tasks)


def graphs(m) -> Graphs:
    """The machine's capture state, made on first use."""
    return m.feature(Graphs)


class Graphs:
    """Per-machine capture state: active captures, instances, and each thread's capture mode."""

    def __init__(self, machine):
        self.m = machine
        self.active: list[ModelRI] = []       # captures in progress (ACTIVE or INVALIDATED)
        self.instances: dict[int, ModelRI] = {}
        self.thread_modes: dict[int, int] = {}   # tid -> mode (default GLOBAL)
        self._numbers = 0

    # -- lookups ---------------------------------------------------------------------------------
    def check_supported(self, api: str) -> None:
        p = self.m.profile
        if not p.acl_graph_supported:         # RT-API 15: not on Atlas 200I/500 A2
            fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"{api}: ACL Graph is not supported on {p.soc_name}")

    def ri(self, handle) -> ModelRI:
        ri = self.instances.get(handle)
        if ri is None or not ri.alive:
            fail(ACL_ERROR_INVALID_PARAM, f"{handle!r} is not a live model run instance (aclmdlRI)")
        return ri

    def in_context(self, context) -> list[ModelRI]:
        return [ri for ri in self.active if ri.context is context]

    # -- begin / end -----------------------------------------------------------------------------
    def begin(self, th, stream, mode: int) -> ModelRI:
        self.check_supported("aclmdlRICaptureBegin")
        if mode not in MODE_NAMES:
            fail(ACL_ERROR_RT_PARAM_INVALID, f"capture mode {mode!r} is not an aclmdlRICaptureMode (0, 1 or 2)")
        if stream.is_default:            # (api_impl_aclgraph.cc:35-37: the runtime's "feature not supported")
            fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                 "the default stream cannot be captured: create a stream with aclrtCreateStream and capture that")
        if stream.capture is not None:
            fail(ACL_ERROR_RT_STREAM_CAPTURED,
                 f"stream {stream.stream_id} is already capturing (into model run instance "
                 f"{stream.capture.number}); end that capture first")
        self._numbers += 1
        ri = ModelRI(self.m.new_handle(), self._numbers, stream.context, stream, mode, th)
        self.instances[ri.handle] = ri
        if not self.active:                     # the hooks that capture needs, while one is active
            self.m.hooks.add("intercept", self.intercept)
            self.m.hooks.add("before_sync", self.before_sync)
        self.active.append(ri)
        stream.capture = ri
        self.m.log.append(T.GraphCaptureBegan(th.clock, ri.handle, stream.handle, MODE_NAMES[mode], th.tid))
        return ri

    def end(self, th, stream) -> ModelRI:
        self.check_supported("aclmdlRICaptureEnd")
        ri = stream.capture
        if ri is None:
            fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                 f"stream {stream.stream_id} is not capturing: call aclmdlRICaptureBegin on it first")
        if stream is not ri.origin:
            fail(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED,
                 f"stream {stream.stream_id} joined the capture through an event; end it on the stream that began "
                 f"it (stream {ri.origin.stream_id})")
        if ri.mode != RELAXED and th is not ri.thread:
            fail(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
                 f"the capture was begun by thread {ri.thread.name!r} in {MODE_NAMES[ri.mode]}; only "
                 "ACL_MODEL_RI_CAPTURE_MODE_RELAXED captures may be ended by another thread")
        if ri.status == INVALIDATED:
            self._drop(th, ri)
            fail(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                 f"the capture was invalidated earlier ({ri.invalid_reason}); nothing was kept, begin again")
        stray = self._unjoined(ri)
        if stray is not None:
            self._drop(th, ri)
            fail(ACL_ERROR_RT_STREAM_UNJOINED,
                 f"task {stray.index} ({stray.kind} {stray.name!r}) on stream {stray.stream.stream_id} does not lead "
                 f"back to the origin stream {ri.origin.stream_id}: every side stream must rejoin it (record an event "
                 "on the side stream, wait for it on the origin) after its last task; the capture was dropped")
        self._leave(ri)
        ri.status = "ready"
        self.m.log.append(T.GraphCaptured(th.clock, ri.handle, stream.handle, len(ri.records),
                                          tuple(s.handle for s in ri.streams)))
        return ri

    def _unjoined(self, ri: ModelRI) -> Recorded | None:
        """The first recorded task that does not lead to the origin's last task (None: all do)."""
        reached = set()
        todo = [ri.last.get(ri.origin.handle)]            # (None: nothing on the origin stream)
        while todo:
            r = todo.pop()
            if r is None or r.index in reached:
                continue
            reached.add(r.index)
            todo.extend((r.prev, r.waits_on))
        return next((r for r in ri.records if r.index not in reached), None)

    def _leave(self, ri: ModelRI) -> None:
        """The captured streams return to normal; events recorded in the capture are reset."""
        for s in ri.streams:
            s.capture = None
        if ri in self.active:
            self.active.remove(ri)
            if not self.active:
                self.m.hooks.remove("intercept", self.intercept)
                self.m.hooks.remove("before_sync", self.before_sync)
        for r in ri.records:
            if r.event is not None and r.event.record_task is r:
                r.event.record_task = None

    def _drop(self, th, ri: ModelRI) -> None:
        self._leave(ri)
        ri.alive = False
        self.instances.pop(ri.handle, None)
        self.m.log.append(T.GraphDestroyed(th.clock, ri.handle))

    def invalidate(self, ri: ModelRI, reason: str) -> None:
        if ri.status == ACTIVE:
            ri.status = INVALIDATED
            ri.invalid_reason = reason
            self.m.log.append(T.GraphCaptureInvalidated(self.m.current_thread().clock, ri.handle, reason))

    # -- the intercept hook of Machine.submit (registered while a capture is active) -------------------
    def intercept(self, th, stream, spec):
        """Record the task if its stream is captured (or joins a capture); refuse what capture forbids.

        ``spec`` is the task, not submitted; a recorded copy of it is submitted at each launch.
        Returns the Recorded task, or None to let the submission go to the device as usual.
        """
        ri = stream.capture
        waits_on = spec.waits_on
        joined = waits_on.capture if waits_on is not None else None
        pageable = spec.kind == "memcpy" and dict(spec.detail).get("pageable", False)
        if ri is None and joined is None:
            if stream.is_default and self.in_context(stream.context):
                fail(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT,
                     f"the default stream cannot be used while stream {self.in_context(stream.context)[0].origin.stream_id}"
                     " is capturing: use an explicitly created stream")
            if stream.label == "sync copies":           # blocking: pageable or not, 107030 (api_impl.cc)
                self.check_unsafe(th, _unsafe_api(spec.name, False))
            elif pageable:
                self.check_unsafe(th, _unsafe_api(spec.name, True), True)
            return None
        if ri is None:                                  # a wait on a captured event pulls the stream in
            ri = joined
            if stream.is_default:
                fail(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT,
                     "the default stream cannot join a capture: use an explicitly created stream")
            if ri.status == ACTIVE:  # type: ignore[union-attr]  # ri or joined is set: both None returned above
                stream.capture = ri
                ri.streams.append(stream)  # type: ignore[union-attr]  # (as above)
        elif joined is not None and joined is not ri:
            fail(ACL_ERROR_STREAM_CAPTURE_CONFLICT,
                 f"stream {stream.stream_id} is capturing into model run instance {ri.number} but the event was "
                 f"recorded in another capture ({joined.number})")
        if ri.status == INVALIDATED:
            fail(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                 f"the capture on stream {ri.origin.stream_id} was invalidated ({ri.invalid_reason}); end it and "
                 "begin again")
        if pageable:             # api_error.cc MemcpyAsync: RT_ERROR_INVALID_VALUE before any mode check
            fail(ACL_ERROR_RT_PARAM_INVALID,
                 "the pageable memory copy task does not support graph capture: an asynchronous copy from or to "
                 "pageable host memory cannot be captured; use host memory from aclrtMallocHost")
        if joined is None:
            waits_on = None      # sandbox choice: work recorded before the capture is not part of the graph
        recorded = spec.copy(waits_on=None, detail=tuple(spec.detail), access=tuple(spec.access))
        r = Recorded(len(ri.records), ri, stream, recorded, waits_on, ri.last.get(stream.handle))
        ri.records.append(r)
        ri.last[stream.handle] = r
        engine = spec.engine
        self.m.log.append(T.TaskCaptured(th.clock, ri.handle, stream.handle, r.index, spec.kind, spec.name,
                                         engine.name if engine is not None else "",
                                         waits_on.index if waits_on is not None else -1, th.tid, th.call_seq))
        return r

    # -- what capture forbids elsewhere -------------------------------------------------------------
    def check_unsafe(self, th, api: str, pageable: bool = False) -> None:
        """Blocking memory calls (and pageable async copies) under the capture modes."""
        mode = self.thread_modes.get(th.tid, GLOBAL)
        if mode == RELAXED:
            return
        own = [ri for ri in self.active if ri.thread is th and ri.mode != RELAXED]
        other_global = [ri for ri in self.active if ri.thread is not th and ri.mode == GLOBAL]
        culprit = own[0] if own else (other_global[0] if mode == GLOBAL and other_global else None)
        if culprit is None:
            return
        why = (f"this thread began a {MODE_NAMES[culprit.mode]} capture on stream {culprit.origin.stream_id}"
               if culprit.thread is th else
               f"thread {culprit.thread.name!r} is capturing stream {culprit.origin.stream_id} in "
               f"{MODE_NAMES[GLOBAL]}")
        message = (f"{api} is not permitted while a stream is capturing and the capture mode is not relaxed: {why}; "
                   "switch this thread to ACL_MODEL_RI_CAPTURE_MODE_RELAXED with "
                   "aclmdlRICaptureThreadExchangeMode around the call")
        if pageable:
            fail(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC,
                 "the copy uses pageable host memory, so it was converted to a synchronous operation; " + message)
        fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, message)

    def before_sync(self, th, sync) -> None:
        """The ``before_sync`` hook: a synchronize of what a capture holds is refused (stream 107027,
        event 107028, both leaving the capture as it is; device 107041, invalidating it)."""
        if sync.stream is not None:
            self.refuse_stream_sync(sync.stream, sync.api)
        elif sync.event is not None:
            self.refuse_event(sync.event, sync.api, query=False)
        elif sync.context is not None:
            self.refuse_device_sync(sync.context, sync.api)

    def refuse_stream_sync(self, stream, api: str) -> None:
        """Synchronize/query of a stream that is capturing: 107027 ACL_ERROR_RT_STREAM_CAPTURED, checked
        before anything else and leaving the capture as it is (hicann/runtime src/runtime/api/impl/
        api_error.cc:1446-1449 StreamSynchronize, 1484 StreamQuery)."""
        ri = stream.capture
        if ri is not None:
            fail(ACL_ERROR_RT_STREAM_CAPTURED, f"{api}: stream {stream.stream_id} is capturing, which a synchronize "
                 "or query does not support; the capture goes on. Synchronize before aclmdlRICaptureBegin or "
                 "after aclmdlRICaptureEnd")

    def refuse_device_sync(self, context, api: str) -> None:
        """Synchronize of a device or context while one of its streams is capturing.  The runtime's
        DeviceSynchronize checks no capture itself (api_error.cc:3477-3484); the sandbox refuses it as the
        capture's unsafe calls are refused, 107041, and invalidates the capture (its choice: the wait
        would include the capturing stream, which a capture never lets complete)."""
        captures = [ri for ri in self.active if ri.device == context.device and ri.context.process is context.process]
        for ri in captures[1:]:
            self.invalidate(ri, f"{api} during capture")
        if captures:
            self._refuse(captures[0], api, f"stream {captures[0].origin.stream_id} of device {context.device} is "
                                           "capturing")

    def refuse_event(self, ev, api: str, *, query: bool) -> None:
        """Synchronize, query or elapsed time of an event recorded inside a capture: 107028
        ACL_ERROR_RT_EVENT_CAPTURED, the capture left as it is (api_error.cc:1779-1781 EventSynchronize)."""
        r = ev.record_task
        ri = r.capture if r is not None else None
        if ri is None:
            return
        fail(ACL_ERROR_RT_EVENT_CAPTURED,
             f"{api}: the event was recorded inside the capture on stream {ri.origin.stream_id}; it has no "
             "completion until the model run instance is executed")

    def _refuse(self, ri: ModelRI, api: str, why: str) -> None:
        self.invalidate(ri, f"{api} during capture")
        fail(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC,
             f"{api} is illegal during capture in every mode ({why}); the capture is now invalidated. "
             "Synchronize before aclmdlRICaptureBegin or after aclmdlRICaptureEnd")

    # -- info and modes -------------------------------------------------------------------------------
    def info(self, stream) -> tuple[int, int]:
        self.check_supported("aclmdlRICaptureGetInfo")
        ri = stream.capture
        return (NONE, 0) if ri is None else (ri.status, ri.handle)

    def exchange_mode(self, th, mode: int) -> int:
        self.check_supported("aclmdlRICaptureThreadExchangeMode")
        if mode not in MODE_NAMES:
            fail(ACL_ERROR_RT_PARAM_INVALID, f"capture mode {mode!r} is not an aclmdlRICaptureMode (0, 1 or 2)")
        old = self.thread_modes.get(th.tid, GLOBAL)
        self.thread_modes[th.tid] = mode
        return old

    # -- replay ---------------------------------------------------------------------------------------
    def execute_async(self, th, ri: ModelRI, stream) -> list:
        self.check_supported("aclmdlRIExecuteAsync")
        if ri.capturing:
            fail(ACL_ERROR_RT_MODEL_CAPTURED,
                 f"model run instance {ri.number} is still capturing: call aclmdlRICaptureEnd first")
        if stream.capture is not None:
            fail(ACL_ERROR_RT_STREAM_CAPTURED,
                 f"stream {stream.stream_id} is capturing; launching a model run instance into a capture is not "
                 "supported here")
        if stream.device != ri.device:
            fail(ACL_ERROR_RT_STREAM_CONTEXT,
                 f"model run instance {ri.number} was captured on device {ri.device} but stream {stream.stream_id} "
                 f"runs on device {stream.device}")
        if stream.is_default and self.in_context(stream.context):
            fail(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT, "the default stream cannot be used while a stream is capturing")
        m = self.m
        targets = {ri.origin.handle: stream}
        for i, side in enumerate(ri.streams[1:]):
            if i >= len(ri.side_streams):
                ri.side_streams.append(m.create_stream(stream.context, side.priority,
                                                       label=f"model RI {ri.number} stream {i + 1}", t=th.clock))
            targets[side.handle] = ri.side_streams[i]
        tasks = []
        previous = ri.sink
        if previous is not None and not previous.done and previous.stream is not stream:
            tasks.append(m.submit(th, stream, Task.new("event_wait", "MODEL_RI_SERIAL", waits_on=previous,
                                                       detail=(("graph", ri.handle),))))
        replayed: dict = {}
        for r in ri.records:
            dep = replayed[r.waits_on.index] if r.waits_on is not None else None
            external = ("external", 1) in r.spec.detail and r.event.alive
            if external and r.kind == "event_wait":   # the event's record as of this launch, outside captures
                dep = r.event.record_task if r.event.record_task and not r.event.record_task.capture else None
            detail = r.spec.detail + (("graph", ri.handle), ("graph_task", r.index))
            task = m.submit(th, targets[r.stream.handle], r.spec.copy(waits_on=dep, detail=detail))
            if external and r.kind == "event_record":
                r.event.record_task = task            # eager work (and later launches) wait for this replay
            replayed[r.index] = task
            tasks.append(task)
        last = ri.last.get(ri.origin.handle)
        ri.sink = replayed[last.index] if last is not None else (tasks[-1] if tasks else ri.sink)
        ri.launches.append(tasks)
        m.log.append(T.GraphLaunched(th.clock, ri.handle, stream.handle, tuple(t.id for t in tasks)))
        return tasks

    def execute(self, th, ri: ModelRI, timeout_ms: int) -> None:
        self.check_supported("aclmdlRIExecute")
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             f"aclmdlRIExecute cannot run a captured model run instance (RT-API 15); use "
             f"aclmdlRIExecuteAsync(ri, stream) and then aclrtSynchronizeStream(stream) (timeout {timeout_ms} ms "
             "was not used)")

    def destroy(self, th, ri: ModelRI) -> None:
        if ri.capturing:
            fail(ACL_ERROR_RT_MODEL_CAPTURED,
                 f"model run instance {ri.number} is still capturing on stream {ri.origin.stream_id}: end the "
                 "capture first")
        if ri.executing():
            fail(ACL_ERROR_RT_MODEL_RUNNING,
                 f"model run instance {ri.number} is still executing: synchronize its stream before destroying it")
        ri.alive = False
        self.instances.pop(ri.handle, None)
        for s in ri.side_streams:
            self.m.retire_stream(s, th.clock)
        self.m.log.append(T.GraphDestroyed(th.clock, ri.handle))

    def debug_json(self, ri: ModelRI, path: str, flags: int) -> None:
        """aclmdlRIDebugJsonPrint: model id, stream ids and each task's id and type, as JSON."""
        self.check_supported("aclmdlRIDebugJsonPrint")
        if flags not in (0, 1):
            fail(ACL_ERROR_INVALID_PARAM, "flags must be ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY (0) or _VERBOSE (1)")
        if not isinstance(path, str) or not path:
            fail(ACL_ERROR_INVALID_PARAM, "path must be a file path")
        tasks = []
        for r in ri.records:
            entry = {"task_id": r.index, "stream_id": r.stream.stream_id,
                     "task_type": TASK_TYPES.get(r.kind, "DEFAULT"), "name": r.name}
            if r.waits_on is not None:
                entry["waits_on_task"] = r.waits_on.index
            if flags == 1 and r.kind == "kernel":
                entry["block_dim"] = r.spec.block_dim
            tasks.append(entry)
        doc = {"model_id": ri.number, "device_id": ri.device,
               "streams": [s.stream_id for s in ri.streams], "tasks": tasks}
        try:
            with open(path, "w", encoding="utf-8") as out:
                json.dump(doc, out, indent=1)
        except OSError as exc:
            fail(ACL_ERROR_RT_FILE_OPEN, f"cannot write {path!r}: {exc.strerror}")


def _unsafe_api(name: str, pageable: bool) -> str:
    if pageable:
        return "aclrtMemcpyAsync with pageable host memory"
    return "aclrtMemset" if name.startswith("MEMSET") else "aclrtMemcpy"
