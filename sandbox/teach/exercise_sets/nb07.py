"""Notebook 07 · host callbacks: post-process each batch in a host function, then in a
callback served by a report thread.

A stream runs 8 batches (copy in, ``double`` on the AI Core, copy back into the batch's own
slice of a pinned output buffer).  Each batch's result is post-processed on the host by the
grader's ``summarise(i, x)``, which the solution must call *inside* a host function
(07.1) or a callback (07.2), with batch i's result as the copy back left it in host memory.
``summarise`` notes where it ran (in which callback run, at what virtual time) and the bytes
it was given, so the judges can tell a callback that read its batch after the copy back
from processing on the host after one synchronize, or from a callback queued before the
copy back (which reads what was there before: zeros).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

import numpy as np

from sandbox.core import trace as tr
from sandbox.core.machine import current
from sandbox.teach.checks import Check, check_callbacks, check_equal, check_syncs
from sandbox.teach.grading import BOARD_OPENED, Exercise, register
from sandbox.teach.provenance import KERNEL

BATCHES, N = 8, 64 * 1024  # 8 batches of 64 Ki float32 (256 KiB each)
TIMEOUT = 507012  # ACL_ERROR_RT_REPORT_TIMEOUT: how a report loop learns nothing is left

WHERE = {"callback": "a callback (aclrtLaunchCallback)", "host_func": "a host function (aclrtLaunchHostFunc)"}
ONE = {"callback": "callback", "host_func": "host function"}


def batches(rng: np.random.Generator) -> dict:
    """Eight batches of small whole numbers (their sums are exact), new ones every check."""
    return {"batches": rng.integers(-50, 50, (BATCHES, N)).astype(np.float32)}


@dataclass
class Call:
    i: object
    kind: str  # "callback", "host_func", or "" (not inside either)
    tid: int
    t: int
    data: bytes
    array: object = None  # what it was given: a view of a host buffer, or an array made on the host


class Summariser:
    """The grader's post-processing: ``summarise(i, x)`` returns the sum of batch i's results
    ``x`` (a numpy array), and notes where it ran and what it was given."""

    def __init__(self, machine):
        self.m = machine
        self.calls: list[Call] = []

    def __call__(self, i, x):
        m = self.m
        kind, busy_tid = _user_code(m)
        th = m.threads.get(threading.get_ident())
        if kind == "host_func":
            tid, t = busy_tid, m.sim.now
        else:
            tid, t = (th.tid, th.clock) if th is not None else (0, m.sim.now)
        data = np.ascontiguousarray(x).tobytes() if isinstance(x, np.ndarray) else b""
        self.calls.append(Call(i, kind, tid, t, data, x if isinstance(x, np.ndarray) else None))
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < BATCHES:
            raise ValueError(f"summarise(i, x): i must be the batch number, 0 to {BATCHES - 1}, got {i!r}")
        if not isinstance(x, np.ndarray):
            raise TypeError(
                f"summarise(i, x): x must be a numpy array of batch {i}'s {N} float32 results "
                f"(a view of the host buffer its copy back filled), got {type(x).__name__}"
            )
        return float(np.asarray(x, dtype=np.float64).sum())

    def __repr__(self) -> str:
        return "<summarise(i, x): the sum of batch i's results x, noting where it ran>"


def _user_code(m) -> tuple[str, int]:
    """What learner code the runtime is running right now ("callback", "host_func", ...) and on
    which trace thread: ("", 0) outside any."""
    return m.user_code or "", m.user_code_tid


def prepare(inputs: dict) -> dict:
    return {"summarise": Summariser(current())}


# -- the judges ----------------------------------------------------------------------------------
def _expected(run) -> np.ndarray:
    return run.inputs["batches"] * np.float32(2)


def _summaries(run):
    r = run.result
    want = f"a list of {BATCHES} numbers (what summarise returned for batch 0, 1, ...)"
    try:
        values = np.asarray(r, dtype=np.float64)
    except (TypeError, ValueError):
        values = None
    if r is None or isinstance(r, (str, bytes)) or values is None or values.shape != (BATCHES,):
        got = "None (did the function end without a return?)" if r is None else f"{type(r).__name__} {r!r}"[:80]
        return Check(
            "what came back",
            False,
            f"{got}, want {want}",
            "keep what summarise returns in a list, by batch number, and return the list",
        ), None
    return Check("what came back", True, want), values


def _runs(run, kind):
    return [r for r in run.log if isinstance(r, tr.CallbackRun) and r.kind == kind]


def _in_callbacks(run, kind) -> tuple[Check, dict]:
    """summarise ran once per batch, each time inside a callback of ``kind`` of its own."""
    calls = run.inputs["summarise"].calls
    where = {(r.tid, r.start): r for r in _runs(run, kind)}
    names = {tid: info.name for tid, info in run.index.threads.items()}
    first: dict[int, tuple] = {}
    problems = []
    for c in calls:
        if not isinstance(c.i, (int, np.integer)) or isinstance(c.i, bool) or not 0 <= c.i < BATCHES:
            problems.append(f"summarise got {c.i!r} for i, not a batch number")
            continue
        i = int(c.i)
        if i in first:
            problems.append(f"batch {i} was summarised {sum(1 for d in calls if d.i == i)} times")
            continue
        if c.kind != kind:
            place = (
                f"on host thread {names.get(c.tid, c.tid)!r}, outside any callback"
                if not c.kind
                else f"in {WHERE[c.kind]}"
            )
            problems.append(f"batch {i} was summarised {place}, want in {WHERE[kind]}")
        first[i] = (c, where.get((c.tid, c.t)))
    missing = [i for i in range(BATCHES) if i not in first]
    if missing:
        problems.append(f"batch {', '.join(map(str, missing))} never summarised")
    shared: dict[int, list] = {}
    for i, (_c, r) in first.items():
        if r is not None:
            shared.setdefault(r.task, []).append(i)
    for ids in shared.values():
        if len(ids) > 1:
            problems.append(
                f"batches {', '.join(map(str, sorted(ids)))} were summarised in one {ONE[kind]}: want one per batch"
            )
            break
    ok = not problems
    detail = (
        f"each of the {BATCHES} batches was summarised in {WHERE[kind]} of its own"
        if ok
        else problems[0]
        + (f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})" if len(problems) > 1 else "")
    )
    how = (
        "acl.rt.launch_host_func(stream, fn, i) right after batch i's copy back, with fn calling summarise(i, out[i])"
        if kind == "host_func"
        else "acl.rt.launch_callback(fn, i, block_type, stream) right after batch i's copy back, with fn calling "
        "summarise(i, out[i]); a thread subscribed to the stream runs it in aclrtProcessReport"
    )
    return Check("post-processing in callbacks", ok, detail, f"queue one per batch: {how}", len(first)), first


def _landed_by(recorder, data: bytes, t: int, array=None) -> tuple[bool, str]:
    """Did device-to-host copies that had landed by time ``t`` leave exactly ``data`` in one
    host range, computed by kernels, and is ``array`` a view of that range (not equal values the
    host computed)?  (Copies that landed after ``t`` do not count: the reader could not have seen them.)"""
    origin, _, landing = recorder.trace_back(data, until=t)
    if landing is None:
        return False, "no device-to-host copy that had landed by then brought these bytes"
    if origin < KERNEL:
        return False, "those bytes were not computed by a kernel"
    storage = getattr(landing.buffer, "_storage", None)
    if array is not None and storage is not None and not np.shares_memory(array, storage):
        return (
            False,
            "it was an array the host made with the same values, not a view of the buffer the copy back filled",
        )
    return True, ""


def _read_after_copy(run, first: dict, kind: str) -> Check:
    """What each callback gave summarise is its batch's result as its copy back left it."""
    expected = _expected(run)
    problems = []
    for i in range(BATCHES):
        if i not in first:
            continue
        c, _ = first[i]
        want = expected[i].tobytes()
        if c.data != want:
            if len(c.data) != len(want):
                problems.append(
                    f"batch {i}: summarise got {len(c.data)} bytes, want batch {i}'s {len(want)} bytes ({N} float32)"
                )
            else:
                got = np.frombuffer(c.data, np.float32)
                bad = int(np.count_nonzero(got != expected[i]))
                stale = " (all zeros: nothing had landed yet)" if not got.any() else ""
                problems.append(f"batch {i}: {bad} of {N} values summarise got are not batch {i}'s result{stale}")
            continue
        ok, why = _landed_by(run.recorder, c.data, c.t, c.array)
        if not ok:
            problems.append(f"batch {i}: what summarise got did not come from the device: {why}")
    ok = not problems and bool(first)
    detail = (
        f"each {ONE[kind]} read its batch's result after that batch's copy back had landed"
        if ok
        else problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
        if problems
        else "no batch was summarised"
    )
    return Check(
        "read after the copy back",
        ok,
        detail,
        f"queue each batch's {ONE[kind]} after its copy back on the same stream, so it runs only when the "
        "copy has landed, and give summarise that batch's slice of the output buffer",
        len(problems),
    )


def _judge(run, kind):
    shape, values = _summaries(run)
    yield shape
    if values is not None:
        yield check_equal(
            values,
            _expected(run).astype(np.float64).sum(axis=1),
            what="the batch sums",
            hint="return, in batch order, what summarise returned for each batch",
        )
    placed, first = _in_callbacks(run, kind)
    yield placed
    yield check_callbacks(
        run.log,
        ran=BATCHES,
        kind=kind,
        hint=(
            "one host function per batch, right after its copy back"
            if kind == "host_func"
            else "one callback per batch, right after its copy back, and a thread subscribed to the "
            "stream that calls aclrtProcessReport until all of them have run"
        ),
    )
    yield _read_after_copy(run, first, kind)
    yield check_syncs(
        run.log,
        at_most=1,
        hint="queue all eight batches and their callbacks, then synchronise once: the callbacks "
        "tell the host about each batch, so it need not wait for each one",
    )


def judge_host_func(run):
    yield from _judge(run, "host_func")


def judge_callback(run):
    yield _errors_but_timeouts(run)
    yield from _judge(run, "callback")
    yield _unsubscribed(run)


def _errors_but_timeouts(run) -> Check:
    """No runtime call failed, except the report loop's aclrtProcessReport timeouts (507012):
    that is how the documented loop learns that nothing more is coming."""
    errors = [
        r
        for r in run.log
        if isinstance(r, tr.ErrorRaised) and not (r.api == "aclrtProcessReport" and r.code == TIMEOUT)
    ]
    timeouts = sum(
        1 for r in run.log if isinstance(r, tr.ErrorRaised) and r.api == "aclrtProcessReport" and r.code == TIMEOUT
    )
    ok = not errors
    waits = (
        f" (aclrtProcessReport timed out {timeouts} time{'s' if timeouts != 1 else ''}: that is fine)"
        if timeouts
        else ""
    )
    detail = (
        f"none{waits}"
        if ok
        else f"{len(errors)}, first: {errors[0].api} returned {errors[0].name} ({errors[0].code}): {errors[0].message}"
    )
    check = Check(
        "runtime errors besides report timeouts",
        ok,
        detail,
        "read acl.get_recent_err_msg() after the failing call: a callback needs a thread subscribed "
        "to its stream (aclrtSubscribeReport) before aclrtLaunchCallback",
        len(errors),
    )
    if errors and errors[0].api == "aclInit":  # the solution opened the board the grader had opened
        return replace(check, hint=BOARD_OPENED)
    return check


def _unsubscribed(run) -> Check:
    subs = [c for c in run.calls("aclrtSubscribeReport") if c.ret == 0]
    unsubs = [c for c in run.calls("aclrtUnSubscribeReport") if c.ret == 0]
    ok = bool(subs) and len(unsubs) >= len(subs)
    detail = (
        f"{len(subs)} subscription{'s' if len(subs) != 1 else ''}, all undone"
        if ok
        else "no thread was subscribed to a stream"
        if not subs
        else f"{len(subs)} subscription(s), {len(unsubs)} undone"
    )
    return Check(
        "subscriptions undone",
        ok,
        detail,
        "after the synchronize, stop the report thread, join it, then acl.rt.unsubscribe_report(thread.ident, stream)",
        len(subs) - len(unsubs),
    )


register(
    Exercise(
        id="07.1",
        title="post-process each batch in a host function",
        practises="aclrtLaunchHostFunc: host work queued on the stream behind the copy it needs, one synchronize",
        signature="solution(batches, summarise) -> list of 8 sums",
        inputs=batches,
        prepare=prepare,
        judge=judge_host_func,
    )
)

register(
    Exercise(
        id="07.2",
        title="post-process each batch in a callback",
        practises="aclrtLaunchCallback with a report thread: subscribe it, launch a callback per batch after its "
        "copy back, serve them with aclrtProcessReport, stop, join and unsubscribe",
        signature="solution(batches, summarise) -> list of 8 sums",
        inputs=batches,
        prepare=prepare,
        judge=judge_callback,
        allow_errors="a report loop ends on an aclrtProcessReport timeout, which is no error here",
    )
)
