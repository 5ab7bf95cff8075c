# %% [markdown]
# # 01 · Quick start: the five steps of a runtime program
#
# Every program that runs work on an Ascend NPU through the runtime (AscendCL) has the same
# skeleton. This notebook writes it once, on the vector addition from the asynchronous-execution
# article (seed 003): two vectors of 1 Mi `int32` go to the device, an `AddKernel` adds them,
# the sum comes back.
#
# | step | what it does | C (AscendCL) | Python (this sandbox, pyACL style) |
# |---|---|---|---|
# | 1 | initialise the runtime | `aclInit(NULL)` | `acl.init()` |
# | 2 | pick a device, make a stream | `aclrtSetDevice(0)`, `aclrtCreateStream(&stream)` | `acl.rt.set_device(0)`, `stream, ret = acl.rt.create_stream()` |
# | 3 | memory and copies in | `aclrtMalloc`, `aclrtMallocHost`, `aclrtMemcpyAsync(..., ACL_MEMCPY_HOST_TO_DEVICE, stream)` | `acl.rt.malloc`, `acl.rt.malloc_host`, `acl.rt.memcpy_async(...)` |
# | 4 | launch the kernel | Ascend C: `add_kernel<<<blockDim, nullptr, stream>>>(devA, devB, devC, size)` | `add[block_dim, stream](dev_a, dev_b, dev_c, size)` |
# | 5 | copy back, synchronise, clean up | `aclrtSynchronizeStream(stream)`, `aclrtFree`, `aclrtDestroyStream`, `aclrtResetDevice`, `aclFinalize()` | the same names in snake case |
#
# Names, arguments, return shapes and codes are pyACL's, the real binding's (`hicann/runtime`,
# `python/pyACL/`): a call that only reports success returns an `int` (0 is `ACL_SUCCESS`); a
# call that produces something returns a tuple with the code last. A program for a board
# writes `import acl`, and defines the constants it uses (`ACL_MEMCPY_HOST_TO_DEVICE = 1`, as
# the official samples' `constants.py` does): pyACL has none, the sandbox offers them to keep
# the cells short. The last cell lists what this notebook uses that a board's `acl` lacks.
#
# **After this notebook** you can write the five steps yourself, say which layer of the
# software stack each call reaches, and read the Gantt chart, memory map and queue panel.
# **It assumes** Python and numpy; no NPU and no C are needed.

# %% [markdown] lang="zh"
# # 01 · 快速入门：运行时程序的五个步骤
#
# 每个通过运行时（AscendCL）在昇腾 NPU 上运行任务的程序都有相同的骨架。本 notebook 以异步执行
# 文章（种子 003）中的向量加法为例把它完整写一遍：两个各含 1 Mi 个 `int32` 的向量拷贝到设备，
# 由 `AddKernel` 相加，再把和拷贝回来。
#
# | 步骤 | 做什么 | C（AscendCL） | Python（本沙箱，pyACL 风格） |
# |---|---|---|---|
# | 1 | 初始化运行时 | `aclInit(NULL)` | `acl.init()` |
# | 2 | 选择设备、创建流 | `aclrtSetDevice(0)`、`aclrtCreateStream(&stream)` | `acl.rt.set_device(0)`、`stream, ret = acl.rt.create_stream()` |
# | 3 | 申请内存并拷入数据 | `aclrtMalloc`、`aclrtMallocHost`、`aclrtMemcpyAsync(..., ACL_MEMCPY_HOST_TO_DEVICE, stream)` | `acl.rt.malloc`、`acl.rt.malloc_host`、`acl.rt.memcpy_async(...)` |
# | 4 | 下发核函数 | Ascend C：`add_kernel<<<blockDim, nullptr, stream>>>(devA, devB, devC, size)` | `add[block_dim, stream](dev_a, dev_b, dev_c, size)` |
# | 5 | 拷回、同步、清理 | `aclrtSynchronizeStream(stream)`、`aclrtFree`、`aclrtDestroyStream`、`aclrtResetDevice`、`aclFinalize()` | 同名的 snake_case 写法 |
#
# 名称、参数、返回形式和错误码都与 pyACL（真实的绑定：`hicann/runtime` 的 `python/pyACL/`）相同：只报告成败的
# 调用返回一个 `int`（0 即 `ACL_SUCCESS`）；产生结果的调用返回一个元组，错误码在最后。板卡上的程序写
# `import acl`，并自己定义用到的常量（如 `ACL_MEMCPY_HOST_TO_DEVICE = 1`，官方示例的 `constants.py` 就是这样做的）：
# pyACL 没有常量，沙箱提供它们是为了让代码单元简短。最后一个代码单元列出本 notebook 用到、而板卡上的 `acl` 没有的名称。
#
# **学完本 notebook**，你能自己写出这五个步骤，说出每个调用到达软件栈的哪一层，并读懂甘特图、
# 内存图和队列面板。**前提**：会 Python 和 numpy；不需要 NPU，也不需要会 C。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %% [markdown]
# ## Three layers between your code and the chip
#
# The runtime overview (seed 004) describes three layers. What each does, and where it sits in
# this sandbox:
#
# | layer | what it does | on a real machine | here |
# |---|---|---|---|
# | application | your program: frameworks (PyTorch, MindSpore...) or your own code call the API | your process, `libascendcl` / pyACL | your cells, `sandbox.acl` (the facade: names, arguments, return codes) |
# | runtime | contexts, streams, events, device memory; turns each call into tasks queued on a stream; reports errors | `libruntime` (the `hicann/runtime` repository) | `sandbox/core`: every call charged host time, checked, recorded |
# | driver and device | hands the queued tasks to the device, where the **Task Scheduler** takes them off each stream in order and dispatches them to the AI Cores and DMA engines; reports faults back | kernel driver, device firmware | `sandbox/core/device_loop.py` and `engines.py`: the device side in virtual time |
#
# An asynchronous call returns once the runtime has queued its task; the device side runs it
# later. The Gantt chart at the end draws both sides: the host thread's calls (application and
# runtime) on top, the tasks the device ran below.

# %% [markdown] lang="zh"
# ## 你的代码与芯片之间的三层
#
# 运行时概览（种子 004）描述了三层。每层做什么，在本沙箱中对应哪里：
#
# | 层 | 做什么 | 在真实机器上 | 在这里 |
# |---|---|---|---|
# | 应用层 | 你的程序：框架（PyTorch、MindSpore……）或你自己的代码调用 API | 你的进程，`libascendcl` / pyACL | 你的代码单元，`sandbox.acl`（外观层：名称、参数、返回码） |
# | 运行时层 | 上下文、流、事件、设备内存；把每个调用变成放入流中的任务；报告错误 | `libruntime`（`hicann/runtime` 仓库） | `sandbox/core`：每个调用计入 Host 时间、被检查、被记录 |
# | 驱动与设备 | 把排队的任务交给设备，设备上的**任务调度器（Task Scheduler）**按顺序从每条流取出任务，分派给 AI Core 和 DMA 引擎；把故障报告回来 | 内核驱动、设备固件 | `sandbox/core/device_loop.py` 和 `engines.py`：以虚拟时间运行的设备侧 |
#
# 异步调用在运行时把任务放入队列后就返回；设备侧稍后才执行它。末尾的甘特图画出两侧：上方是
# Host 线程的调用（应用层和运行时层），下方是设备执行的任务。

# %%
import numpy as np

import sandbox
from sandbox import acl, teach

sandbox.configure("ascend310b")     # the seed's board: an Ascend 310B with one AI Core
print(sandbox.profile().soc_name, "-", sandbox.profile().ai_cores, "AI Core")

# %% [markdown]
# ## How the official quick-start sample goes
#
# The runtime repository (`hicann/runtime`, folder `example/0_quickstart`) opens with a
# "hello CANN" sample and a custom-kernel sample. Their flow, in short:
#
# 1. initialise, set device 0, create one stream; every call's return code is checked by a
#    macro that logs the failing call and stops;
# 2. allocate three device buffers with the huge-page-first policy and copy the two input
#    vectors in with the **blocking** copy (`aclrtMemcpy`);
# 3. launch the vector-add on the stream, then **synchronise the stream** before reading;
# 4. copy the result back (blocking), compare each element with the expected sum within a
#    tolerance, and print both;
# 5. free the buffers, destroy the stream, reset the device, finalise — the reverse order of
#    creation.
#
# We follow the same five steps, but with the seed's asynchronous copies on the stream, so
# that the whole program is queued first and waited for once.

# %% [markdown] lang="zh"
# ## 官方快速入门示例的流程
#
# 运行时仓库（`hicann/runtime`，目录 `example/0_quickstart`）以一个 "hello CANN" 示例和一个自定义
# 核函数示例开篇。它们的流程简述如下：
#
# 1. 初始化，设置设备 0，创建一条流；每个调用的返回码都由一个宏检查，失败时记录出错的调用并停止；
# 2. 以大页优先策略申请三块设备缓冲区，用**阻塞**拷贝（`aclrtMemcpy`）拷入两个输入向量；
# 3. 在流上下发向量加法，读取之前先**同步这条流**；
# 4. 把结果拷回（阻塞），在容差内逐元素与期望的和比较，并打印两者；
# 5. 释放缓冲区、销毁流、复位设备、去初始化——与创建相反的顺序。
#
# 我们按同样的五个步骤来做，但使用种子文章中放在流上的异步拷贝，这样整个程序先全部入队，只等待一次。

# %% [markdown]
# ## Step 1 · initialise
#
# `aclInit` must be the first call of a process. In the sandbox every call costs virtual time
# on the calling host thread; `sandbox.now()` reads that clock in integer nanoseconds.

# %% [markdown] lang="zh"
# ## 第 1 步 · 初始化
#
# `aclInit` 必须是进程的第一个调用。在沙箱中，每个调用都会在调用它的 Host 线程上花费虚拟时间；
# `sandbox.now()` 以整数纳秒读取这个时钟。

# %%
ret = acl.init()                    # C: aclInit(NULL);
print("aclInit ->", ret, "| host clock:", sandbox.now() / 1e6, "ms")

# %% [markdown]
# ## Step 2 · device and stream
#
# `aclrtSetDevice` opens the device and gives the thread a default context. The first open of
# a process is slow (about a second on real hardware, and here). A **stream** is an in-order
# queue of device work; calls ending in `Async` put a task on it and return at once.
# (The seed's C code creates an explicit context with `aclrtCreateContext(&context, 0)`; the
# official samples rely on the default context that `aclrtSetDevice` makes. Both work.)

# %% [markdown] lang="zh"
# ## 第 2 步 · 设备和流
#
# `aclrtSetDevice` 打开设备，并给线程一个默认上下文。进程第一次打开设备很慢（在真实硬件上约一秒，
# 这里也是）。**流（stream）**是设备任务的按序队列；以 `Async` 结尾的调用把一个任务放到流上并立即返回。
# （种子的 C 代码用 `aclrtCreateContext(&context, 0)` 创建了一个显式上下文；官方示例依赖
# `aclrtSetDevice` 创建的默认上下文。两种都可以。）

# %%
ret = acl.rt.set_device(0)          # C: aclrtSetDevice(0);
stream, ret2 = acl.rt.create_stream()   # C: aclrtCreateStream(&stream);
print("aclrtSetDevice ->", ret, "| aclrtCreateStream ->", ret2)
print("host clock after opening the device:", sandbox.now() / 1e6, "ms")

# %% [markdown]
# ## Step 3 · memory and copies in
#
# Device memory comes from `aclrtMalloc`; host memory that the DMA engines can read directly
# (*pinned*) from `aclrtMallocHost`. `acl.util.ptr_to_numpy` gives a numpy view of host memory
# so we can fill it. Then two asynchronous host-to-device copies go on the stream.

# %% [markdown] lang="zh"
# ## 第 3 步 · 申请内存并拷入数据
#
# 设备内存来自 `aclrtMalloc`；DMA 引擎可以直接读取的 Host 内存（*锁页内存*）来自 `aclrtMallocHost`。
# `acl.util.ptr_to_numpy` 给出 Host 内存的 numpy 视图，以便填入数据。然后两个异步的 Host 到设备
# 拷贝放到流上。

# %%
N = 1024 * 1024                     # elements per vector
NBYTES = N * 4                      # int32: 4 MiB per vector
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST

host_a, _ = acl.rt.malloc_host(NBYTES)      # C: aclrtMallocHost(&hostA, byteSize);
host_b, _ = acl.rt.malloc_host(NBYTES)
host_c, _ = acl.rt.malloc_host(NBYTES)
dev_a, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)   # C: aclrtMalloc(&devA, byteSize, ACL_MEM_MALLOC_HUGE_FIRST);
dev_b, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
dev_c, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)

a = acl.util.ptr_to_numpy(host_a, (N,), np.int32)
b = acl.util.ptr_to_numpy(host_b, (N,), np.int32)
a[:] = np.arange(N)                 # hostA[i] = i
b[:] = N - np.arange(N)             # hostB[i] = size - i, so every sum is size

# C: aclrtMemcpyAsync(devA, byteSize, hostA, byteSize, ACL_MEMCPY_HOST_TO_DEVICE, stream);
rets = [acl.rt.memcpy_async(dev_a, NBYTES, host_a, NBYTES, H2D, stream),
        acl.rt.memcpy_async(dev_b, NBYTES, host_b, NBYTES, H2D, stream)]
print("two aclrtMemcpyAsync ->", rets, "| host clock:", sandbox.now() / 1e6, "ms")

# %% [markdown]
# The memory map shows the three device buffers (each 4 MiB plus the runtime's 32-byte pad,
# rounded up to 2 MiB huge pages) and the three pinned host buffers.

# %% [markdown] lang="zh"
# 内存图显示三块设备缓冲区（每块 4 MiB 加上运行时的 32 字节填充，向上取整到 2 MiB 大页）和三块
# 锁页 Host 缓冲区。

# %%
sandbox.memory_map()

# %% [markdown]
# ## Step 4 · launch
#
# A kernel is a Python function made into a device kernel with `@sandbox.kernel`. Pointer
# parameters are annotated with their element type (`"int32*"`) and arrive as numpy views of
# device memory. Its cost is declared: here `ns=3_500_000`, the 3.5 ms the seed measured for
# `AddKernel` on the 310B. `add[block_dim, stream](...)` is Ascend C's launch
# `add_kernel<<<blockDim, nullptr, stream>>>(...)`: `blockDim` is the number of cores (blocks)
# the kernel runs on, the second argument (`l2ctrl`) is reserved and passed as `nullptr`, the
# third the stream.
#
# The seed's program is written in **CUDA**, not Ascend C: `AddKernel<<<gridDim, blockDim, 0,
# stream>>>` with a `__global__` kernel indexed by `threadIdx`, and `(N + 255) / 256` blocks of
# 256 threads. Ascend C has no thread index: a kernel learns which core it is on
# (`GetBlockIdx()`) and each core works through its share of the data in tiles. The 310B has
# one AI Core, so `blockDim` 1 uses all of it; more blocks than cores run in waves.

# %% [markdown] lang="zh"
# ## 第 4 步 · 下发核函数
#
# 核函数是用 `@sandbox.kernel` 变成设备核函数的 Python 函数。指针参数标注元素类型（`"int32*"`），
# 以设备内存的 numpy 视图传入。它的耗时是声明的：这里 `ns=3_500_000`，即种子在 310B 上为
# `AddKernel` 测得的 3.5 ms。`add[block_dim, stream](...)` 对应 Ascend C 的下发语法
# `add_kernel<<<blockDim, nullptr, stream>>>(...)`：`blockDim` 是核函数运行的核（block）数，第二个
# 参数（`l2ctrl`）保留，传 `nullptr`，第三个是流。
#
# 种子的程序是用 **CUDA** 写的，不是 Ascend C：`AddKernel<<<gridDim, blockDim, 0, stream>>>`，
# 一个用 `threadIdx` 索引的 `__global__` 核函数，以及 `(N + 255) / 256` 个每块 256 线程的 block。
# Ascend C 没有线程索引：核函数获知自己在哪个核上（`GetBlockIdx()`），每个核按分块（tile）处理
# 自己那份数据。310B 只有一个 AI Core，所以 `blockDim` 为 1 就用满了它；block 数多于核数时分批
# （wave）运行。

# %%
@sandbox.kernel(ns=lambda a, b, c, size: 3_500_000 * size // N)   # 3.5 ms for the full 1 Mi
def add(a: "int32*", b: "int32*", c: "int32*", size: int):
    c[:size] = a[:size] + b[:size]


# Ascend C: add_kernel<<<1, nullptr, stream>>>(devA, devB, devC, size);
ret = add[1, stream](dev_a, dev_b, dev_c, N)
print("launch ->", ret, "| host clock:", sandbox.now() / 1e6, "ms (the launch returned at once)")

# %% [markdown]
# Nothing has finished yet: the host is only microseconds past the first copy. The queue panel
# shows what the stream holds right now — one copy running on the DMA engine, the rest waiting
# for their turn in the stream.

# %% [markdown] lang="zh"
# 还什么都没完成：Host 只比第一次拷贝晚了几微秒。队列面板显示流此刻持有的内容——一个拷贝正在
# DMA 引擎上运行，其余的在流中排队等待。

# %%
sandbox.queues()

# %% [markdown]
# ## Step 5 · copy back, synchronise, clean up
#
# The result copy goes on the same stream, so it starts only after the kernel. The host then
# waits once, with `aclrtSynchronizeStream`, and only then reads `host_c`. Clean-up releases
# everything in the reverse order of creation.

# %% [markdown] lang="zh"
# ## 第 5 步 · 拷回、同步、清理
#
# 结果拷贝放在同一条流上，所以它只在核函数之后开始。然后 Host 用 `aclrtSynchronizeStream` 等待
# 一次，之后才读取 `host_c`。清理按与创建相反的顺序释放一切。

# %%
# C: aclrtMemcpyAsync(hostC, byteSize, devC, byteSize, ACL_MEMCPY_DEVICE_TO_HOST, stream);
acl.rt.memcpy_async(host_c, NBYTES, dev_c, NBYTES, D2H, stream)
before = sandbox.now()
ret = acl.rt.synchronize_stream(stream)     # C: aclrtSynchronizeStream(stream);
print(f"aclrtSynchronizeStream -> {ret}, the host waited {(sandbox.now() - before) / 1e6:.3f} ms")

c = acl.util.ptr_to_numpy(host_c, (N,), np.int32).copy()
print("c[:4] =", c[:4], "| every element is", N, ":", bool((c == N).all()))
synced = teach.mark("synchronized")      # a named moment in the trace, for the dashboard below

# %%
rets = [acl.rt.free(p) for p in (dev_a, dev_b, dev_c)]           # C: aclrtFree(devA); ...
rets += [acl.rt.free_host(p) for p in (host_a, host_b, host_c)]  # C: aclrtFreeHost(hostA); ...
rets += [acl.rt.destroy_stream(stream),                          # C: aclrtDestroyStream(stream);
         acl.rt.reset_device(0),                                 # C: aclrtResetDevice(0);
         acl.finalize()]                                         # C: aclFinalize();
print("clean-up return codes:", rets)

# %% [markdown]
# ## What happened
#
# The Gantt chart draws the trace: the host thread's calls on top (the dark part of the
# synchronize is the time it was blocked), then the stream's tasks. Copies (H2D 2 × 4 MiB,
# D2H 4 MiB) took 8.2 ms and the kernel 3.5 ms. These are the seed's figures, not a measurement
# made here: the 310B profile (`sandbox/profiles`) sets its copy bandwidth to ~1.5 GB/s per
# direction so that 12 MiB take 8.2 ms (tagged `SEED003`), and the kernel's 3.5 ms is declared
# above. The seed article is partly generated text; treat its numbers as a calibration target
# for the lesson, not as the board's data sheet. On one stream the tasks run one after another —
# notebook 02 is about overlapping them.

# %% [markdown] lang="zh"
# ## 发生了什么
#
# 甘特图画出了 trace：上方是 Host 线程的调用（同步调用中深色的部分是它被阻塞的时间），下方是流的
# 任务。拷贝（H2D 2 × 4 MiB，D2H 4 MiB）用了 8.2 ms，核函数 3.5 ms。这些是种子给出的数字，不是
# 这里测得的：310B 的配置（`sandbox/profiles`）把拷贝带宽设为每个方向约 1.5 GB/s，使 12 MiB 正好
# 需要 8.2 ms（标记为 `SEED003`），核函数的 3.5 ms 则在上面声明。种子文章部分由生成式工具写成；
# 请把其中的数字当作本课的校准目标，而不是板卡的数据手册。在一条流上，任务一个接一个地运行——
# notebook 02 讲如何让它们重叠。

# %%
sandbox.gantt()

# %% [markdown]
# `sandbox.show()` is the dashboard: the same Gantt chart, the memory map and the queues, with
# a time slider to scrub through the run (in JupyterLab; the saved notebook shows a snapshot).
# Here it opens at the moment the synchronize returned. The host's next call, the clean-up's
# first `aclrtFree`, began at that same nanosecond, so block 1 is already hatched ("free
# pending": the host has asked to free it), while blocks 2 and 3 are still allocated.

# %% [markdown] lang="zh"
# `sandbox.show()` 是仪表盘：同样的甘特图、内存图和队列，外加一个时间滑块来回查看这次运行
# （在 JupyterLab 中；保存的 notebook 显示的是快照）。这里它停在同步返回的时刻。Host 的下一个调用——清理中的第一个
# `aclrtFree`——在同一纳秒开始，所以块 1 已经画上了斜线（“free pending”：Host 已要求释放它），而块 2 和块 3 仍在分配中。

# %%
sandbox.show(t=synced)

# %% [markdown]
# ## Step through it
#
# `sandbox.step_through(program)` runs a program one step per click of **next step**, the
# dashboard following. The program is a generator that yields the name of each step once it is
# done. The cell below takes the first three steps itself (initialise, device and stream,
# memory and copies in), so the dashboard opens with the two copies queued and the buffers in
# the memory map. Click **next step** for the launch, and again for the clean-up; or run
# `walk.step()` in a new cell, which returns the step's name as the three lines below show
# (`walk.run()` runs every step left). The dashboard redraws after each step.

# %% [markdown] lang="zh"
# ## 单步执行
#
# `sandbox.step_through(program)` 每点击一次 **下一步** 运行程序的一步，仪表盘随之更新。程序是一个
# 生成器，每完成一步就 yield 该步的名字。下面的单元自己先走前三步（初始化、设备和流、内存和拷入），所以仪表盘打开时
# 两个拷贝已在队列中，内存图里有各块缓冲区。点击 **下一步** 下发核函数，再点击一次完成清理；也可以在新的单元里运行
# `walk.step()`，它返回该步的名字，如下面的三行输出所示（`walk.run()` 运行剩下的全部步骤）。每一步之后仪表盘都会重绘。

# %%
STEPS = {  # the steps' names, in the edition's language
    "en": ("1 initialise", "2 device and stream", "3 memory and copies in", "4 launch", "5 synchronise and clean up"),
    "zh": ("1 初始化", "2 设备和流", "3 内存和拷入", "4 下发", "5 同步与清理"),
}[sandbox.i18n.language()]


def five_steps():
    acl.init()
    yield STEPS[0]
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    yield STEPS[1]
    ha, _ = acl.rt.malloc_host(NBYTES)
    hb, _ = acl.rt.malloc_host(NBYTES)
    hc, _ = acl.rt.malloc_host(NBYTES)
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = np.arange(N)
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = N - np.arange(N)
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    yield STEPS[2]
    add[1, s](da, db, dc, N)
    yield STEPS[3]
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    yield STEPS[4]


sandbox.configure("ascend310b")
walk = sandbox.step_through(five_steps)
print(walk.step())
print(walk.step())
print(walk.step())
walk

# %% [markdown]
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("01.1", solution)`
# runs **your** function on a fresh simulated board of its own, with input vectors it makes up
# each time, and judges the whole run from the trace: whether the answer is right, whether the
# device computed it and the host read it only after it had landed, and what the exercise
# asks for. Each criterion prints `✔` or `✘` with a hint. Your own program above is left
# untouched. The cells below hold stubs, so their verdict is `✘` until you write the code.
#
# Before it calls your function, the grader opens the board: `acl.init()` has run and device 0
# is set on your function's thread. Your function creates and releases what it uses (streams,
# events, memory, other devices). An exercise whose subject is the whole program says so, and
# there your function opens and closes the board itself: here that is 01.2.
#
# ### Exercise 01.1 · make it correct
#
# *Practises:* reading a result only after the host knows it has arrived.
#
# `start_vector_add(a, b)` below is given: on the board the grader opened, it creates a
# stream, copies `a` and `b` in, and queues the addition into `dev_c`. The solution then
# copies the sum back **asynchronously** and reads `host_c` — too early: on real hardware
# that is a race; in the sandbox the copy's bytes land at its simulated end, so the read sees
# the old bytes every time.

# %% [markdown] lang="zh"
# ## 练习
#
# 每个练习都是一个由你补全的函数。`sandbox.teach.check("01.1", solution)` 会在一块属于它自己的全新
# 模拟板卡上运行**你的**函数，每次使用新生成的输入向量，并根据 trace 评判整次运行：答案是否正确，
# 是否由设备算出，Host 是否在数据到达之后才读取，以及练习要求的其他内容。每一项打印 `✔` 或 `✘`
# 并附提示。你上面自己的程序不受影响。下面的单元是空白模板（stub），所以在你写代码之前结论都是 `✘`。
#
# 调用你的函数之前，评分器先打开板卡：`acl.init()` 已经运行，设备 0 已在你的函数所在的线程上设置好。你的函数
# 自己创建并释放它用到的东西（流、事件、内存、其他设备）。以整个程序为主题的练习会写明这一点，在那里由你的函数
# 自己打开和关闭板卡：本 notebook 中就是 01.2。
#
# ### 练习 01.1 · 让它正确
#
# *练习内容：* 只有在 Host 知道结果已经到达之后才读取它。
#
# 下面给出了 `start_vector_add(a, b)`：它在评分器打开的板卡上创建一条流，拷入 `a` 和 `b`，并把加法放入队列写到
# `dev_c`。解答接着**异步**把和拷回并读取 `host_c`——太早了：在真实硬件上这是数据竞争；在沙箱中，拷贝的
# 字节在它的模拟结束时刻才落地，所以每次读到的都是旧字节。

# %%
def start_vector_add(a, b):
    """On device 0 (the grader opened it): a stream, copy a and b in and queue c = a + b;
    returns the stream, host_c, dev_c."""
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    return s, hc, dc

# %% nbgrader={"grade": false, "grade_id": "ex01_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(a, b):
    """Return a + b (int32, N elements), computed on the device by start_vector_add."""
    s, host_c, dev_c = start_vector_add(a, b)
    acl.rt.memcpy_async(host_c, NBYTES, dev_c, NBYTES, D2H, s)
    # TODO: the host reads host_c on the next line before the copy back has landed.
    # Hint: one runtime call makes the host wait for everything queued on stream s.
    ### BEGIN SOLUTION
    acl.rt.synchronize_stream(s)
    ### END SOLUTION
    return acl.util.ptr_to_numpy(host_c, (N,), np.int32).copy()

# %% nbgrader={"grade": true, "grade_id": "ex01_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("01.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("01.1", solution)

# %% [markdown]
# ### Exercise 01.2 · the five steps, waiting once
#
# *Practises:* a whole runtime program on your own, with one wait.
#
# The subject of this exercise is the whole program, so the grader opens nothing for it: your
# function opens the board and closes it again. Write the vector addition from scratch:
# initialise, set device 0 and create a stream, allocate the buffers, copy `a` and `b` in,
# launch `add`, copy the sum back, and return it. A cautious programmer synchronises after
# every call (or uses the blocking `aclrtMemcpy`, which waits too); each wait stops the host
# until the device catches up. The grader wants:
#
# * the right sum, computed on the device and read after it landed;
# * 8 MiB copied in and 4 MiB copied out, with asynchronous copies;
# * **at most one** synchronize;
# * everything released before `aclFinalize` (the leak report is empty).

# %% [markdown] lang="zh"
# ### 练习 01.2 · 五个步骤，只等待一次
#
# *练习内容：* 独立写出一个完整的运行时程序，只等待一次。
#
# 这个练习的主题是整个程序，所以评分器不为它打开任何东西：由你的函数打开板卡，最后再关闭它。从头写出向量加法：
# 初始化，设置设备 0 并创建流，申请缓冲区，拷入 `a` 和 `b`，下发 `add`，把和拷回并返回。谨慎的程序员会在每个调用
# 之后都同步（或使用同样会等待的阻塞 `aclrtMemcpy`）；每次等待都让 Host 停下，直到设备赶上。评分器要求：
#
# * 和正确，由设备计算，并在落地之后读取；
# * 拷入 8 MiB、拷出 4 MiB，使用异步拷贝；
# * **至多一次**同步；
# * `aclFinalize` 之前释放所有资源（泄漏报告为空）。

# %% nbgrader={"grade": false, "grade_id": "ex01_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(a, b):
    """Return a + b (int32, N elements) computed by `add` on device 0 of a fresh board."""
    # TODO: the five steps. Clean up in the reverse order of creation, then acl.finalize().
    # Hint: copy the result out of the host buffer (.copy()) before you free it.
    ### BEGIN SOLUTION
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return c
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex01_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("01.2", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("01.2", solution)

# %% [markdown]
# ## Official samples for this topic
#
# The five steps are those of `0_quickstart/4_custom_kernel_launch`, ported as
# [4_custom_kernel_launch.py](../examples/0_quickstart/4_custom_kernel_launch.py);
# [2_system_info.py](../examples/0_quickstart/2_system_info.py) and
# [1_error_handling.py](../examples/0_quickstart/1_error_handling.py) are the other quickstart
# ports, and [0_h2h_memory_copy.py](../examples/1_basic_features/memory/0_h2h_memory_copy.py) and
# [4_d2h_async_memory_copy.py](../examples/1_basic_features/memory/4_d2h_async_memory_copy.py)
# the smallest copy programs. Notebook [11_official_samples](11_official_samples.ipynb), section
# 1, walks through the kernel launch sample.
# [0_runtime_compatibility.py](../examples/0_quickstart/3_cross_version/0_runtime_compatibility.py)
# makes the checks a program makes before it relies on a feature that depends on the version or
# the product: the CANN version and attributes, the SoC's architecture and one device capability.
# [0_hello_cann.py](../examples/0_quickstart/0_hello_cann.py) ports `0_quickstart/0_hello_cann`,
# the same five steps around a vector add that the sample makes with the operator library's
# aclnnAdd: the operator library is not the runtime, so the operator, its tensor and scalar
# descriptors and its workspace query are one `@sandbox.kernel` there, and every runtime call is
# the sample's.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# 五个步骤就是 `0_quickstart/4_custom_kernel_launch` 的步骤，移植版本为
# [4_custom_kernel_launch.py](../../examples/0_quickstart/4_custom_kernel_launch.py)；[2_system_info.py](../../examples/0_quickstart/2_system_info.py)
# 和
# [1_error_handling.py](../../examples/0_quickstart/1_error_handling.py)
# 是另外两个快速入门移植版本，[0_h2h_memory_copy.py](../../examples/1_basic_features/memory/0_h2h_memory_copy.py)
# 和
# [4_d2h_async_memory_copy.py](../../examples/1_basic_features/memory/4_d2h_async_memory_copy.py)
# 是最小的拷贝程序。notebook
# [11_official_samples](11_official_samples.ipynb) 第 1
# 节逐步讲解核函数下发示例。
# [0_runtime_compatibility.py](../../examples/0_quickstart/3_cross_version/0_runtime_compatibility.py)
# 在程序依赖某项特性之前先检查它：CANN 版本与属性、SoC 架构兼容性和一项设备能力。
# [0_hello_cann.py](../../examples/0_quickstart/0_hello_cann.py) 移植了 `0_quickstart/0_hello_cann`：
# 同样的五个步骤，中间是示例用算子库的 aclnnAdd 做的向量加法。算子库不是运行时，所以移植版本把该算子及其张量、标量描述和
# 工作空间查询换成一个 `@sandbox.kernel`，每个运行时调用都与示例相同。

# %% [markdown]
# ## On a board
#
# `sandbox.not_in_pyacl()` reads the cells run so far and lists each use of a name that
# `import acl` on a board does not have, with what to write there instead: here the constants,
# and `acl.util.ptr_to_numpy` given a numpy type where pyACL takes numpy's type number.

# %% [markdown] lang="zh"
# ## 在板卡上
#
# `sandbox.not_in_pyacl()` 读取到目前为止运行过的代码单元，列出每一处使用了板卡上 `import acl` 所没有的名称的地方，
# 以及在那里应当怎么写：这里是常量，以及给 `acl.util.ptr_to_numpy` 传 numpy 类型的地方（pyACL 要的是 numpy 的类型编号）。

# %%
findings = sandbox.not_in_pyacl()
print(len(findings), "uses of names a board's acl does not have; each name once:")
for finding in {f.name: f for f in findings}.values():
    print(f"  {finding.name}: {finding.what}")

# %% [markdown]
# ## Summary
#
# Every runtime program has the same five steps, and its calls return codes you can check.
# Asynchronous calls return at once; the host must synchronise (or learn otherwise that work
# finished) before it reads what the device wrote. Next, notebook 02 makes copies and compute
# overlap.

# %% [markdown] lang="zh"
# ## 小结
#
# 每个运行时程序都有同样的五个步骤，它的调用都返回可以检查的错误码。异步调用立即返回；Host 在读取
# 设备写入的数据之前，必须同步（或通过其他方式得知任务已完成）。下一个是 notebook 02：让拷贝与计算重叠。

