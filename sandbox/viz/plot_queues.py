"""Draw the stream queues at time t: finished count, the running task, the waiting line.

A box is coloured by what its task does (the Gantt chart's colours): filled while it
runs, outlined while it waits, the outline's pattern saying why (dashed: its predecessor
in the stream, dotted: an event, solid: its engine is busy), with the reason written in
the box, so "my copy is stuck behind the other stream's copy" (engine busy) looks
different from "my kernel waits for the event" without telling colours apart.
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Patch

from sandbox import i18n
from sandbox.viz import style
from sandbox.viz.queues import Queues, stream_queues
from sandbox.viz.units import fmt_time

SHOWN = 5  # waiting tasks drawn per stream; the rest are counted
BOX_W = 1.5
ROW_IN = 0.55


def queues_figure(log, t: int, width: float = 10.0) -> Figure:
    """The stream queues of ``log`` at time ``t``."""
    return draw_queues(stream_queues(log, t), width)


def draw_queues(q: Queues, width: float = 10.0) -> Figure:
    n = max(1, len(q.streams))
    height = 0.85 + ROW_IN * n
    fig = Figure(figsize=(width, height), dpi=style.DPI)
    ax = fig.add_axes((0.16, 0.2 / height, 0.82, 1 - 0.72 / height))
    ax.set_xlim(0, 2.2 + (SHOWN + 1) * (BOX_W + 0.1) + 0.9)
    ax.set_ylim(n - 0.5, -0.5)
    ax.axis("off")
    ax.set_title(i18n.text("Stream queues at {}", fmt_time(q.t)), fontsize=9, loc="left")
    for i, s in enumerate(q.streams):
        ax.text(-0.1, i, i18n.label(s.label), ha="right", va="center", fontsize=8)
        done = i18n.text("{} done", s.finished) + (i18n.text("\n{} failed", s.failed) if s.failed else "")
        ax.text(0.1, i, done, ha="left", va="center", fontsize=7, color="#555555")
        x = 1.1
        for e in s.running:
            colour = style.kind_colour(style.colour_kind(e.kind, e.engine, e.direction))
            dark = colour in (style.YELLOW, style.KIND_COLOURS["api"], style.KIND_COLOURS["event_wait"])
            _box(
                ax,
                x,
                i,
                colour,
                (
                    i18n.text("task {}", e.task),
                    style.bar_label(e.kind, e.name, e.engine, e.direction),
                    i18n.text("running"),
                ),
                text="black" if dark else "white",
            )
            x += BOX_W + 0.1
        if not s.running:
            _box(ax, x, i, "white", (i18n.text("idle"),), edge="#BBBBBB", text="#888888")
            x += BOX_W + 0.1
        for e in s.waiting[:SHOWN]:
            colour = style.kind_colour(style.colour_kind(e.kind, e.engine, e.direction))
            _box(
                ax,
                x,
                i,
                "white",
                (
                    i18n.text("task {}", e.task),
                    style.bar_label(e.kind, e.name, e.engine, e.direction),
                    i18n.text("waits: {}", i18n.label(e.reason)),
                ),
                edge=colour,
                text="black",
                ls=style.REASON_STYLES.get(e.reason, "solid"),
                lw=1.8,
            )
            x += BOX_W + 0.1
        if len(s.waiting) > SHOWN:
            ax.text(x, i, i18n.text("+{} more", len(s.waiting) - SHOWN), va="center", fontsize=7)
    waiting = [(ls, i18n.text("waiting: {}", i18n.label(r))) for r, ls in style.REASON_STYLES.items() if r != "ready"]
    handles = [Patch(facecolor="#777777", label=i18n.text("running (filled)"))] + [
        Patch(facecolor="white", edgecolor="#333333", linestyle=ls, lw=1.5, label=text)  # type: ignore[arg-type]  # REASON_STYLES: matplotlib line styles
        for ls, text in waiting
    ]
    fig.legend(
        handles=handles,
        loc="upper right",
        ncol=len(handles),
        fontsize=7,
        frameon=False,
        bbox_to_anchor=(0.995, 1 - 0.05 / height),
    )
    return fig


def _box(ax, x, y, colour, lines, edge="none", text="white", ls="solid", lw=0.8) -> None:
    ax.add_patch(
        FancyBboxPatch(
            (x, y - 0.38), BOX_W, 0.76, boxstyle="round,pad=0.02", facecolor=colour, edgecolor=edge, lw=lw, linestyle=ls
        )
    )
    ax.text(
        x + BOX_W / 2,
        y,
        "\n".join(_clip(part, 17) for s in lines for part in _split(s, 17)),
        ha="center",
        va="center",
        fontsize=6.5,
        color=text,
        linespacing=1.1,
    )


def _split(s: str, n: int) -> list[str]:
    """A label too long for a box breaks after its "label:" ("waits:" / "predecessor")."""
    head, sep, tail = s.partition(": ")
    return [s] if len(s) <= n or not sep else [head + ":", tail]


def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"
