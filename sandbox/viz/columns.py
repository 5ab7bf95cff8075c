"""The trace log as columns for the browser timeline: built once, sent once.

The interactive timeline (sandbox/widgets/views.js) draws the Gantt chart, the memory map
and the stream queues at any time t by itself, so moving its cursor costs no round trip to
the kernel.  What it needs is here, as a pure function of the log: one typed array per
field of the tasks, API calls, callbacks and memory blocks (little-endian, sent as binary
buffers), and small tables of strings (names, row labels, streams) as JSON.

Rows are the Gantt chart's (sandbox/viz/timeline.py): host threads first, then a row per
stream (logical view) or per engine lane (physical view).  Times are ns of virtual time as
float64, exact up to 2**53 ns (104 days); a missing time is NaN.
"""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter

import numpy as np

from sandbox import i18n
from sandbox.viz import style
from sandbox.viz.index import build_index, kept
from sandbox.viz.memory import lifetimes, opened_devices, window
from sandbox.viz.plot_gantt import tick_label
from sandbox.viz.timeline import activity, engine_lanes, stream_label
from sandbox.viz.units import fmt_time, ns_array

NAN = float("nan")
BLOCK_KINDS = ("block", "pool segment", "pool block")
PAGES = ("huge", "normal", "huge1g", "pinned")


def wait_label(ix, waited_for: tuple) -> str:
    """What a blocking call waited for (trace.ApiCall.waited_for), named as the timeline names it."""
    what, n = waited_for
    if what == "stream":
        return stream_label(ix.streams[n]) if n in ix.streams else ix.stream_label(n)
    if what == "event":
        return ix.event_label(n)
    return f"NPU {n}" if what == "device" else f"{what} {n}"


def change_times(ix) -> list[int]:
    """Moments at which a panel changes: task submitted/started/finished, memory
    allocated/freed.  The step buttons and the slider's keys move between these."""
    ix = build_index(ix)
    return ix.derived("change_times", lambda: _change_times(ix))


def _change_times(ix) -> list[int]:
    tasks = list(ix.tasks.values())
    blocks = ix.blocks + ix.pool_blocks
    parts = [ns_array([0, ix.t_end])]
    for key, rows in (
        ("submit", tasks),
        ("start", tasks),
        ("end", tasks),
        ("allocated", blocks),
        ("freed", blocks),
        ("free_called", blocks),
    ):
        values = [x for x in map(attrgetter(key), rows) if x is not None]
        parts.append(ns_array(values))
    return np.unique(np.concatenate(parts)).tolist()


class Strings:
    """A table of distinct strings; ``code(s)`` is the index of ``s``."""

    def __init__(self):
        self.items: list[str] = []
        self._at: dict[str, int] = {}

    def code(self, s) -> int:
        s = str(s)
        i = self._at.get(s)
        if i is None:
            i = self._at[s] = len(self.items)
            self.items.append(s)
        return i


def columns(log) -> tuple[dict, dict]:
    """``(meta, buffers)``: the JSON tables and the typed arrays (as bytes) of ``log``.

    Kept beside the log until it grows, like the index; labels and title follow the language."""
    return kept(log, "columns", lambda: _columns(build_index(log)), i18n.language())


def _columns(ix) -> tuple[dict, dict]:
    strings = Strings()
    rows_l: list[list] = []
    rows_p: list[list] = []
    at_l: dict[tuple, int] = {}
    at_p: dict[tuple, int] = {}

    def row(rows, at, key, label, group, tick=""):
        i = at.get(key)
        if i is None:
            i = at[key] = len(rows)
            rows.append([label, group, tick or label, key[0]])
        return i

    # host rows: the same in both views (timeline._host_rows)
    several = len({t.pid for t in ix.threads.values()}) > 1
    for tid in sorted(ix.threads, key=lambda n: (ix.threads[n].pid, n)):
        th = ix.threads[tid]
        name = f" ({th.name})" if th.name else ""
        who = f"Process {th.pid} thread" if several else "Host thread"
        short = (f"pid {th.pid} thread {tid}" if several else f"thread {tid}") + (f" · {th.name}" if th.name else "")
        for rows, at in ((rows_l, at_l), (rows_p, at_p)):
            row(
                rows,
                at,
                ("host", th.pid, tid),
                f"{who} {tid}{name}",
                f"Host process {th.pid}" if several else "Host",
                short,
            )
    for cb in ix.callbacks:
        th = ix.threads.get(cb.tid)
        for rows, at in ((rows_l, at_l), (rows_p, at_p)):
            row(rows, at, ("host", th.pid if th else 1, cb.tid), f"Host thread {cb.tid}", "Host")

    # streams, in the Gantt's order
    used = {t.stream for t in ix.tasks.values()}
    order_s = sorted(ix.streams.values(), key=lambda s: (s.device, s.stream_id, s.stream))
    stream_at = {s.stream: i for i, s in enumerate(order_s)}
    streams = [
        [
            stream_label(s),
            s.device,
            s.stream_id,
            s.priority,
            bool(s.is_default),
            s.label,
            s.created,
            -1 if s.destroyed is None else s.destroyed,
            ix.stream_label(s.stream),
            s.stream in used,
        ]
        for s in order_s
    ]
    for s in order_s:
        if s.stream in used:
            row(rows_l, at_l, ("stream", s.device, s.stream), stream_label(s), f"NPU {s.device}")

    # engine lanes (timeline._engine_rows)
    engine_order = list(ix.machine.engines) if ix.machine else []
    lanes = engine_lanes(ix)
    tasks = list(ix.tasks.values())
    counts: dict[tuple, int] = {}
    for t in tasks:
        lane = lanes.get(t.task)
        if lane is not None:
            key: tuple = (t.device, t.engine)
            if counts.get(key, 0) <= lane:
                counts[key] = lane + 1
    for device, engine in sorted(
        counts, key=lambda k: (k[0], engine_order.index(k[1]) if k[1] in engine_order else len(engine_order), k[1])
    ):
        n = counts[(device, engine)]
        for lane in range(n):
            label = f"NPU {device} {engine}" + (f" #{lane + 1}" if n > 1 else "")
            row(rows_p, at_p, ("engine", device, engine, lane), label, f"NPU {device}")

    # calls: columns through C-level getters; arguments as their tuple's text (the
    # browser writes "name=value")
    calls = ix.calls
    for c in calls:
        key = ("host", c.pid, c.tid)
        if key not in at_l:
            row(rows_p, at_p, key, f"Host thread {c.tid}", "Host")
            row(rows_l, at_l, key, f"Host thread {c.tid}", "Host")
    c_row = [at_l[k] for k in zip(repeat("host"), map(attrgetter("pid"), calls), map(attrgetter("tid"), calls))]
    call_names = list(map(attrgetter("name"), calls))
    call_code = {x: strings.code(x) for x in sorted(set(call_names))}
    c_name = [call_code[x] for x in call_names]
    call_of: dict[int, int] = {}
    for i, ts in enumerate(map(attrgetter("tasks"), calls)):
        for n in ts:
            call_of[n] = i
    blocked = [NAN if x is None else x for x in map(attrgetter("blocked_from"), calls)]

    # tasks
    n = len(tasks)
    get = {
        k: list(map(attrgetter(k), tasks))
        for k in (
            "task",
            "submit",
            "start",
            "end",
            "stream",
            "device",
            "kind",
            "engine",
            "name",
            "prev_task",
            "waits_on",
            "event",
            "nbytes",
            "block_dim",
            "cores",
            "status",
        )
    }
    numbers = np.asarray(get["task"], dtype=np.int64)
    order = np.argsort(numbers, kind="stable")

    def index_of(nums) -> np.ndarray:
        nums = np.asarray(nums, dtype=np.int64)
        pos = np.searchsorted(numbers, nums, sorter=order).clip(0, max(0, n - 1))
        found = order[pos] if n else pos
        ok = (nums != 0) & (numbers[found] == nums) if n else nums != 0
        return np.where(ok, found, -1)

    kinds, engines = Strings(), Strings()
    try:  # details are few shared tuples: read each once
        details = {d: style.copy_direction(d) for d in set(map(attrgetter("detail"), tasks))}
        directions = [details[t.detail] if t.kind == "memcpy" else "" for t in tasks]
    except TypeError:  # a detail holding something unhashable
        directions = [style.copy_direction(t.detail) if t.kind == "memcpy" else "" for t in tasks]
    pair_code: dict[tuple, tuple] = {}
    triples = list(zip(get["kind"], get["engine"], directions))
    for triple in sorted(set(triples)):
        k, e, direction = triple
        pair_code[triple] = (kinds.code(k), kinds.code(style.colour_kind(k, e, direction)))
    pairs = [pair_code[p] for p in triples]
    eng_code = {e: (engines.code(e) if e else -1) for e in sorted(set(get["engine"]))}
    name_code = {x: strings.code(x) for x in sorted(set(get["name"]))}
    ev_code = {ev: (strings.code(ix.event_label(ev)) if ev else -1) for ev in sorted(set(get["event"]))}
    stream_row = {s.stream: at_l.get(("stream", s.device, s.stream), -1) for s in order_s}
    cols = {
        "task": get["task"],
        "submit": get["submit"],
        "start": [NAN if x is None else x for x in get["start"]],
        "end": [NAN if x is None else x for x in get["end"]],
        "lrow": [stream_row[x] for x in get["stream"]],
        "prow": [
            at_p.get(("engine", d, e, lanes[k]), -1) if k in lanes else -1
            for k, d, e in zip(get["task"], get["device"], get["engine"])
        ],
        "kind": [p[0] for p in pairs],
        "ckind": [p[1] for p in pairs],
        "name": [name_code[x] for x in get["name"]],
        "engine": [eng_code[x] for x in get["engine"]],
        "stream": [stream_at[x] for x in get["stream"]],
        "device": get["device"],
        "prev": index_of(get["prev_task"]),
        "waits": index_of(get["waits_on"]),
        "waits_on": get["waits_on"],
        "nbytes": get["nbytes"],
        "block_dim": get["block_dim"],
        "cores": get["cores"],
        "status": get["status"],
        "call": [call_of.get(k, -1) for k in get["task"]],
        "event": [ev_code[x] for x in get["event"]],
    }
    f64 = ("submit", "start", "end", "nbytes")
    tasks_index = {k: i for i, k in enumerate(get["task"])}
    waits = {w: strings.code(wait_label(ix, w)) if w else -1 for w in sorted(set(map(attrgetter("waited_for"), calls)))}

    # host callbacks
    cbs = ix.callbacks
    cb_row = [at_l[("host", ix.threads[cb.tid].pid if cb.tid in ix.threads else 1, cb.tid)] for cb in cbs]

    # memory
    lives = lifetimes(ix)
    reach: dict[int, int] = {}
    for life in lives:
        b = life.block
        reach[b.device] = max(reach.get(b.device, 0), life.offset + b.reserved)
    devices = []
    for d in opened_devices(ix):
        space = ix.spaces.get(d)
        total = space.size if space else (ix.machine.memory_bytes if ix.machine else 0)
        devices.append([d, total, window(reach.get(d, 0), total)])
    blocks = [life.block for life in lives]

    def opt(x):
        return NAN if x is None else x

    buffers = {
        **{f"task_{k}": _pack(v, np.float64 if k in f64 else np.int32) for k, v in cols.items()},
        "call_start": _pack(list(map(attrgetter("start"), calls)), np.float64),
        "call_end": _pack(list(map(attrgetter("end"), calls)), np.float64),
        "call_blocked": _pack(blocked, np.float64),
        "call_row": _pack(c_row, np.int32),
        "call_name": _pack(c_name, np.int32),
        "call_ret": _pack(list(map(attrgetter("ret"), calls)), np.int32),
        "call_seq": _pack(list(map(attrgetter("seq"), calls)), np.int32),
        "call_waited": _pack([waits[w] for w in map(attrgetter("waited_for"), calls)], np.int32),
        "cb_start": _pack([cb.start for cb in cbs], np.float64),
        "cb_end": _pack([cb.end for cb in cbs], np.float64),
        "cb_row": _pack(cb_row, np.int32),
        "cb_name": _pack([strings.code(cb.fn_name) for cb in cbs], np.int32),
        "cb_task": _pack([tasks_index.get(cb.task, -1) for cb in cbs], np.int32),
        "mem_device": _pack([b.device for b in blocks], np.int32),
        "mem_offset": _pack([life.offset for life in lives], np.float64),
        "mem_size": _pack([b.size for b in blocks], np.float64),
        "mem_reserved": _pack([b.reserved for b in blocks], np.float64),
        "mem_page": _pack([PAGES.index(b.page) if b.page in PAGES else 0 for b in blocks], np.int32),
        "mem_allocated": _pack([b.allocated for b in blocks], np.float64),
        "mem_freed": _pack([opt(b.freed) for b in blocks], np.float64),
        "mem_free_called": _pack([opt(b.free_called) for b in blocks], np.float64),
        "mem_kind": _pack([BLOCK_KINDS.index(life.kind) for life in lives], np.int32),
        "times": _pack(change_times(ix), np.float64),
    }
    a = activity(ix)
    end = max(1, ix.t_end)
    meta = {
        "t_start": min(ix.t_start, end - 1),
        "t_end": end,
        "n_tasks": n,
        "n_calls": len(calls),
        "n_callbacks": len(cbs),
        "n_blocks": len(blocks),
        "rows": {"logical": [r[:3] for r in rows_l], "physical": [r[:3] for r in rows_p]},
        "ticks": {"logical": [tick_label(_Row(r)) for r in rows_l], "physical": [tick_label(_Row(r)) for r in rows_p]},
        "strings": strings.items,
        "kinds": kinds.items,
        "engines": engines.items,
        "streams": streams,
        "devices": devices,
        "block_labels": [[life.label, life.policy, life.owner] for life in lives],
        "args": "\n".join(map(str, map(attrgetter("args"), calls))),  # repr: no newlines
        "title": i18n.text(
            "total {} · copy {} · compute {} · overlap {}",
            fmt_time(a.total),
            fmt_time(a.copy),
            fmt_time(a.compute),
            fmt_time(a.overlap),
        ),
        "palette": style.palette(),
    }
    return meta, buffers


class _Row:
    __slots__ = ("tick", "label")

    def __init__(self, r):
        self.label, self.tick = r[0], r[2]


def _pack(values, dtype) -> bytes:
    return np.asarray(values, dtype=dtype).astype(np.dtype(dtype).newbyteorder("<"), copy=False).tobytes()
