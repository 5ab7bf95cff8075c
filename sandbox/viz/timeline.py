"""What the Gantt chart shows, as data: rows, bars and event arrows.

Two layouts of the same tasks.  The logical view has a row per stream that had a task
(what the program asked for); the physical view has a row per engine lane (what the
hardware did).  Both start with one row per host thread: its API calls, and the part of
each blocking call spent waiting for the device.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import NamedTuple

import numpy as np

from sandbox.core.errors import describe
from sandbox.viz.index import build_index
from sandbox.viz.style import copy_direction
from sandbox.viz.units import ns_array

LOGICAL = "logical"
PHYSICAL = "physical"
COPY_KINDS = ("memcpy", "memset")
HOST_CALLBACK = "host_callback"  # a callback running on a host thread (the stream task
# that triggers it has kind "callback")
COMPUTE_KINDS = ("kernel", "model")


@dataclass(frozen=True, slots=True)
class Row:
    key: tuple  # ("host", pid, tid) | ("stream", device, stream) | ("engine", device, engine, lane)
    label: str
    group: str  # "Host" or "NPU <n>": rows of one group are drawn together
    tick: str = ""  # a shorter label for the chart's axis ("" means use ``label``)


class Bar(NamedTuple):
    """One bar (a named tuple: a 100k-task log makes a few hundred thousand of them)."""

    row: int
    start: int
    end: int
    kind: str  # the task kind, or "api" / "blocked" on host rows
    name: str
    stream: int  # stream handle (0 on host rows), for colouring by stream
    task: int  # 0 on host rows
    engine: str = ""  # the task's engine, "" on host rows
    direction: str = ""  # a copy's direction in its own words ("host to device"), else ""
    status: int = 0  # the task's end code: not 0 for a task that failed or was discarded


@dataclass(frozen=True, slots=True)
class Arrow:
    """An event dependency: the record finished at src_t, the wait completed at dst_t."""

    event: int
    record_task: int
    wait_task: int
    src_row: int
    src_t: int
    dst_row: int
    dst_t: int


@dataclass(frozen=True)
class Timeline:
    view: str
    rows: tuple
    bars: tuple
    arrows: tuple
    t_end: int
    streams: tuple = ()  # (stream handle, "NPU d Stream n") in row order, for legends
    t_start: int = 0  # where device activity begins: device open costs a second of
    # virtual time, which would squeeze the work into a sliver

    def row_of(self, label: str) -> int:
        for i, r in enumerate(self.rows):
            if r.label == label:
                return i
        raise KeyError(label)

    def bars_on(self, label: str) -> list[Bar]:
        i = self.row_of(label)
        return [b for b in self.bars if b.row == i]


def timeline(log, view: str = LOGICAL) -> Timeline:
    """Rows, bars and arrows of the Gantt chart for ``view`` ("logical" or "physical")."""
    if type(view) is not str or view not in (LOGICAL, PHYSICAL):
        raise ValueError(f"view must be {LOGICAL!r} or {PHYSICAL!r}, not {describe(view)}")
    ix = build_index(log)
    return ix.derived(("timeline", view), lambda: _timeline(ix, view))


def _timeline(ix, view: str) -> Timeline:
    rows: list[Row] = []
    bars: list[Bar] = []
    row_at: dict[tuple, int] = {}

    def row(key, label, group, tick=""):
        i = row_at.get(key)
        if i is None:
            i = row_at[key] = len(rows)
            rows.append(Row(key, label, group, tick))
        return i

    _host_rows(ix, row, bars)
    if view == LOGICAL:
        task_row = _stream_rows(ix, row, bars)
        arrows: list | tuple = _arrows(ix, task_row)
    else:
        _engine_rows(ix, row, bars)
        arrows = ()
    owner: dict[int, int] = {}  # stream -> pid of the thread that first submitted to it
    for t in ix.tasks.values():
        if t.stream not in owner:
            th = ix.threads.get(t.tid)
            owner[t.stream] = th.pid if th is not None else 0
    several = len(set(owner.values())) > 1  # the legend then names each stream's process

    def legend_label(s) -> str:
        if not several:
            return stream_label(s)
        pid = owner[s.stream]
        name = ix.processes.get(pid) or f"pid {pid}"
        return f"{stream_label(s)} · {name}"

    streams = tuple(
        (s.stream, legend_label(s))
        for s in sorted(
            (s for s in ix.streams.values() if s.stream in owner), key=lambda s: (s.device, s.stream_id, s.stream)
        )
    )
    return Timeline(view, tuple(rows), tuple(bars), tuple(arrows), ix.t_end, streams, ix.t_start)


def stream_label(s) -> str:
    """'NPU 0 Stream 1', with the runtime's own label for its internal streams."""
    return f"NPU {s.device} Stream {s.stream_id}" + (f" ({s.label})" if s.label else "")


def _host_rows(ix, row, bars) -> None:
    several = len({t.pid for t in ix.threads.values()}) > 1
    for tid in sorted(ix.threads, key=lambda n: (ix.threads[n].pid, n)):
        th = ix.threads[tid]
        name = f" ({th.name})" if th.name else ""
        who = f"Process {th.pid} thread" if several else "Host thread"
        short = (f"pid {th.pid} thread {tid}" if several else f"thread {tid}") + (f" · {th.name}" if th.name else "")
        row(("host", th.pid, tid), f"{who} {tid}{name}", f"Host process {th.pid}" if several else "Host", short)
    at: dict[tuple, int] = {}
    append = bars.append
    for c in ix.calls:
        key = (c.pid, c.tid)
        i = at.get(key)
        if i is None:
            i = at[key] = row(("host", c.pid, c.tid), "", "")
        append(Bar(i, c.start, c.end, "api", c.name, 0, 0))
        if c.blocked_from is not None and c.blocked_from < c.end:
            append(Bar(i, c.blocked_from, c.end, "blocked", c.name, 0, 0))
    for cb in ix.callbacks:  # host callbacks run on a host thread, drawn on top
        th = ix.threads.get(cb.tid)
        i = row(("host", th.pid if th else 1, cb.tid), f"Host thread {cb.tid}", "Host")
        bars.append(Bar(i, cb.start, cb.end, HOST_CALLBACK, cb.fn_name, 0, cb.task))


def _stream_rows(ix, row, bars) -> dict[int, int]:
    """A row per stream that had a task: every context's default stream exists from
    set_device on, and an empty row for each would say nothing."""
    used = {t.stream for t in ix.tasks.values()}
    order = sorted(
        (s for s in ix.streams.values() if s.stream in used), key=lambda s: (s.device, s.stream_id, s.stream)
    )
    for s in order:
        row(("stream", s.device, s.stream), stream_label(s), f"NPU {s.device}")
    task_row: dict[int, int] = {}
    at = {s.stream: row(("stream", s.device, s.stream), "", "") for s in order}
    append = bars.append
    t_end = ix.t_end
    for t in ix.tasks.values():
        i = task_row[t.task] = at[t.stream]
        if t.start is not None:
            append(
                Bar(
                    i,
                    t.start,
                    t.end if t.end is not None else max(t.start, t_end),
                    t.kind,
                    t.name,
                    t.stream,
                    t.task,
                    t.engine,
                    copy_direction(t.detail) if t.kind == "memcpy" else "",
                    t.status,
                )
            )
    return task_row


def _engine_rows(ix, row, bars) -> None:
    engine_order = list(ix.machine.engines) if ix.machine else []
    ran = [t for t in ix.tasks.values() if t.start is not None and t.engine]
    lanes = engine_lanes(ix)
    used = sorted({(t.device, t.engine) for t in ran}, key=lambda k: (k[0], _rank(engine_order, k[1]), k[1]))
    counts: dict[tuple, int] = {}
    for t in ran:
        key: tuple = (t.device, t.engine)
        counts[key] = max(counts.get(key, 0), lanes[t.task] + 1)
    for device, engine in used:
        n = counts[(device, engine)]
        for lane in range(n):
            label = f"NPU {device} {engine}" + (f" #{lane + 1}" if n > 1 else "")
            row(("engine", device, engine, lane), label, f"NPU {device}")
    at: dict[tuple, int] = {}
    for t in ran:
        key = (t.device, t.engine, lanes[t.task])
        i = at.get(key)
        if i is None:
            i = at[key] = row(("engine", *key), "", "")
        bars.append(
            Bar(
                i,
                t.start,
                _end(t, ix),
                t.kind,
                t.name,
                t.stream,
                t.task,
                t.engine,
                copy_direction(t.detail) if t.kind == "memcpy" else "",
                t.status,
            )
        )


def engine_lanes(ix) -> dict[int, int]:
    """``assign_lanes`` of every task that ran on an engine, once per index."""
    return ix.derived(
        "lanes", lambda: assign_lanes([t for t in ix.tasks.values() if t.start is not None and t.engine], ix)
    )


def assign_lanes(tasks, ix) -> dict[int, int]:
    """Pack each engine's tasks into the fewest lanes in which none overlap.

    A pool engine (the AI Cores) runs several kernels at once; a row per lane keeps every
    bar visible and gives the export rows whose slices never overlap.
    """
    by_engine: dict[tuple, list] = {}
    for t in tasks:
        by_engine.setdefault((t.device, t.engine), []).append(t)
    lane_of: dict[int, int] = {}
    t_end = ix.t_end
    for group in by_engine.values():
        free_at: list[int] = []
        for t in sorted(group, key=attrgetter("start", "task")):
            start = t.start
            end = t.end if t.end is not None else max(start, t_end)
            if free_at and free_at[0] <= start:  # the usual case: lane 0 is free
                free_at[0] = end
                lane_of[t.task] = 0
                continue
            for lane, f in enumerate(free_at):
                if f <= start:
                    free_at[lane] = end
                    lane_of[t.task] = lane
                    break
            else:
                lane_of[t.task] = len(free_at)
                free_at.append(end)
    return lane_of


def _arrows(ix, task_row) -> list[Arrow]:
    out = []
    for t in ix.tasks.values():
        if t.kind != "event_wait" or not t.waits_on:
            continue
        rec = ix.tasks.get(t.waits_on)
        if rec is None or rec.end is None or t.end is None:
            continue
        out.append(Arrow(t.event or rec.event, rec.task, t.task, task_row[rec.task], rec.end, task_row[t.task], t.end))
    return out


def _end(t, ix) -> int:
    """A task still running when the log ends is drawn up to the end of the log."""
    return t.end if t.end is not None else max(t.start, ix.t_end)


def _rank(order: list, name: str) -> int:
    return order.index(name) if name in order else len(order)


@dataclass(frozen=True)
class Activity:
    """The overlap figures of one trace: copy time, compute time, total, and their overlap."""

    copy: int
    compute: int
    total: int
    overlap: int
    blocked: int
    first: int
    last: int


def activity(log) -> Activity:
    """Busy time of copies and of kernels (each as a union of intervals), the span of all
    device work, how long copy and compute ran at the same time, and host time blocked."""
    ix = build_index(log)
    return ix.derived("activity", lambda: _activity(ix))


def _activity(ix) -> Activity:
    """Vectorised: the union of intervals by a running maximum over the sorted starts, and
    the overlap by inclusion-exclusion, |copy| + |compute| - |copy or compute|."""
    ran = [t for t in ix.tasks.values() if t.start is not None]
    start = ns_array([t.start for t in ran])
    end = ns_array([t.end if t.end is not None else max(t.start, ix.t_end) for t in ran])
    kinds = [t.kind for t in ran]
    copy = np.fromiter((k in COPY_KINDS for k in kinds), bool, len(ran))
    compute = np.fromiter((k in COMPUTE_KINDS for k in kinds), bool, len(ran))
    cu = union_length(start[copy], end[copy])
    ku = union_length(start[compute], end[compute])
    both = union_length(start[copy | compute], end[copy | compute])
    first = int(start.min()) if len(ran) else 0
    last = int(end.max()) if len(ran) else 0
    blocked = sum(c.end - c.blocked_from for c in ix.calls if c.blocked_from is not None)
    return Activity(cu, ku, last - first, cu + ku - both, blocked, first, last)


def union_length(start, end) -> int:
    """The total length of the union of the intervals [start, end)."""
    if len(start) == 0:
        return 0
    order = np.argsort(start, kind="stable")
    s, e = start[order], end[order]
    reach = np.maximum.accumulate(e)
    # an interval begins a new piece when it starts after everything before it ended
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > reach[:-1]
    firsts = np.flatnonzero(new)
    lasts = np.append(firsts[1:] - 1, len(s) - 1)
    return int((reach[lasts] - s[firsts]).sum())


def union(intervals) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def intersect(a, b) -> list[tuple[int, int]]:
    """Intersection of two sorted disjoint interval lists."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if s < e:
            out.append((s, e))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def _length(intervals) -> int:
    return sum(e - s for s, e in intervals)
