"""How the deterministic turn scales with the number of host threads and simulated processes.

    python benchmarks/bench_threads.py           # print the figures with PASS/MISS
    python benchmarks/bench_threads.py --check   # also exit 1 if a figure misses its target

Each host thread sets a device, creates a stream, makes five calls, synchronizes and destroys
the stream; each simulated process initialises, allocates, sets and frees 4 KiB, and ends.
Their wall times at n and 4n are measured in this run; the target is that four times the
threads cost at most eight times as much (a call's hand-over is one wake-up: the cost per
thread may grow with the scan for whose turn it is, not with every waiting thread waking).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import sandbox  # noqa: E402
from sandbox import acl  # noqa: E402

TARGET_RATIO = 8.0  # wall time at 4n over wall time at n


def _thread_body(i: int) -> None:
    acl.rt.set_device(i % 8)
    stream, _ = acl.rt.create_stream()
    for _ in range(5):
        acl.rt.get_device()
    acl.rt.synchronize_stream(stream)
    acl.rt.destroy_stream(stream)


def _process_body(i: int) -> None:
    acl.init()
    acl.rt.set_device(i % 8)
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memset(buf, 4096, 1, 4096)
    acl.rt.free(buf)
    acl.rt.reset_device(i % 8)
    acl.finalize()


def threads(n: int) -> float:
    sandbox.configure()
    acl.init()
    start = time.perf_counter()
    workers = [threading.Thread(target=_thread_body, args=(i,)) for i in range(n)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.perf_counter() - start


def processes(n: int) -> float:
    sandbox.configure()
    acl.init()
    start = time.perf_counter()
    procs = [sandbox.spawn_process(_process_body, i) for i in range(n)]
    for p in procs:
        p.join()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a figure misses its target")
    parser.add_argument("--n", type=int, default=100, help="the smaller count (default 100)")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()
    ok = True
    for what, run in (("host threads", threads), ("processes", processes)):
        small = min(run(args.n) for _ in range(args.repeat))
        large = min(run(4 * args.n) for _ in range(args.repeat))
        ratio = large / small
        passed = ratio <= TARGET_RATIO
        ok &= passed
        print(
            f"{what}: {args.n} in {small:.2f} s, {4 * args.n} in {large:.2f} s, ratio {ratio:.1f} "
            f"(target <= {TARGET_RATIO:.0f}) {'PASS' if passed else 'MISS'}"
        )
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
