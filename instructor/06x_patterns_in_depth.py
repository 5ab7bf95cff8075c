# %% [markdown]
# # 06x · Patterns in depth: processes of threads, a shared device, the sandbox's turn order
#
# **Optional deep dive after notebook 06 · about 40 minutes**
#
# Notebook 06 ran patterns 1 to 3 and shared a context, a stream and device memory. This deep
# dive runs the fourth pattern of the guide (several processes, several threads each), explains
# why a multi-threaded sandbox run gives the same output every time, and puts two processes on
# one device, where they share its AI Cores. Two exercises: one thread driving four devices
# (06.1) and two processes sharing device 0 (06.3). **It assumes** notebook 06.

# %% [markdown] lang="zh"
# # 06x · 深入编程方式：多进程多线程、共用一个 Device、沙箱的轮转规则
#
# **选学深入：notebook 06 之后 · 约 40 分钟**
#
# notebook 06 运行了方式 1 到 3，并演示了共享 Context（上下文）、Stream（流）和 Device（设备）内存。本篇运行编程指南中的第 4 种方式（多个
# 进程、每个进程多个线程），解释为什么沙箱中的多线程程序每次运行输出都相同，再让两个进程共用一个 Device，共享它的
# AI Core。两道练习：单个线程驱动四个 Device（06.1），两个进程共用 Device 0（06.3）。**前置知识**：notebook 06。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import threading

import numpy as np

import sandbox
from sandbox import acl

DEVICES = (0, 1, 2, 3)


@sandbox.kernel(ns=100_000_000)      # 100 ms of device work: long next to the host calls
def long_kernel(x: "uint8*"):
    pass


def thread_program(device):
    """One device's whole life: set it, a stream, a buffer, two kernels, wait, give everything back."""
    acl.rt.set_device(device)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    long_kernel[24, stream](buf)
    long_kernel[24, stream](buf)
    acl.rt.synchronize_stream(stream)
    acl.rt.free(buf)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(device)

# %% [markdown]
# ## 1 · Pattern 4 · Several processes, several threads each
#
# Two processes, each with two threads, each thread driving its own device:

# %% [markdown] lang="zh"
# ## 1 · 方式 4 · 多个进程，每个进程多个线程
#
# 两个进程，每个进程两个线程，每个线程驱动自己的 Device：

# %%
def process_with_threads(devices):
    acl.init()
    ts = [threading.Thread(target=thread_program, args=(d,), name=f"dev{d}") for d in devices]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    acl.finalize()


sandbox.configure(device_count=4)
procs = [sandbox.spawn_process(process_with_threads, devs, name=f"proc{i}")
         for i, devs in enumerate(((0, 1), (2, 3)))]
for p in procs:
    p.join()
sandbox.gantt()

# %% [markdown]
# Within each process the second thread's device opens 20 ms after the first: in the sandbox it
# waits for its process's first `aclrtSetDevice` (notebook 06, section 1, says which of these
# figures are the sandbox's). The two processes start up side by side; on a board, the FAQ
# *首次aclrtSetDevice耗时长* warns that processes starting at the same moment compete and their
# start-up varies.
#
# ## 2 · Why the output is the same every run: the deterministic turn
#
# Real threads run whenever the operating system lets them, so a real multi-threaded program
# interleaves its calls differently on every run. In the sandbox every host thread has a
# **virtual clock**, and threads take turns: the thread whose clock is furthest behind makes the
# next runtime call (ties go to the lower thread number). A thread waiting in a synchronize is
# parked until the device work it waits for is done in virtual time. So the order of calls
# depends only on the program, never on the real scheduler. This is the sandbox's design, not
# the runtime's: on a board, two threads launching on one stream (notebook 06, section 6) may
# come in either order.
#
# **Predict, then run.** Run one thread per device twice and compare the whole trace. Identical?

# %% [markdown] lang="zh"
# 在每个进程内部，第二个线程的 Device 比第一个晚 20 ms 打开：在沙箱中，它要等本进程的首次 `aclrtSetDevice` 完成
# （哪些数值是沙箱的选择，见 notebook 06 第 1 节）。两个进程并行启动；FAQ《首次aclrtSetDevice耗时长》提醒，在真实硬件
# 上同时启动的进程会相互争抢资源，启动耗时不稳定。
#
# ## 2 · 为什么每次运行的输出都相同：确定性的轮转
#
# 真实的线程何时运行由操作系统决定，所以真实的多线程程序每次运行时，各线程调用的交错顺序都可能不同。在沙箱中，每个
# Host（主机）线程都有一个**虚拟时钟**，线程轮流执行：虚拟时钟最落后的线程发起下一次运行时调用（时钟相同时，编号小的线程
# 优先）。在同步调用中等待的线程被挂起，直到它等待的 Device 任务在虚拟时间中完成。所以调用顺序只取决于程序本身，与
# 真实的调度器无关。这是沙箱的设计，不是运行时的行为：在真实硬件上，两个线程在同一个 Stream 上下发（notebook 06
# 第 6 节），先后顺序可能每次不同。
#
# **先预测，再运行。** 用每 Device 一个线程的方式运行两次，比较完整的 trace。两次会完全相同吗？

# %%
def run_pattern_2():
    sandbox.configure(device_count=4)
    acl.init()
    ts = [threading.Thread(target=thread_program, args=(d,), name=f"dev{d}") for d in DEVICES]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return f"{sandbox.summary()}\n{sandbox.gantt()}"


first, second = run_pattern_2(), run_pattern_2()
print("identical:", first == second)
print(first)

# %% [markdown]
# Identical, down to the last nanosecond. That is what makes the graders' verdicts repeatable; it
# also means a race that depends on the interleaving shows up the same way every time, or never
# (notebook 09b's hazard checks look for such races from the trace instead).
#
# ## 3 · Processes sharing one device
#
# Processes can also share a device. They then share its 24 AI Cores: a kernel launched with
# `block_dim` 24 takes all of them, so two such kernels from two processes cannot run at the
# same time. The physical view (one row per engine) shows device 0's AI Cores; the bars are
# coloured by stream, and the legend names each stream's process (`colour_by="stream"`):

# %% [markdown] lang="zh"
# 完全相同，精确到纳秒。评分结果因此可以复现；这也意味着，一个依赖交错顺序的数据竞争在沙箱里要么每次都出现，要么
# 从不出现（所以 notebook 09b 的隐患检查改从 trace 中查找这类竞争）。
#
# ## 3 · 多个进程共用一个 Device
#
# 多个进程也可以共用一个 Device，这时它们共享该 Device 的 24 个 AI Core：以 `block_dim` 24 下发的核函数占用全部 AI
# Core，所以来自两个进程的两个这样的核函数不能同时运行。物理视图（每个执行单元一行）显示 Device 0 的 AI Core；条形
# 按 Stream 着色，图例写出每个 Stream 所属的进程（`colour_by="stream"`）：

# %%
def on_device_0(block_dim):
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    long_kernel[block_dim, stream](buf)
    long_kernel[block_dim, stream](buf)
    acl.rt.synchronize_stream(stream)
    acl.rt.free(buf)
    acl.rt.reset_device(0)
    acl.finalize()


def two_processes_on_device_0(block_dim):
    sandbox.configure(device_count=1)
    ps = [sandbox.spawn_process(on_device_0, block_dim, name=f"P{i}") for i in (1, 2)]
    for p in ps:
        p.join()
    return sandbox.now()


end_full = two_processes_on_device_0(24)
sandbox.gantt(view="physical", colour_by="stream")      # a colour per stream, each named with its process

# %% [markdown]
# With `block_dim` 12 each kernel takes half the cores (and, with a fixed 100 ms per kernel here,
# no longer), so the two processes' kernels run side by side:

# %% [markdown] lang="zh"
# 使用 `block_dim` 12 时，每个核函数只占一半的 AI Core（而且这里每个核函数固定 100 ms，并不会变长），所以两个进程的
# 核函数并行执行：

# %%
end_half = two_processes_on_device_0(12)
print(f"block_dim 24: {end_full / 1e6:.3f} ms, block_dim 12: {end_half / 1e6:.3f} ms")
sandbox.gantt(view="physical", colour_by="stream")

# %% [markdown]
# On real hardware a kernel with fewer blocks usually takes longer, since each core does more of
# the work; what cannot change is the number of cores the device has, and every process on it
# shares them.
#
# ## Exercises
#
# As in notebook 06: `sandbox.teach.check("06.1", solution)` runs your function on a fresh
# machine (four 910B devices, or one for 06.3) whose board the grader opened (`acl.init()` done,
# device 0 set on your function's thread), with new input chunks each time, and judges the run
# from its trace. In 06.3 that holds for your function's process only: each process it spawns has
# a runtime the grader did not open, so each calls `acl.init()` and `acl.finalize()` itself. Both
# exercises square chunks of `N` float32 values with the `square` kernel below (200 ms on the
# device, however many blocks it is launched with). The cells hold stubs, so their verdict is `✘`
# until you write the code.

# %% [markdown] lang="zh"
# 在真实硬件上，block 较少的核函数通常耗时更长，因为每个核要做更多的工作；不能改变的是 Device 的核数，Device 上的
# 每个进程都共享这些核。
#
# ## 练习
#
# 与 notebook 06 相同：`sandbox.teach.check("06.1", solution)` 在一台全新的机器上（四个 910B Device，06.3 为一个）
# 运行你的函数，评分器已经打开板卡（执行了 `acl.init()`，并在你的函数所在线程上指定了 Device 0），每次生成新的输入
# 数据块，并根据 trace 评判。在 06.3 中，这只适用于你的函数所在的进程：它启动的每个进程都有自己的运行时，评分器没有
# 替它初始化，所以每个进程都要自己调用 `acl.init()` 和 `acl.finalize()`。两道练习都用下面的 `square` 核函数（在
# Device 上耗时 200 ms，与 block 数无关）对 `N` 个 float32 值的数据块求平方。单元格里只有模板，写好代码之前结果都是
# `✘`。

# %%
import sandbox.teach                # sandbox.teach.check: the grader

N = 256 * 1024                     # float32 elements per chunk (1 MiB)
NBYTES = 4 * N
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST


@sandbox.kernel(ns=200_000_000)    # 200 ms, whatever block_dim it gets
def square(x: "float32*", n: int):
    x[:n] = x[:n] * x[:n]

# %% [markdown]
# ### Exercise 06.1 · one thread, four devices
#
# *Practises:* pattern 1, driving several devices from one host thread: switching the
# current device with `set_device`, and queuing on every device before waiting for any.
#
# `chunks` is a list of four float32 arrays of `N` elements. Square chunk `d` on device `d`
# with `square[8, stream](dev, N)` and return the four squares, in order, as a list. Use
# the solution's own thread only (start no threads). The grader wants:
#
# * each square right, computed by the kernel on its device and copied back from there;
# * every kernel launched by the one host thread of the one process;
# * all four devices busy at the same moment: a synchronize before you switch to the next
#   device makes them run one after another.

# %% [markdown] lang="zh"
# ### 练习 06.1 · 单个线程，四个 Device
#
# *练习内容：* 方式 1，由一个 Host 线程驱动多个 Device：用 `set_device` 切换当前 Device，先在每个 Device 上都下发
# 任务，再等待。
#
# `chunks` 是四个 `N` 元素 float32 数组组成的列表。在 Device `d` 上用 `square[8, stream](dev, N)` 对第 `d` 块求平方，
# 按顺序以列表返回四个结果。只用解答函数自己的线程（不启动新线程）。评分标准：
#
# * 每个平方结果都正确，由核函数在对应的 Device 上计算，并从那里拷回；
# * 所有核函数都由唯一进程中的唯一 Host 线程下发；
# * 四个 Device 在同一时刻都在工作：如果切换到下一个 Device 之前先做同步，它们就只能一个接一个地运行。

# %% nbgrader={"grade": false, "grade_id": "ex06_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(chunks):
    """Square chunks[d] on device d (d = 0..3) from this one thread; return the 4 squares."""
    # TODO: for each device: set_device(d), a stream, a pinned and a device buffer, copy in,
    # square[8, stream](dev, N), copy back. Only then, device by device: set_device(d),
    # synchronize its stream, read the result (.copy()), free, reset_device(d).
    # Hint: a stream belongs to its device: make d current again before you synchronize it.
    ### BEGIN SOLUTION
    queued = []
    for d, x in zip(DEVICES, chunks):
        acl.rt.set_device(d)
        stream, _ = acl.rt.create_stream()
        host, _ = acl.rt.malloc_host(NBYTES)
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
        acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, stream)
        square[8, stream](dev, N)
        acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, stream)
        queued.append((d, stream, host, dev))
    squares = []
    for d, stream, host, dev in queued:
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(stream)
        squares.append(acl.util.ptr_to_numpy(host, (N,), np.float32).copy())
        acl.rt.free(dev)
        acl.rt.free_host(host)
        acl.rt.destroy_stream(stream)
        acl.rt.reset_device(d)
    return squares
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex06_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("06.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("06.1", solution)

# %% [markdown]
# ### Exercise 06.3 · two processes share device 0
#
# *Practises:* `sandbox.spawn_process`: processes with runtimes of their own that share one
# device, and its AI Cores, at the same time.
#
# The grader's machine has **one** device. `chunks` holds two chunks; square each in a
# process of its own on device 0: start both with `sandbox.spawn_process(fn, ...)`, then join
# both. A spawned process has a runtime of its own, which the grader did not open: each
# process does `acl.init()`, `set_device(0)`, its stream, buffers, copies, kernel, synchronize
# and clean-up, `acl.finalize()`, and puts its square at its index of a list your function
# made (simulated processes share the Python interpreter, so a list works as the way back).
# Your function itself only spawns, joins and returns. The grader wants:
#
# * both squares right, computed on device 0 and copied back from there;
# * the kernels launched by 2 spawned processes, one chunk each, none by your function's
#   own process;
# * kernels of the two processes running on device 0 **at the same moment**. A kernel with
#   `block_dim` 24 takes all 24 AI Cores, so the other process's kernel waits for it.

# %% [markdown] lang="zh"
# ### 练习 06.3 · 两个进程共用 Device 0
#
# *练习内容：* `sandbox.spawn_process`：各有自己运行时的两个进程，同时共用一个 Device 及其 AI Core。
#
# 评分器的机器只有**一个** Device。`chunks` 包含两块数据；在 Device 0 上，每块数据由一个单独的进程求平方：用
# `sandbox.spawn_process(fn, ...)` 启动两个进程，再 join 两者。新进程有自己的运行时，评分器没有替它初始化：每个进程
# 依次执行 `acl.init()`、`set_device(0)`、创建 Stream 和缓冲区、复制、下发核函数、同步、清理、`acl.finalize()`，并把
# 结果放到你的函数创建的列表中对应的位置（模拟进程共用一个 Python 解释器，所以可以用列表传回结果）。你的函数本身只
# 负责启动、join 和返回。评分标准：
#
# * 两个平方结果都正确，在 Device 0 上计算，并从那里拷回；
# * 核函数由 2 个新启动的进程下发，每个进程一块，你的函数所在的进程不下发；
# * 两个进程的核函数在 Device 0 上**同时**运行。`block_dim` 为 24 的核函数会占满全部 24 个 AI Core，另一个进程的
#   核函数只能等它结束。

# %% nbgrader={"grade": false, "grade_id": "ex06_3", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(chunks):
    """Square each of the two chunks in a process of its own, both on device 0, side by side."""
    # TODO: write the body of one process (a process of its own: it calls acl.init() and
    # acl.finalize() itself), spawn two of them, join both, return the list.
    # Hint: how many blocks can each kernel have so that two fit on 24 cores at once?
    ### BEGIN SOLUTION
    squares = [None] * len(chunks)

    def one_process(i, x):
        acl.init()
        acl.rt.set_device(0)
        stream, _ = acl.rt.create_stream()
        host, _ = acl.rt.malloc_host(NBYTES)
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
        acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, stream)
        square[12, stream](dev, N)                 # half of the 24 cores: room for the other one
        acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, stream)
        acl.rt.synchronize_stream(stream)
        squares[i] = acl.util.ptr_to_numpy(host, (N,), np.float32).copy()
        acl.rt.free(dev)
        acl.rt.free_host(host)
        acl.rt.destroy_stream(stream)
        acl.rt.reset_device(0)
        acl.finalize()

    procs = [sandbox.spawn_process(one_process, i, x, name=f"P{i}") for i, x in enumerate(chunks)]
    for p in procs:
        p.join()
    return squares
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex06_3_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("06.3", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("06.3", solution)

# %% [markdown]
# ## Summary
#
# Pattern 4 combines the rules of threads and processes: each process starts its own runtime,
# and inside it each thread sets its own device. The sandbox's turn order (the thread furthest
# behind in virtual time goes next) makes every run the same, which a board does not promise.
# Processes sharing a device share its AI Cores: kernels that each take every core run one after
# the other. Notebook 06's concept check covers the rules used here.

# %% [markdown] lang="zh"
# ## 小结
#
# 方式 4 同时适用线程和进程两套规则：每个进程启动自己的运行时，进程内的每个线程指定自己的 Device。沙箱的轮转规则
# （虚拟时间最落后的线程先执行）让每次运行都相同，真实硬件并不保证这一点。共用一个 Device 的进程共享它的 AI Core：
# 各自占满全部核的核函数只能一个接一个地执行。这里用到的规则由 notebook 06 的概念检查覆盖。

# %% [markdown] lang="zh" translates="code"
# en: # 100 ms of device work: long next to the host calls
# zh: # 100 ms 的 Device 任务：比 Host 侧调用长得多
# en: """One device's whole life: set it, a stream, a buffer, two kernels, wait, give everything back."""
# zh: """一个 Device 的完整流程：指定 Device、创建 Stream 和缓冲区、两个核函数、等待、释放所有资源。"""
# en: print("identical:"
# zh: print("完全相同:"
# en: # a colour per stream, each named with its process
# zh: # 每个 Stream 一种颜色，图例注明所属进程
# en: # sandbox.teach.check: the grader
# zh: # sandbox.teach.check：评分器
# en: # float32 elements per chunk (1 MiB)
# zh: # 每块的 float32 元素个数（1 MiB）
# en: # 200 ms, whatever block_dim it gets
# zh: # 200 ms，与 block_dim 无关
# en: """Square chunks[d] on device d (d = 0..3) from this one thread; return the 4 squares."""
# zh: """在这一个线程中，在 Device d（d = 0..3）上对 chunks[d] 求平方；返回 4 个结果。"""
# en: # TODO: for each device: set_device(d), a stream, a pinned and a device buffer, copy in,
# zh: # TODO：对每个 Device：set_device(d)，创建 Stream、一块锁页 Host 内存和一块 Device 内存，复制进去，
# en: # square[8, stream](dev, N), copy back. Only then, device by device: set_device(d),
# zh: # square[8, stream](dev, N)，复制回来。然后再逐个 Device：set_device(d)，
# en: # synchronize its stream, read the result (.copy()), free, reset_device(d).
# zh: # 同步它的 Stream，读取结果（.copy()），释放，reset_device(d)。
# en: # Hint: a stream belongs to its device: make d current again before you synchronize it.
# zh: # 提示：Stream 属于它的 Device：同步之前先把 d 重新设为当前 Device。
# en: """Square each of the two chunks in a process of its own, both on device 0, side by side."""
# zh: """两块数据各在一个单独的进程中求平方，都在 Device 0 上，同时进行。"""
# en: # TODO: write the body of one process (a process of its own: it calls acl.init() and
# zh: # TODO：写出一个进程的函数体（它是独立的进程：自己调用 acl.init() 和
# en: # acl.finalize() itself), spawn two of them, join both, return the list.
# zh: # acl.finalize()），启动两个这样的进程，join 两者，返回列表。
# en: # Hint: how many blocks can each kernel have so that two fit on 24 cores at once?
# zh: # 提示：每个核函数最多用多少个 block，两个才能同时放进 24 个核？
# en: # half of the 24 cores: room for the other one
# zh: # 24 个核的一半：给另一个留出位置
