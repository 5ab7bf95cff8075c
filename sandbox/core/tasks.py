"""Device tasks: what a stream holds, and what an engine runs.

A runtime call describes the device work it wants as a ``Task`` (its specification: kind,
engine, duration, effect, ...); ``Machine.submit`` puts it on a stream (or a capture records
it instead, core/features/capture.py).

A task is ready when (1) the host has submitted it (``submit_t`` reached), (2) every task
before it in its stream is done, and (3) the event snapshot it waits on (``waits_on``) is
done.  Then it queues for its engine.  Its data effect runs at its completion time.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from .engines import Engine
    from .features.capture import Recorded
    from .objects import Event, Stream

# Every kind of task, and who submits it (TaskSubmitted.kind, TaskCaptured.kind).
KINDS = {
    "kernel": "a kernel launch on the AI Core pool (core/features/kernels.py)",
    "memcpy": "a copy on a DMA engine or a peer link (core/features/memory_calls.py)",
    "memset": "a memset on the device's D2D DMA engine (core/features/memory_calls.py)",
    "event_record": "an event's snapshot marker, no engine (core/features/events.py)",
    "event_wait": "a wait for an event's snapshot, no engine (core/features/events.py; graph launches)",
    "event_reset": "an event reset, no engine (core/features/events.py)",
    "mem_pool": "a stream-ordered pool allocation or free, no engine (core/features/pools.py)",
    "callback": "aclrtLaunchCallback, delivered to the subscribed thread (core/features/callbacks.py)",
    "host_func": "aclrtLaunchHostFunc, run by the runtime's own thread (core/features/callbacks.py)",
    "reduce": "aclrtReduceAsync, src added into dst on the D2D DMA engine (core/features/builtin_tasks.py)",
    "random_num": "aclrtRandomNumAsync, random numbers written on the D2D DMA engine (core/features/builtin_tasks.py)",
    "notify_record": "aclrtRecordNotify: sets the notify's flag, no engine (core/features/notifies.py)",
    "notify_wait": "aclrtWaitAndResetNotify: holds its stream until the flag is set, then clears it (core/features/notifies.py)",
    "value_write": "aclrtValueWrite: writes a 64-bit device word, no engine (core/features/notifies.py)",
    "value_wait": "aclrtValueWait: holds its stream until the word satisfies the flag (core/features/notifies.py)",
    "model": "an offline model's execution on the AI Core pool (core/features/models.py)",
}


class Task:
    """One device task: first what a runtime call asks for (its specification: ``Task.new``'s
    arguments), then, once ``Machine.submit`` has put it on a stream, its life on the device.

    ``kind``: one of KINDS; ``engine``: what it occupies (None: nothing, it completes when
    reached); ``duration``: ns, or a function of the AI cores it got; ``effect``: runs at
    completion and may return an error code (or (code, message)); ``waits_on``: the task of
    an event snapshot it waits for; ``event``: the event it records, waits on or resets;
    ``detail``: (name, value) pairs for the trace; ``access``: the bytes it touches as
    (buffer, offset, nbytes, writes), for the hazard checks (core/hazards.py; dropped once
    submitted).  ``Machine.submit`` sets ``id``, ``stream``, ``device``, ``submit_t`` and
    ``priority``; a task not submitted (a graph's recorded one) has none of them.
    """
    kind: str
    name: str
    engine: Engine | None
    duration: Callable[[int], int] | int
    effect: Callable[[], int | tuple[int, str] | None] | None
    waits_on: Task | Recorded | None  # (a Recorded: a task a capture holds, core/features/capture.py)
    nbytes: int
    block_dim: int
    event: Event | None
    detail: tuple
    access: tuple | list
    core_limit: int
    id: int
    stream: Stream
    device: int
    submit_t: int
    priority: int
    ready_t: int
    end_t: int
    done: bool
    status: int
    waiters: list[Task] | None
    cores: int
    version: int
    vc: dict | None
    tid: int
    __slots__ = tuple(__annotations__)      # the fields above, in order (the first 12: SPEC_FIELDS)
    capture = None                  # a submitted task belongs to no capture (a graph's Recorded does)

    @staticmethod
    def new(kind: str, name: str, engine: Engine | None = None, duration: Callable[[int], int] | int = 0,
            effect: Callable[[], int | tuple[int, str] | None] | None = None, waits_on: Task | Recorded | None = None, nbytes: int = 0,
            block_dim: int = 0, event=None, detail: tuple = (), access: tuple | list = (), core_limit: int = 0) -> Task:
        """A task as a runtime call specifies it, not submitted yet.  (A function, not
        ``__init__``: Python passes keyword arguments to a class through a dict, to a
        function without one, and this runs for every task.)"""
        self = Task()
        self.kind = kind
        self.name = name
        self.engine = engine
        self.duration = duration
        self.effect = effect
        self.waits_on = waits_on
        self.nbytes = nbytes
        self.block_dim = block_dim
        self.event = event
        self.detail = detail
        self.access = access
        self.core_limit = core_limit      # most AI cores a kernel may take (0: no limit; core/features/device_resources.py)
        self.ready_t = -1
        self.end_t = -1
        self.done = False
        self.status = 0
        self.waiters = None           # tasks whose event wait it completes (a list once there is one)
        self.cores = 0
        self.version = 0              # bumped when a shared engine moves the task's finish time
        self.vc = None                # happens-before clock (core/hazards.py)
        return self

    def copy(self, **changes) -> Task:
        """A new task, not submitted, with this one's specification (some fields changed)."""
        spec = {name: getattr(self, name) for name in SPEC_FIELDS}
        spec.update(changes)
        return Task.new(**spec)

    def __repr__(self) -> str:
        state = "done" if self.done else "pending" if hasattr(self, "id") else "not submitted"
        return f"<Task {getattr(self, 'id', '-')} {self.kind} {self.name!r} {state}>"


# What a runtime call specifies: Task.new's arguments, the first fields of a Task.  (Spelled out: a
# compiled Task, tools/build_compiled.py, has no __slots__ to take them from.)
SPEC_FIELDS = ("kind", "name", "engine", "duration", "effect", "waits_on", "nbytes", "block_dim", "event", "detail",
               "access", "core_limit")
