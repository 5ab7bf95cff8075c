# %% [markdown]
# # 10 · Capstone: tuning an inference pipeline, step by step
#
# **Time:** about 45 minutes in class (the worked example, exercise 10.1 and the concept
# check), plus a homework project of about 90 minutes (exercises 10.2 and 10.3, and the
# transfer project: exercise 10.4 on a pipeline the notebook does not tune, with a written
# explanation your teacher marks).
#
# This notebook puts the earlier ones together on one program: an inference service that
# pushes **16 batches** through a small model on an Atlas 300I-style server (the `ascend310p`
# profile: four PCIe cards, 8 AI Cores each, 24 GB/s pinned host copies). Each batch is
#
# 1. a 4 MiB input copied host → device,
# 2. three kernels: `normalize` (memory-bound), `layer` (compute-bound: it declares the flops of
#    a dense layer 8192 wide), `pool` (sums groups of four),
# 3. a 1 MiB output copied device → host.
#
# We start from the slowest correct program and change one thing at a time, watching the Gantt
# chart and a table of end-to-end time, throughput, copy/compute overlap and synchronisations:
#
# | step | the change | C | Python |
# |---|---|---|---|
# | 0 | baseline: pageable memory, blocking copies, a synchronize per batch | `aclrtMemcpy(dev, n, hostArray, n, ACL_MEMCPY_HOST_TO_DEVICE)` | `acl.rt.memcpy(dev, n, acl.util.numpy_to_ptr(a), n, H2D)` |
# | 1 | pinned host memory | `aclrtMallocHost(&host, size)` | `host, ret = acl.rt.malloc_host(size)` |
# | 2 | asynchronous copies, one synchronize at the end | `aclrtMemcpyAsync(..., stream)` | `acl.rt.memcpy_async(..., stream)` |
# | 3 | double buffering: two streams, two buffer sets, events | `aclrtRecordEvent`, `aclrtStreamWaitEvent` | `acl.rt.record_event`, `acl.rt.stream_wait_event` |
# | 4 | spread the batches over 2, then 4 devices | `aclrtSetDevice(d)` | `acl.rt.set_device(d)` |
#
# The kernels' bodies compute a cheap stand-in so the results can be checked; their *time* is
# what they declare (`bytes=`, `flops=`), timed against the profile's 204.8 GB/s device memory
# and 8.7 TFLOPS per AI Core.
#
# The rates and host call costs are the sandbox's calibration of the profile, not figures from
# the official documentation: the *shape* of each step's gain is the lesson, not its digits.
#
# **After this notebook** you can take a slow, correct runtime program and make it fast one
# measured step at a time, say what each step bought, and do the same on a pipeline you have
# not seen: find the engine that limits it, and remove the limit. **It assumes** notebooks 01
# to 06 and 08 (ACL graphs; 09 helps when a step goes wrong).

# %% [markdown] lang="zh"
# # 10 · 综合练习：一步一步调优推理流水线
#
# **时间**：约 45 分钟（课堂：示例讲解、练习 10.1 和概念检查），另加约 90 分钟的课后项目（练习 10.2、10.3，以及迁移项目：在一条
# 本 notebook 没有调过的流水线上完成练习 10.4，并写一段由老师评分的说明）。
#
# 本 notebook 把前面各 notebook 的内容用到同一个程序上：一个推理服务，在一台 Atlas 300I 风格的服务器上（`ascend310p` 配置：
# 四块 PCIe 卡，每块 8 个 AI Core，锁页 Host（主机）内存拷贝 24 GB/s）让 **16 个批次**通过一个小模型。每个批次包括：
#
# 1. 一个 4 MiB 的输入，从 Host 拷贝到 Device（设备）；
# 2. 三个核函数：`normalize`（受访存带宽限制）、`layer`（受算力限制：它声明的是一个宽 8192 的全连接层的浮点运算量）、
#    `pool`（每四个值求和）；
# 3. 一个 1 MiB 的输出，从 Device 拷贝回 Host。
#
# 我们从最慢但正确的程序出发，每次只改一处，对照甘特图，以及一张列出端到端时间、吞吐、拷贝与计算的重叠、同步次数的表：
#
# | 步骤 | 改动 | C | Python |
# |---|---|---|---|
# | 0 | 基线：可分页内存、阻塞拷贝、每批同步一次 | `aclrtMemcpy(dev, n, hostArray, n, ACL_MEMCPY_HOST_TO_DEVICE)` | `acl.rt.memcpy(dev, n, acl.util.numpy_to_ptr(a), n, H2D)` |
# | 1 | 锁页 Host 内存 | `aclrtMallocHost(&host, size)` | `host, ret = acl.rt.malloc_host(size)` |
# | 2 | 异步拷贝，最后只同步一次 | `aclrtMemcpyAsync(..., stream)` | `acl.rt.memcpy_async(..., stream)` |
# | 3 | 双缓冲：两条 Stream（流）、两组缓冲区、Event（事件） | `aclrtRecordEvent`、`aclrtStreamWaitEvent` | `acl.rt.record_event`、`acl.rt.stream_wait_event` |
# | 4 | 把批次分散到 2 个、再到 4 个 Device | `aclrtSetDevice(d)` | `acl.rt.set_device(d)` |
#
# 核函数的函数体只算一个廉价的替代结果，便于检查对错；它们的*耗时*取决于声明的工作量（`bytes=`、`flops=`），按配置中 204.8 GB/s
# 的 Device 内存带宽和每个 AI Core 8.7 TFLOPS 的算力计时。这些速率和 Host 调用开销是沙箱对该配置的标定，不是官方文档给出的
# 数字：要学的是每一步收益的*形状*，而不是具体数值。
#
# **学完本 notebook**，你能把一个慢而正确的运行时程序经过测量一步步变快，说出每一步带来了什么，并在一条没见过的流水线上做同样的事：
# 找出限制它的引擎，然后消除这个限制。**前提**：notebook 01 到 06 和 08（ACL Graph；某一步出错时，09 会有帮助）。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import numpy as np

import sandbox
from sandbox import acl, teach
from sandbox.viz.index import build_index     # the trace as tasks with start and end, for the engine table

H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
HUGE = acl.ACL_MEM_MALLOC_HUGE_FIRST
MiB = 1 << 20
BATCHES = 16
N = 1 << 20                  # float32 inputs per batch: 4 MiB
M = N // 4                   # float32 outputs per batch: 1 MiB
IN_B, OUT_B = 4 * N, 4 * M
WIDTH = 8192                 # the dense layer the `layer` kernel stands for
CORES = 8                    # block_dim: every AI Core of a 310P


@sandbox.kernel(bytes=lambda x, y, n: 8 * n, flops=lambda x, y, n: 2 * n, writes=("y",))
def normalize(x: "float32*", y: "float32*", n: int):
    y[:n] = (x[:n] - 0.5) * 2.0


@sandbox.kernel(bytes=lambda y, z, n: 8 * n, flops=lambda y, z, n: 2 * WIDTH * n, writes=("z",))
def layer(y: "float32*", z: "float32*", n: int):
    z[:n] = np.maximum(y[:n], 0.0) * 0.5


@sandbox.kernel(bytes=lambda z, out, n: 5 * n, flops=lambda z, out, n: n, writes=("out",))
def pool(z: "float32*", out: "float32*", n: int):
    out[:n // 4] = z[:n].reshape(-1, 4).sum(axis=1)


INPUTS = np.random.default_rng(0).random((BATCHES, N), dtype=np.float32)
EXPECTED = (np.maximum((INPUTS - 0.5) * 2.0, 0.0) * 0.5).reshape(BATCHES, M, 4).sum(axis=2)

p = sandbox.get_profile("ascend310p")
print(f"{p.soc_name}: {p.default_device_count} devices, {p.ai_cores} AI Cores each; "
      f"H2D {p.h2d_pinned / 1e9:.0f} GB/s pinned, {p.h2d_pageable / 1e9:.0f} GB/s pageable")
print(f"per batch: input copy {IN_B / p.h2d_pinned * 1e6:.0f} µs pinned / {IN_B / p.h2d_pageable * 1e6:.0f} µs pageable, "
      f"layer {2 * WIDTH * N / (CORES * p.core_flops) * 1e6:.0f} µs on 8 cores")

# %% [markdown]
# ## The pieces every version shares
#
# `open_board(devices)` starts a fresh machine and opens the devices. The first
# `aclrtSetDevice` of a process takes seconds and later ones milliseconds (the official FAQ
# *首次aclrtSetDevice耗时长*, `docs/zh/FAQ/首次aclrtSetDevice耗时长.md` in the CANN runtime
# repository; the sandbox charges about a second): none of that is part of the timed run. Each version puts `teach.mark("start")` before its first batch and
# `teach.mark("end")` after its last synchronize; `record(name)` measures between them.

# %% [markdown] lang="zh"
# ## 每个版本共用的部分
#
# `open_board(devices)` 启动一台全新机器并打开各个 Device。进程第一次调用 `aclrtSetDevice` 有秒级时延，之后的调用只需毫秒级
# （官方 FAQ《首次aclrtSetDevice耗时长》，CANN runtime 仓库 `docs/zh/FAQ/首次aclrtSetDevice耗时长.md`；沙箱按约一秒计）：这些都不
# 计入计时的运行。每个版本在第一个批次之前放 `teach.mark("start")`，在最后一次同步之后放 `teach.mark("end")`；`record(name)` 测量两者之间。

# %%
def open_board(devices=1):
    sandbox.configure("ascend310p")
    acl.init()
    for d in range(devices):
        acl.rt.set_device(d)                    # C: aclrtSetDevice(d);
    acl.rt.set_device(0)


def device_buffers():
    """One buffer set on the current device: input x, two intermediates y and z, output."""
    return [acl.rt.malloc(size, HUGE)[0] for size in (IN_B, IN_B, IN_B, OUT_B)]


def compute(bufs, stream):
    x, y, z, out = bufs
    normalize[CORES, stream](x, y, N)
    layer[CORES, stream](y, z, N)
    pool[CORES, stream](z, out, N)


def pinned_io(x=INPUTS):
    """Pinned host buffers for all inputs and all outputs, the inputs x filled in."""
    hin, _ = acl.rt.malloc_host(BATCHES * IN_B)          # C: aclrtMallocHost(&hin, size);
    hout, _ = acl.rt.malloc_host(BATCHES * OUT_B)
    acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
    return hin, hout


def outputs(hout):
    return acl.util.ptr_to_numpy(hout, (BATCHES, M), np.float32).copy()


rows = {}


def record(name, result):
    b = teach.busy(start="start", end="end")
    syncs = sum(teach.sync_calls().values())
    rows[name] = dict(span=b["span"], overlap=b["overlap"], copy=b["copy"], compute=b["compute"],
                      syncs=syncs, peak=teach.peak_device_memory(), ok=bool(np.allclose(result, EXPECTED)))
    r = rows[name]
    base = next(iter(rows.values()))["span"]
    print(f"{name}: {r['span'] / 1e6:.3f} ms ({base / r['span']:.1f}x the baseline), "
          f"overlap {r['overlap'] / 1e6:.3f} ms, {syncs} synchronize calls, "
          f"peak device memory {r['peak'] / MiB:.0f} MiB, results correct: {r['ok']}")

# %% [markdown]
# ## Step 0 · the baseline
#
# The most direct program: inputs and outputs in ordinary numpy arrays (**pageable** memory),
# blocking `aclrtMemcpy` in and out, and a synchronize after each batch's kernels so the copy
# back reads finished data. Correct, and slow.

# %% [markdown] lang="zh"
# ## 第 0 步 · 基线
#
# 最直接的程序：输入和输出放在普通的 numpy 数组中（**可分页**内存），用阻塞的 `aclrtMemcpy` 拷入拷出，每批核函数之后同步一次，
# 使拷回读到的是已完成的数据。正确，但很慢。

# %%
def baseline():
    open_board()
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    results = np.zeros((BATCHES, M), np.float32)
    teach.mark("start")
    for b in range(BATCHES):
        src, dst = INPUTS[b], results[b]       # keep the views alive while their pointers are used
        acl.rt.memcpy(bufs[0], IN_B, acl.util.numpy_to_ptr(src), IN_B, H2D)
        compute(bufs, stream)
        acl.rt.synchronize_stream(stream)
        acl.rt.memcpy(acl.util.numpy_to_ptr(dst), OUT_B, bufs[3], OUT_B, D2H)
    teach.mark("end")
    return results


record("0 baseline", baseline())
BASELINE_NS = rows["0 baseline"]["span"]
sandbox.gantt()

# %% [markdown]
# The device is never doing two things at once, and most of each batch is copying: pageable
# copies are staged through a bounce buffer at about a third of the pinned rate. (The blocking
# copies run on the runtime's internal copy queue, the `Stream` row below ours.)
#
# ## Step 1 · pinned host memory
#
# Allocate the host buffers with `aclrtMallocHost`: the DMA engines read them directly, at the
# full link rate. Everything else stays the same.

# %% [markdown] lang="zh"
# Device 从不同时做两件事，每个批次的大部分时间都在拷贝：可分页拷贝经过中转缓冲区，速率约为锁页的三分之一。（阻塞拷贝运行在
# 运行时内部的拷贝队列上，即我们那一行下面的 `Stream` 行。）
#
# ## 第 1 步 · 锁页 Host 内存
#
# 用 `aclrtMallocHost` 申请 Host 缓冲区：DMA 引擎直接读取它们，达到链路的全速。其他一切保持不变。

# %%
def pinned():
    open_board()
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    hin, hout = pinned_io()
    teach.mark("start")
    for b in range(BATCHES):
        acl.rt.memcpy(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D)
        compute(bufs, stream)
        acl.rt.synchronize_stream(stream)
        acl.rt.memcpy(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H)
    teach.mark("end")
    return outputs(hout)


record("1 pinned", pinned())
sandbox.gantt()

# %% [markdown]
# ## Step 2 · asynchronous copies, one synchronize
#
# Put the copies on the stream with `aclrtMemcpyAsync` and synchronize once at the end.
#
# **Predict, then run.** The host now queues all 16 batches in well under a millisecond,
# without waiting for any of them. Will the device finish them much sooner than in step 1?

# %% [markdown] lang="zh"
# ## 第 2 步 · 异步拷贝，一次同步
#
# 用 `aclrtMemcpyAsync` 把拷贝放到 Stream 上，最后同步一次。
#
# **先预测，再运行。** 现在 Host 在远不到一毫秒的时间里就放入了全部 16 个批次，一个也不等。Device 会比第 1 步早很多完成它们吗？

# %%
def async_one_stream():
    open_board()
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    hin, hout = pinned_io()
    teach.mark("start")
    for b in range(BATCHES):
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, stream)
    acl.rt.synchronize_stream(stream)
    teach.mark("end")
    return outputs(hout)


record("2 async, one stream", async_one_stream())
sandbox.gantt()

# %% [markdown]
# Hardly: on one stream each task still waits for the one before it, so the device timeline
# barely changes. The gain is only the host round trips that are gone. Asynchronous calls free
# the host; only work on *another* stream can run beside a stream's tasks.

# %% [markdown] lang="zh"
# 几乎不会：在一条 Stream 上，每个任务仍要等待它前面的任务，所以 Device 的时间线几乎不变，收益只是省掉的那些 Host 往返。
# 异步调用解放的是 Host；只有*另一条* Stream 上的工作才能与这条 Stream 的任务并行运行。

# %% [markdown]
# ## Step 3 · double buffering with two streams and events
#
# Notebook 02's pattern: two buffer sets (slots), a **copy stream** that loads batch *i* into
# slot *i mod 2* and records `loaded[slot]`, a **compute stream** that waits for it, runs the
# kernels, copies the result back and records `done[slot]`; before reusing a slot the copy
# stream waits for its `done`. Loading batch *i + 1* now runs under the kernels of batch *i*.
#
# `pipeline(devices)` is written for several devices at once (used in step 4): batch *b* goes
# to device `devices[b % len(devices)]`, each device with its own streams, slots and events,
# all driven from this one host thread (`aclrtSetDevice` switches the thread's device; notebook
# 06 shows the same with a thread per device).

# %% [markdown] lang="zh"
# ## 第 3 步 · 用两条 Stream 和 Event 做双缓冲
#
# notebook 02 的模式：两组缓冲区（槽位），一条**拷贝 Stream** 把批次 *i* 加载到槽位 *i mod 2* 并记录 `loaded[slot]`，一条**计算 Stream**
# 等待它、运行核函数、把结果拷回并记录 `done[slot]`；复用一个槽位之前，拷贝 Stream 等待它的 `done`。现在加载批次 *i + 1* 与批次 *i*
# 的核函数同时进行。
#
# `pipeline(devices)` 是为同时使用多个 Device 而写的（第 4 步会用到）：批次 *b* 去往 Device `devices[b % len(devices)]`，每个 Device 有自己的
# Stream、槽位和 Event，全部由这一个 Host 线程驱动（`aclrtSetDevice` 切换线程的 Device；notebook 06 展示了每个 Device 一个线程的做法）。

# %%
def pipeline(devices=(0,), slots=2):
    open_board(len(devices))
    hin, hout = pinned_io()
    per = {}
    for d in devices:
        acl.rt.set_device(d)
        per[d] = dict(copy=acl.rt.create_stream()[0], compute=acl.rt.create_stream()[0],
                      bufs=[device_buffers() for _ in range(slots)],
                      loaded=[acl.rt.create_event()[0] for _ in range(slots)],
                      done=[acl.rt.create_event()[0] for _ in range(slots)], count=0)
    teach.mark("start")
    for b in range(BATCHES):
        d = devices[b % len(devices)]
        dev = per[d]
        acl.rt.set_device(d)
        i, dev["count"] = dev["count"], dev["count"] + 1
        slot = i % slots
        bufs = dev["bufs"][slot]
        if i >= slots:                                   # the slot's previous batch must be done
            acl.rt.stream_wait_event(dev["copy"], dev["done"][slot])
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, dev["copy"])
        acl.rt.record_event(dev["loaded"][slot], dev["copy"])          # C: aclrtRecordEvent(loaded, copyStream);
        acl.rt.stream_wait_event(dev["compute"], dev["loaded"][slot])  # C: aclrtStreamWaitEvent(computeStream, loaded);
        compute(bufs, dev["compute"])
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, dev["compute"])
        acl.rt.record_event(dev["done"][slot], dev["compute"])
    for d in devices:                                    # one synchronize per device, at the end
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(per[d]["compute"])
    teach.mark("end")
    return outputs(hout)


record("3 double buffered", pipeline((0,)))
sandbox.gantt()

# %% [markdown]
# The physical view (a row per engine) shows what the step bought: the DMA H2D engine loads the
# next batch while the AI Cores compute, and the AI Cores are now busy almost all the time —
# the pipeline is compute-bound, so one device cannot go much faster.

# %% [markdown] lang="zh"
# 物理视图（每个引擎一行）显示了这一步带来了什么：DMA H2D 引擎在 AI Core 计算时加载下一个批次，AI Core 现在几乎一直忙碌——
# 流水线受计算限制，所以一个 Device 无法再快多少。

# %%
sandbox.gantt(view="physical")

# %% [markdown]
# **Predict, then run.** The pipeline above uses two buffer sets. With a third one (and so a
# third batch in flight), how much faster does one device get?

# %% [markdown] lang="zh"
# **先预测，再运行。** 上面的流水线使用两组缓冲区。再加第三组（于是同时有三个批次在途），一个 Device 能快多少？

# %%
record("3b three buffer sets", pipeline((0,), slots=3))

# %% [markdown]
# Not measurably: the AI Cores were already busy nearly all the time, and a third slot only
# lets the copy stream run further ahead of them, at the price of 19 MiB more device memory.
# Once the busiest engine never waits, more streams or slots add nothing; more engines do.
#
# ## Step 4 · more devices
#
# The AI Cores of one card are saturated, but the server has four. Each card has its own PCIe
# link and DMA engines, so spreading the batches spreads the copies too.

# %% [markdown] lang="zh"
# 看不出差别：AI Core 本来就几乎一直在忙，第三个槽位只是让拷贝 Stream 跑得更靠前，代价是多占 19 MiB 的 Device 内存。一旦最忙的
# 引擎从不等待，再多的 Stream 或槽位也无济于事；能起作用的是更多的引擎。
#
# ## 第 4 步 · 更多 Device
#
# 一块卡的 AI Core 已经饱和，但服务器有四块。每块卡有自己的 PCIe 链路和 DMA 引擎，所以把批次分散出去，拷贝也随之分散。

# %%
record("4a two devices", pipeline((0, 1)))
sandbox.gantt()

# %%
record("4b four devices", pipeline((0, 1, 2, 3)))
sandbox.gantt(view="physical")

# %% [markdown]
# ## The table
#
# Throughput counts input bytes per second of end-to-end time; overlap is the time copies and
# kernels ran at the same moment (anywhere on the machine; the exercises' grader counts each
# device on its own); peak is device memory reserved
# (each 4 MiB buffer takes 6 MiB of 2 MiB huge pages: `aclrtMalloc` rounds the size up to 32
# bytes and adds 32 more, per the API reference, `docs/zh/api_ref/11-01_device_memory_malloc_and_free.md`
# in the CANN runtime repository, so 4 MiB no longer fits two huge pages).

# %% [markdown] lang="zh"
# ## 结果表
#
# 吞吐按端到端时间内每秒处理的输入字节计；重叠是拷贝和核函数同时运行的时间（在整台机器上任意位置；练习的评分器按每个 Device 分别统计）；
# 峰值是保留的 Device 内存（每个 4 MiB 缓冲区占用 6 MiB 的 2 MiB 大页：按 API 参考，`aclrtMalloc` 会把 size 向上对齐成 32 字节
# 的整数倍后再多加 32 字节，见 CANN runtime 仓库 `docs/zh/api_ref/11-01_device_memory_malloc_and_free.md`，所以 4 MiB 放不进两个大页）。

# %%
print(f"{'step':<22}{'time':>10}{'speed-up':>10}{'throughput':>13}{'overlap':>10}{'syncs/batch':>13}"
      f"{'peak':>9}{'correct':>9}")
for name, r in rows.items():
    print(f"{name:<22}{r['span'] / 1e6:>7.3f} ms{BASELINE_NS / r['span']:>9.1f}x"
          f"{BATCHES * IN_B / r['span']:>8.1f} GB/s{r['overlap'] / 1e6:>7.3f} ms{r['syncs'] / BATCHES:>13.2f}"
          f"{r['peak'] / MiB:>5.0f} MiB{str(r['ok']):>9}")

# %% [markdown]
# What each step teaches:
#
# * **pinned memory** was the biggest single win here, because the baseline spent most of its
#   time in pageable copies;
# * **async calls on one stream** free the host, not the device: the device time is the sum of
#   its tasks until something can run *beside* something else;
# * **double buffering** overlaps copies with compute, so one device's time approaches its
#   busiest engine (here the AI Cores: 16 × ~0.33 ms);
# * **more devices** divide that; with four, the fill and drain of each device's pipeline and
#   the host's own call costs (about 50 µs of calls to queue a batch) start to show.
#
# Each step kept the results correct and moved every byte exactly once each way; the price of
# the last steps is memory: two buffer sets per device.

# %% [markdown] lang="zh"
# 每一步说明了什么：
#
# * **锁页内存**是这里最大的一项收益，因为基线的大部分时间都花在可分页拷贝上；
# * **一条 Stream 上的异步调用**解放的是 Host 而不是 Device：在有东西能与别的东西*并行*运行之前，Device 时间就是它各任务之和；
# * **双缓冲**让拷贝与计算重叠，使一个 Device 的时间接近它最忙的那个引擎（这里是 AI Core：16 × ~0.33 ms）；
# * **更多 Device** 把它再分摊；用四个 Device 时，每个 Device 流水线的填充和排空，以及 Host 自己的调用开销（放入一个批次约 50 µs 的调用）
#   开始显现。
#
# 每一步都保持结果正确，每个字节在每个方向上恰好传输一次；最后几步的代价是内存：每个 Device 两组缓冲区。

# %% [markdown]
# ## Exercises
#
# Now tune the program yourself. Each exercise is a function `solution(x)` that takes the 16
# input batches (`x`, a numpy array of shape `(16, N)` float32, in ordinary pageable memory)
# and returns their 16 outputs (shape `(16, M)` float32). `sandbox.teach.check("10.k", solution)`
# runs **your** function on a fresh four-card `ascend310p` board with inputs it makes up each
# time, and runs the step-0 baseline itself, on another fresh board with the same inputs. It
# then judges your run from its trace and buffers:
#
# * the board is opened for you first: `aclInit`, and `aclrtSetDevice` of device 0 (of all four
#   devices in 10.3), device 0 current. Do not call `acl.init` or `sandbox.configure`;
# * **speed-up** = the baseline's time / your time, each timed from the moment the first copy or
#   kernel is queued to the end of the last one (about 17.1 ms for the baseline). Creating
#   streams, events and buffers before your first copy is not counted, as the marks of the
#   steps above leave it out, nor is cleaning up after the last one; everything between is,
#   host calls included;
# * the outputs equal the model's, and each batch's output is what device-to-host copies
#   brought back from what the kernels computed, read after it landed;
# * the **kernel set unchanged**: `normalize`, `layer` and `pool` each over all the data, as in
#   the baseline (16 launches with `n = N`, as `compute(bufs, stream)` does them), and no other
#   kernel. The grader measures this from the launches that ran: their cost is declared per
#   element, so a launch over fewer elements, or a stage left out, is seen;
# * 64 MiB copied in and 16 MiB out, each byte once; no blocking `aclrtMemcpy` to or from the
#   device; **synchronize only at the end**: no host thread queues a copy or kernel after its
#   first synchronize (one per stream or per device at the end is fine, and so is polling with
#   `aclrtStreamQuery`); no hazard, no failed call.
#
# Each exercise adds its own lines, below. (Exercise 10.4, the transfer project after them, has
# a pipeline, a signature and a board of its own.) You may use the notebook's kernels, constants and
# the helpers `device_buffers()`, `compute(bufs, stream)`, `pinned_io(x)` and `outputs(hout)`
# (they do not touch the board), but not `open_board` or the step functions, which
# configure a machine of their own.
#
# ### Exercise 10.1 · pinned, asynchronous, waiting once
#
# *Practises:* steps 1 and 2 of the tuning: pinned host memory, copies on the stream, one wait.
#
# On device 0 with one stream is enough. Besides the common lines above, the grader wants:
#
# * every host↔device copy from or to **pinned** host memory (`aclrtMallocHost`);
# * device 0 only;
# * a speed-up of **at least 1.85×** (step 2 above reaches about 1.9×; step 1 alone, with its
#   blocking copies and 16 synchronizes, about 1.8×).

# %% [markdown] lang="zh"
# ## 练习
#
# 现在自己来调优这个程序。每个练习都是一个函数 `solution(x)`，它接收 16 个输入批次（`x`，形状为 `(16, N)` 的 float32 numpy 数组，
# 在普通的可分页内存中），返回它们的 16 个输出（形状 `(16, M)` 的 float32）。`sandbox.teach.check("10.k", solution)` 在一块全新的
# 四卡 `ascend310p` 板卡上运行**你的**函数，每次使用新生成的输入，并在另一块全新板卡上用同样的输入自己运行第 0 步的基线。然后
# 根据 trace 和缓冲区评判你的运行：
#
# * 板卡已先为你打开：`aclInit`，以及对 Device 0（10.3 中为全部四个 Device）的 `aclrtSetDevice`，当前 Device 为 Device 0。不要调用 `acl.init`
#   或 `sandbox.configure`；
# * **加速比** = 基线时间 / 你的时间，两者都从第一个拷贝或核函数入队的时刻计到最后一个结束（基线约 17.1 ms）。在你第一次拷贝之前
#   创建 Stream、Event 和缓冲区的时间不计入（上面各步骤的标记也把它排除在外），最后一个之后的清理也不计入；两者之间的一切都计入，包括
#   Host 调用；
# * 输出与模型一致，每个批次的输出都由 Device 到 Host 的拷贝从核函数的计算结果中带回，并且在拷贝完成之后才读取；
# * **核函数集合不变**：`normalize`、`layer` 和 `pool` 各自覆盖全部数据，与基线相同（16 次下发，`n = N`，与 `compute(bufs, stream)`
#   的做法一样），没有其他核函数。评分器根据实际运行的下发来衡量这一点：它们的耗时按元素声明，所以覆盖较少元素的下发或漏掉的
#   阶段都会被发现；
# * 拷入 64 MiB、拷出 16 MiB，每个字节一次；不使用 Host 与 Device 之间的阻塞 `aclrtMemcpy`；**只在最后同步**：任何 Host 线程在它的第一次同步
#   之后都不再放入拷贝或核函数（最后每条 Stream 或每个 Device 一次同步是可以的，用 `aclrtStreamQuery` 轮询也可以）；没有隐患，没有失败的调用。
#
# 每个练习还在下面加上它自己的要求。（之后的迁移项目练习 10.4 有它自己的流水线、函数签名和板卡。）你可以使用 notebook 中的核函数、常量和辅助函数 `device_buffers()`、`compute(bufs, stream)`、
# `pinned_io(x)` 和 `outputs(hout)`（它们不触碰板卡），但不能使用 `open_board` 或各步骤函数，它们会配置自己的机器。
#
# ### 练习 10.1 · 锁页内存、异步、只等待一次
#
# *练习内容：* 调优的第 1 和第 2 步：锁页 Host 内存、Stream 上的拷贝、一次等待。
#
# 在 Device 0 上用一条 Stream 就够了。除了上面的共同要求，评分器还要求：
#
# * 每次 Host↔Device 拷贝都来自或去往**锁页** Host 内存（`aclrtMallocHost`）；
# * 只用 Device 0；
# * 加速比**至少 1.85×**（上面的第 2 步约 1.9×；只有第 1 步，带着阻塞拷贝和 16 次同步，约 1.8×）。

# %% nbgrader={"grade": false, "grade_id": "ex10_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x):
    """The 16 batches through normalize, layer and pool on device 0; returns their outputs."""
    # TODO: pinned host buffers for x and the outputs, a stream and one buffer set; per batch an
    # asynchronous copy in, the three kernels, an asynchronous copy out; then wait once.
    # Hint: pinned_io(x) and outputs(hout) do the host side; compute(bufs, stream) launches.
    ### BEGIN SOLUTION
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    hin, hout = pinned_io(x)
    for b in range(BATCHES):
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, stream)
    acl.rt.synchronize_stream(stream)
    return outputs(hout)
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex10_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("10.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("10.1", solution)

# %% [markdown]
# ### Exercise 10.2 · double buffering on one device
#
# *Practises:* step 3: loading one batch while the AI Cores compute another, on one device.
#
# Still on device 0 only, now with at least two buffer sets (slots) and two streams, so that the
# copies of one batch run under the kernels of another. Order the reuse of a slot on the device:
# events (`aclrtRecordEvent`, `aclrtStreamWaitEvent`, as in `pipeline`), or a stream per slot;
# not with host waits, which break "synchronize only at the end". Besides the common lines:
#
# * device 0 only, its copies and kernels on **at least 2 streams**;
# * copy and compute on device 0 overlap for **at least 50%** of the time they could (the
#   shorter of the two busy times);
# * peak device memory **at most 64 MiB**: a buffer set takes 19 MiB (three 4 MiB buffers at
#   6 MiB of huge pages each, and the 1 MiB output), so two or three slots fit and a set per
#   batch does not;
# * a speed-up of **at least 2.5×** (step 3 reaches about 2.8×).

# %% [markdown] lang="zh"
# ### 练习 10.2 · 单 Device 上的双缓冲
#
# *练习内容：* 第 3 步：在一个 Device 上，AI Core 计算一个批次时加载另一个批次。
#
# 仍然只用 Device 0，现在至少使用两组缓冲区（槽位）和两条 Stream，使一个批次的拷贝与另一个批次的核函数同时运行。在 Device 上为槽位的复用
# 排序：用 Event（`aclrtRecordEvent`、`aclrtStreamWaitEvent`，如 `pipeline` 中那样），或每个槽位一条 Stream；不要用 Host 等待，它会破坏
# “只在最后同步”。除了共同要求：
#
# * 只用 Device 0，它的拷贝和核函数在**至少 2 条 Stream** 上；
# * Device 0 上拷贝与计算的重叠**至少达到**可能重叠时间（两者忙碌时间中较短的那个）的 **50%**；
# * Device 内存峰值**至多 64 MiB**：一组缓冲区占 19 MiB（三个 4 MiB 缓冲区各占 6 MiB 大页，加上 1 MiB 的输出），所以两个或三个槽位
#   放得下，每批一组则放不下；
# * 加速比**至少 2.5×**（第 3 步约 2.8×）。

# %% nbgrader={"grade": false, "grade_id": "ex10_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x):
    """The 16 batches, double buffered on device 0; returns their outputs."""
    # TODO: two buffer sets, a copy stream and a compute stream, events loaded[slot] and
    # done[slot]; batch i goes to slot i % 2.
    # Hint: before reusing a slot, the copy stream waits for that slot's done event.
    ### BEGIN SOLUTION
    slots = 2
    hin, hout = pinned_io(x)
    copy, work = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
    sets = [device_buffers() for _ in range(slots)]
    loaded = [acl.rt.create_event()[0] for _ in range(slots)]
    done = [acl.rt.create_event()[0] for _ in range(slots)]
    for b in range(BATCHES):
        slot = b % slots
        bufs = sets[slot]
        if b >= slots:                                   # the slot's previous batch must be done
            acl.rt.stream_wait_event(copy, done[slot])
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, copy)
        acl.rt.record_event(loaded[slot], copy)
        acl.rt.stream_wait_event(work, loaded[slot])
        compute(bufs, work)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, work)
        acl.rt.record_event(done[slot], work)
    acl.rt.synchronize_stream(work)
    return outputs(hout)
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex10_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("10.2", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("10.2", solution)

# %% [markdown]
# ### Exercise 10.3 · the capstone: an 8× speed-up
#
# *Practises:* the whole tuning at once: pinned memory, asynchronous copies, double buffering on
# every device, four devices busy together.
#
# All four devices are open. Spread the batches over them, each device with its own streams,
# buffer sets and events, from one host thread (as `pipeline` does) or a thread per device
# (notebook 06); two or three slots per device. Besides the common lines:
#
# * a speed-up of **at least 8×** (step 4b reaches about 9.4×);
# * copy and compute overlap for **at least 50%** of the time they could, counted on each
#   device on its own and summed: one device's copies beside another device's kernels do not
#   count;
# * all four devices busy at the same moment;
# * peak device memory **at most 256 MiB** in all: three buffer sets per device (228 MiB) fit,
#   four, or a set per batch (304 MiB), do not.

# %% [markdown] lang="zh"
# ### 练习 10.3 · 综合练习：8 倍加速
#
# *练习内容：* 一次完成全部调优：锁页内存、异步拷贝、每个 Device 上的双缓冲、四个 Device 同时忙碌。
#
# 四个 Device 都已打开。把批次分布到它们上面，每个 Device 有自己的 Stream、缓冲区组和 Event，由一个 Host 线程驱动（如 `pipeline` 那样）或每个
# Device 一个线程（notebook 06）；每个 Device 两个或三个槽位。除了共同要求：
#
# * 加速比**至少 8×**（第 4b 步约 9.4×）；
# * 拷贝与计算的重叠**至少达到**可能重叠时间的 **50%**，按每个 Device 分别统计后求和：一个 Device 的拷贝与另一个 Device 的核函数并行不算；
# * 四个 Device 在同一时刻都忙碌；
# * Device 内存峰值合计**至多 256 MiB**：每个 Device 三组缓冲区（228 MiB）放得下，四组或每批一组（304 MiB）放不下。

# %% nbgrader={"grade": false, "grade_id": "ex10_3", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x):
    """The 16 batches over four devices, double buffered on each; returns their outputs."""
    # TODO: per device (acl.rt.set_device(d) first): two streams, buffer sets and events; batch b
    # goes to device b % 4; queue every batch, then synchronize each device once.
    # Hint: the copies must find a stream of their own on *each* device.
    ### BEGIN SOLUTION
    devices, slots = (0, 1, 2, 3), 2
    hin, hout = pinned_io(x)
    per = {}
    for d in devices:
        acl.rt.set_device(d)
        per[d] = dict(copy=acl.rt.create_stream()[0], work=acl.rt.create_stream()[0],
                      sets=[device_buffers() for _ in range(slots)],
                      loaded=[acl.rt.create_event()[0] for _ in range(slots)],
                      done=[acl.rt.create_event()[0] for _ in range(slots)])
    for b in range(BATCHES):
        d = devices[b % len(devices)]
        dev = per[d]
        acl.rt.set_device(d)
        i = b // len(devices)                            # the device's i-th batch
        slot = i % slots
        bufs = dev["sets"][slot]
        if i >= slots:
            acl.rt.stream_wait_event(dev["copy"], dev["done"][slot])
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, dev["copy"])
        acl.rt.record_event(dev["loaded"][slot], dev["copy"])
        acl.rt.stream_wait_event(dev["work"], dev["loaded"][slot])
        compute(bufs, dev["work"])
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, dev["work"])
        acl.rt.record_event(dev["done"][slot], dev["work"])
    for d in devices:
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(per[d]["work"])
    return outputs(hout)
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex10_3_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("10.3", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("10.3", solution)

# %% [markdown]
# A tempting shortcut — four devices, but one stream and one buffer set each, no events — is
# graded below. It comes close on time, but on each device the copies and kernels still take
# turns, so it misses the 8× and the overlap line finds nothing: device 0's copies do run
# beside device 1's kernels (the machine-wide `teach.busy()` of the table would count that as
# overlap), but no copy engine ever works while its own AI Cores do.

# %% [markdown] lang="zh"
# 一条诱人的捷径——四个 Device，但每个只有一条 Stream、一组缓冲区、没有 Event——在下面评判。它的用时接近目标，但在每个 Device 上拷贝和核函数
# 仍然轮流进行，所以达不到 8×，重叠那一项也什么都找不到：Device 0 的拷贝确实与 Device 1 的核函数并行运行（表中整机范围的
# `teach.busy()` 会把它算作重叠），但没有哪个拷贝引擎是在它自己那块卡的 AI Core 工作时工作的。

# %%
def four_devices_one_stream_each(x):
    hin, hout = pinned_io(x)
    per = {}
    for d in range(4):
        acl.rt.set_device(d)
        per[d] = (acl.rt.create_stream()[0], device_buffers())
    for b in range(BATCHES):
        acl.rt.set_device(b % 4)
        stream, bufs = per[b % 4]
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, stream)
    for d in range(4):
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(per[d][0])
    return outputs(hout)

# %%
sandbox.teach.check("10.3", four_devices_one_stream_each)

# %% [markdown]
# ## The transfer project · a pipeline you have not seen
#
# *Homework: exercise 10.4 (graded automatically) and a written explanation (marked by your
# teacher); the rubric is at the end of this section.*
#
# The steps above tuned one program, and the notebook found each bottleneck for you. Now tune a
# program nobody has tuned for you: an **upscaling service** on one card of an Atlas 800T
# A2-style server (the `ascend910b` profile: 24 AI Cores, device memory at 1.6 TB/s, pinned
# copies at 57 GB/s in and 42 GB/s back; the rates and host call costs are the sandbox's
# calibration, not figures from the official documentation). Each batch of `n` float32 values
# goes through
#
# 1. a copy host → device of `4n` bytes,
# 2. `denoise` (one kernel), then `rounds` rounds of `refine` (a small kernel that updates its
#    buffer in place), then `upsample` (every value four times: `4n` values out),
# 3. a copy device → host of `16n` bytes, four times the input.
#
# `upscale_baseline(x, rounds)` below is the working, slow version you are given: pageable
# memory, blocking copies, one stream, a synchronize per batch. What made the inference
# pipeline fast is a starting point, not the answer: measure, find the engine that limits a
# batch *here*, change one thing, measure again.
#
# The sizes are not fixed. The grader draws the number of batches (10 to 16), `n` (229,376 to
# 294,912 values) and `rounds` (14 to 18) anew for every check: read them from `x.shape` and
# `rounds`. The example runs below use 8 batches of 262,144 values and 16 rounds.

# %% [markdown] lang="zh"
# ## 迁移项目 · 一条没见过的流水线
#
# *课后完成：练习 10.4（自动评分）和一段书面说明（由老师评分）；评分细则在本节末尾。*
#
# 上面的各步调优的是同一个程序，而且每个瓶颈都由 notebook 替你找到了。现在来调优一个没人替你调过的程序：在一台 Atlas 800T A2
# 风格服务器的一块卡上运行的**超分辨率放大服务**（`ascend910b` 配置：24 个 AI Core，Device 内存 1.6 TB/s，锁页拷贝输入 57 GB/s、
# 拷回 42 GB/s；这些速率和 Host 调用开销是沙箱的标定，不是官方文档给出的数字）。每个批次有 `n` 个 float32 值，依次经过：
#
# 1. 一次 Host → Device 拷贝，`4n` 字节；
# 2. `denoise`（一个核函数），然后 `rounds` 轮 `refine`（一个原地更新缓冲区的小核函数），再然后 `upsample`（每个值重复四次，
#    输出 `4n` 个值）；
# 3. 一次 Device → Host 拷贝，`16n` 字节，是输入的四倍。
#
# 下面的 `upscale_baseline(x, rounds)` 是交给你的版本：能用，但很慢——可分页内存、阻塞拷贝、一条 Stream、每批同步一次。让推理
# 流水线变快的那些做法只是起点，不是答案：先测量，找出*这里*限制每个批次的是哪个引擎，改一处，再测量。
#
# 规模不是固定的。评分器每次检查都重新抽取批次数（10 到 16）、`n`（229,376 到 294,912 个值）和 `rounds`（14 到 18）：请从
# `x.shape` 和 `rounds` 读取它们。下面的示例运行使用 8 个批次、每批 262,144 个值、16 轮。

# %%
UP_BATCHES, UP_N, UP_ROUNDS = 8, 1 << 18, 16     # the example runs' sizes (the grader draws its own)
UP_CORES = 24                                     # block_dim: every AI Core of a 910B


@sandbox.kernel(bytes=lambda x, y, n: 8 * n, flops=lambda x, y, n: 3 * n, writes=("y",))
def denoise(x: "float32*", y: "float32*", n: int):
    y[:n] = np.clip(x[:n] * 1.25 - 0.125, 0.0, 1.0)


@sandbox.kernel(bytes=lambda y, n: 8 * n, flops=lambda y, n: 2 * n, writes=("y",))
def refine(y: "float32*", n: int):
    y[:n] = y[:n] * 0.875 + 0.0625


@sandbox.kernel(bytes=lambda y, out, n: 20 * n, flops=lambda y, out, n: 4 * n, writes=("out",))
def upsample(y: "float32*", out: "float32*", n: int):
    out[:4 * n] = np.repeat(y[:n], 4)


def upscale_expected(x, rounds):
    """What the three kernels compute, on the host, to check a run against."""
    y = np.clip(x * np.float32(1.25) - np.float32(0.125), 0.0, 1.0).astype(np.float32)
    for _ in range(rounds):
        y = y * np.float32(0.875) + np.float32(0.0625)
    return np.repeat(y, 4, axis=1)


def upscale_baseline(x, rounds):
    """The given version: pageable memory, blocking copies, one stream, a synchronize per batch."""
    batches, n = x.shape
    stream, _ = acl.rt.create_stream()
    dx, _ = acl.rt.malloc(4 * n, HUGE)
    dy, _ = acl.rt.malloc(4 * n, HUGE)
    dout, _ = acl.rt.malloc(16 * n, HUGE)
    results = np.zeros((batches, 4 * n), np.float32)
    for b in range(batches):
        src, dst = x[b], results[b]           # keep the views alive while their pointers are used
        acl.rt.memcpy(dx, 4 * n, acl.util.numpy_to_ptr(src), 4 * n, H2D)
        denoise[UP_CORES, stream](dx, dy, n)
        for _ in range(rounds):
            refine[UP_CORES, stream](dy, n)
        upsample[UP_CORES, stream](dy, dout, n)
        acl.rt.synchronize_stream(stream)
        acl.rt.memcpy(acl.util.numpy_to_ptr(dst), 16 * n, dout, 16 * n, D2H)
    return results


def profile_upscale(fn, label):
    """Run fn(x, rounds) on a fresh 910B card with the example's sizes, and print what each engine did."""
    sandbox.configure("ascend910b")
    acl.init()
    acl.rt.set_device(0)
    x = np.random.default_rng(1).random((UP_BATCHES, UP_N), dtype=np.float32)
    ok = np.array_equal(fn(x, UP_ROUNDS), upscale_expected(x, UP_ROUNDS))
    ix = build_index(sandbox.trace())
    work = [t for t in ix.tasks.values() if t.kind in ("memcpy", "kernel") and t.end is not None]
    first = min(t.submit for t in work)
    span = max(t.end for t in work) - first
    queued = max(t.submit for t in work) - first
    busy = {}
    for t in work:
        busy[t.engine] = busy.get(t.engine, 0) + t.end - t.start
    print(f"{label}: {span / 1e6:.3f} ms from the first copy or kernel queued to the last one's end; "
          f"results correct: {ok}")
    print(f"  the host queued its last task {queued / 1e6:.3f} ms after its first")
    for engine, ns in sorted(busy.items(), key=lambda kv: -kv[1]):
        print(f"  {engine:<8} busy {ns / 1e6:.3f} ms ({ns / span:.0%} of the time), "
              f"{ns / UP_BATCHES / 1e3:.0f} µs per batch")

# %% [markdown]
# **Predict, then run.** In the baseline, which engine is busy the longest: the DMA engine
# copying in, the AI Cores, or the DMA engine copying back? And would the program be much
# faster if the AI Cores were twice as fast?

# %% [markdown] lang="zh"
# **先预测，再运行。** 在基线中，哪个引擎忙碌的时间最长：拷入的 DMA 引擎、AI Core，还是拷回的 DMA 引擎？如果 AI Core 快一倍，
# 程序会快很多吗？

# %%
profile_upscale(upscale_baseline, "baseline")
sandbox.gantt(view="physical")

# %% [markdown]
# The copy back dominates: sixteen bytes come back for every four that go in, over the slowest
# path there is (pageable memory, 10 GB/s on this card), and nothing runs beside it. Twice
# faster AI Cores would save little. That is where to start, not where to stop: once the
# copies are pinned and leave the stream, run the table again — another limit shows up that the
# inference pipeline never had. One figure to keep in mind while you look for it:

# %% [markdown] lang="zh"
# 拷回占了大头：每拷入四个字节就要拷回十六个，走的还是最慢的路径（可分页内存，这块卡上 10 GB/s），而且没有任何东西与它并行。
# AI Core 快一倍也省不了多少。这里是起点，不是终点：拷贝改用锁页内存并离开这条 Stream 之后，再运行一次这张表——会出现推理
# 流水线从未遇到过的另一个限制。找它的时候，记住下面这个数字：

# %%
p910 = sandbox.get_profile("ascend910b")
refine_ns = p910.kernel_start_ns + 8 * UP_N / p910.hbm_bandwidth * 1e9
print(f"one refine launch costs the host {p910.host_costs.kernel_launch / 1e3:.1f} µs; "
      f"it runs {refine_ns / 1e3:.1f} µs on the device ({p910.kernel_start_ns / 1e3:.0f} µs of it the kernel's start)")
print(f"a graph launch (aclmdlRIExecuteAsync) costs the host {p910.host_costs.graph_launch / 1e3:.1f} µs, "
      f"whatever the number of tasks it replays")

# %% [markdown]
# A kernel that runs shorter on the device than its launch takes on the host leaves the device
# waiting for the host, however many streams there are. The Runtime programming guide names
# this host launch overhead as what capturing into an ACL graph removes (*Single-stream
# capture*, `docs/zh/dev_guide/04-01_single_stream_capture.md` in the CANN runtime repository;
# notebook 08 shows the calls). Two rules from that page matter here: a captured copy must use
# pinned host memory, and the tasks of a graph use the buffers they were captured with, so a
# graph per buffer set.
#
# ### Exercise 10.4 · tune the upscaling pipeline
#
# *Practises:* finding the bottleneck of a pipeline you have not seen, and removing it with what
# notebooks 02–08 taught.
#
# Write `solution(x, rounds)`: `x` is a `(batches, n)` float32 array in pageable memory,
# `rounds` the number of refine rounds; return the `(batches, 4n)` float32 outputs.
# `sandbox.teach.check("10.4", solution)` runs it on a fresh one-card `ascend910b` board
# (`aclInit` and `aclrtSetDevice(0)` done for you) with sizes of its own, runs
# `upscale_baseline` itself on another fresh board with the same inputs, and wants:
#
# * the outputs equal `upscale_expected(x, rounds)`, and each batch's output is what a
#   device-to-host copy the host waited for brought back from what `denoise`, `refine` and
#   `upsample` computed from `x` (not values prepared on the host); no hazard, no failed call;
# * the kernel set unchanged: per batch `denoise` once, `refine` `rounds` times and `upsample`
#   once, each over all `n` values, launched one by one or replayed from a graph, and no
#   other kernel; `4n` bytes in and `16n` bytes back per batch, each once; no blocking
#   `aclrtMemcpy`; device 0 only;
# * **speed**: your speed-up over the baseline, both timed from the first copy or kernel queued
#   to the end of the last (setting up streams, events, buffers and graphs before that is not
#   counted), must reach **at least 80% of the speed-up of the ideal pipeline** for the drawn
#   sizes. The ideal is computed from the profile: per batch, the time of the copy in (`h`), of
#   the kernels (`c`, each on all AI Cores) and of the copy back (`d`), all from pinned
#   memory, and the busiest of the three never idle: `h + c + d + (batches − 1) × max(h, c, d)`.
#
# Whatever orders your pipeline is your choice — events, a stream per buffer set, or host
# waits where they are correct — as are the number of streams and buffer sets and how you
# split the copies; the time decides. (Splitting a batch's *kernels* into pieces pays the
# kernel start of every launch once more per piece: measure it before you keep it.)

# %% [markdown] lang="zh"
# 计算时间比下发时间还短的核函数，会让 Device 等待 Host，无论有多少条 Stream。《Runtime编程指南》把这种 Host 下发开销列为
# 捕获到 ACL Graph 所要消除的东西（“单流捕获”，CANN runtime 仓库 `docs/zh/dev_guide/04-01_single_stream_capture.md`；notebook 08
# 演示了这些调用）。这一页有两条规则在这里很重要：被捕获的拷贝必须使用锁页 Host 内存；图中的任务使用捕获时的缓冲区，所以每组
# 缓冲区要各捕获一个图。
#
# ### 练习 10.4 · 调优超分辨率流水线
#
# *练习内容：* 找出一条没见过的流水线的瓶颈，并用 notebook 02–08 学到的方法消除它。
#
# 编写 `solution(x, rounds)`：`x` 是可分页内存中形状为 `(batches, n)` 的 float32 数组，`rounds` 是 refine 的轮数；返回形状为
# `(batches, 4n)` 的 float32 输出。`sandbox.teach.check("10.4", solution)` 在一块全新的单卡 `ascend910b` 板卡上（已替你完成
# `aclInit` 和 `aclrtSetDevice(0)`）用它自己抽取的规模运行你的函数，再在另一块全新板卡上用相同输入运行 `upscale_baseline`，
# 然后要求：
#
# * 输出等于 `upscale_expected(x, rounds)`，且每个批次的输出都是 Host 等到完成的 Device 到 Host 拷贝带回的、由 `denoise`、
#   `refine` 和 `upsample` 根据 `x` 计算出的结果（而不是在 Host 上准备好的值）；没有隐患，没有失败的调用；
# * 核函数集合不变：每个批次 `denoise` 一次、`refine` `rounds` 次、`upsample` 一次，每次都覆盖全部 `n` 个值，逐个下发或从图中
#   重放均可，没有其他核函数；每个批次拷入 `4n` 字节、拷回 `16n` 字节，各一次；没有阻塞的 `aclrtMemcpy`；只用 Device 0；
# * **速度**：你相对基线的加速比（两者都从第一个拷贝或核函数入队计到最后一个结束；在此之前创建 Stream、Event、缓冲区和图的
#   时间不计入）必须**至少达到**这组规模下**理想流水线加速比的 80%**。理想时间由配置算出：每个批次拷入时间（`h`）、核函数
#   时间（`c`，每个都用全部 AI Core）和拷回时间（`d`），都按锁页内存计，三者中最忙的那个从不空闲：
#   `h + c + d + (batches − 1) × max(h, c, d)`。
#
# 用什么给流水线排序由你决定——Event、每组缓冲区一条 Stream，或在正确的地方用 Host 等待——Stream 和缓冲区组的数量、拷贝怎样
# 切分也由你决定；由时间说了算。（把一个批次的*核函数*切成几段，每段都要再付一次每次下发的核函数启动时间：保留之前先测一测。）

# %% nbgrader={"grade": false, "grade_id": "ex10_4", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x, rounds):
    """The batches of x through denoise, refine x rounds and upsample on device 0; returns the outputs."""
    # TODO: start from upscale_baseline; profile_upscale(your_function, "name") shows what each
    # engine does. Find what limits a batch, fix that, measure again.
    # Hint: sizes come from x.shape and rounds, never from the example's constants.
    ### BEGIN SOLUTION
    batches, n = x.shape
    slots = 2
    hin, _ = acl.rt.malloc_host(batches * 4 * n)           # pinned: full-rate copies, and capturable
    hout, _ = acl.rt.malloc_host(batches * 16 * n)
    acl.util.ptr_to_numpy(hin, (batches, n), np.float32)[:] = x
    load, work, back = (acl.rt.create_stream()[0] for _ in range(3))
    sets = [[acl.rt.malloc(size, HUGE)[0] for size in (4 * n, 4 * n, 16 * n)] for _ in range(slots)]
    graphs = []
    for _, dy, _ in sets:                                  # one graph per buffer set: it keeps its addresses
        acl.mdl.ri_capture_begin(work, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
        for _ in range(rounds):
            refine[UP_CORES, work](dy, n)
        graphs.append(acl.mdl.ri_capture_end(work)[0])
    loaded, computed, sent = ([acl.rt.create_event()[0] for _ in range(slots)] for _ in range(3))
    for b in range(batches):
        s = b % slots
        dx, dy, dout = sets[s]
        if b >= slots:
            acl.rt.stream_wait_event(load, computed[s])    # denoise has read the slot's x
            acl.rt.stream_wait_event(work, sent[s])        # the slot's out has gone back
        acl.rt.memcpy_async(dx, 4 * n, hin + b * 4 * n, 4 * n, H2D, load)
        acl.rt.record_event(loaded[s], load)
        acl.rt.stream_wait_event(work, loaded[s])
        denoise[UP_CORES, work](dx, dy, n)
        acl.mdl.ri_execute_async(graphs[s], work)          # the rounds of refine: one host call
        upsample[UP_CORES, work](dy, dout, n)
        acl.rt.record_event(computed[s], work)
        acl.rt.stream_wait_event(back, computed[s])        # copies back on a stream of their own
        acl.rt.memcpy_async(hout + b * 16 * n, 16 * n, dout, 16 * n, D2H, back)
        acl.rt.record_event(sent[s], back)
    acl.rt.synchronize_stream(back)
    return acl.util.ptr_to_numpy(hout, (batches, 4 * n), np.float32).copy()
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex10_4_check", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("10.4", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("10.4", solution)

# %% [markdown]
# `profile_upscale(solution, "mine")` runs your function on the example's sizes and prints its
# engine table, and `sandbox.gantt(view="physical")` after it draws the run: use them on the
# way, and keep the figures for the explanation below.
#
# ### Your explanation (marked by your teacher, 3 points)
#
# In the cell below, in a few sentences, with figures from your own runs: **(1)** which engine
# or which part of the program limited each batch, first in the baseline and then after your
# first fix, and how you saw it; **(2)** why your changes remove that limit: what now runs
# beside what, and what guarantees the order (which event, stream or wait) so that no buffer is
# overwritten or read too early; **(3)** what limits your tuned version now, and why one more
# stream or buffer set would not make it faster.

# %% [markdown] lang="zh"
# `profile_upscale(solution, "mine")` 用示例规模运行你的函数并打印引擎表，之后调用 `sandbox.gantt(view="physical")` 画出这次
# 运行：调优过程中用它们，并把数字留给下面的说明。
#
# ### 你的说明（由老师评分，3 分）
#
# 在下面的单元格中用几句话、并引用你自己运行得到的数字说明：**(1)** 限制每个批次的是哪个引擎或程序的哪一部分——先是基线中，
# 然后是你第一处改动之后——你是怎样看出来的；**(2)** 你的改动为什么消除了这个限制：现在什么与什么并行运行，又是什么（哪个
# Event、哪条 Stream 或哪次等待）保证了顺序，使任何缓冲区都不会被过早覆盖或读取；**(3)** 现在限制你调优后版本的是什么，为什么
# 再加一条 Stream 或一组缓冲区也不会更快。

# %% [markdown] nbgrader={"grade": true, "grade_id": "ex10_4_explain", "locked": false, "points": 3, "schema_version": 3, "solution": true, "task": false}
# ### BEGIN SOLUTION
# **(1) The bottleneck.** In the baseline the DMA D2H engine is busy 61% of the time (421 µs
# per batch from pageable memory) and nothing overlaps it. With pinned memory and the copies
# back on a stream of their own, a copy back takes only 102 µs per batch, yet the run gets
# little faster (1.52 ms, against 1.68 ms on one stream): the host queues its last task at
# 1.42 ms, almost at the end, because each batch is 18 launches of 8.6 µs of host time (about
# 175 µs with the copies and events), while a refine runs only 4.3 µs on the device. The host
# was the limit.
#
# **(2) Why the fix works.** The refine rounds are captured once per buffer set into an ACL
# graph, so a batch costs the host one graph launch (10 µs) instead of `rounds` launches, and
# the host runs far ahead of the device. The copies back have their own stream, so batch *i*
# goes back while batch *i + 1* is loaded and computed. The order is the runtime's: the
# compute stream waits for `loaded[s]` before denoise, the copy-back stream for `computed[s]`
# before the copy, and before a buffer set is reused the loading stream waits for
# `computed[s]` (denoise read its input) and the compute stream for `sent[s]` (its output went
# back). One synchronize of the copy-back stream at the end covers every copy back.
#
# **(3) What limits it now.** The DMA D2H engine: it is busy 89% of the time (102 µs per
# batch, 16n bytes at 42 GB/s), and the run takes 0.915 ms, the ideal `h + c + batches × d`.
# A card has one D2H engine, so another stream or buffer set only queues more work in front of
# it; only fewer bytes back (or another card) would help.
# ### END SOLUTION

# %% [markdown] lang="zh" nbgrader={"grade": true, "grade_id": "ex10_4_explain", "locked": false, "points": 3, "schema_version": 3, "solution": true, "task": false}
# ### BEGIN SOLUTION
# **(1) 瓶颈。** 基线中拷回的 DMA D2H 引擎 61% 的时间在忙（来自可分页内存，每批 421 µs），而且没有任何东西与它重叠。改用锁页
# 内存并让拷回使用自己的 Stream 之后，每批拷回只需 102 µs，运行却没快多少（1.52 ms，一条 Stream 时是 1.68 ms）：Host 到 1.42 ms
# 才放入最后一个任务，几乎是运行的末尾，因为每个批次要下发 18 次，每次花 Host 8.6 µs（连同拷贝和 Event 约 175 µs），而一个
# refine 在 Device 上只运行 4.3 µs。限制在 Host。
#
# **(2) 改动为什么有效。** 每组缓冲区把 refine 的各轮捕获进一个 ACL Graph，这样一个批次只花 Host 一次图下发（10 µs），而不是
# `rounds` 次下发，Host 远远跑在 Device 前面。拷回有自己的 Stream，所以批次 *i* 拷回时，批次 *i + 1* 正在加载和计算。顺序由运行时
# 保证：计算 Stream 在 denoise 之前等待 `loaded[s]`，拷回 Stream 在拷贝之前等待 `computed[s]`；复用一组缓冲区之前，加载 Stream
# 等待 `computed[s]`（denoise 已读完它的输入），计算 Stream 等待 `sent[s]`（它的输出已拷回）。最后对拷回 Stream 同步一次，就覆盖
# 了所有拷回。
#
# **(3) 现在的限制。** DMA D2H 引擎：它 89% 的时间在忙（每批 102 µs，16n 字节按 42 GB/s），运行用时 0.915 ms，正是理想值
# `h + c + batches × d`。一块卡只有一个 D2H 引擎，所以再加 Stream 或缓冲区组只会在它前面排更多的任务；只有拷回更少的字节
# （或再加一块卡）才有帮助。
# ### END SOLUTION

# %% [markdown]
# ### Rubric
#
# | part | points | marked by | what earns them |
# |---|---|---|---|
# | exercises 10.1, 10.2, 10.3 | 1 each | the grader (nbgrader, automatic) | every line of the check ✔ |
# | exercise 10.4 | 3 | the grader (automatic) | every line ✔: right outputs computed on the device from `x` and copied back before they were read, no hazard, the kernel set and bytes unchanged, asynchronous copies, device 0, and at least 80% of the ideal pipeline's speed-up, for sizes the grader draws |
# | explanation of 10.4 | 3 | the teacher, by hand | 1 for the bottleneck named with a measurement (engine, time per batch, how it was seen), 1 for why the fix works, order included (which event or stream guards each buffer), 1 for what limits the tuned version and why more streams would not help |
# | concept check | 4 | the grader (automatic, a point per answer) | the right letter for each question |
#
# The automatic marks need no teacher: nbgrader's autograde runs each check in a fresh
# interpreter with inputs the learner never saw. The explanation is where a teacher sees
# whether the speed-up was understood or found by trial: full marks need figures, not
# adjectives.

# %% [markdown] lang="zh"
# ### 评分细则
#
# | 部分 | 分值 | 评分者 | 怎样得分 |
# |---|---|---|---|
# | 练习 10.1、10.2、10.3 | 各 1 分 | 评分器（nbgrader，自动） | 检查的每一行都是 ✔ |
# | 练习 10.4 | 3 分 | 评分器（自动） | 每一行都是 ✔：输出正确，在 Device 上由 `x` 计算并在读取前拷回，没有隐患，核函数集合和字节数不变，异步拷贝，只用 Device 0，并且在评分器抽取的规模下达到理想流水线加速比的至少 80% |
# | 10.4 的说明 | 3 分 | 老师，人工评分 | 用测量结果指出瓶颈（哪个引擎、每批多少时间、怎样看出来的）得 1 分；说明改动为什么有效、包括顺序（哪个 Event 或哪条 Stream 保护哪块缓冲区）得 1 分；说明调优后版本受什么限制、为什么更多 Stream 无济于事得 1 分 |
# | 概念检查 | 4 分 | 评分器（自动，每题 1 分） | 每道题选对字母 |
#
# 自动评分的部分不需要老师：nbgrader 的 autograde 在全新的解释器中、用学习者从未见过的输入运行每项检查。书面说明则让老师看出
# 加速是理解后做到的，还是试出来的：要拿满分，需要数字，而不是形容词。

# %% [markdown]
# ## Concept check
#
# Four questions on what this notebook measured. Answer in `concepts()` below with a letter
# per question; each wrong letter is a mistake tuners really make, and the check says why and
# which cell shows it.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 四道题，都关于本 notebook 测量过的东西。在下面的 `concepts()` 中为每道题填一个字母；每个错误选项都是调优时真会犯的错误，
# 检查会说明错在哪里，以及哪个单元格展示了正确答案。

# %%
teach.questions("10.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "b", 2: "b", 3: "c", 4: "a"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
teach.check("10.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("10.concepts", concepts, isolated=True).score * 4
### END HIDDEN TESTS

# %% [markdown]
# ## Official samples for this topic
#
# The capstone's program is larger than any official sample; the closest are
# [4_custom_kernel_launch.py](../examples/0_quickstart/4_custom_kernel_launch.py) (one batch, one
# stream) and
# [1_device_multi_thread.py](../examples/1_basic_features/device/1_device_multi_thread.py) (one
# thread per device). All ports: [examples/README.md](../examples/README.md); notebook
# [11_official_samples](11_official_samples.ipynb) walks through a selection.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# 综合练习的程序比任何官方示例都大；最接近的是
# [4_custom_kernel_launch.py](../../examples/0_quickstart/4_custom_kernel_launch.py)（一个批次、一条 Stream）和
# [1_device_multi_thread.py](../../examples/1_basic_features/device/1_device_multi_thread.py)（每个 Device 一个线程）。全部移植版本：[examples/README.md](../../examples/README.md)；notebook
# [11_official_samples](11_official_samples.ipynb) 逐步讲解其中一部分。

# %% [markdown]
# ## Summary
#
# You can now tune a whole runtime program one measured step at a time: move host buffers to
# pinned memory, queue copies and kernels asynchronously and wait once at the end, double
# buffer so that copies run under compute (events or a stream per slot order the reuse), and
# spread the batches over devices — checking each step against the baseline for time,
# same-device overlap, synchronisations, bytes moved and memory, with the answer still the
# kernels' own. The transfer project asked the question behind every step: which engine, or
# the host, limits a batch? A pipeline takes about max(copy in, compute, copy back) per batch
# once its stages overlap; more streams help only until the busiest engine never waits; and
# when kernels are shorter on the device than their launches on the host, an ACL graph
# launch, not another stream, removes the limit. Notebooks 02–09 hold the details of each
# technique, and `sandbox.teach.exercises()` lists every exercise in the series. Next,
# notebook 11 walks through the official runtime samples, C beside Python.

# %% [markdown] lang="zh"
# ## 小结
#
# 现在你可以经过测量、一次一步地调优一个完整的运行时程序：把 Host 缓冲区换成锁页内存，异步放入拷贝和核函数并在最后只等待一次，
# 用双缓冲让拷贝藏在计算之下（用 Event 或每个槽位一条 Stream 为缓冲区的复用排序），再把批次分散到多个 Device 上——每一步都与基线
# 比较时间、同一 Device 上的重叠、同步次数、传输字节数和内存，而答案始终出自核函数本身。迁移项目问的是每一步背后的那个问题：
# 限制一个批次的是哪个引擎，还是 Host？各阶段重叠起来之后，流水线每个批次约需 max(拷入, 计算, 拷回)；更多的 Stream 只在最忙的
# 引擎还会等待时才有用；而当核函数在 Device 上的运行时间比 Host 下发它的时间还短时，消除限制的是 ACL Graph 的一次下发，而不是
# 再加一条 Stream。notebook 02–09 讲解了每种技术的细节，`sandbox.teach.exercises()` 列出本系列的全部练习。下一个是 notebook 11：
# C 与 Python 对照，逐步讲解官方运行时示例。

# %% [markdown] lang="zh" translates="code"
# en: # the trace as tasks with start and end, for the engine table
# zh: # 把 trace 整理成带开始和结束时间的任务，供引擎表使用
# en: # float32 inputs per batch: 4 MiB
# zh: # 每个批次的 float32 输入：4 MiB
# en: # float32 outputs per batch: 1 MiB
# zh: # 每个批次的 float32 输出：1 MiB
# en: # the dense layer the `layer` kernel stands for
# zh: # `layer` 核函数所代表的全连接层的宽度
# en: # block_dim: every AI Core of a 310P
# zh: # block_dim：310P 的全部 AI Core
# en: f"{p.soc_name}: {p.default_device_count} devices, {p.ai_cores} AI Cores each; "
# zh: f"{p.soc_name}：{p.default_device_count} 个 Device，每个 {p.ai_cores} 个 AI Core；"
# en: f"H2D {p.h2d_pinned / 1e9:.0f} GB/s pinned, {p.h2d_pageable / 1e9:.0f} GB/s pageable"
# zh: f"H2D 锁页 {p.h2d_pinned / 1e9:.0f} GB/s，可分页 {p.h2d_pageable / 1e9:.0f} GB/s"
# en: f"per batch: input copy {IN_B / p.h2d_pinned * 1e6:.0f} µs pinned / {IN_B / p.h2d_pageable * 1e6:.0f} µs pageable, "
# zh: f"每个批次：输入拷贝 锁页 {IN_B / p.h2d_pinned * 1e6:.0f} µs / 可分页 {IN_B / p.h2d_pageable * 1e6:.0f} µs，"
# en: f"layer {2 * WIDTH * N / (CORES * p.core_flops) * 1e6:.0f} µs on 8 cores"
# zh: f"layer 在 8 个核上 {2 * WIDTH * N / (CORES * p.core_flops) * 1e6:.0f} µs"
# en: """One buffer set on the current device: input x, two intermediates y and z, output."""
# zh: """当前 Device 上的一组缓冲区：输入 x、两个中间结果 y 和 z、输出。"""
# en: """Pinned host buffers for all inputs and all outputs, the inputs x filled in."""
# zh: """存放全部输入和全部输出的锁页 Host 缓冲区，已填入输入 x。"""
# en: f"{name}: {r['span'] / 1e6:.3f} ms ({base / r['span']:.1f}x the baseline), "
# zh: f"{name}：{r['span'] / 1e6:.3f} ms（基线的 {base / r['span']:.1f} 倍速度），"
# en: f"overlap {r['overlap'] / 1e6:.3f} ms, {syncs} synchronize calls, "
# zh: f"重叠 {r['overlap'] / 1e6:.3f} ms，{syncs} 次同步调用，"
# en: f"peak device memory {r['peak'] / MiB:.0f} MiB, results correct: {r['ok']}"
# zh: f"Device 内存峰值 {r['peak'] / MiB:.0f} MiB，结果正确：{r['ok']}"
# en: # keep the views alive while their pointers are used
# zh: # 在使用这些视图的指针期间，让视图保持存活
# en: "0 baseline"
# zh: "0 基线"
# en: "1 pinned"
# zh: "1 锁页内存"
# en: "2 async, one stream"
# zh: "2 异步，一条 Stream"
# en: # the slot's previous batch must be done
# zh: # 该槽位的上一个批次必须已完成
# en: # one synchronize per device, at the end
# zh: # 每个 Device 只在最后同步一次
# en: "3 double buffered"
# zh: "3 双缓冲"
# en: "3b three buffer sets"
# zh: "3b 三组缓冲区"
# en: "4a two devices"
# zh: "4a 两个 Device"
# en: "4b four devices"
# zh: "4b 四个 Device"
# en: f"{'step':<22}{'time':>10}{'speed-up':>10}{'throughput':>13}{'overlap':>10}{'syncs/batch':>13}"
# zh: f"{'步骤':<20}{'时间':>8}{'加速比':>7}{'吞吐':>11}{'重叠':>8}{'每批同步':>9}"
# en: f"{'peak':>9}{'correct':>9}"
# zh: f"{'峰值':>7}{'正确':>7}"
# en: """The 16 batches through normalize, layer and pool on device 0; returns their outputs."""
# zh: """16 个批次在 Device 0 上依次经过 normalize、layer 和 pool；返回它们的输出。"""
# en: # TODO: pinned host buffers for x and the outputs, a stream and one buffer set; per batch an
# zh: # TODO：为 x 和输出准备锁页 Host 缓冲区，一条 Stream 和一组缓冲区；每个批次一次
# en: # asynchronous copy in, the three kernels, an asynchronous copy out; then wait once.
# zh: # 异步拷入、三个核函数、一次异步拷出；最后只等待一次。
# en: # Hint: pinned_io(x) and outputs(hout) do the host side; compute(bufs, stream) launches.
# zh: # 提示：pinned_io(x) 和 outputs(hout) 负责 Host 一侧；compute(bufs, stream) 负责下发。
# en: """The 16 batches, double buffered on device 0; returns their outputs."""
# zh: """16 个批次，在 Device 0 上做双缓冲；返回它们的输出。"""
# en: # TODO: two buffer sets, a copy stream and a compute stream, events loaded[slot] and
# zh: # TODO：两组缓冲区，一条拷贝 Stream 和一条计算 Stream，Event loaded[slot] 和
# en: # done[slot]; batch i goes to slot i % 2.
# zh: # done[slot]；批次 i 放入槽位 i % 2。
# en: # Hint: before reusing a slot, the copy stream waits for that slot's done event.
# zh: # 提示：复用一个槽位之前，拷贝 Stream 要等待该槽位的 done Event。
# en: """The 16 batches over four devices, double buffered on each; returns their outputs."""
# zh: """16 个批次分散到四个 Device，每个 Device 上都做双缓冲；返回它们的输出。"""
# en: # TODO: per device (acl.rt.set_device(d) first): two streams, buffer sets and events; batch b
# zh: # TODO：每个 Device（先调用 acl.rt.set_device(d)）：两条 Stream、几组缓冲区和 Event；批次 b
# en: # goes to device b % 4; queue every batch, then synchronize each device once.
# zh: # 去往 Device b % 4；先放入全部批次，再对每个 Device 各同步一次。
# en: # Hint: the copies must find a stream of their own on *each* device.
# zh: # 提示：在*每个* Device 上，拷贝都要有自己的 Stream。
# en: # the device's i-th batch
# zh: # 该 Device 的第 i 个批次
# en: # the example runs' sizes (the grader draws its own)
# zh: # 示例运行的规模（评分器会自己抽取）
# en: # block_dim: every AI Core of a 910B
# zh: # block_dim：910B 的全部 AI Core
# en: """What the three kernels compute, on the host, to check a run against."""
# zh: """在 Host 上算出三个核函数的结果，用来核对一次运行。"""
# en: """The given version: pageable memory, blocking copies, one stream, a synchronize per batch."""
# zh: """交给你的版本：可分页内存、阻塞拷贝、一条 Stream、每批同步一次。"""
# en: """Run fn(x, rounds) on a fresh 910B card with the example's sizes, and print what each engine did."""
# zh: """在一块全新的 910B 卡上用示例规模运行 fn(x, rounds)，并打印每个引擎做了什么。"""
# en: f"{label}: {span / 1e6:.3f} ms from the first copy or kernel queued to the last one's end; "
# zh: f"{label}：从第一个拷贝或核函数入队到最后一个结束共 {span / 1e6:.3f} ms；"
# en: f"results correct: {ok}"
# zh: f"结果正确：{ok}"
# en: f"  the host queued its last task {queued / 1e6:.3f} ms after its first"
# zh: f"  Host 在放入第一个任务 {queued / 1e6:.3f} ms 之后放入了最后一个任务"
# en: f"  {engine:<8} busy {ns / 1e6:.3f} ms ({ns / span:.0%} of the time), "
# zh: f"  {engine:<8} 忙碌 {ns / 1e6:.3f} ms（占总时间的 {ns / span:.0%}），"
# en: f"{ns / UP_BATCHES / 1e3:.0f} µs per batch"
# zh: f"每批 {ns / UP_BATCHES / 1e3:.0f} µs"
# en: f"one refine launch costs the host {p910.host_costs.kernel_launch / 1e3:.1f} µs; "
# zh: f"下发一次 refine 要花 Host {p910.host_costs.kernel_launch / 1e3:.1f} µs；"
# en: f"it runs {refine_ns / 1e3:.1f} µs on the device ({p910.kernel_start_ns / 1e3:.0f} µs of it the kernel's start)"
# zh: f"它在 Device 上运行 {refine_ns / 1e3:.1f} µs（其中 {p910.kernel_start_ns / 1e3:.0f} µs 是核函数的启动）"
# en: f"a graph launch (aclmdlRIExecuteAsync) costs the host {p910.host_costs.graph_launch / 1e3:.1f} µs, "
# zh: f"下发一次图（aclmdlRIExecuteAsync）要花 Host {p910.host_costs.graph_launch / 1e3:.1f} µs，"
# en: f"whatever the number of tasks it replays"
# zh: f"不论它重放多少个任务"
# en: """The batches of x through denoise, refine x rounds and upsample on device 0; returns the outputs."""
# zh: """x 的各个批次在 Device 0 上依次经过 denoise、rounds 轮 refine 和 upsample；返回输出。"""
# en: # TODO: start from upscale_baseline; profile_upscale(your_function, "name") shows what each
# zh: # TODO：从 upscale_baseline 出发；profile_upscale(your_function, "name") 会显示每个引擎
# en: # engine does. Find what limits a batch, fix that, measure again.
# zh: # 做了什么。找出限制一个批次的因素，改掉它，再测量。
# en: # Hint: sizes come from x.shape and rounds, never from the example's constants.
# zh: # 提示：规模取自 x.shape 和 rounds，绝不能取自示例的常量。
# en: # pinned: full-rate copies, and capturable
# zh: # 锁页内存：拷贝全速，而且可以被捕获
# en: # one graph per buffer set: it keeps its addresses
# zh: # 每组缓冲区一个图：图会记住捕获时的地址
# en: # denoise has read the slot's x
# zh: # denoise 已读完该槽位的 x
# en: # the slot's out has gone back
# zh: # 该槽位的 out 已拷回
# en: # the rounds of refine: one host call
# zh: # 全部轮次的 refine：只需一次 Host 调用
# en: # copies back on a stream of their own
# zh: # 拷回使用自己的 Stream
# en: profile_upscale(upscale_baseline, "baseline")
# zh: profile_upscale(upscale_baseline, "基线")
# en: """Your answers: {question number: letter}."""
# zh: """你的答案：{题号: 字母}。"""
