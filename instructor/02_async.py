# %% [markdown]
# # 02 · Asynchronous execution: overlapping copies with compute
#
# The asynchronous-execution article (seed 003) measures its vector addition on an Ascend 310B:
#
# | mode | data copies | compute | total |
# |---|---|---|---|
# | synchronous | 8.2 ms | 3.5 ms | 11.7 ms (8.2 + 3.5) |
# | asynchronous | 8.2 ms | 3.5 ms | 8.5 ms (≈ max(8.2, 3.5)) |
#
# The idea: the DMA engines move data and the AI Core computes; they are separate hardware,
# so while one chunk is being computed the next can be copied. This notebook rebuilds that
# table on the sandbox's 310B profile, shows why the seed's single-stream program cannot get
# the second row by itself, and builds the double-buffered version that does.
#
# **After this notebook** you can say why asynchronous calls alone do not overlap anything,
# split work into chunks over two streams with events, and spot a read before synchronising.
# **It assumes** notebook 01 (the five steps, `memcpy_async`, launching a kernel).
#
# Where the numbers come from: the seed article is partly generated text, and its table is a
# target the sandbox's 310B profile is **calibrated on** (copy bandwidth set so that 12 MiB take
# 8.2 ms, tag `SEED003` in `sandbox/profiles`), not a measurement repeated here. What the
# notebook shows is the mechanism — which tasks can run at the same time and why — and that holds
# whatever the board's real figures are.

# %% [markdown] lang="zh"
# # 02 · 异步执行：让拷贝与计算重叠
#
# 异步执行文章（种子 003）在昇腾 310B 上测量了它的向量加法：
#
# | 模式 | 数据拷贝 | 计算 | 总计 |
# |---|---|---|---|
# | 同步 | 8.2 ms | 3.5 ms | 11.7 ms (8.2 + 3.5) |
# | 异步 | 8.2 ms | 3.5 ms | 8.5 ms (≈ max(8.2, 3.5)) |
#
# 思路是：DMA 引擎搬运数据，AI Core 进行计算；它们是不同的硬件，所以一块数据在计算时，下一块可以
# 同时拷贝。本 notebook 在沙箱的 310B 配置上重建这张表，说明为什么种子中单条流的程序本身得不到第二行
# 的结果，并构建能做到的双缓冲版本。
#
# **学完本 notebook**，你能说明为什么仅靠异步调用不会让任何东西重叠，能把任务分块放到两条流上并用
# 事件排序，并能发现同步之前的读取。**前提**：notebook 01（五个步骤、`memcpy_async`、下发核函数）。
#
# 数字从哪里来：种子文章部分由生成式工具写成，它的表格是沙箱 310B 配置**校准所用的目标**（拷贝带宽
# 设为使 12 MiB 需要 8.2 ms，见 `sandbox/profiles` 中的 `SEED003` 标记），而不是在这里重新测得的结果。
# 本 notebook 展示的是机制——哪些任务能同时运行、为什么——无论板卡的真实数字是多少，这一点都成立。

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
# The profile's copy bandwidth is calibrated on the seed's measurement (3 × 4 MiB in 8.2 ms).
# For the kernel we **declare the time**: `ns=3_500_000` for the full 1 Mi elements, scaled by
# the elements a launch covers so that chunks cost their share. (A `bytes=` figure would be
# timed against the profile's assumed 51.2 GB/s device memory: 12 MiB would take only 0.25 ms,
# so a bytes figure matching 3.5 ms would have to claim about 179 MB of traffic, fifteen
# times what an addition of two 4 MiB vectors reads and writes. The two figures cannot both be
# right: either the board's memory is much slower than the profile assumes (its 51.2 GB/s is an
# assumption for LPDDR4X, not a data sheet), or the seed's 3.5 ms includes something besides the
# addition (launch, first-call set-up), or it is simply not a measurement. We cannot tell which,
# so we declare the seed's 3.5 ms as the kernel's time and say so: the lesson is the overlap, not
# the figure.)

# %% [markdown] lang="zh"
# ## 核函数的耗时
#
# 配置中的拷贝带宽按种子的测量值校准（3 × 4 MiB 用 8.2 ms）。对核函数，我们**声明耗时**：完整的
# 1 Mi 个元素为 `ns=3_500_000`，并按一次下发覆盖的元素数缩放，使每块数据只花它那一份时间。（若用
# `bytes=` 数字，就会按配置中假定的 51.2 GB/s 设备内存带宽计时：12 MiB 只要 0.25 ms，因此要与 3.5 ms
# 相符，字节数就得声称约 179 MB 的访存量，是两个 4 MiB 向量相加实际读写量的十五倍。两个数字不可能都对：
# 要么板卡内存比配置假定的慢得多（51.2 GB/s 是对 LPDDR4X 的假设，不是数据手册），要么种子的 3.5 ms
# 包含了加法以外的东西（下发、首次调用的准备），要么它根本不是测量值。我们无法判断是哪一种，所以把
# 种子的 3.5 ms 声明为核函数的耗时并如实说明：本课讲的是重叠，而不是这个数字。）

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
# Blocking copies (`aclrtMemcpy`) return only when the bytes have arrived, so the host does one
# thing at a time: copy, copy, launch and wait, copy back.
#
# | C | Python |
# |---|---|
# | `aclrtMemcpy(devA, byteSize, hostA, byteSize, ACL_MEMCPY_HOST_TO_DEVICE)` | `acl.rt.memcpy(dev_a, NBYTES, host_a, NBYTES, H2D)` |
# | `aclrtSynchronizeStream(stream)` | `acl.rt.synchronize_stream(stream)` |

# %% [markdown] lang="zh"
# ## 第 1 行 · 同步
#
# 阻塞拷贝（`aclrtMemcpy`）只有在字节到达后才返回，所以 Host 一次只做一件事：拷贝、拷贝、下发并等待、拷回。
#
# | C | Python |
# |---|---|
# | `aclrtMemcpy(devA, byteSize, hostA, byteSize, ACL_MEMCPY_HOST_TO_DEVICE)` | `acl.rt.memcpy(dev_a, NBYTES, host_a, NBYTES, H2D)` |
# | `aclrtSynchronizeStream(stream)` | `acl.rt.synchronize_stream(stream)` |

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
# ## Row 2, first try · the seed's program: async calls on one stream
#
# The seed's C program uses `aclrtMemcpyAsync` and one stream. The host now queues everything
# at once and waits once — but the device time does not change:

# %% [markdown] lang="zh"
# ## 第 2 行，第一次尝试 · 种子的程序：一条流上的异步调用
#
# 种子的 C 程序使用 `aclrtMemcpyAsync` 和一条流。现在 Host 一次把所有任务放入队列，只等待一次——
# 但设备时间没有变化：

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
# A stream is an in-order queue: a task starts only when the one before it in the same stream
# has finished. Here each task also *needs* the one before (the add needs both inputs; the copy
# back needs the sum), so there is nothing to overlap: in the Gantt chart the stream's four
# bars sit end to end, and the host's synchronize (red) covers all of them. Asynchronous calls
# free the **host**; they do not by themselves make the **device** do two things at once.

# %% [markdown] lang="zh"
# ### 为什么一条流无法重叠
#
# 流是按序队列：一个任务只有在同一条流中它前面的任务完成后才开始。这里每个任务还*需要*它前面的任务
# （加法需要两个输入；拷回需要和），所以没有可以重叠的东西：甘特图中流的四个条形首尾相接，Host 的
# 同步（红色）覆盖了它们全部。异步调用解放的是 **Host**；它们本身并不能让**设备**同时做两件事。

# %%
sandbox.gantt()

# %% [markdown]
# ## Reading before synchronising shows stale data
#
# `aclrtMemcpyAsync` returns before the bytes move. In the sandbox, as on hardware, the host
# buffer changes only when the copy completes in (simulated) time. Read `host_c` right after
# queuing and you get what was there before — zeros here. The sandbox also notices the
# mistake: the read raises a `HazardWarning` (shown under the cell) saying that the host read
# `host_c` while a copy that writes it was still unsynchronised. Notebook 09b explains these
# warnings; here it is the lesson itself.

# %% [markdown] lang="zh"
# ## 同步之前读取会看到旧数据
#
# `aclrtMemcpyAsync` 在字节搬运之前就返回。在沙箱中，与硬件上一样，Host 缓冲区只有在拷贝于（模拟）
# 时间中完成时才改变。入队之后立即读取 `host_c`，得到的是之前的内容——这里是零。沙箱也会发现这个错误：
# 这次读取会产生一个 `HazardWarning`（显示在单元下方），指出 Host 读取 `host_c` 时，一个写它的拷贝
# 还没有同步。notebook 09b 会解释这些警告；在这里，它本身就是要学的内容。

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
# To overlap, split the vectors into chunks and pipeline them: while the AI Core adds chunk
# *i*, the H2D engine loads chunk *i + 1* and the D2H engine returns chunk *i − 1*. Two device
# buffer sets (slots 0 and 1) alternate — that is the *double buffer* — and two streams carry
# the work:
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
# The events make the dependencies explicit across streams; everything else may overlap.

# %% [markdown] lang="zh"
# ## 真正的第 2 行 · 用事件在两条流上做双缓冲
#
# 要重叠，就把向量分块并流水线化：AI Core 在加第 *i* 块时，H2D 引擎加载第 *i + 1* 块，D2H 引擎
# 拷回第 *i − 1* 块。两组设备缓冲区（槽位 0 和 1）交替使用——这就是*双缓冲*——由两条流承载任务：
#
# * **拷贝流**把第 *i* 块加载到槽位 *i mod 2*，然后记录事件 `loaded[slot]`；
# * **计算流**等待 `loaded[slot]`，做加法，把这块拷回，然后记录 `done[slot]`；
# * 拷贝流在覆盖一个槽位（第 *i + 2* 块）之前，等待 `done[slot]`。
#
# | C | Python |
# |---|---|
# | `aclrtCreateEvent(&ev)` | `ev, ret = acl.rt.create_event()` |
# | `aclrtRecordEvent(ev, copyStream)` | `acl.rt.record_event(ev, copy_s)` |
# | `aclrtStreamWaitEvent(computeStream, ev)` | `acl.rt.stream_wait_event(compute_s, ev)` |
#
# 事件让跨流的依赖变得明确；其余的一切都可以重叠。

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
# The logical view has a row per stream; the arrows are the event waits (record on one stream →
# the wait it releases on the other). Copies of one chunk now run beside the add of another.

# %% [markdown] lang="zh"
# 逻辑视图每条流一行；箭头是事件等待（一条流上的记录 → 它在另一条流上放行的等待）。现在一块数据的
# 拷贝与另一块的加法并行运行。

# %%
sandbox.gantt()

# %% [markdown]
# The physical view has a row per engine. On this board one DMA engine carries the copies of
# both directions, so it is busy almost all the time; the AI Core works beside it.

# %% [markdown] lang="zh"
# 物理视图每个引擎一行。在这块板卡上，一个 DMA 引擎承担两个方向的拷贝，所以它几乎一直忙碌；
# AI Core 在它旁边工作。

# %%
sandbox.gantt(view="physical")

# %% [markdown]
# ### How close to the bound?
#
# More chunks mean a shorter pipeline fill at the start and drain at the end, so the total
# approaches the busiest engine's time. Here that is the DMA engine: on the 310B board the
# host and the NPU share one memory, and the profile gives copies in and out one engine, as the
# seed's table does. So the bound is max(8.2, 3.5) = 8.2 ms of copies; what is left above it is
# the fill (the first chunk's loads, with nothing to add yet), the drain (the last chunk's add
# and copy back) and each copy's start-up latency, which more chunks pay more often: past
# about 16 chunks the total grows again.

# %% [markdown] lang="zh"
# ### 离上限有多近？
#
# 块数越多，开头的流水线填充和结尾的排空就越短，总时间就越接近最忙引擎的时间。这里是 DMA 引擎：
# 在 310B 板卡上 Host 与 NPU 共享一块内存，配置像种子的表格一样让拷入和拷出共用一个引擎。所以上限是
# max(8.2, 3.5) = 8.2 ms 的拷贝；高出的部分是填充（第一块的加载，此时还没有可加的）、排空（最后一块
# 的加法和拷回）以及每次拷贝的启动延迟——块数越多，付出的次数越多：超过约 16 块后总时间又会增加。

# %%
for k in (1, 2, 4, 8, 16, 32):
    double_buffered(chunks=k)
    b = teach.busy(start="start", end="end")
    print(f"{k:>2} chunks: total {b['span'] / 1e6:5.2f} ms, overlap {b['overlap'] / 1e6:4.2f} ms "
          f"({b['overlap'] / min(b['copy'], b['compute']):4.0%} of the compute)")

# %% [markdown]
# ## The rebuilt table
#
# Copy and compute are busy times (union of the bars); overlap is the time both ran at once.

# %% [markdown] lang="zh"
# ## 重建的表格
#
# 拷贝和计算是忙碌时间（条形的并集）；重叠是两者同时运行的时间。

# %%
print(f"{'mode':<28}{'copies':>9}{'compute':>10}{'overlap':>10}{'total':>9}")
for name, b in rows.items():
    print(f"{name:<28}{b['copy'] / 1e6:>6.1f} ms{b['compute'] / 1e6:>7.1f} ms"
          f"{b['overlap'] / 1e6:>7.1f} ms{b['span'] / 1e6:>6.1f} ms")
print(f"{'seed 003: synchronous':<28}{8.2:>6.1f} ms{3.5:>7.1f} ms{'':>10}{11.7:>6.1f} ms")
print(f"{'seed 003: asynchronous':<28}{8.2:>6.1f} ms{3.5:>7.1f} ms{'':>10}{8.5:>6.1f} ms")

# %% [markdown]
# In the double-buffered row the copies take a little more than 8.2 ms: 24 copies instead of 3,
# each with its start-up latency. The seed's 8.5 ms is max(8.2, 3.5) plus a little; the sandbox
# lands within a few percent of it.

# %% [markdown] lang="zh"
# 在双缓冲这一行中，拷贝比 8.2 ms 多一点：24 次拷贝而不是 3 次，每次都有启动延迟。种子的 8.5 ms
# 是 max(8.2, 3.5) 再加一点；沙箱的结果与它相差不过几个百分点。

# %% [markdown]
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("02.1", solution)`
# runs **your** function on a fresh simulated 310B of its own, with input vectors it makes up
# each time, and judges the whole run from the trace: whether the sum is right, whether the
# device computed it and the host read it only after it had landed, and the numbers the
# exercise states. Before it calls your function the grader has initialised acl and set
# device 0 (the 1 s `aclrtSetDevice` is not what these exercises are about); you create the
# streams, buffers and events. Do not call `board()` or `sandbox.configure()` in a solution:
# the grader's machine is its own. You need not free anything: the grader throws the board away.
#
# ### Exercise 02.1 · let the host work meanwhile
#
# *Practises:* asynchronous calls return at once, so the host can do its own work while the
# device runs.
#
# Besides the vector addition, the host has 8 ms of its own work to do for the next batch:
# `prepare_next_batch()` below. Done one after the other that makes 11.7 + 8 ms. Compute
# `a + b` on the device with `add` (one stream is enough) and call `prepare_next_batch()`
# once, so that the two run at the same time. The grader wants:
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
# 每个练习都是一个由你补全的函数。`sandbox.teach.check("02.1", solution)` 在一块属于它自己的全新
# 模拟 310B 上运行**你的**函数，每次使用新生成的输入向量，并根据 trace 评判整次运行：和是否正确，是否
# 由设备算出，Host 是否在数据落地后才读取，以及练习给出的各项数字。调用你的函数之前，评分器已经初始化
# acl 并设置了设备 0（这些练习不考察 1 秒的 `aclrtSetDevice`）；流、缓冲区和事件由你创建。不要在解答中
# 调用 `board()` 或 `sandbox.configure()`：评分器的机器是它自己的。你不需要释放任何东西：评分器会丢弃这块板卡。
#
# ### 练习 02.1 · 让 Host 同时工作
#
# *练习内容：* 异步调用立即返回，所以设备运行时 Host 可以做自己的工作。
#
# 除了向量加法，Host 还要为下一批数据做 8 ms 自己的工作：下面的 `prepare_next_batch()`。一个接一个地做
# 共需 11.7 + 8 ms。用 `add` 在设备上计算 `a + b`（一条流就够了），并调用一次 `prepare_next_batch()`，
# 让两者同时进行。评分器要求：
#
# * 和正确，由设备计算、拷回，并在 Host 得知它已落地之后读取；
# * 只用异步拷贝（不用 `aclrtMemcpy`），拷入 8 MiB，拷出 4 MiB；
# * 8 ms 的 Host 工作中至少 **90 %** 在设备忙碌时完成；
# * **至多一次**同步（用 `acl.rt.stream_query` 轮询也可以）；
# * 从函数开始到看到设备完成的那次等待结束，至多 **13 ms**（设备本身需要 11.7 ms）。

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
#   (the seed measured 8.5 ms; 9 ms leaves room for the fill and drain of the pipeline).
#   Creating streams, buffers and events before the first copy is not counted.
#
# Hints: one stream cannot overlap; chunks on two streams can; an event recorded after a
# chunk's loads lets the compute stream wait for them, and one recorded after its copy back
# keeps the slot from being reused too early.

# %% [markdown] lang="zh"
# ### 练习 02.2 · 流水线化
#
# *练习内容：* 双缓冲：分块放在两条流上，由事件排序，使拷贝与计算重叠。
#
# 为评分器给出的 `a` 和 `b` 亲自写出双缓冲的向量加法（notebook 中的 `double_buffered` 自己创建板卡和
# 输入，所以不能作为答案）。块数和槽位数由你决定。评分器要求：
#
# * 和正确，由 `add` 在设备上对全部 N 个元素计算、拷回，并在 Host 得知它已落地之后读取；
# * 设备任务在**两条或更多流**上，由**事件**排序（至少有一次 `aclrtStreamWaitEvent`，让一条流等待另一条流
#   上记录的事件），并且没有数据竞争：一个槽位中的数据在完成加法和拷回之前不会被覆盖；
# * 异步拷贝，每个字节只传输一次：拷入 8 MiB，拷出 4 MiB；
# * 至少 **80 %** 的计算与拷贝重叠；
# * 从你的第一次拷贝到看到设备完成的那次等待结束，至多 **9 ms**（种子测得 8.5 ms；9 ms 为流水线的填充
#   和排空留出余量）。第一次拷贝之前创建流、缓冲区和事件的时间不计入。
#
# 提示：一条流无法重叠；两条流上的分块可以；在一块数据加载完后记录的事件让计算流等待它们，在它拷回
# 之后记录的事件防止槽位被过早复用。

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
# ## Official samples for this topic
#
# The memory samples pair each copy with its blocking or asynchronous form: host to device
# [1_h2d_sync_memory_copy.py](../examples/1_basic_features/memory/1_h2d_sync_memory_copy.py) and
# [2_h2d_async_memory_copy.py](../examples/1_basic_features/memory/2_h2d_async_memory_copy.py),
# device to host
# [3_d2h_sync_memory_copy.py](../examples/1_basic_features/memory/3_d2h_sync_memory_copy.py) and
# [4_d2h_async_memory_copy.py](../examples/1_basic_features/memory/4_d2h_async_memory_copy.py),
# device to device
# [5_d2d_sync_memory_copy.py](../examples/1_basic_features/memory/5_d2d_sync_memory_copy.py) and
# [6_d2d_async_memory_copy.py](../examples/1_basic_features/memory/6_d2d_async_memory_copy.py). Each
# asynchronous copy is followed by a synchronize; the port of 5 adds the synchronize its sample
# lacks before the blocking copy, because a blocking copy is not ordered with a stream's kernels
# (sample 3 has its own).
# [1_random_num_task.py](../examples/2_advanced_features/built_in_task/1_random_num_task.py) queues
# the runtime's built-in random-number task, another asynchronous task on a stream: its numbers are in
# device memory only once the stream has reached it, so each draw is synchronized before it is copied
# back. Notebook [11_official_samples](11_official_samples.ipynb), section 1.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# 内存示例把每种拷贝的阻塞形式和异步形式配成一对：Host 到设备是
# [1_h2d_sync_memory_copy.py](../../examples/1_basic_features/memory/1_h2d_sync_memory_copy.py) 和
# [2_h2d_async_memory_copy.py](../../examples/1_basic_features/memory/2_h2d_async_memory_copy.py)，设备到 Host 是
# [3_d2h_sync_memory_copy.py](../../examples/1_basic_features/memory/3_d2h_sync_memory_copy.py) 和
# [4_d2h_async_memory_copy.py](../../examples/1_basic_features/memory/4_d2h_async_memory_copy.py)，设备到设备是
# [5_d2d_sync_memory_copy.py](../../examples/1_basic_features/memory/5_d2d_sync_memory_copy.py) 和
# [6_d2d_async_memory_copy.py](../../examples/1_basic_features/memory/6_d2d_async_memory_copy.py)。每次异步拷贝之后都有一次同步；5
# 的移植版本在阻塞拷贝之前补上了示例缺少的同步，因为阻塞拷贝与流上的核函数之间没有顺序（示例 3 自己有这次同步）。
# [1_random_num_task.py](../../examples/2_advanced_features/built_in_task/1_random_num_task.py) 下发运行时内置的随机数生成任务，
# 这是流上的另一种异步任务：流执行到它之后，随机数才出现在设备内存中，所以每次生成之后都先同步，再拷回。notebook
# [11_official_samples](11_official_samples.ipynb) 第 1 节。

# %% [markdown]
# ## Summary
#
# Asynchronous calls only queue work, so the host is free as soon as they return: it can do
# its own work while the device runs, and must synchronise (or query) before it reads what
# the device wrote. One stream still runs its tasks one after another; to make the DMA engine
# and the AI Core work at the same time, split the data into chunks, put loads and adds on
# different streams, and order them with events (record on one stream, wait on the other).
# Next, notebook 03 looks at streams and events themselves: ordering, timing, querying and
# priorities.

# %% [markdown] lang="zh"
# ## 小结
#
# 异步调用只是把任务放入队列，所以调用一返回 Host 就空闲了：设备运行时它可以做自己的工作，而在读取设备
# 写入的数据之前必须同步（或查询）。一条流仍然一个接一个地运行它的任务；要让 DMA 引擎和 AI Core 同时
# 工作，就把数据分块，把加载和加法放到不同的流上，并用事件排序（在一条流上记录，在另一条流上等待）。
# 下一个是 notebook 03：流和事件本身——排序、计时、查询和优先级。

