"""Task exceptions: the exception-info callback, its readers, the thread's last task, verbose errors.

Rules (hicann/runtime; include/external/acl/acl_rt.h, docs/zh/api_ref/13_exception_handling.md):

* ``aclrtSetExceptionInfoCallback(fn)`` registers one callback per process
  (src/acl/aclrt_impl/callback.cpp -> rtRegTaskFailCallbackByModule, one entry per module:
  a second call replaces the first; None removes it).  A function that is not callable is 100000.
* When a task fails on the device, the runtime builds an ``aclrtExceptionInfo`` and calls the
  callback from the thread that processes the task's completion, not the thread that launched
  it (src/runtime: TaskFailCallBackNotify is called from the task-completion paths).  Here that
  is the runtime's own thread of the process and device (a row of its own, "exception callback
  (device d)"), at the failing task's completion time: before the synchronize that reports the
  code.  Tasks discarded by a stopped context (ACL_STOP_ON_FAILURE) did not fail themselves and
  raise no callback.  The callback is user code (core/learner_code.py): what it raises is text in
  its CallbackRun record (kind "exception"); runtime calls inside it are refused with 207000,
  except the readers below, which only read the info.
* ``aclrtGet{Task,Stream,Thread,Device,ErrorCode}IdFromExceptionInfo(info)`` return a uint32, not an
  aclError; a null (or unknown) info gives ACL_ERROR_INVALID_EXCEPTION_INFO 0xFFFFFFFF
  (callback.cpp:76-100, the acl layer: acl/rt.py reads ``infos``).  The info lives while the callback
  runs; read afterwards it is unknown. The thread id is the trace's thread id of the thread that
  launched the task (the runtime gives the OS thread id, which is no stable number here).  Task ids are
  the trace's.
* ``aclrtGetThreadLastTaskId()``: the id of the last task the calling thread submitted to an
  explicitly created stream (docs/zh/api_ref/12_execution_control.md:610); 0 before any.
* ``aclrtGetErrorVerbose(deviceId)`` (event.cpp:381; api_error.cc:7430): bad device id 107001.
  errorType is ACL_RT_ERROR_OTHERS (0xFFFF) while a failure of the device is held (unreported, or
  a stopped context), else ACL_RT_NO_ERROR (0) (A2/A3 report only NO_ERROR, MEMORY and OTHERS;
  the sandbox's faults are no memory UCEs); tryRepair and hasDetail are 0.
"""
from __future__ import annotations

from .. import trace as T, learner_code
from ..errors import ACL_ERROR_INVALID_PARAM, describe, fail

ACL_ERROR_INVALID_EXCEPTION_INFO = 0xFFFFFFFF
ACL_RT_NO_ERROR, ACL_RT_ERROR_OTHERS = 0, 0xFFFF


class ExceptionInfo:
    __slots__ = ("task_id", "stream_id", "thread_id", "device_id", "error_code")

    def __init__(self, task, status):
        self.task_id, self.stream_id, self.device_id = task.id, task.stream.stream_id, task.device
        self.thread_id, self.error_code = getattr(task, "tid", 0), status


class ExceptionState:
    """One machine's exception callbacks; made by the first aclrtSetExceptionInfoCallback."""

    def __init__(self, m):
        self.m = m
        self.callbacks: dict[int, object] = {}      # pid -> fn
        self.infos: dict[int, ExceptionInfo] = {}   # handle -> info, while its callback runs
        self.threads: dict[tuple[int, int], int] = {}
        m.hooks.add("task_finished", self.finished)

    def finished(self, task, status) -> None:
        stream = task.stream
        if not status or (stream.context.failure and stream.error_stop):
            return                                   # succeeded, or discarded by a stopped context
        pid = stream.context.process.pid
        fn = self.callbacks.get(pid)
        if fn is None:
            return
        m, now = self.m, self.m.sim.now
        key = (pid, task.device)
        tid = self.threads.get(key)
        if tid is None:
            tid = self.threads[key] = m.new_tid()
            m.log.append(T.ThreadStarted(now, tid, pid, f"exception callback (device {task.device})"))
        handle = m.new_handle()
        self.infos[handle] = ExceptionInfo(task, status)
        try:
            error = learner_code.run(m, "exception", tid, fn, handle)
        finally:
            del self.infos[handle]
        name = getattr(fn, "__name__", type(fn).__name__)      # (its run takes a host call's time, as a host func's)
        m.log.append(T.CallbackRun(now, now + m.profile.host_costs.default, tid, task.id, "exception", name, False,
                                   error))


def set_callback(m, th, fn) -> None:
    if fn is not None and not callable(fn):
        fail(ACL_ERROR_INVALID_PARAM, f"callback must be a function (or None to remove it), got {describe(fn)}")
    st = m.feature(ExceptionState)
    if fn is None:
        st.callbacks.pop(th.process.pid, None)
    else:
        st.callbacks[th.process.pid] = fn


def error_verbose(m, th, device_id) -> dict:
    m.device(device_id)
    held = any(s.pending_error or s.context.failure for s in m.streams.values() if s.alive and s.device == device_id)
    return {"errorType": ACL_RT_ERROR_OTHERS if held else ACL_RT_NO_ERROR, "tryRepair": 0, "hasDetail": 0}
