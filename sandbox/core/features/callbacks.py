"""Host callbacks: a stream task whose work is a Python function run on a host thread.

Two mechanisms (RT-API 12, RT-DG 03-02, pyACL launch_callback page):

* ``aclrtSubscribeReport(threadId, stream)`` binds a user thread to a stream;
  ``aclrtLaunchCallback(fn, userData, blockType, stream)`` queues a callback task; when the
  tasks before it have finished, the callback is *delivered* to the subscribed thread, which
  runs ``fn(userData)`` inside its next ``aclrtProcessReport(timeout)``.  ACL_CALLBACK_BLOCK
  holds the later tasks of the stream until ``fn`` has returned; ACL_CALLBACK_NO_BLOCK lets
  the stream go on at delivery.
* ``aclrtLaunchHostFunc(stream, fn, args)`` needs no user thread: the runtime's own thread
  (one per process and device, a row of its own in the trace) runs ``fn(args)`` as soon as
  the task is reached, and the later tasks wait for it.

Rules and codes:

* launch_callback on a stream without a subscribed thread: 107015 ACL_ERROR_RT_STREAM_NO_CB_REG.
* One stream, one thread: subscribing a stream that already has a thread (the same or
  another) is 107011 ACL_ERROR_RT_STREAM_SUBSCRIBE.  The header also has 100033
  ACL_ERROR_REPEAT_SUBSCRIBE, but the runtime maps its subscribe-stream error to 107011 and
  the acl layer passes runtime codes through; the 1000xx subscribe codes are the deprecated
  ACL-level ones (100034 -> 107015, 100035 -> 107012, 100036 -> 507012).
* One thread may serve several streams of one device; subscribing it to a stream of another
  device while it still serves one is 107012 ACL_ERROR_RT_THREAD_SUBSCRIBE.
* aclrtProcessReport on a thread that serves no stream (and has nothing delivered) is 107012;
  a timeout other than -1 (forever) or > 0 ms is 100000 (acl layer, acl/rt.py); nothing delivered in time is
  507012 ACL_ERROR_RT_REPORT_TIMEOUT.  Each call runs at most one callback (the docs ask
  for a loop).  If nothing can ever arrive (no other thread can run and no device work is
  left) it also answers 507012, at once, with the reason.
* Unsubscribing a stream that has no thread is 107011; naming another thread than the one it
  has is 107012.  A callback that reaches the head of a stream which has no thread any more
  fails on the device with 107015 (reported at the next synchronize).
* aclrtSubscribeHostFunc / aclrtProcessHostFunc / aclrtUnSubscribeHostFunc (host_func.c, a
  pass-through to rtSubscribeHostFunc...) do the same for host functions: launched on a stream
  with a subscribed thread, they run inside its aclrtProcessHostFunc, with the same rules and
  codes (a NULL stream is 107000); on a stream without one, the runtime's own thread runs them.
* The two mechanisms do not mix on one stream: launch_host_func registers the runtime's
  thread on the stream for good, so it and subscribe_report refuse each other with 107011.

Choices where the docs are silent (documented, tested):

* A callback or host function must not call the runtime (docs: "error or deadlock").  Here
  every runtime call made from inside one returns 207000 ACL_ERROR_RT_FEATURE_NOT_SUPPORT
  at once, with a message, and the call is listed in the trace as an error of that thread.
* What ``fn`` raises does not fail anything on the device (the C callback returns void);
  the exception text goes into the CallbackRun record and, for aclrtLaunchCallback, into
  the subscribed thread's recent error message.
* Running a callback costs the host thread ``host_costs.default``; a host function keeps
  its stream busy for the same time.
* Thread ids are ``threading.Thread.ident`` values (or ids from acl.util.start_thread, which
  are the same) of threads that take part in the sandbox; an unknown id is 100000.
"""
from __future__ import annotations

import numbers
import threading
from collections import deque

from .. import constants as C, hazards, trace as T, learner_code
from ..current_machine import current
from ..engines import Engine
from ..errors import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_STREAM_CAPTURED, ACL_ERROR_RT_REPORT_TIMEOUT,
                     ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ACL_ERROR_RT_STREAM_NO_CB_REG, ACL_ERROR_RT_STREAM_SUBSCRIBE, ACL_ERROR_RT_THREAD_SUBSCRIBE,
                     AclError, describe, fail)
from ..tasks import Task


class Job:
    """One callback task: what to run, where, and how it ended."""
    __slots__ = ("kind", "fn", "data", "block", "task", "stream", "thread", "status", "message")

    def __init__(self, kind, fn, data, block, stream):
        self.kind, self.fn, self.data, self.block, self.stream = kind, fn, data, block, stream
        self.task: Task = None  # type: ignore[assignment]  # the submitted task, set right after the job is made
        self.thread = None          # HostThread it was delivered to
        self.status, self.message = 0, ""

    def outcome(self):
        return (self.status, self.message) if self.status else 0


class CallbackEngine(Engine):
    """Where callback tasks sit from the moment they are reached until they complete.

    A shared engine never queues; ``begin`` delivers the callback and answers when it ends:
    at once (NO_BLOCK, host functions after their run) or never (BLOCK: the finish is pushed
    when ``fn`` has returned on the subscribed thread).
    """
    def __init__(self, device: int, state, name: str = "Host callback"):    # (core/features/notifies.py's waits: "")
        super().__init__(name, device, shared=True)
        self.state = state

    def begin(self, task, now: int) -> list:
        return self.state.reached(task, now)

    def due(self, task, now: int) -> bool:
        return True

    def wake(self, task, now: int) -> list:
        return []

    def end(self, task, now: int) -> list:
        return []


class CallbackState:
    """One machine's subscriptions, report queues and callback engines."""

    def __init__(self, m):
        self.m = m
        m.scheduler.hints.append(lambda: deadlock_hint(m))
        self.subs: dict[int, tuple] = {}            # stream handle -> (HostThread, Stream)
        self.host_subs: dict[int, tuple] = {}       # the same for aclrtSubscribeHostFunc
        self.host_func_streams: set[int] = set()    # streams the runtime's own thread serves
        self.reports: dict[int, deque] = {}         # thread tid -> delivered jobs, oldest first (-tid: host funcs)
        self.jobs: dict[int, Job] = {}              # task id -> job, until it completes
        self.engines: dict[int, CallbackEngine] = {}
        self.runtime_threads: dict[tuple[int, int], int] = {}   # (pid, device) -> trace tid
        self.running: dict[int, Job] = {}           # thread tid -> the BLOCK callback it runs now
        m.hooks.add("before_sync", self.before_sync)

    def before_sync(self, th, sync) -> None:
        """A BLOCK callback that synchronizes its own stream (or its device, or an event recorded on
        the stream after it) waits for itself: on a board the program hangs.  The sandbox returns
        the code of a synchronize that can never end at once, saying why (its choice)."""
        job = self.running.get(th.tid)
        if job is None:
            return
        stream = job.stream
        recorded = sync.event.record_task if sync.event is not None else None
        mine = (sync.stream is stream or (sync.stream is None and sync.event is None and sync.device == stream.device)
                or (recorded is not None and recorded.stream is stream and recorded.id > job.task.id))
        if mine:
            code = ACL_ERROR_RT_EVENT_SYNC_TIMEOUT if sync.event is not None else ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
            fail(code, f"{sync.what} can never finish: the BLOCK callback {_name(job.fn)!r} running on this thread "
                 f"holds stream {stream.stream_id} until it returns (on a board the program hangs here); "
                 "synchronize after the callback, on the thread that calls aclrtProcessReport")

    def engine(self, device: int) -> CallbackEngine:
        return self.engines.setdefault(device, CallbackEngine(device, self))

    def queue(self, tid: int) -> deque:
        return self.reports.setdefault(tid, deque())

    def served_device(self, th, host: bool = False) -> int | None:
        return next((stream.device for thread, stream in (self.host_subs if host else self.subs).values()
                     if thread is th and stream.alive), None)

    # -- the device side reaches a callback task ---------------------------------------------
    def reached(self, task, now: int) -> list:
        job = self.jobs[task.id]
        host = job.kind == "host_func"
        entry = (self.host_subs if host else self.subs).get(task.stream.handle)
        if host and entry is None:                  # no subscribed thread: the runtime's own runs it
            self._run_host_func(job, now)
            return [(task, now + self.m.profile.host_costs.default)]
        if entry is None:
            job.status = ACL_ERROR_RT_STREAM_NO_CB_REG
            job.message = (f"callback {_name(job.fn)!r} reached the head of stream {task.stream.stream_id} but no "
                           "thread is subscribed to it any more (aclrtUnSubscribeReport came first)")
            return [(task, now)]
        job.thread = entry[0]
        self.queue(-job.thread.tid if host else job.thread.tid).append(job)
        return [] if job.block else [(task, now)]

    def _run_host_func(self, job: Job, now: int) -> None:
        m, stream = self.m, job.stream
        key = (stream.context.process.pid, stream.device)
        tid = self.runtime_threads.get(key)
        if tid is None:
            tid = self.runtime_threads[key] = m.new_tid()
            m.log.append(T.ThreadStarted(now, tid, key[0], f"host func (device {stream.device})"))
        error = learner_code.run(m, "host_func", tid, job.fn, job.data)
        end = now + m.profile.host_costs.default
        m.log.append(T.CallbackRun(now, end, tid, job.task.id, "host_func", _name(job.fn), True, error))

def state(m) -> CallbackState:
    return m.feature(CallbackState)


def _name(fn) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


# -- thread ids -------------------------------------------------------------------------------------
def resolve_thread(m, thread_id, *, allow_finished: bool = False):
    """The sandbox thread a pyACL thread id names (a threading.Thread.ident)."""
    if isinstance(thread_id, bool) or not isinstance(thread_id, numbers.Integral):
        fail(ACL_ERROR_INVALID_PARAM, f"thread_id must be an int (a threading.Thread ident), got {describe(thread_id)}")
    thread_id = int(thread_id)                  # a numpy integer scalar is an int
    for thread in threading.enumerate():
        if thread.ident == thread_id:
            entry = getattr(thread, "_sandbox_thread", None)
            if entry is not None and entry[0] is m:
                th = entry[1]
                break
            th = m.threads.get(thread_id)
            if th is not None:
                break
            fail(ACL_ERROR_INVALID_PARAM,
                 f"thread {thread.name!r} takes no part in the sandbox: start it from a sandbox thread "
                 "(non-daemon), or use acl.util.start_thread")
    else:
        th = m.threads.get(thread_id)
        if th is None:
            fail(ACL_ERROR_INVALID_PARAM, f"{thread_id} is not the id of a thread of this program "
                 "(pass threading.Thread.ident after start(), or the id from acl.util.start_thread)")
    if th.finished and not allow_finished:
        fail(ACL_ERROR_INVALID_PARAM, f"thread {th.name!r} has already finished")
    return th


def thread_label(thread_id) -> str:
    """What the trace shows for a thread id: the sandbox thread, never the OS ident (it varies run to run)."""
    m = current()
    with m.lock:
        try:
            th = resolve_thread(m, thread_id, allow_finished=True)
        except AclError:
            return "unknown thread"
        return f"thread {th.tid} ({th.name})"


# -- the calls ------------------------------------------------------------------------------------------
def subscribe(m, th, thread_id, handle, host: bool = False) -> None:
    if host and handle == 0:
        fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSubscribeHostFunc needs a created stream, not NULL")
    stream = m.stream(th, handle, check_context=False)
    target = resolve_thread(m, thread_id)
    st = state(m)
    subs = st.host_subs if host else st.subs
    if not host and stream.handle in st.host_func_streams:
        fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
             f"stream {stream.stream_id} already has the runtime's host-function thread (aclrtLaunchHostFunc was "
             "used on it); do not mix aclrtLaunchHostFunc and aclrtLaunchCallback on one stream")
    entry = subs.get(stream.handle)
    if entry is not None:
        who = "this thread" if entry[0] is target else f"thread {entry[0].name!r}"
        fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
             f"stream {stream.stream_id} is already subscribed by {who}: a stream can have only one thread")
    served = st.served_device(target, host)
    if served is not None and served != stream.device:
        fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
             f"thread {target.name!r} already serves streams of device {served}; one thread may serve several "
             f"streams of one device only (stream {stream.stream_id} is on device {stream.device})")
    subs[stream.handle] = (target, stream)


def unsubscribe(m, th, thread_id, handle, host: bool = False) -> None:
    if host and handle == 0:
        fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtUnSubscribeHostFunc needs a created stream, not NULL")
    stream = m.stream(th, handle, check_context=False)
    target = resolve_thread(m, thread_id, allow_finished=True)
    st = state(m)
    subs = st.host_subs if host else st.subs
    entry = subs.get(stream.handle)
    if entry is None:
        fail(ACL_ERROR_RT_STREAM_SUBSCRIBE, f"stream {stream.stream_id} has no subscribed thread")
    if entry[0] is not target:
        fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
             f"stream {stream.stream_id} is subscribed by thread {entry[0].name!r}, not by {target.name!r}")
    del subs[stream.handle]


def launch_callback(m, th, fn, user_data, block_type, handle) -> None:
    """fn and block_type are checked by the acl layer (acl/rt.py)."""
    stream = m.stream(th, handle, api="aclrtLaunchCallback")
    st = state(m)
    if stream.handle not in st.subs:
        extra = (" (it is served by aclrtLaunchHostFunc's runtime thread; do not mix the two)"
                 if stream.handle in st.host_func_streams else "")
        fail(ACL_ERROR_RT_STREAM_NO_CB_REG, f"stream {stream.stream_id} has no thread to run callbacks{extra}: call "
             "aclrtSubscribeReport(thread_id, stream) first, with a thread that loops on aclrtProcessReport")
    _submit(m, th, st, Job("callback", fn, user_data, block_type == C.ACL_CALLBACK_BLOCK, stream))


def launch_host_func(m, th, handle, fn, args) -> None:
    stream = m.stream(th, handle, api="aclrtLaunchHostFunc")
    st = state(m)
    if stream.handle in st.subs and stream.handle not in st.host_subs:      # (a thread of its own: no mixing)
        fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
             f"stream {stream.stream_id} is subscribed by thread {st.subs[stream.handle][0].name!r} for "
             "aclrtLaunchCallback; do not mix aclrtLaunchHostFunc and aclrtLaunchCallback on one stream")
    _submit(m, th, st, Job("host_func", fn, args, True, stream))
    if stream.handle not in st.host_subs:       # only once the launch is accepted: a refused one changes nothing
        st.host_func_streams.add(stream.handle)


def _submit(m, th, st: CallbackState, job: Job) -> None:
    stream = job.stream
    if stream.capture is not None:  # a model run instance holds kernels, copies and event tasks only (aclmdlRITaskType)
        fail(ACL_ERROR_RT_STREAM_CAPTURED,
             f"stream {stream.stream_id} is capturing into a model run instance, which cannot hold host "
             "callbacks: launch the callback outside the capture, e.g. after aclmdlRIExecuteAsync")
    def complete():
        st.jobs.pop(job.task.id, None)
        return job.outcome()
    job.task = m.submit(th, stream, Task.new(job.kind, _name(job.fn), st.engine(stream.device),
                                             effect=complete, detail=(("block", job.block),)))
    st.jobs[job.task.id] = job


def process_report(m, th, timeout: int, host: bool = False) -> None:
    st = state(m)
    queue = st.queue(-th.tid if host else th.tid)
    if not queue and st.served_device(th, host) is None:
        fail(ACL_ERROR_RT_THREAD_SUBSCRIBE, f"thread {th.name!r} serves no stream: call "
             f"aclrtSubscribe{'HostFunc' if host else 'Report'}(thread_id, stream) for it first")
    limit = None if timeout == -1 else (th.clock + timeout * 1_000_000, ACL_ERROR_RT_REPORT_TIMEOUT,
                                        f"no callback arrived within {timeout} ms")
    m.block_until(th, lambda: bool(queue), "aclrtProcessHostFunc" if host else "aclrtProcessReport", limit=limit,
                  hopeless=ACL_ERROR_RT_REPORT_TIMEOUT)
    _run_callback(m, th, st, queue.popleft())


def _run_callback(m, th, st: CallbackState, job: Job) -> None:
    blocked = th.call_blocked_from, th.call_waited_for
    start = th.clock
    hazards.learn(m, th, (job.task,))                # the work before the callback is done, and th knows it
    if job.block:        # the stream's later tasks come after all the callback does (its own calls included)
        hazards.hold(m, job.task)
        st.running[th.tid] = job
    try:
        error = learner_code.run(m, "callback", th.tid, job.fn, job.data, calls=True)
    finally:
        st.running.pop(th.tid, None)
    if job.block:
        hazards.released(m, job.task, _Knowledge(dict(hazards.checker(m).host_vc.get(th.tid, ()))))
    th.call_blocked_from, th.call_waited_for = blocked   # calls made inside the callback must not clobber them
    th.clock += m.profile.host_costs.default
    m.log.append(T.CallbackRun(start, th.clock, th.tid, job.task.id, job.kind, _name(job.fn), job.block, error))
    if error:
        th.err_msgs.append(f"callback {_name(job.fn)!r} raised {error}")
    if job.block:
        m.sim.reschedule([(job.task, th.clock)])    # the stream goes on when fn has returned


class _Knowledge:
    """What a callback's thread knew when the callback returned: the clock the stream's later tasks learn."""

    def __init__(self, vc: dict):
        self.vc = vc


def deadlock_hint(m) -> str:
    """Why a parked thread may never wake: BLOCK callbacks nobody runs."""
    st = state(m)
    waiting = [f"callback {_name(job.fn)!r} (task {job.task.id}) of stream {job.stream.stream_id} "
               f"waits for thread {job.thread.name!r} to call aclrtProcessReport"
               for tid in sorted(st.reports) for job in st.reports[tid]]
    return "; " + "; ".join(waiting) + " (a BLOCK callback holds its stream until it has run)" if waiting else ""
