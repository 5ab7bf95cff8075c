# %% [markdown]
# # 06 · Threads and processes: driving several devices
#
# **Time:** about 45 minutes
#
# The Runtime programming guide, *Multi-device programming*
# (`docs/zh/dev_guide/05_multi_device_programming.md` in the CANN runtime repository), names four
# ways to organise a program that uses several NPUs:
#
# 1. **one host thread drives several devices**, switching with `aclrtSetDevice`;
# 2. **several host threads**, each driving its own device;
# 3. **several single-threaded processes**, each driving its own device;
# 4. **several processes with several threads**, each thread driving its own device.
#
# This notebook measures what opening a device costs, runs the same work in the first three
# shapes, then looks at what threads and processes share.
#
# **After this notebook** you can drive several devices from one thread, a thread per device or
# a process per device; explain what the first `aclrtSetDevice` of a process costs; share a
# context between threads with `aclrtSetCurrentContext`; and share device memory between
# processes by key. **It assumes** notebook 05 (per-thread `SetDevice`). The optional deep dive
# [06x_patterns_in_depth](06x_patterns_in_depth.ipynb) runs pattern 4, two processes on one
# device, and the sandbox's turn order, with exercises 06.1 and 06.3.
#
# | You will see | C / POSIX | Python in the sandbox |
# |---|---|---|
# | a host thread | `std::thread t(fn, dev)` | `threading.Thread(target=fn, args=(dev,))` |
# | a host process | `fork()` / a second program | `sandbox.spawn_process(fn, dev)` |
# | per-thread device | `aclrtSetDevice(dev)` | `acl.rt.set_device(dev)` |
# | use a context made elsewhere | `aclrtSetCurrentContext(ctx)` | `acl.rt.set_context(ctx)` |
# | share device memory | `aclrtIpcMemGetExportKey`, `aclrtIpcMemImportByKey` | `acl.rt.ipc_mem_get_export_key`, `acl.rt.ipc_mem_import_by_key` |

# %% [markdown] lang="zh"
# # 06 · 线程与进程：驱动多个 Device
#
# **时间**：约 45 分钟
#
# 《Runtime编程指南》“多设备编程”（CANN runtime 仓库 `docs/zh/dev_guide/05_multi_device_programming.md`）列出了使用
# 多块 NPU 的四种常见编程方式：
#
# 1. **单个 Host（主机）线程驱动多个 Device（设备）**，用 `aclrtSetDevice` 切换；
# 2. **多个 Host 线程**，每个线程驱动自己的 Device；
# 3. **多个单线程进程**，每个进程驱动自己的 Device；
# 4. **多个进程、每个进程包含多个线程**，每个线程驱动自己的 Device。
#
# 本 notebook 先测量打开 Device 的开销，再用前三种方式运行同样的任务，然后看线程之间能共享 Context（上下文）和
# Stream（流），进程之间怎样共享 Device 内存。
#
# **学完本 notebook**，你将能够：用单线程、每 Device 一个线程、每 Device 一个进程三种方式驱动多个 Device；说明进程
# 首次调用 `aclrtSetDevice` 的开销从何而来；用 `aclrtSetCurrentContext` 在线程间共享 Context；按 key 在进程间共享
# Device 内存。**前置知识**：notebook 05（按线程生效的 `SetDevice`）。选学的深入篇
# [06x_patterns_in_depth](06x_patterns_in_depth.ipynb) 讲第 4 种方式、两个进程共用一个 Device 以及沙箱的轮转规则，
# 并附练习 06.1 和 06.3。
#
# | 本节内容 | C / POSIX | 沙箱中的 Python |
# |---|---|---|
# | Host 线程 | `std::thread t(fn, dev)` | `threading.Thread(target=fn, args=(dev,))` |
# | Host 进程 | `fork()` / 另一个程序 | `sandbox.spawn_process(fn, dev)` |
# | 按线程指定 Device | `aclrtSetDevice(dev)` | `acl.rt.set_device(dev)` |
# | 使用别处创建的 Context | `aclrtSetCurrentContext(ctx)` | `acl.rt.set_context(ctx)` |
# | 共享 Device 内存 | `aclrtIpcMemGetExportKey`、`aclrtIpcMemImportByKey` | `acl.rt.ipc_mem_get_export_key`、`acl.rt.ipc_mem_import_by_key` |

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import threading

import numpy as np

import sandbox
from sandbox import acl, teach
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
# ## 1 · What the first `aclrtSetDevice` costs
#
# **Predict, then run.** A fresh process calls `set_device(0)`, `set_device(1)`, then
# `set_device(0)` and `set_device(1)` again. Which of the four calls are slow, and roughly how
# slow?

# %% [markdown] lang="zh"
# ## 1 · 首次 `aclrtSetDevice` 的开销
#
# **先预测，再运行。** 一个新进程依次调用 `set_device(0)`、`set_device(1)`，再调用一次 `set_device(0)` 和
# `set_device(1)`。四次调用中哪几次慢，大约慢多少？

# %%
sandbox.configure(device_count=4)
acl.init()
for d in (0, 1, 0, 1):
    t0 = sandbox.now()
    acl.rt.set_device(d)
    print(f"set_device({d}) took {(sandbox.now() - t0) / 1e6:10.3f} ms")

# %% [markdown]
# Only the first call is expensive; going back to a device already open costs almost nothing.
# The FAQ *首次aclrtSetDevice耗时长* (`docs/zh/FAQ/首次aclrtSetDevice耗时长.md`) explains the
# first call's **seconds**: the runtime moves the operator packages from the host to the device,
# and starts on the device an `aicpu_scheduler` process for this process; later calls take
# milliseconds. Read the figures as the sandbox's choices, not measurements: 1 s for the first
# call, 20 ms to open a further device (whether that costs seconds again on a board the FAQ does
# not say), 2 µs to return to an open one, and threads of one process that open devices while the
# first call runs wait for it.
#
# Two things the FAQ describes are **not** modelled: processes that call `aclrtSetDevice` at the
# same moment compete for the device side, so their first calls take longer and vary; and the
# moved operator packages stay cached on the device, so a process started after another has
# finished its first call starts faster (only its own `aicpu_scheduler` must start). In the
# sandbox every process pays the same 1 s, whenever it starts. The FAQ's advice: make the first
# call early, off the critical path, and stagger the start-up of many processes.

# %% [markdown] lang="zh"
# 只有第一次调用代价高；切回已经打开的 Device 几乎不花时间。FAQ《首次aclrtSetDevice耗时长》
# （`docs/zh/FAQ/首次aclrtSetDevice耗时长.md`）解释了第一次调用的**秒级**时延：运行时要把算子包从 Host 侧搬移到
# Device 侧，并在 Device 侧为本进程拉起一个 `aicpu_scheduler` 进程；之后的调用是毫秒级。这里的数值是沙箱的选择，
# 不是实测：首次调用 1 s，再打开一个 Device 20 ms（在真实硬件上是否又要秒级，FAQ 没有说明），切回已打开的 Device
# 2 µs；同一进程的其他线程若在首次调用进行期间打开 Device，要等它完成。
#
# FAQ 描述的另外两种现象沙箱**没有**模拟：多个进程同时调用 `aclrtSetDevice` 时会争抢 Device 侧资源，首次调用耗时
# 变长且有抖动；算子包搬移后缓存在 Device 侧，所以在别的进程完成首次调用之后才启动的进程会快得多（只需拉起自己的
# `aicpu_scheduler`）。在沙箱里，每个进程无论何时启动都付出同样的 1 s。FAQ 的建议是：把首次调用提前到非关键路径上
# 预热，并错开多个进程的启动时间。

# %% [markdown]
# ## 2 · Pattern 1 · One thread, several devices
#
# The thread queues work on device 0, switches to device 1 and queues there, and so on; only then
# does it wait for each device in turn. Because launches are asynchronous, the four devices still
# run at the same time.

# %% [markdown] lang="zh"
# ## 2 · 方式 1 · 单个线程，多个 Device
#
# 线程先在 Device 0 上下发任务，切换到 Device 1 再下发，依此类推，最后才逐个等待各 Device。由于下发是异步的，四个
# Device 仍然同时运行。

# %%
sandbox.configure(device_count=4)
acl.init()
work = {d: drive(d) for d in DEVICES}
for d in DEVICES:
    finish(d, *work[d])
one_thread_end, one_thread_span = sandbox.now(), work_span()
sandbox.gantt()

# %% [markdown]
# The kernels start 20 ms apart: one thread opens the devices one after another.
#
# ## 3 · Pattern 2 · One thread per device
#
# Each thread sets its own device (`SetDevice` is per thread) and drives it alone.

# %% [markdown] lang="zh"
# 各核函数依次相隔 20 ms 开始：单个线程只能一个接一个地打开 Device。
#
# ## 3 · 方式 2 · 每个 Device 一个线程
#
# 每个线程指定自己的 Device（`SetDevice` 按线程生效），独自驱动它。

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
# Each thread's row shows its own calls. Device 0 starts first: its thread made the process's
# first call, and in the sandbox the other threads wait for it; then they open devices 1, 2 and 3
# side by side.
#
# ## 4 · Pattern 3 · One single-threaded process per device
#
# `sandbox.spawn_process(fn, *args)` starts `fn` as the main thread of a new simulated process:
# its own `aclInit`, its own contexts, sharing only the devices with the other processes.

# %% [markdown] lang="zh"
# 每个线程一行，显示它自己的调用。Device 0 最先开始：它的线程做了进程的首次调用，而在沙箱中其他线程要等它完成；之后
# 它们同时打开 Device 1、2、3。
#
# ## 4 · 方式 3 · 每个 Device 一个单线程进程
#
# `sandbox.spawn_process(fn, *args)` 把 `fn` 作为一个新模拟进程的主线程启动：它有自己的 `aclInit`、自己的 Context，
# 与其他进程只共用 Device。

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
# All four devices start together: each process makes its own first call, and the sandbox lets
# the four run side by side without slowing each other. On a board the FAQ warns that processes
# starting at the same moment compete, and their first calls grow and vary (section 1).
#
# The work itself is 4 devices × 2 kernels of 100 ms: 200 ms if all four start together. The
# **work span**, from the first kernel's start to the last one's end, shows what each pattern adds:

# %% [markdown] lang="zh"
# 四个 Device 同时开始：每个进程各自做首次调用，沙箱让四个进程并行启动、互不拖慢。FAQ 提醒，在真实硬件上同时启动的
# 进程会相互争抢资源，首次调用耗时变长且不稳定（见第 1 节）。
#
# 任务本身是 4 个 Device × 2 个 100 ms 的核函数：四个 Device 同时开始时为 200 ms。**工作跨度**（从第一个核函数开始到
# 最后一个核函数结束）显示了每种方式额外花了多少：

# %%
print(f"{'':<22} {'first kernel at':>15} {'work span':>10} {'end':>11}")
for name, (first, span), end in (("1 thread, 4 devices", one_thread_span, one_thread_end),
                                 ("4 threads", threads_span, threads_end),
                                 ("4 processes", processes_span, processes_end)):
    print(f"{name:<22} {first / 1e6:12.3f} ms {span / 1e6:7.3f} ms {end / 1e6:8.3f} ms")

# %% [markdown]
# Every pattern keeps the four devices busy at once. What differs is how long the host takes to
# get them all going (3 × 20 ms for one thread, 20 ms for threads, nothing more for processes, in
# the sandbox's figures) and what the program has to manage:
#
# | pattern | choose it when | what it costs |
# |---|---|---|
# | 1 · one thread | a few devices, little host work per device, the simplest program | the host work of all devices is done in turn by one thread; a synchronize before switching devices stops the others (exercise 06.1, in 06x) |
# | 2 · a thread per device | each device needs host work of its own, and the devices share data in host memory | `aclrtSetDevice` (or `aclrtSetCurrentContext`) in every thread; shared host data needs locking |
# | 3 · a process per device | the devices' work must be isolated: a crash in one process leaves the others running (distributed-training launchers start one worker per device) | each process pays its own start-up and holds its own copy of everything; device memory is shared only by IPC (section 7) |
# | 4 · processes of threads | a process per group of devices, a thread per device inside | both sets of rules ([06x](06x_patterns_in_depth.ipynb)) |

# %% [markdown] lang="zh"
# 每种方式都能让四个 Device 同时忙碌，区别在于 Host 要花多久才能让它们全部运转起来（按沙箱的数值：单线程 3 × 20 ms，
# 多线程 20 ms，多进程不再额外增加），以及程序需要管理什么：
#
# | 方式 | 适用场景 | 代价 |
# |---|---|---|
# | 1 · 单个线程 | Device 不多、每个 Device 的 Host 侧工作很少，想让程序最简单 | 所有 Device 的 Host 侧工作都由一个线程轮流完成；切换 Device 之前做同步会让其他 Device 停下来（06x 中的练习 06.1） |
# | 2 · 每 Device 一个线程 | 每个 Device 都有自己的 Host 侧工作，且各 Device 共用 Host 内存中的数据 | 每个线程都要调用 `aclrtSetDevice`（或 `aclrtSetCurrentContext`）；共享的 Host 数据需要加锁 |
# | 3 · 每 Device 一个进程 | 各 Device 的工作需要隔离：一个进程崩溃，其他进程照常运行（分布式训练的启动器通常为每个 Device 启动一个工作进程） | 每个进程各自承担启动开销，各持一份全部数据；Device 内存只能通过 IPC 共享（第 7 节） |
# | 4 · 多进程多线程 | 每组 Device 一个进程，进程内每个 Device 一个线程 | 两套规则同时适用（[06x](06x_patterns_in_depth.ipynb)） |

# %% [markdown]
# ## 5 · Threads and contexts
#
# The current context belongs to a **thread**, like the current device: "Context与线程绑定，同一时刻
# 一个线程只能使用一个Context" (the Runtime programming guide, *Context management*,
# `docs/zh/dev_guide/06_context_management.md`). `aclrtSetDevice` makes the device's default
# context current; `aclrtCreateContext` makes an explicit one (and makes it current in the
# creating thread). An explicit context can be shared: another thread of the same process makes
# it its own current context with `aclrtSetCurrentContext`, the guide's "多线程Context共享".
#
# Below, thread A creates a context on device 2 and hands the handle over. Thread B calls
# `set_context` with it, then creates a stream and launches on it. Thread C gets the same handle
# but never calls `set_context`:

# %% [markdown] lang="zh"
# ## 5 · 线程与 Context
#
# 当前 Context 和当前 Device 一样，属于**线程**：“Context与线程绑定，同一时刻一个线程只能使用一个Context”
# （《Runtime编程指南》“Context管理”，`docs/zh/dev_guide/06_context_management.md`）。`aclrtSetDevice` 把该 Device 的默认
# Context 设为当前 Context；`aclrtCreateContext` 创建一个显式 Context（并在创建它的线程中设为当前 Context）。显式
# Context 可以共享：同一进程的另一个线程调用 `aclrtSetCurrentContext`，就能把它设为自己的当前 Context，即编程指南中的
# “多线程Context共享”。
#
# 下面，线程 A 在 Device 2 上创建一个 Context，把句柄交出来；线程 B 用它调用 `set_context`，再创建 Stream 并下发
# 核函数；线程 C 拿到同一个句柄，但没有调用 `set_context`：

# %%
sandbox.configure(device_count=4)
acl.init()
shared = {}


def thread_a():
    shared["ctx"], ret = acl.rt.create_context(2)
    print("A: create_context(2)", ret, "| A's current device:", acl.rt.get_device())


def thread_b():
    print("B: set_context(ctx)", acl.rt.set_context(shared["ctx"]), "| B's current device:", acl.rt.get_device())
    stream, ret = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    print("B: create_stream", ret, "| launch:", long_kernel[24, stream](buf),
          "| synchronize:", acl.rt.synchronize_stream(stream))
    acl.rt.free(buf)
    acl.rt.destroy_stream(stream)


def thread_c():
    print("C: without set_context, current context:", acl.rt.get_context(), "| create_stream:", acl.rt.create_stream()[1])


for fn in (thread_a, thread_b, thread_c):
    t = threading.Thread(target=fn, name=fn.__name__)
    t.start()
    t.join()
acl.rt.set_device(2)
default_ctx, _ = acl.rt.get_context()
print("main: destroy device 2's default context:", acl.rt.destroy_context(default_ctx), "(ACL_ERROR_INVALID_PARAM)")
print("main: destroy the explicit context:", acl.rt.destroy_context(shared["ctx"]))

# %% [markdown]
# B works on device 2 without ever calling `aclrtSetDevice`: setting a context also sets its
# device. C, holding the same handle, has no current context at all (107002): a handle in a
# variable is not a current context. Only explicit contexts can be destroyed (the guide:
# 不要销毁默认Context); the default one goes with the device reset.
#
# ## 6 · Two threads, one stream
#
# The guide allows threads to share a context, but warns that they must then "自行保证Stream上任务的
# 执行顺序" and recommends a stream per thread.
#
# **Predict, then run.** Two threads share one context and **one** stream; each launches one
# 100 ms kernel on it at about the same moment. How long until both kernels are done: about
# 100 ms, about 200 ms, or does the second launch fail?

# %% [markdown] lang="zh"
# B 从未调用 `aclrtSetDevice`，却在 Device 2 上工作：设置 Context 的同时也设置了它所属的 Device。C 持有同一个句柄，
# 却根本没有当前 Context（107002）：变量里的句柄并不等于当前 Context。只有显式 Context 可以销毁（编程指南：“不要
# 销毁默认Context”）；默认 Context 随 Device 复位一起释放。
#
# ## 6 · 两个线程，一个 Stream
#
# 编程指南允许多个线程共享 Context，但提醒此时“需自行保证Stream上任务的执行顺序”，并推荐每个线程使用独立的 Stream。
#
# **先预测，再运行。** 两个线程共享一个 Context 和**同一个** Stream，几乎同时各在其上下发一个 100 ms 的核函数。两个
# 核函数全部完成需要多久：约 100 ms、约 200 ms，还是第二次下发会失败？

# %%
sandbox.configure(device_count=4)
acl.init()
acl.rt.set_device(0)
ctx, _ = acl.rt.create_context(0)
stream, _ = acl.rt.create_stream()
buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)


def launcher():
    acl.rt.set_context(ctx)
    print(threading.current_thread().name, "launch:", long_kernel[24, stream](buf))


t0 = sandbox.now()
ts = [threading.Thread(target=launcher, name=f"T{i}") for i in (1, 2)]
for t in ts:
    t.start()
for t in ts:
    t.join()
acl.rt.synchronize_stream(stream)
print(f"both kernels done after {(sandbox.now() - t0) / 1e6:.3f} ms")
sandbox.gantt()

# %% [markdown]
# About 200 ms: both launches succeed, and the stream, one queue, runs the two kernels one after
# the other, whichever thread launched them. Which one goes first is the order of the launches;
# on a board that depends on how the operating system schedules the two threads, so if the order
# matters, the program must fix it (an event, or one thread per stream). The sandbox's turn order
# makes it the same on every run ([06x](06x_patterns_in_depth.ipynb) explains it).
#
# ## 7 · Processes do not share device memory without IPC
#
# Device memory, events and notifies made in one process can be used by its other threads, but
# "这些指针或句柄在进程之外是无效的" (the guide, *Inter-process communication*,
# `docs/zh/dev_guide/07_inter_process_communication.md`). To share device memory, process A
# exports it under a key (`aclrtIpcMemGetExportKey`; flag 1, `DISABLE_PID_VALIDATION`, lets any
# process import it) and process B imports the key (`aclrtIpcMemImportByKey`), getting **an
# address of its own** for the same bytes; A closes its export only after B has imported. (If A
# and B use different devices, B imports with the flag that enables peer access.) The key travels
# by `sandbox.write_shared` / `read_shared`, the sandbox's stand-in for the files the official
# samples use.

# %% [markdown] lang="zh"
# 约 200 ms：两次下发都成功；Stream 是一个队列，不管由哪个线程下发，两个核函数都一个接一个地执行。谁先执行取决于下发
# 的先后；在真实硬件上这取决于操作系统怎样调度两个线程，所以如果顺序要紧，程序必须自己保证：用 Event（事件），或者每个线程
# 一个 Stream。沙箱的轮转规则让每次运行的顺序都相同（[06x](06x_patterns_in_depth.ipynb) 中有解释）。
#
# ## 7 · 没有 IPC，进程之间不共享 Device 内存
#
# 一个进程中创建的 Device 内存、Event、Notify 可以被该进程的其他线程直接使用，但“这些指针或句柄在进程之外是无效的”
# （《Runtime编程指南》“进程间通信”，`docs/zh/dev_guide/07_inter_process_communication.md`）。要共享 Device 内存，
# 进程 A 用 `aclrtIpcMemGetExportKey` 以一个 key 导出内存（标志 1，即 `DISABLE_PID_VALIDATION`，允许任何进程导入），
# 进程 B 用 `aclrtIpcMemImportByKey` 导入这个 key，得到**属于自己的地址**，指向同一段数据；A 要等 B 导入之后才能关闭
# 共享。（若 A 和 B 使用不同的 Device，B 导入时要带上开启数据交互的标志。）key 通过 `sandbox.write_shared` /
# `read_shared` 传递，这是沙箱对官方样例中读写文件的替代。

# %%
sandbox.configure("ascend910b", device_count=2)


def exporter():
    acl.init()
    acl.rt.set_device(0)
    buf, _ = acl.rt.malloc(1024, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memset(buf, 1024, 7, 1024)                          # done when it returns
    key, ret = acl.rt.ipc_mem_get_export_key(buf, 1024, 65, 1)
    print(f"process A: address {buf:#x}, export key {key!r}, ret {ret}")
    sandbox.write_shared("key", key)
    while sandbox.read_shared("done") is None:                 # keep the memory until B has read it
        sandbox.host_work(100_000, "wait for B")
    acl.rt.ipc_mem_close(key)
    acl.rt.free(buf)
    acl.rt.reset_device_force(0)
    acl.finalize()


def importer():
    acl.init()
    acl.rt.set_device(0)
    while (key := sandbox.read_shared("key")) is None:
        sandbox.host_work(100_000, "wait for A")
    ptr, ret = acl.rt.ipc_mem_import_by_key(key, 0)
    host, _ = acl.rt.malloc_host(1024)
    acl.rt.memcpy(host, 1024, ptr, 1024, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    print(f"process B: imported at {ptr:#x}, ret {ret}, reads",
          acl.util.ptr_to_numpy(host, (4,), np.uint8).tolist())
    acl.rt.free_host(host)
    acl.rt.ipc_mem_close(key)
    sandbox.write_shared("done", True)
    acl.rt.reset_device_force(0)
    acl.finalize()


a, b = sandbox.spawn_process(exporter), sandbox.spawn_process(importer)
a.join()
b.join()

# %% [markdown]
# B reads A's bytes through an address that is not A's. One limit of the simulation: its
# processes share one Python interpreter, and the sandbox does not refuse if B uses A's raw
# address directly; on a board that address means nothing in B. Events (`ACL_EVENT_IPC`) and
# notifies are shared the same way; the official samples listed at the end port all of them.

# %% [markdown] lang="zh"
# B 通过一个不同于 A 的地址读到了 A 的数据。模拟有一处局限：模拟进程共用一个 Python 解释器，B 直接使用 A 的原始地址时
# 沙箱不会拒绝；而在真实硬件上，这个地址在 B 中毫无意义。Event（`ACL_EVENT_IPC`）和 Notify 也以同样的方式共享；文末
# 列出的官方样例都已移植。

# %% [markdown]
# ## Exercise
#
# `sandbox.teach.check("06.2", solution)` runs **your** function on a fresh machine of four 910B
# devices, with new input chunks each time, and judges the run from its trace. The grader has
# already run `acl.init()` and set device 0 on your function's thread, so a solution does not
# call `acl.init()` (a second one fails with 100002 `ACL_ERROR_REPEAT_INITIALIZE`). The `square`
# kernel below takes 200 ms on the device.

# %% [markdown] lang="zh"
# ## 练习
#
# `sandbox.teach.check("06.2", solution)` 会在一台全新的、有四个 910B Device 的机器上运行**你的**函数，每次生成新的
# 输入数据块，并根据 trace 评判。评分器已经执行了 `acl.init()`，并在你的函数所在线程上指定了 Device 0，所以答案里
# 不要调用 `acl.init()`（第二次调用会返回 100002 `ACL_ERROR_REPEAT_INITIALIZE`）。下面的 `square` 核函数在 Device
# 上耗时 200 ms。

# %%
import sandbox.teach                # sandbox.teach.check: the grader

N = 256 * 1024                     # float32 elements per chunk (1 MiB)
NBYTES = 4 * N
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST


@sandbox.kernel(ns=200_000_000)    # 200 ms, whatever block_dim it gets
def square(x: "float32*", n: int):
    x[:n] = x[:n] * x[:n]

# %% [markdown]
# ### Exercise 06.2 · one thread per device
#
# *Practises:* pattern 2: one host thread per device, `set_device` called **in** that thread (the
# current device and context belong to the thread that set them), and joining every thread
# before returning.
#
# `chunks` is a list of four float32 arrays of `N` elements. Square chunk `d` on device `d` from
# four `threading.Thread`s that your function starts: thread `d` does all of device `d`'s work
# (set_device, stream, buffers, copies, `square[8, stream](dev, N)`, synchronize, read, free,
# reset) and puts its square at index `d` of a list your function made. Your function only
# starts the threads, joins them and returns the list. The grader wants:
#
# * each square right, computed on its device and copied back from there;
# * kernels launched from exactly 4 threads of 1 process, each thread on one device, each device
#   by one thread, none by the solution's own thread;
# * all four devices busy at the same moment (start all four threads before joining any).

# %% [markdown] lang="zh"
# ### 练习 06.2 · 每个 Device 一个线程
#
# *练习内容：* 方式 2：每个 Device 一个 Host 线程，**在**该线程中调用 `set_device`（当前 Device 和 Context 属于设置
# 它们的线程），并在返回之前 join 每个线程。
#
# `chunks` 是四个 `N` 元素 float32 数组组成的列表。由你的函数启动四个 `threading.Thread`，在 Device `d` 上对第 `d`
# 块求平方：线程 `d` 完成 Device `d` 的全部工作（set_device、Stream、缓冲区、复制、`square[8, stream](dev, N)`、同步、
# 读取、释放、复位），并把结果放在你的函数创建的列表的第 `d` 个位置。你的函数只负责启动线程、join 它们并返回列表。
# 评分标准：
#
# * 每个平方结果都正确，在对应的 Device 上计算，并从那里拷回；
# * 核函数恰好由 1 个进程中的 4 个线程下发，每个线程对应一个 Device，每个 Device 由一个线程负责，解答自己的线程不下发；
# * 四个 Device 在同一时刻都在工作（先启动全部四个线程，再 join）。

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
# ## Concept check
#
# Four questions; answer each with a letter. Every answer was shown by a cell above, and a wrong
# choice prints which mistake it stands for and where to look.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 四道题，每题用一个字母作答。每道题的答案都由上面的某个单元格演示过；选错时会说明它对应哪种常见误解，以及该回看
# 哪里。

# %%
teach.questions("06.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "b", 2: "b", 3: "c", 4: "b"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
teach.check("06.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("06.concepts", concepts, isolated=True).score * 4
### END HIDDEN TESTS

# %% [markdown]
# ## Official samples for this topic
#
# [1_device_multi_thread.py](../examples/1_basic_features/device/1_device_multi_thread.py) drives
# one device per host thread. Two processes share device memory by key in
# [10_ipc_memory_withpid.py](../examples/1_basic_features/memory/10_ipc_memory_withpid.py) and
# [11_ipc_memory_withoutpid.py](../examples/1_basic_features/memory/11_ipc_memory_withoutpid.py)
# (with and without the pid allow-list), a notify in
# [0_ipc_notify_withpid.py](../examples/2_advanced_features/notify/0_ipc_notify_withpid.py) and
# [1_ipc_notify_withoutpid.py](../examples/2_advanced_features/notify/1_ipc_notify_withoutpid.py),
# and an event in [0_ipcevent.py](../examples/2_advanced_features/ipcevent/0_ipcevent.py) (one
# device) and
# [1_ipcevent_multi_device.py](../examples/2_advanced_features/ipcevent/1_ipcevent_multi_device.py)
# (two devices). [examples/README.md](../examples/README.md) lists them all.

# %% [markdown] lang="zh"
# ## 本专题的官方样例
#
# [1_device_multi_thread.py](../../examples/1_basic_features/device/1_device_multi_thread.py) 每个 Host 线程驱动一个
# Device。两个进程按 key 共享 Device 内存：
# [10_ipc_memory_withpid.py](../../examples/1_basic_features/memory/10_ipc_memory_withpid.py) 和
# [11_ipc_memory_withoutpid.py](../../examples/1_basic_features/memory/11_ipc_memory_withoutpid.py)（分别启用和不启用
# 进程白名单）；共享 Notify：
# [0_ipc_notify_withpid.py](../../examples/2_advanced_features/notify/0_ipc_notify_withpid.py) 和
# [1_ipc_notify_withoutpid.py](../../examples/2_advanced_features/notify/1_ipc_notify_withoutpid.py)；共享 Event：
# [0_ipcevent.py](../../examples/2_advanced_features/ipcevent/0_ipcevent.py)（同一 Device）和
# [1_ipcevent_multi_device.py](../../examples/2_advanced_features/ipcevent/1_ipcevent_multi_device.py)（两个 Device）。
# [examples/README.md](../../examples/README.md) 列出了全部样例。

# %% [markdown]
# ## Summary
#
# A process's first `aclrtSetDevice` costs seconds on a board; later calls are cheap. One thread
# drives several devices by queuing on all before waiting on any; a thread per device calls
# `SetDevice` in each thread; a process per device isolates them. Threads share an explicit
# context with `aclrtSetCurrentContext`, and threads sharing a stream share one queue. Processes
# share device memory only through IPC keys. Next, notebook 07: callbacks and host functions.

# %% [markdown] lang="zh"
# ## 小结
#
# 在真实硬件上，进程首次调用 `aclrtSetDevice` 要花秒级时间，之后的调用开销很小。单个线程驱动多个 Device 时，先在
# 所有 Device 上下发、再逐个等待；每 Device 一个线程时，每个线程都要调用 `SetDevice`；每 Device 一个进程则相互隔离。
# 线程之间用 `aclrtSetCurrentContext` 共享显式 Context，共用一个 Stream 的线程共用同一个队列。进程之间只能通过 IPC
# key 共享 Device 内存。下一篇 notebook 07：回调与 Host 函数。

# %% [markdown] lang="zh" translates="code"
# en: # 100 ms of device work: long next to the host calls
# zh: # 100 ms 的 Device 任务：比 Host 侧调用长得多
# en: """Queue the work of one device: a stream, a buffer, two kernels. Returns what finish needs."""
# zh: """为一个 Device 下发任务：一个 Stream、一块缓冲区、两个核函数。返回 finish 所需的东西。"""
# en: """Wait for the device's work and give everything back."""
# zh: """等待该 Device 的任务完成，并释放所有资源。"""
# en: """(when the first kernel started, from the first kernel's start to the last one's end), in ns."""
# zh: """（第一个核函数开始的时刻，从第一个核函数开始到最后一个结束的时长），单位 ns。"""
# en: took {(sandbox.now() - t0) / 1e6:10.3f} ms
# zh: 耗时 {(sandbox.now() - t0) / 1e6:10.3f} ms
# en: 'first kernel at'
# zh: '第一个核函数开始于'
# en: 'work span'
# zh: '工作跨度'
# en: 'end'
# zh: '结束'
# en: ("1 thread, 4 devices"
# zh: ("1 个线程，4 个 Device"
# en: ("4 threads"
# zh: ("4 个线程"
# en: ("4 processes"
# zh: ("4 个进程"
# en: print("A: create_context(2)", ret, "| A's current device:"
# zh: print("A: create_context(2)", ret, "| A 的当前 Device:"
# en: "| B's current device:"
# zh: "| B 的当前 Device:"
# en: "| launch:"
# zh: "| 下发:"
# en: "| synchronize:"
# zh: "| 同步:"
# en: print("C: without set_context, current context:"
# zh: print("C: 未调用 set_context，当前 Context:"
# en: print("main: destroy device 2's default context:"
# zh: print("主线程: 销毁 Device 2 的默认 Context:"
# en: print("main: destroy the explicit context:"
# zh: print("主线程: 销毁显式 Context:"
# en: "launch:", long_kernel
# zh: "下发:", long_kernel
# en: print(f"both kernels done after
# zh: print(f"两个核函数全部完成用时
# en: # done when it returns
# zh: # 返回时已完成
# en: print(f"process A: address {buf:#x}, export key {key!r}, ret {ret}")
# zh: print(f"进程 A: 地址 {buf:#x}，导出 key {key!r}，ret {ret}")
# en: # keep the memory until B has read it
# zh: # B 读完之前保留这块内存
# en: "wait for B"
# zh: "等待 B"
# en: "wait for A"
# zh: "等待 A"
# en: print(f"process B: imported at {ptr:#x}, ret {ret}, reads",
# zh: print(f"进程 B: 导入地址 {ptr:#x}，ret {ret}，读到",
# en: # sandbox.teach.check: the grader
# zh: # sandbox.teach.check：评分器
# en: # float32 elements per chunk (1 MiB)
# zh: # 每块的 float32 元素个数（1 MiB）
# en: # 200 ms, whatever block_dim it gets
# zh: # 200 ms，与 block_dim 无关
# en: """Square chunks[d] on device d, each device driven by a host thread of its own."""
# zh: """在 Device d 上对 chunks[d] 求平方，每个 Device 由自己的 Host 线程驱动。"""
# en: # TODO: write the body of one thread (it gets d, its chunk and the shared list), start
# zh: # TODO：写出一个线程的函数体（参数为 d、它的数据块和共享的列表），启动
# en: # four threading.Threads, then join them all.
# zh: # 四个 threading.Thread，再 join 全部线程。
# en: # Hint: set_device holds for the calling thread only: a thread that has not called it has
# zh: # 提示：set_device 只对调用它的线程有效：没有调用过它的线程
# en: # no current context, and its create_stream fails with ACL_ERROR_RT_CONTEXT_NULL (107002).
# zh: # 没有当前 Context，它的 create_stream 会返回 ACL_ERROR_RT_CONTEXT_NULL（107002）。
# en: """Your answers: {question number: letter}."""
# zh: """你的答案：{题号: 字母}。"""
# keep: (ACL_ERROR_INVALID_PARAM)
