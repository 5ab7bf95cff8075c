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

import weakref

import numpy as np

from sandbox.viz import style
from sandbox.viz.index import build_index
from sandbox.viz.memory import lifetimes, opened_devices, window
from sandbox.viz.plot_gantt import tick_label
from sandbox.viz.timeline import activity, assign_lanes, stream_label
from sandbox.viz.units import fmt_time

NAN = float("nan")
BLOCK_KINDS = ("block", "pool segment", "pool block")
PAGES = ("huge", "normal", "huge1g", "pinned")

_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def change_times(ix) -> list[int]:
    """Moments at which a panel changes: task submitted/started/finished, memory
    allocated/freed.  The step buttons and the slider's keys move between these."""
    ix = build_index(ix)
    times = {0, ix.t_end}
    for t in ix.tasks.values():
        times.add(t.submit)
        if t.start is not None:
            times.add(t.start)
        if t.end is not None:
            times.add(t.end)
    for b in ix.blocks:
        times.add(b.allocated)
        for x in (b.freed, b.free_called):
            if x is not None:
                times.add(x)
    for b in ix.pool_blocks:
        times.add(b.allocated)
        for x in (b.freed, b.free_called):
            if x is not None:
                times.add(x)
    return sorted(times)


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

    Kept beside the log until it grows, like the index."""
    try:
        size = len(log)
        hit = _CACHE.get(log)
    except TypeError:
        size, hit = None, None
    if hit is not None and hit[0] == size:
        return hit[1]
    out = _columns(build_index(log))
    if size is not None:
        try:
            _CACHE[log] = (size, out)
        except TypeError:
            pass
    return out


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
        short = (f"pid {th.pid} thread {tid}" if several else f"thread {tid}") + (
            f" · {th.name}" if th.name else "")
        for rows, at in ((rows_l, at_l), (rows_p, at_p)):
            row(rows, at, ("host", th.pid, tid), f"{who} {tid}{name}",
                f"Host process {th.pid}" if several else "Host", short)
    for cb in ix.callbacks:
        th = ix.threads.get(cb.tid)
        for rows, at in ((rows_l, at_l), (rows_p, at_p)):
            row(rows, at, ("host", th.pid if th else 1, cb.tid), f"Host thread {cb.tid}", "Host")

    # streams, in the Gantt's order
    used = {t.stream for t in ix.tasks.values()}
    order = sorted(ix.streams.values(), key=lambda s: (s.device, s.stream_id, s.stream))
    stream_at = {s.stream: i for i, s in enumerate(order)}
    streams = [[stream_label(s), s.device, s.stream_id, s.priority, bool(s.is_default), s.label,
                s.created, -1 if s.destroyed is None else s.destroyed, ix.stream_label(s.stream),
                s.stream in used] for s in order]
    for s in order:
        if s.stream in used:
            row(rows_l, at_l, ("stream", s.device, s.stream), stream_label(s), f"NPU {s.device}")

    # engine lanes (timeline._engine_rows)
    engine_order = list(ix.machine.engines) if ix.machine else []
    ran = [t for t in ix.tasks.values() if t.start is not None and t.engine]
    lanes = assign_lanes(ran, ix)
    counts: dict[tuple, int] = {}
    for t in ran:
        key = (t.device, t.engine)
        counts[key] = max(counts.get(key, 0), lanes[t.task] + 1)
    for device, engine in sorted(counts, key=lambda k: (k[0], engine_order.index(k[1])
                                                         if k[1] in engine_order else
                                                         len(engine_order), k[1])):
        n = counts[(device, engine)]
        for lane in range(n):
            label = f"NPU {device} {engine}" + (f" #{lane + 1}" if n > 1 else "")
            row(rows_p, at_p, ("engine", device, engine, lane), label, f"NPU {device}")

    # calls
    calls = ix.calls
    call_of: dict[int, int] = {}
    c_row, c_name, c_ret, c_seq, c_args = [], [], [], [], []
    for i, c in enumerate(calls):
        key = ("host", c.pid, c.tid)
        if key not in at_l:
            row(rows_p, at_p, key, f"Host thread {c.tid}", "Host")
        c_row.append(row(rows_l, at_l, key, f"Host thread {c.tid}", "Host"))
        c_name.append(strings.code(c.name))
        c_ret.append(c.ret)
        c_seq.append(c.seq)
        c_args.append(", ".join(f"{k}={_arg(v)}" for k, v in c.args).replace("\n", " "))
        for n in c.tasks:
            call_of[n] = i
    c_start = np.fromiter((c.start for c in calls), np.float64, len(calls))
    c_end = np.fromiter((c.end for c in calls), np.float64, len(calls))
    c_blocked = np.fromiter((NAN if c.blocked_from is None else c.blocked_from for c in calls),
                            np.float64, len(calls))

    # tasks
    tasks = list(ix.tasks.values())
    n = len(tasks)
    index_of = {t.task: i for i, t in enumerate(tasks)}
    kinds = Strings()
    engines = Strings()
    cols = {k: [] for k in ("task", "submit", "start", "end", "lrow", "prow", "kind", "ckind",
                            "name", "engine", "stream", "device", "prev", "waits", "waits_on", "nbytes",
                            "block_dim", "cores", "status", "call", "event")}
    event_label: dict[int, int] = {}
    for t in tasks:
        s = ix.streams[t.stream]
        cols["task"].append(t.task)
        cols["submit"].append(t.submit)
        cols["start"].append(NAN if t.start is None else t.start)
        cols["end"].append(NAN if t.end is None else t.end)
        cols["lrow"].append(at_l.get(("stream", s.device, s.stream), -1))
        cols["prow"].append(at_p.get(("engine", t.device, t.engine, lanes[t.task]), -1)
                            if t.task in lanes else -1)
        cols["kind"].append(kinds.code(t.kind))
        cols["ckind"].append(kinds.code(style.colour_kind(t.kind, t.engine)))
        cols["name"].append(strings.code(t.name))
        cols["engine"].append(engines.code(t.engine) if t.engine else -1)
        cols["stream"].append(stream_at[t.stream])
        cols["device"].append(t.device)
        cols["prev"].append(index_of.get(t.prev_task, -1) if t.prev_task else -1)
        cols["waits"].append(index_of.get(t.waits_on, -1) if t.waits_on else -1)
        cols["waits_on"].append(t.waits_on)
        cols["nbytes"].append(t.nbytes)
        cols["block_dim"].append(t.block_dim)
        cols["cores"].append(t.cores)
        cols["status"].append(t.status)
        cols["call"].append(call_of.get(t.task, -1))
        ev = t.event
        if ev not in event_label:
            event_label[ev] = strings.code(ix.event_label(ev)) if ev else -1
        cols["event"].append(event_label[ev])
    f64 = ("submit", "start", "end", "nbytes")

    # host callbacks
    cbs = ix.callbacks
    cb_row = [at_l[("host", ix.threads[cb.tid].pid if cb.tid in ix.threads else 1, cb.tid)]
              for cb in cbs]

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
        "call_start": c_start.tobytes(), "call_end": c_end.tobytes(),
        "call_blocked": c_blocked.tobytes(), "call_row": _pack(c_row, np.int32),
        "call_name": _pack(c_name, np.int32), "call_ret": _pack(c_ret, np.int32),
        "call_seq": _pack(c_seq, np.int32),
        "cb_start": _pack([cb.start for cb in cbs], np.float64),
        "cb_end": _pack([cb.end for cb in cbs], np.float64),
        "cb_row": _pack(cb_row, np.int32),
        "cb_name": _pack([strings.code(cb.fn_name) for cb in cbs], np.int32),
        "cb_task": _pack([index_of.get(cb.task, -1) for cb in cbs], np.int32),
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
        "t_start": min(ix.t_start, end - 1), "t_end": end, "n_tasks": n, "n_calls": len(calls),
        "n_callbacks": len(cbs), "n_blocks": len(blocks),
        "rows": {"logical": [r[:3] for r in rows_l], "physical": [r[:3] for r in rows_p]},
        "ticks": {"logical": [tick_label(_Row(r)) for r in rows_l],
                  "physical": [tick_label(_Row(r)) for r in rows_p]},
        "strings": strings.items, "kinds": kinds.items, "engines": engines.items,
        "streams": streams, "devices": devices,
        "block_labels": [[life.label, life.policy, life.owner] for life in lives],
        "args": "\n".join(c_args),
        "title": (f"total {fmt_time(a.total)} · copy {fmt_time(a.copy)} · "
                  f"compute {fmt_time(a.compute)} · overlap {fmt_time(a.overlap)}"),
        "palette": style.palette(),
    }
    return meta, buffers


class _Row:
    __slots__ = ("tick", "label")

    def __init__(self, r):
        self.label, self.tick = r[0], r[2]


def _pack(values, dtype) -> bytes:
    return np.asarray(values, dtype=dtype).astype(np.dtype(dtype).newbyteorder("<"),
                                                  copy=False).tobytes()


def _arg(v) -> str:
    return str(v) if isinstance(v, (int, float, str, bool, type(None))) else type(v).__name__
