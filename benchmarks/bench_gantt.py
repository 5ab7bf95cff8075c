"""How long the Gantt chart takes to draw, against bare matplotlib broken_barh.

Both sides draw the same rectangles (every bar of the logical timeline) into a 10 x 3
inch Agg canvas in the same run; the Gantt side starts from the trace log, so it also
pays for indexing, layout, labels and the legend.  The issue's budget for a 10k-task
trace: at most 2 s, and at most 3x broken_barh.  A 100k-task trace must still draw.

    python benchmarks/bench_gantt.py            # print the figures
    python benchmarks/bench_gantt.py --check    # also exit 1 if a budget is exceeded
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from sandbox.viz import style
from sandbox.viz.plot_gantt import gantt_figure
from sandbox.viz.samples import synthetic_log
from sandbox.viz.timeline import timeline

BUDGET_S = 2.0
BUDGET_RATIO = 3.0


def draw_gantt(log) -> None:
    fig = gantt_figure(log)
    FigureCanvasAgg(fig).draw()


def draw_broken_barh(rows: dict) -> None:
    fig = Figure(figsize=(10, 3), dpi=style.DPI)
    ax = fig.add_subplot()
    for r, (xranges, colours) in rows.items():
        ax.broken_barh(xranges, (r - 0.36, 0.72), facecolors=colours)
    ax.autoscale_view()
    FigureCanvasAgg(fig).draw()


def rectangles(log) -> dict:
    """The logical timeline's bars as broken_barh wants them: per row, (start, width)
    pairs and a colour per bar."""
    rows: dict = {}
    for b in timeline(log).bars:
        xr, cs = rows.setdefault(b.row, ([], []))
        xr.append((b.start, b.end - b.start))
        cs.append(style.kind_colour(b.kind))
    return rows


def best_of(fn, *args, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if over budget")
    parser.add_argument("--tasks", type=int, default=10_000)
    args = parser.parse_args()

    log = synthetic_log(args.tasks, streams=4)
    rows = rectangles(log)
    n_rect = sum(len(xr) for xr, _c in rows.values())
    draw_gantt(log)  # warm up fonts and caches for both sides
    ours = best_of(draw_gantt, log)
    bare = best_of(draw_broken_barh, rows)
    ratio = ours / bare
    print(
        f"{args.tasks} tasks ({n_rect} rectangles): gantt {ours:.3f} s, "
        f"broken_barh {bare:.3f} s, ratio {ratio:.2f} "
        f"(budget {BUDGET_S:.1f} s and {BUDGET_RATIO:.1f}x)"
    )

    big = synthetic_log(10 * args.tasks, streams=4)
    big_time = best_of(draw_gantt, big, repeat=1)
    print(f"{10 * args.tasks} tasks: gantt {big_time:.3f} s (must draw)")

    over = ours > BUDGET_S or ratio > BUDGET_RATIO
    if args.check and over:
        print("over budget", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
