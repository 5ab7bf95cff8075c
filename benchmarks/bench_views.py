"""What the views cost on a 100k-task program, as ratios to that program's own run time.

    python benchmarks/bench_views.py               # print the figures with PASS/MISS
    python benchmarks/bench_views.py --check       # also exit 1 if a view misses its target
    python benchmarks/bench_views.py --rounds 500  # a smaller program (20k tasks)
    python benchmarks/bench_views.py --quick --check   # the cheap guard for a view change (~15 s)

The program is bench_runtime's mixed workload (pinned H2D/D2H copies, kernels, event
record + stream wait across 4 streams x 2 devices), 2500 rounds: 100k tasks.  Its wall
time, measured in this process, is the unit.  Then, on its log:

* building the dashboard (sandbox.show: the index of the log, the browser columns, the
  widget), target at most 0.5x;
* the dashboard's PNG snapshot (what a notebook stores beside the widget view), reported;
* drawing the Gantt chart to a PNG (sandbox.gantt), target at most 0.5x;
* the summary (sandbox.summary plus the timeline summary), target at most 0.5x;
* the Chrome-trace export to a file, target at most 0.5x;
* one cursor move on the server (setting Dashboard.t, what the browser's cursor sends back),
  target at most the cost of saving one bare matplotlib figure of the Gantt panel's size;
* the trace log's bytes per task, from tracemalloc around the run (as the runtime leaves
  it, and once the views have read it), target at most 250.  The log is the core's: this
  benchmark only measures it.

``--quick`` is the guard a change to a view runs (CONTRIBUTING.md, "Changing a view"): a 40k-task
program, one run of each view, and a looser target, at most 1.5x the program's run time (on a
smaller program a view's fixed costs weigh more: measured there, the dashboard takes about 0.9x,
the Gantt chart and the export about 0.65x).  A view several times slower than it was misses it;
the full run's 0.5x targets are for performance work.

The views share one index of the log (kept beside the log until it grows), so the first
view pays for it; the dashboard is built first, and its figure includes it.  Each figure is
the best of ``--repeat`` runs, the index built afresh for each run of the dashboard.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
import tracemalloc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (ROOT, os.path.join(ROOT, "benchmarks")):
    if p not in sys.path:
        sys.path.insert(0, p)

import bench_runtime  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import sandbox  # noqa: E402
from sandbox.viz.picture import figure_png  # noqa: E402

TARGET_RATIO = 0.5
QUICK_TARGET_RATIO = 1.5
QUICK_ROUNDS = 1000  # 40k tasks
TARGET_BYTES_PER_TASK = 250


def forget(log) -> None:
    """Drop the index and columns kept beside ``log`` (viz.index.kept), so the next view builds them."""
    log.derived.clear()


def best(fn, repeat: int, before=None) -> float:
    times = []
    for _ in range(repeat):
        if before:
            before()
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def run_program(rounds: int) -> tuple[float, int]:
    t0 = time.perf_counter()
    n = bench_runtime.facade_workload(rounds)
    return time.perf_counter() - t0, n


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2500, help="2500 rounds: 100k tasks")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument(
        "--quick", action="store_true", help="40k tasks, one run each, target 1.5x: a view change's guard"
    )
    args = parser.parse_args()
    target = TARGET_RATIO
    if args.quick:
        args.rounds, args.repeat, target = QUICK_ROUNDS, 1, QUICK_TARGET_RATIO

    # the trace log's bytes per task: tracemalloc around one run of the program
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    _wall, n_tasks = run_program(args.rounds)
    log = sandbox.trace()
    gc.collect()
    raw = (tracemalloc.get_traced_memory()[0] - base) / n_tasks
    _ = log.records
    read = (tracemalloc.get_traced_memory()[0] - base) / n_tasks
    tracemalloc.stop()
    del log
    gc.collect()

    # the unit: the program's own run time, best of the repeats, without tracemalloc
    program = min(run_program(args.rounds)[0] for _ in range(args.repeat))
    log = sandbox.trace()
    _ = log.records  # as the first view leaves it: every row a record (core's work)
    print(f"program: {n_tasks} tasks, {len(log)} records, {program:.3f} s (the unit below)")

    rows = []

    def measure(name, fn, before=None):
        s = best(fn, args.repeat, before)
        rows.append((name, s, s / program))
        return s

    dash = None

    def build():
        nonlocal dash
        dash = sandbox.show(log)

    measure("dashboard (index + columns + widget)", build, before=lambda: forget(log))
    measure("dashboard PNG snapshot", lambda: dash.snapshot_png())
    measure("Gantt chart to PNG", lambda: sandbox.gantt(log).png())
    measure("summary (trace + timeline)", lambda: (str(sandbox.summary(log)), _timeline_summary(log)))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        measure("Chrome-trace export", lambda: sandbox.export_trace(path, log))

    lo, hi = dash.t_range
    moves = [lo + (hi - lo) * k // 200 for k in range(200)]

    def cursor_moves():
        for t in moves:
            dash.t = t

    move = best(cursor_moves, args.repeat) / len(moves)
    fig_height = 1.0 + 0.34 * max(2, len(dash.data["meta"]["rows"]["logical"]))

    def bare_figure():
        fig = Figure(figsize=(10.0, min(14.0, fig_height)), dpi=100)
        fig.add_subplot()
        figure_png(fig)

    bare = best(bare_figure, max(3, args.repeat))

    print(f"{'view':40s} {'seconds':>9s} {'x program':>10s}  target {target}x")
    missed = False
    for name, s, ratio in rows:
        if name.startswith("dashboard PNG"):
            print(f"{name:40s} {s:9.3f} {ratio:10.2f}  (reported)")
            continue
        ok = ratio <= target
        missed |= not ok
        print(f"{name:40s} {s:9.3f} {ratio:10.2f}  {verdict(ok)}")
    ok = move <= bare
    missed |= not ok
    print(
        f"{'one cursor move on the server':40s} {move * 1e3:8.3f}ms "
        f"{'':10s}  {verdict(ok)} (bare matplotlib figure of the panel's size: "
        f"{bare * 1e3:.1f} ms)"
    )
    print(
        f"{'trace log bytes per task':40s} {raw:9.0f} {'':10s}  "
        f"{verdict(raw <= TARGET_BYTES_PER_TASK)} as the runtime leaves it; "
        f"{read:.0f} once read as records (target {TARGET_BYTES_PER_TASK}; the log is the core's)"
    )
    return 1 if args.check and missed else 0


def _timeline_summary(log) -> str:
    from sandbox.viz.summary import timeline_summary

    return timeline_summary(log)


if __name__ == "__main__":
    sys.exit(main())
