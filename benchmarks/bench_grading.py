"""What an isolated check costs beside an in-process one, on the notebooks' reference solutions.

    python benchmarks/bench_grading.py              # every exercise's reference solution, once each way
    python benchmarks/bench_grading.py 02.2 10.3    # only these exercises
    python benchmarks/bench_grading.py --repeat 3   # the best of three runs of each

``sandbox.teach.check(id, solution)`` runs in the notebook's process; with ``isolated=True`` it
starts a fresh interpreter, carries the solution over and reads the grade back (what a class's
nbgrader hidden tests run).  For each exercise this prints both wall times, in the same run, and
their ratio; the last line gives the totals.  No target: the figure is for choosing where each
mode is used (README, "Teaching a class").
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "teach")]


def _best(fn, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercises", nargs="*", help="exercise ids (default: all)")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import exercises as book  # tests/teach/exercises: the reference solutions

    from sandbox import teach

    wanted = set(args.exercises)
    total_in = total_iso = 0.0
    print(f"{'exercise':<10}{'in-process':>12}{'isolated':>12}{'ratio':>8}")
    notebooks = sorted(p.stem[2:] for p in (ROOT / "tests" / "teach" / "exercises").glob("nb*.py"))
    for nn in notebooks:
        for ex, solution in sorted(book.solutions(nn).items()):
            if wanted and ex not in wanted:
                continue
            t_in, g_in = _best(lambda ex=ex, solution=solution: teach.check(ex, solution), args.repeat)
            t_iso, g_iso = _best(lambda ex=ex, solution=solution: teach.check(ex, solution, isolated=True), args.repeat)
            total_in, total_iso = total_in + t_in, total_iso + t_iso
            same = "" if bool(g_in) == bool(g_iso) else "  (verdicts differ!)"
            print(f"{ex:<10}{t_in:>11.2f}s{t_iso:>11.2f}s{t_iso / t_in:>7.1f}x{same}")
    if total_in:
        print(f"{'total':<10}{total_in:>11.2f}s{total_iso:>11.2f}s{total_iso / total_in:>7.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
