"""Draw the Gantt chart of a Timeline with matplotlib.

Bars go out as one PolyCollection per colour, not one artist per task, and runs of bars
narrower than a few pixels that touch within a pixel are merged first: a 100k-task trace
then costs a few thousand rectangles, and nothing disappears (every bar is at least
``style.MIN_BAR_PX`` wide).  A bar wide enough keeps a one-pixel gap at its end, so two
back-to-back copies read as two.  The time axis reads absolute virtual time in the units
of the dashboard's clock ("1050.2 ms"), so the cursor's label and the axis agree.
Two options for a picture in a notebook: ``window=(t0, t1)`` draws only that stretch of
virtual time (a 20 ms start-up then does not squeeze 2 ms of copies into a sliver), and
``min_bar_px`` makes the narrowest bar wider (1 µs callbacks beside 100 µs kernels).
Figures are plain ``matplotlib.figure.Figure`` objects, so nothing auto-displays.
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Patch, PathPatch
from matplotlib.path import Path
from matplotlib.ticker import FuncFormatter, MaxNLocator

from sandbox import i18n
from sandbox.core.errors import describe
from sandbox.viz import style
from sandbox.viz.index import build_index
from sandbox.viz.timeline import LOGICAL, Timeline, activity, timeline
from sandbox.viz.units import MICRO, fmt_time

KIND = "kind"
STREAM = "stream"
BAR_HEIGHT = 0.72
BLOCKED_HEIGHT = 0.34
LABEL_LIMIT = 400  # bars; above this no text is written on bars
ARROW_LIMIT = 300  # arrows; above this they are plain lines in one collection
TICK_CHARS = 28  # longest row label on the axis; longer ones end in an ellipsis
TICK_FONT = 8
LABEL_PAD_PX = 20  # tick length and gap between the label and the axes
PLOT_RIGHT = 0.8  # the legend sits to the right of this
MERGE_PX = 4  # bars narrower than this may merge with their neighbours


def gantt_figure(
    log,
    view: str = LOGICAL,
    colour_by: str = KIND,
    t: int | None = None,
    width: float = 10.0,
    window: tuple[int, int] | None = None,
    min_bar_px: float | None = None,
    marked: Iterable[int] = (),
) -> Figure:
    """A titled Gantt chart of ``log``: the overlap figures (total, copy, compute, overlap)
    in the title, a legend, and a cursor at ``t`` if given; the tasks numbered in ``marked``
    are outlined (a grade marks the tasks of its failing criteria)."""
    return gantt_plot(log, view, colour_by, t, width, window, min_bar_px, marked)[0]


def gantt_plot(
    log,
    view: str = LOGICAL,
    colour_by: str = KIND,
    t: int | None = None,
    width: float = 10.0,
    window: tuple[int, int] | None = None,
    min_bar_px: float | None = None,
    marked: Iterable[int] = (),
):
    """``gantt_figure`` plus its cursor line (None without ``t``), for callers that move
    the cursor later without drawing the bars again."""
    ix = build_index(log)
    tl = timeline(ix, view)
    height = min(14.0, 1.0 + 0.34 * max(2, len(tl.rows)))
    fig = Figure(figsize=(width, height), dpi=style.DPI)
    left = label_margin([tick_label(r) for r in tl.rows], width)
    ax = fig.add_axes((left, 0.58 / height, PLOT_RIGHT - left, 1 - 0.9 / height))
    cursor = draw_gantt(ax, tl, colour_by=colour_by, t=t, window=window, min_bar_px=min_bar_px, marked=marked)
    a = activity(ix)
    ax.set_title(
        i18n.text(
            "Task timeline ({} view)   total {} · copy {} · compute {} · overlap {}",
            i18n.label(view),
            fmt_time(a.total),
            fmt_time(a.copy),
            fmt_time(a.compute),
            fmt_time(a.overlap),
        ),
        fontsize=9,
        loc="left",
    )
    return fig, cursor


def tick_label(row) -> str:
    """The row's axis label: its short form in the chosen language, cut to TICK_CHARS with an
    ellipsis."""
    text = i18n.label(row.tick or row.label)
    return text if len(text) <= TICK_CHARS else text[: TICK_CHARS - 1] + "\u2026"


def label_margin(labels, width: float) -> float:
    """The left edge of the axes (a fraction of the figure) that leaves room for the
    widest row label, measured in the font it is drawn in."""
    renderer = RendererAgg(10, 10, style.DPI)
    font = FontProperties(size=TICK_FONT)
    widest = max((renderer.get_text_width_height_descent(t, font, ismath=False)[0] for t in labels), default=0.0)
    return min(0.45, max(0.06, (widest + LABEL_PAD_PX) / (width * style.DPI)))


def draw_gantt(
    ax,
    tl: Timeline,
    colour_by: str = KIND,
    t: int | None = None,
    window: tuple[int, int] | None = None,
    min_bar_px: float | None = None,
    marked: Iterable[int] = (),
):
    """Draw ``tl`` into ``ax`` (only ``window`` = (t0, t1) ns of it if given), the bars of the
    tasks in ``marked`` outlined; returns the cursor line (None without ``t``) so a caller can
    move it without redrawing the bars."""
    if type(colour_by) is not str or colour_by not in (KIND, STREAM):
        raise ValueError(f"colour_by must be {KIND!r} or {STREAM!r}, not {describe(colour_by)}")
    n_rows = max(1, len(tl.rows))
    origin, t_end = tl.t_start, tl.t_end
    if window is not None:
        origin, t_end = (int(x) for x in window)
        if t_end <= origin:
            raise ValueError(f"window must be (t0, t1) with t0 < t1, not {describe(window)}")
    least = style.MIN_BAR_PX if min_bar_px is None else max(style.MIN_BAR_PX, float(min_bar_px))
    span = max(1, t_end - origin)
    pad = span * 0.02
    ax.set_xlim(origin - pad, t_end + pad)
    ax.set_ylim(n_rows - 0.5, -0.5)
    fig = ax.figure
    axis_px = max(1.0, ax.get_position().width * fig.get_figwidth() * fig.dpi)
    ns_per_px = (span + 2 * pad) / axis_px

    codes, legend = _colour_codes(tl, colour_by)
    any_failed = any_marked = False
    if tl.bars:
        bars = tl.bars
        n = len(bars)
        # float64, as matplotlib draws: exact up to 2**53 ns, and a pixel's precision beyond
        start = np.fromiter((b.start for b in bars), np.float64, n)
        end = np.fromiter((b.end for b in bars), np.float64, n)
        row = np.fromiter((b.row for b in bars), np.int64, n)
        for code, (label, colour, height) in enumerate(legend):
            mask = codes == code
            if not mask.any():
                continue
            x0, x1, r = merge_bars(row[mask], start[mask], end[mask], ns_per_px)
            wide = (x1 - x0) > 3 * style.GAP_PX * ns_per_px + ns_per_px
            x1 = np.where(wide, x1 - style.GAP_PX * ns_per_px, x1)
            x1 = np.maximum(x1, x0 + least * ns_per_px)
            verts = _rectangles(x0, x1, r, height)
            ax.add_collection(PolyCollection(verts, facecolors=colour, edgecolors="none", linewidths=0, label=label))
        failed = np.fromiter((b.status != 0 for b in bars), bool, n)
        any_failed = bool(failed.any())
        if any_failed:  # hatched over their colour: a failed or discarded task is not a finished one
            x0, x1 = start[failed], np.maximum(end[failed], start[failed] + least * ns_per_px)
            verts = _rectangles(x0, x1, row[failed], BAR_HEIGHT)
            ax.add_collection(
                PolyCollection(
                    verts, facecolors="none", edgecolors=style.FAILED, hatch="////", linewidths=0.8, zorder=3
                )
            )
        any_marked = _outline(ax, bars, start, end, row, frozenset(marked), least * ns_per_px)
        if n <= LABEL_LIMIT:
            _bar_labels(ax, tl, ns_per_px)
    _arrows(ax, tl)
    _axes(ax, tl, origin, span, t_end)
    present = sorted(set(codes.tolist())) if len(codes) else []
    handles = [Patch(facecolor=legend[c][1], label=legend[c][0]) for c in present]
    if any_failed:
        handles.append(
            Patch(facecolor="none", edgecolor=style.FAILED, hatch="////", label=i18n.text("failed or discarded"))
        )
    if any_marked:
        handles.append(
            Patch(facecolor="none", edgecolor=style.MARKED, linewidth=2.2, label=i18n.text("named by a ✘ criterion"))
        )
    if tl.arrows:
        handles.append(Patch(facecolor="none", edgecolor="#333333", label=i18n.text("event record → wait")))
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    if t is None:
        return None
    return ax.axvline(t, color=style.CURSOR, lw=1.2, ls=(0, (4, 2)), zorder=5)


def _outline(ax, bars, start, end, row, marked: frozenset, least: float) -> bool:
    """Outline the bars of the ``marked`` tasks; whether there were any."""
    if not marked:
        return False
    hit = np.fromiter((b.task in marked and b.task != 0 for b in bars), bool, len(bars))
    if not hit.any():
        return False
    x0, x1 = start[hit], np.maximum(end[hit], start[hit] + least)
    verts = _rectangles(x0, x1, row[hit], BAR_HEIGHT + 0.12)
    ax.add_collection(PolyCollection(verts, facecolors="none", edgecolors=style.MARKED, linewidths=2.2, zorder=4))
    return True


def merge_bars(row, start, end, tol):
    """Merge bars of one colour on one row whose gap is under ``tol`` ns (one pixel),
    when both are narrower than ``MERGE_PX`` pixels: wider bars stay apart, so that
    back-to-back tasks keep their own bars and the gap drawn between them.

    Rows are kept apart by offsetting each row's times far beyond the trace, so one
    running maximum over the sorted bars finds every merge in a single vectorised pass.
    """
    if len(start) == 0:
        return start, end, row
    order = np.lexsort((start, row))
    row, start, end = row[order], start[order], end[order]
    offset = float(max(end.max(), 1) * 4 + tol * 4 + 1)  # float: rows × offset may pass int64
    s = start + row * offset
    cm = np.maximum.accumulate(end + row * offset)
    narrow = (end - start) < MERGE_PX * tol
    brk = np.empty(len(s), dtype=bool)
    brk[0] = True
    brk[1:] = (s[1:] > cm[:-1] + tol) | ~narrow[1:] | ~narrow[:-1]
    first = np.flatnonzero(brk)
    last = np.append(first[1:] - 1, len(s) - 1)
    return start[first], cm[last] - row[first] * offset, row[first]


def _rectangles(x0, x1, r, height):
    y0 = r - height / 2
    y1 = r + height / 2
    verts = np.empty((len(x0), 4, 2), dtype=float)
    verts[:, 0, 0] = x0
    verts[:, 1, 0] = x0
    verts[:, 2, 0] = x1
    verts[:, 3, 0] = x1
    verts[:, 0, 1] = y0
    verts[:, 1, 1] = y1
    verts[:, 2, 1] = y1
    verts[:, 3, 1] = y0
    return verts


def _colour_codes(tl: Timeline, colour_by: str):
    """One small int per bar naming its legend entry (label, colour, bar height)."""
    legend: list[tuple[str, str, float]] = []
    index: dict = {}

    def code_of(key, label, colour, height):
        c = index.get(key)
        if c is None:
            c = index[key] = len(legend)
            legend.append((i18n.label(label), colour, height))
        return c

    ranks = {h: i for i, (h, _label) in enumerate(tl.streams)}
    stream_names = dict(tl.streams)
    for kind in ("api", "blocked"):  # fixed legend order: host first, then the rest
        code_of(
            ("k", kind),
            style.KIND_LABELS[kind],
            style.kind_colour(kind),
            BLOCKED_HEIGHT if kind == "blocked" else BAR_HEIGHT,
        )
    if colour_by == STREAM:
        for h, label in tl.streams:
            code_of(("s", h), label, style.stream_colour(ranks[h]), BAR_HEIGHT)
    else:
        for kind in style.KIND_COLOURS:
            code_of(
                ("k", style.KIND_LABELS.get(kind, kind)),
                style.KIND_LABELS.get(kind, kind),
                style.kind_colour(kind),
                BAR_HEIGHT,
            )
    by_key: dict[tuple, int] = {}

    def code(key) -> int:
        kind, engine, direction, stream, task = key
        h = BLOCKED_HEIGHT if kind == "blocked" else BAR_HEIGHT
        if colour_by == STREAM and task:
            rank = ranks.setdefault(stream, len(ranks))
            label = stream_names.get(stream, f"stream {stream}")
            return code_of(("s", stream), label, style.stream_colour(rank), h)
        ck = style.colour_kind(kind, engine, direction)
        label = style.KIND_LABELS.get(ck, ck)
        return code_of(("k", label), label, style.kind_colour(ck), h)

    # one look-up per distinct (kind, engine, stream, has task), not one per bar
    by_stream = colour_by == STREAM
    keys = ((b.kind, b.engine, b.direction, b.stream if by_stream else 0, bool(b.task)) for b in tl.bars)
    codes = np.fromiter(
        (by_key[k] if k in by_key else by_key.setdefault(k, code(k)) for k in keys), np.int64, len(tl.bars)
    )
    return codes, legend


def _bar_labels(ax, tl: Timeline, ns_per_px: float) -> None:
    """Names on bars wide enough to hold them, centred on the part in view (a label
    placed millions of pixels away overflows the font rasteriser)."""
    lo, hi = ax.get_xlim()
    for b in tl.bars:
        if b.kind in ("blocked", "api"):
            continue
        start, end = max(b.start, lo), min(b.end, hi)
        name = style.bar_label(b.kind, b.name, b.engine, b.direction)
        if (end - start) / ns_per_px >= 6.5 * len(name) + 6:
            dark = b.kind in ("memset",) or b.kind.startswith("event")
            ax.text(
                (start + end) / 2,
                b.row,
                name,
                ha="center",
                va="center",
                fontsize=7,
                color="black" if dark else "white",
                clip_on=True,
                zorder=4,
            )


def _arrows(ax, tl: Timeline) -> None:
    if not tl.arrows:
        return
    if len(tl.arrows) > ARROW_LIMIT:  # one path of many segments: one artist, one draw
        n = len(tl.arrows)
        xy = np.empty((2 * n, 2), dtype=float)
        xy[0::2, 0] = [a.src_t for a in tl.arrows]
        xy[0::2, 1] = [a.src_row for a in tl.arrows]
        xy[1::2, 0] = [a.dst_t for a in tl.arrows]
        xy[1::2, 1] = [a.dst_row for a in tl.arrows]
        codes = np.tile(np.array([Path.MOVETO, Path.LINETO], dtype=np.uint8), n)
        ax.add_patch(PathPatch(Path(xy, codes), facecolor="none", edgecolor="#333333", lw=0.6, zorder=3))
        return
    for a in tl.arrows:
        ax.annotate(
            "",
            xy=(a.dst_t, a.dst_row),
            xytext=(a.src_t, a.src_row),
            arrowprops=dict(arrowstyle="-|>", color="#333333", lw=1.0, shrinkA=0, shrinkB=0, mutation_scale=8),
            zorder=6,
        )


def axis_unit(at: float) -> tuple[str, int]:
    """The unit the clock label uses for a time: ms from 1 ms, µs from 1 µs, else ns."""
    a = abs(at)
    return ("ms", 1_000_000) if a >= 1_000_000 else (f"{MICRO}s", 1_000) if a >= 1_000 else ("ns", 1)


def _axes(ax, tl: Timeline, origin: int, span: int, t_end: int | None = None) -> None:
    """Ticks at round absolute times, labelled in the clock's unit with as many decimals
    as the tick step needs ("1050.1", "1050.2" ms), so the axis and the clock agree."""
    unit, scale = axis_unit(max(abs(origin), abs(tl.t_end if t_end is None else t_end)))
    ax.xaxis.set_major_locator(MaxNLocator(nbins=10, steps=[1, 2, 2.5, 5, 10]))

    def label(x, _pos):
        locs = ax.xaxis.get_majorticklocs()
        step = (locs[1] - locs[0]) if len(locs) > 1 else max(1, span)
        decimals = max(0, min(6, math.ceil(-math.log10(step / scale) - 1e-9)))
        return f"{x / scale:.{decimals}f}"

    ax.xaxis.set_major_formatter(FuncFormatter(label))
    ax.set_xlabel(i18n.text("virtual time ({})", unit), fontsize=8)
    ax.set_yticks(range(len(tl.rows)))
    ax.set_yticklabels([tick_label(r) for r in tl.rows], fontsize=TICK_FONT)
    ax.tick_params(axis="x", labelsize=8)
    for i in range(1, len(tl.rows)):
        if tl.rows[i].group != tl.rows[i - 1].group:
            ax.axhline(i - 0.5, color="#B0B0B0", lw=0.8, zorder=1)
    ax.grid(axis="x", color="#E5E5E5", lw=0.6, zorder=0)
    ax.set_axisbelow(True)
