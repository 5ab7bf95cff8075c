"""Draw the stream queues at time t: finished count, the running task, the waiting line.

Waiting tasks are coloured by why they wait, so "my copy is stuck behind the other
stream's copy" (engine busy) looks different from "my kernel waits for the event".
"""
from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Patch

from sandbox.viz import style
from sandbox.viz.queues import Queues, stream_queues
from sandbox.viz.units import fmt_time

SHOWN = 5            # waiting tasks drawn per stream; the rest are counted
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
    ax.set_title(f"Stream queues at {fmt_time(q.t)}", fontsize=9, loc="left")
    for i, s in enumerate(q.streams):
        ax.text(-0.1, i, s.label, ha="right", va="center", fontsize=8)
        done = f"{s.finished} done" + (f"\n{s.failed} failed" if s.failed else "")
        ax.text(0.1, i, done, ha="left", va="center", fontsize=7, color="#555555")
        x = 1.1
        for e in s.running:
            _box(ax, x, i, style.RUNNING, (f"task {e.task}", e.name, "running"))
            x += BOX_W + 0.1
        if not s.running:
            _box(ax, x, i, "white", ("idle",), edge="#BBBBBB", text="#888888")
            x += BOX_W + 0.1
        for e in s.waiting[:SHOWN]:
            _box(ax, x, i, style.REASON_COLOURS.get(e.reason, style.OTHER_KIND),
                 (f"task {e.task}", e.name, e.reason))
            x += BOX_W + 0.1
        if len(s.waiting) > SHOWN:
            ax.text(x, i, f"+{len(s.waiting) - SHOWN} more", va="center", fontsize=7)
    handles = [Patch(facecolor=style.RUNNING, label="running")] + [
        Patch(facecolor=c, label=f"waiting: {r}") for r, c in style.REASON_COLOURS.items()]
    fig.legend(handles=handles, loc="upper right", ncol=len(handles), fontsize=7,
               frameon=False, bbox_to_anchor=(0.995, 1 - 0.05 / height))
    return fig


def _box(ax, x, y, colour, lines, edge="none", text="white") -> None:
    ax.add_patch(FancyBboxPatch((x, y - 0.38), BOX_W, 0.76, boxstyle="round,pad=0.02",
                                facecolor=colour, edgecolor=edge, lw=0.8))
    ax.text(x + BOX_W / 2, y, "\n".join(_clip(s, 17) for s in lines), ha="center",
            va="center", fontsize=6.5, color=text, linespacing=1.1)


def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"
