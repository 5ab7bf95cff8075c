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
from sandbox.teach.concepts import Question, Quiz, register_quiz
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


# -- concept checks: notebook 09 (errors) and notebook 09b (hazards and the trace) ------------------------
register_quiz(
    Quiz(
        "09.concepts",
        "Concept check: errors, failure modes and recovery",
        "概念检查：错误、任务调度模式与恢复",
        (
            Question(
                "A kernel launched on a stream will fault on the device. Which call returns its error code?",
                (
                    "the launch: the runtime checks the kernel before it queues it",
                    "the first synchronize of that stream after the fault",
                    "none: a device fault is only written to the log (plog), not returned to the program",
                ),
                "b",
                (
                    "a launch only queues the kernel and returns 0; the fault happens later, on the device",
                    "right: the device reports the fault, and the next synchronize returns it",
                    "the log has the details, but the code reaches the program: the synchronize returned 507015",
                ),
                "the cell under '5 · Asynchronous device errors surface at the next synchronize'",
                {
                    "text": "某个 Stream 上下发的核函数会在 Device 上出错。哪个调用返回它的错误码？",
                    "choices": (
                        "下发本身：运行时在入队之前会检查核函数",
                        "故障之后该 Stream 的第一次同步",
                        "哪个都不返回：Device 故障只写进日志（plog），不返回给程序",
                    ),
                    "why": (
                        "下发只是把核函数放进队列并返回 0；故障稍后才在 Device 上发生",
                        "对：Device 报告故障，下一次同步把它返回给程序",
                        "日志里有细节，但错误码会返回给程序：同步返回了 507015",
                    ),
                    "shown_by": "“5 · 异步的 Device 错误在下一次同步时才暴露”下的单元格",
                },
            ),
            Question(
                "Stream A is set to ACL_STOP_ON_FAILURE; stream B, in the same context, is not. A kernel on B "
                "faults. What happens to the tasks still queued on A?",
                (
                    "they run: only a stream set to stop on failure stops, and the fault was on B",
                    "they run, but the runtime skips their copies back to the host",
                    "they are discarded, and new tasks are refused until the device is reset",
                ),
                "c",
                (
                    "stop-on-failure covers the context: set on one stream, every stream of its context stops",
                    "no task of A runs after the stop: none of the three batches arrived",
                    "right: the first failure stopped every stream of the context, A's queued tasks included",
                ),
                "the cell under '6 · Failure modes: what happens to the tasks after a failure'",
                {
                    "text": "Stream A 设置了 ACL_STOP_ON_FAILURE；同一 Context 中的 Stream B 没有设置。B 上的一个核函数出错。"
                    "A 上仍在排队的任务会怎样？",
                    "choices": (
                        "照常执行：只有设置了遇错即停的 Stream 才会停，而故障发生在 B 上",
                        "照常执行，但运行时跳过它们拷回 Host 的拷贝",
                        "被丢弃，而且在复位 Device 之前不再接受新任务",
                    ),
                    "why": (
                        "遇错即停作用于整个 Context：一条 Stream 设置了，同一 Context 的所有 Stream 都会停",
                        "停止之后 A 上没有任务执行：三个批次一个都没回来",
                        "对：首个失败让 Context 中所有 Stream 停止，A 上排队的任务也被丢弃",
                    ),
                    "shown_by": "“6 · 任务调度模式：失败之后的任务会怎样”下的单元格",
                },
            ),
            Question(
                "A worker thread makes a call that fails. The main thread then calls aclGetRecentErrMsg. What does "
                "it get?",
                (
                    "none of the worker's messages: each thread has its own",
                    "the worker's message: the messages are kept for the whole process",
                    "the worker's message, which is then cleared for the worker too",
                ),
                "a",
                (
                    "right: the main thread's messages hold only the main thread's failures",
                    "the messages are per thread: the worker's failure was not among the main thread's",
                    "the main thread never sees the worker's message at all",
                ),
                "the cell under '2 · The messages: newest first, then cleared'",
                {
                    "text": "一个工作线程的某次调用失败了。随后主线程调用 aclGetRecentErrMsg，会得到什么？",
                    "choices": (
                        "没有工作线程的错误信息：每个线程各有各的",
                        "工作线程的错误信息：错误信息是整个进程共享的",
                        "工作线程的错误信息，并且工作线程那边也随之清空",
                    ),
                    "why": (
                        "对：主线程的错误信息只包含主线程自己的失败",
                        "错误信息按线程保存：工作线程的失败不在主线程的信息里",
                        "主线程根本看不到工作线程的错误信息",
                    ),
                    "shown_by": "“2 · 错误信息：最新的在前，读后清空”下的单元格",
                },
            ),
            Question(
                "A context stopped on a failure. How does the program get the device working again?",
                (
                    "synchronize once more: the error is reported once, then the stream takes work again",
                    "reset the device, set it again, and go on with the buffers allocated before",
                    "release everything, reset, set the device again, allocate and upload anew",
                ),
                "c",
                (
                    "the context stays stopped: a new copy was refused with the failure's code",
                    "a pointer from before the reset must not be used after it (the sandbox reports use_after_reset)",
                    "right: release first, then reset, then start again with new buffers",
                ),
                "the cell under 'Recovering: reset the device'",
                {
                    "text": "一个 Context 因失败而停止。程序怎样让 Device 重新工作？",
                    "choices": (
                        "再同步一次：错误只报告一次，之后 Stream 又能接受任务",
                        "复位 Device、重新设置，然后继续使用之前申请的缓冲区",
                        "释放一切、复位、重新设置 Device，再重新申请、重新上传",
                    ),
                    "why": (
                        "Context 一直停着：新的拷贝被以那次失败的错误码拒绝",
                        "复位之前的指针在复位之后不能再用（沙箱会报告 use_after_reset）",
                        "对：先释放，再复位，然后用新的缓冲区重新开始",
                    ),
                    "shown_by": "“恢复：复位 Device”下的单元格",
                },
            ),
        ),
    )
)

register_quiz(
    Quiz(
        "09b.concepts",
        "Concept check: hazards and the trace",
        "概念检查：隐患与 trace",
        (
            Question(
                "A program reads a host buffer that an asynchronous copy writes, before it synchronizes, and prints "
                "the right value every time in the sandbox. Is it correct?",
                (
                    "yes: the value was right in every run so far",
                    "no: nothing tells the host the copy back has finished",
                    "yes: one stream runs its copy and kernel in order",
                ),
                "b",
                (
                    "a lucky schedule is not a guarantee: on a busier machine the read comes first",
                    "right: a read before synchronising; only a synchronize (or a wait that saw completion) "
                    "orders it after the copy",
                    "stream order orders the tasks with each other, not the host's read with them",
                ),
                "the cells under '1.1 · Reading a host buffer before the copy into it is known complete'",
                {
                    "text": "程序在同步之前读取一个由异步拷贝写入的 Host 缓冲区，在沙箱里每次都打印出正确的值。这个程序对吗？",
                    "choices": (
                        "对：到目前为止每次的值都正确",
                        "不对：没有任何东西告诉 Host 拷回已经完成",
                        "对：一条 Stream 按顺序执行它的拷贝和核函数",
                    ),
                    "why": (
                        "碰巧的调度不是保证：换一台更忙的机器，读取就可能抢在前面",
                        "对：这是同步前读取；只有同步（或确认已完成的等待）才能让读取排在拷贝之后",
                        "Stream 的顺序只约束任务之间，不约束 Host 的读取",
                    ),
                    "shown_by": "“1.1 · 在确认拷贝完成之前读取 Host 缓冲区”下的单元格",
                },
            ),
            Question(
                "aclrtFree(dy) right after launching, on one stream, a kernel that writes dy. What is the hazard?",
                (
                    "a data race between the kernel's stream and the host's free",
                    "none: aclrtFree waits for the work queued on the stream",
                    "a use after free: the kernel writes memory already freed",
                ),
                "c",
                (
                    "there is one stream here; the free is a host call, not a second stream's task",
                    "aclrtFree does not wait: the kernel ran after the free and faulted",
                    "right: aclrtFree does not wait for the stream; not every hazard is a data race",
                ),
                "the cells under '1.3 · Freeing memory that queued work still uses'",
                {
                    "text": "在一条 Stream 上下发一个写 dy 的核函数后立即调用 aclrtFree(dy)。这是什么隐患？",
                    "choices": (
                        "核函数所在 Stream 与 Host 释放之间的数据竞争",
                        "没有隐患：aclrtFree 会等待 Stream 上排队的任务",
                        "释放后使用：核函数写入了已经释放的内存",
                    ),
                    "why": (
                        "这里只有一条 Stream；释放是 Host 调用，不是另一条 Stream 上的任务",
                        "aclrtFree 不等待：核函数在释放之后才运行，并且出错了",
                        "对：aclrtFree 不等待 Stream；隐患不都是数据竞争",
                    ),
                    "shown_by": "“1.3 · 释放排队任务仍在使用的内存”下的单元格",
                },
            ),
            Question(
                "One thread launches a copy into dx on stream 1, then a kernel reading dx on stream 2. What orders "
                "the kernel after the copy?",
                (
                    "nothing yet: it needs an event recorded on stream 1 and waited on by stream 2",
                    "the order of the calls: the kernel was launched after the copy, by the same thread",
                    "the device: it runs one stream at a time, in launch order",
                ),
                "a",
                (
                    "right: without the event the two tasks are unordered, a data race",
                    "launch order orders the tasks of one stream only; two streams run independently",
                    "streams run concurrently; that is what they are for",
                ),
                "the cells under '1.2 · Two streams on one buffer without an event'",
                {
                    "text": "一个线程先在 Stream 1 上下发写入 dx 的拷贝，再在 Stream 2 上下发读取 dx 的核函数。是什么让核函数排在拷贝之后？",
                    "choices": (
                        "还没有：需要在 Stream 1 上记录一个 Event，并让 Stream 2 等待它",
                        "调用的先后：同一个线程在拷贝之后才下发核函数",
                        "Device：它按下发顺序一次只运行一条 Stream",
                    ),
                    "why": (
                        "对：没有 Event，两个任务之间没有顺序，这才是数据竞争",
                        "下发顺序只约束同一条 Stream 上的任务；两条 Stream 各自独立执行",
                        "多条 Stream 会并发执行，这正是 Stream 的用途",
                    ),
                    "shown_by": "“1.2 · 两条 Stream 访问同一个缓冲区而没有 Event”下的单元格",
                },
            ),
            Question(
                "In the exported trace, how do you find the host call that queued a given kernel?",
                (
                    "by time: the call starts at the same timestamp as the kernel slice",
                    "by name: the host thread's row has a slice named after the kernel",
                    "by the flow arrow from the aclrtLaunchKernel call to the kernel's slice",
                ),
                "c",
                (
                    "a launch only queues: the kernel starts later, often much later",
                    "the host row holds API calls (aclrtLaunchKernel), not kernels",
                    "right: the flow's id links the call on the host thread to the task on the stream row",
                ),
                "the cell under '2 · The trace in Perfetto' that reads the exported file",
                {
                    "text": "在导出的 trace 中，怎样找到下发某个核函数的那次 Host 调用？",
                    "choices": (
                        "按时间：调用与核函数切片的时间戳相同",
                        "按名字：Host 线程那一行上有一个以核函数命名的切片",
                        "按从 aclrtLaunchKernel 调用指向核函数切片的流箭头",
                    ),
                    "why": (
                        "下发只是入队：核函数开始得更晚，常常晚很多",
                        "Host 行上是 API 调用（aclrtLaunchKernel），不是核函数",
                        "对：流箭头的 id 把 Host 线程上的调用和 Stream 行上的任务连在一起",
                    ),
                    "shown_by": "“2 · Perfetto 中的 trace”里读取导出文件的单元格",
                },
            ),
        ),
    )
)
