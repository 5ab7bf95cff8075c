"""Chrome Trace Event JSON in the layout of the Ascend profiler (msprof) timeline.

One host process with a row per host thread (its API calls), one "Ascend Hardware"
process per device with a "Stream N" row per stream and an "Engine: ..." row per engine
lane, flow arrows from each API call to the tasks it submitted, and memory counters.
The file opens in Perfetto (ui.perfetto.dev) and chrome://tracing.  Times are virtual:
``ts``/``dur`` are microseconds with nanosecond decimals, starting at 0.

Notes are instants on their thread's row; the profiling calls' (``Note.kind``, core/features/profiling.py)
are instants of that category (msproftx marks, step timestamps), and an msproftx range is an async
``b``/``e`` pair on the row of the thread that closed it (async events may overlap, slices may not); an
mstx mark or range (core/features/mstx.py: a range on the row of the thread that started it) names its
domain in ``args``.

``window=(t0, t1)`` keeps what lies wholly inside [t0, t1]: tasks that started and ended in it, API
calls and callbacks that began and returned in it, instants and ranges in it, memory counters from
t0 (what was allocated before counts from t0).  ``devices`` keeps those devices' rows and tasks only.
Without them (every existing caller) the output is the whole log's, as it always was.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import numbers
from dataclasses import replace
from operator import add, attrgetter, itemgetter, mod

import numpy as np

from sandbox.viz.index import Index, build_index
from sandbox.viz.timeline import engine_lanes

HOST_SORT = 7  # msprof's sort index for the CANN (host API) layer
HARDWARE_SORT = 14  # msprof's sort index for the Ascend Hardware layer
ENGINE_TID = 10_000  # engine lane rows come after every stream row
CALLBACK_TID = 1_000_000  # + host tid: the row of callbacks run on that thread
FLOW_CAT = "HostToDevice"  # the msprof flow category
CATEGORY = {
    "kernel": "kernel",
    "memcpy": "memcpy",
    "memset": "memset",
    "reduce": "reduce",
    "random_num": "random_num",
    "event_record": "event_record",
    "event_wait": "event_wait",
    "event_reset": "event_record",
    "notify_record": "event_record",
    "notify_wait": "event_wait",
    "value_write": "event_record",
    "value_wait": "event_wait",
    "callback": "callback",
    "graph": "graph",
}
TASK_TYPE = {
    "memcpy": "MEMCPY_ASYNC",
    "memset": "MEMSET",
    "reduce": "REDUCE_ASYNC",
    "random_num": "RANDOM_NUM",
    "event_record": "EVENT_RECORD",
    "event_wait": "EVENT_WAIT",
    "event_reset": "EVENT_RESET",
    "notify_record": "NOTIFY_RECORD",
    "notify_wait": "NOTIFY_WAIT",
    "value_write": "MEM_WRITE_VALUE",
    "value_wait": "MEM_WAIT_VALUE",
    "callback": "HOST_FUNC",
    "graph": "MODEL_EXECUTE",
}
DIRECTION = {"DMA H2D": "host to device", "DMA D2H": "device to host", "DMA D2D": "device to device"}
MAX_SAFE_INT = 2**53  # larger ints are written as strings (JavaScript viewers round them)


def windowed(ix: Index, window: tuple[int, int], devices=None) -> Index:
    """The part of an index a window [t0, t1] (and ``devices``, if given) keeps: see the module docstring."""
    t0, t1 = window
    keep = set(devices) if devices is not None else None

    def here(device: int) -> bool:
        return keep is None or device < 0 or device in keep

    def clip(b):
        freed = b.freed if b.freed is not None and b.freed <= t1 else None
        return replace(b, allocated=max(b.allocated, t0), freed=freed)

    def alive(b) -> bool:
        return here(b.device) and b.allocated <= t1 and (b.freed is None or b.freed > t0)

    return replace(
        ix,
        spaces={d: replace(s, t=max(s.t, t0)) for d, s in ix.spaces.items() if here(d) and s.t <= t1},
        streams={h: s for h, s in ix.streams.items() if here(s.device)},
        tasks={
            n: t
            for n, t in ix.tasks.items()
            if here(t.device) and t.start is not None and t.end is not None and t0 <= t.start and t.end <= t1
        },
        calls=[c for c in ix.calls if t0 <= c.start and c.end <= t1],
        blocks=[clip(b) for b in ix.blocks if alive(b)],
        pool_blocks=[clip(b) for b in ix.pool_blocks if alive(b)],
        callbacks=[c for c in ix.callbacks if t0 <= c.start and c.end <= t1],
        hazards=[h for h in ix.hazards if t0 <= h.t <= t1],
        leaks=[r for r in ix.leaks if t0 <= r.t <= t1],
        errors=[e for e in ix.errors if t0 <= e.t <= t1],
        notes=[n for n in ix.notes if t0 <= (n.t if n.began is None else n.began) and n.t <= t1],
        t_start=t0,
        t_end=t1,
        memo={},
    )


def _index(log, window, devices) -> Index:
    ix = build_index(log)
    return ix if window is None else windowed(ix, window, devices)


def to_chrome_trace(log, window=None, devices=None) -> dict:
    """The trace as a dict: ``{"traceEvents": [...], "displayTimeUnit": "ns", ...}``."""
    ix = _index(log, window, devices)
    meta: list[dict] = []
    events: list[dict] = []
    host_pid = _host_pids(ix)
    dev_base = 100
    while dev_base <= max(host_pid.values(), default=0):
        dev_base += 100

    _host_rows(ix, host_pid, meta)
    stream_tid = _device_rows(ix, dev_base, meta)
    task_slice = _task_slices(ix, dev_base, stream_tid, events)
    _engine_slices(ix, dev_base, meta, events)
    _api_slices(ix, host_pid, task_slice, events)
    _callbacks(ix, host_pid, meta, events)
    _instants(ix, host_pid, events)
    _counters(ix, host_pid, dev_base, events, window[0] if window else 0)

    order = {"X": 0, "s": 1, "f": 2, "i": 3, "C": 4}
    keys = [(e["ts"], order.get(e["ph"], 9), e["pid"], e["tid"], n) for n, e in enumerate(events)]
    keys.sort()
    events = [events[k[4]] for k in keys]
    other = {"generator": "npu-runtime-sandbox", "clock": "virtual time, ns"}
    if ix.machine:
        other.update(profile=ix.machine.profile, soc=ix.machine.soc_name)
    return {"traceEvents": meta + events, "displayTimeUnit": "ns", "otherData": other}


def trace_json(log, window=None, devices=None) -> str:
    """The trace as JSON text, one event per line, byte-identical for the same log.

    Strict JSON (no NaN or Infinity): an event that still holds a value JSON cannot
    represent is written in its plain form (see ``_plain``) instead of failing.  The hot
    events (task and engine slices, API calls, flow arrows) are written from templates and
    put in order by one sort on precomputed keys: the same text ``to_chrome_trace`` makes
    dumped event by event (``dict_json``), without a dict per event."""
    return "".join(_fast_parts(log, window, devices))


def _fast_parts(log, window=None, devices=None) -> list[str]:
    ix = _index(log, window, devices)
    encode = _encoder()
    with _gc_paused():
        events, doc = _fast_events(ix, encode, window[0] if window else 0)
        return _parts(events, doc, encode)


@contextlib.contextmanager
def _gc_paused():
    """The cycle collector off while the events are made: they make no cycles, but the hundred
    thousand tuples a 100k-task trace keeps (task rows, template keys) can start a full
    collection, which walks every object of the log and costs a fifth of the export."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def dict_json(log, window=None, devices=None) -> str:
    """``trace_json`` the plain way: ``to_chrome_trace`` dumped event by event."""
    doc = to_chrome_trace(log, window, devices)
    encode = _encoder()
    return "".join(_parts(doc["traceEvents"], doc, encode))


def _parts(events, doc, encode) -> list[str]:
    """The document's text in pieces (joined, or written one after the other: the events alone
    are tens of MB, and a piece less is a copy less)."""

    def dump(o):
        try:
            return encode(o)
        except (TypeError, ValueError):
            return json.dumps(_strict(o), separators=(",", ":"), ensure_ascii=True, allow_nan=False)

    try:
        body = ",\n".join(events)
    except TypeError:  # some events are still dicts
        body = ",\n".join([e if type(e) is str else dump(e) for e in events])
    rest = "".join(f',\n"{k}":{dump(v)}' for k, v in doc.items() if k != "traceEvents")
    return ['{"traceEvents":[\n', body, "\n]" + rest + "}\n"]


def _encoder():
    """``json.dumps(o, separators=(",", ":"), ensure_ascii=True, allow_nan=False)`` made once:
    the C encoder dumps builds on every call, reused for the half million events of a
    100k-task trace (the same text; the plain dumps where CPython has no C encoder)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    ascii_ = getattr(json.encoder, "c_encode_basestring_ascii", None)
    if make is None or ascii_ is None:
        return lambda o: json.dumps(o, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    enc = make(None, json.JSONEncoder().default, ascii_, None, ":", ",", False, False, False)
    join = "".join
    return lambda o: join(enc(o, 0))


def export_trace(log, path, window=None, devices=None) -> str:
    """Write the trace of ``log`` to ``path`` (open it in ui.perfetto.dev or
    chrome://tracing); returns the path as a string.  ``window``, ``devices``: see the module docstring.

    The text of ``trace_json``, written in pieces of a few thousand events: the whole text of a
    100k-task trace (70 MB) made at once, then encoded at once, costs twice as much."""
    ix = _index(log, window, devices)
    encode = _encoder()
    with _gc_paused():
        events, doc = _fast_events(ix, encode, window[0] if window else 0)
    head, _, tail = _parts([], doc, encode)
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write(head)
        for k in range(0, len(events), _CHUNK):
            f.write(",\n".join(events[k : k + _CHUNK]) + (",\n" if k + _CHUNK < len(events) else ""))
        f.write(tail)
    return str(path)


_CHUNK = 8192  # events per write


def _us(ns: int) -> float:
    return ns / 1000


def _host_pids(ix) -> dict[int, int]:
    pids = {th.pid for th in ix.threads.values()} | set(ix.processes)
    return {p: p for p in sorted(pids)} or {1: 1}


def _host_rows(ix, host_pid, meta) -> None:
    several = len(host_pid) > 1
    for pid in host_pid:
        name = ix.processes.get(pid, "")
        title = f"Host process {pid} (CANN API)" if several else "Host (CANN API)"
        if name:
            title += f" {name}"
        meta += _process_meta(pid, title, "CPU", HOST_SORT)
    for tid in sorted(ix.threads):
        th = ix.threads[tid]
        label = f"Thread {tid}" + (f" ({th.name})" if th.name else "")
        meta += _thread_meta(host_pid[th.pid], tid, label, tid)


def _device_rows(ix, dev_base, meta) -> dict[int, int]:
    stream_tid = {}
    for d in ix.devices:
        meta += _process_meta(dev_base + d, "Ascend Hardware", f"NPU {d}", HARDWARE_SORT)
    named = set()
    used = {t.stream for t in ix.tasks.values()}
    for s in sorted(ix.streams.values(), key=lambda s: (s.device, s.stream_id, s.stream)):
        tid = 1 + s.stream_id  # tid 0 stays the process-level row
        stream_tid[s.stream] = tid
        if s.stream not in used:  # a stream that never ran a task gets no row
            continue
        if (s.device, tid) not in named:
            named.add((s.device, tid))
            meta += _thread_meta(dev_base + s.device, tid, f"Stream {s.stream_id}", s.stream_id)
    return stream_tid


def _task_slices(ix, dev_base, stream_tid, events) -> dict[int, tuple[int, int, int, int]]:
    """X slices of tasks on their stream rows; returns task -> (pid, tid, start, end)."""
    where = {}
    for t in ix.tasks.values():
        if t.start is None:
            continue
        end = t.end if t.end is not None else max(t.start, ix.t_end)
        pid, tid = dev_base + t.device, stream_tid[t.stream]
        where[t.task] = (pid, tid, t.start, end)
        events.append(
            {
                "ph": "X",
                "pid": pid,
                "tid": tid,
                "ts": _us(t.start),
                "dur": _us(end - t.start),
                "name": str(t.name),
                "cat": CATEGORY.get(t.kind, t.kind),
                "args": _task_args(ix, t),
            }
        )
    return where


def _task_args(ix, t) -> dict:
    s = ix.streams[t.stream]
    args = {
        "Task Type": _task_type(t),
        "Stream Id": s.stream_id,
        "Task Id": t.task,
        "stream": t.stream,
        "engine": t.engine or "none",
    }
    if t.kind == "kernel":
        args["Block Dim"] = t.block_dim
        args["cores"] = t.cores
    if t.nbytes:
        args["size"] = t.nbytes
    if t.engine in DIRECTION or t.engine.startswith("Peer"):
        args["direction"] = DIRECTION.get(t.engine, "device to device (peer)")
    if t.event:
        args["event"] = t.event
    if t.waits_on:
        args["waits on task"] = t.waits_on
    if t.status:
        args["status"] = t.status
    if t.end is None:
        args["unfinished"] = True
    if t.api_seq:
        args["connection_id"] = t.api_seq
    for k, v in t.detail:
        args.setdefault(str(k), _plain(v))
    return args


def _task_type(t) -> str:
    if t.kind == "kernel":
        return "AI_VECTOR_CORE" if "Vector" in t.engine else "AI_CORE"
    return TASK_TYPE.get(t.kind, t.kind.upper())


def _engine_slices(ix, dev_base, meta, events) -> None:
    ran = [t for t in ix.tasks.values() if t.start is not None and t.engine]
    lanes = engine_lanes(ix)
    order = list(ix.machine.engines) if ix.machine else []
    names = sorted({t.engine for t in ran}, key=lambda e: (order.index(e) if e in order else len(order), e))
    rank = {e: i for i, e in enumerate(names)}
    count: dict[tuple, int] = {}
    for t in ran:
        key = (t.device, t.engine)
        count[key] = max(count.get(key, 0), lanes[t.task] + 1)
    for (device, engine), n in sorted(count.items(), key=lambda kv: (kv[0][0], rank[kv[0][1]])):
        for lane in range(n):
            tid = ENGINE_TID + rank[engine] * 100 + lane
            label = f"Engine: {engine}" + (f" #{lane + 1}" if n > 1 else "")
            meta += _thread_meta(dev_base + device, tid, label, tid)
    for t in ran:
        end = t.end if t.end is not None else max(t.start, ix.t_end)
        events.append(
            {
                "ph": "X",
                "pid": dev_base + t.device,
                "tid": ENGINE_TID + rank[t.engine] * 100 + lanes[t.task],
                "ts": _us(t.start),
                "dur": _us(end - t.start),
                "name": str(t.name),
                "cat": CATEGORY.get(t.kind, t.kind),
                "args": {"Task Id": t.task, "Stream Id": ix.streams[t.stream].stream_id},
            }
        )


def _api_slices(ix, host_pid, task_slice, events) -> None:
    for c in ix.calls:
        pid = host_pid[ix.threads[c.tid].pid] if c.tid in ix.threads else host_pid.get(c.pid, 1)
        args = {str(k): _plain(v) for k, v in c.args}
        args.update(ret=c.ret, seq=c.seq)
        if c.tasks:
            args["tasks"] = list(c.tasks)
        if c.blocked_from is not None:
            args["blocked_us"] = _us(c.end - c.blocked_from)
        events.append(
            {
                "ph": "X",
                "pid": pid,
                "tid": c.tid,
                "ts": _us(c.start),
                "dur": _us(c.end - c.start),
                "name": c.name,
                "cat": "api",
                "args": args,
            }
        )
        mid = c.start + (c.end - c.start) // 2
        for n in c.tasks:
            dst = task_slice.get(n)
            if dst is None:
                continue
            d_pid, d_tid, start, end = dst
            inside = start + (1 if end - start >= 2 else 0)
            source = max(c.start, min(mid, inside))  # a sync-like copy starts mid-call
            events.append(
                {"ph": "s", "pid": pid, "tid": c.tid, "ts": _us(source), "id": n, "name": FLOW_CAT, "cat": FLOW_CAT}
            )
            events.append(
                {
                    "ph": "f",
                    "bp": "e",
                    "pid": d_pid,
                    "tid": d_tid,
                    "ts": _us(inside),
                    "id": n,
                    "name": FLOW_CAT,
                    "cat": FLOW_CAT,
                }
            )


def _callbacks(ix, host_pid, meta, events) -> None:
    """Callbacks run inside aclrtProcessReport on the subscribed thread; a row of their
    own beside the thread keeps the API call and the callback from overlapping.

    Host functions of streams reached at the same instant run at the same virtual time
    on the device's runtime thread (each keeps its own stream busy for its run).  One
    row cannot show two slices at once (Perfetto would move one to an unnamed overflow
    track), and moving one later would contradict its stream's HOST_FUNC task, so such
    a slice goes on a lane row of its own, "... callbacks #2", as the engine lanes do.
    """
    runs = sorted(ix.callbacks, key=lambda cb: (cb.tid, cb.start, cb.end, cb.task))
    lane_ends: dict[int, list[int]] = {}  # host tid -> end of the last slice on each lane
    placed = []
    for cb in runs:
        ends = lane_ends.setdefault(cb.tid, [])
        lane = next((i for i, end in enumerate(ends) if end <= cb.start), len(ends))
        if lane == len(ends):
            ends.append(cb.end)
        else:
            ends[lane] = cb.end
        placed.append((cb, lane))
    for tid_host in sorted(lane_ends):
        th = ix.threads.get(tid_host)
        pid = host_pid[th.pid] if th else min(host_pid)
        n = len(lane_ends[tid_host])
        for lane in range(n):
            tid = CALLBACK_TID * (1 + lane) + tid_host
            label = f"Thread {tid_host} callbacks" + (f" #{lane + 1}" if n > 1 else "")
            meta += _thread_meta(pid, tid, label, CALLBACK_TID + tid_host * 100 + lane)
    for cb, lane in placed:
        th = ix.threads.get(cb.tid)
        pid = host_pid[th.pid] if th else min(host_pid)
        args = {"task": cb.task, "kind": cb.kind, "block": cb.block}
        if cb.error:
            args["error"] = cb.error
        events.append(
            {
                "ph": "X",
                "pid": pid,
                "tid": CALLBACK_TID * (1 + lane) + cb.tid,
                "ts": _us(cb.start),
                "dur": _us(cb.end - cb.start),
                "name": str(cb.fn_name),
                "cat": "callback",
                "args": args,
            }
        )


def _instants(ix, host_pid, events) -> None:
    for e in ix.errors:
        if e.tid in ix.threads:
            events.append(
                {
                    "ph": "i",
                    "s": "t",
                    "pid": host_pid[ix.threads[e.tid].pid],
                    "tid": e.tid,
                    "ts": _us(e.t),
                    "name": e.name,
                    "cat": "error",
                    "args": {"api": e.api, "code": e.code, "message": e.message},
                }
            )
    for h in ix.hazards:
        if h.tid in ix.threads:
            events.append(
                {
                    "ph": "i",
                    "s": "t",
                    "pid": host_pid[ix.threads[h.tid].pid],
                    "tid": h.tid,
                    "ts": _us(h.t),
                    "name": f"hazard: {h.kind}",
                    "cat": "hazard",
                    "args": {"message": h.message, "tasks": list(h.tasks)},
                }
            )
    ranges = 0
    for n in ix.notes:
        if n.tid not in ix.threads:
            continue
        pid = host_pid[ix.threads[n.tid].pid]
        domain = {"args": {"domain": n.domain}} if n.domain else {}  # an mstx mark's or range's
        if n.began is None:
            events.append(
                {"ph": "i", "s": "t", "pid": pid, "tid": n.tid, "ts": _us(n.t), "name": n.text, "cat": n.kind or "note"}
                | domain
            )
            continue
        ranges += 1  # an async pair, numbered in log order
        for ph, at in (("b", n.began), ("e", n.t)):
            events.append(
                {"ph": ph, "pid": pid, "tid": n.tid, "ts": _us(at), "name": n.text, "cat": n.kind, "id": ranges}
                | domain
            )


def _counters(ix, host_pid, dev_base, events, floor: int = 0) -> None:
    """Allocated (requested) and reserved bytes per device, and pinned host bytes, after
    every change; one sample per distinct time, the first at ``floor`` or later."""
    changes: dict[int, list] = {}
    for b in ix.blocks:
        changes.setdefault(b.device, []).append((b.allocated, b.size, b.reserved))
        if b.freed is not None:
            changes[b.device].append((b.freed, -b.size, -b.reserved))
    host = host_pid[min(host_pid)]
    for device in sorted(changes):
        pid = dev_base + device if device >= 0 else host
        name = "Device memory" if device >= 0 else "Host pinned memory"
        start = max(ix.spaces[device].t if device in ix.spaces else 0, floor)
        samples = {start: (0, 0)}
        alloc = res = 0
        for t, ds, dr in sorted(changes[device]):
            alloc, res = alloc + ds, res + dr
            samples[t] = (alloc, res)
        for t in sorted(samples):
            a, r = samples[t]
            events.append(
                {"ph": "C", "pid": pid, "tid": 0, "ts": _us(t), "name": name, "args": {"allocated": a, "reserved": r}}
            )


def _process_meta(pid, name, label, sort) -> list[dict]:
    return [
        {"ph": "M", "pid": pid, "tid": 0, "name": "process_name", "args": {"name": name}},
        {"ph": "M", "pid": pid, "tid": 0, "name": "process_labels", "args": {"labels": label}},
        {"ph": "M", "pid": pid, "tid": 0, "name": "process_sort_index", "args": {"sort_index": sort}},
    ]


def _thread_meta(pid, tid, name, sort) -> list[dict]:
    return [
        {"ph": "M", "pid": pid, "tid": tid, "name": "thread_name", "args": {"name": name}},
        {"ph": "M", "pid": pid, "tid": tid, "name": "thread_sort_index", "args": {"sort_index": sort}},
    ]


def _plain(v, depth: int = 0):
    """A strict-JSON, deterministic form of an API argument (handles stay ints).

    Non-finite floats (a refused ``float("nan")`` timeout) become the strings "nan", "inf",
    "-inf": JSON has no such numbers, and strict parsers reject the ``NaN`` Python would
    write.  Ints beyond 2**53 become strings, which JavaScript viewers would otherwise
    round.  Anything else that is not JSON becomes its type's name (never a repr: a repr
    may hold an address, which differs run to run).
    """
    k = type(v)
    if k is int:
        return v if -MAX_SAFE_INT <= v <= MAX_SAFE_INT else str(v)
    if k is str or v is None or k is bool:
        return v
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        return str(v)
    if isinstance(v, numbers.Integral):
        n = int(v)
        return n if abs(n) <= MAX_SAFE_INT else str(n)
    if isinstance(v, numbers.Real):
        x = float(v)
        return x if math.isfinite(x) else repr(x)
    if isinstance(v, (tuple, list)) and depth < 4:
        return [_plain(x, depth + 1) for x in v[:64]]
    return type(v).__name__


def _strict(v, depth: int = 0):
    """``v`` with every value JSON can hold as it is, the rest made plain (see _plain)."""
    if isinstance(v, dict) and depth < 8:
        return {str(k): _strict(x, depth + 1) for k, x in v.items()}
    if isinstance(v, list) and depth < 8:
        return [_strict(x, depth + 1) for x in v]
    return _plain(v, 4)


# -- the same events as text ---------------------------------------------------------------
_ORDER = {"X": 0, "s": 1, "f": 2, "i": 3, "C": 4}
_US = (1000).__rtruediv__  # ns -> the float of _us


def _fast_events(ix, encode, floor: int = 0):
    """``to_chrome_trace(ix)`` as (meta and sorted events, each a dict or its JSON text; the
    document's other fields).  Each hot event is its text with its sort key beside it: ts,
    phase, pid, tid in four columns, its place among the events the last key."""
    meta: list = []
    host_pid = _host_pids(ix)
    dev_base = 100
    while dev_base <= max(host_pid.values(), default=0):
        dev_base += 100
    _host_rows(ix, host_pid, meta)
    stream_tid = _device_rows(ix, dev_base, meta)
    text: list[str] = []  # each event as its JSON text
    ts: list[float] = []
    ph: list[int] = []
    pids: list[int] = []
    tids: list[int] = []
    string = _strings(encode)
    lane_tid = _engine_rows(ix, dev_base, meta)
    where = _task_texts(ix, dev_base, stream_tid, lane_tid, string, encode, text, ts, ph, pids, tids)
    _api_texts(ix, host_pid, where, string, encode, text, ts, ph, pids, tids)
    rest: list[dict] = []
    _callbacks(ix, host_pid, meta, rest)
    _instants(ix, host_pid, rest)
    _counters(ix, host_pid, dev_base, rest, floor)
    for e in rest:
        text.append(_value_dict(e, encode))
        ts.append(e["ts"])
        ph.append(_ORDER.get(e["ph"], 9))
        pids.append(e["pid"])
        tids.append(e["tid"])
    n = len(text)
    try:  # (lexsort is stable: events with equal keys keep their order in text)
        keys: tuple[np.ndarray, ...] = (
            np.fromiter(tids, np.int64, n),
            np.fromiter(pids, np.int64, n),
            np.fromiter(ph, np.int64, n),
            np.fromiter(ts, np.float64, n),
        )
        if n and all(0 <= k.min() and k.max() < 1 << 20 for k in keys[:3]):  # phase, pid, tid in one int
            keys = ((keys[2] << 40) | (keys[1] << 20) | keys[0], keys[3])
        order = np.lexsort(keys).tolist() if n else []
    except (OverflowError, TypeError, ValueError):  # keys numpy cannot hold: Python's sort
        order = sorted(range(n), key=lambda i: (ts[i], ph[i], pids[i], tids[i], i))
    events = [_value_dict(e, encode) for e in meta]
    events += itemgetter(*order)(text) if n > 1 else [text[i] for i in order]
    other = {"generator": "npu-runtime-sandbox", "clock": "virtual time, ns"}
    if ix.machine:
        other.update(profile=ix.machine.profile, soc=ix.machine.soc_name)
    return events, {"traceEvents": None, "displayTimeUnit": "ns", "otherData": other}


class _Strings(dict):
    """str(value) -> its JSON text, made once per distinct value."""

    def __init__(self, encode):
        super().__init__()
        self.encode = encode

    def __missing__(self, value):
        out = self[value] = self.encode(str(value))
        return out


def _strings(encode):
    return _Strings(encode)


def _value(v, encode) -> str:
    """The JSON text of ``_plain(v)``."""
    if type(v) is int and -MAX_SAFE_INT <= v <= MAX_SAFE_INT:
        return str(v)
    p = _plain(v)
    try:
        return encode(p)
    except (TypeError, ValueError):
        return json.dumps(_strict(p), separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def _int(v) -> str:
    """An int field as the encoder writes it (other types: their JSON text)."""
    if type(v) is int:
        return str(v)
    try:
        return json.dumps(v, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError):
        return json.dumps(_strict(v), separators=(",", ":"), ensure_ascii=True, allow_nan=False)


_TASK_KEY = attrgetter("name", "kind", "engine", "device", "stream", "block_dim", "cores", "nbytes", "event", "status")


def _task_texts(ix, dev_base, stream_tid, lane_tid, string, encode, text, ts, ph, pids, tids):
    """Task slices: one template per distinct (name, kind, engine, stream, sizes, status,
    detail ...), its holes the row, the times and the task's own numbers; and in the same
    loop each task's slice again on its engine lane (``lane_tid``: task -> the lane's tid),
    kept apart and put after the task slices (the two never tie in the sort: their rows
    differ, so only the order within each counts)."""
    where = {}
    t_end = ix.t_end
    templates: dict = {}
    durations: dict = {}  # a duration's text (durations repeat)
    lane_text: list[str] = []  # the engine slices' texts and tids
    lane_tids: list[int] = []
    on_lane: list[int] = []  # where in ts and pids each engine slice's task slice is (the same ts, pid)
    add, add_ts, add_pid, add_tid = text.append, ts.append, pids.append, tids.append
    add_lane, add_lane_tid, add_on_lane = lane_text.append, lane_tids.append, on_lane.append
    first = len(text)
    for t in ix.tasks.values():
        start = t.start
        if start is None:
            continue
        end = t.end if t.end is not None else max(start, t_end)
        pid, tid = dev_base + t.device, stream_tid[t.stream]
        at = start / 1000
        at_text = repr(at)
        dur_text = durations.get(end - start)
        if dur_text is None:
            dur_text = durations[end - start] = repr((end - start) / 1000)
        where[t.task] = (pid, tid, start, end)
        waits, seq = t.waits_on, t.api_seq
        key = (_TASK_KEY(t), t.end is None, not waits, not seq, id(t.detail))
        both = templates.get(key)  # (the key holds device, stream: the row; name, kind: the lane's too)
        if both is None:
            both = templates[key] = (
                _task_template(ix, t, pid, tid, string, encode),
                _lane_template(ix, t, pid, string),
            )
        tpl, lane_tpl = both
        if waits and seq:
            add(tpl % (at_text, dur_text, t.task, waits, seq))
        elif seq:
            add(tpl % (at_text, dur_text, t.task, seq))
        elif waits:
            add(tpl % (at_text, dur_text, t.task, waits))
        else:
            add(tpl % (at_text, dur_text, t.task))
        add_ts(at)
        add_pid(pid)
        add_tid(tid)
        if not t.engine:
            continue
        lane = lane_tid[t.task]
        add_lane(lane_tpl % (lane, at_text, dur_text, t.task))
        add_lane_tid(lane)
        add_on_lane(len(ts) - 1)
    ph += [0] * (len(text) - first + len(lane_text))
    text += lane_text
    ts += map(ts.__getitem__, on_lane)
    pids += map(pids.__getitem__, on_lane)
    tids += lane_tids
    return where


def _lane_template(ix, t, pid, string) -> str:
    """The text of ``t``'s slice on its engine lane with holes for tid, ts, dur and task."""
    return (
        f'{{"ph":"X","pid":{pid},"tid":%s,"ts":%s,"dur":%s,"name":'
        + string[t.name].replace("%", "%%")
        + ',"cat":'
        + string[CATEGORY.get(t.kind, t.kind)].replace("%", "%%")
        + ',"args":{"Task Id":%s,"Stream Id":'
        + _int(ix.streams[t.stream].stream_id)
        + "}}"
    )


def _task_template(ix, t, pid, tid, string, encode) -> str:
    """The text of ``t``'s slice on its row (pid, tid) with holes (%s) for ts, dur (their texts), task,
    and the task's waits-on and connection numbers when it has them: what _task_slices makes."""

    def lit(x: str) -> str:
        return x.replace("%", "%%")

    engine = t.engine
    out = [
        f'{{"ph":"X","pid":{pid},"tid":{tid},"ts":%s,"dur":%s,"name":{lit(string[t.name])},'
        f'"cat":{lit(string[CATEGORY.get(t.kind, t.kind)])},"args":{{"Task Type":{lit(string[_task_type(t)])},'
        f'"Stream Id":{_int(ix.streams[t.stream].stream_id)},"Task Id":%s,"stream":{_int(t.stream)},'
        f'"engine":{lit(string[engine or "none"])}'
    ]
    present = 0
    if t.kind == "kernel":
        out.append(f',"Block Dim":{_int(t.block_dim)},"cores":{_int(t.cores)}')
        present |= 1
    if t.nbytes:
        out.append(f',"size":{_int(t.nbytes)}')
        present |= 2
    if engine in DIRECTION or engine.startswith("Peer"):
        out.append(f',"direction":{lit(string[DIRECTION.get(engine, "device to device (peer)")])}')
        present |= 4
    if t.event:
        out.append(f',"event":{_int(t.event)}')
        present |= 8
    if t.waits_on:
        out.append(',"waits on task":%s')
        present |= 16
    if t.status:
        out.append(f',"status":{_int(t.status)}')
        present |= 32
    if t.end is None:
        out.append(',"unfinished":true')
        present |= 64
    if t.api_seq:
        out.append(',"connection_id":%s')
        present |= 128
    if t.detail:
        out.append(lit(_detail_text(t.detail, present, encode)))
    out.append("}}")
    return "".join(out)


_PRESENT = (
    (1, ("Block Dim", "cores")),
    (2, ("size",)),
    (4, ("direction",)),
    (8, ("event",)),
    (16, ("waits on task",)),
    (32, ("status",)),
    (64, ("unfinished",)),
    (128, ("connection_id",)),
)


def _detail_text(detail, present, encode) -> str:
    keys = {"Task Type", "Stream Id", "Task Id", "stream", "engine"}
    for bit, names in _PRESENT:
        if present & bit:
            keys.update(names)
    out = []
    for k, v in detail:
        k = str(k)
        if k not in keys:
            keys.add(k)
            out.append(f",{encode(k)}:{_value(v, encode)}")
    return "".join(out)


def _engine_rows(ix, dev_base, meta) -> dict:
    """The engine lanes' rows (their meta, as ``_engine_slices`` makes them); returns task ->
    the tid of its lane, for each task that ran on an engine."""
    ran = [t for t in ix.tasks.values() if t.start is not None and t.engine]
    lanes = engine_lanes(ix)
    order = list(ix.machine.engines) if ix.machine else []
    names = sorted({t.engine for t in ran}, key=lambda e: (order.index(e) if e in order else len(order), e))
    rank = {e: i for i, e in enumerate(names)}
    # (the same rows as _engine_slices finds, from columns mapped at C speed: a 100k-task
    # trace has few distinct (device, engine, lane))
    tasks = list(map(attrgetter("task"), ran))
    engines = list(map(attrgetter("engine"), ran))
    lane_of = list(map(lanes.__getitem__, tasks))
    count: dict[tuple, int] = {}
    for device, engine, lane in set(zip(map(attrgetter("device"), ran), engines, lane_of)):
        count[device, engine] = max(count.get((device, engine), 0), lane + 1)
    for (device, engine), n in sorted(count.items(), key=lambda kv: (kv[0][0], rank[kv[0][1]])):
        for lane in range(n):
            tid = ENGINE_TID + rank[engine] * 100 + lane
            label = f"Engine: {engine}" + (f" #{lane + 1}" if n > 1 else "")
            meta += _thread_meta(dev_base + device, tid, label, tid)
    first_tid = {e: ENGINE_TID + i * 100 for e, i in rank.items()}
    return dict(zip(tasks, map(add, map(first_tid.__getitem__, engines), lane_of)))


_FIXED = {"ret", "seq", "tasks", "blocked_us"}
_API = '{"ph":"X","pid":%s,"tid":%s,"ts":%r,"dur":%s,"name":%s,"cat":"api","args":%s}'
# an arrow's tail and head, their row filled in first (then ts %r and id %s)
_FLOW_S = '{"ph":"s","pid":%s,"tid":%s,"ts":%s,"id":%s,"name":"' + FLOW_CAT + '","cat":"' + FLOW_CAT + '"}'
_FLOW_F = '{"ph":"f","bp":"e","pid":%s,"tid":%s,"ts":%s,"id":%s,"name":"' + FLOW_CAT + '","cat":"' + FLOW_CAT + '"}'
_SECOND = itemgetter(1)
_KEYS = {int, str, type(None)}  # argument types whose equal values have one text


def _api_texts(ix, host_pid, task_slice, string, encode, text, ts, ph, pids, tids) -> None:
    """API calls and their flow arrows.  Calls repeat: one template per (row, name, arguments,
    ret, duration, number of tasks), holding all but the call's ts, seq and task numbers, so
    a call costs one ``%``.  The arrows' tails, then their heads, follow the calls in ``text``,
    each formatted by one ``map`` (calls, tails and heads never tie in the sort: their phases
    differ, so only the order within each counts, and that stays the calls' order)."""
    pid_of = {tid: host_pid[th.pid] for tid, th in ix.threads.items()}
    templates: dict = {}
    shapes: dict = {}
    durations: dict = {}  # a duration's text (durations repeat)
    calls = ix.calls
    out: list[str] = []
    out_ts = list(map(_US, map(attrgetter("start"), calls)))
    out_pid = list(map(pid_of.get, map(attrgetter("tid"), calls)))  # (None: fixed below)
    for k, (c, at, pid) in enumerate(zip(calls, out_ts, out_pid)):
        tid, start, end, tasks, seq = c.tid, c.start, c.end, c.tasks, c.seq
        if pid is None:
            pid = out_pid[k] = host_pid.get(c.pid, 1)
        args, ret = c.args, c.ret
        try:  # (int, str and None values: equal ones have one text, so args alone can be the key)
            if type(ret) is int and _KEYS.issuperset(map(type, map(_SECOND, args))):
                blocked = None if c.blocked_from is None else end - c.blocked_from
                key = (pid, tid, c.name, args, ret, end - start, len(tasks), blocked)
                tpl = templates.get(key)
            else:
                key, tpl = None, None
        except TypeError:  # an argument or a ret that cannot be a key
            key, tpl = None, None
        if tpl is None:
            dur = durations.get(end - start)
            if dur is None:
                dur = durations[end - start] = repr((end - start) / 1000)
            tpl = _api_template(c, pid, dur, string, shapes, encode)
            if key is not None:
                templates[key] = tpl
        if tpl is False:  # argument names the template cannot hold: the call's dict
            out.append(_API % (pid, tid, at, durations[end - start], string[c.name], _value_dict(_api_args(c), encode)))
        else:
            out.append(tpl % ((at, seq if type(seq) is int else _int(seq)) + tuple(tasks)))
    text += out
    ts += out_ts
    ph += [0] * len(calls)
    pids += out_pid
    tids += map(attrgetter("tid"), calls)
    for phase, (e_pid, e_tid, e_ts, e_id), head in zip((1, 2), _arrows(calls, out_pid, task_slice), (_FLOW_S, _FLOW_F)):
        rows = list(zip(e_pid, e_tid))
        row_tpl = {row: head % (row[0], row[1], "%r", "%s") for row in set(rows)}  # (arrows share few rows)
        text += map(mod, map(row_tpl.__getitem__, rows), zip(e_ts, e_id))
        ts += e_ts
        ph += [phase] * len(e_ts)
        pids += e_pid
        tids += e_tid


def _arrows(calls, call_pid, task_slice) -> tuple:
    """The columns pid, tid, ts, task of the flow arrows' tails, and of their heads, in the calls' order.  The
    times are worked out in numpy columns (a 100k-task trace has 100k arrows); times numpy's
    int64 and float64 cannot hold exactly go through ``_arrows_plain``."""
    pairs = [(i, n) for i, c in enumerate(calls) if c.tasks for n in c.tasks if n in task_slice]
    if not pairs:
        return ([], [], [], []), ([], [], [], [])
    at, task = zip(*pairs)
    d_pid, d_tid, t0, t1 = zip(*map(task_slice.__getitem__, task))
    i = np.array(at, dtype=np.intp)
    start = np.array(list(map(attrgetter("start"), calls)))[i]
    end = np.array(list(map(attrgetter("end"), calls)))[i]
    t0_, t1_ = np.array(t0), np.array(t1)
    columns = (start, end, t0_, t1_)  # all ints of at most 53 bits: then numpy's sums and quotients are Python's
    if not all(x.dtype == np.int64 and -(2**53) < x.min() and x.max() < 2**53 for x in columns):
        return _arrows_plain(calls, call_pid, task_slice)
    inside = t0_ + (t1_ - t0_ >= 2)
    source = np.maximum(start, np.minimum(start + (end - start) // 2, inside))  # a sync-like copy starts mid-call
    pid = list(map(call_pid.__getitem__, at))
    tid = list(map(attrgetter("tid"), map(calls.__getitem__, at)))
    return (pid, tid, (source / 1000).tolist(), task), (d_pid, d_tid, (inside / 1000).tolist(), task)


def _arrows_plain(calls, call_pid, task_slice) -> tuple:
    """``_arrows`` one arrow at a time, in Python's ints."""
    tails: list[tuple] = []
    heads: list[tuple] = []
    for c, pid in zip(calls, call_pid):
        start, end = c.start, c.end
        mid = start + (end - start) // 2
        for n in c.tasks:
            dst = task_slice.get(n)
            if dst is None:
                continue
            d_pid, d_tid, t0, t1 = dst
            inside = t0 + (1 if t1 - t0 >= 2 else 0)
            tails.append((pid, c.tid, max(start, min(mid, inside)) / 1000, n))
            heads.append((d_pid, d_tid, inside / 1000, n))
    return tuple(map(list, zip(*tails))), tuple(map(list, zip(*heads)))


def _api_template(c, pid, dur, string, shapes, encode):
    """The text of call ``c`` with holes for its ts (%r), seq and task numbers (and nothing
    else that varies among calls of its key), or False when its argument names repeat or are
    names the call's own fields overwrite (such a call is written from its args dict)."""
    head = _api_head(c, shapes, encode)
    if head is None:
        return False

    def lit(x: str) -> str:
        return x.replace("%", "%%")

    tail = ',"tasks":[' + ",".join(["%s"] * len(c.tasks)) + "]" if c.tasks else ""
    if c.blocked_from is not None:
        tail += f',"blocked_us":{_us(c.end - c.blocked_from)!r}'
    return (
        f'{{"ph":"X","pid":{pid},"tid":{lit(str(c.tid))},"ts":%r,"dur":{dur},"name":{lit(string[c.name])},'
        f'"cat":"api","args":{lit(head)},"seq":%s{tail}}}}}'
    )


def _api_args(c) -> dict:
    args = {str(k): _plain(v) for k, v in c.args}
    args.update(ret=c.ret, seq=c.seq)
    if c.tasks:
        args["tasks"] = list(c.tasks)
    if c.blocked_from is not None:
        args["blocked_us"] = _us(c.end - c.blocked_from)
    return args


def _api_head(c, shapes, encode) -> str | None:
    """The text of a call's args up to its "seq" (which the caller adds), or None for names
    that repeat or that the call's own fields overwrite."""
    names = tuple(k for k, _ in c.args)
    shape = shapes.get(names)
    if shape is None:
        keys = [str(k) for k in names]
        plain = len(set(keys)) == len(keys) and not _FIXED.intersection(keys)
        shape = shapes[names] = [f"{encode(k)}:" for k in keys] if plain else False
    if shape is False:
        return None
    return "{" + "".join([k + _value(v, encode) + "," for k, (_, v) in zip(shape, c.args)]) + f'"ret":{_int(c.ret)}'


def _value_dict(args: dict, encode) -> str:
    try:
        return encode(args)
    except (TypeError, ValueError):
        return json.dumps(_strict(args), separators=(",", ":"), ensure_ascii=True, allow_nan=False)
