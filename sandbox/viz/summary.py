"""Plain-text summaries of each view: the same words for the same log, on every run.

A notebook cell that prints one of these is checked word for word by nbval, so the text
holds only virtual times, sizes, counts and names: no addresses, ids of Python objects
or wall-clock values.
"""

from __future__ import annotations

from sandbox.viz.index import build_index
from sandbox.viz.memory import memory_map, peak_reserved
from sandbox.viz.queues import stream_queues
from sandbox.viz.timeline import HOST_CALLBACK, LOGICAL, activity, timeline, union
from sandbox.viz.units import fmt_bytes, fmt_percent, fmt_size, fmt_time


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def timeline_summary(log, view: str = LOGICAL) -> str:
    """Per row: how many bars and how long busy; then the seed's copy/compute figures."""
    ix = build_index(log)
    tl = timeline(ix, view)
    a = activity(ix)
    lines = [
        f"Timeline ({view} view): {_plural(len(ix.tasks), 'task')}, "
        f"{_plural(len(ix.calls), 'API call')}, ends at {fmt_time(tl.t_end)}",
        f"total {fmt_time(a.total)}, copy {fmt_time(a.copy)}, "
        f"compute {fmt_time(a.compute)}, overlap {fmt_time(a.overlap)}, "
        f"host blocked {fmt_time(a.blocked)}",
    ]
    per_row: dict[int, list] = {}
    callbacks: dict[int, int] = {}
    for b in tl.bars:
        if b.kind == HOST_CALLBACK:
            callbacks[b.row] = callbacks.get(b.row, 0) + 1
        if b.kind not in ("blocked", HOST_CALLBACK):
            per_row.setdefault(b.row, []).append((b.start, b.end))
    width = max((len(r.label) for r in tl.rows), default=0)
    for i, r in enumerate(tl.rows):
        spans = per_row.get(i, [])
        busy = sum(e - s for s, e in union(spans))
        what = "call" if r.key[0] == "host" else "task"
        cbs = f", {_plural(callbacks[i], 'callback')}" if i in callbacks else ""
        lines.append(f"  {r.label:<{width}}  {_plural(len(spans), what):>10}  busy {fmt_time(busy)}{cbs}")
    for arrow in tl.arrows:
        lines.append(
            f"  {ix.event_label(arrow.event)}: {tl.rows[arrow.src_row].label} task "
            f"{arrow.record_task} -> {tl.rows[arrow.dst_row].label} task "
            f"{arrow.wait_task} at {fmt_time(arrow.dst_t)}"
        )
    return "\n".join(lines)


def memory_summary(log, t: int) -> str:
    """Per device: used/total as aclrtGetMemInfo reports, free extents, then each block."""
    mm = memory_map(log, t)
    lines = [f"Device memory at {fmt_time(t)}"]
    for d in mm.devices:
        lines.append(
            f"NPU {d.device}: used {fmt_bytes(d.used)} of {fmt_bytes(d.total)} "
            f"(get_mem_info free {d.free}, total {d.total}), "
            f"{_plural(sum(b.kind == 'block' for b in d.blocks), 'block')}, "
            f"largest free {fmt_bytes(d.largest_free)}, "
            f"{_plural(d.holes, 'free extent')}, "
            f"fragmentation {fmt_percent(d.fragmentation)}"
        )
        for b in d.blocks:
            lines.append("  " + _block_line(b, with_offset=True))
    lines.append(f"Host pinned: {_plural(len(mm.host), 'block')}, {fmt_bytes(mm.host_bytes)}")
    for b in mm.host:
        lines.append("  " + _block_line(b, with_offset=False))
    return "\n".join(lines)


def _block_line(b, with_offset: bool) -> str:
    where = f" at +{fmt_size(b.offset)}" if with_offset else ""
    extra = [] if b.kind != "block" else [b.policy]
    if b.reserved != b.size:
        extra.append(f"reserved {fmt_size(b.reserved)}")
    if b.owner:
        extra.append(f"owned by {b.owner}")
    if b.pending_free:
        extra.append("free pending")
    tail = (", " + ", ".join(extra)) if extra else ""
    return f"{b.label}: {fmt_size(b.size)}{where}, {b.page} pages{tail}"


def queues_summary(log, t: int) -> str:
    """Per stream: finished count, the running task, then each waiting task and why."""
    q = stream_queues(log, t)
    lines = [f"Stream queues at {fmt_time(t)}"]
    for s in q.streams:
        run = ", ".join(f"task {e.task} {e.name}" for e in s.running) or "nothing"
        failed = f" ({s.failed} failed)" if s.failed else ""
        lines.append(f"{s.label}: running {run}; {len(s.waiting)} waiting; {s.finished} finished{failed}")
        for e in s.waiting:
            lines.append(f"  task {e.task} {e.name} waits: {e.reason} ({e.why})")
    return "\n".join(lines)


def trace_summary(log) -> str:
    """What the log holds: machine, host threads, streams, tasks, memory, errors."""
    ix = build_index(log)
    a = activity(ix)
    m = ix.machine
    head = (
        f"{m.profile} ({m.soc_name}), {_plural(m.device_count, 'device')}, "
        f"{m.ai_cores} AI cores, {fmt_bytes(m.memory_bytes)} each"
        if m
        else "machine not described in the log"
    )
    kinds: dict[str, int] = {}
    for t in ix.tasks.values():
        kinds[t.kind] = kinds.get(t.kind, 0) + 1
    by_kind = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none"
    peak = peak_reserved(ix)
    lines = [
        head,
        f"{_plural(len(ix.threads), 'host thread')}, {_plural(len(ix.calls), 'API call')}, "
        f"{_plural(len(ix.streams), 'stream')}, {_plural(len(ix.events), 'event')}",
        f"tasks: {by_kind}",
        f"total {fmt_time(a.total)}, copy {fmt_time(a.copy)}, "
        f"compute {fmt_time(a.compute)}, overlap {fmt_time(a.overlap)}, "
        f"host blocked {fmt_time(a.blocked)}",
        f"peak device memory {fmt_bytes(peak)}, {_plural(len(ix.blocks), 'allocation')}",
        _plural(len(ix.errors), "error") + (f", {_plural(len(ix.hazards), 'hazard')}" if ix.hazards else ""),
    ]
    for e in ix.errors:
        lines.append(f"  {fmt_time(e.t)} {e.api}: {e.name} ({e.code}) {e.message}")
    for h in ix.hazards:
        lines.append(f"  {fmt_time(h.t)} hazard {h.kind}: {h.message}")
    for leak in ix.leaks:
        lines.append(f"  {fmt_time(leak.t)} leak report ({leak.when}): {_plural(len(leak.items), 'item')} still held")
    return "\n".join(lines)
