"""Notebook 02 · asynchronous execution: the host works while the device does, then the
device overlaps its own copies and compute (double buffering over two streams)."""

from __future__ import annotations

import numpy as np

from sandbox.teach.checks import SYNC_CALLS, Check, check_bytes, check_equal, check_overlap, check_syncs
from sandbox.teach.concepts import Question, Quiz, register_quiz
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


register_quiz(
    Quiz(
        "02.concepts",
        "Concept check: asynchronous execution",
        "概念检查：异步执行",
        (
            Question(
                "The synchronous vector addition takes 11.7 ms (8.2 ms of copies, 3.5 ms of compute). The same "
                "four tasks are queued with asynchronous calls on one stream, and the host waits once. The total is",
                (
                    "about max(8.2, 3.5) = 8.2 ms: asynchronous calls overlap the copies with the add.",
                    "about 11.7 ms still: a stream runs its tasks in order, each after the one before.",
                    "about 3.5 ms: the host no longer waits for the copies.",
                ),
                "b",
                (
                    "asynchronous calls free the host, not the device: tasks in one stream never overlap "
                    "each other, and here each needs the one before",
                    "right: the four bars sit end to end; only the host was freed, within microseconds",
                    "the host not waiting changes when the host is free, not how long the device works: "
                    "the copies still take 8.2 ms",
                ),
                "the cell under 'Row 2, first try · async calls on one stream' and its Gantt chart",
                {
                    "text": "同步的向量加法用 11.7 ms（拷贝 8.2 ms，计算 3.5 ms）。把同样四个任务用异步调用放在一条 Stream 上，"
                    "Host 只等一次。总时间是",
                    "choices": (
                        "约 max(8.2, 3.5) = 8.2 ms：异步调用让拷贝与加法重叠。",
                        "仍约 11.7 ms：Stream 按顺序执行任务，一个接一个。",
                        "约 3.5 ms：Host 不再等待拷贝。",
                    ),
                    "why": (
                        "异步调用解放的是 Host，不是 Device：同一 Stream 上的任务彼此从不重叠，而且这里每个任务都依赖前一个",
                        "对：四个条形首尾相接；被解放的只有 Host，它几微秒就把任务全部入队",
                        "Host 不等待，改变的是 Host 何时空闲，而不是 Device 工作多久：拷贝照样要 8.2 ms",
                    ),
                    "shown_by": "“第 2 行，第一次尝试 · 一条 Stream 上的异步调用”下的单元格及其甘特图",
                },
            ),
            Question(
                "What does the double-buffered program need so that its total approaches max(copies, compute)?",
                (
                    "Only asynchronous calls: queue all the chunks on one stream.",
                    "Two streams and nothing more: the runtime sees which buffers a task uses and orders the "
                    "tasks that share one.",
                    "Chunks on two streams, with events for each chunk's loads and each slot's reuse.",
                ),
                "c",
                (
                    "on one stream the next chunk's loads wait for this chunk's add: chunks alone overlap nothing",
                    "the runtime does not track buffers: without events an add may run before its chunk has "
                    "loaded, and a slot may be overwritten before it was copied back",
                    "right: the compute stream waits for a chunk's loads, the copy stream waits before it reuses "
                    "a slot; the events carry the only dependencies across the streams, everything else may overlap",
                ),
                "the cells under 'Row 2 for real · double buffering over two streams with events'",
                {
                    "text": "双缓冲程序要具备什么，总时间才能接近 max(拷贝, 计算)？",
                    "choices": (
                        "只要异步调用：把所有分块放在一条 Stream 上。",
                        "两条 Stream 就够了：运行时知道每个任务用到哪些缓冲区，会给共用缓冲区的任务排序。",
                        "分块放在两条 Stream 上，用 Event 标记每块的加载和每个槽位的复用。",
                    ),
                    "why": (
                        "在一条 Stream 上，下一块的加载要等这一块的加法做完：只分块不会带来任何重叠",
                        "运行时不跟踪缓冲区：没有 Event，加法可能在数据加载完之前就执行，槽位也可能在拷回之前就被覆盖",
                        "对：计算 Stream 等待一块数据加载完成，拷贝 Stream 在复用槽位之前先等待；Event 承载了两条 Stream 之间仅有的依赖，"
                        "其余一切都可以重叠",
                    ),
                    "shown_by": "“真正的第 2 行 · 用 Event 在两条 Stream 上做双缓冲”下的单元格",
                },
            ),
            Question(
                "The pipeline goes from 16 chunks to 32. The total",
                (
                    "grows a little.",
                    "shrinks a little more: fill and drain get shorter again.",
                    "drops to about 3.5 ms, the compute time.",
                ),
                "a",
                (
                    "right: fill and drain were already short, and every extra copy pays its start-up latency "
                    "again; chunk size is a trade-off, not 'the smaller the better'",
                    "at 16 chunks fill and drain are already short: what 32 chunks save there, their extra copies' "
                    "start-up latency costs again",
                    "overlap hides the shorter work under the longer; here the copies are the longer, so "
                    "8.2 ms is the bound",
                ),
                "the cell under 'How close to the bound?'",
                {
                    "text": "流水线从 16 块增加到 32 块。总时间会",
                    "choices": (
                        "略有增加。",
                        "再减少一点：填充和排空又变短了。",
                        "降到约 3.5 ms，即计算时间。",
                    ),
                    "why": (
                        "对：填充和排空本来就已经很短，每多一次拷贝就多付一次启动延迟；块的大小是一种权衡，并非越小越好",
                        "16 块时填充和排空已经很短：32 块在这里省下的时间，又被多出来的拷贝的启动延迟吃掉了",
                        "重叠是把较短的任务藏到较长的任务下面；这里较长的是拷贝，所以上限是 8.2 ms",
                    ),
                    "shown_by": "“离上限有多近？”下的单元格",
                },
            ),
            Question(
                "The host queues the copy back into `host_c` with `memcpy_async` and reads `host_c` before "
                "synchronising. Where does this go wrong?",
                (
                    "Nowhere on a board: the runtime holds back a read of host memory until the copies that "
                    "write it are done.",
                    "On a board the read races the copy: old, partly written or new bytes, by timing.",
                    "Only in the sandbox: on a board the copy is so fast that it has always landed by then.",
                ),
                "b",
                (
                    "the runtime does not watch the host's reads of its own memory: only a synchronize (or a "
                    "query) tells the host that the copy has landed",
                    "right: a read before synchronising is a matter of order, not of luck; the sandbox shows the "
                    "old bytes every time and raises a HazardWarning",
                    "a 4 MiB copy takes milliseconds and the read comes microseconds after the call; and a "
                    "program that is right only when the copy is fast is wrong",
                ),
                "the cell under 'Reading before synchronising'",
                {
                    "text": "Host 用 `memcpy_async` 把结果拷回 `host_c` 的任务入队后，没有同步就读取 `host_c`。问题出在哪里？",
                    "choices": (
                        "在板卡上没有问题：运行时会挡住对 Host 内存的读取，直到写它的拷贝完成。",
                        "在板卡上，这次读取与拷贝构成数据竞争：读到旧字节、部分新字节还是全部新字节，取决于时序。",
                        "只在沙箱里有问题：板卡上的拷贝很快，读的时候早已落地。",
                    ),
                    "why": (
                        "运行时不监视 Host 对自己内存的读取：只有同步（或查询）才能让 Host 确知拷贝已经落地",
                        "对：同步前读取是顺序问题，不是运气问题；沙箱每次都显示旧字节，并报告 HazardWarning",
                        "4 MiB 的拷贝要几毫秒，而读取就在调用返回几微秒之后；况且只有拷贝够快才正确的程序本身就是错的",
                    ),
                    "shown_by": "“同步前读取”下的单元格",
                },
            ),
        ),
    )
)
