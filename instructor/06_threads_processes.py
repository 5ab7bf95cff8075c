# %% [markdown]
# # 06 · Threads and processes: four ways to drive several devices
#
# The runtime's multi-device article names four ways to organise a program that uses
# several NPUs:
#
# 1. **one host thread drives several devices**, switching with `aclrtSetDevice`;
# 2. **several host threads**, each driving its own device;
# 3. **several single-threaded processes**, each driving its own device;
# 4. **several processes with several threads**, each thread driving its own device.
#
# This notebook runs the same work in all four shapes and puts them side by side on the
# timeline. Then it shows why the output is the same on every run, and what happens when
# processes share one device.
#
# **After this notebook** you can drive several devices in each of the four patterns, choose
# among them, and explain why a multi-threaded sandbox run is the same every time. **It
# assumes** notebook 05 (per-thread `SetDevice`).
#
# | You will see | C / POSIX | Python in the sandbox |
# |---|---|---|
# | a host thread | `std::thread t(fn, dev)` | `threading.Thread(target=fn, args=(dev,))` |
# | a host process | `fork()` / a second program | `sandbox.spawn_process(fn, dev)` |
# | per-thread device | `aclrtSetDevice(dev)` | `acl.rt.set_device(dev)` |

# %% [markdown] lang="zh"
# # 06 · 线程与进程：驱动多个设备的四种方式
#
# 运行时的多设备文章列出了组织使用多块 NPU 的程序的四种方式：
#
# 1. **一个 Host 线程驱动多个设备**，用 `aclrtSetDevice` 切换；
# 2. **多个 Host 线程**，每个驱动自己的设备；
# 3. **多个单线程进程**，每个驱动自己的设备；
# 4. **多个多线程进程**，每个线程驱动自己的设备。
#
# 本 notebook 以这四种形式运行同样的任务，并把它们并排放在时间线上。然后说明为什么每次运行的输出都相同，以及多个进程
# 共享一个设备时会发生什么。
#
# **学完本 notebook**，你能以四种模式中的每一种驱动多个设备，在它们之间做出选择，并解释为什么沙箱中多线程程序的每次
# 运行都相同。**前提**：notebook 05（按线程生效的 `SetDevice`）。
#
# | 你将看到 | C / POSIX | 沙箱中的 Python |
# |---|---|---|
# | 一个 Host 线程 | `std::thread t(fn, dev)` | `threading.Thread(target=fn, args=(dev,))` |
# | 一个 Host 进程 | `fork()` / 另一个程序 | `sandbox.spawn_process(fn, dev)` |
# | 按线程的设备 | `aclrtSetDevice(dev)` | `acl.rt.set_device(dev)` |

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import threading

import sandbox
from sandbox import acl
from sandbox.core import trace as T

DEVICES = (0, 1, 2, 3)


@sandbox.kernel(ns=100_000_000)      # 100 ms of device work: long next to the host calls
def long_kernel(x: "uint8*"):
    pass


def drive(device):
    """Queue the work of one device: a stream, a buffer, two kernels. Returns what finish needs."""
    acl.rt.set_device(device)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    long_kernel[24, stream](buf)
    long_kernel[24, stream](buf)
    return stream, buf


def finish(device, stream, buf):
    """Wait for the device's work and give everything back."""
    acl.rt.set_device(device)
    acl.rt.synchronize_stream(stream)
    acl.rt.free(buf)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(device)


def thread_program(device):
    finish(device, *drive(device))


def work_span():
    """(when the first kernel started, from the first kernel's start to the last one's end), in ns."""
    log = sandbox.trace()
    starts = [r.t for r in log.of(T.TaskStarted)]
    ends = [r.t for r in log.of(T.TaskFinished)]
    return min(starts), max(ends) - min(starts)

# %% [markdown]
# ## Pattern 1 · One thread, several devices
#
# The thread queues work on device 0, switches to device 1 and queues there, and so on;
# only then does it wait for each device in turn. Because launches are asynchronous, the
# four devices still run at the same time: each starts as soon as its work is queued.

# %% [markdown] lang="zh"
# ## 模式 1 · 一个线程，多个设备
#
# 线程在设备 0 上放入任务，切换到设备 1 再放入任务，依此类推；然后才依次等待每个设备。由于下发是异步的，四个设备仍然
# 同时运行：每个设备的任务一入队就开始。

# %%
sandbox.configure(device_count=4)
acl.init()
work = {d: drive(d) for d in DEVICES}
for d in DEVICES:
    finish(d, *work[d])
one_thread_end, one_thread_span = sandbox.now(), work_span()
sandbox.gantt()

# %% [markdown]
# The kernels start one after another, 20 ms apart: opening each further device costs the
# thread about 20 ms (`aclrtSetDevice` on a device not yet open), and a single thread does
# those openings one at a time.
#
# ## Pattern 2 · One thread per device
#
# Each thread sets its own device (`SetDevice` is per thread) and drives it alone.

# %% [markdown] lang="zh"
# 核函数一个接一个地开始，相隔 20 ms：每多打开一个设备，线程要花约 20 ms（对尚未打开的设备调用 `aclrtSetDevice`），
# 而单个线程只能一个一个地打开。
#
# ## 模式 2 · 每个设备一个线程
#
# 每个线程设置自己的设备（`SetDevice` 按线程生效），独自驱动它。

# %%
sandbox.configure(device_count=4)
acl.init()
threads = [threading.Thread(target=thread_program, args=(d,), name=f"dev{d}") for d in DEVICES]
for t in threads:
    t.start()
for t in threads:
    t.join()
threads_end, threads_span = sandbox.now(), work_span()
sandbox.gantt()

# %% [markdown]
# Each thread's row shows its own calls. Device 0 starts first: the first `SetDevice` of a
# process sets up the runtime for the whole process (1 s), and the other threads' openings
# wait for it; then they open devices 1, 2 and 3 at the same time, 20 ms each.
#
# ## Pattern 3 · One single-threaded process per device
#
# `sandbox.spawn_process(fn, *args)` starts `fn` as the main thread of a new simulated
# process: its own `aclInit`, its own contexts, sharing only the devices with the other
# processes. Each process pays for its own runtime start-up, but they pay it in parallel.

# %% [markdown] lang="zh"
# 每个线程的那一行显示它自己的调用。设备 0 最先开始：进程的第一次 `SetDevice` 为整个进程建立运行时（1 s），其他线程
# 打开设备要等它完成；之后它们同时打开设备 1、2、3，每个 20 ms。
#
# ## 模式 3 · 每个设备一个单线程进程
#
# `sandbox.spawn_process(fn, *args)` 把 `fn` 作为一个新模拟进程的主线程启动：它有自己的 `aclInit`、自己的上下文，与
# 其他进程只共享设备。每个进程都要为自己的运行时启动付出代价，但它们是并行付出的。

# %%
def single_threaded_process(device):
    acl.init()
    thread_program(device)
    acl.finalize()


sandbox.configure(device_count=4)
procs = [sandbox.spawn_process(single_threaded_process, d, name=f"proc{d}") for d in DEVICES]
for p in procs:
    p.join()
processes_end, processes_span = sandbox.now(), work_span()
sandbox.gantt()

# %% [markdown]
# All four devices start together: nothing is shared between the processes' runtimes, so
# no process waits for another one's set-up.
#
# ## Pattern 4 · Several processes, several threads each
#
# Two processes, each with two threads, each thread driving its own device:

# %% [markdown] lang="zh"
# 四个设备一起开始：各进程的运行时之间没有任何共享，所以没有进程需要等待另一个进程的准备工作。
#
# ## 模式 4 · 多个进程，每个多个线程
#
# 两个进程，每个两个线程，每个线程驱动自己的设备：

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
mixed_end, mixed_span = sandbox.now(), work_span()
sandbox.gantt()

# %% [markdown]
# Within each process the second thread's device opens 20 ms after the first (it waits for
# its process's start-up); the two processes start up side by side.
#
# Side by side: the end time of each program is mostly the same 1 s of runtime start-up
# (the first `aclrtSetDevice` of a process), which every pattern pays once before any work, so
# comparing end times says little. What differs is what comes after it: the first column is
# when the first kernel started, the second the **span of the work**, from the first kernel's
# start to the last kernel's end (4 devices × 2 kernels of 100 ms, 200 ms if all four start
# together):

# %% [markdown] lang="zh"
# 在每个进程内部，第二个线程的设备比第一个晚 20 ms 打开（它要等自己进程的启动）；两个进程并行启动。
#
# 把它们并排比较：每个程序的结束时间主要是同样 1 s 的运行时启动（进程的第一次 `aclrtSetDevice`），每种模式都在任何工作
# 之前付出一次，所以比较结束时间说明不了什么。不同的是它之后的部分：第一列是第一个核函数开始的时刻，第二列是**工作的跨度**，
# 从第一个核函数开始到最后一个核函数结束（4 个设备 × 2 个 100 ms 的核函数，四个设备同时开始时为 200 ms）：

# %%
print(f"{'':<26} {'first kernel at':>15} {'work span':>10} {'end':>11}")
for name, (first, span), end in (("1 thread, 4 devices", one_thread_span, one_thread_end),
                                 ("4 threads", threads_span, threads_end),
                                 ("4 processes", processes_span, processes_end),
                                 ("2 processes x 2 threads", mixed_span, mixed_end)):
    print(f"{name:<26} {first / 1e6:12.3f} ms {span / 1e6:7.3f} ms {end / 1e6:8.3f} ms")

# %% [markdown]
# Every pattern keeps all four devices busy at once; they differ in how long the host
# spends getting there, which is the work span beyond 200 ms (device openings in one process
# follow each other: 3 × 20 ms for one thread, 20 ms when threads open them side by side,
# nothing for a process per device) and in what the program has to manage (one thread
# switching devices vs. one device per thread or process).
#
# ### Which pattern when
#
# | pattern | choose it when | what it costs |
# |---|---|---|
# | 1 · one thread, several devices | a few devices, little host work per device, and you want the simplest program | everything the host does for each device is done by one thread in turn; a synchronize before switching devices stops the others (exercise 06.1); the devices are opened one after another |
# | 2 · a thread per device | each device needs host work of its own (preparing batches, callbacks) and the devices share data in host memory (weights read once) | `aclrtSetDevice` in every thread (the current device belongs to the thread); shared host data needs locking |
# | 3 · a process per device | the devices' work must be isolated: a crash or a device fault in one process leaves the others running; this is how distributed-training launchers usually start one worker per device | each process pays the runtime start-up and holds its own copy of everything; data between processes goes through the host, or through inter-process memory one process exports and another imports (notebook 05) |
# | 4 · processes of several threads | a process per group of devices (per server, say) with a thread per device inside | both sets of rules at once |
#
# The timeline above shows the costs that differ: how long the host takes to get every device
# going. Once they run, all four patterns keep the four devices equally busy.
#
# ## Why the output is the same every run: the deterministic turn
#
# Real threads run whenever the operating system lets them, so a real multi-threaded
# program interleaves its calls differently on every run. In the sandbox every host thread
# has a **virtual clock**, and threads take turns: the thread whose clock is furthest behind
# makes the next runtime call (ties go to the lower thread number). A thread waiting in a
# synchronize is parked until the device work it waits for is done in virtual time. So the
# order of calls depends only on the program, never on the real scheduler.
#
# Run pattern 2 twice and compare everything the trace says:

# %% [markdown] lang="zh"
# 每种模式都让四个设备同时忙碌；它们的区别在于 Host 要花多长时间才能做到这一点，也就是工作跨度超出 200 ms 的部分
# （一个进程中的设备打开是相继进行的：一个线程时为 3 × 20 ms，多个线程并行打开时为 20 ms，每个设备一个进程时为 0），
# 以及程序需要管理什么（一个线程切换设备，还是每个线程或进程一个设备）。
#
# ### 什么时候用哪种模式
#
# | 模式 | 适合的情况 | 代价 |
# |---|---|---|
# | 1 · 一个线程，多个设备 | 设备不多，每个设备的 Host 工作很少，希望程序最简单 | Host 为每个设备做的事都由一个线程轮流完成；切换设备之前的同步会让其他设备停下（练习 06.1）；设备是一个接一个打开的 |
# | 2 · 每个设备一个线程 | 每个设备都需要自己的 Host 工作（准备批次、回调），且设备共享 Host 内存中的数据（权重只读一次） | 每个线程都要调用 `aclrtSetDevice`（当前设备属于线程）；共享的 Host 数据需要加锁 |
# | 3 · 每个设备一个进程 | 各设备的工作必须相互隔离：一个进程崩溃或出现设备故障，其他进程照常运行；分布式训练的启动器通常就是这样为每个设备启动一个工作进程 | 每个进程都要付出运行时启动的代价，并持有所有东西的一份副本；进程之间的数据经由 Host 传递，或经由一个进程导出、另一个进程导入的进程间内存（见 notebook 05） |
# | 4 · 多线程的多个进程 | 每组设备一个进程（例如每台服务器一个），进程内每个设备一个线程 | 两套规则同时适用 |
#
# 上面的时间线显示了不同之处的代价：Host 要花多长时间才能让每个设备都运转起来。一旦运行起来，四种模式都让四个设备同样忙碌。
#
# ## 为什么每次运行的输出都相同：确定性的轮转
#
# 真实的线程在操作系统允许时运行，所以真实的多线程程序每次运行时调用的交错方式都不同。在沙箱中，每个 Host 线程都有一个
# **虚拟时钟**，线程轮流执行：时钟最落后的线程进行下一次运行时调用（相同时编号小的线程优先）。在同步中等待的线程被挂起，
# 直到它等待的设备任务在虚拟时间中完成。所以调用的顺序只取决于程序，从不取决于真实的调度器。
#
# 把模式 2 运行两次，比较 trace 所说的一切：

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
# ## Processes sharing one device
#
# Processes can also share a device. They then share its 24 AI Cores: a kernel launched
# with `block_dim` 24 takes all of them, so two such kernels from two processes cannot run
# at the same time. The physical view (one row per engine) shows the AI Core of device 0
# running one kernel after the other; the bars are coloured by stream, and the legend names
# each stream's process (`colour_by="stream"`), so the turns of P1 and P2 can be told apart:

# %% [markdown] lang="zh"
# ## 多个进程共享一个设备
#
# 多个进程也可以共享一个设备。这时它们共享设备的 24 个 AI Core：以 `block_dim` 24 下发的核函数占用全部核，所以来自两个
# 进程的两个这样的核函数无法同时运行。物理视图（每个引擎一行）显示设备 0 的 AI Core 一个接一个地运行核函数；条形按流着色，
# 图例写出每条流所属的进程（`colour_by="stream"`），于是能分清 P1 和 P2 轮流使用的次序：

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
# With `block_dim` 12 each kernel takes half the cores (and, with a fixed 100 ms per
# kernel here, no longer), so the two processes' kernels run side by side:

# %% [markdown] lang="zh"
# 使用 `block_dim` 12 时，每个核函数占用一半的核（而且这里每个核函数固定 100 ms，并不会变长），所以两个进程的核函数
# 并行运行：

# %%
end_half = two_processes_on_device_0(12)
print(f"block_dim 24: {end_full / 1e6:.3f} ms, block_dim 12: {end_half / 1e6:.3f} ms")
sandbox.gantt(view="physical", colour_by="stream")

# %% [markdown]
# On real hardware a kernel with fewer blocks usually takes longer, since each core does
# more of the work; what cannot change is the number of cores the device has, and every
# process on it shares them.
#
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("06.1", solution)`
# runs **your** function on a fresh simulated machine of its own (four 910B devices, or one
# for 06.3), with input chunks it makes up each time, and judges the whole run from the
# trace: whether each answer is right and came back from the device it belongs to, which
# host threads and processes launched the kernels, and whether the devices worked at the
# same moment. Threads and processes your function starts run on that machine too; join
# them all before you return. The cells below hold stubs, so their verdict is `✘` until you
# write the code.
#
# Before it calls your function, the grader opens the board: `acl.init()` has run and device 0
# is set on your function's thread. Your function creates and releases what it uses (streams,
# events, memory, other devices): a solution does not call `acl.init()` (a second `aclInit`
# fails with 100002, `ACL_ERROR_REPEAT_INITIALIZE`). In 06.3 this holds for your function's
# process only: each process it spawns is a process of its own, with a runtime the grader did
# not open, so each one calls `acl.init()` and `acl.finalize()` itself.
#
# All three exercises square chunks of `N` float32 values with the `square` kernel below
# (200 ms on the device, however many blocks it is launched with), one chunk per device.

# %% [markdown] lang="zh"
# 在真实硬件上，block 较少的核函数通常耗时更长，因为每个核要做更多的工作；不能改变的是设备拥有的核数，设备上的每个
# 进程都共享它们。
#
# ## 练习
#
# 每个练习都是一个由你补全的函数。`sandbox.teach.check("06.1", solution)` 在一台属于它自己的全新模拟机器上（四个 910B
# 设备，06.3 为一个）运行**你的**函数，每次使用新生成的输入数据块，并根据 trace 评判整次运行：每个答案是否正确、是否
# 从它所属的设备拷回，哪些 Host 线程和进程下发了核函数，以及各设备是否同时工作。你的函数启动的线程和进程也在那台机器
# 上运行；返回之前 join 它们全部。下面的单元是空白模板，所以在你写代码之前结论都是 `✘`。
#
# 调用你的函数之前，评分器先打开板卡：`acl.init()` 已经运行，设备 0 已在你的函数所在的线程上设置好。你的函数自己
# 创建并释放它用到的东西（流、事件、内存、其他设备）：解答不调用 `acl.init()`（第二次 `aclInit` 会以 100002
# `ACL_ERROR_REPEAT_INITIALIZE` 失败）。在 06.3 中，这只适用于你的函数所在的进程：它启动的每个进程都是一个独立的进程，
# 其运行时评分器没有打开，所以每个进程自己调用 `acl.init()` 和 `acl.finalize()`。
#
# 三个练习都用下面的 `square` 核函数对 `N` 个 float32 值的数据块求平方（在设备上 200 ms，无论以多少个 block 下发），
# 每个设备一块。

# %%
import numpy as np

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
# ### 练习 06.1 · 一个线程，四个设备
#
# *练习内容：* 模式 1，从一个 Host 线程驱动多个设备：用 `set_device` 切换当前设备，在等待任何设备之前先在每个设备上
# 放入任务。
#
# `chunks` 是一个包含四个 `N` 元素 float32 数组的列表。在设备 `d` 上用 `square[8, stream](dev, N)` 对第 `d` 块求平方，
# 按顺序以列表返回四个平方结果。只使用解答自己的线程（不启动线程）。评分器要求：
#
# * 每个平方结果正确，由核函数在它的设备上计算，并从那里拷回；
# * 每个核函数都由唯一进程的唯一 Host 线程下发；
# * 四个设备在同一时刻都忙碌：在切换到下一个设备之前同步，会让它们一个接一个地运行。

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
# ### Exercise 06.2 · one thread per device
#
# *Practises:* pattern 2: one host thread per device, `set_device` called **in** that thread
# (the current device and context belong to the thread that set them), and joining every
# thread before returning.
#
# The same squares, now from four `threading.Thread`s that your function starts: thread `d`
# does all of device `d`'s work (set_device, stream, buffers, copies, `square[8, stream]`,
# synchronize, read, free, reset) and puts its square at index `d` of a list your function
# made. Your function only starts the threads, joins them and returns the list. The grader
# wants:
#
# * each square right, computed on its device and copied back from there;
# * kernels launched from exactly 4 threads of 1 process, each thread on one device, each
#   device by one thread, none by the solution's own thread;
# * all four devices busy at the same moment (start all four threads before joining any).

# %% [markdown] lang="zh"
# ### 练习 06.2 · 每个设备一个线程
#
# *练习内容：* 模式 2：每个设备一个 Host 线程，**在**该线程中调用 `set_device`（当前设备和上下文属于设置它们的线程），
# 并在返回之前 join 每个线程。
#
# 同样的平方，现在由你的函数启动的四个 `threading.Thread` 完成：线程 `d` 做设备 `d` 的全部工作（set_device、流、缓冲区、
# 拷贝、`square[8, stream]`、同步、读取、释放、复位），并把它的平方结果放在你的函数创建的列表的第 `d` 个位置。你的函数
# 只启动线程、join 它们并返回列表。评分器要求：
#
# * 每个平方结果正确，在它的设备上计算，并从那里拷回；
# * 核函数由 1 个进程的恰好 4 个线程下发，每个线程对应一个设备，每个设备由一个线程负责，解答自己的线程不下发；
# * 四个设备在同一时刻都忙碌（在 join 任何线程之前先启动全部四个）。

# %% nbgrader={"grade": false, "grade_id": "ex06_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(chunks):
    """Square chunks[d] on device d, each device driven by a host thread of its own."""
    # TODO: write the body of one thread (it gets d, its chunk and the shared list), start
    # four threading.Threads, then join them all.
    # Hint: set_device holds for the calling thread only: a thread that has not called it has
    # no current context, and its create_stream fails with ACL_ERROR_RT_CONTEXT_NULL (107002).
    ### BEGIN SOLUTION
    squares = [None] * len(DEVICES)

    def one_device(d, x):
        acl.rt.set_device(d)
        stream, _ = acl.rt.create_stream()
        host, _ = acl.rt.malloc_host(NBYTES)
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
        acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, stream)
        square[8, stream](dev, N)
        acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, stream)
        acl.rt.synchronize_stream(stream)
        squares[d] = acl.util.ptr_to_numpy(host, (N,), np.float32).copy()
        acl.rt.free(dev)
        acl.rt.free_host(host)
        acl.rt.destroy_stream(stream)
        acl.rt.reset_device(d)

    threads = [threading.Thread(target=one_device, args=(d, x), name=f"dev{d}")
               for d, x in zip(DEVICES, chunks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return squares
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex06_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("06.2", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("06.2", solution)

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
# ### 练习 06.3 · 两个进程共享设备 0
#
# *练习内容：* `sandbox.spawn_process`：各有自己运行时的进程，同时共享一个设备及其 AI Core。
#
# 评分器的机器只有**一个**设备。`chunks` 包含两块数据；在设备 0 上，每块在一个自己的进程中求平方：用
# `sandbox.spawn_process(fn, ...)` 启动两个进程，然后 join 两者。新启动的进程有自己的运行时，评分器没有为它打开：每个
# 进程执行 `acl.init()`、`set_device(0)`、它的流、缓冲区、拷贝、核函数、同步和清理、`acl.finalize()`，并把它的平方结果
# 放到你的函数创建的列表中它的位置（模拟进程共享 Python 解释器，所以列表可以作为返回的途径）。你的函数本身只负责启动、
# join 和返回。评分器要求：
#
# * 两个平方结果都正确，在设备 0 上计算，并从那里拷回；
# * 核函数由 2 个新启动的进程下发，每个一块，你的函数自己的进程不下发；
# * 两个进程的核函数在设备 0 上**同一时刻**运行。`block_dim` 为 24 的核函数会占用全部 24 个 AI Core，于是另一个进程的
#   核函数只能等待它。

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
# ## Official samples for this topic
#
# [1_device_multi_thread.py](../examples/1_basic_features/device/1_device_multi_thread.py) drives
# one device per host thread. Two processes share device memory by key in
# [10_ipc_memory_withpid.py](../examples/1_basic_features/memory/10_ipc_memory_withpid.py) and
# [11_ipc_memory_withoutpid.py](../examples/1_basic_features/memory/11_ipc_memory_withoutpid.py)
# (with and without the pid allow-list), and a notify across two devices in
# [0_ipc_notify_withpid.py](../examples/2_advanced_features/notify/0_ipc_notify_withpid.py) and
# [1_ipc_notify_withoutpid.py](../examples/2_advanced_features/notify/1_ipc_notify_withoutpid.py):
# each starts the sample's two programs with `sandbox.spawn_process` and passes pids, keys and
# flags with `sandbox.write_shared` / `sandbox.read_shared` where the sample uses files. The two
# IPC event samples are ported too: in
# [0_ipcevent.py](../examples/2_advanced_features/ipcevent/0_ipcevent.py) two processes on one
# device share an event, in
# [1_ipcevent_multi_device.py](../examples/2_advanced_features/ipcevent/1_ipcevent_multi_device.py)
# a process on each of two devices. Notebook [11_official_samples](11_official_samples.ipynb)
# walks through others; [examples/README.md](../examples/README.md) lists them all.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# [1_device_multi_thread.py](../../examples/1_basic_features/device/1_device_multi_thread.py)
# 用每个 Host 线程驱动一个设备。两个进程按 key 共享设备内存的示例是
# [10_ipc_memory_withpid.py](../../examples/1_basic_features/memory/10_ipc_memory_withpid.py) 和
# [11_ipc_memory_withoutpid.py](../../examples/1_basic_features/memory/11_ipc_memory_withoutpid.py)
# （分别启用和不启用进程白名单），跨两个设备共享 notify 的示例是
# [0_ipc_notify_withpid.py](../../examples/2_advanced_features/notify/0_ipc_notify_withpid.py) 和
# [1_ipc_notify_withoutpid.py](../../examples/2_advanced_features/notify/1_ipc_notify_withoutpid.py)：
# 每个移植都用 `sandbox.spawn_process` 启动示例的两个程序，示例用文件传递的进程 ID、key
# 和完成标志，这里用 `sandbox.write_shared` / `sandbox.read_shared` 传递。两个 IPC 事件示例
# 也已经移植：
# [0_ipcevent.py](../../examples/2_advanced_features/ipcevent/0_ipcevent.py)
# 中同一设备上的两个进程共享一个事件，
# [1_ipcevent_multi_device.py](../../examples/2_advanced_features/ipcevent/1_ipcevent_multi_device.py)
# 中两个设备上各有一个进程共享它。notebook [11_official_samples](11_official_samples.ipynb)
# 逐步讲解其他示例，[examples/README.md](../../examples/README.md) 列出全部示例。

# %% [markdown]
# ## Summary
#
# You can drive several devices from one host thread (switching with `set_device`, queuing
# on all before waiting on any), from one thread per device (each thread sets its own
# device), or from several processes, which may also share one device and its cores; which
# one depends on how much host work each device needs and how much isolation. The
# sandbox's turn order makes every one of these runs the same each time. Next, notebook 07
# lets the stream call the host back: callbacks and host functions.

# %% [markdown] lang="zh"
# ## 小结
#
# 你可以从一个 Host 线程驱动多个设备（用 `set_device` 切换，在等待任何设备之前先在所有设备上放入任务），可以每个设备
# 一个线程（每个线程设置自己的设备），也可以用多个进程，它们还可以共享一个设备及其核。选择取决于每个设备需要多少 Host
# 工作、需要多强的隔离。沙箱的轮转顺序使这些运行每次都相同。下一个是 notebook 07：让流回调 Host——回调和 Host 函数。

