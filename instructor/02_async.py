# %% [markdown]
# # 02 · Asynchronous execution: overlapping copies with compute
#
# **Time:** about 45 minutes · **Required** · **Assumes** notebook 01 (the five steps,
# `memcpy_async`, launching a kernel).
#
# A community article on CANN asynchronous execution (CANN 训练营 2025; not official
# documentation, partly generated text) reports this table for the vector addition of
# notebook 01 on an Ascend 310B:
#
# | mode | data copies | compute | total |
# |---|---|---|---|
# | synchronous | 8.2 ms | 3.5 ms | 11.7 ms (8.2 + 3.5) |
# | asynchronous | 8.2 ms | 3.5 ms | 8.5 ms (≈ max(8.2, 3.5)) |
#
# The idea is official: copies have their own DMA engines and can run while the AI Core
# computes (the Runtime programming guide, *Asynchronous task overview*,
# `docs/zh/dev_guide/03-01_asynchronous_task_overview.md` in the CANN runtime repository). The
# figures are the article's: the sandbox's 310B profile is **calibrated on** them, not measured
# here; which tasks can run at the same time, and why, holds whatever a board's figures are.
#
# **After this notebook** you can say why asynchronous calls alone overlap nothing on the
# device, pipeline chunks over two streams ordered by events, and spot a read before
# synchronising.

# %% [markdown] lang="zh"
# # 02 · 异步执行：让拷贝与计算重叠
#
# **时间**：约 45 分钟 · **必修** · **前提**：notebook 01（五个步骤、`memcpy_async`、下发核函数）。
#
# 一篇关于 CANN 异步执行的社区文章（CANN 训练营 2025，非官方文档，部分内容由生成式工具写成）给出了
# notebook 01 的向量加法在昇腾 310B 上的这张表：
#
# | 模式 | 数据拷贝 | 计算 | 总计 |
# |---|---|---|---|
# | 同步 | 8.2 ms | 3.5 ms | 11.7 ms (8.2 + 3.5) |
# | 异步 | 8.2 ms | 3.5 ms | 8.5 ms (≈ max(8.2, 3.5)) |
#
# 思路出自官方文档：数据传输有独立的 DMA 引擎，可以与 AI Core 上的计算并发执行（《Runtime编程指南》
# “异步任务总述”，CANN runtime 仓库 `docs/zh/dev_guide/03-01_asynchronous_task_overview.md`）。数字则来自
# 那篇文章：沙箱的 310B 配置以它们为**校准目标**，并不是在这里测出来的；哪些任务能同时执行、为什么，
# 与板卡的真实数字无关。
#
# **学完本 notebook**，你能说明为什么单靠异步调用不会让 Device（设备）上的任何任务重叠，能把分块放到
# 两条 Stream（流）上做成流水线、用 Event（事件）排序，并能发现“同步前读取”。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import numpy as np

import sandbox
from sandbox import acl, teach

N = 1024 * 1024                     # int32 elements per vector
NBYTES = 4 * N                      # 4 MiB
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
HUGE = acl.ACL_MEM_MALLOC_HUGE_FIRST

p = sandbox.get_profile("ascend310b")
print(f"{p.soc_name}: {p.ai_cores} AI Core, pinned copies {p.h2d_pinned / 1e9:.3f} GB/s each way")
print(f"3 x 4 MiB at that rate: {3 * NBYTES / p.h2d_pinned * 1e3:.2f} ms")

# %% [markdown]
# ## The kernel's cost
#
# The copy bandwidth above is calibrated on the article (3 × 4 MiB in 8.2 ms). For the kernel
# we **declare the time**: 3.5 ms for 1 Mi elements, scaled by the elements a launch covers,
# so that a chunk costs its share. (Timed by its memory traffic instead, at the profile's
# assumed device-memory bandwidth, the addition would take about 0.25 ms; we cannot tell what
# the article's 3.5 ms includes, so we take it as declared: the lesson is the overlap, not the
# figure.)

# %% [markdown] lang="zh"
# ## 核函数的耗时
#
# 上面的拷贝带宽按文章校准（3 × 4 MiB 用 8.2 ms）。核函数则**声明耗时**：1 Mi 个元素 3.5 ms，按一次下发覆盖的
# 元素数缩放，这样每块数据只花它那一份时间。（若按访存量、以配置假定的 Device 内存带宽计时，这次加法只要约
# 0.25 ms；我们无从得知文章的 3.5 ms 包含了什么，所以直接声明它：本课讲的是重叠，而不是这个数字。）

# %%
@sandbox.kernel(ns=lambda a, b, c, n: 3_500_000 * n // N)
def add(a: "int32*", b: "int32*", c: "int32*", n: int):
    c[:n] = a[:n] + b[:n]


def board(streams=1):
    """A fresh 310B with acl initialised, device 0 set, pinned inputs filled, device buffers."""
    sandbox.configure("ascend310b")
    acl.init()
    acl.rt.set_device(0)
    ss = [acl.rt.create_stream()[0] for _ in range(streams)]
    hosts = [acl.rt.malloc_host(NBYTES)[0] for _ in range(3)]
    acl.util.ptr_to_numpy(hosts[0], (N,), np.int32)[:] = np.arange(N)
    acl.util.ptr_to_numpy(hosts[1], (N,), np.int32)[:] = N - np.arange(N)
    return ss, hosts


def result(host_c):
    return acl.util.ptr_to_numpy(host_c, (N,), np.int32).copy()


rows = {}


def measure(name):
    """Copy busy time, compute busy time and the span between the marks 'start' and 'end'."""
    b = teach.busy(start="start", end="end")
    rows[name] = b
    print(f"{name}: copies {b['copy'] / 1e6:.1f} ms, compute {b['compute'] / 1e6:.1f} ms, "
          f"overlap {b['overlap'] / 1e6:.1f} ms, total {b['span'] / 1e6:.1f} ms")

# %% [markdown]
# ## Row 1 · synchronous
#
# Blocking copies (`aclrtMemcpy`, in Python `acl.rt.memcpy(dev_a, NBYTES, host_a, NBYTES, H2D)`)
# return only when the bytes have arrived, so the host does one thing at a time: copy, copy,
# launch and wait (`aclrtSynchronizeStream`), copy back.

# %% [markdown] lang="zh"
# ## 第 1 行 · 同步
#
# 阻塞拷贝（`aclrtMemcpy`，Python 中写作 `acl.rt.memcpy(dev_a, NBYTES, host_a, NBYTES, H2D)`）要等字节到达才返回，
# 所以 Host（主机）一次只做一件事：拷贝、拷贝、下发并等待（`aclrtSynchronizeStream`）、拷回。

# %%
(s,), (ha, hb, hc) = board()
da, db, dc = (acl.rt.malloc(NBYTES, HUGE)[0] for _ in range(3))
teach.mark("start")
acl.rt.memcpy(da, NBYTES, ha, NBYTES, H2D)      # C: aclrtMemcpy(devA, byteSize, hostA, byteSize, ACL_MEMCPY_HOST_TO_DEVICE);
acl.rt.memcpy(db, NBYTES, hb, NBYTES, H2D)
add[1, s](da, db, dc, N)
acl.rt.synchronize_stream(s)
acl.rt.memcpy(hc, NBYTES, dc, NBYTES, D2H)      # C: aclrtMemcpy(hostC, byteSize, devC, byteSize, ACL_MEMCPY_DEVICE_TO_HOST);
teach.mark("end")
measure("synchronous")
print("correct:", bool((result(hc) == N).all()))

# %% [markdown]
# ## Row 2, first try · async calls on one stream
#
# The article's C program uses `aclrtMemcpyAsync` and one stream: the host queues everything
# at once and waits once.
#
# **Predict, then run.** The synchronous row took 11.7 ms. With the same four tasks queued
# asynchronously on one stream, will the total be about 11.7 ms, about max(8.2, 3.5) = 8.2 ms,
# or less?

# %% [markdown] lang="zh"
# ## 第 2 行，第一次尝试 · 一条 Stream 上的异步调用
#
# 文章中的 C 程序用 `aclrtMemcpyAsync` 和一条 Stream：Host 一次把所有任务放进队列，只等一次。
#
# **先预测，再运行。** 同步的那一行用了 11.7 ms。把同样四个任务异步地放在一条 Stream 上，总时间是约 11.7 ms、
# 约 max(8.2, 3.5) = 8.2 ms，还是更短？

# %%
(s,), (ha, hb, hc) = board()
da, db, dc = (acl.rt.malloc(NBYTES, HUGE)[0] for _ in range(3))
teach.mark("start")
# C: aclrtMemcpyAsync(devA, byteSize, hostA, byteSize, ACL_MEMCPY_HOST_TO_DEVICE, stream);
acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
add[1, s](da, db, dc, N)                        # Ascend C: add_kernel<<<1, nullptr, stream>>>(...);
acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
queued = sandbox.now()
acl.rt.synchronize_stream(s)                    # C: aclrtSynchronizeStream(stream);
teach.mark("end")
measure("async, one stream")
print(f"the host had queued all four tasks {(queued - teach.window(start='start')[0]) / 1e3:.0f} µs after 'start'")

# %% [markdown]
# ### Why one stream cannot overlap
#
# Still 11.7 ms. Tasks in one stream run in the order they were queued (the Runtime programming
# guide, *Stream management*, `docs/zh/dev_guide/03-02_stream_management.md`), and here each
# also *needs* the one before. The stream's four bars sit end to end under the host's
# synchronize (red); only the host changed: it queued everything within microseconds and was
# free. Asynchronous calls free the **host**; they do not make the **device** do two things at once.

# %% [markdown] lang="zh"
# ### 为什么一条 Stream 无法重叠
#
# 仍是 11.7 ms。同一 Stream 中的任务按入队顺序依次执行（《Runtime编程指南》“Stream管理”，
# `docs/zh/dev_guide/03-02_stream_management.md`），而这里每个任务还*依赖*前一个。甘特图中，这条 Stream 的四个条形
# 首尾相接，上方是 Host 的同步（红色）；变化的只有 Host：它几微秒内就把任务全部放进队列，随即空闲。异步调用解放的是
# **Host**，并不会让 **Device** 同时做两件事。

# %%
sandbox.gantt()

# %% [markdown]
# ## Reading before synchronising
#
# `aclrtMemcpyAsync` returns before the bytes move. Read `host_c` right after queuing and, on a
# board, what you get depends on timing: old bytes, some new ones, or all. The sandbox lands a
# copy's bytes at its simulated end, so such a read sees the old bytes (zeros here) every time,
# and it reports the mistake: a `HazardWarning` under the cell says the host read `host_c`
# while a copy that writes it was unsynchronised (notebook 09b explains these warnings).

# %% [markdown] lang="zh"
# ## 同步前读取
#
# `aclrtMemcpyAsync` 在字节搬运之前就返回。入队后立即读取 `host_c`，在板卡上读到什么取决于时序：旧字节、部分
# 新字节，或者全部新字节。沙箱在拷贝的模拟结束时刻才让字节落地，所以这样的读取每次都看到旧字节（这里是零），
# 并且会报告这个错误：单元下方的 `HazardWarning` 指出，Host 读取 `host_c` 时，一个写它的拷贝还没有同步
# （notebook 09b 会解释这些警告）。

# %%
(s,), (ha, hb, hc) = board()
da, db, dc = (acl.rt.malloc(NBYTES, HUGE)[0] for _ in range(3))
acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
add[1, s](da, db, dc, N)
acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
early = result(hc)                     # read too early: a HazardWarning (notebook 09b)
acl.rt.synchronize_stream(s)
late = result(hc)
print("before synchronize: c[:3] =", early[:3], " after:", late[:3])
teach.check_equal(early, np.full(N, N), what="result read before synchronize")

# %% [markdown]
# ## Row 2 for real · double buffering over two streams with events
#
# Split the vectors into chunks and pipeline them: while the AI Core adds chunk *i*, the DMA
# engine loads chunk *i + 1*. Two sets of device buffers (slots 0 and 1) alternate, the
# *double buffer*, and two streams carry the work:
#
# * the **copy stream** loads chunk *i* into slot *i mod 2*, then records event `loaded[slot]`;
# * the **compute stream** waits for `loaded[slot]`, adds, copies the chunk back, then records
#   `done[slot]`;
# * before the copy stream overwrites a slot (chunk *i + 2*), it waits for `done[slot]`.
#
# | C | Python |
# |---|---|
# | `aclrtCreateEvent(&ev)` | `ev, ret = acl.rt.create_event()` |
# | `aclrtRecordEvent(ev, copyStream)` | `acl.rt.record_event(ev, copy_s)` |
# | `aclrtStreamWaitEvent(computeStream, ev)` | `acl.rt.stream_wait_event(compute_s, ev)` |
#
# **Predict, then run.** The same 12 MiB of copies and 3.5 ms of adds, now in 8 chunks on two
# streams. Which total do you expect: about 11.7 ms, about 8.2 ms plus a little, or about
# 3.5 ms?

# %% [markdown] lang="zh"
# ## 真正的第 2 行 · 用 Event 在两条 Stream 上做双缓冲
#
# 把向量分块，做成流水线：AI Core 加第 *i* 块时，DMA 引擎加载第 *i + 1* 块。两组 Device 缓冲区（槽位 0 和 1）
# 交替使用，这就是*双缓冲*；任务由两条 Stream 承载：
#
# * **拷贝 Stream** 把第 *i* 块加载到槽位 *i mod 2*，然后记录 Event `loaded[slot]`；
# * **计算 Stream** 等待 `loaded[slot]`，做加法，把这一块拷回，然后记录 `done[slot]`；
# * 拷贝 Stream 覆盖一个槽位（第 *i + 2* 块）之前，先等待 `done[slot]`。
#
# | C | Python |
# |---|---|
# | `aclrtCreateEvent(&ev)` | `ev, ret = acl.rt.create_event()` |
# | `aclrtRecordEvent(ev, copyStream)` | `acl.rt.record_event(ev, copy_s)` |
# | `aclrtStreamWaitEvent(computeStream, ev)` | `acl.rt.stream_wait_event(compute_s, ev)` |
#
# **先预测，再运行。** 同样 12 MiB 的拷贝和 3.5 ms 的加法，现在分成 8 块放在两条 Stream 上。你预计总时间是
# 约 11.7 ms、约 8.2 ms 多一点，还是约 3.5 ms？

# %%
def double_buffered(chunks=8):
    (copy_s, compute_s), (ha, hb, hc) = board(streams=2)
    step = N // chunks
    cb = 4 * step                                           # bytes per chunk
    slots = [[acl.rt.malloc(cb, HUGE)[0] for _ in range(3)] for _ in range(2)]
    loaded = [acl.rt.create_event()[0] for _ in range(2)]
    done = [acl.rt.create_event()[0] for _ in range(2)]
    teach.mark("start")
    for i in range(chunks):
        slot, off = i % 2, i * cb
        da, db, dc = slots[slot]
        if i >= 2:                                          # slot still in use by chunk i - 2?
            acl.rt.stream_wait_event(copy_s, done[slot])
        acl.rt.memcpy_async(da, cb, ha + off, cb, H2D, copy_s)
        acl.rt.memcpy_async(db, cb, hb + off, cb, H2D, copy_s)
        acl.rt.record_event(loaded[slot], copy_s)           # C: aclrtRecordEvent(loaded[slot], copyStream);
        acl.rt.stream_wait_event(compute_s, loaded[slot])   # C: aclrtStreamWaitEvent(computeStream, loaded[slot]);
        add[1, compute_s](da, db, dc, step)
        acl.rt.memcpy_async(hc + off, cb, dc, cb, D2H, compute_s)
        acl.rt.record_event(done[slot], compute_s)
    acl.rt.synchronize_stream(compute_s)
    teach.mark("end")
    return result(hc)


c = double_buffered(chunks=8)
measure("double buffered, 8 chunks")
print("correct:", bool((c == N).all()))

# %% [markdown]
# About 8.2 ms plus a little: the copies, the busiest work, now set the pace, and most of the
# adds run under them (the "overlap" figure). Not 3.5 ms: overlapping hides the shorter work
# under the longer, it does not remove either. The logical view has a row per stream; the
# arrows are the event waits (a record on one stream → the wait it releases on the other).

# %% [markdown] lang="zh"
# 约 8.2 ms 多一点：最耗时的拷贝现在决定节奏，大部分加法都藏在拷贝下面执行（见输出中的“重叠”）。不会是 3.5 ms：
# 重叠是把较短的任务藏到较长的任务下面，并没有省掉哪一个。逻辑视图每条 Stream 一行；箭头是 Event 等待
# （一条 Stream 上的记录 → 它在另一条 Stream 上放行的等待）。

# %%
sandbox.gantt()

# %% [markdown]
# The physical view has a row per engine. In the sandbox's 310B profile one DMA engine carries
# the copies of both directions (the sandbox's choice, calibrated on the article's table: the
# 310B's host and NPU share one memory; the programming guide says host-to-device and
# device-to-host copies can run at the same time where the device allows it), so it is busy
# almost all the time; the AI Core works beside it.

# %% [markdown] lang="zh"
# 物理视图每个引擎一行。在沙箱的 310B 配置中，一个 DMA 引擎承担两个方向的拷贝（这是沙箱的选择，按文章的表格
# 校准：310B 的 Host 与 NPU 共用一块内存；编程指南说，在 Device 支持时，Host 到 Device 与 Device 到 Host 的拷贝
# 可以同时进行），所以它几乎一直在忙；AI Core 在一旁工作。

# %%
sandbox.gantt(view="physical")

# %% [markdown]
# ### How close to the bound?
#
# The bound is the busiest engine's time, max(8.2, 3.5) = 8.2 ms of copies. Above it are the
# fill (the first chunk's loads, with nothing to add yet), the drain (the last chunk's add and
# copy back) and each copy's start-up latency.
#
# **Predict, then run.** More chunks shorten the fill and the drain. Will 32 chunks beat 16?

# %% [markdown] lang="zh"
# ### 离上限有多近？
#
# 上限是最忙引擎的时间，即 max(8.2, 3.5) = 8.2 ms 的拷贝。超出的部分是填充（第一块的加载，此时还没有可加的）、
# 排空（最后一块的加法和拷回），以及每次拷贝的启动延迟。
#
# **先预测，再运行。** 块数越多，填充和排空越短。32 块会比 16 块快吗？

# %%
for k in (1, 2, 4, 8, 16, 32):
    double_buffered(chunks=k)
    b = teach.busy(start="start", end="end")
    print(f"{k:>2} chunks: total {b['span'] / 1e6:5.2f} ms, overlap {b['overlap'] / 1e6:4.2f} ms "
          f"({b['overlap'] / min(b['copy'], b['compute']):4.0%} of the compute)")

# %% [markdown]
# No: past about 16 chunks the total grows again, because every extra copy pays its start-up
# latency once more. Chunk size is a trade-off, not "the smaller the better".
#
# ## The rebuilt table
#
# Copy and compute are busy times (union of the bars); overlap is the time both ran at once.

# %% [markdown] lang="zh"
# 不会：超过约 16 块后总时间又增加了，因为每多一次拷贝就多付一次启动延迟。块的大小是一种权衡，并不是越小越好。
#
# ## 重建的表格
#
# 拷贝和计算是忙碌时间（条形的并集）；重叠是两者同时运行的时间。

# %%
import unicodedata


def cell(text, width):
    """text padded to a display width (a Chinese character is two columns wide)."""
    wide = sum(unicodedata.east_asian_width(ch) in "WF" for ch in text)
    return text + " " * max(0, width - len(text) - wide)


print(cell("mode", 28) + f"{'copies':>9}{'compute':>10}{'overlap':>10}{'total':>9}")
for name, b in rows.items():
    print(cell(name, 28) + f"{b['copy'] / 1e6:>6.1f} ms{b['compute'] / 1e6:>7.1f} ms"
          f"{b['overlap'] / 1e6:>7.1f} ms{b['span'] / 1e6:>6.1f} ms")
print(cell("article: synchronous", 28) + f"{8.2:>6.1f} ms{3.5:>7.1f} ms{'':>10}{11.7:>6.1f} ms")
print(cell("article: asynchronous", 28) + f"{8.2:>6.1f} ms{3.5:>7.1f} ms{'':>10}{8.5:>6.1f} ms")

# %% [markdown]
# The double-buffered copies take a little more than 8.2 ms: 24 copies instead of 3, each with
# its start-up latency. The article's 8.5 ms is max(8.2, 3.5) plus a little; the sandbox lands
# within a few percent of it.

# %% [markdown] lang="zh"
# 双缓冲这一行的拷贝比 8.2 ms 多一点：24 次拷贝而不是 3 次，每次都有启动延迟。文章的 8.5 ms 是 max(8.2, 3.5)
# 再加一点；沙箱的结果与它只差几个百分点。

# %% [markdown]
# ## Exercises
#
# `sandbox.teach.check("02.1", solution)` runs **your** function on a fresh simulated 310B of
# its own, with new input vectors each time, and judges the whole run from its trace: the sum,
# whether the device computed it and the host read it only after it landed, and the numbers the
# exercise states. The grader has initialised acl and set device 0; you create the streams,
# buffers and events. Do not call `board()` or `sandbox.configure()` in a solution, and you
# need not free anything: the grader throws its board away.
#
# ### Exercise 02.1 · let the host work meanwhile
#
# *Practises:* asynchronous calls return at once, so the host can do its own work while the
# device runs.
#
# The host has 8 ms of its own work for the next batch: `prepare_next_batch()` below. One after
# the other that makes 11.7 + 8 ms. Compute `a + b` on the device with `add` (one stream is
# enough) and call `prepare_next_batch()` once, so that the two run at the same time. The
# grader wants:
#
# * the right sum, computed on the device, copied back, and read after the host learnt it landed;
# * asynchronous copies only (no `aclrtMemcpy`), 8 MiB in and 4 MiB out;
# * at least **90 %** of the 8 ms host work done while the device was busy;
# * **at most one** synchronize (a query loop with `acl.rt.stream_query` is fine too);
# * at most **13 ms** from the start of your function to the end of the wait that sees the
#   device finish (the device alone needs 11.7 ms).

# %% [markdown] lang="zh"
# ## 练习
#
# `sandbox.teach.check("02.1", solution)` 在一块专属的全新模拟 310B 上运行**你的**函数，每次都换新的输入向量，
# 并根据整次运行的 trace 评判：和对不对，是否由 Device 算出、Host 是否在落地之后才读取，以及练习给出的各项数字。
# 评分器已经初始化 acl 并指定了 Device 0；Stream、缓冲区和 Event 由你创建。解答中不要调用 `board()` 或
# `sandbox.configure()`，也不必释放任何资源：评分器用完就会丢弃它的板卡。
#
# ### 练习 02.1 · 让 Host 同时干活
#
# *练习内容：* 异步调用立即返回，所以 Device 运行时 Host 可以做自己的工作。
#
# Host 还要为下一批数据做 8 ms 自己的工作：下面的 `prepare_next_batch()`。一件接一件地做，共需 11.7 + 8 ms。
# 用 `add` 在 Device 上计算 `a + b`（一条 Stream 就够），并调用一次 `prepare_next_batch()`，让两者同时进行。
# 评分器要求：
#
# * 和正确，由 Device 计算、拷回，并在 Host 确知它已落地之后读取；
# * 只用异步拷贝（不用 `aclrtMemcpy`），拷入 8 MiB，拷出 4 MiB；
# * 8 ms 的 Host 工作中至少 **90 %** 在 Device 忙碌时完成；
# * **至多一次**同步（用 `acl.rt.stream_query` 轮询也可以）；
# * 从函数开始到看到 Device 完成的那次等待结束，至多 **13 ms**（Device 自身就需要 11.7 ms）。

# %%
def prepare_next_batch():
    """The host's own work for the next batch: 8 ms of CPU time on the calling thread."""
    sandbox.host_work(8_000_000, "prepare the next batch")

# %% nbgrader={"grade": false, "grade_id": "ex02_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(a, b):
    """Return a + b (int32, N elements) computed by `add` on device 0, with
    prepare_next_batch() run while the device works."""
    # TODO: create a stream and the buffers, queue the copies in, the launch and the copy back,
    # then do the host work, then wait once and return the sum.
    # Hint: an asynchronous call only queues its task; the host is free as soon as it returns.
    ### BEGIN SOLUTION
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, HUGE)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    prepare_next_batch()                # the device works meanwhile
    acl.rt.synchronize_stream(s)
    return result(hc)
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex02_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("02.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("02.1", solution)

# %% [markdown]
# ### Exercise 02.2 · pipeline it
#
# *Practises:* double buffering: chunks on two streams, ordered by events, so that copies
# overlap compute.
#
# Write the double-buffered vector addition yourself, for the grader's `a` and `b` (the
# notebook's `double_buffered` builds its own board and inputs, so it cannot be the answer).
# You choose the number of chunks and of slots. The grader wants:
#
# * the right sum, computed on the device by `add` over all N elements, copied back, and read
#   after the host learnt it landed;
# * device work on **two or more streams**, ordered by **events** (at least one
#   `aclrtStreamWaitEvent` on one stream for an event recorded on another), and no hazard: a
#   slot is not overwritten before the chunk in it has been added and copied back;
# * asynchronous copies, each byte crossing once: 8 MiB in, 4 MiB out;
# * at least **80 %** of the compute overlapped by copies;
# * at most **9 ms** from your first copy to the end of the wait that sees the device finish
#   (the article reports 8.5 ms; 9 ms leaves room for the pipeline's fill and drain).
#   Creating streams, buffers and events before the first copy is not counted.
#
# Hints: one stream cannot overlap; chunks on two streams can; an event recorded after a
# chunk's loads lets the compute stream wait for them, and one recorded after its copy back
# keeps the slot from being reused too early.

# %% [markdown] lang="zh"
# ### 练习 02.2 · 做成流水线
#
# *练习内容：* 双缓冲：分块放在两条 Stream 上，用 Event 排序，让拷贝与计算重叠。
#
# 针对评分器给出的 `a` 和 `b`，亲手写出双缓冲的向量加法（notebook 中的 `double_buffered` 自己创建板卡和输入，
# 不能直接当答案）。块数和槽位数由你决定。评分器要求：
#
# * 和正确，由 `add` 在 Device 上对全部 N 个元素计算、拷回，并在 Host 确知它已落地之后读取；
# * Device 任务分布在**两条或更多 Stream** 上，由 **Event** 排序（至少有一次 `aclrtStreamWaitEvent`，让一条 Stream
#   等待另一条 Stream 上记录的 Event），并且没有隐患：一个槽位里的数据完成加法和拷回之前，不会被覆盖；
# * 异步拷贝，每个字节只传一次：拷入 8 MiB，拷出 4 MiB；
# * 至少 **80 %** 的计算与拷贝重叠；
# * 从第一次拷贝到看到 Device 完成的那次等待结束，至多 **9 ms**（文章给出的是 8.5 ms；9 ms 为流水线的填充和排空
#   留出余量）。第一次拷贝之前创建 Stream、缓冲区和 Event 的时间不计入。
#
# 提示：一条 Stream 无法重叠，两条 Stream 上的分块可以；在一块数据加载完之后记录的 Event 让计算 Stream 等待加载，
# 在它拷回之后记录的 Event 防止槽位被过早复用。

# %% nbgrader={"grade": false, "grade_id": "ex02_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(a, b):
    """Return a + b (int32, N elements), computed by `add` in a pipeline of chunks on two
    streams of device 0 whose copies overlap the adds."""
    # TODO: pinned host buffers for a, b and c; two slots of device buffers; two streams;
    # events `loaded` and `done` per slot; the loop over chunks; one wait at the end.
    # Hint: the cell "Row 2 for real" above shows the loop.
    ### BEGIN SOLUTION
    chunks = 8
    step = N // chunks
    cb = 4 * step                                   # bytes per chunk
    copy_s, _ = acl.rt.create_stream()
    compute_s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    slots = [[acl.rt.malloc(cb, HUGE)[0] for _ in range(3)] for _ in range(2)]
    loaded = [acl.rt.create_event()[0] for _ in range(2)]
    done = [acl.rt.create_event()[0] for _ in range(2)]
    for i in range(chunks):
        slot, off = i % 2, i * cb
        da, db, dc = slots[slot]
        if i >= 2:                                  # the slot's chunk i - 2 must be finished
            acl.rt.stream_wait_event(copy_s, done[slot])
        acl.rt.memcpy_async(da, cb, ha + off, cb, H2D, copy_s)
        acl.rt.memcpy_async(db, cb, hb + off, cb, H2D, copy_s)
        acl.rt.record_event(loaded[slot], copy_s)
        acl.rt.stream_wait_event(compute_s, loaded[slot])
        add[1, compute_s](da, db, dc, step)
        acl.rt.memcpy_async(hc + off, cb, dc, cb, D2H, compute_s)
        acl.rt.record_event(done[slot], compute_s)
    acl.rt.synchronize_stream(compute_s)
    return result(hc)
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex02_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("02.2", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("02.2", solution)

# %% [markdown]
# ## Concept check
#
# Four questions on what the device does with asynchronous work; each answer is shown by a cell
# above. Answer with letters; every choice, right or wrong, prints why.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 四个关于 Device 如何执行异步任务的问题，每个答案都能在上面的某个单元中看到。用字母作答；无论选对选错，都会打印原因。

# %%
teach.questions("02.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "b", 2: "c", 3: "a", 4: "b"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
teach.check("02.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("02.concepts", concepts, isolated=True).score * 4
### END HIDDEN TESTS

# %% [markdown]
# ## Official samples for this topic
#
# The memory samples pair each copy with its blocking and asynchronous form: host to device
# [1_h2d_sync_memory_copy.py](../examples/1_basic_features/memory/1_h2d_sync_memory_copy.py) and
# [2_h2d_async_memory_copy.py](../examples/1_basic_features/memory/2_h2d_async_memory_copy.py),
# device to host
# [3_d2h_sync_memory_copy.py](../examples/1_basic_features/memory/3_d2h_sync_memory_copy.py) and
# [4_d2h_async_memory_copy.py](../examples/1_basic_features/memory/4_d2h_async_memory_copy.py),
# device to device
# [5_d2d_sync_memory_copy.py](../examples/1_basic_features/memory/5_d2d_sync_memory_copy.py) and
# [6_d2d_async_memory_copy.py](../examples/1_basic_features/memory/6_d2d_async_memory_copy.py); each
# asynchronous copy is followed by a synchronize.
# [1_random_num_task.py](../examples/2_advanced_features/built_in_task/1_random_num_task.py) queues
# the runtime's built-in random-number task, another asynchronous task: its numbers are in device
# memory only once the stream has reached it. Notebook
# [11_official_samples](11_official_samples.ipynb), section 1.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# 内存示例把每种拷贝的阻塞形式和异步形式配成一对：Host 到 Device 是
# [1_h2d_sync_memory_copy.py](../../examples/1_basic_features/memory/1_h2d_sync_memory_copy.py) 和
# [2_h2d_async_memory_copy.py](../../examples/1_basic_features/memory/2_h2d_async_memory_copy.py)，Device 到 Host 是
# [3_d2h_sync_memory_copy.py](../../examples/1_basic_features/memory/3_d2h_sync_memory_copy.py) 和
# [4_d2h_async_memory_copy.py](../../examples/1_basic_features/memory/4_d2h_async_memory_copy.py)，Device 到 Device 是
# [5_d2d_sync_memory_copy.py](../../examples/1_basic_features/memory/5_d2d_sync_memory_copy.py) 和
# [6_d2d_async_memory_copy.py](../../examples/1_basic_features/memory/6_d2d_async_memory_copy.py)；每次异步拷贝之后都有一次同步。
# [1_random_num_task.py](../../examples/2_advanced_features/built_in_task/1_random_num_task.py) 下发运行时内置的随机数生成任务，
# 这是另一种异步任务：Stream 执行到它之后，随机数才出现在 Device 内存中。notebook
# [11_official_samples](11_official_samples.ipynb) 第 1 节。

# %% [markdown]
# ## Summary
#
# Asynchronous calls only queue work: the host is free at once, and must synchronise (or query)
# before it reads what the device wrote. One stream runs its tasks one after another; to make the
# DMA engine and the AI Core work at the same time, put chunks' loads and adds on different
# streams, ordered by events. Next, notebook 03: streams and events themselves.

# %% [markdown] lang="zh"
# ## 小结
#
# 异步调用只把任务放进队列：Host 立即空闲，但读取 Device 写入的数据之前必须先同步（或查询）。一条 Stream 一个接一个地
# 执行任务；要让 DMA 引擎和 AI Core 同时工作，就把各块的加载和加法放到不同的 Stream 上，用 Event 排序。
# 下一个是 notebook 03：Stream 和 Event 本身。

# %% [markdown] lang="zh" translates="code"
# en: # int32 elements per vector
# zh: # 每个向量的 int32 元素个数
# en: pinned copies {p.h2d_pinned / 1e9:.3f} GB/s each way
# zh: 锁页内存拷贝每个方向 {p.h2d_pinned / 1e9:.3f} GB/s
# en: f"3 x 4 MiB at that rate:
# zh: f"按这个速率拷贝 3 x 4 MiB：
# en: """A fresh 310B with acl initialised, device 0 set, pinned inputs filled, device buffers."""
# zh: """一块全新的 310B：acl 已初始化，已指定 Device 0，锁页输入已填好数据。"""
# en: """Copy busy time, compute busy time and the span between the marks 'start' and 'end'."""
# zh: """拷贝忙碌时间、计算忙碌时间，以及标记 'start' 与 'end' 之间的时长。"""
# en: f"{name}: copies {b['copy'] / 1e6:.1f} ms, compute {b['compute'] / 1e6:.1f} ms, "
# zh: f"{name}：拷贝 {b['copy'] / 1e6:.1f} ms，计算 {b['compute'] / 1e6:.1f} ms，"
# en: f"overlap {b['overlap'] / 1e6:.1f} ms, total {b['span'] / 1e6:.1f} ms"
# zh: f"重叠 {b['overlap'] / 1e6:.1f} ms，总计 {b['span'] / 1e6:.1f} ms"
# en: measure("synchronous")
# zh: measure("同步")
# en: print("correct:"
# zh: print("结果正确："
# en: measure("async, one stream")
# zh: measure("异步，一条 Stream")
# en: f"the host had queued all four tasks {(queued - teach.window(start='start')[0]) / 1e3:.0f} µs after 'start'"
# zh: f"Host 在 'start' 之后 {(queued - teach.window(start='start')[0]) / 1e3:.0f} µs 就已把四个任务全部入队"
# en: # read too early: a HazardWarning (notebook 09b)
# zh: # 读得太早：产生 HazardWarning（见 notebook 09b）
# en: print("before synchronize: c[:3] =", early[:3], " after:", late[:3])
# zh: print("同步之前：c[:3] =", early[:3], " 同步之后：", late[:3])
# en: what="result read before synchronize"
# zh: what="同步之前读取的结果"
# en: # bytes per chunk
# zh: # 每块的字节数
# en: # slot still in use by chunk i - 2?
# zh: # 槽位是否仍被第 i - 2 块占用？
# en: measure("double buffered, 8 chunks")
# zh: measure("双缓冲，8 块")
# en: f"{k:>2} chunks: total {b['span'] / 1e6:5.2f} ms, overlap {b['overlap'] / 1e6:4.2f} ms "
# zh: f"{k:>2} 块：总计 {b['span'] / 1e6:5.2f} ms，重叠 {b['overlap'] / 1e6:4.2f} ms "
# en: f"({b['overlap'] / min(b['copy'], b['compute']):4.0%} of the compute)"
# zh: f"（占计算的 {b['overlap'] / min(b['copy'], b['compute']):4.0%}）"
# en: cell("mode", 28) + f"{'copies':>9}{'compute':>10}{'overlap':>10}{'total':>9}"
# zh: cell("模式", 28) + f"{'拷贝':>7}{'计算':>8}{'重叠':>8}{'总计':>7}"
# en: cell("article: synchronous", 28)
# zh: cell("文章：同步", 28)
# en: cell("article: asynchronous", 28)
# zh: cell("文章：异步", 28)
# en: """text padded to a display width (a Chinese character is two columns wide)."""
# zh: """把文字补齐到指定的显示宽度（一个汉字占两列）。"""
# en: """The host's own work for the next batch: 8 ms of CPU time on the calling thread."""
# zh: """Host 为下一批数据做的工作：在调用线程上花 8 ms 的 CPU 时间。"""
# keep: prepare the next batch
# keep: Ascend C: add_kernel<<<1, nullptr, stream>>>
# en: """Return a + b (int32, N elements) computed by `add` on device 0, with
# zh: """返回 a + b（int32，N 个元素），由 `add` 在 Device 0 上计算，
# en: prepare_next_batch() run while the device works."""
# zh: 并在 Device 工作期间运行 prepare_next_batch()。"""
# en: # TODO: create a stream and the buffers, queue the copies in, the launch and the copy back,
# zh: # TODO：创建 Stream 和缓冲区，把拷入、下发和拷回放进队列，
# en: # then do the host work, then wait once and return the sum.
# zh: # 接着做 Host 的工作，然后等待一次并返回和。
# en: # Hint: an asynchronous call only queues its task; the host is free as soon as it returns.
# zh: # 提示：异步调用只把任务放进队列；它一返回，Host 就空闲了。
# en: # the device works meanwhile
# zh: # 与此同时 Device 在工作
# en: """Return a + b (int32, N elements), computed by `add` in a pipeline of chunks on two
# zh: """返回 a + b（int32，N 个元素），由 `add` 以分块流水线的方式在 Device 0 的两条 Stream 上计算，
# en: streams of device 0 whose copies overlap the adds."""
# zh: 拷贝与加法重叠。"""
# en: # TODO: pinned host buffers for a, b and c; two slots of device buffers; two streams;
# zh: # TODO：a、b、c 的锁页 Host 缓冲区；两个槽位的 Device 缓冲区；两条 Stream；
# en: # events `loaded` and `done` per slot; the loop over chunks; one wait at the end.
# zh: # 每个槽位的 Event `loaded` 和 `done`；遍历各块的循环；最后等待一次。
# en: # Hint: the cell "Row 2 for real" above shows the loop.
# zh: # 提示：上面“真正的第 2 行”下的单元格展示了这个循环。
# en: # the slot's chunk i - 2 must be finished
# zh: # 槽位中的第 i - 2 块必须已经完成
# en: """Your answers: {question number: letter}."""
# zh: """你的答案：{题号: 字母}。"""
