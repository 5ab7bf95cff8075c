"""Notebook 03 · streams and events: independent work side by side, order across streams
with an event (not with the host), and timing a kernel with events while the host polls."""

from __future__ import annotations

import numpy as np

import sandbox

from sandbox.teach.checks import Check, check_equal, check_syncs
from sandbox.teach.concepts import Question, Quiz, register_quiz
from sandbox.teach.grading import Exercise, register
from sandbox.viz.timeline import intersect, union
from sandbox.viz.units import fmt_time

from .nb02 import WAIT_CALLS, check_time_to_result

OTHER_WORK = "host work: other work"  # the call other_work() makes


# -- the notebook's kernels, as it declares them: the grader knows them by their code and cost ---------------
@sandbox.kernel(ns=2_000_000)
def long_op(x: "uint32*"):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    x[0] += 1


@sandbox.kernel(ns=100_000)
def short_op(x: "uint32*"):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    x[0] *= 2


@sandbox.kernel(ns=lambda t: t)
def work(t: int):
    pass


KERNELS = (long_op, short_op, work)


def _kernels(run, name=None):
    return [
        t
        for t in run.index.tasks.values()
        if t.kind == "kernel" and t.start is not None and (name is None or t.name == name)
    ]


def _body(run, task) -> int:
    """What a `work` kernel was asked to take (its run minus the device's start-up)."""
    return (task.end - task.start) - run.machine.profile.kernel_start_ns


def _launch_call(run, task):
    return next((c for c in run.calls("aclrtLaunchKernel") if task.task in c.tasks), None)


def _waits_between(run, lo: int, hi: int) -> list:
    """Calls that made the host wait (synchronize, query, blocking copy, host work) in [lo, hi)."""
    return [c for c in run.calls() if lo <= c.start < hi and (c.name in WAIT_CALLS or c.name.startswith("host work"))]


# -- 03.1 · side by side -----------------------------------------------------------------------------
def kernel_time(rng: np.random.Generator) -> dict:
    return {"t": int(rng.integers(500, 1_500)) * 1_000}


def judge_side_by_side(run):
    t = run.inputs["t"]
    kernels = _kernels(run)
    works = [k for k in kernels if k.name == "work"]
    right = [k for k in works if k.block_dim == 6 and _body(run, k) == t]
    ok = len(kernels) == 4 and len(right) == 4
    yield Check(
        "the kernels",
        ok,
        f"{len(kernels)} kernel(s), {len(right)} of them work[6, s]({t})"
        + ("" if ok else ", want exactly four work[6, s](t), nothing else"),
        "launch work[6, s](t) four times with the t you are given: the same kernels, only on other streams",
        len(right),
    )
    streams = {k.stream for k in kernels}
    yield Check(
        "streams",
        len(streams) >= 4 and len(kernels) == 4,
        f"the kernels ran on {len(streams)} stream(s)" + ("" if len(streams) >= 4 else ", want each on its own stream"),
        "a stream runs its tasks one after another: create four streams and launch one kernel on each",
        len(streams),
    )
    points = sorted({k.start for k in kernels})
    most = max((sum(1 for k in kernels if k.start <= p < k.end) for p in points), default=0)
    yield Check(
        "kernels running at once",
        most >= 4,
        f"at most {most} of them ran at the same moment" + ("" if most >= 4 else ", want all 4"),
        "four kernels of 6 cores fit on the 24 cores at once: put each on its own stream and "
        "queue all four before the host waits",
        most,
    )
    calls = [_launch_call(run, k) for k in kernels]
    calls = [c for c in calls if c is not None]
    waited = _waits_between(run, min(c.end for c in calls), max(c.start for c in calls)) if calls else []
    yield Check(
        "no wait between the launches",
        bool(calls) and not waited,
        "the host queued every launch before it waited"
        if calls and not waited
        else "no launch"
        if not calls
        else f"the host waited between launches ({', '.join(sorted({c.name for c in waited}))})",
        "launch all four, then wait once at the end (acl.rt.synchronize_device waits for every stream)",
        len(waited),
    )
    yield check_time_to_result(
        run,
        at_most_ns=t + 500_000,
        from_first_copy=False,
        hint="four kernels side by side take as long as one: t plus a little for creating the streams and launching",
    )


# -- 03.2 · order with an event ----------------------------------------------------------------------
def start_value(rng: np.random.Generator) -> dict:
    return {"x0": int(rng.integers(1, 2**20))}


def check_event_edge(run, first, then) -> Check:
    """An aclrtStreamWaitEvent on ``then``'s stream, queued before ``then``, for an event
    recorded on ``first``'s stream after ``first``."""
    ix = run.index
    for w in ix.tasks.values():
        if w.kind != "event_wait" or w.stream != then.stream or w.task > then.task:
            continue
        rec = ix.tasks.get(w.waits_on)
        if rec is not None and rec.stream == first.stream and rec.task > first.task:
            return Check(
                "event between the streams",
                True,
                f"{ix.stream_label(then.stream)} waits for {ix.event_label(w.event)}, recorded on "
                f"{ix.stream_label(first.stream)} after {first.name}",
                "",
                w.task,
            )
    waits = [w for w in ix.tasks.values() if w.kind == "event_wait" and w.stream == then.stream]
    if waits:
        detail = f"{then.name}'s stream waits for an event, but not for one recorded after {first.name} on its stream"
        hint = "record the event on the long kernel's stream after launching long_op, then make the other stream wait"
    else:
        detail = f"no aclrtStreamWaitEvent before {then.name} on its stream"
        hint = (
            "record an event on stream 1 after long_op (acl.rt.record_event) and make stream 2 wait for it "
            "(acl.rt.stream_wait_event) before short_op: the device keeps the order, the host does not wait"
        )
    return Check("event between the streams", False, detail, hint, None)


def judge_event_order(run):
    shape, x = run.answer((1,), np.uint32, what="x")
    yield shape
    if x is not None:
        want = np.array([(run.inputs["x0"] + 1) * 2 % 2**32], np.uint32)
        yield check_equal(x, want, what="x", hint="long_op (+1) must run before short_op (x2)")
        yield run.from_device(x, what="x")
    longs, shorts = _kernels(run, "long_op"), _kernels(run, "short_op")
    ok = len(longs) == 1 and len(shorts) == 1 and len(_kernels(run)) == 2
    yield Check(
        "the kernels",
        ok,
        f"long_op x{len(longs)}, short_op x{len(shorts)}, {len(_kernels(run))} kernel(s) in all"
        + ("" if ok else ", want long_op once and short_op once"),
        "launch long_op[1, s1](dev_x) and short_op[1, s2](dev_x), once each",
        len(_kernels(run)),
    )
    if not (longs and shorts):
        return
    first, then = longs[0], shorts[0]
    two = first.stream != then.stream
    yield Check(
        "two streams",
        two,
        "long_op and short_op ran on different streams" if two else "long_op and short_op ran on the same stream",
        "the exercise is about ordering two streams: launch short_op on a second stream",
        two,
    )
    yield check_event_edge(run, first, then)
    gap = then.start - first.end
    yield Check(
        "order on the device",
        gap >= 0,
        f"short_op started {fmt_time(gap)} after long_op ended"
        if gap >= 0
        else f"short_op started {fmt_time(-gap)} before long_op ended",
        "make short_op's stream wait for an event recorded after long_op",
        gap,
    )
    call = _launch_call(run, then)
    early = call is not None and call.start < first.end
    yield Check(
        "the host did not wait for long_op",
        early,
        (
            f"short_op was launched {fmt_time(first.end - call.start)} before long_op ended"
            if early
            else "short_op was launched only after long_op had ended: the host waited for it"
        ),
        "leave the waiting to the device: no synchronize or sleep between the two launches, an event instead",
        None if call is None else first.end - call.start,
    )
    yield check_syncs(run.log, at_most=1, hint="one synchronize at the end, before you copy x back and read it")


# -- 03.3 · time a kernel without blocking the host ---------------------------------------------------
def body_time(rng: np.random.Generator) -> dict:
    return {"ns": int(rng.integers(200, 2_000)) * 1_000}


def _last_record(run, event: int | None, before_seq: int):
    recs = [
        t for t in run.index.tasks.values() if t.kind == "event_record" and t.event == event and t.api_seq < before_seq
    ]
    return recs[-1] if recs else None


def _records_around(run, kernel):
    """The last event record before ``kernel`` and the first after it, on its stream."""
    recs = [t for t in run.index.tasks.values() if t.kind == "event_record" and t.stream == kernel.stream]
    before = [r for r in recs if r.task < kernel.task]
    after = [r for r in recs if r.task > kernel.task]
    return (before[-1] if before else None), (after[0] if after else None)


def judge_event_timing(run):
    ns = run.inputs["ns"]
    kernels = _kernels(run)
    mine = [k for k in kernels if k.name == "work" and _body(run, k) == ns]
    ok = len(kernels) == 1 and len(mine) == 1
    yield Check(
        "the kernel",
        ok,
        f"{len(kernels)} kernel(s), {len(mine)} of them work(ns) with ns = {ns}"
        + ("" if ok else ", want exactly one work[1, s](ns)"),
        "launch work[1, s](ns) once, with the ns you are given",
        len(mine),
    )
    kernel = mine[0] if mine else (kernels[0] if kernels else None)
    ix = run.index
    elapsed = [c for c in run.calls("aclrtEventElapsedTime") if c.ret == 0]
    if elapsed:  # the events the program asked about
        call = elapsed[-1]
        args = dict(call.args)
        start, end = _last_record(run, args.get("start"), call.seq), _last_record(run, args.get("end"), call.seq)
        around = (
            kernel is not None
            and start is not None
            and end is not None
            and start.stream == end.stream == kernel.stream
            and start.task < kernel.task < end.task
        )
        yield Check(
            "events around the kernel",
            around,
            f"the start and end events were recorded on {ix.stream_label(kernel.stream)} before and "  # type: ignore[union-attr]  # only if around: kernel is set
            f"after the kernel"
            if around
            else "the events given to aclrtEventElapsedTime were not recorded before and after the kernel "
            "on its stream",
            "record start, launch work, record end, all on the same stream",
            around,
        )
    else:  # judge the value against the records around the kernel, if any
        start, end = _records_around(run, kernel) if kernel is not None else (None, None)
        yield Check(
            "events around the kernel",
            False,
            "no successful aclrtEventElapsedTime call",
            "record an event before and one after the kernel on its stream, wait until the end "
            "event has completed, then ask acl.rt.event_elapsed_time(start, end)",
        )
    if end is not None and elapsed:
        knew = run.knew([end.task])
        yield Check(
            "the host knew the end event had completed",
            knew,
            "a query (or a wait) of the host said the end event had completed before it asked for the time"
            if knew
            else "nothing the host did told it the end event had completed before it asked for the time: "
            "it was late enough by chance of timing",
            "poll acl.rt.query_event_status(end) until it answers ACL_EVENT_RECORDED_STATUS_COMPLETE, "
            "calling other_work() in between; then ask for the elapsed time",
        )
    r = run.result
    if start is not None and end is not None and start.end is not None and end.end is not None:
        per_ms = run.machine.profile.timer_ticks_per_ms
        device_ms = (end.end * per_ms // 1_000_000 - start.end * per_ms // 1_000_000) / per_ms
        number = isinstance(r, (float, int, np.floating, np.integer)) and not isinstance(r, bool)
        good = number and abs(float(r) - device_ms) <= 1e-9
        tick = 1e6 / per_ms
        yield Check(
            "the elapsed time",
            good,
            (
                f"{float(r):.6f} ms, what the device's event timestamps say"
                if good
                else f"got {r!r}, want {device_ms:.6f} ms (the events' timestamps, in whole {tick:.0f} ns ticks)"
            ),
            "return the milliseconds acl.rt.event_elapsed_time(start, end) gives, not a host "
            "clock or the kernel's nominal time",
            r,
        )
    else:
        yield Check(
            "the elapsed time",
            False,
            f"got {r!r}, but no two events recorded around the kernel completed to compare it with",
            "the time must come from the device: two events around the kernel, and "
            "acl.rt.event_elapsed_time(start, end)",
            r,
        )
    yield check_syncs(
        run.log,
        exactly=0,
        hint="do not block: poll acl.rt.query_event_status(end) and call other_work() between the queries",
    )
    if kernel is not None and kernel.end is not None:
        host = union([(c.start, c.end) for c in run.calls(OTHER_WORK)])
        both = sum(e - s for s, e in intersect(host, [(kernel.start, kernel.end)]))
        frac = both / (kernel.end - kernel.start)
        yield Check(
            "host work while waiting",
            frac >= 0.75,
            f"other_work() ran for {fmt_time(both)} of the kernel's {fmt_time(kernel.end - kernel.start)} "
            f"({frac:.0%})" + ("" if frac >= 0.75 else ", want at least 75%"),
            "loop: while the end event is not complete, call other_work()",
            both,
        )


register(
    Exercise(
        id="03.1",
        kernels=KERNELS,
        title="run independent work side by side",
        practises="streams run independently: four kernels on four streams share the AI Cores at once",
        signature="solution(t) -> None",
        profile="ascend910b",
        inputs=kernel_time,
        judge=judge_side_by_side,
    )
)

register(
    Exercise(
        id="03.2",
        kernels=KERNELS,
        title="order with an event, not the host",
        practises="aclrtRecordEvent / aclrtStreamWaitEvent: one stream waits for another on the device",
        signature="solution(x0) -> np.ndarray",
        profile="ascend910b",
        inputs=start_value,
        judge=judge_event_order,
    )
)

register(
    Exercise(
        id="03.3",
        kernels=KERNELS,
        title="time a kernel without blocking",
        practises="event timing, and querying an event instead of synchronising while the host works",
        signature="solution(ns) -> float",
        profile="ascend910b",
        inputs=body_time,
        judge=judge_event_timing,
    )
)

register_quiz(
    Quiz(
        "03.concepts",
        "Concept check: streams and events",
        "概念检查：Stream 与 Event",
        (
            Question(
                "Three kernels, each 1 ms on 8 of the 910B's 24 AI Cores, are launched on **one** stream. "
                "How long does the device take to finish all three?",
                (
                    "About 1 ms: there are enough free cores for all three at once.",
                    "About 3 ms: a stream runs its tasks one after another.",
                    "About 1 ms: the launches are asynchronous, so the kernels overlap.",
                ),
                "b",
                (
                    "free cores do not matter: a stream never starts a task before the one before it in the "
                    "same stream has finished",
                    "right: one stream is one in-order queue; to run them together, put them on three streams",
                    "asynchronous means the host does not wait; it says nothing about the device running a "
                    "stream's tasks at the same time",
                ),
                "the cell under 'Several streams run at the same time'",
                {
                    "text": "三个核函数，各占 910B 的 24 个 AI Core 中的 8 个、各运行 1 ms，全部下发到**一条** Stream 上。"
                    "Device 要多久才能把三个都做完？",
                    "choices": (
                        "约 1 ms：空闲的核足够三个同时运行。",
                        "约 3 ms：一条 Stream 上的任务一个接一个地执行。",
                        "约 1 ms：下发是异步的，所以核函数会重叠。",
                    ),
                    "why": (
                        "核空不空无关紧要：同一条 Stream 中前一个任务没完成，下一个就不会开始",
                        "对：一条 Stream 就是一个按序队列；要让它们同时运行，就放到三条 Stream 上",
                        "异步说的是 Host 不等待，并不意味着 Device 会让同一条 Stream 的任务同时执行",
                    ),
                    "shown_by": "“多条 Stream 同时运行”下的单元格",
                },
            ),
            Question(
                "Kernel A is queued on stream s1 and kernel C on stream s3. Then `record_event(e, s1)`, "
                "`stream_wait_event(s2, e)`, and kernel B is launched on s2. What does B wait for?",
                (
                    "A and C: an event marks everything queued on the device before it.",
                    "A only: the event marks the work queued on s1 before the record.",
                    "Nothing: B waits only if the host synchronizes first.",
                ),
                "b",
                (
                    "an event is recorded in one stream and marks that stream's work only; C on s3 is not part of it",
                    "right: the record is a marker in s1, and the wait holds s2 until the device has reached it",
                    "the wait happens on the device, without the host: that is what aclrtStreamWaitEvent is for",
                ),
                "the cell under 'Ordering two streams: the official multi-stream sample'",
                {
                    "text": "核函数 A 已下发到 Stream s1，核函数 C 已下发到 Stream s3。然后调用 `record_event(e, s1)`、"
                    "`stream_wait_event(s2, e)`，再把核函数 B 下发到 s2。B 要等什么？",
                    "choices": (
                        "A 和 C：Event 标记的是它之前下发到 Device 上的全部任务。",
                        "只等 A：Event 标记的是记录之前下发到 s1 上的任务。",
                        "什么也不等：只有 Host 先同步，B 才会等。",
                    ),
                    "why": (
                        "Event 记录在一条 Stream 中，只标记这条 Stream 的任务；s3 上的 C 不在其中",
                        "对：记录是 s1 中的一个标记，等待让 s2 停在那里，直到 Device 执行到这个标记",
                        "等待发生在 Device 上，不需要 Host 参与：这正是 aclrtStreamWaitEvent 的用途",
                    ),
                    "shown_by": "“为两条 Stream 排序：官方多 Stream 示例”下的单元格",
                },
            ),
            Question(
                "An event is recorded behind a 2 ms kernel, and the host calls `query_event_status` on it at "
                "once. What happens?",
                (
                    "The query waits until the kernel is done, then answers 'complete'.",
                    "The query fails: the event has not completed yet.",
                    "The query answers 'not ready' at once, without waiting.",
                ),
                "c",
                (
                    "that is aclrtSynchronizeEvent; a query never blocks the host",
                    "a query of a pending event is not an error: 'not ready' is its answer (it is asking for "
                    "the elapsed time too early that fails)",
                    "right: it answers in microseconds, so the host can do other work and ask again",
                ),
                "the cell under 'Query versus synchronize'",
                {
                    "text": "在一个 2 ms 的核函数之后记录了一个 Event，Host 立即对它调用 `query_event_status`。会怎样？",
                    "choices": (
                        "查询一直等到核函数结束，然后回答“已完成”。",
                        "查询失败：Event 还没有完成。",
                        "查询立即回答“未就绪”，不等待。",
                    ),
                    "why": (
                        "那是 aclrtSynchronizeEvent；查询从不阻塞 Host",
                        "查询一个尚未完成的 Event 不是错误，“未就绪”就是它的回答（过早查询耗时才会失败）",
                        "对：它在几微秒内回答，Host 可以先做别的事，再来问",
                    ),
                    "shown_by": "“查询与同步”下的单元格",
                },
            ),
            Question(
                "On a 910B, stream `low` (priority 7) queues a kernel that needs every AI Core, and then stream "
                "`high` (priority 0) does the same, while a third kernel still holds all the cores. Which of the "
                "two runs next?",
                (
                    "`high`: 0 is the highest priority, and the scheduler picks the highest-priority waiting task.",
                    "`low`: the larger number is the higher priority.",
                    "`low`: it was queued first, and priority is only a hint.",
                ),
                "a",
                (
                    "right: aclrtDeviceGetStreamPriorityRange gives least 7 and greatest 0; on the 310B, which "
                    "has no priorities, `low` would go first",
                    "the numbers run the other way: 0 is the greatest priority, 7 the least",
                    "on the 910B priority does decide among tasks waiting for the same engine; queue order wins "
                    "only where priorities are not supported (310B, 310P)",
                ),
                "the cells under 'Stream priority'",
                {
                    "text": "在 910B 上，第三个核函数仍占着全部 AI Core 时，Stream `low`（优先级 7）下发一个要用全部核的"
                    "核函数，随后 Stream `high`（优先级 0）也下发一个。这两个谁先执行？",
                    "choices": (
                        "`high`：0 是最高优先级，调度器从等待的任务中挑优先级最高的。",
                        "`low`：数字越大，优先级越高。",
                        "`low`：它先下发，优先级只是个建议。",
                    ),
                    "why": (
                        "对：aclrtDeviceGetStreamPriorityRange 给出最低 7、最高 0；在不支持优先级的 310B 上，才会是 `low` 先执行",
                        "数字的方向正好相反：0 是最高优先级，7 是最低",
                        "在 910B 上，优先级确实决定等同一个引擎的任务谁先；只有在不支持优先级的 310B、310P 上才按下发顺序",
                    ),
                    "shown_by": "“Stream 优先级”下的单元格",
                },
            ),
        ),
    )
)
