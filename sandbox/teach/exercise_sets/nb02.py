"""Notebook 02 · asynchronous execution: the host works while the device does, then the
device overlaps its own copies and compute (double buffering over two streams)."""

from __future__ import annotations

import numpy as np

from sandbox.teach.checks import SYNC_CALLS, Check, check_bytes, check_equal, check_overlap, check_syncs
from sandbox.teach.exercise_sets.nb01 import add
from sandbox.teach.grading import Exercise, register
from sandbox.viz.timeline import intersect, union
from sandbox.viz.units import fmt_time

N = 1024 * 1024  # the notebook's vector length (int32)
NBYTES = 4 * N
KERNEL_NS = 3_500_000  # what `add` takes for all N elements (the notebook declares it)
HOST_WORK = "host work: prepare the next batch"  # the call prepare_next_batch() makes
HOST_WORK_NS = 8_000_000
WAIT_CALLS = SYNC_CALLS + ("aclrtStreamQuery", "aclrtQueryEventStatus", "aclrtMemcpy")  # a blocking copy waits too


def vectors(rng: np.random.Generator) -> dict:
    """Two fresh int32 vectors whose sum fits in int32."""
    return {
        "a": rng.integers(-(2**30), 2**30, N, dtype=np.int32),
        "b": rng.integers(-(2**30), 2**30, N, dtype=np.int32),
    }


# -- small measurements of a run ---------------------------------------------------------------------
def _ran(run, kinds=("kernel", "memcpy", "memset")):
    return [t for t in run.index.tasks.values() if t.kind in kinds and t.start is not None]


def _learnt(run) -> int | None:
    """When the host learnt that the last device task had finished: the end of the first
    synchronize or query that ended at or after it (None if no call did)."""
    tasks = _ran(run)
    if not tasks:
        return None
    last = max(t.end if t.end is not None else run.index.t_end for t in tasks)
    ends = [c.end for c in run.calls(*WAIT_CALLS) if c.end >= last and c.start >= run.start]
    return min(ends) if ends else None


def check_time_to_result(run, *, at_most_ns: int, from_first_copy: bool, hint: str) -> Check:
    """From the solution's start (or its first copy) to the moment the host learnt the device
    had finished everything, at most ``at_most_ns``."""
    tasks = _ran(run)
    if not tasks:
        return Check(
            "time to the result",
            False,
            "no copy or kernel ran on the device",
            "the work has to run on the device: copies in, add, copy back",
        )
    learnt = _learnt(run)
    if learnt is None:
        return Check(
            "time to the result",
            False,
            "the host never learnt that the device had finished: no synchronize or query "
            "ended after the last device task",
            "synchronise the stream before you read the result",
        )
    lo = min(t.start for t in tasks) if from_first_copy else run.start
    span = learnt - lo
    where = "from your first copy" if from_first_copy else "from the start of your function"
    ok = span <= at_most_ns
    detail = f"{fmt_time(span)} {where} to the end of the wait that saw the device finish" + (
        "" if ok else f", want at most {fmt_time(at_most_ns)}"
    )
    return Check("time to the result", ok, detail, hint, span)


def check_async_copies(run) -> Check:
    blocking = run.calls("aclrtMemcpy")
    return Check(
        "asynchronous copies",
        not blocking,
        "every copy went on a stream"
        if not blocking
        else f"{len(blocking)} blocking aclrtMemcpy call(s): each one stops the host until the bytes arrive",
        "use acl.rt.memcpy_async(..., stream) for the copies in and out",
        len(blocking),
    )


def _answer(run):
    shape, array = run.answer((N,), np.int32)
    yield shape
    if array is None:
        return
    yield check_equal(
        array,
        run.inputs["a"] + run.inputs["b"],
        what="the vector sum",
        hint="copy a and b in, add every element on the device, copy c back, and synchronise before reading it",
    )
    yield from run.computed(array, kernels={"add": add}, inputs=("a", "b"), what="the vector sum")


# -- 02.1 --------------------------------------------------------------------------------------------
def judge_host_overlap(run):
    yield from _answer(run)
    yield check_async_copies(run)
    works = run.calls(HOST_WORK)
    done = sum(int(dict(c.args).get("ns", 0)) for c in works)
    yield Check(
        "the host's own work",
        done >= HOST_WORK_NS,
        f"prepare_next_batch() ran {len(works)} time(s), {fmt_time(done)} of host work"
        + ("" if done >= HOST_WORK_NS else f", want {fmt_time(HOST_WORK_NS)}"),
        "call prepare_next_batch() once inside your function",
        done,
    )
    device = union([(t.start, t.end if t.end is not None else run.index.t_end) for t in _ran(run)])
    host = union([(c.start, c.end) for c in works])
    both = sum(e - s for s, e in intersect(host, device))
    frac = both / done if done else 0.0
    yield Check(
        "host work beside device work",
        bool(done) and frac >= 0.9,
        f"{fmt_time(both)} of the host work ran while the device was busy ({frac:.0%})"
        + ("" if done and frac >= 0.9 else ", want at least 90%"),
        "queue the copies, the launch and the copy back first (asynchronous calls return at "
        "once), then call prepare_next_batch(), then wait",
        both,
    )
    yield check_bytes(run.log, "H2D", exactly=2 * NBYTES)
    yield check_bytes(run.log, "D2H", exactly=NBYTES)
    yield check_syncs(run.log, at_most=1, hint="wait once, after the host work: every synchronize stops the host")
    yield check_time_to_result(
        run,
        at_most_ns=13_000_000,
        from_first_copy=False,
        hint="the 11.7 ms of device work and the 8 ms of host work should run at "
        "the same time: queue everything before the host work, wait after it",
    )


# -- 02.2 --------------------------------------------------------------------------------------------
def check_kernels_add(run) -> Check:
    kernels = _ran(run, ("kernel",))
    names = sorted({t.name for t in kernels})
    busy = sum(t.end - t.start for t in kernels if t.end is not None)
    ok = bool(kernels) and names == ["add"] and busy >= KERNEL_NS
    detail = f"{len(kernels)} launch(es) of {', '.join(names) or 'no kernel'}, {fmt_time(busy)} of compute in all"
    if not ok:
        detail += f", want only add over all {N} elements ({fmt_time(KERNEL_NS)})"
    return Check(
        "the kernels",
        ok,
        detail,
        "launch the notebook's add kernel on every chunk: add[1, stream](da, db, dc, elements)",
        len(kernels),
    )


def check_event_pipeline(run) -> Check:
    """Copies and kernels on two or more streams, with at least one aclrtStreamWaitEvent on one
    stream whose event was recorded on another."""
    ix = run.index
    work_streams = {t.stream for t in _ran(run)}
    edges = 0
    for t in ix.tasks.values():
        if t.kind == "event_wait" and t.waits_on in ix.tasks and ix.tasks[t.waits_on].stream != t.stream:
            edges += 1
    ok = len(work_streams) >= 2 and edges >= 1
    detail = f"device work on {len(work_streams)} stream(s), {edges} event wait(s) across streams" + (
        "" if ok else ", want work on at least 2 streams ordered by events"
    )
    hint = (
        "one stream runs its tasks one after another, so nothing overlaps: load on a copy stream, "
        "add and copy back on a compute stream"
        if len(work_streams) < 2
        else "order the streams on the device, not from the host: record an event on the copy stream after "
        "a chunk's loads, and make the compute stream wait for it (acl.rt.stream_wait_event)"
    )
    return Check("streams and events", ok, detail, hint, (len(work_streams), edges))


def judge_pipeline(run):
    yield from _answer(run)
    yield check_kernels_add(run)
    yield check_event_pipeline(run)
    yield check_async_copies(run)
    yield check_bytes(run.log, "H2D", exactly=2 * NBYTES)
    yield check_bytes(run.log, "D2H", exactly=NBYTES)
    yield check_overlap(
        run.log,
        at_least_fraction=0.8,
        start="solution start",
        end="solution end",
        hint="split the vectors into chunks: while the AI Core adds chunk i, the DMA "
        "engine loads chunk i + 1 on the other stream",
    )
    yield check_time_to_result(
        run,
        at_most_ns=9_000_000,
        from_first_copy=True,
        hint="the copies alone take 8.2 ms: the adds must hide beside them, and "
        "the host must wait only once, at the end",
    )


register(
    Exercise(
        id="02.1",
        title="let the host work meanwhile",
        practises="asynchronous calls return at once, so the host can do its own work while the device runs",
        signature="solution(a, b) -> np.ndarray",
        profile="ascend310b",
        inputs=vectors,
        judge=judge_host_overlap,
    )
)

register(
    Exercise(
        id="02.2",
        title="pipeline it",
        practises="double buffering: chunks on two streams, ordered by events, so copies overlap compute",
        signature="solution(a, b) -> np.ndarray",
        profile="ascend310b",
        inputs=vectors,
        judge=judge_pipeline,
    )
)
