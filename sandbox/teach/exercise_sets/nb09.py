"""Notebooks 09 and 09b · errors and debugging: surviving a device fault (09.1, notebook 09);
a racy pipeline made correct (09b.1, notebook 09b, hazard reports).

For both exercises the grader opens the board (acl initialised, device 0 of the 910B set).  In
09.1 it also creates the stream in ACL_STOP_ON_FAILURE mode and arms a kernel trap on one of
the four batches (which one depends on the inputs), so the fault cannot be skipped; the judge
then reads the errors itself (``allow_errors``): the trap's code must reach the program and no
other call may fail.
"""

from __future__ import annotations

import numpy as np

import sandbox
from sandbox import acl
from sandbox.core import trace as tr
from sandbox.core.errors import code_name
from sandbox.teach.checks import SYNC_CALLS, Check, check_equal, check_no_leaks, check_syncs
from sandbox.teach.grading import Exercise, register
from sandbox.teach.exercise_sets.nb08 import _rows_from_device

N = 256 * 1024  # float32 elements per batch (1 MiB), as in the notebook
NB = 4 * N
PIPELINE_BATCHES = 2  # 09b.1
BATCHES = 4  # 09.1
KERNEL_NAME = "scale"


# -- the notebooks' kernels (09 and 09b declare scale alike; 09 also gather): known by their code and cost --
@sandbox.kernel(bytes=lambda x, y, n: 8 * n, flops=lambda x, y, n: 2 * n, writes=("y",))
def scale(x: "float32*", y: "float32*", n: int):  # type: ignore[valid-type]  # pyACL type strings
    y[:n] = 2 * x[:n]


@sandbox.kernel(bytes=lambda x, idx, y, n: 12 * n, writes=("y",))
def gather(x: "float32*", idx: "int32*", y: "float32*", n: int):  # type: ignore[valid-type]  # pyACL type strings
    y[:n] = x[idx[:n]]  # an index past the end of x is a device fault


TRAP = acl.ACL_ERROR_RT_AICORE_TRAP_EXCEPTION
QUERIES = ("aclrtStreamQuery", "aclrtQueryEventStatus", "aclrtQueryEvent")


def two_batches(rng):
    return {"x": rng.standard_normal((PIPELINE_BATCHES, N)).astype(np.float32)}


def four_batches(rng):
    return {"x": rng.standard_normal((BATCHES, N)).astype(np.float32)}


def trapped_batch(x: np.ndarray) -> int:
    """The batch whose kernel the grader makes trap (0 .. BATCHES-1, from the inputs)."""
    return int(np.ascontiguousarray(x).view(np.uint32).reshape(-1)[0]) % BATCHES


def faulty_board(inputs: dict) -> dict:
    """Hand over a stream in stop-on-failure mode, and arm the kernel trap (the board is open)."""
    import sandbox

    stream, _ = acl.rt.create_stream()
    acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE)
    sandbox.inject_fault("kernel_trap", device=0, after=trapped_batch(inputs["x"]))
    return {"stream": stream}


def _answer(run, shape, expected, what, hint):
    shape_check, array = run.answer(shape, np.float32)
    yield shape_check
    if array is None:
        return
    yield check_equal(array, expected, what=what, hint=hint)
    yield _rows_from_device(run, array, what)


# -- 09b.1 ---------------------------------------------------------------------------------------------
def _split_streams(run) -> tuple[Check, set, set]:
    loads = [t for t in run.tasks("memcpy") if dict(t.detail).get("direction") == "host to device"]
    kernels = [t for t in run.tasks("kernel")]
    load_streams, kernel_streams = {t.stream for t in loads}, {t.stream for t in kernels}
    ok = (
        len(kernels) == PIPELINE_BATCHES
        and all(t.name == KERNEL_NAME for t in kernels)
        and len(loads) >= 1
        and len(load_streams) == 1
        and len(kernel_streams) == 1
        and not load_streams & kernel_streams
    )
    if ok:
        detail = f"the loads ran on one stream, the {PIPELINE_BATCHES} {KERNEL_NAME} kernels on another"
    elif len(kernels) != PIPELINE_BATCHES or any(t.name != KERNEL_NAME for t in kernels):
        detail = (
            f"{len(kernels)} kernel(s) ran ({', '.join(sorted({t.name for t in kernels})) or 'none'}), want "
            f"one {KERNEL_NAME} per batch"
        )
    elif load_streams & kernel_streams:
        detail = "the loads and the kernels shared a stream"
    else:
        detail = (
            f"loads on {len(load_streams)} stream(s), kernels on {len(kernel_streams)}: want the loads on "
            "one stream and the kernels on one other"
        )
    return (
        Check(
            "two streams",
            ok,
            detail,
            "keep the program's shape: loads on copy_s, scale and the copies back on compute_s",
        ),
        load_streams,
        kernel_streams,
    )


def _event_waits(run, load_streams: set, kernel_streams: set) -> Check:
    waits = run.waits_for(kernel_streams, load_streams)
    ok = bool(waits) and bool(load_streams) and bool(kernel_streams)
    detail = (
        f"the compute stream waited {len(waits)} time(s) for an event recorded on the copy stream"
        if ok
        else "the compute stream never waited for an event recorded on the copy stream"
    )
    return Check(
        "ordered by events",
        ok,
        detail,
        "after each load, acl.rt.record_event(loaded, copy_s); before its kernel, "
        "acl.rt.stream_wait_event(compute_s, loaded): the device orders them, the host does not wait",
        len(waits),
    )


def judge_pipeline(run):
    x = run.inputs["x"]
    yield from _answer(
        run,
        (PIPELINE_BATCHES, N),
        2 * x,
        "the two batches",
        "each kernel must run after its load; read the results after the one synchronize",
    )
    structure, loads, kernels = _split_streams(run)
    yield structure
    yield _event_waits(run, loads, kernels)
    yield check_syncs(
        run.log,
        at_most=1,
        hint="order the streams with events and wait once at the end (a stream query that saw completion is as good)",
    )


# -- 09.1 ----------------------------------------------------------------------------------------------
def _fault_seen(run) -> tuple[Check, tr.ErrorRaised | None]:
    hits = run.records(tr.FaultTriggered)
    errors = run.records(tr.ErrorRaised)
    seen = next((e for e in errors if e.code == TRAP and (e.api in SYNC_CALLS or e.api in QUERIES)), None)
    if not hits:
        return Check(
            "the fault reported",
            False,
            f"the armed trap never hit: want one {KERNEL_NAME} launch per batch ({BATCHES} batches)",
            "launch scale once for every batch, as batch() does",
        ), None
    if seen is None:
        return Check(
            "the fault reported",
            False,
            f"the trap hit a kernel, but no synchronize returned {code_name(TRAP)} ({TRAP}) to the program",
            "synchronize the stream after queueing the batches and look at the code it returns",
        ), None
    return Check("the fault reported", True, f"{seen.api} returned {code_name(TRAP)} ({TRAP}) to the program"), seen


def _no_other_failure(run, seen) -> Check:
    """Every failed call but the report is a mistake, except the submissions that the stopped
    context refused between the trap and the report: the program could not know yet."""
    hits = run.records(tr.FaultTriggered)
    stopped = hits[0].t if hits else None

    def foreseen(e) -> bool:
        return (
            seen is not None
            and stopped is not None
            and e.code == TRAP
            and stopped <= e.t <= seen.t
            and e.api not in SYNC_CALLS
        )

    others = [e for e in run.records(tr.ErrorRaised) if e is not seen and not foreseen(e)]
    ok = not others
    detail = (
        "no other call failed"
        if ok
        else f"{len(others)} other failed call(s), first: {others[0].api} returned {others[0].name} ({others[0].code})"
    )
    return Check(
        "no other failed call",
        ok,
        detail,
        "after a failure in stop-on-failure mode the context refuses new work until the device is "
        "reset: free, destroy the stream, reset, set the device again, then allocate and redo",
        len(others),
    )


def _recovery(run, seen) -> list[Check]:
    resets = [c for c in run.calls("aclrtResetDevice") if seen is not None and c.start >= seen.t and c.ret == 0]
    if not resets:
        return [
            Check(
                "recovered by a reset",
                False,
                "no aclrtResetDevice after the fault was reported",
                "a stopped context takes no new work: release what you hold, acl.rt.reset_device(0), "
                "acl.rt.set_device(0), and start again",
            )
        ]
    reset = resets[0]
    again = [c for c in run.calls("aclrtSetDevice") if c.start >= reset.end and c.ret == 0]
    work_after = [t for t in run.tasks("kernel") if t.t >= reset.end]
    ok = bool(again) and bool(work_after)
    first = Check(
        "recovered by a reset",
        ok,
        "aclrtResetDevice, aclrtSetDevice again, and the batches redone"
        if ok
        else ("no aclrtSetDevice after the reset" if not again else "no kernel ran after the reset"),
        "after the reset, set the device again, create a stream, allocate, upload and redo the batches",
    )
    t0 = reset.start
    ix = run.index
    held = [b for b in ix.blocks if b.allocated < t0 and (b.free_called is None or b.free_called > t0)]
    created = {r.stream: r for r in run.records(tr.StreamCreated) if not r.is_default and r.t < t0}
    destroyed = {r.stream: r.t for r in run.records(tr.StreamDestroyed)}
    streams = [s for s in created if destroyed.get(s, t0 + 1) > t0]
    events = {r.event for r in run.records(tr.EventCreated) if r.t < t0}
    gone = {r.event: r.t for r in run.records(tr.EventDestroyed)}
    evs = [e for e in events if gone.get(e, t0 + 1) > t0]
    device = [b for b in held if b.device >= 0]
    pinned = [b for b in held if b.device < 0]
    ok = not held and not streams and not evs
    parts = []
    if device:
        parts.append(f"{len(device)} device buffer(s)")
    if pinned:
        parts.append(f"{len(pinned)} pinned host buffer(s)")
    if streams:
        parts.append(f"{len(streams)} stream(s)")
    if evs:
        parts.append(f"{len(evs)} event(s)")
    second = Check(
        "released before the reset",
        ok,
        "every buffer, stream and event was released before aclrtResetDevice"
        if ok
        else f"{', '.join(parts)} still held when aclrtResetDevice was called",
        "free memory (aclrtFree, aclrtFreeHost) and destroy streams and events before the reset; "
        "after it, allocate anew and upload the inputs again: a pointer from before a reset is not "
        "to be used",
        len(held) + len(streams) + len(evs),
    )
    return [first, second]


def judge_recovery(run):
    x = run.inputs["x"]
    check, seen = _fault_seen(run)
    yield check
    yield _no_other_failure(run, seen)
    yield from _recovery(run, seen)
    yield from _answer(
        run,
        (BATCHES, N),
        2 * x,
        "the four batches",
        "redo every batch whose result did not arrive (in stop-on-failure mode, the trapped batch "
        "and every one after it), on fresh buffers, and synchronise before reading",
    )
    yield check_no_leaks(run.log)


register(
    Exercise(
        id="09b.1",
        kernels=(scale,),
        title="make the racy pipeline correct",
        practises="reading a hazard report and fixing it: events order a stream's work after another's, one "
        "synchronize before the host reads",
        signature="solution(x) -> np.ndarray",
        profile="ascend910b",
        devices=1,
        inputs=two_batches,
        judge=judge_pipeline,
    )
)

register(
    Exercise(
        id="09.1",
        kernels=(scale, gather),
        title="survive a device fault",
        practises="checking the code of a synchronize, and recovering from a stopped context: release, reset, "
        "set the device again, allocate, upload and redo",
        signature="solution(x, stream) -> np.ndarray",
        profile="ascend910b",
        devices=1,
        inputs=four_batches,
        prepare=faulty_board,
        judge=judge_recovery,
        allow_errors=True,
    )
)
