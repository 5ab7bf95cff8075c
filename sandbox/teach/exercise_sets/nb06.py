"""Notebook 06 · threads and processes: one thread per device (06.2, in the notebook), one
thread driving four devices and two processes sharing one device (06.1 and 06.3, in the deep
dive 06x_patterns_in_depth); and the notebook's concept check (06.concepts).

Every exercise squares float32 chunks with the notebook's ``square`` kernel (a fixed 200 ms
however many blocks it has), one chunk per device (or per process), and returns the squares.
The judges check where each answer came from (a kernel, copied back from the right device),
which host threads and processes launched the kernels, and that the devices (or the two
processes on one device) really worked at the same moment.
"""

from __future__ import annotations

import numpy as np

import sandbox

from sandbox.core import trace as tr
from sandbox.teach.checks import Check, check_devices_together, check_equal, check_launchers, check_shared_device
from sandbox.teach.concepts import Question, Quiz, register_quiz
from sandbox.teach.grading import START, Exercise, register
from sandbox.teach.provenance import KERNEL

N = 256 * 1024  # elements per chunk (float32, 1 MiB)
DEVICES = (0, 1, 2, 3)
CORES = 24  # AI Cores of a 910B device


# The notebook's kernel (instructor/06_threads_processes.py), as it declares it: known by its code and cost.
@sandbox.kernel(ns=200_000_000)
def square(x: "float32*", n: int):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    x[:n] = x[:n] * x[:n]


def chunks(count: int):
    def make(rng: np.random.Generator) -> dict:
        return {"chunks": [rng.random(N, dtype=np.float32) * 4 - 2 for _ in range(count)]}

    return make


# -- helpers -----------------------------------------------------------------------------------------
def _solution_tid(run) -> int | None:
    """The host thread the grader called the solution on (the one that wrote the START mark)."""
    for r in run.log:
        if isinstance(r, tr.Note) and r.text == START:
            return r.tid
    return None


def _kernels(run):
    return [t for t in run.index.tasks.values() if t.kind == "kernel" and t.start is not None]


def _thread_name(run, tid) -> str:
    info = run.index.threads.get(tid)
    return repr(info.name) if info is not None else f"thread {tid}"


def _results(run, count: int):
    """The returned list of ``count`` arrays, or a ✘ saying what came back instead."""
    r = run.result
    want = f"a list of {count} float32 arrays of {N} elements"
    if isinstance(r, tuple):
        r = list(r)
    if not isinstance(r, list) or len(r) != count:
        got = (
            "None (did the function end without a return?)"
            if r is None
            else f"a list of {len(r)}"
            if isinstance(r, list)
            else f"a {type(r).__name__}"
        )
        return Check(
            "what came back",
            False,
            f"{got}, want {want}",
            "collect each chunk's result in a list (threads and processes can write into a list "
            "the solution made) and return it",
        ), None
    bad = [i for i, a in enumerate(r) if not isinstance(a, np.ndarray) or a.shape != (N,) or a.dtype != np.float32]
    if bad:
        a = r[bad[0]]
        got = (
            f"shape {a.shape} {a.dtype.name}"
            if isinstance(a, np.ndarray)
            else "None"
            if a is None
            else f"a {type(a).__name__}"
        )
        return Check(
            "what came back",
            False,
            f"item {bad[0]} is {got}, want {want}",
            "copy each result out of its host buffer: acl.util.ptr_to_numpy(ptr, (N,), np.float32).copy()",
        ), None
    return Check("what came back", True, want), r


def _answers(run, devices):
    """The squares are right, computed by kernels, and chunk i came back from devices[i]."""
    shape, arrays = _results(run, len(devices))
    yield shape
    if arrays is None:
        return
    xs = run.inputs["chunks"]
    wrong = [i for i, (a, x) in enumerate(zip(arrays, xs)) if not np.array_equal(a, x * x)]
    yield (
        check_equal(
            arrays[wrong[0]],
            xs[wrong[0]] * xs[wrong[0]],
            what=f"chunk {wrong[0]} squared",
            hint="square each chunk with the square kernel, copy it back, and synchronise before reading it",
        )
        if wrong
        else Check("the squares", True, f"all {len(devices)} chunks squared correctly")
    )
    yield run.check_kernels({"square": square})
    bad = []
    for i, (a, d) in enumerate(zip(arrays, devices)):
        origin, words, landing = run.recorder.trace_back(np.ascontiguousarray(a).tobytes())
        task = run.index.tasks.get(landing.task) if landing is not None else None
        if landing is None or origin < KERNEL:
            bad.append(f"chunk {i} did not come from the device: {words}")
        elif task is None or task.device != d:
            bad.append(f"chunk {i} came back from device {task.device if task else '?'}, not device {d}")
    yield Check(
        "each chunk came from its device",
        not bad,
        bad[0] + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else "")
        if bad
        else (
            "each chunk was computed by a kernel on device 0 and copied back from there"
            if len(set(devices)) == 1
            else "chunk i was computed by a kernel on device i and copied back from there"
        ),
        "launch square on the device the chunk belongs to, copy the result back with a device-to-host "
        "copy and synchronise before you read it",
    )


# -- 06.1 · one thread, four devices -----------------------------------------------------------------
def judge_one_thread(run):
    yield from _answers(run, DEVICES)
    yield check_launchers(
        run.log,
        threads=1,
        processes=1,
        hint="this exercise is pattern 1: the solution's own thread launches on every device, "
        "switching with acl.rt.set_device(d); start no threads",
    )
    yield check_devices_together(
        run.log,
        devices=DEVICES,
        hint="queue every device's work before you wait for any of them: a synchronize "
        "before switching to the next device keeps the devices one after another",
    )


# -- 06.2 · one thread per device --------------------------------------------------------------------
def judge_thread_per_device(run):
    yield from _answers(run, DEVICES)
    yield check_launchers(
        run.log,
        threads=4,
        processes=1,
        hint="start one threading.Thread per device, and let each thread launch its device's kernel",
    )
    yield _one_device_each(run)
    yield check_devices_together(
        run.log,
        devices=DEVICES,
        hint="start all four threads before you join any of them: a join right after "
        "each start runs the devices one after another",
    )


def _one_device_each(run) -> Check:
    """Each launching thread launched on one device, each device got kernels from one thread,
    and none of them is the solution's own thread."""
    main = _solution_tid(run)
    per_thread: dict[int, set] = {}
    per_device: dict[int, set] = {}
    for t in _kernels(run):
        per_thread.setdefault(t.tid, set()).add(t.device)
        per_device.setdefault(t.device, set()).add(t.tid)
    problems = []
    if main in per_thread:
        problems.append(f"the solution's own thread launched on device {', '.join(map(str, sorted(per_thread[main])))}")
    for tid, devs in sorted(per_thread.items()):
        if len(devs) > 1 and tid != main:
            problems.append(f"thread {_thread_name(run, tid)} launched on devices {', '.join(map(str, sorted(devs)))}")
    for d, tids in sorted(per_device.items()):
        if len(tids) > 1:
            problems.append(f"device {d} got kernels from {len(tids)} threads")
    ok = bool(per_thread) and not problems
    detail = (
        "each device's kernels came from a thread of its own, started by the solution"
        if ok
        else problems[0]
        if problems
        else "no kernel ran"
    )
    return Check(
        "one thread per device",
        ok,
        detail,
        "give thread d the whole of device d's work (set_device(d) in that thread, then its stream, "
        "buffers, copies, kernel and synchronize); the solution's thread only starts and joins them",
        len(per_thread),
    )


# -- 06.3 · two processes on one device ----------------------------------------------------------
def judge_shared_device(run):
    yield from _answers(run, (0, 0))
    yield check_launchers(
        run.log,
        processes=2,
        hint="start each chunk's work with sandbox.spawn_process(fn, ...): threads of one "
        "process are not two processes",
    )
    yield _each_process_one_chunk(run)
    yield check_shared_device(
        run.log,
        device=0,
        processes=2,
        hint=f"a kernel with block_dim {CORES} takes all {CORES} AI Cores, so the other "
        f"process's kernel waits; launch with at most {CORES // 2} blocks, and start "
        "both processes before joining either",
    )


def _each_process_one_chunk(run) -> Check:
    """Two spawned processes launched the kernels (the solution's own process none), and
    each chunk was copied back by a different one."""
    main = _solution_tid(run)
    main_pid = run.index.threads[main].pid if main in run.index.threads else None
    pids: dict = {}
    for t in _kernels(run):
        info = run.index.threads.get(t.tid)
        pids.setdefault(info.pid if info else None, []).append(t)
    problems = []
    if main_pid in pids:
        problems.append(f"the solution's own process launched {len(pids[main_pid])} kernel(s)")
    if len([p for p in pids if p != main_pid]) != 2:
        problems.append(f"kernels came from {len([p for p in pids if p != main_pid])} spawned processes, want 2")
    if not problems and isinstance(run.result, (list, tuple)):
        copiers = []  # the process whose copy brought each chunk back
        for a in run.result:
            if not isinstance(a, np.ndarray):
                continue
            landing = run.recorder.trace_back(np.ascontiguousarray(a).tobytes())[2]
            task = run.index.tasks.get(landing.task) if landing is not None else None
            info = run.index.threads.get(task.tid) if task is not None else None
            if info is not None:
                copiers.append(info.pid)
        if len(copiers) == 2 and copiers[0] == copiers[1]:
            problems.append(
                f"both chunks were copied back by process "
                f"{run.index.processes.get(copiers[0], copiers[0])!r}: want one chunk per process"
            )
    ok = not problems
    return Check(
        "one process per chunk",
        ok,
        "two spawned processes launched the kernels, one chunk each" if ok else problems[0],
        "spawn one process per chunk; each one does acl.init, set_device(0), its own stream, buffers "
        "and kernel, and acl.finalize; the solution only spawns and joins them",
    )


register(
    Exercise(
        id="06.1",
        title="one thread, four devices",
        practises="driving several devices from one host thread: switch with set_device, queue on every "
        "device before waiting for any",
        signature="solution(chunks) -> list of 4 arrays",
        devices=4,
        inputs=chunks(4),
        judge=judge_one_thread,
    )
)

register(
    Exercise(
        id="06.2",
        title="one thread per device",
        practises="starting one host thread per device, set_device in that thread, joining them all",
        signature="solution(chunks) -> list of 4 arrays",
        devices=4,
        inputs=chunks(4),
        judge=judge_thread_per_device,
    )
)

register(
    Exercise(
        id="06.3",
        title="two processes share device 0",
        practises="sandbox.spawn_process: processes that share one device's AI Cores at the same time",
        signature="solution(chunks) -> list of 2 arrays",
        devices=1,
        inputs=chunks(2),
        judge=judge_shared_device,
    )
)


# -- 06.concepts · the concept check ----------------------------------------------------------------------
register_quiz(
    Quiz(
        "06.concepts",
        "Concept check: threads and processes",
        "概念检查：线程与进程",
        (
            Question(
                "Thread A creates a context with aclrtCreateContext and stores the handle in a shared "
                "variable. Thread B calls aclrtCreateStream without any set call. What happens?",
                (
                    "the stream is made in A's context: the newest context is current for the whole process",
                    "it fails with 107002: the current context belongs to each thread; B must call "
                    "aclrtSetCurrentContext(ctx) (or aclrtSetDevice) first",
                    "the stream is made in device 0's default context",
                ),
                "b",
                (
                    "a context is current per thread, never for the whole process",
                    "right: holding a handle is not having a current context; aclrtSetCurrentContext makes it current",
                    "no thread gets a default context without aclrtSetDevice: B has none at all",
                ),
                "the cell under '5 · Threads and contexts'",
                {
                    "text": "线程 A 用 aclrtCreateContext 创建了一个 Context，并把句柄存进一个共享变量。线程 B 没有调用任何"
                    "设置接口就调用 aclrtCreateStream，结果如何？",
                    "choices": (
                        "Stream 创建在 A 的 Context 中：最新创建的 Context 对整个进程都是当前 Context",
                        "返回 107002：当前 Context 属于各个线程；B 必须先调用 aclrtSetCurrentContext(ctx)（或 aclrtSetDevice）",
                        "Stream 创建在 Device 0 的默认 Context 中",
                    ),
                    "why": (
                        "当前 Context 按线程区分，从来不是整个进程共用的",
                        "对：手里有句柄不等于有当前 Context；aclrtSetCurrentContext 才把它设为当前 Context",
                        "不调用 aclrtSetDevice，线程不会有默认 Context：B 根本没有当前 Context",
                    ),
                    "shown_by": "“5 · 线程与 Context”下的单元格",
                },
            ),
            Question(
                "Two threads share one context and one stream; each launches one 100 ms kernel on that stream "
                "at about the same moment. When are both kernels done?",
                (
                    "after about 100 ms: two host threads make the kernels run in parallel",
                    "after about 200 ms: a stream is one queue, whichever thread launches on it",
                    "never: the second launch fails, a stream belongs to the thread that created it",
                ),
                "b",
                (
                    "parallel host threads do not make one stream parallel: its tasks run in launch order",
                    "right: the stream runs them one after the other; their order is the order of the launches",
                    "any thread whose current context is the stream's may launch on it",
                ),
                "the cell after 'Predict, then run' in '6 · Two threads, one stream'",
                {
                    "text": "两个线程共享一个 Context 和一个 Stream，几乎同时各在这个 Stream 上下发一个 100 ms 的核函数。"
                    "两个核函数何时全部完成？",
                    "choices": (
                        "约 100 ms 后：两个 Host 线程让核函数并行执行",
                        "约 200 ms 后：不管由哪个线程下发，一个 Stream 就是一个队列",
                        "永远不会：第二次下发会失败，Stream 属于创建它的线程",
                    ),
                    "why": (
                        "Host 线程并行不会让同一个 Stream 并行：它的任务按下发顺序执行",
                        "对：Stream 把它们一个接一个地执行，顺序就是下发的顺序",
                        "当前 Context 是该 Stream 所属 Context 的任何线程都可以在它上面下发",
                    ),
                    "shown_by": "“6 · 两个线程，一个 Stream”中“先预测，再运行”之后的单元格",
                },
            ),
            Question(
                "A process's first aclrtSetDevice took seconds. What do its later aclrtSetDevice calls cost?",
                (
                    "seconds each time: every call sets the device up again",
                    "nothing at all: after the first call the runtime skips SetDevice",
                    "far less: the seconds went to one-time work (operator packages moved to the device, the "
                    "process's aicpu_scheduler started), so a switch back to an open device is cheap",
                ),
                "c",
                (
                    "the FAQ says later calls take milliseconds: the expensive part is done once per process",
                    "a later call still does work (it makes the device's context current, counts a reference)",
                    "right: warm up with an early first call, off the critical path",
                ),
                "the cell after 'Predict, then run' in '1 · What the first aclrtSetDevice costs'",
                {
                    "text": "某进程首次调用 aclrtSetDevice 用了秒级时间。它之后的 aclrtSetDevice 调用开销如何？",
                    "choices": (
                        "每次都要秒级：每次调用都重新准备 Device",
                        "完全没有开销：首次调用之后运行时会跳过 SetDevice",
                        "小得多：秒级时间花在一次性的工作上（把算子包搬移到 Device 侧、拉起本进程的 aicpu_scheduler），"
                        "切回已打开的 Device 开销很小",
                    ),
                    "why": (
                        "FAQ 说之后的调用是毫秒级：代价高的部分每个进程只做一次",
                        "之后的调用仍有工作要做（把该 Device 的 Context 设为当前 Context、增加引用计数）",
                        "对：在非关键路径上提前做首次调用来预热",
                    ),
                    "shown_by": "“1 · 首次 aclrtSetDevice 的开销”中“先预测，再运行”之后的单元格",
                },
            ),
            Question(
                "Process A allocates device memory on device 0 and sends the address to process B, also on "
                "device 0. How does B read that memory?",
                (
                    "through the address itself: both processes use device 0",
                    "A exports a key (aclrtIpcMemGetExportKey), B imports it (aclrtIpcMemImportByKey) and gets "
                    "an address of its own for the same bytes",
                    "B enables peer access to device 0 and then uses the address",
                ),
                "b",
                (
                    "pointers and handles are invalid outside their process, even on the same device",
                    "right: device memory crosses processes only by IPC export and import",
                    "peer access is between devices within one process; it does not open another process's memory",
                ),
                "the cell under '7 · Processes do not share device memory without IPC'",
                {
                    "text": "进程 A 在 Device 0 上申请了内存，并把地址发给同样使用 Device 0 的进程 B。B 怎样读这块内存？",
                    "choices": (
                        "直接用这个地址：两个进程用的都是 Device 0",
                        "A 导出 key（aclrtIpcMemGetExportKey），B 导入它（aclrtIpcMemImportByKey），得到自己的地址，"
                        "指向同一段数据",
                        "B 开启到 Device 0 的数据交互，然后使用这个地址",
                    ),
                    "why": (
                        "指针和句柄在进程之外无效，即使在同一个 Device 上",
                        "对：Device 内存只能通过 IPC 导出和导入跨进程共享",
                        "Device 间数据交互是一个进程内 Device 之间的事，不能打开另一个进程的内存",
                    ),
                    "shown_by": "“7 · 没有 IPC，进程之间不共享 Device 内存”下的单元格",
                },
            ),
        ),
    )
)
