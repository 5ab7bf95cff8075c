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
from sandbox.teach.concepts import Question, Quiz, register_quiz
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
def kernel_set(mine: dict, base: dict, stages: tuple, done: str, hint: str, per_launch_ns: int = 0) -> Check:
    """The solution ran the baseline's kernels over the baseline's data, and no other: ``mine`` and
    ``base`` are stage_work's; a launch's work is known to ``per_launch_ns`` ns (its whole-ns duration)."""
    other = sorted(set(mine) - set(stages))
    short = []
    for name in stages:
        want = base.get(name, (0, 0.0))[1]
        got = mine.get(name, (0, 0.0))[1]
        slack = 1e-3 * want + per_launch_ns * (mine.get(name, (0, 0.0))[0] + base.get(name, (0, 0.0))[0])
        if want and abs(got - want) > slack:
            short.append(f"{name} covered {got / want:.0%} of it" if got else f"{name} never ran")
    ok = not other and not short
    if ok:
        counts = ", ".join(f"{name} x{mine[name][0]}" for name in stages)
        detail = f"{counts}: {done}"
    else:
        parts = []
        if short:
            parts.append("of all the data the baseline's launches cover, " + "; ".join(short))
        if other:
            parts.append(f"other kernels ran: {', '.join(other)}")
        detail = "; ".join(parts)
    return Check("the kernel set unchanged", ok, detail, hint, mine)


def check_kernel_set(run, base_ix) -> Check:
    profile = get_profile(PROFILE)
    return kernel_set(
        stage_work(run.index, profile),
        stage_work(base_ix, profile),
        STAGES,
        f"each over all {BATCHES} x {N:,} elements, as in the baseline",
        f"launch normalize, layer and pool on every batch, each with n = N = {N:,} (as in "
        "compute(bufs, stream)), and no other kernel",
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


# == 10.4 · the transfer project: a pipeline the notebook does not tune ================================
# An upscaling service on one Ascend 910B card.  Per batch of n float32 values: a copy in (4n bytes),
# ``denoise``, ``rounds`` small in-place ``refine`` kernels, ``upsample`` to 4n values, and a copy
# back of 16n bytes.  On this card the copy back is the busiest engine, and the refine kernels are
# shorter on the device than a launch is on the host: the two things the worked example never met.
# The sizes (batches, n, rounds) are the grader's, drawn anew for every check.
UP_PROFILE = "ascend910b"
UP_CORES = 24  # block_dim: every AI Core of a 910B
UP_BATCHES = (10, 16)  # batches per check, both ends included
UP_CHUNK = 32768  # n is a multiple of this ...
UP_CHUNKS = (7, 9)  # ... 7 to 9 of them: 229,376 to 294,912 values (0.9 to 1.1 MiB per batch)
UP_ROUNDS = (14, 18)  # refine rounds per batch
UP_STAGES = ("denoise", "refine", "upsample")
EFFICIENCY_4 = 0.8


@sandbox.kernel(bytes=lambda x, y, n: 8 * n, flops=lambda x, y, n: 3 * n, writes=("y",))
def denoise(x: "float32*", y: "float32*", n: int):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    y[:n] = np.clip(x[:n] * 1.25 - 0.125, 0.0, 1.0)


@sandbox.kernel(bytes=lambda y, n: 8 * n, flops=lambda y, n: 2 * n, writes=("y",))
def refine(y: "float32*", n: int):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    y[:n] = y[:n] * 0.875 + 0.0625


@sandbox.kernel(bytes=lambda y, out, n: 20 * n, flops=lambda y, out, n: 4 * n, writes=("out",))
def upsample(y: "float32*", out: "float32*", n: int):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    out[: 4 * n] = np.repeat(y[:n], 4)


UP_KERNELS = {"denoise": denoise, "refine": refine, "upsample": upsample}


def upscale_model(x: np.ndarray, rounds: int) -> np.ndarray:
    """What the three kernels compute, batch by batch, on the host (the grader's reference)."""
    y = np.clip(x * np.float32(1.25) - np.float32(0.125), 0.0, 1.0).astype(np.float32)
    for _ in range(rounds):
        y = y * np.float32(0.875) + np.float32(0.0625)
    return np.repeat(y, 4, axis=1)


def upscale_inputs(rng: np.random.Generator) -> dict:
    """The grader's sizes and data: ``x`` (batches, n) float32 in [0, 1), pageable; ``rounds``."""
    batches = int(rng.integers(UP_BATCHES[0], UP_BATCHES[1] + 1))
    n = UP_CHUNK * int(rng.integers(UP_CHUNKS[0], UP_CHUNKS[1] + 1))
    rounds = int(rng.integers(UP_ROUNDS[0], UP_ROUNDS[1] + 1))
    return {"x": rng.random((batches, n), dtype=np.float32), "rounds": rounds}


def upscale_baseline_program(x: np.ndarray, rounds: int) -> np.ndarray:
    """The baseline the learner is given: pageable memory, blocking copies, one stream, every
    kernel launched on its own, a synchronize per batch."""
    batches, n = x.shape
    stream, _ = acl.rt.create_stream()
    dx, _ = acl.rt.malloc(4 * n, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    dy, _ = acl.rt.malloc(4 * n, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    dout, _ = acl.rt.malloc(16 * n, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    results = np.zeros((batches, 4 * n), np.float32)
    for b in range(batches):
        src, dst = np.ascontiguousarray(x[b]), results[b]
        acl.rt.memcpy(dx, 4 * n, acl.util.numpy_to_ptr(src), 4 * n, H2D)
        denoise[UP_CORES, stream](dx, dy, n)
        for _ in range(rounds):
            refine[UP_CORES, stream](dy, n)
        upsample[UP_CORES, stream](dy, dout, n)
        acl.rt.synchronize_stream(stream)
        acl.rt.memcpy(acl.util.numpy_to_ptr(dst), 16 * n, dout, 16 * n, D2H)
    for p in (dx, dy, dout):
        acl.rt.free(p)
    acl.rt.destroy_stream(stream)
    return results


def run_upscale_baseline(x: np.ndarray, rounds: int):
    """The baseline on a fresh board of the grader's, same inputs; its index and result."""
    m = Machine(UP_PROFILE, 1)
    with bound(m):
        acl.init()
        acl.rt.set_device(0)
        result = upscale_baseline_program(x, rounds)
        with m.lock:
            thread_finished(m, m.current_thread())
    return build_index(m.log), result


def ideal_time(batches: int, n: int, rounds: int, profile=None) -> dict:
    """The pipeline's ideal time from the profile: each batch's copy in, kernels and copy back
    (whole-batch copies from pinned memory, every kernel on all AI Cores), with the busiest of the
    three kept busy from the first batch's end of fill to the last batch: fill + (batches - 1) beats
    of the slowest stage + drain, i.e. h + c + d + (batches - 1) * max(h, c, d)."""
    p = profile or get_profile(UP_PROFILE)

    def kernel_ns(nbytes: float) -> float:  # block_dim = ai_cores: one wave, memory-bound
        return p.kernel_start_ns + nbytes / p.hbm_bandwidth * 1e9

    h = p.dma_latency_ns + 4 * n / p.h2d_pinned * 1e9
    d = p.dma_latency_ns + 16 * n / p.d2h_pinned * 1e9
    c = kernel_ns(8 * n) + rounds * kernel_ns(8 * n) + kernel_ns(20 * n)
    stages = {"copy in": h, "kernels": c, "copy back": d}
    busiest = max(stages, key=lambda k: stages[k])
    total = h + c + d + (batches - 1) * stages[busiest]
    return {"stages": stages, "busiest": busiest, "total": total}


def check_upscale_kernels(run, base_ix, batches: int, n: int, rounds: int) -> Check:
    profile = get_profile(UP_PROFILE)
    return kernel_set(
        stage_work(run.index, profile),
        stage_work(base_ix, profile),
        UP_STAGES,
        f"the work of {batches} batches of {n:,} values, {rounds} refine rounds each",
        "per batch: denoise once, refine `rounds` times, upsample once, each over all n values of the batch "
        "(from a graph or launched one by one), and no other kernel",
        per_launch_ns=profile.ai_cores,  # a launch's duration is whole ns: its work is known to block_dim ns
    )


def check_upscale_provenance(run, array) -> Check:
    for b in range(len(array)):
        for c in run.computed(array[b], kernels=UP_KERNELS, inputs=("x",), what=f"batch {b}'s output"):
            if not c.passed:
                return c
    return Check(
        "the answer came from the device",
        True,
        f"all {len(array)} batch outputs are what device-to-host copies the host waited for brought back "
        "from what denoise, refine and upsample computed from x",
    )


def check_efficiency(run, base_ix, ideal: dict, at_least: float) -> Check:
    """The speed-up over the baseline, as a share of the speed-up the ideal pipeline would reach:
    both the baseline and the ideal are for the grader's sizes of this check."""
    span, base = timed_span(run.index), timed_span(base_ix)
    stages = ", ".join(f"{k} {fmt_time(int(v))}" for k, v in ideal["stages"].items())
    if span is None or base is None:
        return Check(
            "speed-up over the baseline",
            False,
            "no copy or kernel ran, so nothing was timed",
            "do the work on the device",
            None,
        )
    ratio, best = base / span, base / ideal["total"]
    share = ratio / best
    ok = share >= at_least
    detail = (
        f"{fmt_time(span)}, {ratio:.2f}x the baseline's {fmt_time(base)}; the ideal pipeline for these sizes "
        f"(per batch: {stages}; {ideal['busiest']} the busiest) takes {fmt_time(int(ideal['total']))}, "
        f"{best:.2f}x: you reached {share:.0%} of it" + ("" if ok else f", want at least {at_least:.0%}")
    )
    return Check(
        "speed-up over the baseline",
        ok,
        detail,
        "find what limits each batch (profile_upscale, the physical Gantt chart) and keep it busy; then measure "
        "again: once one limit is gone another shows, and the host that queues its last task near the end of the "
        "run is one too",
        share,
    )


def judge_upscale(run):
    x, rounds = run.inputs["x"], run.inputs["rounds"]
    batches, n = x.shape
    shape, array = run.answer((batches, 4 * n), np.float32, what=f"{batches} batch outputs")
    yield shape
    if array is None:
        return
    expected = upscale_model(x, rounds)
    yield check_equal(
        array,
        expected,
        what=f"the {batches} batch outputs",
        hint="each batch's output is upsample(refine^rounds(denoise(x[b]))), for the sizes and rounds the "
        "grader passes (read them from x.shape and rounds); synchronise before reading the host buffer",
    )
    yield check_upscale_provenance(run, array)
    yield run.check_kernels(UP_KERNELS)
    base_ix, base_result = run_upscale_baseline(x, rounds)
    if not np.array_equal(base_result, expected):  # the grader's own program, so a grader bug
        raise RuntimeError("the grader's baseline computed other outputs than the model")
    yield check_upscale_kernels(run, base_ix, batches, n, rounds)
    yield check_bytes(run.log, "H2D", exactly=batches * 4 * n, hint="copy each batch's input in once")
    yield check_bytes(run.log, "D2H", exactly=batches * 16 * n, hint="copy each batch's output back once")
    yield check_async_copies(run)
    yield check_devices(run, (0,))
    yield check_efficiency(run, base_ix, ideal_time(batches, n, rounds), EFFICIENCY_4)


register(
    Exercise(
        id="10.4",
        title="the transfer project: tune a pipeline you have not seen",
        practises="finding the bottleneck of an unseen pipeline (the copy back, then the host's launches) and "
        "removing it: a stream for the copies back, an ACL graph for the small kernels",
        signature="solution(x, rounds) -> np.ndarray of shape (batches, 4 * n) float32",
        profile=UP_PROFILE,
        devices=1,
        inputs=upscale_inputs,
        judge=judge_upscale,
    )
)


# -- the concept check ------------------------------------------------------------------------------------
register_quiz(
    Quiz(
        "10.concepts",
        "Concept check: finding and removing a pipeline's bottleneck",
        "概念检查：找出并消除流水线的瓶颈",
        (
            Question(
                "The upscaling baseline keeps its DMA D2H engine busy about 60% of the time and its AI Cores "
                "about 12%. What do you change first?",
                (
                    "the streams: put the kernels on more streams, since more streams make a pipeline faster",
                    "the copy back: pinned host memory, and a stream of its own so that it runs beside the next "
                    "batch's work",
                    "the kernels: a larger block_dim, since the AI Cores do the real work",
                ),
                "b",
                (
                    "more streams help only the engine that limits the run, and the kernels are not it: "
                    "they are busy an eighth of the time",
                    "right: the engine busy longest sets the pace; pinned memory makes each copy back about "
                    "four times faster, and its own stream lets it overlap the next batch",
                    "speeding up an engine that is idle most of the time saves at most that engine's share: "
                    "find the busiest engine first",
                ),
                "the baseline's engine table in 'The transfer project · a pipeline you have not seen'",
                {
                    "text": "超分辨率流水线的基线让 DMA D2H 引擎约 60% 的时间在忙，AI Core 约 12%。你首先改什么？",
                    "choices": (
                        "Stream：把核函数放到更多 Stream 上，Stream 越多流水线越快",
                        "拷回：使用锁页 Host 内存，并给它一条自己的 Stream，使它与下一个批次的工作并行",
                        "核函数：用更大的 block_dim，因为真正干活的是 AI Core",
                    ),
                    "why": (
                        "更多 Stream 只对限制运行的那个引擎有帮助，而核函数不是它：它们只有八分之一的时间在忙",
                        "对：最忙的引擎决定节奏；锁页内存让每次拷回快约四倍，自己的 Stream 让它与下一个批次重叠",
                        "加速一个大部分时间都空闲的引擎，最多只能省下它自己那一份：先找出最忙的引擎",
                    ),
                    "shown_by": "“迁移项目 · 一条没见过的流水线”中基线的引擎表",
                },
            ),
            Question(
                "In step 3, loading a batch takes about 0.18 ms on the copy stream, and the compute stream's part "
                "of a batch (the three kernels and the small copy back) about 0.38 ms. About how long do the 16 "
                "batches take?",
                (
                    "16 x (0.18 + 0.38) ms, about 9 ms: the copies still add up, only host calls are saved",
                    "about 16 x 0.38 + 0.18 ms, about 6.2 ms: the busier stream sets the pace, and every load "
                    "but the first hides under it",
                    "about 16 x 0.18 ms, about 2.9 ms: two streams halve the time",
                ),
                "b",
                (
                    "that is one stream (step 2), where each task waits for the one before it; with two streams "
                    "and two buffer sets the loads run under the kernels",
                    "right: a pipeline takes about max(copy, compute) per batch, plus the one stage that cannot "
                    "overlap at the start",
                    "the compute stream still needs 0.38 ms per batch: overlapping hides the shorter stage, it "
                    "never shortens the longer one",
                ),
                "the table (step 3's row) and the physical view after step 3",
                {
                    "text": "在第 3 步中，拷贝 Stream 加载一个批次约需 0.18 ms，计算 Stream 上每个批次的部分（三个核函数和较小的拷回）"
                    "约需 0.38 ms。16 个批次大约需要多久？",
                    "choices": (
                        "16 x (0.18 + 0.38) ms，约 9 ms：拷贝照样累加，省下的只是 Host 调用",
                        "约 16 x 0.38 + 0.18 ms，约 6.2 ms：较忙的那条 Stream 决定节奏，除第一次外每次加载都藏在它下面",
                        "约 16 x 0.18 ms，约 2.9 ms：两条 Stream 让时间减半",
                    ),
                    "why": (
                        "那是一条 Stream 的情形（第 2 步），每个任务都要等前一个；有两条 Stream 和两组缓冲区时，加载在核函数"
                        "运行的同时进行",
                        "对：流水线每个批次约需 max(拷贝, 计算)，再加上开头那一段无法重叠的时间",
                        "计算 Stream 每个批次仍需 0.38 ms：重叠只能藏起较短的阶段，永远不会缩短较长的阶段",
                    ),
                    "shown_by": "结果表（第 3 步那一行）和第 3 步之后的物理视图",
                },
            ),
            Question(
                "Step 3's device is compute-bound: its AI Cores are busy almost all the time. What does a third "
                "buffer set (and stream) on the same device bring?",
                (
                    "about a third less time: every stream is another lane",
                    "a slower run: the streams compete for the AI Cores",
                    "almost nothing: the busiest engine already works all the time; only more AI Cores (step 4's "
                    "devices) shorten the run",
                ),
                "c",
                (
                    "streams are queues, not engines: a third one adds no AI Core",
                    "the kernels still run one after another on the same cores, none is lost; the run takes "
                    "about the same time",
                    "right: once the busiest engine never waits, more streams only queue more work in front of it",
                ),
                "the run with three buffer sets under 'Step 3 · double buffering with two streams and events'",
                {
                    "text": "第 3 步的 Device 受计算限制：它的 AI Core 几乎一直在忙。在同一个 Device 上再加第三组缓冲区（和 Stream）会带来什么？",
                    "choices": (
                        "时间减少约三分之一：每条 Stream 都是又一条车道",
                        "运行变慢：各条 Stream 争抢 AI Core",
                        "几乎没有变化：最忙的引擎已经一直在工作；只有更多的 AI Core（第 4 步的 Device）才能缩短运行时间",
                    ),
                    "why": (
                        "Stream 是队列，不是引擎：第三条 Stream 不会增加 AI Core",
                        "核函数仍在同样的核上一个接一个运行，没有损失什么；运行时间大致不变",
                        "对：一旦最忙的引擎从不等待，更多的 Stream 只是在它前面排更多的任务",
                    ),
                    "shown_by": "“第 3 步 · 用两条 Stream 和 Event 做双缓冲”下使用三组缓冲区的那次运行",
                },
            ),
            Question(
                "In the upscaling pipeline a refine kernel runs about 4.3 µs on the device and its launch costs "
                "the host about 8.6 µs. The copies back already have a stream of their own. What limits a batch "
                "with its 16 refine rounds, and what removes the limit?",
                (
                    "the host, which queues kernels slower than the device runs them: capture the rounds into an "
                    "ACL graph and replay it with one aclmdlRIExecuteAsync per batch",
                    "the AI Cores: launch refine with a larger block_dim",
                    "the number of streams: put each refine round on a stream of its own",
                ),
                "a",
                (
                    "right: the device waits for the host's launches; a graph launch queues all the rounds for "
                    "one host call (the Runtime programming guide, 'Single-stream capture')",
                    "a larger block_dim does not shorten the host's 8.6 µs per launch, and the device already "
                    "finishes each refine before the next one is queued",
                    "the rounds update one buffer in place, so on separate streams they race, and each launch "
                    "still costs the host 8.6 µs",
                ),
                "the cell that prints what a refine launch costs the host, in 'The transfer project · a "
                "pipeline you have not seen'",
                {
                    "text": "在超分辨率流水线中，一个 refine 核函数在 Device 上运行约 4.3 µs，而下发它要花 Host 约 8.6 µs。拷回已经有了"
                    "自己的 Stream。带着 16 轮 refine 的一个批次受什么限制？怎样消除这个限制？",
                    "choices": (
                        "Host：它放入核函数的速度比 Device 运行它们慢；把各轮捕获进一个 ACL Graph，每个批次用一次 "
                        "aclmdlRIExecuteAsync 重放",
                        "AI Core：用更大的 block_dim 下发 refine",
                        "Stream 的数量：每轮 refine 放到自己的 Stream 上",
                    ),
                    "why": (
                        "对：Device 在等 Host 下发；一次图下发只用一次 Host 调用就放入了所有轮次（《Runtime编程指南》“单流捕获”）",
                        "更大的 block_dim 不会缩短每次下发 Host 的 8.6 µs，而且 Device 在下一个 refine 入队之前就已经做完了当前这个",
                        "各轮在同一块缓冲区上原地更新，放在不同 Stream 上就会产生数据竞争，而且每次下发仍要花 Host 8.6 µs",
                    ),
                    "shown_by": "“迁移项目 · 一条没见过的流水线”中打印 refine 下发开销的单元格",
                },
            ),
        ),
    )
)
