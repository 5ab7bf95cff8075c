"""Plain-text summaries of each view: the same words for the same log, on every run.

A notebook cell that prints one of these is checked word for word by nbval, so the text
holds only virtual times, sizes, counts and names: no addresses, ids of Python objects
or wall-clock values.
"""

from __future__ import annotations

from sandbox import i18n
from sandbox.viz.index import build_index
from sandbox.viz.memory import memory_map, peak_reserved
from sandbox.viz.queues import stream_queues
from sandbox.viz.timeline import HOST_CALLBACK, LOGICAL, activity, timeline, union
from sandbox.viz.units import fmt_bytes, fmt_percent, fmt_size, fmt_time


def _plural(n: int, word: str) -> str:
    """ "1 task", "3 tasks"; in Chinese the catalogue's "{} task" (no plural, a measure word)."""
    if i18n.language() == "zh":
        return i18n.text("{} " + word, n)
    return f"{n} {word}" + ("" if n == 1 else "s")


_ = i18n.text  # the summaries' texts: str.format templates the catalogue translates whole


def timeline_summary(log, view: str = LOGICAL) -> str:
    """Per row: how many bars and how long busy; then the copy/compute overlap figures."""
    ix = build_index(log)
    tl = timeline(ix, view)
    a = activity(ix)
    lines = [
        _(
            "Timeline ({} view): {}, {}, ends at {}",
            i18n.label(view),
            _plural(len(ix.tasks), "task"),
            _plural(len(ix.calls), "API call"),
            fmt_time(tl.t_end),
        ),
        _totals(a),
    ]
    per_row: dict[int, list] = {}
    callbacks: dict[int, int] = {}
    for b in tl.bars:
        if b.kind == HOST_CALLBACK:
            callbacks[b.row] = callbacks.get(b.row, 0) + 1
        if b.kind not in ("blocked", HOST_CALLBACK):
            per_row.setdefault(b.row, []).append((b.start, b.end))
    labels = [i18n.label(r.label) for r in tl.rows]
    width = max(map(len, labels), default=0)
    for i, r in enumerate(tl.rows):
        spans = per_row.get(i, [])
        busy = sum(e - s for s, e in union(spans))
        what = "call" if r.key[0] == "host" else "task"
        cbs = f", {_plural(callbacks[i], 'callback')}" if i in callbacks else ""
        lines.append(f"  {labels[i]:<{width}}  {_plural(len(spans), what):>10}  {_('busy {}', fmt_time(busy))}{cbs}")
    for arrow in tl.arrows:
        lines.append(
            _(
                "  {}: {} task {} -> {} task {} at {}",
                i18n.label(ix.event_label(arrow.event)),
                labels[arrow.src_row],
                arrow.record_task,
                labels[arrow.dst_row],
                arrow.wait_task,
                fmt_time(arrow.dst_t),
            )
        )
    return "\n".join(lines)


def _totals(a) -> str:
    return _(
        "total {}, copy {}, compute {}, overlap {}, host blocked {}",
        fmt_time(a.total),
        fmt_time(a.copy),
        fmt_time(a.compute),
        fmt_time(a.overlap),
        fmt_time(a.blocked),
    )


def memory_summary(log, t: int) -> str:
    """Per device: used/total as aclrtGetMemInfo reports, free extents, then each block."""
    mm = memory_map(log, t)
    lines = [_("Device memory at {}", fmt_time(t))]
    for d in mm.devices:
        lines.append(
            _(
                "NPU {}: used {} of {} (get_mem_info free {}, total {}), {}, largest free {}, {}, fragmentation {}",
                d.device,
                fmt_bytes(d.used),
                fmt_bytes(d.total),
                d.free,
                d.total,
                _plural(sum(b.kind == "block" for b in d.blocks), "block"),
                fmt_bytes(d.largest_free),
                _plural(d.holes, "free extent"),
                fmt_percent(d.fragmentation),
            )
        )
        for b in d.blocks:
            lines.append("  " + _block_line(b, with_offset=True))
    lines.append(_("Host pinned: {}, {}", _plural(len(mm.host), "block"), fmt_bytes(mm.host_bytes)))
    for b in mm.host:
        lines.append("  " + _block_line(b, with_offset=False))
    return "\n".join(lines)


def _block_line(b, with_offset: bool) -> str:
    where = _(" at +{}", fmt_size(b.offset)) if with_offset else ""
    extra = [] if b.kind != "block" else [i18n.label(b.policy)]
    if b.reserved != b.size:
        extra.append(_("reserved {}", fmt_size(b.reserved)))
    if b.owner:
        extra.append(_("owned by {}", i18n.label(b.owner)))
    if b.pending_free:
        extra.append(_("free pending"))
    tail = (_(", ") + _(", ").join(extra)) if extra else ""
    return _("{}: {}{}, {} pages{}", i18n.label(b.label), fmt_size(b.size), where, i18n.label(b.page), tail)


def queues_summary(log, t: int) -> str:
    """Per stream: finished count, the running task, then each waiting task and why."""
    q = stream_queues(log, t)
    lines = [_("Stream queues at {}", fmt_time(t))]
    for s in q.streams:
        run = ", ".join(_("task {} {}", e.task, e.name) for e in s.running) or _("nothing")
        failed = _(" ({} failed)", s.failed) if s.failed else ""
        lines.append(
            _(
                "{}: running {}; {} waiting; {} finished{}",
                i18n.label(s.label),
                run,
                len(s.waiting),
                s.finished,
                failed,
            )
        )
        for e in s.waiting:
            lines.append(
                _(
                    "  task {} {} waits: {} ({})",
                    e.task,
                    e.name,
                    i18n.label(e.reason),
                    i18n.label(e.why),
                )
            )
    return "\n".join(lines)


def trace_summary(log) -> str:
    """What the log holds: machine, host threads, streams, tasks, memory, errors."""
    ix = build_index(log)
    a = activity(ix)
    m = ix.machine
    head = (
        _(
            "{} ({}), {}, {} AI cores, {} each",
            m.profile,
            m.soc_name,
            _plural(m.device_count, "device"),
            m.ai_cores,
            fmt_bytes(m.memory_bytes),
        )
        if m
        else _("machine not described in the log")
    )
    kinds: dict[str, int] = {}
    for t in ix.tasks.values():
        kinds[t.kind] = kinds.get(t.kind, 0) + 1
    by_kind = _(", ").join(f"{n} {k}" for k, n in sorted(kinds.items())) or _("none")
    peak = peak_reserved(ix)
    lines = [
        head,
        _(", ").join(
            (
                _plural(len(ix.threads), "host thread"),
                _plural(len(ix.calls), "API call"),
                _plural(len(ix.streams), "stream"),
                _plural(len(ix.events), "event"),
            )
        ),
        _("tasks: {}", by_kind),
        _totals(a),
        _("peak device memory {}, {}", fmt_bytes(peak), _plural(len(ix.blocks), "allocation")),
        _plural(len(ix.errors), "error") + (_(", ") + _plural(len(ix.hazards), "hazard") if ix.hazards else ""),
    ]
    for e in ix.errors:  # the runtime's own message stays as the runtime prints it
        lines.append(f"  {fmt_time(e.t)} {e.api}: {e.name} ({e.code}) {e.message}")
    for h in ix.hazards:
        lines.append(_("  {} hazard {}: {}", fmt_time(h.t), h.kind, i18n.report_text(h.message)))
    for leak in ix.leaks:
        lines.append(
            _("  {} leak report ({}): {} still held", fmt_time(leak.t), leak.when, _plural(len(leak.items), "item"))
        )
    return "\n".join(lines)
