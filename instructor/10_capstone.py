# %% [markdown]
# # 10 · Capstone: tuning an inference pipeline, step by step
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
# **After this notebook** you can take a slow, correct runtime program and make it fast one
# measured step at a time, and say what each step bought. **It assumes** notebooks 01 to 06
# (09 helps when a step goes wrong).

# %% [markdown] lang="zh"
# # 10 · 综合练习：一步一步调优推理流水线
#
# 本 notebook 把前面各 notebook 的内容用在同一个程序上：一个推理服务，在一台 Atlas 300I 风格的服务器上（`ascend310p` 配置：
# 四块 PCIe 卡，每块 8 个 AI Core，锁页 Host 拷贝 24 GB/s）让 **16 个批次**通过一个小模型。每个批次是：
#
# 1. 一个 4 MiB 的输入，从 Host 拷贝到设备；
# 2. 三个核函数：`normalize`（受访存限制）、`layer`（受计算限制：它声明一个宽 8192 的全连接层的浮点运算量）、`pool`（每四个求和）；
# 3. 一个 1 MiB 的输出，从设备拷贝到 Host。
#
# 我们从最慢的正确程序出发，每次只改一处，观察甘特图以及一张包含端到端时间、吞吐、拷贝/计算重叠和同步次数的表：
#
# | 步骤 | 改动 | C | Python |
# |---|---|---|---|
# | 0 | 基线：可分页内存、阻塞拷贝、每批一次同步 | `aclrtMemcpy(dev, n, hostArray, n, ACL_MEMCPY_HOST_TO_DEVICE)` | `acl.rt.memcpy(dev, n, acl.util.numpy_to_ptr(a), n, H2D)` |
# | 1 | 锁页 Host 内存 | `aclrtMallocHost(&host, size)` | `host, ret = acl.rt.malloc_host(size)` |
# | 2 | 异步拷贝，最后只同步一次 | `aclrtMemcpyAsync(..., stream)` | `acl.rt.memcpy_async(..., stream)` |
# | 3 | 双缓冲：两条流、两组缓冲区、事件 | `aclrtRecordEvent`、`aclrtStreamWaitEvent` | `acl.rt.record_event`、`acl.rt.stream_wait_event` |
# | 4 | 把批次分布到 2 个、再到 4 个设备 | `aclrtSetDevice(d)` | `acl.rt.set_device(d)` |
#
# 核函数的函数体计算一个廉价的替代结果，以便检查结果；它们的*耗时*是它们声明的量（`bytes=`、`flops=`），按配置中 204.8 GB/s
# 的设备内存和每个 AI Core 8.7 TFLOPS 计时。
#
# **学完本 notebook**，你能把一个慢而正确的运行时程序一步步经过测量地变快，并说出每一步带来了什么。**前提**：notebook 01 到 06
# （某一步出错时，09 会有帮助）。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import numpy as np

import sandbox
from sandbox import acl, teach

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
# `open_board(devices)` starts a fresh machine and opens the devices (the first
# `aclrtSetDevice` of a process takes about a second, later ones milliseconds: none of that is
# part of the timed run). Each version puts `teach.mark("start")` before its first batch and
# `teach.mark("end")` after its last synchronize; `record(name)` measures between them.

# %% [markdown] lang="zh"
# ## 每个版本共用的部分
#
# `open_board(devices)` 启动一台全新机器并打开设备（进程的第一次 `aclrtSetDevice` 约需一秒，之后的只需几毫秒：这些都不计入计时
# 的运行）。每个版本在第一个批次之前放 `teach.mark("start")`，在最后一次同步之后放 `teach.mark("end")`；`record(name)` 测量两者之间。

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
# 设备从不同时做两件事，每个批次的大部分时间都在拷贝：可分页拷贝经过中转缓冲区，速率约为锁页的三分之一。（阻塞拷贝运行在
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
# Put the copies on the stream with `aclrtMemcpyAsync` and synchronize once at the end. The
# host now queues all 16 batches in well under a millisecond — but on one stream each task
# still waits for the one before it, so the device timeline barely changes: the gain is only
# the host round trips that are gone.

# %% [markdown] lang="zh"
# ## 第 2 步 · 异步拷贝，一次同步
#
# 用 `aclrtMemcpyAsync` 把拷贝放到流上，最后同步一次。现在 Host 在远不到一毫秒的时间里就放入了全部 16 个批次——但在一条流上，
# 每个任务仍要等待它前面的任务，所以设备的时间线几乎不变：收益只是省掉的那些 Host 往返。

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
# ## 第 3 步 · 用两条流和事件做双缓冲
#
# notebook 02 的模式：两组缓冲区（槽位），一条**拷贝流**把批次 *i* 加载到槽位 *i mod 2* 并记录 `loaded[slot]`，一条**计算流**
# 等待它、运行核函数、把结果拷回并记录 `done[slot]`；复用一个槽位之前，拷贝流等待它的 `done`。现在加载批次 *i + 1* 与批次 *i*
# 的核函数同时进行。
#
# `pipeline(devices)` 是为同时使用多个设备而写的（第 4 步会用到）：批次 *b* 去往设备 `devices[b % len(devices)]`，每个设备有自己的
# 流、槽位和事件，全部由这一个 Host 线程驱动（`aclrtSetDevice` 切换线程的设备；notebook 06 展示了每个设备一个线程的做法）。

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
# 流水线受计算限制，所以一个设备无法再快多少。

# %%
sandbox.gantt(view="physical")

# %% [markdown]
# ## Step 4 · more devices
#
# The AI Cores of one card are saturated, but the server has four. Each card has its own PCIe
# link and DMA engines, so spreading the batches spreads the copies too.

# %% [markdown] lang="zh"
# ## 第 4 步 · 更多设备
#
# 一块卡的 AI Core 已经饱和，但服务器有四块。每块卡有自己的 PCIe 链路和 DMA 引擎，所以分布批次也就分布了拷贝。

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
# (each 4 MiB buffer takes 6 MiB of 2 MiB huge pages, because of the runtime's 32-byte pad).

# %% [markdown] lang="zh"
# ## 结果表
#
# 吞吐按端到端时间内每秒的输入字节计；重叠是拷贝和核函数同时运行的时间（在整台机器上任意位置；练习的评分器按每个设备分别统计）；
# 峰值是保留的设备内存（由于运行时的 32 字节填充，每个 4 MiB 缓冲区占用 6 MiB 的 2 MiB 大页）。

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
# * **一条流上的异步调用**解放的是 Host 而不是设备：在有东西能与别的东西*并行*运行之前，设备时间就是它各任务之和；
# * **双缓冲**让拷贝与计算重叠，使一个设备的时间接近它最忙的那个引擎（这里是 AI Core：16 × ~0.33 ms）；
# * **更多设备**把它再分摊；用四个设备时，每个设备流水线的填充和排空，以及 Host 自己的调用开销（放入一个批次约 50 µs 的调用）
#   开始显现。
#
# 每一步都保持结果正确，每个字节在每个方向上恰好传输一次；最后几步的代价是内存：每个设备两组缓冲区。

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
# Each exercise adds its own lines, below. You may use the notebook's kernels, constants and
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
# * 板卡已先为你打开：`aclInit`，以及对设备 0（10.3 中为全部四个设备）的 `aclrtSetDevice`，当前设备为设备 0。不要调用 `acl.init`
#   或 `sandbox.configure`；
# * **加速比** = 基线时间 / 你的时间，两者都从第一个拷贝或核函数入队的时刻计到最后一个结束（基线约 17.1 ms）。在你第一次拷贝之前
#   创建流、事件和缓冲区的时间不计入（上面各步骤的标记也把它排除在外），最后一个之后的清理也不计入；两者之间的一切都计入，包括
#   Host 调用；
# * 输出与模型的一致，每个批次的输出都是设备到 Host 的拷贝从核函数计算结果中带回的，并在落地之后读取；
# * **核函数集合不变**：`normalize`、`layer` 和 `pool` 各自覆盖全部数据，与基线相同（16 次下发，`n = N`，与 `compute(bufs, stream)`
#   的做法一样），没有其他核函数。评分器根据实际运行的下发来衡量这一点：它们的耗时按元素声明，所以覆盖较少元素的下发或漏掉的
#   阶段都会被发现；
# * 拷入 64 MiB、拷出 16 MiB，每个字节一次；没有与设备之间的阻塞 `aclrtMemcpy`；**只在最后同步**：任何 Host 线程在它的第一次同步
#   之后都不再放入拷贝或核函数（最后每条流或每个设备一次同步是可以的，用 `aclrtStreamQuery` 轮询也可以）；没有数据竞争，没有失败的调用。
#
# 每个练习还在下面加上它自己的要求。你可以使用 notebook 中的核函数、常量和辅助函数 `device_buffers()`、`compute(bufs, stream)`、
# `pinned_io(x)` 和 `outputs(hout)`（它们不触碰板卡），但不能使用 `open_board` 或各步骤函数，它们会配置自己的机器。
#
# ### 练习 10.1 · 锁页内存、异步、只等待一次
#
# *练习内容：* 调优的第 1 和第 2 步：锁页 Host 内存、流上的拷贝、一次等待。
#
# 在设备 0 上用一条流就够了。除了上面的共同要求，评分器还要求：
#
# * 每次 Host↔设备拷贝都来自或去往**锁页** Host 内存（`aclrtMallocHost`）；
# * 只用设备 0；
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
# ### 练习 10.2 · 单设备上的双缓冲
#
# *练习内容：* 第 3 步：在一个设备上，AI Core 计算一个批次时加载另一个批次。
#
# 仍然只用设备 0，现在至少使用两组缓冲区（槽位）和两条流，使一个批次的拷贝与另一个批次的核函数同时运行。在设备上为槽位的复用
# 排序：用事件（`aclrtRecordEvent`、`aclrtStreamWaitEvent`，如 `pipeline` 中那样），或每个槽位一条流；不要用 Host 等待，它会破坏
# “只在最后同步”。除了共同要求：
#
# * 只用设备 0，它的拷贝和核函数在**至少 2 条流**上；
# * 设备 0 上拷贝与计算的重叠**至少达到**可能重叠时间（两者忙碌时间中较短的那个）的 **50%**；
# * 设备内存峰值**至多 64 MiB**：一组缓冲区占 19 MiB（三个 4 MiB 缓冲区各占 6 MiB 大页，加上 1 MiB 的输出），所以两个或三个槽位
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
# *练习内容：* 一次完成全部调优：锁页内存、异步拷贝、每个设备上的双缓冲、四个设备同时忙碌。
#
# 四个设备都已打开。把批次分布到它们上面，每个设备有自己的流、缓冲区组和事件，由一个 Host 线程驱动（如 `pipeline` 那样）或每个
# 设备一个线程（notebook 06）；每个设备两个或三个槽位。除了共同要求：
#
# * 加速比**至少 8×**（第 4b 步约 9.4×）；
# * 拷贝与计算的重叠**至少达到**可能重叠时间的 **50%**，按每个设备分别统计后求和：一个设备的拷贝与另一个设备的核函数并行不算；
# * 四个设备在同一时刻都忙碌；
# * 设备内存峰值合计**至多 256 MiB**：每个设备三组缓冲区（228 MiB）放得下，四组或每批一组（304 MiB）放不下。

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
# 一条诱人的捷径——四个设备，但每个只有一条流、一组缓冲区、没有事件——在下面评判。它在时间上接近，但在每个设备上拷贝和核函数
# 仍然轮流进行，所以达不到 8×，重叠那一项也什么都找不到：设备 0 的拷贝确实与设备 1 的核函数并行运行（表中整机范围的
# `teach.busy()` 会把它算作重叠），但没有一个拷贝引擎在它自己的 AI Core 工作时工作。

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
# [4_custom_kernel_launch.py](../../examples/0_quickstart/4_custom_kernel_launch.py)（一个批次、一条流）和
# [1_device_multi_thread.py](../../examples/1_basic_features/device/1_device_multi_thread.py)（每个设备一个线程）。全部移植版本：[examples/README.md](../../examples/README.md)；notebook
# [11_official_samples](11_official_samples.ipynb) 逐步讲解其中一部分。

# %% [markdown]
# ## Summary
#
# You can now tune a whole runtime program one measured step at a time: move host buffers to
# pinned memory, queue copies and kernels asynchronously and wait once at the end, double
# buffer so that copies run under compute (events or a stream per slot order the reuse), and
# spread the batches over devices — checking each step against the baseline for time,
# same-device overlap, synchronisations, bytes moved and memory, with the answer still the
# kernels' own. Notebooks 02–09 hold the details of each technique, and
# `sandbox.teach.exercises()` lists every exercise in the series. Next, notebook 11 walks
# through the official runtime samples, C beside Python.

# %% [markdown] lang="zh"
# ## 小结
#
# 现在你可以一次一步、经过测量地调优一个完整的运行时程序：把 Host 缓冲区换成锁页内存，异步放入拷贝和核函数并在最后只等待一次，
# 用双缓冲让拷贝在计算之下进行（用事件或每槽位一条流为复用排序），再把批次分布到多个设备上——每一步都与基线比较时间、同设备重叠、
# 同步次数、传输字节数和内存，而答案仍然来自核函数本身。notebook 02–09 包含每种技术的细节，
# `sandbox.teach.exercises()` 列出本系列的每个练习。下一个是 notebook 11：C 与 Python 对照，逐步讲解官方运行时示例。

