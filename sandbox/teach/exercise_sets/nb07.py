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
from sandbox.teach.concepts import Question, Quiz, register_quiz
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

register_quiz(
    Quiz(
        "07.concepts",
        "Concept check: host callbacks",
        "概念检查：Host 回调",
        (
            Question(
                "A callback is launched with ACL_CALLBACK_BLOCK, and its thread is busy for a while. What waits "
                "for the callback to run?",
                (
                    "The host thread that called aclrtLaunchCallback: the call returns once the callback has run.",
                    "The later tasks of the same stream; the host thread goes on at once.",
                    "Nothing: BLOCK only makes the callbacks of one stream run one at a time.",
                ),
                "b",
                (
                    "aclrtLaunchCallback is asynchronous in both modes: it took the host 1 µs in the BLOCK run, "
                    "and the main thread went on to its copy",
                    "right: BLOCK blocks the stream, not the host: the second kernel started 410 µs late, behind "
                    "the callback task, while the host was busy elsewhere",
                    "BLOCK is about the stream's later tasks: with NO_BLOCK the second kernel started at once, "
                    "with BLOCK it waited for the callback",
                ),
                "the cell under 'BLOCK vs NO_BLOCK'",
                {
                    "text": "用 ACL_CALLBACK_BLOCK 下发了一个回调，而执行它的线程正忙了一阵。谁在等这个回调执行？",
                    "choices": (
                        "调用 aclrtLaunchCallback 的 Host 线程：回调执行完，这个调用才返回。",
                        "同一条 Stream 上后续的任务；Host 线程立即继续往下走。",
                        "谁都不等：BLOCK 只是让同一条 Stream 的回调一个一个地执行。",
                    ),
                    "why": (
                        "aclrtLaunchCallback 在两种模式下都是异步的：BLOCK 那次运行中它只花了 Host 1 µs，主线程接着去做拷贝",
                        "对：BLOCK 阻塞的是 Stream 而不是 Host：第二个核函数排在回调任务后面，晚了 410 µs 才开始，而 Host 在忙别的",
                        "BLOCK 管的是 Stream 上后续的任务：NO_BLOCK 时第二个核函数立即开始，BLOCK 时它要等回调",
                    ),
                    "shown_by": "“BLOCK 与 NO_BLOCK”下的单元格",
                },
            ),
            Question(
                "Which thread runs a callback queued with aclrtLaunchCallback?",
                (
                    "The thread subscribed to its stream with aclrtSubscribeReport, inside one of its "
                    "aclrtProcessReport calls.",
                    "A thread the runtime creates for the stream.",
                    "The thread that called aclrtLaunchCallback, when it next synchronizes the stream.",
                ),
                "a",
                (
                    "right: the callback ran on 'report thread', in its first aclrtProcessReport, which returned 0",
                    "that is aclrtLaunchHostFunc: its function ran on the runtime's thread 'host func (device 0)'; "
                    "a callback needs a thread of yours, or its launch fails with 107015",
                    "a synchronize runs no callback: when the waiting thread is the subscribed one, a BLOCK "
                    "callback is never run and the synchronize can never finish",
                ),
                "the cell under 'The thread that serves reports'",
                {
                    "text": "用 aclrtLaunchCallback 下发的回调由哪个线程执行？",
                    "choices": (
                        "用 aclrtSubscribeReport 绑定到该 Stream 的线程，在它的某一次 aclrtProcessReport 调用中执行。",
                        "运行时为这条 Stream 创建的线程。",
                        "调用 aclrtLaunchCallback 的线程，在它下一次同步这条 Stream 时执行。",
                    ),
                    "why": (
                        "对：回调在 'report thread' 上、在它第一次调用 aclrtProcessReport 时执行，那次调用返回 0",
                        "这是 aclrtLaunchHostFunc：它的函数在运行时的线程 'host func (device 0)' 上执行；回调则需要你自己的线程，"
                        "否则下发就以 107015 失败",
                        "同步不会执行任何回调：如果等待的正是绑定的线程，BLOCK 回调永远不会执行，同步也永远完不成",
                    ),
                    "shown_by": "“服务上报的线程”下的单元格",
                },
            ),
            Question(
                "A report thread loops on aclrtProcessReport(10). The last callback has run. What does its next "
                "call do?",
                (
                    "It returns 0 at once, since all the work is done.",
                    "It runs every callback still queued on any stream of the device.",
                    "It waits 10 ms and returns 507012 (ACL_ERROR_RT_REPORT_TIMEOUT); the loop then checks its "
                    "stop flag.",
                ),
                "c",
                (
                    "0 means a callback was run; with nothing to run, the call waits for its timeout",
                    "one call runs at most one callback, and only of the streams its thread is subscribed to",
                    "right: the report thread's returns were [0, 507012]; a timeout is how a report loop learns "
                    "that nothing more came, not a failure",
                ),
                "the cells under 'The thread that serves reports' and 'What the report calls return'",
                {
                    "text": "一个上报线程循环调用 aclrtProcessReport(10)。最后一个回调已经执行完。它的下一次调用会怎样？",
                    "choices": (
                        "立即返回 0，因为工作都做完了。",
                        "执行该 Device 上所有 Stream 中还在排队的回调。",
                        "等 10 ms，返回 507012（ACL_ERROR_RT_REPORT_TIMEOUT）；随后循环检查停止标志。",
                    ),
                    "why": (
                        "返回 0 表示执行了一个回调；没有可执行的回调时，调用会等到超时",
                        "一次调用至多执行一个回调，而且只执行它的线程所绑定的 Stream 上的回调",
                        "对：上报线程的返回值是 [0, 507012]；超时是上报循环得知不会再有回调的方式，不是失败",
                    ),
                    "shown_by": "“服务上报的线程”和“上报相关调用的返回值”下的单元格",
                },
            ),
            Question(
                "Why does the API reference say a callback must not allocate, free, synchronize or launch?",
                (
                    "Such calls are only slower inside a callback.",
                    "A callback shares resources such as locks with the runtime, and one that waits for its own "
                    "stream deadlocks it: the stream cannot move on until the callback returns.",
                    "The runtime refuses every call made inside a callback with an error code.",
                ),
                "b",
                (
                    "speed is not the problem: a callback that synchronizes its own stream never returns",
                    "right: the callback holds its stream (BLOCK) while it runs, so waiting on that stream from "
                    "inside it can never finish",
                    "the runtime does not refuse them: aclrtMalloc and aclrtFree in the callback returned 0, and "
                    "the sandbox only reported them as callback_call hazards (its 207000 in a host function is "
                    "the sandbox's choice)",
                ),
                "the cell under 'Callbacks must not call the runtime'",
                {
                    "text": "为什么 API 参考规定回调里不能申请、释放资源，不能同步或下发任务？",
                    "choices": (
                        "这些调用在回调里只是更慢一些。",
                        "回调与运行时共享锁之类的资源，等待自己所在 Stream 的回调会让它死锁：回调不返回，Stream 就走不下去。",
                        "运行时会以错误码拒绝回调里发出的每一个调用。",
                    ),
                    "why": (
                        "问题不在速度：同步自己所在 Stream 的回调永远不会返回",
                        "对：回调执行期间占着它的 Stream（BLOCK），在回调里等这条 Stream 永远等不完",
                        "运行时并不拒绝：回调里的 aclrtMalloc 和 aclrtFree 都返回 0，沙箱只把它们报告为 callback_call 隐患"
                        "（Host 函数里返回 207000 是沙箱的选择）",
                    ),
                    "shown_by": "“回调里不能调用运行时接口”下的单元格",
                },
            ),
        ),
    )
)
