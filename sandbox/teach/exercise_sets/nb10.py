"""Notebook 10 · the capstone: tuning a whole program, step by step, against the grader's own baseline.

Every check runs two programs on the same inputs, each on a fresh four-card ``ascend310p``
board: the learner's solution, and the notebook's step-0 baseline (pageable memory, blocking
copies, a synchronize per batch), which the grader runs itself.  The speed-up is the ratio of
their times, each measured from the moment its first copy or kernel is queued to the end of
the last one: setting up streams, events and buffers before that is not counted (the
notebook's own marks leave it out too), nor is cleaning up after it; everything between is,
host calls included (a host that is late to queue leaves the device idle).

What every exercise checks besides the time:

* the answer: the 16 batch outputs, equal to the model's, and each one the bytes device-to-host
  copies brought back from what kernels computed, read after they landed;
* the kernel set unchanged: ``normalize``, ``layer`` and ``pool``, each over all the data the
  baseline's launches cover (measured from the declared cost of the launches that ran, which is
  per element: a launch over fewer elements, or a kernel that declares less work, is seen), and
  no other kernel;
* every input byte copied in once and every output byte out once; no blocking copy to or from
  the device; synchronize only at the end; no hazard (the framework adds that line).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import sandbox
from sandbox import acl
from sandbox.core.machine import Machine, bound
from sandbox.core.host_turns import thread_finished
from sandbox.profiles import get_profile
from sandbox.teach.checks import (
    SYNC_CALLS,
    Check,
    check_bytes,
    check_devices_together,
    check_equal,
    check_overlap,
    check_peak_memory,
    sync_calls,
)
from sandbox.teach.grading import END, START, Exercise, register
from sandbox.viz.index import build_index
from sandbox.viz.units import fmt_time

PROFILE, DEVICES = "ascend310p", 4
BATCHES = 16
N = 1 << 20  # float32 inputs per batch: 4 MiB
M = N // 4  # float32 outputs per batch: 1 MiB
IN_B, OUT_B = 4 * N, 4 * M
WIDTH = 8192  # the dense layer the `layer` kernel stands for
CORES = 8
MiB = 1 << 20
STAGES = ("normalize", "layer", "pool")
DATA_KINDS = ("memcpy", "memset", "kernel")
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST


# -- the model: the notebook's three kernels, with the same declared costs -------------------------
@sandbox.kernel(bytes=lambda x, y, n: 8 * n, flops=lambda x, y, n: 2 * n, writes=("y",))
def normalize(x: "float32*", y: "float32*", n: int):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    y[:n] = (x[:n] - 0.5) * 2.0


@sandbox.kernel(bytes=lambda y, z, n: 8 * n, flops=lambda y, z, n: 2 * WIDTH * n, writes=("z",))
def layer(y: "float32*", z: "float32*", n: int):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    z[:n] = np.maximum(y[:n], 0.0) * 0.5


@sandbox.kernel(bytes=lambda z, out, n: 5 * n, flops=lambda z, out, n: n, writes=("out",))
def pool(z: "float32*", out: "float32*", n: int):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    out[: n // 4] = z[:n].reshape(-1, 4).sum(axis=1)


def model(x: np.ndarray) -> np.ndarray:
    """What the three kernels compute, batch by batch, on the host (the grader's reference)."""
    z = (np.maximum((x - 0.5) * 2.0, 0.0) * 0.5).reshape(len(x), M, 4)
    return ((z[..., 0] + z[..., 1]) + z[..., 2]) + z[..., 3]  # numpy's sum of four, in order, faster


def batches(rng: np.random.Generator) -> dict:
    """16 fresh batches of N float32 inputs in [0, 1), in ordinary (pageable) host memory."""
    return {"x": rng.random((BATCHES, N), dtype=np.float32)}


def open_other_devices(devices: int):
    """Beyond device 0 (the grader's for every exercise), the grader opens the other devices the
    pipeline may use: the first aclrtSetDevice of each (about a second) is not the learner's."""

    def prepare(inputs):
        for d in range(1, devices):
            acl.rt.set_device(d)
        acl.rt.set_device(0)

    return prepare


# -- the baseline, run by the grader ------------------------------------------------------------------
def baseline_program(x: np.ndarray) -> np.ndarray:
    """The notebook's step 0: pageable memory, blocking copies, a synchronize per batch."""
    stream, _ = acl.rt.create_stream()
    bufs = [acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for size in (IN_B, IN_B, IN_B, OUT_B)]
    dx, dy, dz, dout = bufs
    results = np.zeros((BATCHES, M), np.float32)
    for b in range(BATCHES):
        src, dst = np.ascontiguousarray(x[b]), results[b]
        acl.rt.memcpy(dx, IN_B, acl.util.numpy_to_ptr(src), IN_B, H2D)
        normalize[CORES, stream](dx, dy, N)
        layer[CORES, stream](dy, dz, N)
        pool[CORES, stream](dz, dout, N)
        acl.rt.synchronize_stream(stream)
        acl.rt.memcpy(acl.util.numpy_to_ptr(dst), OUT_B, dout, OUT_B, D2H)
    for p in bufs:
        acl.rt.free(p)
    acl.rt.destroy_stream(stream)
    return results


def run_baseline(x: np.ndarray):
    """Run the baseline on a fresh board of the grader's, with the same inputs; its index."""
    m = Machine(PROFILE, DEVICES)
    with bound(m):
        acl.init()
        acl.rt.set_device(0)
        result = baseline_program(x)
        with m.lock:
            th = m.current_thread()
            thread_finished(m, th)
    return build_index(m.log), result


# -- measurements ---------------------------------------------------------------------------------------
def data_tasks(ix):
    return [t for t in ix.tasks.values() if t.kind in DATA_KINDS]


def timed_span(ix) -> int | None:
    """From the first copy, memset or kernel queued to the end of the last one, in ns."""
    tasks = data_tasks(ix)
    if not tasks:
        return None
    first = min(t.submit for t in tasks)
    last = max(t.end if t.end is not None else ix.t_end for t in tasks)
    return last - first


def stage_work(ix, profile) -> dict:
    """Kernel name -> (launches, declared work in ns of one AI Core) of the kernels that ran.

    A launch of block_dim b on c cores runs ceil(b / c) waves of (work / b) each, after the
    kernel start-up: so work = (duration - start-up) * b / ceil(b / c), whatever b and c were.
    The declared costs are per element, so the work measures the elements a launch covered.
    """
    out: dict[str, list] = {}
    for t in ix.tasks.values():
        if t.kind != "kernel" or t.start is None or t.end is None or t.status:
            continue
        b, c = max(t.block_dim, 1), max(t.cores, 1)
        work = (t.end - t.start - profile.kernel_start_ns) * b / math.ceil(b / c)
        entry = out.setdefault(t.name, [0, 0.0])
        entry[0] += 1
        entry[1] += work
    return {k: (v[0], v[1]) for k, v in out.items()}


# -- checks ---------------------------------------------------------------------------------------------
def check_kernel_set(run, base_ix) -> Check:
    profile = get_profile(PROFILE)
    mine, base = stage_work(run.index, profile), stage_work(base_ix, profile)
    other = sorted(set(mine) - set(STAGES))
    short = []
    for name in STAGES:
        want = base.get(name, (0, 0.0))[1]
        got = mine.get(name, (0, 0.0))[1]
        if want and abs(got - want) > 1e-3 * want:
            short.append(f"{name} covered {got / want:.0%} of it" if got else f"{name} never ran")
    ok = not other and not short
    if ok:
        counts = ", ".join(f"{name} x{mine[name][0]}" for name in STAGES)
        detail = f"{counts}: each over all {BATCHES} x {N:,} elements, as in the baseline"
    else:
        parts = []
        if short:
            parts.append("of all the data the baseline's launches cover, " + "; ".join(short))
        if other:
            parts.append(f"other kernels ran: {', '.join(other)}")
        detail = "; ".join(parts)
    return Check(
        "the kernel set unchanged",
        ok,
        detail,
        f"launch normalize, layer and pool on every batch, each with n = N = {N:,} (as in "
        "compute(bufs, stream)), and no other kernel",
        mine,
    )


def check_provenance(run, array) -> Check:
    """Each batch's output came back from the device by a copy the host waited for, computed by the
    notebook's normalize, layer and pool from the grader's x (not from data the host prepared)."""
    kernels = {"normalize": normalize, "layer": layer, "pool": pool}
    for b in range(BATCHES):
        for c in run.computed(array[b], kernels=kernels, inputs=("x",), what=f"batch {b}'s output"):
            if not c.passed:
                return c
    return Check(
        "the answer came from the device",
        True,
        f"all {BATCHES} batch outputs are what device-to-host copies the host waited for brought back "
        "from what normalize, layer and pool computed from x",
    )


def check_speedup(run, base_ix, at_least: float, hint: str) -> Check:
    span = timed_span(run.index)
    base = timed_span(base_ix)
    if span is None:
        return Check(
            "speed-up over the baseline",
            False,
            "no copy or kernel ran, so nothing was timed",
            "do the work on the device",
            None,
        )
    ratio = base / span if span else math.inf  # type: ignore[operator]  # the baseline (the reference) runs tasks
    ok = ratio >= at_least
    detail = (
        f"{fmt_time(span)} from the first copy queued to the last one's end; the baseline "
        f"on the same inputs: {fmt_time(base)}; {ratio:.2f}x" + ("" if ok else f", want at least {at_least:g}x")  # type: ignore[arg-type]  # (as above)
    )
    return Check("speed-up over the baseline", ok, detail, hint, ratio)


def check_async_copies(run) -> Check:
    blocking = [c for c in run.calls("aclrtMemcpy") if dict(c.args).get("kind") in (H2D, D2H)]
    ok = not blocking
    return Check(
        "asynchronous copies",
        ok,
        "every host-device copy went on a stream"
        if ok
        else f"{len(blocking)} blocking aclrtMemcpy call(s) to or from the device: each one waits",
        "use acl.rt.memcpy_async(dst, n, src, n, kind, stream)",
        len(blocking),
    )


def check_pinned(run) -> Check:
    copies = [t for t in run.index.tasks.values() if t.kind == "memcpy" and "pageable" in dict(t.detail)]
    pageable = [t for t in copies if dict(t.detail)["pageable"]]
    ok = bool(copies) and not pageable
    detail = (
        f"all {len(copies)} host-device copies use pinned host memory"
        if ok
        else "no host-device copy ran"
        if not copies
        else f"{len(pageable)} of {len(copies)} host-device copies use pageable memory (numpy arrays)"
    )
    return Check(
        "pinned host memory",
        ok,
        detail,
        "allocate the host buffers with acl.rt.malloc_host and fill the inputs in with "
        "acl.util.ptr_to_numpy(ptr, shape, np.float32)[:] = x",
        len(pageable),
    )


def check_devices(run, allowed: tuple[int, ...]) -> Check:
    used = sorted({t.device for t in data_tasks(run.index)})
    ok = bool(used) and set(used) <= set(allowed)
    want = ", ".join(map(str, allowed))
    detail = (f"device {', '.join(map(str, used))}" if used else "no copy or kernel ran") + (
        "" if ok else f", want device {want} only"
    )
    return Check("devices used", ok, detail, f"this step runs on device {want} only", used)


def check_streams(run, device: int, at_least: int) -> Check:
    streams = {t.stream for t in data_tasks(run.index) if t.device == device}
    ok = len(streams) >= at_least
    detail = f"copies and kernels on {len(streams)} stream(s) of device {device}" + (
        "" if ok else f", want at least {at_least}"
    )
    return Check(
        "streams",
        ok,
        detail,
        "one stream runs its tasks one after another: give the copies of the next batch "
        "their own stream (or give each buffer set its own stream)",
        len(streams),
    )


def check_waits_at_the_end(run) -> Check:
    """No host thread queues a copy or kernel after its first synchronize: it waits at the end only."""
    first: dict[int, Any] = {}
    for c in run.calls(*SYNC_CALLS):
        first.setdefault(c.tid, c)
    late = [t for t in data_tasks(run.index) if t.tid in first and t.api_seq > first[t.tid].seq]
    n = sum(sync_calls(run.log).values())
    ok = not late
    if ok:
        detail = (
            f"{n} synchronize call(s), each after its thread had queued all its copies and kernels"
            if n
            else "no synchronize call (the host learnt of completion otherwise)"
        )
    else:
        c = first[late[0].tid]
        waits = sum(1 for s in run.calls(*SYNC_CALLS) if any(t.tid == s.tid and t.api_seq > s.seq for t in late))
        detail = (
            f"{waits} of {n} synchronize calls had more copies or kernels queued after them "
            f"(the first, {c.name}, before {len(late)} more tasks)"
        )
    return Check(
        "synchronize only at the end",
        ok,
        detail,
        "queue every batch first, then wait once at the end: a synchronize inside the batch "
        "loop stops the host until the device catches up; let events on the device "
        "(aclrtStreamWaitEvent), or a stream per buffer set, say when a set is free",
        len(late),
    )


def _common(run):
    """The lines every exercise shares, after the answer."""
    yield check_bytes(run.log, "H2D", exactly=BATCHES * IN_B, hint="copy each batch's 4 MiB input in once")
    yield check_bytes(run.log, "D2H", exactly=BATCHES * OUT_B, hint="copy each batch's 1 MiB output back once")
    yield check_async_copies(run)
    yield check_waits_at_the_end(run)


def _judge(
    run,
    *,
    speedup: float,
    faster: str,
    devices=None,
    streams=0,
    overlap=None,
    memory=None,
    together=False,
    pinned=False,
):
    shape, array = run.answer((BATCHES, M), np.float32, what=f"{BATCHES} batch outputs")
    yield shape
    if array is None:
        return
    x = run.inputs["x"]
    expected = model(x)
    yield check_equal(
        array,
        expected,
        what=f"the {BATCHES} batch outputs",
        hint="each batch's output is pool(layer(normalize(x[b]))); synchronise before "
        "reading the host buffer the copies back fill",
    )
    yield check_provenance(run, array)
    yield run.check_kernels({"normalize": normalize, "layer": layer, "pool": pool})
    base_ix, base_result = run_baseline(x)
    if not np.array_equal(base_result, expected):  # the grader's own program, so a grader bug
        raise RuntimeError("the grader's baseline computed other outputs than the model")
    yield check_kernel_set(run, base_ix)
    yield from _common(run)
    if pinned:
        yield check_pinned(run)
    if devices is not None:
        yield check_devices(run, devices)
    if streams:
        yield check_streams(run, 0, streams)
    if overlap is not None:
        yield check_overlap(
            run.log,
            at_least_fraction=overlap,
            start=START,
            end=END,
            hint="on each device, load the next batch (its own stream, its own buffer "
            "set) while the AI Cores compute this one",
        )
    if together:
        yield check_devices_together(
            run.log,
            devices=tuple(range(DEVICES)),
            hint="give every device its share of the batches, and queue them all before the first synchronize",
        )
    if memory is not None:
        yield check_peak_memory(
            run.log,
            at_most=memory,
            hint="reuse a few buffer sets per device (events, or a stream per set, "
            "tell you when a set is free) instead of one per batch",
        )
    yield check_speedup(run, base_ix, speedup, faster)


SPEEDUP_1, SPEEDUP_2, SPEEDUP_3 = 1.85, 2.5, 8.0
MEMORY_2, MEMORY_3 = 64 * MiB, 256 * MiB


def judge_async(run):
    yield from _judge(
        run,
        speedup=SPEEDUP_1,
        devices=(0,),
        pinned=True,
        faster="pinned host buffers, asynchronous copies on the stream, and one wait after the last batch is queued",
    )


def judge_double_buffered(run):
    yield from _judge(
        run,
        speedup=SPEEDUP_2,
        devices=(0,),
        streams=2,
        overlap=0.5,
        memory=MEMORY_2,
        faster="load batch i + 1 into the other buffer set on its own stream while the kernels of batch i run",
    )


def judge_capstone(run):
    yield from _judge(
        run,
        speedup=SPEEDUP_3,
        overlap=0.5,
        memory=MEMORY_3,
        together=True,
        faster="double buffer on every device and spread the batches over all four; "
        "queue everything before the first wait",
    )


SIGNATURE = "solution(x) -> np.ndarray of shape (16, 262144) float32"

register(
    Exercise(
        id="10.1",
        title="pinned, asynchronous, waiting once",
        practises="steps 1 and 2 of the tuning: pinned host memory, copies on the stream, one synchronize",
        signature=SIGNATURE,
        profile=PROFILE,
        devices=DEVICES,
        inputs=batches,
        judge=judge_async,
    )
)

register(
    Exercise(
        id="10.2",
        title="double buffering on one device",
        practises="step 3: two buffer sets and two streams, so one batch's copy runs under another's kernels",
        signature=SIGNATURE,
        profile=PROFILE,
        devices=DEVICES,
        inputs=batches,
        judge=judge_double_buffered,
    )
)

register(
    Exercise(
        id="10.3",
        title="the capstone: an 8x speed-up",
        practises="the whole tuning: pinned memory, asynchronous copies, double buffering on every device, "
        "four devices busy at once",
        signature=SIGNATURE,
        profile=PROFILE,
        devices=DEVICES,
        prepare=open_other_devices(DEVICES),
        inputs=batches,
        judge=judge_capstone,
    )
)
