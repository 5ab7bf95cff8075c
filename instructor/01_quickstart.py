# %% [markdown]
# # 01 · Quick start: the five steps of a runtime program
#
# **Time:** about 45 minutes · **Required** · **Assumes** Python and numpy; no NPU and no C.
#
# Every program that runs work on an Ascend NPU through the runtime (AscendCL) has the same
# skeleton. This notebook writes it once, on a vector addition: two vectors of 1 Mi `int32` go
# to the device, an `add` kernel sums them, the sum comes back.
#
# | step | what it does | C (AscendCL) | Python (this sandbox, pyACL style) |
# |---|---|---|---|
# | 1 | initialise the runtime | `aclInit(NULL)` | `acl.init()` |
# | 2 | pick a device, make a stream | `aclrtSetDevice(0)`, `aclrtCreateStream(&stream)` | `acl.rt.set_device(0)`, `stream, ret = acl.rt.create_stream()` |
# | 3 | memory and copies in | `aclrtMalloc`, `aclrtMallocHost`, `aclrtMemcpyAsync(..., ACL_MEMCPY_HOST_TO_DEVICE, stream)` | `acl.rt.malloc`, `acl.rt.malloc_host`, `acl.rt.memcpy_async(...)` |
# | 4 | launch the kernel | Ascend C: `add_kernel<<<blockDim, nullptr, stream>>>(devA, devB, devC, size)` | `add[block_dim, stream](dev_a, dev_b, dev_c, size)` |
# | 5 | copy back, synchronise, clean up | `aclrtSynchronizeStream(stream)`, `aclrtFree`, `aclrtDestroyStream`, `aclrtResetDeviceForce`, `aclFinalize()` | the same names in snake case |
#
# The calls are those of pyACL, the real Python binding (`python/pyACL/` in the CANN runtime
# repository). **After this notebook** you can write the five steps yourself, say which layer
# each call reaches, and read the Gantt chart, memory map and queue panel.

# %% [markdown] lang="zh"
# # 01 · 快速入门：运行时程序的五个步骤
#
# **时间**：约 45 分钟 · **必修** · **前提**：会 Python 和 numpy；不需要 NPU，也不需要会 C。
#
# 凡是通过运行时（AscendCL）在昇腾 NPU 上执行任务的程序，骨架都一样。本 notebook 用一个向量加法把它
# 完整写一遍：两个各含 1 Mi 个 `int32` 的向量拷贝到 Device（设备），由核函数 `add` 相加，再把和拷贝回来。
#
# | 步骤 | 做什么 | C（AscendCL） | Python（本沙箱，pyACL 风格） |
# |---|---|---|---|
# | 1 | 初始化运行时 | `aclInit(NULL)` | `acl.init()` |
# | 2 | 指定 Device，创建 Stream | `aclrtSetDevice(0)`、`aclrtCreateStream(&stream)` | `acl.rt.set_device(0)`、`stream, ret = acl.rt.create_stream()` |
# | 3 | 申请内存，拷入数据 | `aclrtMalloc`、`aclrtMallocHost`、`aclrtMemcpyAsync(..., ACL_MEMCPY_HOST_TO_DEVICE, stream)` | `acl.rt.malloc`、`acl.rt.malloc_host`、`acl.rt.memcpy_async(...)` |
# | 4 | 下发核函数 | Ascend C：`add_kernel<<<blockDim, nullptr, stream>>>(devA, devB, devC, size)` | `add[block_dim, stream](dev_a, dev_b, dev_c, size)` |
# | 5 | 拷回、同步、清理 | `aclrtSynchronizeStream(stream)`、`aclrtFree`、`aclrtDestroyStream`、`aclrtResetDeviceForce`、`aclFinalize()` | 同名的 snake_case 写法 |
#
# 这些调用与真实的 Python 绑定 pyACL（CANN runtime 仓库的 `python/pyACL/`）一致。**学完本 notebook**，
# 你能独立写出这五步，说出每个调用落在哪一层，并看懂甘特图、内存图和队列面板。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %% [markdown]
# ## Three layers between your code and the chip
#
# | layer | what it does | on a real machine | here |
# |---|---|---|---|
# | application | your program calls the API | your process, pyACL / `libacl_rt` | your cells, `sandbox.acl` (names, arguments, return codes) |
# | runtime | contexts, streams, events, device memory; turns each call into tasks on a stream; reports errors | the CANN runtime (`hicann/runtime`) | `sandbox/core`: every call charged host time, checked, recorded |
# | driver and device | the device's task scheduler takes each stream's tasks in order and dispatches them to the AI Cores and DMA engines | driver, device firmware | `sandbox/core/device_loop.py`, `engines.py`, in virtual time |
#
# A stream is "a queue of tasks that the host submits and the device executes", and tasks in one
# stream run in the order they were queued (the Runtime programming guide, *Stream management*,
# `docs/zh/dev_guide/03-02_stream_management.md` in the CANN runtime repository). An
# asynchronous call returns once its task is queued; the device runs it later.

# %% [markdown] lang="zh"
# ## 代码与芯片之间的三层
#
# | 层 | 做什么 | 真实机器上 | 本沙箱中 |
# |---|---|---|---|
# | 应用层 | 你的程序调用 API | 你的进程，pyACL / `libacl_rt` | 你的代码单元，`sandbox.acl`（接口名、参数、返回码） |
# | 运行时层 | 管理 Context（上下文）、Stream（流）、Event（事件）和 Device 内存；把每个调用变成 Stream 上的任务；报告错误 | CANN runtime（`hicann/runtime`） | `sandbox/core`：每个调用都计入 Host 时间、经过检查并记录下来 |
# | 驱动与 Device | Device 上的任务调度器按顺序从各条 Stream 取出任务，分派给 AI Core 和 DMA 引擎 | 驱动、Device 固件 | `sandbox/core/device_loop.py`、`engines.py`，以虚拟时间运行 |
#
# 《Runtime编程指南》“Stream管理”（CANN runtime 仓库 `docs/zh/dev_guide/03-02_stream_management.md`）
# 说，Stream 是“一个在 Host 下发并在 Device 上执行的任务队列”，同一 Stream 中的任务按入队顺序依次执行。
# 异步调用把任务放进队列就返回，Device 稍后才执行它。

# %%
import numpy as np

import sandbox
from sandbox import acl, teach

sandbox.configure("ascend310b")     # an Ascend 310B board with one AI Core
print(sandbox.profile().soc_name, "-", sandbox.profile().ai_cores, "AI Core")

# %% [markdown]
# ## Step 1 · initialise
#
# `aclInit` is the first call of a process. Every call costs virtual time on the calling host
# thread; `sandbox.now()` reads that clock in nanoseconds. In pyACL a call that only succeeds or
# fails returns an `int` (0 is `ACL_SUCCESS`); one that produces something returns a tuple,
# the code last.

# %% [markdown] lang="zh"
# ## 第 1 步 · 初始化
#
# `aclInit` 是进程的第一个调用。每个调用都在调用它的 Host（主机）线程上花费虚拟时间；`sandbox.now()`
# 以纳秒读出这个时钟。在 pyACL 中，只报告成败的调用返回一个 `int`（0 即 `ACL_SUCCESS`）；产生结果的调用
# 返回一个元组，错误码在最后。

# %%
ret = acl.init()                    # C: aclInit(NULL);
print("aclInit ->", ret, "| host clock:", sandbox.now() / 1e6, "ms")

# %% [markdown]
# ## Step 2 · device and stream
#
# `aclrtSetDevice` opens the device and gives the thread a default context; only after it may
# other `aclrt` calls run (the Runtime programming guide, *Initialization*,
# `docs/zh/dev_guide/01_initialization.md`). The first open is slow (about a second on a
# board, and here).

# %% [markdown] lang="zh"
# ## 第 2 步 · Device 和 Stream
#
# `aclrtSetDevice` 打开 Device，并给线程一个默认 Context；此后才能调用其他 `aclrt` 接口（《Runtime编程指南》
# “初始化”，`docs/zh/dev_guide/01_initialization.md`）。第一次打开 Device 很慢（板卡上约一秒，这里也是）。

# %%
ret = acl.rt.set_device(0)          # C: aclrtSetDevice(0);
stream, ret2 = acl.rt.create_stream()   # C: aclrtCreateStream(&stream);
print("aclrtSetDevice ->", ret, "| aclrtCreateStream ->", ret2)
print("host clock after opening the device:", sandbox.now() / 1e6, "ms")

# %% [markdown]
# ## Step 3 · memory and copies in
#
# Device memory comes from `aclrtMalloc`; host memory that the DMA engines read directly
# (*pinned*) from `aclrtMallocHost`. Each returns `(pointer, ret)`. `acl.util.ptr_to_numpy`
# gives a numpy view of host memory to fill. Then two asynchronous copies go on the stream.

# %% [markdown] lang="zh"
# ## 第 3 步 · 申请内存，拷入数据
#
# Device 内存由 `aclrtMalloc` 申请；DMA 引擎能直接读取的 Host 内存（*锁页内存*）由 `aclrtMallocHost` 申请。
# 两者都返回 `(指针, ret)`。`acl.util.ptr_to_numpy` 给出 Host 内存的 numpy 视图，用来填数据。随后两个
# 异步拷贝放到 Stream 上。

# %%
N = 1024 * 1024                     # elements per vector
NBYTES = N * 4                      # int32: 4 MiB per vector
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST

host_a, _ = acl.rt.malloc_host(NBYTES)      # C: aclrtMallocHost(&hostA, byteSize);
host_b, _ = acl.rt.malloc_host(NBYTES)
host_c, _ = acl.rt.malloc_host(NBYTES)
dev_a, ret = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)   # C: aclrtMalloc(&devA, byteSize, ACL_MEM_MALLOC_HUGE_FIRST);
dev_b, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
dev_c, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
print(f"aclrtMalloc -> (0x{dev_a:x}, {ret})")

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
# 内存图里是三块 Device 缓冲区（每块 4 MiB，加上运行时的 32 字节填充，向上取整到 2 MiB 大页）和三块
# 锁页 Host 缓冲区。

# %%
sandbox.memory_map()

# %% [markdown]
# ## Step 4 · launch
#
# `@sandbox.kernel` makes a Python function a device kernel whose pointer parameters
# (`"int32*"`) arrive as numpy views of device memory; its cost is declared (3.5 ms for 1 Mi
# elements). `add[block_dim, stream](...)` is Ascend C's
# `add_kernel<<<blockDim, nullptr, stream>>>(...)`: `blockDim` cores run it; the 310B has one.
# Unlike CUDA, Ascend C has no thread index: a kernel asks which core it is on (`GetBlockIdx()`)
# and works through its share of the data in tiles.
#
# **Predict, then run.** The kernel takes 3.5 ms and the two copies before it about 5.5 ms. How
# far will the host clock move between the line before the launch and the line after it?

# %% [markdown] lang="zh"
# ## 第 4 步 · 下发核函数
#
# `@sandbox.kernel` 把 Python 函数变成 Device 核函数，指针参数（`"int32*"`）以 Device 内存的 numpy 视图传入；
# 耗时是声明的（1 Mi 个元素 3.5 ms）。`add[block_dim, stream](...)` 对应 Ascend C 的
# `add_kernel<<<blockDim, nullptr, stream>>>(...)`：由 `blockDim` 个核执行；310B 只有一个。
# 与 CUDA 不同，Ascend C 没有线程索引：核函数通过 `GetBlockIdx()` 得知自己在哪个核上，再按分块（tile）
# 处理属于自己的那份数据。
#
# **先预测，再运行。** 核函数要 3.5 ms，它前面的两个拷贝约 5.5 ms。下发这一行前后，Host 时钟会走多远？

# %%
@sandbox.kernel(ns=lambda a, b, c, size: 3_500_000 * size // N)   # 3.5 ms for the full 1 Mi
def add(a: "int32*", b: "int32*", c: "int32*", size: int):
    c[:size] = a[:size] + b[:size]


# Ascend C: add_kernel<<<1, nullptr, stream>>>(devA, devB, devC, size);
before = sandbox.now()
ret = add[1, stream](dev_a, dev_b, dev_c, N)
print(f"launch -> {ret}, the host clock moved {(sandbox.now() - before) / 1e3:.0f} µs")

# %% [markdown]
# Microseconds, not milliseconds: the launch only queued the task. Nothing has finished yet; the
# queue panel shows one copy running on the DMA engine and the rest waiting in the stream. A
# return code of 0 from an `Async` call means "queued", not "done".

# %% [markdown] lang="zh"
# 是微秒，不是毫秒：下发只是把任务放进了队列。此刻什么都还没完成；队列面板显示一个拷贝正在 DMA 引擎上
# 运行，其余的在 Stream 中排队。`Async` 调用返回 0 的意思是“已入队”，不是“已完成”。

# %%
sandbox.queues()

# %% [markdown]
# ## Step 5 · copy back, synchronise, clean up
#
# The result copy goes on the same stream, after the kernel. The host waits once
# (`aclrtSynchronizeStream`), then reads `host_c`. Clean-up goes in the reverse order of
# creation and ends with `aclrtResetDeviceForce`, which the Runtime programming guide
# recommends over `aclrtResetDevice` (*Multi-device programming*,
# `docs/zh/dev_guide/05_multi_device_programming.md`): it releases the device's default
# context and its streams in one call, however often the device was set.

# %% [markdown] lang="zh"
# ## 第 5 步 · 拷回、同步、清理
#
# 结果拷贝放在同一条 Stream 上，排在核函数之后。Host 等一次（`aclrtSynchronizeStream`），然后读 `host_c`。
# 清理按与创建相反的顺序进行，最后调用 `aclrtResetDeviceForce`。《Runtime编程指南》“多设备编程”
# （`docs/zh/dev_guide/05_multi_device_programming.md`）推荐用它而不是 `aclrtResetDevice`：无论 Device 被指定过
# 几次，它都一次释放默认 Context 及其下的 Stream。

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
         acl.rt.reset_device_force(0),                           # C: aclrtResetDeviceForce(0);
         acl.finalize()]                                         # C: aclFinalize();
print("clean-up return codes:", rets)

# %% [markdown]
# ## What happened
#
# The Gantt chart draws the trace: the host's calls on top (the dark part of the synchronize
# is the time it was blocked), then the stream's tasks, one after another. Copies 8.2 ms, kernel
# 3.5 ms: figures from a community article on CANN asynchronous execution (CANN 训练营 2025;
# not official documentation) that ran this addition on a 310B. The sandbox's 310B profile is
# calibrated on them (see its `sources` in `sandbox/profiles/__init__.py`): a target, not a
# data sheet.

# %% [markdown] lang="zh"
# ## 发生了什么
#
# 甘特图画出了 trace：上方是 Host 的调用（同步调用中颜色较深的部分是被阻塞的时间），下方是 Stream 上
# 一个接一个执行的任务。拷贝 8.2 ms、核函数 3.5 ms：这两个数字出自一篇关于 CANN 异步执行的社区文章
# （CANN 训练营 2025，非官方文档），文中在 310B 上运行了这个加法。沙箱的 310B 配置以它们为校准目标
# （见 `sandbox/profiles/__init__.py` 中该配置的 `sources`）：是目标，不是数据手册。

# %%
sandbox.gantt()

# %% [markdown]
# `sandbox.show()` is the dashboard: Gantt chart, memory map and queues with a time slider
# (live in JupyterLab). It opens at the moment the synchronize returned, when the first
# `aclrtFree` began: block 1 is hatched ("free pending"), blocks 2 and 3 still allocated.

# %% [markdown] lang="zh"
# `sandbox.show()` 是仪表盘：甘特图、内存图和队列，外加时间滑块（在 JupyterLab 中可以拖动）。它停在同步返回的
# 那一刻，也就是第一个 `aclrtFree` 开始的时刻：块 1 画上了斜线（“free pending”，等待释放），块 2 和块 3 仍在分配中。

# %%
sandbox.show(t=synced)

# %% [markdown]
# ## Releasing the device
#
# `aclrtResetDevice` counts: every `aclrtSetDevice` adds one, every reset takes one away, and
# the device's resources go only when the count reaches 0 (API reference,
# `docs/zh/api_ref/04_device_management.md`). `aclrtResetDeviceForce` releases them in one call.
#
# **Predict, then run.** Two parts of a program each call `aclrtSetDevice(0)`; at the end one
# `aclrtResetDevice(0)` runs. Is device 0 still set on the thread? And what does an
# `aclrtMalloc` return once no device is set?

# %% [markdown] lang="zh"
# ## 释放 Device
#
# `aclrtResetDevice` 有引用计数：每次 `aclrtSetDevice` 加一，每次复位减一，计数减到 0 时才真正释放 Device
# 上的资源（API 参考 `docs/zh/api_ref/04_device_management.md`）。`aclrtResetDeviceForce` 一次就能释放。
#
# **先预测，再运行。** 程序的两个部分各调用了一次 `aclrtSetDevice(0)`，最后只执行一次 `aclrtResetDevice(0)`。
# 线程上还指定着 Device 0 吗？不再指定任何 Device 之后，`aclrtMalloc` 会返回什么？

# %%
sandbox.configure("ascend310b")     # a fresh board
acl.init()
acl.rt.set_device(0)                # one part of the program opens device 0...
acl.rt.set_device(0)                # ...and another part opens it again
print("aclrtResetDevice(0) ->", acl.rt.reset_device(0), "| aclrtGetDevice ->", acl.rt.get_device())
print("aclrtResetDeviceForce(0) ->", acl.rt.reset_device_force(0), "| aclrtGetDevice ->", acl.rt.get_device())
print("aclrtMalloc ->", acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST))
ret = acl.finalize()

# %% [markdown]
# After one `aclrtResetDevice` device 0 is still set (`(0, 0)`). After `aclrtResetDeviceForce`
# none is, and `aclrtMalloc` fails with 107002, `ACL_ERROR_RT_CONTEXT_NULL`
# (`include/external/acl/error_codes/rt_error_codes.h`): no device, no context, no memory (the
# FAQ `docs/zh/FAQ/如何理解默认Device和默认Stream机制.md` shows this mistake in C). A failed
# call still returns its tuple; pyACL raises nothing, so a program checks `ret`.

# %% [markdown] lang="zh"
# 执行一次 `aclrtResetDevice` 后，Device 0 仍处于指定状态（`(0, 0)`）。执行 `aclrtResetDeviceForce` 后就没有了，
# `aclrtMalloc` 随之失败，返回 107002，即 `ACL_ERROR_RT_CONTEXT_NULL`（`include/external/acl/error_codes/rt_error_codes.h`）：
# 没有 Device 就没有 Context，也申请不到内存（官方 FAQ《如何理解默认Device和默认Stream机制》用 C 代码展示了
# 这个错误）。失败的调用照样返回元组；pyACL 不抛异常，所以程序要检查 `ret`。

# %% [markdown]
# ## Step through it
#
# `sandbox.step_through(program)` runs a generator that yields each step's name, one step per
# click of **next step**, the dashboard following. The cell takes the first three steps itself;
# click on for the launch and the clean-up, or run `walk.step()` (`walk.run()` runs the rest).

# %% [markdown] lang="zh"
# ## 单步执行
#
# `sandbox.step_through(program)` 运行一个每完成一步就 yield 步骤名的生成器，每点击一次 **下一步** 走一步，
# 仪表盘随之更新。下面的单元先自己走完前三步；继续点击即可下发核函数、完成清理，也可以运行 `walk.step()`
# （`walk.run()` 走完剩下的步骤）。

# %%
STEPS = ("1 initialise", "2 device and stream", "3 memory and copies in", "4 launch",
         "5 synchronise and clean up")


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
    acl.rt.reset_device_force(0)
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
# runs **your** function on a fresh simulated board of its own, with new input vectors each
# time, and judges the whole run from its trace: is the answer right, did the device compute
# it, did the host read it only after it had landed, and what else the exercise asks. Each
# criterion prints `✔` or `✘` with a hint; the stubs below are `✘` until you write the code.
#
# Before calling your function the grader runs `acl.init()` and sets device 0 on your
# function's thread; your function creates and releases what it uses. In 01.2, whose subject
# is the whole program, your function opens and closes the board itself.
#
# ### Exercise 01.1 · make it correct
#
# *Practises:* reading a result only after the host knows it has arrived.
#
# `start_vector_add(a, b)` below creates a stream, copies `a` and `b` in and queues the
# addition into `dev_c`. The solution then copies the sum back **asynchronously** and reads
# `host_c` too early: on a board what it reads depends on timing; in the sandbox a copy's
# bytes land at its simulated end, so the read sees the old bytes every time.

# %% [markdown] lang="zh"
# ## 练习
#
# 每个练习都是一个等你补全的函数。`sandbox.teach.check("01.1", solution)` 会在一块专属的全新模拟板卡上
# 运行**你的**函数，每次都换新的输入向量，并根据整次运行的 trace 评判：答案对不对，是不是 Device 算的，
# Host 是否在数据落地之后才读取，以及练习的其他要求。每一项打印 `✔` 或 `✘` 并附提示；下面的单元都是
# 空白模板（stub），在你写好代码之前结论都是 `✘`。
#
# 调用你的函数之前，评分器会先运行 `acl.init()`，并在你的函数所在的线程上指定 Device 0；你的函数自己创建、
# 自己释放用到的资源。01.2 考的是整个程序，所以由你的函数自己打开、关闭板卡。
#
# ### 练习 01.1 · 让它正确
#
# *练习内容：* Host 确知结果已经到达之后才读取。
#
# 下面给出的 `start_vector_add(a, b)` 创建一条 Stream，拷入 `a` 和 `b`，再把加法放进队列，结果写到 `dev_c`。
# 解答接着**异步**拷回结果，然后读 `host_c`，读得太早了：在板卡上读到什么取决于时序；在沙箱中，拷贝的字节在
# 它的模拟结束时刻才落地，所以每次读到的都是旧字节。

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
# Write the vector addition from scratch: initialise, set device 0 and create a stream,
# allocate the buffers, copy `a` and `b` in, launch `add`, copy the sum back, return it. A
# cautious programmer synchronises after every call (or uses the blocking `aclrtMemcpy`, which
# waits too); each wait stops the host until the device catches up. The grader wants:
#
# * the right sum, computed on the device and read after it landed;
# * 8 MiB copied in and 4 MiB copied out, with asynchronous copies;
# * **at most one** synchronize;
# * everything released before `aclFinalize` (the leak report is empty).

# %% [markdown] lang="zh"
# ### 练习 01.2 · 五个步骤，只等一次
#
# *练习内容：* 独立写出一个完整的运行时程序，只等待一次。
#
# 从头写出向量加法：初始化，指定 Device 0 并创建 Stream，申请缓冲区，拷入 `a` 和 `b`，下发 `add`，把和拷回并返回。
# 谨慎的程序员会在每个调用之后都同步一次（或者用同样会等待的阻塞 `aclrtMemcpy`）；每等一次，Host 就要停下来
# 等 Device 赶上。评分器要求：
#
# * 和正确，由 Device 计算，并在落地之后读取；
# * 拷入 8 MiB、拷出 4 MiB，都用异步拷贝；
# * **至多一次**同步；
# * `aclFinalize` 之前释放全部资源（泄漏报告为空）。

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
    acl.rt.reset_device_force(0)
    acl.finalize()
    return c
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex01_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("01.2", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("01.2", solution)

# %% [markdown]
# ## Concept check
#
# Four questions on what the runtime does; each answer is shown by a cell above. Answer with
# letters; every choice, right or wrong, prints why.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 四个关于运行时行为的问题，每个答案都能在上面的某个单元中看到。用字母作答；无论选对选错，都会打印原因。

# %%
teach.questions("01.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "b", 2: "c", 3: "a", 4: "b"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
teach.check("01.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("01.concepts", concepts, isolated=True).score * 4
### END HIDDEN TESTS

# %% [markdown]
# ## Official samples for this topic
#
# The five steps are those of `0_quickstart/4_custom_kernel_launch`, ported as
# [4_custom_kernel_launch.py](../examples/0_quickstart/4_custom_kernel_launch.py) and walked
# through in notebook [11_official_samples](11_official_samples.ipynb), section 1. The other
# quick-start ports: [0_hello_cann.py](../examples/0_quickstart/0_hello_cann.py),
# [1_error_handling.py](../examples/0_quickstart/1_error_handling.py),
# [2_system_info.py](../examples/0_quickstart/2_system_info.py) and
# [0_runtime_compatibility.py](../examples/0_quickstart/3_cross_version/0_runtime_compatibility.py)
# (the version and capability checks a program makes before relying on a feature). The
# smallest copy programs: [0_h2h_memory_copy.py](../examples/1_basic_features/memory/0_h2h_memory_copy.py)
# and [4_d2h_async_memory_copy.py](../examples/1_basic_features/memory/4_d2h_async_memory_copy.py).

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# 这五步就是 `0_quickstart/4_custom_kernel_launch` 的步骤，移植版本是
# [4_custom_kernel_launch.py](../../examples/0_quickstart/4_custom_kernel_launch.py)，notebook
# [11_official_samples](11_official_samples.ipynb) 第 1 节会逐步讲解。其他快速入门移植版本：
# [0_hello_cann.py](../../examples/0_quickstart/0_hello_cann.py)、
# [1_error_handling.py](../../examples/0_quickstart/1_error_handling.py)、
# [2_system_info.py](../../examples/0_quickstart/2_system_info.py) 和
# [0_runtime_compatibility.py](../../examples/0_quickstart/3_cross_version/0_runtime_compatibility.py)
# （程序依赖某项特性之前先做的版本与能力检查）。最小的拷贝程序：
# [0_h2h_memory_copy.py](../../examples/1_basic_features/memory/0_h2h_memory_copy.py) 和
# [4_d2h_async_memory_copy.py](../../examples/1_basic_features/memory/4_d2h_async_memory_copy.py)。

# %% [markdown]
# ## On a board
#
# `sandbox.not_in_pyacl()` reads the cells run so far and lists each name that `import acl` on
# a board lacks, with what to write instead: here the constants (a board's program defines
# them, as the official samples' `constants.py` does: `ACL_MEMCPY_HOST_TO_DEVICE = 1`), and
# `acl.util.ptr_to_numpy` given a numpy type where pyACL takes numpy's type number.

# %% [markdown] lang="zh"
# ## 在板卡上
#
# `sandbox.not_in_pyacl()` 读取到目前为止运行过的代码单元，列出板卡上 `import acl` 所没有的每个名称，以及
# 那里应该怎么写：这里是常量（板卡上的程序要自己定义，官方示例的 `constants.py` 就是这样做的：
# `ACL_MEMCPY_HOST_TO_DEVICE = 1`），以及给 `acl.util.ptr_to_numpy` 传 numpy 类型的地方（pyACL 要的是 numpy 的类型编号）。

# %%
findings = sandbox.not_in_pyacl()
print(len(findings), "uses of names a board's acl does not have; each name once:")
for finding in {f.name: f for f in findings}.values():
    print(f"  {finding.name}: {finding.what}")

# %% [markdown]
# ## Summary
#
# Every runtime program has the same five steps, and its calls return codes you can check.
# Asynchronous calls return as soon as their task is queued; the host must synchronise (or learn
# otherwise that the work finished) before it reads what the device wrote. End with
# `aclrtResetDeviceForce`, then `aclFinalize`. Next, notebook 02 makes copies and compute overlap.

# %% [markdown] lang="zh"
# ## 小结
#
# 每个运行时程序都是这五步，每个调用都返回可以检查的错误码。异步调用在任务入队后立即返回；Host 读取
# Device 写入的数据之前，必须先同步（或以别的方式确知任务已完成）。收尾用 `aclrtResetDeviceForce`，再调用
# `aclFinalize`。下一个是 notebook 02：让拷贝与计算重叠。

# %% [markdown] lang="zh" translates="code"
# en: # an Ascend 310B board with one AI Core
# zh: # 一块只有一个 AI Core 的昇腾 310B 板卡
# en: print("host clock after opening the device:"
# zh: print("打开 Device 后的 Host 时钟："
# en: # elements per vector
# zh: # 每个向量的元素个数
# en: # int32: 4 MiB per vector
# zh: # int32：每个向量 4 MiB
# en: # hostB[i] = size - i, so every sum is size
# zh: # hostB[i] = size - i，因此每个和都等于 size
# en: # 3.5 ms for the full 1 Mi
# zh: # 完整的 1 Mi 个元素用 3.5 ms
# en: f"launch -> {ret}, the host clock moved {(sandbox.now() - before) / 1e3:.0f} µs"
# zh: f"下发 -> {ret}，Host 时钟前进了 {(sandbox.now() - before) / 1e3:.0f} µs"
# en: f"aclrtSynchronizeStream -> {ret}, the host waited {(sandbox.now() - before) / 1e6:.3f} ms"
# zh: f"aclrtSynchronizeStream -> {ret}，Host 等待了 {(sandbox.now() - before) / 1e6:.3f} ms"
# en: "| every element is"
# zh: "| 每个元素都是"
# en: # a named moment in the trace, for the dashboard below
# zh: # trace 中一个带名字的时刻，供下面的仪表盘使用
# en: print("clean-up return codes:"
# zh: print("清理的返回码："
# en: # a fresh board
# zh: # 一块全新的板卡
# en: # one part of the program opens device 0...
# zh: # 程序的一个部分打开 Device 0……
# en: # ...and another part opens it again
# zh: # ……另一个部分再打开一次
# en: "1 initialise"
# zh: "1 初始化"
# en: "2 device and stream"
# zh: "2 Device 和 Stream"
# en: "3 memory and copies in"
# zh: "3 内存和拷入"
# en: "4 launch"
# zh: "4 下发"
# en: "5 synchronise and clean up"
# zh: "5 同步与清理"
# en: "| host clock:"
# zh: "| Host 时钟："
# en: "two aclrtMemcpyAsync ->"
# zh: "两个 aclrtMemcpyAsync ->"
# en: """On device 0 (the grader opened it): a stream, copy a and b in and queue c = a + b;
# zh: """在 Device 0 上（评分器已打开它）：创建 Stream，拷入 a 和 b，把 c = a + b 放入队列；
# en: returns the stream, host_c, dev_c."""
# zh: 返回 Stream、host_c、dev_c。"""
# en: """Return a + b (int32, N elements), computed on the device by start_vector_add."""
# zh: """返回 a + b（int32，N 个元素），由 start_vector_add 在 Device 上计算。"""
# en: # TODO: the host reads host_c on the next line before the copy back has landed.
# zh: # TODO：Host 在下一行读取 host_c 时，拷回的数据还没有落地。
# en: # Hint: one runtime call makes the host wait for everything queued on stream s.
# zh: # 提示：有一个运行时调用能让 Host 等待 Stream s 上排队的全部任务完成。
# en: """Return a + b (int32, N elements) computed by `add` on device 0 of a fresh board."""
# zh: """返回 a + b（int32，N 个元素），由 `add` 在一块全新板卡的 Device 0 上计算。"""
# en: # TODO: the five steps. Clean up in the reverse order of creation, then acl.finalize().
# zh: # TODO：五个步骤。按与创建相反的顺序清理，最后调用 acl.finalize()。
# en: # Hint: copy the result out of the host buffer (.copy()) before you free it.
# zh: # 提示：释放 Host 缓冲区之前，先把结果从中复制出来（.copy()）。
# keep: Ascend C: add_kernel<<<1, nullptr, stream>>>
# en: """Your answers: {question number: letter}."""
# zh: """你的答案：{题号: 字母}。"""
# en: "uses of names a board's acl does not have; each name once:"
# zh: "处用到了板卡上的 acl 没有的名称；每个名称列一次："
