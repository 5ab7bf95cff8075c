"""Notebook 01 · the five steps: reading a result at the right time, then the whole program."""

from __future__ import annotations

import numpy as np

import sandbox

from sandbox.teach.concepts import Question, Quiz, register_quiz
from sandbox.teach.checks import check_bytes, check_equal, check_no_leaks, check_syncs
from sandbox.teach.grading import Exercise, register

N = 1024 * 1024  # the notebook's vector length (int32)
NBYTES = 4 * N


def vectors(rng: np.random.Generator) -> dict:
    """Two fresh int32 vectors: their sum fits in int32, and no two checks see the same ones."""
    return {
        "a": rng.integers(-(2**30), 2**30, N, dtype=np.int32),
        "b": rng.integers(-(2**30), 2**30, N, dtype=np.int32),
    }


# The notebook's kernel (instructor/01_quickstart.py's ``add``), as the notebook declares it: the grader
# knows a kernel by its code and declared cost, not by its name (tests/teach/test_exercises.py holds
# the two to the same).
@sandbox.kernel(ns=lambda a, b, c, size: 3_500_000 * size // N)
def add(a: "int32*", b: "int32*", c: "int32*", size: int):  # type: ignore[valid-type]  # pyACL type strings
    c[:size] = a[:size] + b[:size]


def _vector_sum(run):
    shape, array = run.answer((N,), np.int32)
    yield shape
    if array is None:
        return
    yield check_equal(
        array,
        run.inputs["a"] + run.inputs["b"],
        what="the vector sum",
        hint="copy a and b in, launch add on all N elements, copy c back, and synchronise before reading it",
    )
    yield from run.computed(array, kernels={"add": add}, inputs=("a", "b"), what="the vector sum")


def judge_correct(run):
    yield from _vector_sum(run)  # the host waited: any wait that covers the copy back (a synchronize, polling)


def judge_five_steps(run):
    yield from _vector_sum(run)
    yield check_bytes(run.log, "H2D", exactly=2 * NBYTES)
    yield check_bytes(run.log, "D2H", exactly=NBYTES)
    yield check_syncs(
        run.log,
        at_most=1,
        hint="queue the copies, the launch and the copy back, then wait once: blocking "
        "copies (aclrtMemcpy) and extra synchronizes each stop the host",
    )
    blocking = run.calls("aclrtMemcpy")
    from sandbox.teach.checks import Check

    yield Check(
        "asynchronous copies",
        not blocking,
        "every copy went on the stream"
        if not blocking
        else f"{len(blocking)} blocking aclrtMemcpy call(s): each one waits for the device",
        "use acl.rt.memcpy_async(..., stream) for the copies in and out",
        len(blocking),
    )
    yield check_no_leaks(run.log)


register(
    Exercise(
        id="01.1",
        title="make it correct",
        practises="reading a result only after the host has learnt the copy finished",
        signature="solution(a, b) -> np.ndarray",
        profile="ascend310b",
        inputs=vectors,
        judge=judge_correct,
    )
)

register(
    Exercise(
        id="01.2",
        title="the five steps, waiting once",
        practises="a whole runtime program: initialise, device and stream, memory and copies, launch, "
        "one synchronize, clean-up in reverse order",
        signature="solution(a, b) -> np.ndarray",
        profile="ascend310b",
        inputs=vectors,
        judge=judge_five_steps,
        whole_program=True,
    )
)

register_quiz(
    Quiz(
        "01.concepts",
        "Concept check: the five steps",
        "概念检查：五个步骤",
        (
            Question(
                "How does a pyACL call such as `acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)` report "
                "its result?",
                (
                    "It returns the pointer, and raises an exception if the allocation fails.",
                    "It returns a tuple `(pointer, ret)`, with the return code last.",
                    "It returns the code only, and writes the pointer into an argument, as C's "
                    "`aclrtMalloc(&devA, ...)` does.",
                ),
                "b",
                (
                    "pyACL raises nothing for a runtime error: a failed call returns a non-zero code, and a "
                    "program that does not check `ret` goes on with a null pointer",
                    "right: that is why the cells write `dev_a, ret = acl.rt.malloc(...)`; even a failed "
                    "call returns its tuple, a null pointer and the code (a call that only succeeds or fails "
                    "returns the code alone)",
                    "Python has no out-parameters: what C writes through a pointer argument, pyACL returns "
                    "in the tuple, before the code",
                ),
                "the cells under 'Step 3 · memory and copies in' and 'Releasing the device'",
                {
                    "text": "pyACL 的调用（如 `acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)`）怎样报告结果？",
                    "choices": (
                        "返回指针，申请失败时抛出异常。",
                        "返回元组 `(指针, ret)`，错误码在最后。",
                        "只返回错误码，像 C 的 `aclrtMalloc(&devA, ...)` 那样把指针写进一个参数。",
                    ),
                    "why": (
                        "pyACL 不会因运行时错误抛异常：失败的调用返回非零错误码，不检查 `ret` 的程序会拿着空指针继续往下走",
                        "对：所以代码单元写成 `dev_a, ret = acl.rt.malloc(...)`；即使调用失败，也照样返回元组：空指针和错误码"
                        "（只报告成败的调用只返回错误码）",
                        "Python 没有输出参数：C 通过指针参数写回的结果，pyACL 放在元组里、错误码之前返回",
                    ),
                    "shown_by": "“第 3 步 · 申请内存，拷入数据”和“释放 Device”下的单元格",
                },
            ),
            Question(
                "`acl.rt.memcpy_async(host_c, NBYTES, dev_c, NBYTES, D2H, stream)` has returned 0, and the host "
                "reads `host_c` on the next line, without synchronising. What does it read?",
                (
                    "The sum: a return code of 0 means the copy succeeded.",
                    "The sum: the call waits until the copy has landed.",
                    "Not (all of) the sum: the copy has only been queued.",
                ),
                "c",
                (
                    "0 from an Async call means the task was queued, not that it ran: the launch returned "
                    "in microseconds while the kernel takes 3.5 ms",
                    "that is the blocking `aclrtMemcpy`; a call ending in Async returns as soon as its task is queued",
                    "right: on a board what it reads depends on timing, in the sandbox it is the old bytes; the "
                    "host must synchronise (or learn otherwise that the copy finished) before it reads",
                ),
                "the cells under 'Step 4 · launch' (the host clock and the queue panel)",
                {
                    "text": "`acl.rt.memcpy_async(host_c, NBYTES, dev_c, NBYTES, D2H, stream)` 已经返回 0，Host 没有同步，"
                    "下一行就读取 `host_c`。它读到什么？",
                    "choices": (
                        "和：返回码为 0 说明拷贝成功了。",
                        "和：这个调用会等到拷贝落地才返回。",
                        "不是（完整的）和：拷贝只是入了队。",
                    ),
                    "why": (
                        "Async 调用返回 0 表示任务已入队，不表示已执行：下发只用了几微秒就返回，而核函数要 3.5 ms",
                        "那是阻塞的 `aclrtMemcpy`；以 Async 结尾的调用在任务入队后立即返回",
                        "对：在板卡上读到什么取决于时序，在沙箱中是旧字节；Host 必须先同步（或以别的方式确知拷贝已完成），再读取",
                    ),
                    "shown_by": "“第 4 步 · 下发核函数”下的单元格（Host 时钟和队列面板）",
                },
            ),
            Question(
                "After `acl.init()`, a program calls `acl.rt.malloc(...)` without having called "
                "`acl.rt.set_device(...)`. What happens?",
                (
                    "The call fails with 107002 (ACL_ERROR_RT_CONTEXT_NULL).",
                    "The memory comes from device 0, the default device.",
                    "The runtime allocates host memory instead, and the program runs more slowly.",
                ),
                "a",
                (
                    "right: no device is set on the thread, so there is no context to allocate in; aclInit "
                    "first, then aclrtSetDevice, and only then other aclrt calls (the Runtime programming guide, "
                    "Initialization)",
                    "there is no default device unless aclInit's JSON configuration names one "
                    "(defaultDevice); without it the thread has no device",
                    "the runtime never swaps device memory for host memory: the call fails and returns a null pointer",
                ),
                "the cell under 'Releasing the device'",
                {
                    "text": "程序调用 `acl.init()` 之后，还没有调用 `acl.rt.set_device(...)` 就调用了 `acl.rt.malloc(...)`。会怎样？",
                    "choices": (
                        "调用失败，返回 107002（ACL_ERROR_RT_CONTEXT_NULL）。",
                        "内存来自默认 Device，即 Device 0。",
                        "运行时改为申请 Host 内存，程序只是变慢。",
                    ),
                    "why": (
                        "对：线程上没有指定 Device，也就没有可以申请内存的 Context；先 aclInit，再 aclrtSetDevice，"
                        "之后才能调用其他 aclrt 接口（《Runtime编程指南》“初始化”）",
                        "除非在 aclInit 的 json 配置中指定了默认 Device（defaultDevice），否则没有默认 Device，线程上也就没有 Device",
                        "运行时从不拿 Host 内存顶替 Device 内存：调用失败，返回空指针",
                    ),
                    "shown_by": "“释放 Device”下的单元格",
                },
            ),
            Question(
                "Two parts of a program each call `aclrtSetDevice(0)`; at the end one `aclrtResetDevice(0)` runs. "
                "What is left?",
                (
                    "Nothing: a reset releases the device, however often it was set.",
                    "Device 0 is still set: each aclrtResetDevice undoes one aclrtSetDevice.",
                    "Device 0 stays set until the process exits; no call can release it earlier.",
                ),
                "b",
                (
                    "aclrtResetDevice is reference-counted: the device's resources go only when the count of "
                    "sets minus resets reaches 0",
                    "right: the cell shows aclrtGetDevice still answering (0, 0) after one reset, and nothing "
                    "set after aclrtResetDeviceForce, which releases the device in one call and which the "
                    "programming guide recommends",
                    "a second aclrtResetDevice, or one aclrtResetDeviceForce, releases it; the process's exit "
                    "is only the last resort",
                ),
                "the cell under 'Releasing the device'",
                {
                    "text": "程序的两个部分各调用了一次 `aclrtSetDevice(0)`，最后只执行一次 `aclrtResetDevice(0)`。结果如何？",
                    "choices": (
                        "全部释放：无论指定过几次，复位一次就释放 Device。",
                        "Device 0 仍处于指定状态：每次 aclrtResetDevice 只抵消一次 aclrtSetDevice。",
                        "Device 0 要到进程退出才释放，在那之前没有调用能释放它。",
                    ),
                    "why": (
                        "aclrtResetDevice 有引用计数：指定次数减去复位次数等于 0 时，才真正释放 Device 上的资源",
                        "对：单元格显示复位一次之后 aclrtGetDevice 仍返回 (0, 0)；aclrtResetDeviceForce 之后就没有指定任何 Device 了，"
                        "它一次就能释放 Device，编程指南也推荐用它",
                        "再调用一次 aclrtResetDevice，或调用一次 aclrtResetDeviceForce，就能释放；进程退出只是最后的兜底",
                    ),
                    "shown_by": "“释放 Device”下的单元格",
                },
            ),
        ),
    )
)
