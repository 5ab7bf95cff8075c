"""How fast the sandbox runs, against the simplest alternatives a learner could write.

    python benchmarks/bench_runtime.py

a. API path: a mixed workload (pinned H2D/D2H copies, kernels, event record + stream wait
   across streams; 4 streams x 2 devices) through the facade, in simulated tasks per wall
   second, against a minimal SimPy model of the same tasks (streams as in-order processes,
   AI Cores as a Container, each DMA direction as a capacity-1 Resource, same durations).
b. Data path: H2D of two 16M-float32 arrays, an add kernel, D2H of the result, against
   plain numpy doing the same copies and arithmetic into preallocated arrays.
c. Host memory: RSS before and after one 60 GiB malloc on each of 8 simulated 910B devices
   (in a subprocess, so the other parts do not pollute it).

Prints a summary with PASS/MISS against the targets.  Wall time is measured with
time.perf_counter; every figure is the best of several runs.  ``--profile`` instead prints
where the API path spends its time (cProfile).
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import sandbox  # noqa: E402
from sandbox import acl  # noqa: E402

TARGET_API_RATIO = 2.0      # sandbox tasks/s at least 2x SimPy's
TARGET_DATA_RATIO = 1.1     # sandbox data path at most 1.1x numpy's time
TARGET_RSS_MB = 200         # RSS after 8 x 60 GiB of simulated device memory

DEVICES, STREAMS = 2, 4
ROUNDS = 500                # x devices x streams x 5 tasks = 20 000 tasks
COPY_BYTES = 4096           # small copies: this part measures the runtime, not memcpy
KERNEL_NS = 20_000          # fixed kernel body time (plus the profile's kernel start)
BLOCK_DIMS = (8, 16, 24, 32)


def check(ret, what):
    if ret != 0:
        raise RuntimeError(f"{what} failed with {ret}: {acl.get_recent_err_msg()}")


# -- a. API path through the facade --------------------------------------------------------------
@sandbox.kernel(ns=KERNEL_NS)
def touch(x: sandbox.ptr(np.uint8, count="n"), n: int):
    pass


def facade_workload(rounds: int = ROUNDS) -> int:
    """Run the mixed workload on a fresh machine; returns the number of tasks submitted."""
    sandbox.configure("ascend910b", device_count=DEVICES)
    check(acl.init(), "aclInit")
    per_device = []
    for d in range(DEVICES):
        check(acl.rt.set_device(d), "aclrtSetDevice")
        streams = []
        for _ in range(STREAMS):
            s, ret = acl.rt.create_stream()
            check(ret, "aclrtCreateStream")
            streams.append(s)
        events = []
        for _ in range(STREAMS):
            e, ret = acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC)
            check(ret, "aclrtCreateEventWithFlag")
            events.append(e)
        host_in, ret = acl.rt.malloc_host(COPY_BYTES * STREAMS)
        check(ret, "aclrtMallocHost")
        host_out, ret = acl.rt.malloc_host(COPY_BYTES * STREAMS)
        check(ret, "aclrtMallocHost")
        dev, ret = acl.rt.malloc(COPY_BYTES * STREAMS, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        check(ret, "aclrtMalloc")
        per_device.append((streams, events, host_in, host_out, dev))
    h2d, d2h = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
    tasks = 0
    for _ in range(rounds):
        for d, (streams, events, host_in, host_out, dev) in enumerate(per_device):
            acl.rt.set_device(d)
            for i, s in enumerate(streams):
                off = i * COPY_BYTES
                acl.rt.memcpy_async(dev + off, COPY_BYTES, host_in + off, COPY_BYTES, h2d, s)
                touch[BLOCK_DIMS[i], s](dev + off, COPY_BYTES)
                acl.rt.record_event(events[i], s)
                acl.rt.stream_wait_event(streams[(i + 1) % STREAMS], events[i])
                acl.rt.memcpy_async(host_out + off, COPY_BYTES, dev + off, COPY_BYTES, d2h, s)
                tasks += 5
    for d in range(DEVICES):
        check(acl.rt.set_device(d), "aclrtSetDevice")
        check(acl.rt.synchronize_device(), "aclrtSynchronizeDevice")
    return tasks


def last_finish() -> int:
    """Virtual time the last task of the current machine finished (read after timing)."""
    from sandbox.core.trace import TaskFinished
    return max(r.t for r in sandbox.trace() if isinstance(r, TaskFinished))


# -- a. the same workload as a minimal SimPy model ---------------------------------------------------
def simpy_workload(rounds: int = ROUNDS) -> tuple[int, int]:
    """The same tasks, submit times and durations as SimPy processes; returns (tasks, makespan)."""
    import simpy

    p = sandbox.get_profile("ascend910b")
    hc = p.host_costs
    copy_h2d = p.dma_latency_ns + int(COPY_BYTES * 1e9 / p.h2d_pinned)
    copy_d2h = p.dma_latency_ns + int(COPY_BYTES * 1e9 / p.d2h_pinned)
    kernel_ns = p.kernel_start_ns + KERNEL_NS

    env = simpy.Environment()
    cores = [simpy.Container(env, capacity=p.ai_cores, init=p.ai_cores) for _ in range(DEVICES)]
    h2d = [simpy.Resource(env, capacity=1) for _ in range(DEVICES)]
    d2h = [simpy.Resource(env, capacity=1) for _ in range(DEVICES)]

    # the host thread: same call costs as the sandbox charges, giving each task its submit time
    clock = hc.init + hc.first_set_device + (DEVICES - 1) * hc.open_device + DEVICES * (
        STREAMS * (hc.create_stream + hc.create_event) + 2 * hc.malloc_host + hc.malloc)
    queues = [[[] for _ in range(STREAMS)] for _ in range(DEVICES)]
    tasks = 0
    for _ in range(rounds):
        for d in range(DEVICES):
            clock += hc.set_device
            for i in range(STREAMS):
                q = queues[d][i]
                clock += hc.memcpy_async
                q.append((clock, "copy", h2d[d], copy_h2d))
                clock += hc.kernel_launch
                q.append((clock, "kernel", min(BLOCK_DIMS[i], p.ai_cores), kernel_ns))
                clock += hc.event_record
                recorded = env.event()
                q.append((clock, "record", recorded, 0))
                clock += hc.stream_wait_event
                queues[d][(i + 1) % STREAMS].append((clock, "wait", recorded, 0))
                clock += hc.memcpy_async
                q.append((clock, "copy", d2h[d], copy_d2h))
                tasks += 5
    for q in (q for per_dev in queues for q in per_dev):
        q.sort(key=lambda task: task[0])      # a wait is submitted to the next stream in host order

    def stream(d, q):
        for submit_t, kind, what, duration in q:
            if env.now < submit_t:
                yield env.timeout(submit_t - env.now)
            if kind == "copy":
                with what.request() as req:
                    yield req
                    yield env.timeout(duration)
            elif kind == "kernel":
                yield cores[d].get(what)
                yield env.timeout(duration)
                yield cores[d].put(what)
            elif kind == "record":
                what.succeed()
            else:
                yield what

    for d in range(DEVICES):
        for i in range(STREAMS):
            env.process(stream(d, queues[d][i]))
    env.run()
    return tasks, int(env.now)


def simpy_host_workload(rounds: int = ROUNDS) -> tuple[int, int]:
    """The same workload with the host thread in SimPy too: a process that spends each call's
    host cost, then hands the task to its stream's queue (the like-for-like model of an API path)."""
    import simpy

    p = sandbox.get_profile("ascend910b")
    hc = p.host_costs
    copy_h2d = p.dma_latency_ns + int(COPY_BYTES * 1e9 / p.h2d_pinned)
    copy_d2h = p.dma_latency_ns + int(COPY_BYTES * 1e9 / p.d2h_pinned)
    kernel_ns = p.kernel_start_ns + KERNEL_NS
    env = simpy.Environment()
    cores = [simpy.Container(env, capacity=p.ai_cores, init=p.ai_cores) for _ in range(DEVICES)]
    h2d = [simpy.Resource(env, capacity=1) for _ in range(DEVICES)]
    d2h = [simpy.Resource(env, capacity=1) for _ in range(DEVICES)]
    queues = [[simpy.Store(env) for _ in range(STREAMS)] for _ in range(DEVICES)]
    tasks = 0

    def stream(d, q):
        while True:
            kind, what, duration = yield q.get()
            if kind == "end":
                return
            if kind == "copy":
                with what.request() as req:
                    yield req
                    yield env.timeout(duration)
            elif kind == "kernel":
                yield cores[d].get(what)
                yield env.timeout(duration)
                yield cores[d].put(what)
            elif kind == "record":
                what.succeed()
            else:
                yield what

    def host():
        nonlocal tasks
        yield env.timeout(hc.init + hc.first_set_device + (DEVICES - 1) * hc.open_device + DEVICES * (
            STREAMS * (hc.create_stream + hc.create_event) + 2 * hc.malloc_host + hc.malloc))
        for _ in range(rounds):
            for d in range(DEVICES):
                yield env.timeout(hc.set_device)
                for i in range(STREAMS):
                    q = queues[d][i]
                    yield env.timeout(hc.memcpy_async)
                    q.put(("copy", h2d[d], copy_h2d))
                    yield env.timeout(hc.kernel_launch)
                    q.put(("kernel", min(BLOCK_DIMS[i], p.ai_cores), kernel_ns))
                    recorded = env.event()
                    yield env.timeout(hc.event_record)
                    q.put(("record", recorded, 0))
                    yield env.timeout(hc.stream_wait_event)
                    queues[d][(i + 1) % STREAMS].put(("wait", recorded, 0))
                    yield env.timeout(hc.memcpy_async)
                    q.put(("copy", d2h[d], copy_d2h))
                    tasks += 5
        for per_device in queues:
            for q in per_device:
                q.put(("end", None, 0))

    for d in range(DEVICES):
        for i in range(STREAMS):
            env.process(stream(d, queues[d][i]))
    env.process(host())
    env.run()
    return tasks, int(env.now)


def best_of(n, fn):
    best, result = float("inf"), None
    for _ in range(n):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def bench_api_path():
    t_sb, n_sb = best_of(3, facade_workload)
    end_sb = last_finish()
    t_sp, (n_sp, end_sp) = best_of(3, simpy_workload)
    rate_sb, rate_sp = n_sb / t_sb, n_sp / t_sp
    print("a. API path: mixed workload, 4 streams x 2 devices")
    print(f"   sandbox facade : {n_sb:6d} tasks in {t_sb * 1e3:8.1f} ms = {rate_sb:10.0f} tasks/s"
          f"  (virtual end {end_sb / 1e6:.3f} ms)")
    print(f"   SimPy model    : {n_sp:6d} tasks in {t_sp * 1e3:8.1f} ms = {rate_sp:10.0f} tasks/s"
          f"  (virtual end {end_sp / 1e6:.3f} ms)")
    ratio = rate_sb / rate_sp
    print(f"   ratio sandbox/SimPy = {ratio:.2f}x (target >= {TARGET_API_RATIO}x)")
    t_sh, (n_sh, end_sh) = best_of(3, simpy_host_workload)
    rate_sh = n_sh / t_sh
    print(f"   SimPy, host too: {n_sh:6d} tasks in {t_sh * 1e3:8.1f} ms = {rate_sh:10.0f} tasks/s"
          f"  (virtual end {end_sh / 1e6:.3f} ms)")
    print(f"   ratio sandbox/SimPy with the host thread modelled = {rate_sb / rate_sh:.2f}x")
    return ratio, rate_sb / rate_sh


# -- b. data path ----------------------------------------------------------------------------------
N = 16 * 1024 * 1024


@sandbox.kernel
def add(x: sandbox.ptr(np.float32), y: sandbox.ptr(np.float32), z: sandbox.ptr(np.float32), n):
    np.add(x[:n], y[:n], out=z[:n])


def bench_data_path():
    nbytes = N * 4
    sandbox.configure("ascend910b", device_count=1)
    check(acl.init(), "aclInit")
    check(acl.rt.set_device(0), "aclrtSetDevice")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream")
    host = []
    for _ in range(3):
        ptr, ret = acl.rt.malloc_host(nbytes)
        check(ret, "aclrtMallocHost")
        host.append((ptr, acl.util.ptr_to_numpy(ptr, (N,), np.float32)))
    dev = []
    for _ in range(3):
        ptr, ret = acl.rt.malloc(nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        check(ret, "aclrtMalloc")
        dev.append(ptr)
    rng = np.random.default_rng(0)
    host[0][1][...] = rng.random(N, dtype=np.float32)
    host[1][1][...] = rng.random(N, dtype=np.float32)
    (ha, _), (hb, _), (hc, c_view) = host
    da, db, dc = dev
    h2d, d2h = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
    launch = add[max(1, sandbox.profile().ai_cores), stream]

    def facade_run():
        acl.rt.memcpy_async(da, nbytes, ha, nbytes, h2d, stream)
        acl.rt.memcpy_async(db, nbytes, hb, nbytes, h2d, stream)
        launch(da, db, dc, N)
        acl.rt.memcpy_async(hc, nbytes, dc, nbytes, d2h, stream)
        check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream")

    # allocated like the sandbox's buffers (zeroed, then written), so page placement is alike
    a, b, xa, xb, xc, c = (np.zeros(N, np.float32) for _ in range(6))
    a[...], b[...] = host[0][1], host[1][1]

    def numpy_run():
        np.copyto(xa, a)
        np.copyto(xb, b)
        np.add(xa, xb, out=xc)
        np.copyto(c, xc)

    for _ in range(2):           # warm up: first touches, lazy backing made dense
        facade_run()
        numpy_run()
    t_sb = t_np = float("inf")
    for _ in range(5):           # interleaved, so a busy moment on the host hits both alike
        t_sb = min(t_sb, best_of(1, facade_run)[0])
        t_np = min(t_np, best_of(1, numpy_run)[0])
    if not np.array_equal(c_view, c):
        raise RuntimeError("the sandbox's result differs from numpy's")
    ratio = t_sb / t_np
    print("b. Data path: H2D 2 x 16M float32, add kernel, D2H (pinned buffers)")
    print(f"   sandbox facade : {t_sb * 1e3:8.2f} ms")
    print(f"   plain numpy    : {t_np * 1e3:8.2f} ms")
    print(f"   ratio sandbox/numpy = {ratio:.3f}x (target <= {TARGET_DATA_RATIO}x)")
    return ratio


# -- c. host memory of a huge simulated allocation --------------------------------------------------
RSS_CHILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
import sandbox
from sandbox import acl
sandbox.configure("ascend910b")
assert acl.init() == 0
before = rss_kb()
for d in range(8):
    assert acl.rt.set_device(d) == 0
    ptr, ret = acl.rt.malloc(60 << 30, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0, acl.get_recent_err_msg()
after = rss_kb()
print(before, after)
"""


def bench_rss():
    out = subprocess.run([sys.executable, "-c", RSS_CHILD, ROOT], capture_output=True, text=True, check=True)
    before_kb, after_kb = map(int, out.stdout.split())
    print("c. Host RSS around 8 x 60 GiB simulated device allocations (subprocess)")
    print(f"   before {before_kb / 1024:.1f} MB, after {after_kb / 1024:.1f} MB "
          f"(+{(after_kb - before_kb) / 1024:.1f} MB); target < {TARGET_RSS_MB} MB")
    return after_kb / 1024, (after_kb - before_kb) / 1024


def profile_api_path(top: int = 15):
    """cProfile of the facade workload: own time by sandbox module, then the costliest functions."""
    import cProfile
    import pstats
    from collections import defaultdict
    prof = cProfile.Profile()
    prof.runcall(facade_workload)
    stats = pstats.Stats(prof)
    total = sum(row[2] for row in stats.stats.values())
    by_module = defaultdict(float)
    rows = []
    for (path, line, func), (_, calls, tottime, cumtime, _) in stats.stats.items():
        where = os.path.relpath(path, ROOT) if path.startswith(ROOT) else "(python/builtins)"
        by_module[where] += tottime
        rows.append((tottime, calls, cumtime, f"{where}:{line}({func})"))
    print(f"profile of the facade workload: {total:.2f} s of own time under cProfile")
    for where, t in sorted(by_module.items(), key=lambda kv: -kv[1])[:10]:
        print(f"   {t / total:6.1%}  {where}")
    print(f"   {'own s':>7} {'calls':>8} {'cum s':>7}  function")
    for tottime, calls, cumtime, name in sorted(rows, reverse=True)[:top]:
        print(f"   {tottime:7.3f} {calls:8d} {cumtime:7.3f}  {name}")


def main():
    if "--profile" in sys.argv:
        profile_api_path()
        return
    api_ratio, api_host_ratio = bench_api_path()
    print()
    data_ratio = bench_data_path()
    print()
    rss_mb, rss_delta = bench_rss()
    print()
    rows = [
        ("API path tasks/s, sandbox vs SimPy", f"{api_ratio:.2f}x", f">= {TARGET_API_RATIO}x",
         api_ratio >= TARGET_API_RATIO),
        ("  same, SimPy modelling the host too", f"{api_host_ratio:.2f}x", f">= {TARGET_API_RATIO}x",
         api_host_ratio >= TARGET_API_RATIO),
        ("Data path time, sandbox vs numpy", f"{data_ratio:.3f}x", f"<= {TARGET_DATA_RATIO}x",
         data_ratio <= TARGET_DATA_RATIO),
        ("Host RSS after 8 x 60 GiB malloc", f"{rss_mb:.1f} MB (+{rss_delta:.1f})", f"< {TARGET_RSS_MB} MB",
         rss_mb < TARGET_RSS_MB),
    ]
    print(f"{'benchmark':<38} {'measured':>20} {'target':>10}  result")
    for name, value, target, ok in rows:
        print(f"{name:<38} {value:>20} {target:>10}  {'PASS' if ok else 'MISS'}")


if __name__ == "__main__":
    main()
