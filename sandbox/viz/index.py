"""One pass over the trace log that joins records into the tables every view needs.

The log is a flat list of records; a view wants "task 7: submitted, started, finished,
on which stream".  Building that join once (and handing the result to each view) keeps
the views cheap and keeps them pure: they read only this index, never the live runtime.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from typing import NamedTuple

from sandbox.core import trace as tr


class Task(NamedTuple):
    """A device task with its three moments; ``start``/``end`` are None until they happen.

    A named tuple, not a frozen dataclass: a 100k-task log makes 100k of them, and a frozen
    dataclass sets each of its 20 fields through object.__setattr__."""

    task: int
    device: int
    stream: int
    kind: str
    name: str
    engine: str
    prev_task: int
    waits_on: int
    event: int
    nbytes: int
    block_dim: int
    tid: int
    api_seq: int
    submit: int
    start: int | None
    end: int | None
    cores: int
    status: int
    detail: tuple


@dataclass(frozen=True, slots=True)
class StreamInfo:
    stream: int
    stream_id: int
    device: int
    priority: int
    is_default: bool
    created: int
    destroyed: int | None
    label: str = ""


@dataclass(frozen=True, slots=True)
class ThreadInfo:
    tid: int
    pid: int
    name: str
    started: int
    ended: int | None


@dataclass(frozen=True, slots=True)
class Block:
    """One allocation's life: from MemAllocated to MemFreed (``freed`` None if never)."""

    device: int
    ptr: int
    size: int
    reserved: int
    policy: str
    page: str
    pid: int
    tid: int
    allocated: int
    freed: int | None
    free_called: int | None  # when the host asked for the free (may precede ``freed``)
    label: str
    pool: int
    stream: int


@dataclass
class Index:
    machine: tr.MachineConfigured | None = None
    spaces: dict = field(default_factory=dict)  # device -> DeviceAddressSpace
    processes: dict = field(default_factory=dict)  # pid -> name
    threads: dict = field(default_factory=dict)  # tid -> ThreadInfo
    streams: dict = field(default_factory=dict)  # stream handle -> StreamInfo
    events: dict = field(default_factory=dict)  # event -> EventCreated
    event_numbers: dict = field(default_factory=dict)  # event -> 1, 2, ... per device, by creation
    tasks: dict = field(default_factory=dict)  # task -> Task, submission order
    calls: list = field(default_factory=list)  # ApiCall, log order
    blocks: list = field(default_factory=list)  # Block, allocation order
    pool_blocks: list = field(default_factory=list)  # Block handed out by a memory pool
    pools: dict = field(default_factory=dict)  # pool handle -> 1, 2, ... in creation order
    callbacks: list = field(default_factory=list)  # CallbackRun, log order
    hazards: list = field(default_factory=list)  # Hazard, log order
    leaks: list = field(default_factory=list)  # LeakReport, log order
    errors: list = field(default_factory=list)  # ErrorRaised
    notes: list = field(default_factory=list)  # Note
    t_end: int = 0  # last moment anything happened
    t_start: int = 0  # first task submitted or block allocated
    memo: dict = field(default_factory=dict, repr=False, compare=False)
    # ^ what views derive from this index (activity, lanes, layouts), computed once each

    def derived(self, key, make):
        """``make()`` computed once per index and ``key``: views of one log share it."""
        try:
            return self.memo[key]
        except KeyError:
            value = self.memo[key] = make()
            return value

    @property
    def devices(self) -> list[int]:
        """Every device that has an address space, a stream or a task, ascending."""
        found = set(self.spaces)
        found.update(s.device for s in self.streams.values())
        found.update(t.device for t in self.tasks.values())
        found.update(b.device for b in self.blocks if b.device >= 0)
        return sorted(found)

    def stream_label(self, stream: int) -> str:
        info = self.streams.get(stream)
        return f"Stream {info.stream_id}" if info else f"Stream #{stream}"

    def event_label(self, event: int) -> str:
        """'event 2 on NPU 0': the event's place among its device's events, not its handle
        (a handle is an arbitrary int the runtime handed out)."""
        created = self.events.get(event)
        if created is None:
            return "an event not in the log"
        return f"event {self.event_numbers[event]} on NPU {created.device}"

    def pool_label(self, pool: int) -> str:
        """'pool 1': pools numbered in creation order, never by handle."""
        n = self.pools.get(pool)
        return f"pool {n}" if n else "a pool not in the log"


_FREE_CALLS = ("aclrtFree", "aclrtFreeWithDevSync", "aclrtFreeHost", "aclrtFreeAsync", "aclrtFreePhysical")


def kept(log, key: str, make, *depends):
    """``make()``, kept in a TraceLog's ``derived`` until the log grows or ``depends`` changes; any
    other iterable of records gets a fresh result.  The log is append-only, so its length says
    which records a result has seen.

    Kept on the log, not in a weak map: a weak map runs a callback wherever the collector frees a
    log, and a stop (KeyboardInterrupt) that lands in such a callback is dropped by Python."""
    derived = getattr(log, "derived", None)
    if type(derived) is not dict:
        return make()
    stamp = (len(log), *depends)
    hit = derived.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    out = make()
    derived[key] = (stamp, out)
    return out


def build_index(log) -> Index:
    """Join the records of ``log`` (a TraceLog or any iterable of records) into an Index.

    The index of a log is kept beside it until the log grows, so every view of one log shares
    one pass over it.  Treat the result as read-only."""
    if isinstance(log, Index):
        return log
    return kept(log, "index", lambda: _collected(log))


def _collected(log) -> Index:
    collecting = gc.isenabled()
    gc.disable()  # a long log's first read makes its records, and this pass an object per task: the
    try:  # collector would scan them again and again (a third of the time)
        return _build_index(log)
    finally:
        if collecting:
            gc.enable()


def _build_index(log) -> Index:
    ix = Index()
    submitted: dict[int, tr.TaskSubmitted] = {}
    started: dict[int, tr.TaskStarted] = {}
    finished: dict[int, tr.TaskFinished] = {}
    stream_created: dict[int, tr.StreamCreated] = {}
    stream_destroyed: dict[int, int] = {}
    thread_started: dict[int, tr.ThreadStarted] = {}
    thread_ended: dict[int, int] = {}
    allocs: list[tr.MemAllocated] = []
    frees: dict[tuple[int, int], list[tr.MemFreed]] = {}
    free_calls: dict[int, int] = {}  # a free call's number -> its start
    pool_allocs: list = []
    pool_frees: dict[tuple[int, int], list] = {}
    events_on: dict[int, int] = {}  # device -> events created there so far
    t_end = 0

    for r in log:
        k = type(r)
        if k is tr.TaskSubmitted:
            submitted[r.task] = r
            t = r.t
        elif k is tr.TaskStarted:
            started[r.task] = r
            t = r.t
        elif k is tr.TaskFinished:
            finished[r.task] = r
            t = r.t
        elif k is tr.ApiCall:
            ix.calls.append(r)
            t = r.end
            if r.name in _FREE_CALLS:
                free_calls[r.seq] = r.start
        elif k is tr.MemAllocated:
            allocs.append(r)
            seg_pool = pool_handle(r.policy)
            if seg_pool:
                ix.pools.setdefault(seg_pool, len(ix.pools) + 1)
            t = r.t
        elif k is tr.MemFreed:
            frees.setdefault((r.device, r.ptr), []).append(r)
            t = r.t
        elif k is tr.StreamCreated:
            stream_created[r.stream] = r
            t = r.t
        elif k is tr.StreamDestroyed:
            stream_destroyed[r.stream] = r.t
            t = r.t
        elif k is tr.ThreadStarted:
            thread_started[r.tid] = r
            t = r.t
        elif k is tr.ThreadEnded:
            thread_ended[r.tid] = r.t
            t = r.t
        elif k is tr.ProcessStarted:
            ix.processes[r.pid] = r.name
            t = r.t
        elif k is tr.EventCreated:
            ix.events[r.event] = r
            if r.event not in ix.event_numbers:
                events_on[r.device] = events_on.get(r.device, 0) + 1
                ix.event_numbers[r.event] = events_on[r.device]
            t = r.t
        elif k is tr.DeviceAddressSpace:
            ix.spaces[r.device] = r
            t = r.t
        elif k is tr.MachineConfigured:
            ix.machine = r
            t = r.t
        elif k is tr.ErrorRaised:
            ix.errors.append(r)
            t = r.t
        elif k is tr.Note:
            ix.notes.append(r)
            t = r.t
        elif k is tr.PoolCreated:
            ix.pools.setdefault(r.pool, len(ix.pools) + 1)
            t = r.t
        elif k is tr.PoolBlockAllocated:
            pool_allocs.append(r)
            t = r.t
        elif k is tr.PoolBlockFreed:
            pool_frees.setdefault((r.pool, r.ptr), []).append(r)
            t = r.t
        elif k is tr.CallbackRun:
            ix.callbacks.append(r)
            t = r.end
        elif k is tr.Hazard:
            ix.hazards.append(r)
            t = r.t
        elif k is tr.LeakReport:
            ix.leaks.append(r)
            t = r.t
        else:
            t = getattr(r, "t", getattr(r, "end", 0))
        if t > t_end:
            t_end = t

    for h, c in stream_created.items():
        ix.streams[h] = StreamInfo(
            h, c.stream_id, c.device, c.priority, c.is_default, c.t, stream_destroyed.get(h), c.label
        )
    for tid, started_at in thread_started.items():
        ix.threads[tid] = ThreadInfo(tid, started_at.pid, started_at.name, started_at.t, thread_ended.get(tid))
    for c in ix.calls:  # threads seen only through their calls still get a row
        if c.tid not in ix.threads:
            ix.threads[c.tid] = ThreadInfo(c.tid, c.pid, "", c.start, None)

    for n, s in submitted.items():
        st = started.get(n)
        fi = finished.get(n)
        ix.tasks[n] = Task(
            n,
            s.device,
            s.stream,
            s.kind,
            s.name,
            s.engine,
            s.prev_task,
            s.waits_on,
            s.event,
            s.nbytes,
            s.block_dim,
            s.tid,
            s.api_seq,
            s.t,
            st.t if st else None,
            fi.t if fi else None,
            st.cores if st else 0,
            fi.status if fi else 0,
            s.detail,
        )
        if s.stream not in ix.streams:
            ix.streams[s.stream] = StreamInfo(s.stream, s.stream, s.device, 0, False, s.t, None)

    seen: dict[tuple[int, int], int] = {}
    for a in allocs:
        key = (a.device, a.ptr)
        i = seen.get(key, 0)  # the i-th allocation at this address meets the i-th free
        seen[key] = i + 1
        fl = frees.get(key, [])
        freed = fl[i].t if i < len(fl) else None
        called = free_calls.get(fl[i].api_seq) if i < len(fl) else None  # the free call that made the record
        ix.blocks.append(
            Block(
                a.device,
                a.ptr,
                a.size,
                a.reserved,
                a.policy,
                a.page,
                a.pid,
                a.tid,
                a.t,
                freed,
                called if called is not None else freed,
                "",
                0,
                0,
            )
        )
    _pool_blocks(ix, pool_allocs, pool_frees)
    ix.t_end = t_end
    firsts = [t.submit for t in ix.tasks.values()] + [b.allocated for b in ix.blocks]
    ix.t_start = min(firsts, default=0)
    return ix


def _pool_blocks(ix, allocs, frees) -> None:
    """A pool block is in use from its allocation until its free task has run on the
    stream; between the FreeAsync call and that task it is pending-free."""
    seen: dict[tuple[int, int], int] = {}
    for a in allocs:
        ix.pools.setdefault(a.pool, len(ix.pools) + 1)
        key = (a.pool, a.ptr)
        i = seen.get(key, 0)
        seen[key] = i + 1
        fl = frees.get(key, [])
        f = fl[i] if i < len(fl) else None
        task = ix.tasks.get(f.task) if f is not None else None
        ix.pool_blocks.append(
            Block(
                a.device,
                a.ptr,
                a.size,
                a.reserved,
                ix.pool_label(a.pool),
                "huge",
                0,
                0,
                a.t,
                task.end if task is not None else None,
                f.t if f is not None else None,
                "",
                a.pool,
                a.stream,
            )
        )


def pool_handle(policy: str) -> int:
    """The pool handle in a pool segment's policy ("pool <handle>"), else 0."""
    if not policy.startswith("pool "):
        return 0
    try:
        return int(policy.split()[-1], 0)
    except ValueError:
        return 0
