"""The simulated machine: devices, the device-side simulation, host processes and threads.

One Machine is current at a time (``sandbox.configure`` makes a fresh one).  It owns the
trace log, hands out handles, and resolves the ints a learner holds (streams, events,
contexts, pointers) back to objects, with the real error code when that fails.
"""
from __future__ import annotations

import itertools
import numbers
import threading
from contextlib import contextmanager

from ..profiles import Profile, get_profile
from . import constants as C, hazards, trace as T, learner_code
from .engines import CorePool, Engine
from .errors import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
                     ACL_ERROR_RT_INVALID_DEVICEID, ACL_ERROR_RT_NO_STREAM_RESOURCE, ACL_ERROR_RT_STREAM_CAPTURED, ACL_ERROR_RT_STREAM_CONTEXT, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, AclError, describe, fail)
from .allocator import DEVICE_BASE, DEVICE_STRIDE, PAGEABLE_BASE, DeviceMemory, HostBudget, HostMemory
from .objects import Context, Event, HostThread, Process, Stream
from .current_machine import bound, configure, current, is_bound, peek_current, use_factory
from .hooks import Hooks
from .device_loop import Simulator
from .tasks import Task
from .host_turns import Scheduler


class Device:
    """One NPU: its memory, its engines and its stream numbering."""

    def __init__(self, index: int, profile: Profile):
        self.index = index
        self.memory = DeviceMemory(index, profile.memory_bytes)
        self.aicore = CorePool("AI Core", index, profile.ai_cores)
        if profile.shared_host_dma:        # one DMA engine for both directions (SoC boards)
            self.h2d = self.d2h = Engine("DMA H2D/D2H", index)
        else:
            self.h2d = Engine("DMA H2D", index)
            self.d2h = Engine("DMA D2H", index)
        self.d2d = Engine("DMA D2D", index)
        self.next_stream_id = 0
        self.live_streams = 0
        self.live_events = 0
        self.next_event_id = 0                    # aclrtGetEventId's numbering
        self.sync_stream: Stream | None = None    # the runtime's own queue for blocking copies


class Machine:
    def __init__(self, profile="ascend910b", device_count=None, host_memory_budget=None):
        self.profile = get_profile(profile)
        if device_count is not None and (isinstance(device_count, bool) or not isinstance(device_count, numbers.Integral)):
            raise TypeError(f"device_count must be an int (or None for the profile's), got {describe(device_count)}")
        count = self.profile.default_device_count if device_count is None else int(device_count)
        if not 1 <= count <= 64:
            raise ValueError(f"device_count must be between 1 and 64, got {count}")
        self.log = T.TraceLog()
        self.hooks = Hooks()                  # where the optional features plug in (core/hooks.py)
        self._features: dict[type, object] = {}
        self.sim = Simulator(self.log, self.hooks)
        self.devices = [Device(i, self.profile) for i in range(count)]
        self.host_budget = HostBudget(host_memory_budget)     # what written bytes may take of the host
        self.host = HostMemory(self.host_budget)
        for dev in self.devices:
            dev.memory.budget = self.host_budget
        self._handles = itertools.count(0x10_0000, 0x40)
        self._task_ids = itertools.count(1)
        self.call_numbers = itertools.count(1)      # each runtime call's api_seq (the gate takes the next)
        self._pids = itertools.count(1)
        self._tids = itertools.count(1)
        self.processes: list[Process] = []
        self.threads: dict[int, HostThread] = {}     # by Python thread ident
        self.streams: dict[int, Stream] = {}
        self.events: dict[int, Event] = {}
        self.contexts: dict[int, Context] = {}
        self.raise_errors = False
        self.lock = learner_code.MachineLock()   # learner code the runtime runs gives it up meanwhile
        self.scheduler = Scheduler(self)
        self.hazards = hazards.Checker(self)  # every task gets its happens-before clock (not optional)
        self._deadlines: dict[int, tuple[int, int] | None] = {}
        self.util_threads: dict[int, threading.Thread] | None = None   # acl.util.start_thread: the threads it started
        self.aborted = ""                     # set by a grader that gave up on a run: calls stop at once
        self.user_code = ""                   # core/learner_code.py: "kernel"/"callback"/"host_func" while it runs
        self.user_code_tid = 0
        self.user_code_calls = False          # the user code running may call the runtime (learner_code.may_call)
        self.pending_interrupts: dict[int, BaseException] = {}    # thread ident -> interrupt to raise
        p = self.profile
        self.host_cost_ns: dict[str, int] = dict(vars(p.host_costs))   # by name: the gate looks one up every call
        self.log.append(T.MachineConfigured(0, p.name, p.soc_name, count, p.ai_cores, p.memory_bytes,
                                            p.timer_resolution_ns, self.engine_names()))
        for dev in self.devices:
            self.log.append(T.DeviceAddressSpace(0, dev.index, dev.memory.base, dev.memory.size))
        self.main_process = self.new_process("main")

    def engine_names(self) -> tuple[str, ...]:
        dev = self.devices[0]
        return tuple(dict.fromkeys(e.name for e in (dev.aicore, dev.h2d, dev.d2h, dev.d2d)))

    # -- processes and threads ----------------------------------------------------------
    def new_process(self, name: str, t: int = 0) -> Process:
        proc = Process(next(self._pids), name, self.profile.default_overflow_mode)
        self.processes.append(proc)
        self.log.append(T.ProcessStarted(t, proc.pid, name))
        return proc

    def register_thread(self, ident: int | None, name: str, process: Process, clock: int) -> HostThread:
        th = HostThread(self.new_tid(), name, process, clock, ident)
        if ident is not None:
            self.threads[ident] = th
        self.scheduler.add(th)
        self.log.append(T.ThreadStarted(clock, th.tid, process.pid, name))
        return th

    def current_thread(self) -> HostThread:
        ident = threading.get_ident()
        th = self.threads.get(ident)
        if th is None:
            current = threading.current_thread()
            name = "main" if current is threading.main_thread() else current.name
            th = self.register_thread(ident, name, self.main_process, self.min_clock())
        return th

    def min_clock(self) -> int:
        horizon = self.scheduler.horizon()
        return self.sim.now if horizon is None else horizon

    # -- optional features ---------------------------------------------------------------------
    def feature(self, cls):
        """This machine's state of an optional feature (pools, callbacks, faults, ...), made on
        first use: ``cls(machine)``, which registers the feature's hooks (core/hooks.py)."""
        state = self._features.get(cls)
        if state is None:
            state = self._features[cls] = cls(self)
        return state

    def feature_in_use(self, cls):
        """The feature's state if the program has used it (None: never made)."""
        return self._features.get(cls)

    # -- handles and ids -------------------------------------------------------------------
    def new_handle(self) -> int:
        return next(self._handles)

    def new_tid(self) -> int:
        """A trace thread id (threads of the program, and the runtime's own host-function threads)."""
        return next(self._tids)

    def new_task_id(self) -> int:
        return next(self._task_ids)

    # -- resolving what the learner holds ---------------------------------------------------
    def device(self, device_id) -> Device:
        if (isinstance(device_id, bool) or not isinstance(device_id, numbers.Integral)
                or not 0 <= int(device_id) < len(self.devices)):
            fail(ACL_ERROR_RT_INVALID_DEVICEID,
                 f"device id {describe(device_id)} is invalid: this machine has devices 0..{len(self.devices) - 1}")
        return self.devices[int(device_id)]

    def current_context(self, th: HostThread) -> Context:
        ctx = th.context
        if ctx is None or not ctx.alive:
            fail(ACL_ERROR_RT_CONTEXT_NULL,
                 f"thread {th.name!r} has no current context: call aclrtSetDevice (or aclrtCreateContext/"
                 "aclrtSetCurrentContext) on this thread first")
        return ctx

    def stream(self, th: HostThread, handle, *, check_context: bool = True, api: str = "", uncaptured=False) -> Stream:
        """The stream a handle names (0 = the current context's default stream); ``uncaptured``: 107027 if capturing."""
        ctx = th.context
        if ctx is None or not ctx.alive:
            ctx = self.current_context(th)        # (which fails: the test above is its own, inline)
        if handle == 0 or handle is None:
            return ctx.default_stream
        stream = self.streams.get(handle)
        if stream is None or not stream.alive:
            fail(ACL_ERROR_INVALID_PARAM, f"{describe(handle)} is not a live stream handle")
        if uncaptured and stream.capture is not None:
            fail(ACL_ERROR_RT_STREAM_CAPTURED, f"{api}: stream {stream.stream_id} is capturing, and this call cannot "
                 "be captured: end the capture (aclmdlRICaptureEnd) first")
        if check_context and stream.context is not ctx:
            fail(ACL_ERROR_RT_STREAM_CONTEXT,
                 f"{api or 'this call'}: stream {stream.stream_id} belongs to device {stream.device}"
                 f"{'' if stream.device != ctx.device else ' (another context)'}, but the thread's current "
                 f"context is on device {ctx.device}; switch with aclrtSetDevice({stream.device}) or "
                 "aclrtSetCurrentContext first")
        return stream

    def event(self, handle) -> Event:
        ev = self.events.get(handle)
        if ev is None or not ev.alive:
            fail(ACL_ERROR_INVALID_PARAM, f"{describe(handle)} is not a live event handle")
        return ev

    def buffer(self, ptr: int):
        """The allocation or host buffer holding address ``ptr`` (None if none)."""
        if DEVICE_BASE <= ptr < PAGEABLE_BASE:   # (allocator.device_of_address, inline: every copy and launch asks)
            dev = (ptr - DEVICE_BASE) // DEVICE_STRIDE
            if dev < len(self.devices):
                return self.devices[dev].memory.lookup(ptr)
            return next((b for look in self.hooks.address if (b := look(ptr)) is not None), None)
        return self.host.lookup(ptr)

    # -- streams -------------------------------------------------------------------------
    def create_stream(self, ctx: Context, priority: int, is_default: bool = False,
                      label: str = "", t: int = 0) -> Stream:
        dev = self.devices[ctx.device]
        if not label and dev.live_streams >= self.profile.max_streams:
            fail(ACL_ERROR_RT_NO_STREAM_RESOURCE,
                 f"device {ctx.device} already has {dev.live_streams} streams, the most a "
                 f"{self.profile.soc_name} allows ({self.profile.max_streams})")
        if not self.profile.stream_priority_supported:
            priority = 0
        handle = self.new_handle()
        stream = Stream(handle, dev.next_stream_id, ctx, priority, is_default, label)
        dev.next_stream_id += 1
        if not label:
            dev.live_streams += 1
        self.streams[handle] = stream
        self.log.append(T.StreamCreated(t, handle, stream.stream_id, ctx.device, ctx.handle, priority,
                                        is_default, label))
        for notify in () if label else self.hooks.stream_state:
            notify(stream, C.ACL_RT_STREAM_STATE_CREATE_POST)
        return stream

    def retire_stream(self, stream: Stream, t: int) -> None:
        for notify in () if stream.label else self.hooks.stream_state:
            notify(stream, C.ACL_RT_STREAM_STATE_DESTROY_PRE)
        stream.alive = False
        stream.context.streams.pop(stream.handle, None)
        self.streams.pop(stream.handle, None)
        if not stream.label:
            self.devices[stream.device].live_streams -= 1
        self.log.append(T.StreamDestroyed(t, stream.handle))

    def sync_stream(self, device: int) -> Stream:
        """The runtime's internal queue that blocking copies and memsets go through."""
        dev = self.devices[device]
        if dev.sync_stream is None:
            owner = Context(0, device, self.main_process, True)
            dev.sync_stream = self.create_stream(owner, 0, label="sync copies", t=self.sim.now)
        return dev.sync_stream

    # -- submitting work ----------------------------------------------------------------------
    def submit(self, th: HostThread, stream: Stream, task: Task):
        """Queue ``task`` (made by the caller, not submitted yet) on ``stream``; it reaches the
        device at the thread's current clock.  Returns it (or what an ``intercept`` hook made of it)."""
        hooks = self.hooks
        if hooks.intercept:               # e.g. a capture is active: the task may be recorded instead
            for intercept in hooks.intercept:
                taken = intercept(th, stream, task)
                if taken is not None:
                    return taken
        if stream.context.failure and stream.error_stop:    # (the first test is the cheap one)
            fail(stream.error_stop, "the context stopped on a failure (ACL_STOP_ON_FAILURE) and takes no new "
                 f"tasks: {stream.context.failure_message}; reset the device (or destroy the context) to go on")
        task.id = tid = next(self._task_ids)
        task.stream, task.device, task.priority, task.submit_t = stream, stream.device, stream.priority, th.clock
        prev = stream.last_task
        stream.queue.append(task)
        stream.last_task = task
        th.call_tasks += (tid,)           # (a tuple: most calls submit one task, and the call's row keeps it)
        task.tid = th.tid
        if not stream.is_default:
            th.last_task_id = tid             # aclrtGetThreadLastTaskId (core/features/task_exceptions.py)
        self.log.append(T.task_submitted_row(th, stream, task, prev))
        self.sim.submit(task)
        self.hazards.task_submitted(th, stream, task)
        if hooks.submitted:
            for submitted in hooks.submitted:
                submitted(th, stream, task)
        task.access = ()                  # (the buffers it touched: nobody needs them any more)
        return task

    # -- time ---------------------------------------------------------------------------------
    def settle(self) -> None:
        """Let the device side catch up with the host side (never past a runnable thread)."""
        self.scheduler.advance()

    @contextmanager
    def deadline(self, th: HostThread, timeout_ms: int, what: str):
        """Give the blocking calls inside a timeout (-1: wait forever)."""
        code = ACL_ERROR_RT_EVENT_SYNC_TIMEOUT if what == "event" else ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
        self._deadlines[th.tid] = None if timeout_ms == -1 else (th.clock + timeout_ms * 1_000_000, code)
        try:
            yield
        finally:
            self._deadlines.pop(th.tid, None)

    def block_until(self, th: HostThread, done, what: str, learns=(), limit=None, hopeless: int = 0, on=()) -> None:
        """Park ``th`` until ``done()`` holds on the device side, then wake it at that time.

        ``learns``: the streams (their work submitted so far) and tasks whose completion the thread knows
        of once the wait is over (the happens-before edges of core/hazards.py).  ``limit``: (deadline ns,
        code, message) of a call with its own timeout; otherwise the one ``deadline`` gave, if any.
        ``hopeless``: the code for a wait that can never end (default: the event or stream sync timeout,
        after ``what``).  ``on``: what the call's record says it waited for if it parks (ApiCall.waited_for).
        """
        known = hazards.snapshot(self, learns) if learns else None
        if not done():
            self._park(th, done, what, limit, hopeless, on)
        if known:
            hazards.learned_clocks(self, th, known)

    def _park(self, th: HostThread, done, what: str, limit, hopeless: int, on: tuple) -> None:
        th.call_blocked_from, th.call_waited_for = th.clock, on
        if limit is None:
            given = self._deadlines.get(th.tid)
            limit = None if given is None else (given[0], given[1], f"{what}: not finished within the timeout")
        outcome = self.scheduler.park(th, done, what, None if limit is None else limit[0])
        if outcome == "timeout":
            fail(limit[1], limit[2])
        if outcome is not None:           # nothing can ever complete it: the wait would never end
            fail(hopeless or (ACL_ERROR_RT_EVENT_SYNC_TIMEOUT if "event" in what else ACL_ERROR_RT_STREAM_SYNC_TIMEOUT),
                 outcome)

use_factory(Machine)

__all__ = ["Machine", "Device", "current", "configure", "bound", "is_bound", "peek_current", "AclError"]
