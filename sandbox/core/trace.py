"""The trace log: one append-only list of records, the single source for every view.

Every state change of the simulated machine is appended here as a small record, never changed afterwards.
Plots, panels, exports and summaries are pure functions of this list (and of a time t);
none of them looks at live runtime objects.  All times are integer nanoseconds of
virtual time.

Identifiers used across records:

* ``pid``    simulated host process (1 for the first process, then 2, 3, ...)
* ``tid``    simulated host thread (1 for the main thread, then 2, 3, ... in start order)
* ``device`` device id as the learner sees it (0 .. count-1)
* ``stream`` the stream's handle (the int the learner holds); ``stream_id`` is the small
  per-device number shown as "Stream N" (the real runtime has both, too)
* ``task``   a machine-wide task number, in submission order
"""
from __future__ import annotations

import marshal
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator


if TYPE_CHECKING:
    from .objects import HostThread, Stream
    from .tasks import Task


@dataclass(slots=True, unsafe_hash=True)
class MachineConfigured:
    """A fresh machine: what the views need to lay out rows and address spaces."""
    t: int
    profile: str
    soc_name: str
    device_count: int
    ai_cores: int
    memory_bytes: int          # usable device memory per device
    timer_resolution_ns: float
    engines: tuple[str, ...]   # engine names of one device, e.g. ("AI Core", "DMA H2D", ...)


@dataclass(slots=True, unsafe_hash=True)
class DeviceAddressSpace:
    t: int
    device: int
    base: int                  # first device address of this device
    size: int                  # usable bytes


@dataclass(slots=True, unsafe_hash=True)
class ProcessStarted:
    t: int
    pid: int
    name: str


@dataclass(slots=True, unsafe_hash=True)
class ProcessEnded:
    t: int
    pid: int


@dataclass(slots=True, unsafe_hash=True)
class ThreadStarted:
    t: int
    tid: int
    pid: int
    name: str


@dataclass(slots=True, unsafe_hash=True)
class ThreadEnded:
    t: int
    tid: int


@dataclass(slots=True, unsafe_hash=True)
class ContextCreated:
    t: int
    context: int
    device: int
    pid: int
    is_default: bool


@dataclass(slots=True, unsafe_hash=True)
class ContextDestroyed:
    t: int
    context: int


@dataclass(slots=True, unsafe_hash=True)
class StreamCreated:
    t: int
    stream: int                # handle (0 is never used here: default streams get a handle too)
    stream_id: int             # per-device number, the "Stream N" row
    device: int
    context: int
    priority: int
    is_default: bool
    label: str = ""            # e.g. "sync copies" for the runtime's internal stream


@dataclass(slots=True, unsafe_hash=True)
class StreamDestroyed:
    t: int
    stream: int


@dataclass(slots=True, unsafe_hash=True)
class EventCreated:
    t: int
    event: int
    device: int
    flags: int


@dataclass(slots=True, unsafe_hash=True)
class EventDestroyed:
    t: int
    event: int


@dataclass(slots=True, unsafe_hash=True)
class ApiCall:
    """One facade call on one host thread, from entry to return.

    ``blocked_from`` is set for blocking calls: the thread waited for the device from ``blocked_from`` to
    ``end``, for ``waited_for``: ("stream", handle), ("event", handle), ("device", id), ("task", number)
    or () (aclrtProcessReport: any callback).  ``tasks``: the tasks it submitted (the export's flow arrows).
    """
    start: int
    end: int
    tid: int
    pid: int
    name: str                  # the C name, e.g. "aclrtMemcpyAsync"
    ret: int
    args: tuple[tuple[str, object], ...] = ()
    tasks: tuple[int, ...] = ()
    blocked_from: int | None = None
    seq: int = 0               # call number, machine-wide
    waited_for: tuple = ()


@dataclass(slots=True, unsafe_hash=True)
class TaskSubmitted:
    """A task entered a stream's queue (it arrives on the device at ``t``).

    kind: one of ``core.tasks.KINDS`` ("kernel", "memcpy", "memset", "event_record",
    "event_wait", "event_reset", "mem_pool", "callback", "host_func").
    engine: the engine it will occupy ("AI Core", "DMA H2D", "DMA D2H", "DMA D2D",
    "Peer link 0->1", ...) or "" for tasks that need none (event record/wait).
    ``prev_task`` is the task before it in the same stream (0 if none);
    ``waits_on`` is the task an event wait depends on (0 if none).
    """
    t: int
    task: int
    device: int
    stream: int
    kind: str
    name: str
    engine: str
    prev_task: int
    waits_on: int
    nbytes: int = 0
    block_dim: int = 0
    event: int = 0
    tid: int = 0
    api_seq: int = 0
    detail: tuple[tuple[str, object], ...] = ()


@dataclass(slots=True, unsafe_hash=True)
class TaskStarted:
    t: int
    task: int
    cores: int = 0             # AI cores occupied (kernels)


@dataclass(slots=True, unsafe_hash=True)
class TaskFinished:
    t: int
    task: int
    status: int = 0            # 0, or the error code the task failed with


@dataclass(slots=True, unsafe_hash=True)
class MemAllocated:
    """A block of memory came into use.

    ``device`` is a device id, or -1 for host memory (pinned, from malloc_host).
    ``size`` is what the caller asked for; ``reserved`` is what the allocator took
    (rounding, padding, page granularity), starting at ``ptr``.
    """
    t: int
    device: int
    ptr: int
    size: int
    reserved: int
    policy: str                # e.g. "ACL_MEM_MALLOC_HUGE_FIRST", or "pinned"
    page: str                  # "huge" (2 MiB), "normal" (4 KiB), "huge1g", "pinned"
    pid: int
    tid: int
    api_seq: int = 0           # the call that made it (ApiCall.seq)


@dataclass(slots=True, unsafe_hash=True)
class MemFreed:
    t: int
    device: int
    ptr: int
    api_seq: int = 0           # the call that freed it: aclrtFree, a reset, a pool's trim ...


@dataclass(slots=True, unsafe_hash=True)
class ErrorRaised:
    """A facade call failed (synchronously) or a device error surfaced."""
    t: int
    tid: int
    api: str
    code: int
    name: str
    message: str


@dataclass(slots=True, unsafe_hash=True)
class Note:
    """Free-form marker from a program or a notebook step (e.g. 'step 3').

    ``kind`` is "" for those; the profiling calls' markers name theirs (core/features/profiling.py):
    "msproftx" (aclprofMark/MarkEx; with ``began``, the range that aclprofPush/RangeStart opened
    then and aclprofPop/RangeStop closed at ``t``) or "step" (aclprofGetStepTimestamp).  The mstx calls'
    marks and ranges are "msproftx" notes too, with their ``domain`` ("default" or the name mstxDomainCreateA
    gave it; core/features/mstx.py): "" for every other note."""
    t: int
    tid: int
    text: str
    kind: str = ""
    began: int | None = None
    domain: str = ""


@dataclass(slots=True, unsafe_hash=True)
class ProfilingStarted:
    """aclprofStart: a collection began, to be written at its stop into the folder ``collection``
    under ``path``; ``data_types`` are its ACL_PROF_* bits (as aclprofCreateConfig expands them),
    ``devices`` the devices it collects (core/features/profiling.py)."""
    t: int
    tid: int
    pid: int
    path: str
    collection: str
    data_types: int
    devices: tuple[int, ...]


@dataclass(slots=True, unsafe_hash=True)
class ProfilingStopped:
    """aclprofStop (or aclprofFinalize): the collection that began at ``started`` ended; its files hold
    the log's window [started, t]."""
    t: int
    tid: int
    pid: int
    collection: str
    started: int


# The four records written for every call and every task are appended as compact rows, plain tuples
# ``(code, *fields)`` of ints and strings: a tuple costs a fraction of a record object to make.  Writers
# make rows with the builders below, which take the record's fields by name and keep them in the record's
# order (a call's arguments come flat: name, value, ...).  Every _CHUNK items the log marshals the
# rows it holds unread into one bytes object (marshal shares what was shared): a task then costs it about
# 220 bytes instead of some 730.  ``TraceLog.records`` turns rows into records the first time it is read.
def _api_call(start, end, tid, pid, name, ret, flat_args, *rest) -> ApiCall:
    return ApiCall(start, end, tid, pid, name, ret, tuple(zip(flat_args[::2], flat_args[1::2])), *rest)


ROW_TYPES = (_api_call, TaskSubmitted, TaskStarted, TaskFinished)
API_CALL, TASK_SUBMITTED, TASK_STARTED, TASK_FINISHED = range(len(ROW_TYPES))
# Items gathered before their rows are marshalled.  4096 cost 5 % more instructions per task (marshal's
# table of the objects it shares grows with the chunk); 512 packs to within 1 % of 4096's size.
_CHUNK = 512


def task_submitted_row(th: HostThread, stream: Stream, task: Task, prev: Task | None) -> tuple:
    """The compact row of a TaskSubmitted record for ``task``, just queued on ``stream`` by host
    thread ``th`` after ``prev`` (None: first of the stream).  Field by field, in the record's order:"""
    engine, event = task.engine, task.event
    waits_on: Task | None = task.waits_on  # type: ignore[assignment]  # submitted, so is what it waits on
    return (TASK_SUBMITTED,
            th.clock,                                       # t
            task.id,                                        # task
            stream.device,                                  # device
            stream.handle,                                  # stream
            task.kind,                                      # kind
            task.name,                                      # name
            engine.name if engine is not None else "",      # engine
            prev.id if prev is not None else 0,             # prev_task
            waits_on.id if waits_on is not None else 0,     # waits_on
            task.nbytes,                                    # nbytes
            task.block_dim,                                 # block_dim
            event.handle if event is not None else 0,       # event
            th.tid,                                         # tid
            th.call_seq,                                    # api_seq
            task.detail)                                    # detail


def task_started_row(t, task, cores=0) -> tuple:
    """The compact row of a TaskStarted record."""
    return (TASK_STARTED, t, task, cores)


def task_finished_row(t, task, status) -> tuple:
    """The compact row of a TaskFinished record."""
    return (TASK_FINISHED, t, task, status)


class TraceLog:
    """Append-only list of records, in the order things happened in the simulation.  ``append`` takes a
    record or a compact row; ``append_call`` (the gate's) also packs the rows every _CHUNK items."""

    def __init__(self, records=None):
        self._records: list = []                # built, in log order; then
        self._packed: list = []                 # (count, marshalled rows or None, the records among them); then
        self._items: list = [] if records is None else list(records)   # rows and records as appended
        self.append = self._items.append        # a record, or a compact row (the hot path)
        self.plain = True   # False for good once a call showed a value marshal may change (gate.as_int, acl._declare)
        self.derived: dict = {}   # what readers computed from the log, by their own keys (viz.index.kept)

    def append_call(self, row: tuple) -> None:
        items = self._items
        items.append(row)
        if len(items) >= _CHUNK:
            others: list = []                   # the records among them, kept aside (None in their place)
            try:
                packed = marshal.dumps(items) if self.plain else None
            except ValueError:                  # a record among them, or an object marshal refuses
                others = [x for x in items if type(x) is not tuple]
                try:
                    packed = marshal.dumps([x if type(x) is tuple else None for x in items])
                except ValueError:              # (an object a learner passed to a call: shown as it is)
                    packed = None
            self._packed.append((len(items), packed, others if packed is not None else items.copy()))
            items.clear()

    @property
    def records(self) -> list:
        """Every record, in order (rows, marshalled or not, are built into records here, once)."""
        records, items = self._records, self._items
        for _, packed, kept in self._packed + [(0, None, items)]:
            if packed is not None:              # the records kept aside go where their None is
                others = iter(kept)
                kept = [next(others) if item is None else item for item in marshal.loads(packed)]
            records += [ROW_TYPES[x[0]](*x[1:]) if type(x) is tuple else x for x in kept]
        self._packed = []
        items.clear()
        return records

    def of(self, *kinds) -> Iterator:
        """Records of the given record classes, in log order."""
        return (r for r in self.records if isinstance(r, kinds))

    def __len__(self) -> int:
        return len(self._records) + sum(n for n, _, _ in self._packed) + len(self._items)

    def __iter__(self):
        return iter(self.records)

    def __repr__(self) -> str:
        return f"<TraceLog {len(self)} records>"


@dataclass(slots=True, unsafe_hash=True)
class PeerAccessChanged:
    """aclrtDeviceEnablePeerAccess / DisablePeerAccess: the direction device -> peer of one
    process was opened (``enabled``) or closed; ``changed`` is False when it already was."""
    t: int
    tid: int
    pid: int
    device: int
    peer: int
    enabled: bool
    changed: bool


@dataclass(slots=True, unsafe_hash=True)
class Hazard:
    """A program error found by semantics, not by the schedule that ran (see core/hazards.py).

    kind: "host_read" (the host reads bytes an async write may still change), "host_write"
    (the host overwrites bytes queued work still uses), "stream_race" (two streams touch the
    same bytes, one writing, with no event ordering them), "free_in_use" (memory freed while
    queued work still uses it), "peer_access" (a peer copy without peer access),
    "use_after_reset" (device memory allocated before its device's last full reset, used after it),
    "callback_call" (a runtime call from inside an aclrtLaunchCallback callback: it works, as on a board,
    but the documentation forbids it).
    ``tasks`` and ``streams`` are the task numbers and stream handles involved.
    """
    t: int
    tid: int
    kind: str
    message: str
    tasks: tuple[int, ...] = ()
    streams: tuple[int, ...] = ()


@dataclass(slots=True, unsafe_hash=True)
class PoolCreated:
    """aclrtMemPoolCreate: a stream-ordered memory pool on ``device`` (max_size 0: no cap)."""
    t: int
    pool: int
    device: int
    pid: int
    max_size: int


@dataclass(slots=True, unsafe_hash=True)
class PoolDestroyed:
    t: int
    pool: int


@dataclass(slots=True, unsafe_hash=True)
class PoolBlockAllocated:
    """aclrtMemPoolMallocAsync handed out [ptr, ptr+reserved) of a pool segment.

    The pool's segments themselves appear as MemAllocated records whose policy is
    "pool <handle>"; this record says which part of them is in use, by which stream and
    from which task on (``task``: the stream-ordered allocation task).  ``reused`` is True
    when the bytes came from a block freed earlier, not from untouched segment space.
    """
    t: int
    pool: int
    device: int
    ptr: int
    size: int
    reserved: int
    stream: int
    task: int
    reused: bool


@dataclass(slots=True, unsafe_hash=True)
class PoolBlockFreed:
    """aclrtMemPoolFreeAsync: the block goes back to the pool when ``task`` finishes
    (pending-free until then; cached in the pool afterwards)."""
    t: int
    pool: int
    device: int
    ptr: int
    stream: int
    task: int


@dataclass(slots=True, unsafe_hash=True)
class LeakReport:
    """What a process still held at aclFinalize or at its end, or when asked.

    ``items`` are (kind, device, ident, size, detail) with kind one of "allocation",
    "pinned", "pool", "stream", "event", "context"; ``message`` is the text report.
    """
    t: int
    tid: int
    pid: int
    when: str
    items: tuple[tuple[str, int, int, int, str], ...]
    message: str


@dataclass(slots=True, unsafe_hash=True)
class GraphCaptureBegan:
    """aclmdlRICaptureBegin: ``stream`` now records its tasks into model run instance ``ri``."""
    t: int
    ri: int
    stream: int
    mode: str                  # e.g. "ACL_MODEL_RI_CAPTURE_MODE_GLOBAL"
    tid: int


@dataclass(slots=True, unsafe_hash=True)
class TaskCaptured:
    """A task issued to a capturing stream was recorded into ``ri`` instead of running.

    ``index`` is its number inside the instance; ``waits_on`` the index of the captured
    event record it waits for (-1 if none).
    """
    t: int
    ri: int
    stream: int
    index: int
    kind: str
    name: str
    engine: str
    waits_on: int
    tid: int = 0
    api_seq: int = 0


@dataclass(slots=True, unsafe_hash=True)
class GraphCaptureInvalidated:
    """A forbidden call (e.g. a synchronize) during capture: aclmdlRICaptureEnd will fail."""
    t: int
    ri: int
    reason: str


@dataclass(slots=True, unsafe_hash=True)
class GraphCaptured:
    """aclmdlRICaptureEnd succeeded: ``ri`` holds ``n_tasks`` tasks of ``streams`` (origin first)."""
    t: int
    ri: int
    stream: int
    n_tasks: int
    streams: tuple[int, ...]


@dataclass(slots=True, unsafe_hash=True)
class GraphLaunched:
    """aclmdlRIExecuteAsync: one host call submitted ``tasks`` (TaskSubmitted records with
    ("graph", ri) in their detail)."""
    t: int
    ri: int
    stream: int
    tasks: tuple[int, ...]


@dataclass(slots=True, unsafe_hash=True)
class GraphDestroyed:
    """aclmdlRIDestroy, or a failed capture whose instance was discarded."""
    t: int
    ri: int


@dataclass(slots=True, unsafe_hash=True)
class CallbackRun:
    """A host callback ran on a host thread, from ``start`` to ``end``.

    ``kind`` is "callback" (aclrtLaunchCallback, run by the subscribed thread inside
    aclrtProcessReport), "host_func" (aclrtLaunchHostFunc, run inside aclrtProcessHostFunc by
    the subscribed thread, or else by the runtime's own thread of the device, whose ``tid`` has
    a ThreadStarted record of its own) or "exception" (the aclrtSetExceptionInfoCallback
    function, run on the runtime's thread when a task fails on the device).  ``task`` is the
    stream task the callback belongs to; ``error`` is what the function raised, if anything.
    """
    start: int
    end: int
    tid: int
    task: int
    kind: str
    fn_name: str
    block: bool
    error: str = ""


@dataclass(slots=True, unsafe_hash=True)
class FaultInjected:
    """``sandbox.inject_fault``: from now on, matching tasks fail with ``code``.

    ``skip`` matching tasks complete normally first, then ``count`` fail (0: every one
    until ``sandbox.clear_faults``).  ``device``/``peer``/``stream`` are -1/-1/0 when any.
    """
    t: int
    tid: int
    fault: int                 # fault number, machine-wide
    kind: str                  # "kernel_trap", "dma_error" or "link_down"
    code: int
    device: int
    peer: int
    stream: int
    skip: int
    count: int


@dataclass(slots=True, unsafe_hash=True)
class FaultTriggered:
    """An injected fault hit ``task``: it failed with ``code`` and its data effect did not happen."""
    t: int
    fault: int
    task: int
    code: int


@dataclass(slots=True, unsafe_hash=True)
class FaultsCleared:
    t: int
    tid: int
