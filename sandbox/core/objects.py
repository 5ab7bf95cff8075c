"""The runtime's objects and who owns what.

A *process* has its own acl init state, device reference counts and default contexts.
A *context* belongs to one device and owns streams and events (not memory).  A *stream*
is an in-order task queue; an *event* remembers the snapshot its last record took.
A *host thread* has its own virtual clock, current context and error state.
"""
from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from .features.capture import ModelRI, Recorded
    from .tasks import Task


class Process:
    def __init__(self, pid: int, name: str, sat_mode: int = 0):
        self.pid = pid
        self.name = name
        self.initialized = False
        self.finalized = False
        self.device_refs: dict[int, int] = {}          # SetDevice reference counts
        self.default_contexts: dict[int, "Context"] = {}
        self.opened_devices: set[int] = set()          # devices this process has ever opened
        self.device_resets: dict[int, int] = {}        # full resets of each device so far
        self.runtime_ready_at = 0                      # when the process's first SetDevice finished
        self.sat_mode = sat_mode                       # aclrtSetDeviceSatMode (at first the chip's default)
        self.overflow_status: dict[int, int] = {}      # device -> its overflow status word (core/features/overflow.py)
        self.contexts: dict[int, "Context"] = {}       # every live context, by handle
        self.sys_params: dict[int, int] = {}           # aclrtSetSysParamOpt (core/features/sysparams.py)
        self.ended = False


class HostThread:
    __slots__ = ("tid", "name", "process", "clock", "context", "last_error", "err_msgs", "ident",
                 "parked", "joining", "finished", "wake_when", "waiting_for", "deadline", "timed_out",
                 "wake_error", "call_tasks", "call_blocked_from", "call_seq", "joins", "join_any", "idle",
                 "last_task_id", "call_waited_for", "wake", "impatient")

    def __init__(self, tid: int, name: str, process: Process, clock: int, ident: int | None):
        self.tid = tid
        self.name = name
        self.process = process
        self.clock = clock
        self.context: Context | None = None
        self.last_error = 0
        self.err_msgs: list[str] = []
        self.ident = ident
        # scheduling state (see host_turns.py)
        self.parked = False            # blocked in a runtime call, waiting for the device
        self.joining = False           # waiting for other host threads (Thread.join, a future) or idle
        self.joins: list = []          # ... the threads it waits for (all of them, or the first: join_any)
        self.join_any = False
        self.idle = False              # ... or stepped aside between notebook cells (threads.step_aside)
        self.finished = False
        self.wake_when: Callable[[], bool] | None = None
        self.waiting_for = ""
        self.deadline: int | None = None
        self.timed_out = False
        self.wake_error: str | None = None
        self.wake: threading.Condition | None = None  # on the machine's lock: its turn has come (host_turns.py)
        self.impatient = False         # a notebook's next cell, or just stopped: sets aside stalled threads
        # scratch of the runtime call in progress
        self.call_tasks: tuple[int, ...] = ()
        self.call_blocked_from: int | None = None
        self.call_waited_for: tuple = ()          # ("stream", handle), ... (trace.ApiCall.waited_for)
        self.call_seq = 0
        self.last_task_id = 0          # the last task it submitted to a created stream

    @property
    def device(self) -> int | None:
        return None if self.context is None else self.context.device


class Context:
    def __init__(self, handle: int, device: int, process: Process, is_default: bool):
        self.handle = handle
        self.device = device
        self.process = process
        self.is_default = is_default
        self.default_stream: Stream = None  # type: ignore[assignment]  # made right after the context (devices.py)
        self.streams: dict[int, Stream] = {}           # explicit streams, by handle
        self.events: dict[int, Event] = {}
        self.alive = True
        # stop-on-failure is context-wide (RT-API aclrtSetStreamFailureMode, all products): once one
        # stream asks for it, a failure on any stream of the context stops them all
        self.stop_on_failure = False
        self.failure = 0                  # code of the failure that stopped the context
        self.failure_message = ""
        self.sys_params: dict[int, int] = {}  # aclrtCtxSetSysParamOpt (core/features/sysparams.py)


class Stream:
    def __init__(self, handle: int, stream_id: int, context: Context, priority: int, is_default: bool, label: str = ""):
        self.handle = handle
        self.stream_id = stream_id
        self.context = context
        self.device = context.device
        self.priority = priority
        self.is_default = is_default
        self.label = label
        self.queue: deque[Task] = deque()       # tasks not finished yet, head first
        self.last_task: Task | None = None  # most recently submitted task (event snapshots)
        self.failure_mode = 0             # ACL_CONTINUE_ON_FAILURE
        self.pending_error = 0            # first device error not yet reported by a sync
        self.pending_message = ""
        self.failure_mode_set = False     # aclrtSetStreamFailureMode may be called once per stream
        self.capture: ModelRI | None = None   # the model run instance it records into (core/features/capture.py)
        self.flags = 0                    # the flags it was created with (aclrtStreamGetFlags)
        self.stopped = False              # aclrtStreamStop: tasks not started wait (held: the one ready)
        self.held: Task | None = None
        self.alive = True
        self.sat_mode, self.overflow_switch = context.process.sat_mode, 0  # its mode when made (core/features/overflow.py)

    @property
    def stopping(self) -> bool:
        return self.failure_mode == 1 or self.context.stop_on_failure

    @property
    def error_stop(self) -> int:
        """Stop-on-failure: the code that discards this stream's later tasks (0: none)."""
        failure = self.context.failure
        return failure if failure and self.stopping else 0

    def record_failure(self, task, status: int, message: str = "") -> None:
        """A task failed: keep the error for the next synchronize.

        Stop-on-failure keeps the first error and stops every stream of the context;
        continue-on-failure lets a later error overwrite an unreported one (RT-FAQ).
        """
        if not self.pending_error or not self.stopping:
            self.pending_error = status
            self.pending_message = (f"task {task.id} ({task.kind} {task.name!r}) on stream "
                                    f"{self.stream_id} of device {self.device} failed"
                                    + (f": {message}" if message else ""))
        ctx = self.context
        if self.stopping and not ctx.failure:
            ctx.failure, ctx.failure_message = status, self.pending_message

    @property
    def idle(self) -> bool:
        return not self.queue


class Event:
    def __init__(self, handle: int, context: Context, flags: int, plain: bool):
        self.handle = handle
        self.context = context
        self.device = context.device
        self.flags = flags
        self.plain = plain                # aclrtCreateEvent (not ...WithFlag)
        self.ex = False                   # aclrtCreateEventExWithFlag: a "new mode" event
        self.shared: list = [None]        # [the snapshot of the last record, or None]: one list shared by an
                                          # IPC event and the events opened from its handle (core/features/events.py)
        self.ipc_key = 0                  # the key its IPC handle carries (0: never exported)
        self.opened = False               # made by aclrtIpcOpenEventHandle
        self.event_id: int | None = None  # the runtime's id (aclrtGetEventId): only events with a wait task
        self.waits: list = []             # its wait tasks not yet seen done (aclrtQueryEventWaitStatus)
        self.alive = True

    @property
    def record_task(self) -> Task | Recorded | None:   # (a Recorded: recorded by a capture)
        return self.shared[0]

    @record_task.setter
    def record_task(self, task: Task | Recorded | None) -> None:
        self.shared[0] = task
