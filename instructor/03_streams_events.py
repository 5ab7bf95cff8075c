# %% [markdown]
# # 03 · Streams and events
#
# A **stream** is an in-order queue of device work; different streams run independently, so
# their tasks may run at the same time. An **event** is a marker placed in a stream: it
# completes when the work queued before it has finished. Events let one stream wait for
# another without stopping the host, let the host wait for one point in a stream, and time
# device work.
#
# | C | Python | what it does |
# |---|---|---|
# | `aclrtCreateStream(&s)` | `s, ret = acl.rt.create_stream()` | a new in-order queue |
# | `aclrtCreateStreamWithConfig(&s, priority, flag)` | `s, ret = acl.rt.create_stream_with_config(priority, flag)` | with a priority (0 highest … 7 lowest) |
# | `aclrtCreateEvent(&e)` | `e, ret = acl.rt.create_event()` | an event |
# | `aclrtRecordEvent(e, s)` | `acl.rt.record_event(e, s)` | mark "everything queued on `s` so far" |
# | `aclrtStreamWaitEvent(s2, e)` | `acl.rt.stream_wait_event(s2, e)` | later work of `s2` waits for that mark |
# | `aclrtSynchronizeEvent(e)` | `acl.rt.synchronize_event(e)` | the host waits for the mark |
# | `aclrtQueryEventStatus(e, &st)` | `st, ret = acl.rt.query_event_status(e)` | has the mark been reached? (never waits) |
# | `aclrtStreamQuery(s, &st)` | `st, ret = acl.rt.stream_query(s)` | is the stream idle? (never waits) |
# | `aclrtEventElapsedTime(&ms, e0, e1)` | `ms, ret = acl.rt.event_elapsed_time(e0, e1)` | device time between two marks |
#
# On the device, the **Task Scheduler** takes each stream's tasks in order and hands them to the
# engines (AI Cores, DMA); it starts a task only when the one before it in its stream is done and
# every event it waits for has completed. That is all the ordering there is: what two streams do
# relative to each other is decided only by the events between them.
#
# **After this notebook** you can run independent work side by side on several streams, order
# streams with events instead of host waits, time device work with events, choose between a
# query and a synchronize, and say what a stream priority does and what it does not.
# **It assumes** notebooks 01 and 02.

# %% [markdown] lang="zh"
# # 03 · 流和事件
#
# **流（stream）**是设备任务的按序队列；不同的流相互独立地运行，所以它们的任务可以同时运行。**事件（event）**
# 是放在流中的一个标记：排在它之前的任务完成时它才完成。事件可以让一条流等待另一条流而不让 Host 停下，
# 让 Host 等待流中的某一点，还可以为设备任务计时。
#
# | C | Python | 作用 |
# |---|---|---|
# | `aclrtCreateStream(&s)` | `s, ret = acl.rt.create_stream()` | 新建一个按序队列 |
# | `aclrtCreateStreamWithConfig(&s, priority, flag)` | `s, ret = acl.rt.create_stream_with_config(priority, flag)` | 带优先级（0 最高 … 7 最低） |
# | `aclrtCreateEvent(&e)` | `e, ret = acl.rt.create_event()` | 一个事件 |
# | `aclrtRecordEvent(e, s)` | `acl.rt.record_event(e, s)` | 标记“到目前为止放入 `s` 的所有任务” |
# | `aclrtStreamWaitEvent(s2, e)` | `acl.rt.stream_wait_event(s2, e)` | `s2` 之后的任务等待这个标记 |
# | `aclrtSynchronizeEvent(e)` | `acl.rt.synchronize_event(e)` | Host 等待这个标记 |
# | `aclrtQueryEventStatus(e, &st)` | `st, ret = acl.rt.query_event_status(e)` | 标记是否已到达？（从不等待） |
# | `aclrtStreamQuery(s, &st)` | `st, ret = acl.rt.stream_query(s)` | 流是否空闲？（从不等待） |
# | `aclrtEventElapsedTime(&ms, e0, e1)` | `ms, ret = acl.rt.event_elapsed_time(e0, e1)` | 两个标记之间的设备时间 |
#
# 在设备上，**任务调度器（Task Scheduler）**按顺序取出每条流的任务并交给各引擎（AI Core、DMA）；只有当同一
# 条流中前一个任务完成、且它等待的每个事件都已完成时，它才启动一个任务。排序就只有这些：两条流之间的先后
# 关系只由它们之间的事件决定。
#
# **学完本 notebook**，你能在多条流上并行运行相互独立的任务，用事件而不是 Host 等待为流排序，用事件为设备
# 任务计时，在查询与同步之间做出选择，并说清流优先级能做什么、不能做什么。**前提**：notebook 01 和 02。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import numpy as np

import sandbox
from sandbox import acl, teach

HUGE = acl.ACL_MEM_MALLOC_HUGE_FIRST
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST


@sandbox.kernel(ns=2_000_000)                 # 2 ms
def long_op(x: "uint32*"):
    x[0] += 1


@sandbox.kernel(ns=100_000)                   # 0.1 ms
def short_op(x: "uint32*"):
    x[0] *= 2


@sandbox.kernel(ns=lambda t: t)               # as long as we ask, touching no memory
def work(t: int):
    pass


def fresh(profile="ascend910b", devices=None):
    """A fresh machine with acl initialised and device 0 set."""
    sandbox.configure(profile, devices)
    acl.init()
    acl.rt.set_device(0)

# %% [markdown]
# ## Several streams run at the same time
#
# The 910B has 24 AI Cores. A kernel launched with `block_dim` 8 takes 8 of them, so three such
# kernels can run together — if they are on different streams. On one stream they queue.

# %% [markdown] lang="zh"
# ## 多条流同时运行
#
# 910B 有 24 个 AI Core。以 `block_dim` 8 下发的核函数占用其中 8 个，所以三个这样的核函数可以同时运行——
# 前提是它们在不同的流上。在同一条流上它们会排队。

# %%
def three_kernels(streams):
    fresh()
    ss = [acl.rt.create_stream()[0] for _ in range(streams)]
    teach.mark("start")
    for i in range(3):
        work[8, ss[i % streams]](1_000_000)
    acl.rt.synchronize_device()
    teach.mark("end")
    return teach.window(start="start", end="end")


for n in (1, 3):
    lo, hi = three_kernels(n)
    print(f"{n} stream{'s' if n > 1 else ''}: three 1 ms kernels took {(hi - lo) / 1e6:.3f} ms")

# %% [markdown]
# ## Forgetting the stream: everything lands on the default stream
#
# The seed warns that an asynchronous call must be given a stream, "otherwise it uses the null
# stream and the asynchrony is lost". Half of that holds. Passing `0` (C: `NULL`) puts the task
# on the **default stream** of the current context. The call still returns at once — the host
# stays asynchronous — and the default stream does not synchronise with the other streams (unlike
# CUDA's legacy default stream; runtime developer guide). What is lost is the **device's**
# concurrency: every task given stream 0 joins one in-order queue, so independent work meant to
# run side by side runs one after another. A 16 MiB copy and an unrelated 1 ms kernel, first on
# two streams, then both on stream 0:

# %% [markdown] lang="zh"
# ## 忘了指定流：一切都落到默认流上
#
# 种子提醒：异步调用必须绑定流，“否则默认使用空 Stream，导致异步失效”。这话只对了一半。传入 `0`（C 中为
# `NULL`）会把任务放到当前上下文的**默认流**上。调用仍然立即返回——Host 依然是异步的——而且默认流不会与其他
# 流同步（这与 CUDA 传统的默认流不同；见运行时开发指南）。失去的是**设备**的并发：所有传入流 0 的任务都加入
# 同一个按序队列，本想并行运行的独立任务变成一个接一个地运行。下面是一个 16 MiB 的拷贝和一个与它无关的
# 1 ms 核函数，先放在两条流上，再都放在流 0 上：

# %%
@sandbox.kernel(ns=1_000_000)                 # 1 ms on its own buffer
def independent(x: "uint8*"):
    pass


def copy_and_kernel(streams):
    fresh()
    ss = [acl.rt.create_stream()[0] for _ in range(2)] if streams == "two streams" else [0, 0]
    host, _ = acl.rt.malloc_host(16 << 20)
    dev_in, _ = acl.rt.malloc(16 << 20, HUGE)
    dev_other, _ = acl.rt.malloc(4096, HUGE)
    t0 = sandbox.now()
    acl.rt.memcpy_async(dev_in, 16 << 20, host, 16 << 20, H2D, ss[0])   # C: stream or NULL
    independent[8, ss[1]](dev_other)
    queued = sandbox.now() - t0
    acl.rt.synchronize_device()
    print(f"{streams:<15}: the host queued both in {queued / 1e3:.1f} µs; "
          f"the device finished after {(sandbox.now() - t0) / 1e6:.3f} ms")


copy_and_kernel("two streams")
copy_and_kernel("stream 0")

# %% [markdown]
# ## How many streams?
#
# Streams are not free. Each one takes a hardware queue on the device and host time to create
# (50 µs in this profile, an assumption), and a device has a fixed number of them: 512 on the
# 310B, 1984 on the 910B, counting the default streams (API reference). Past that,
# `aclrtCreateStream` fails with 207008 `ACL_ERROR_RT_NO_STREAM_RESOURCE`. More streams than
# there are independent chains of work buy nothing either: the engines are shared, so two
# streams help only where there is something for one engine to do while another works. Create
# the few streams a program needs at the start, reuse them, and destroy them at the end.

# %% [markdown] lang="zh"
# ## 多少条流合适？
#
# 流不是免费的。每条流占用设备上的一个硬件队列，创建它要花 Host 时间（本配置中为 50 µs，属假设），而且一个
# 设备的流数量是固定的：310B 上 512 条，910B 上 1984 条，默认流也计算在内（API 参考）。超过之后，
# `aclrtCreateStream` 以 207008 `ACL_ERROR_RT_NO_STREAM_RESOURCE` 失败。流的数量多于相互独立的任务链也没有
# 好处：引擎是共享的，只有当一个引擎工作时另一个引擎有事可做，两条流才有帮助。在开始时创建程序需要的少数
# 几条流，重复使用它们，最后再销毁。

# %%
fresh("ascend310b")
t0, made = sandbox.now(), 0
while True:
    _, ret = acl.rt.create_stream()
    if ret != 0:
        break
    made += 1
print(f"created {made} streams in {(sandbox.now() - t0) / 1e6:.1f} ms of host time, then: {ret}")
print(acl.get_recent_err_msg())

# %%
sandbox.gantt(view="physical")

# %% [markdown]
# (The physical view puts each concurrently running kernel in its own AI Core lane.)
#
# ## Ordering two streams: the official multi-stream sample
#
# The runtime repository's stream sample (`example/1_basic_features/stream/2_multi_stream`) runs
# a long kernel (`x += 1`) on stream 1 and a short one (`x *= 2`) on stream 2, on the same
# number `x = 0`. The intended answer is 2: first add, then double. The sample shows three ways
# to get that order; we take two of them:
#
# 1. **stream synchronisation**: the host waits for stream 1 before launching on stream 2;
# 2. **event synchronisation**: record an event on stream 1, make stream 2 wait for it; the
#    host waits only at the end (on an event recorded after the short kernel).
#
# Without any ordering the short kernel, being ready first, runs first: (0 × 2) + 1 = 1.
# The sandbox says so as it happens: the unordered run raises a `HazardWarning` (under the
# cell) naming the two streams that touch `dev_x` with nothing ordering them. That warning is
# the point of this section; notebook 09b explains how the sandbox finds such races.

# %% [markdown] lang="zh"
# （物理视图把每个并发运行的核函数放在各自的 AI Core 通道中。）
#
# ## 为两条流排序：官方多流示例
#
# 运行时仓库的流示例（`example/1_basic_features/stream/2_multi_stream`）在同一个数 `x = 0` 上，在流 1 上运行
# 一个长核函数（`x += 1`），在流 2 上运行一个短核函数（`x *= 2`）。预期答案是 2：先加，再翻倍。示例展示了
# 三种得到这个顺序的方法；我们采用其中两种：
#
# 1. **流同步**：Host 在流 2 上下发之前等待流 1；
# 2. **事件同步**：在流 1 上记录一个事件，让流 2 等待它；Host 只在最后等待（等待在短核函数之后记录的事件）。
#
# 没有任何排序时，先就绪的短核函数先运行：(0 × 2) + 1 = 1。沙箱会当场指出这一点：无序的那次运行会产生一个
# `HazardWarning`（显示在单元下方），指出有两条流访问 `dev_x` 而没有任何东西为它们排序。这个警告正是本节的
# 要点；notebook 09b 会解释沙箱如何发现这类数据竞争。

# %%
def two_streams(order):
    fresh()
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    x = np.zeros(1, np.uint32)
    dev_x, _ = acl.rt.malloc(4, HUGE)
    acl.rt.memcpy(dev_x, 4, acl.util.numpy_to_ptr(x), 4, H2D)
    long_op[1, s1](dev_x)
    if order == "stream":
        acl.rt.synchronize_stream(s1)           # C: aclrtSynchronizeStream(stream1);
    elif order == "event":
        ev, _ = acl.rt.create_event()           # C: aclrtCreateEvent(&event);
        acl.rt.record_event(ev, s1)             # C: aclrtRecordEvent(event, stream1);
        acl.rt.stream_wait_event(s2, ev)        # C: aclrtStreamWaitEvent(stream2, event);
    short_op[1, s2](dev_x)                      # unordered: a HazardWarning (notebook 09b)
    acl.rt.synchronize_device()
    acl.rt.memcpy(acl.util.numpy_to_ptr(x), 4, dev_x, 4, D2H)
    return int(x[0])


for order in ("none", "stream", "event"):
    print(f"ordering by {order:>6}: x = {two_streams(order)}, "
          f"synchronize calls: {teach.sync_calls()}")

# %% [markdown]
# The last run (event ordering) in the logical view: the arrow goes from the event record on
# stream 1 to the wait on stream 2 that it released. The host never stopped between the two
# launches.

# %% [markdown] lang="zh"
# 逻辑视图中的最后一次运行（事件排序）：箭头从流 1 上的事件记录指向它所放行的流 2 上的等待。Host 在两次下发
# 之间从未停下。

# %%
sandbox.gantt()

# %% [markdown]
# ## Timing with events
#
# The runtime's own timing sample (`example/1_basic_features/event/1_event_timestamp`) records
# an event before and one after a task, synchronises, and asks for the elapsed time — first
# for a short task, then for a long one. Event times are read from the device's timestamp
# counter, so they come in whole ticks: 20 ns on the 910B (a 50 MHz counter) and 1/48 000 ms ≈
# 20.8 ns on the 310B.
#
# Notice what the interval holds besides the kernel body: the start event completes as soon as
# it reaches the device, but the kernel arrives only when the host's launch call is done (8.6 µs
# on the 910B, 15 µs on the slower 310B board CPU), and the device needs a few µs to start it.
# For short kernels that overhead dominates.

# %% [markdown] lang="zh"
# ## 用事件计时
#
# 运行时自带的计时示例（`example/1_basic_features/event/1_event_timestamp`）在一个任务之前和之后各记录一个
# 事件，同步，然后查询耗时——先是一个短任务，再是一个长任务。事件的时间读自设备的时间戳计数器，所以以整数个
# tick 计：910B 上 20 ns（50 MHz 计数器），310B 上 1/48 000 ms ≈ 20.8 ns。
#
# 注意区间中除了核函数本身还包含什么：开始事件一到达设备就完成，但核函数要等 Host 的下发调用完成后才到达
# （910B 上 8.6 µs，较慢的 310B 板载 CPU 上 15 µs），设备还需要几微秒来启动它。对于短核函数，这些开销占了大头。

# %%
def time_kernel(profile, ns):
    fresh(profile)
    s, _ = acl.rt.create_stream()
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    acl.rt.record_event(start, s)               # C: aclrtRecordEvent(startEvent, stream);
    work[1, s](ns)
    acl.rt.record_event(end, s)                 # C: aclrtRecordEvent(endEvent, stream);
    acl.rt.synchronize_stream(s)
    ms, ret = acl.rt.event_elapsed_time(start, end)   # C: aclrtEventElapsedTime(&ms, startEvent, endEvent);
    return ms, ret


for profile in ("ascend910b", "ascend310b"):
    res = sandbox.get_profile(profile).timer_resolution_ns
    for ns in (1_000, 50_000):
        ms, ret = time_kernel(profile, ns)
        print(f"{profile}: kernel body {ns / 1e3:>4.0f} µs -> elapsed {ms:.6f} ms "
              f"(ret {ret}, timer resolution {res:.1f} ns)")

# %% [markdown]
# Asking for the elapsed time **before** the end event has completed is an error, not a wrong
# number: the end event's timestamp is not set yet, and the runtime returns 107006
# `ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID` (hicann/runtime `src/runtime/core/src/event/event.cc`,
# `ElapsedTime`).

# %% [markdown] lang="zh"
# 在结束事件完成**之前**查询耗时是一个错误，而不是一个错误的数字：结束事件的时间戳尚未写入，运行时返回 107006
# `ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID`（hicann/runtime `src/runtime/core/src/event/event.cc` 的 `ElapsedTime`）。

# %%
fresh()
s, _ = acl.rt.create_stream()
e0, _ = acl.rt.create_event()
e1, _ = acl.rt.create_event()
acl.rt.record_event(e0, s)
work[1, s](1_000_000)
acl.rt.record_event(e1, s)
ms, ret = acl.rt.event_elapsed_time(e0, e1)
print("without synchronising: ret", ret, ret == acl.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
print(acl.get_recent_err_msg())

# %% [markdown]
# ## Query versus synchronize
#
# The runtime's event-status sample (`example/1_basic_features/event/0_event_status`) queries an
# event three times: right after creating it, after recording it behind a long task, and after
# synchronising. A query answers at once and never waits; a synchronize blocks the host until
# the device gets there. (The seed's code calls `aclrtQueryEvent`: that is the older,
# deprecated name of this query. Its status values are numbered the other way round, with
# `ACL_EVENT_STATUS_COMPLETE` 0, so compare with the named constants, never with 0 or 1.)

# %% [markdown] lang="zh"
# ## 查询与同步
#
# 运行时的事件状态示例（`example/1_basic_features/event/0_event_status`）查询一个事件三次：刚创建时、在一个
# 长任务之后记录它之后、以及同步之后。查询立即回答，从不等待；同步则阻塞 Host，直到设备到达那一点。（种子的
# 代码调用的是 `aclrtQueryEvent`：这是该查询较早的、已弃用的名称。它的状态值编号方向相反，
# `ACL_EVENT_STATUS_COMPLETE` 为 0，所以要与命名常量比较，不要与 0 或 1 比较。）

# %%
fresh()
s, _ = acl.rt.create_stream()
ev, _ = acl.rt.create_event()
names = {acl.ACL_EVENT_RECORDED_STATUS_COMPLETE: "complete",
         acl.ACL_EVENT_RECORDED_STATUS_NOT_READY: "not ready"}
status, _ = acl.rt.query_event_status(ev)           # C: aclrtQueryEventStatus(event, &status);
print("just created:        ", names[status])
work[1, s](2_000_000)
acl.rt.record_event(ev, s)
status, _ = acl.rt.query_event_status(ev)
print("recorded, not synced:", names[status])
acl.rt.synchronize_event(ev)                        # C: aclrtSynchronizeEvent(event);
status, _ = acl.rt.query_event_status(ev)
print("after synchronize:   ", names[status])

# %% [markdown]
# A query loop (polling) also gets there, but it keeps the host thread busy the whole time,
# and every query is a runtime call. Compare with one synchronize:

# %% [markdown] lang="zh"
# 查询循环（轮询）也能等到结果，但它让 Host 线程一直忙着，而且每次查询都是一个运行时调用。与一次同步相比：

# %%
def wait_by(how):
    fresh()
    s, _ = acl.rt.create_stream()
    work[1, s](2_000_000)
    before, polls = sandbox.now(), 0
    if how == "polling":
        while acl.rt.stream_query(s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:   # C: aclrtStreamQuery(stream, &status)
            polls += 1
    else:
        acl.rt.synchronize_stream(s)
    return (sandbox.now() - before) / 1e6, polls, teach.api_calls()


for how in ("polling", "synchronize"):
    waited, polls, calls = wait_by(how)
    print(f"{how:>11}: host waited {waited:.3f} ms, {polls} not-ready answers, {calls} runtime calls in all")

# %% [markdown]
# ## Stream priority
#
# `aclrtCreateStreamWithConfig(&stream, priority, flag)` sets a priority from 0 (highest) to 7
# (lowest). It does not preempt anything: when several streams' tasks are waiting for the same
# engine, the highest-priority one goes first. The 910B honours it; the 310B and 310P ignore it
# (their streams all report priority 0).
#
# Below, a kernel that takes every AI Core runs first; then a low-priority stream and, later, a
# high-priority stream each queue a kernel that also needs every core.
#
# Which work deserves a high priority? The seed advises "compute-intensive tasks on
# high-priority streams, I/O-intensive ones on their own streams". Priority decides only which
# **waiting** task an engine takes next, among tasks that want the **same** engine; it never
# stops a running one. A copy stream and a compute stream use different engines, so priority
# between them changes nothing. Give a high priority to the work whose **latency** matters —
# a small, urgent request that must not queue behind bulk work on the same cores — and leave
# throughput work at the default. (The runtime's overview also lists "performance-degradation
# protection" among its features without saying what it is; we found no documented call or
# setting behind it, so this course does not teach it.)
#
# The `acl.rt.stream_get_priority` below (C `aclrtStreamGetPriority`), which reads the priority
# back, is not in pyACL: it runs on the sandbox, not with `import acl` on a board.

# %% [markdown] lang="zh"
# ## 流优先级
#
# `aclrtCreateStreamWithConfig(&stream, priority, flag)` 设置从 0（最高）到 7（最低）的优先级。它不会抢占任何
# 东西：当多条流的任务在等待同一个引擎时，优先级最高的先执行。910B 支持它；310B 和 310P 忽略它（它们的流都
# 报告优先级 0）。
#
# 下面，一个占满所有 AI Core 的核函数先运行；然后一条低优先级的流和稍后一条高优先级的流各放入一个同样需要
# 所有核的核函数。
#
# 哪些任务值得高优先级？种子建议“计算密集型任务使用高优先级 Stream，I/O 密集型任务使用独立 Stream”。优先级只
# 决定一个引擎接下来从**等待中**的任务里取哪一个，而且只在想要**同一个**引擎的任务之间起作用；它从不停止正在
# 运行的任务。拷贝流和计算流使用不同的引擎，所以它们之间的优先级什么也不改变。把高优先级给**延迟**要紧的任务——
# 一个不能排在同一批核上的大批量任务后面的、小而紧急的请求——吞吐型任务保持默认即可。（运行时概览还把“性能
# 降级保护”列为特性之一，但没有说明它是什么；我们没有找到与之对应的文档化调用或设置，所以本课程不讲它。）
#
# 下面读回优先级用的 `acl.rt.stream_get_priority`（C 的 `aclrtStreamGetPriority`）不在 pyACL 中：它在沙箱里
# 可用，在板卡上的 `import acl` 里没有。

# %%
def priorities(profile):
    fresh(profile)
    cores = sandbox.profile().ai_cores
    first, _ = acl.rt.create_stream()
    low, _ = acl.rt.create_stream_with_config(7, 0)     # C: aclrtCreateStreamWithConfig(&low, 7, 0);
    high, _ = acl.rt.create_stream_with_config(0, 0)
    work[cores, first](1_000_000)
    work[cores, low](1_000_000)                     # queued first
    work[cores, high](1_000_000)                    # queued second
    acl.rt.synchronize_device()
    ran = sorted((r.t, r.task) for r in sandbox.trace() if type(r).__name__ == "TaskStarted")
    order = {2: "low", 3: "high"}
    got = [acl.rt.stream_get_priority(h)[0] for h in (low, high)]
    print(f"{profile}: priorities reported {got}; after the first kernel ran: "
          f"{' then '.join(order[t] for _, t in ran if t in order)}")


priorities("ascend910b")
priorities("ascend310b")

# %% [markdown]
# ## Events and devices (briefly)
#
# An event belongs to the device that was current when it was created. Recording it on, or
# making a stream wait for it from, a stream of **another** device fails with
# `ACL_ERROR_RT_STREAM_CONTEXT` (107003). The host may still synchronise on or query an event
# of another device. Notebook 05 covers multi-device programs in full.

# %% [markdown] lang="zh"
# ## 事件与设备（简述）
#
# 事件属于创建它时的当前设备。在**另一个**设备的流上记录它，或让另一个设备的流等待它，都会以
# `ACL_ERROR_RT_STREAM_CONTEXT`（107003）失败。Host 仍然可以同步或查询另一个设备的事件。notebook 05 完整地讲解
# 多设备程序。

# %%
fresh("ascend910b", 2)
s0, _ = acl.rt.create_stream()
ev0, _ = acl.rt.create_event()                       # an event of device 0
acl.rt.record_event(ev0, s0)
acl.rt.set_device(1)
s1, _ = acl.rt.create_stream()                       # a stream of device 1
ret = acl.rt.record_event(ev0, s1)
print("record a device-0 event on a device-1 stream:", ret, ret == acl.ACL_ERROR_RT_STREAM_CONTEXT)
print(acl.get_recent_err_msg())
print("synchronize it from device 1:", acl.rt.synchronize_event(ev0))

# %% [markdown]
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("03.1", solution)`
# runs **your** function on a fresh simulated 910B of its own, with inputs it makes up each
# time, and judges the whole run from the trace: the kernels that ran, on which streams, in
# which order and what waited for what, as well as the answer and the numbers the exercise
# states. Before it calls your function the grader has initialised acl and set device 0, so do
# not call `fresh()` or `sandbox.configure()` in a solution; create your own streams, events
# and buffers. You need not free anything: the grader throws the machine away.
#
# ### Exercise 03.1 · run independent work side by side
#
# *Practises:* streams run independently, so kernels on different streams share the AI Cores.
#
# Four kernels `work[6, s](t)` (each takes `t` ns on 6 of the 24 AI Cores) have no dependencies.
# Launch them so that they run at the same time, then wait for them. The grader checks:
#
# * exactly four kernels, each `work[6, s](t)` with the `t` you are given;
# * each on its own stream, and all four running at the same moment;
# * no wait of the host (synchronize, query, sleep) between the launches; a wait at the end
#   that sees them finish;
# * at most **t + 0.5 ms** from the start of your function to the end of that wait.

# %% [markdown] lang="zh"
# ## 练习
#
# 每个练习都是一个由你补全的函数。`sandbox.teach.check("03.1", solution)` 在一台属于它自己的全新模拟 910B 上
# 运行**你的**函数，每次使用新生成的输入，并根据 trace 评判整次运行：运行了哪些核函数、在哪些流上、以什么
# 顺序、谁等待了谁，以及答案和练习给出的各项数字。调用你的函数之前，评分器已经初始化 acl 并设置了设备 0，
# 所以不要在解答中调用 `fresh()` 或 `sandbox.configure()`；自己创建流、事件和缓冲区。你不需要释放任何东西：
# 评分器会丢弃这台机器。
#
# ### 练习 03.1 · 并行运行相互独立的任务
#
# *练习内容：* 流相互独立地运行，所以不同流上的核函数共享 AI Core。
#
# 四个核函数 `work[6, s](t)`（每个在 24 个 AI Core 中的 6 个上运行 `t` ns）之间没有依赖。下发它们，让它们同时
# 运行，然后等待它们。评分器检查：
#
# * 恰好四个核函数，每个都是使用给定 `t` 的 `work[6, s](t)`；
# * 每个在自己的流上，四个在同一时刻都在运行；
# * 两次下发之间 Host 没有等待（同步、查询、sleep）；最后有一次看到它们完成的等待；
# * 从函数开始到那次等待结束，至多 **t + 0.5 ms**。

# %% nbgrader={"grade": false, "grade_id": "ex03_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(t):
    """Run four work[6, s](t) kernels side by side on device 0 and wait until they are done."""
    # TODO: create the streams, launch one kernel on each, then wait once.
    # Hint: acl.rt.synchronize_device() waits for every stream of the device.
    ### BEGIN SOLUTION
    streams = [acl.rt.create_stream()[0] for _ in range(4)]
    for s in streams:
        work[6, s](t)
    acl.rt.synchronize_device()
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex03_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("03.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("03.1", solution)

# %% [markdown]
# ### Exercise 03.2 · order with an event, not the host
#
# *Practises:* `aclrtRecordEvent` and `aclrtStreamWaitEvent`: one stream waits for another on
# the device, while the host goes on.
#
# The multi-stream sample again, starting from `x = x0` (a `uint32` the grader gives you): copy
# `x0` to the device, run `long_op` (`x += 1`) on one stream and `short_op` (`x *= 2`) on a
# second stream, and return `x` copied back, a numpy array of shape `(1,)` and dtype `uint32`:
# `(x0 + 1) * 2`. The order must come from an event, not from the host. The grader checks, from
# the trace:
#
# * `x` is right, and is what a device-to-host copy brought back after the kernels, read after
#   the host learnt it had landed;
# * `long_op` once and `short_op` once, on **two different streams**;
# * an `aclrtStreamWaitEvent` on `short_op`'s stream, before it, for an event recorded on
#   `long_op`'s stream after `long_op`; on the device, `short_op` started after `long_op` ended;
# * the host launched `short_op` before `long_op` had ended (it did not wait for it);
# * **at most one** synchronize call in the whole program, at the end. Blocking copies
#   (`acl.rt.memcpy`) are fine for `x`, once the host has synchronised.

# %% [markdown] lang="zh"
# ### 练习 03.2 · 用事件而不是 Host 来排序
#
# *练习内容：* `aclrtRecordEvent` 和 `aclrtStreamWaitEvent`：一条流在设备上等待另一条流，而 Host 继续工作。
#
# 还是多流示例，从 `x = x0` 开始（评分器给出的一个 `uint32`）：把 `x0` 拷贝到设备，在一条流上运行 `long_op`
# （`x += 1`），在第二条流上运行 `short_op`（`x *= 2`），并返回拷回的 `x`，一个形状为 `(1,)`、dtype 为 `uint32`
# 的 numpy 数组：`(x0 + 1) * 2`。顺序必须来自事件，而不是 Host。评分器根据 trace 检查：
#
# * `x` 正确，并且是核函数之后由设备到 Host 的拷贝带回的，在 Host 得知它已落地之后读取；
# * `long_op` 一次、`short_op` 一次，在**两条不同的流**上；
# * 在 `short_op` 的流上、它之前，有一次 `aclrtStreamWaitEvent`，等待在 `long_op` 之后记录于 `long_op` 所在流上
#   的事件；在设备上，`short_op` 在 `long_op` 结束后才开始；
# * Host 在 `long_op` 结束之前就下发了 `short_op`（它没有等待）；
# * 整个程序中**至多一次**同步调用，在最后。Host 同步之后，对 `x` 使用阻塞拷贝（`acl.rt.memcpy`）是可以的。

# %% nbgrader={"grade": false, "grade_id": "ex03_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x0):
    """Return (x0 + 1) * 2 as np.uint32 array of shape (1,): long_op on one stream, then
    short_op on another, ordered by an event."""
    x = np.array([x0], np.uint32)
    # TODO: two streams, a device buffer for x, the copy in, the two launches with an event
    # between the streams, one synchronize, the copy back.
    # Hint: two_streams("event") above does most of it; what must change?
    ### BEGIN SOLUTION
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    dev_x, _ = acl.rt.malloc(4, HUGE)
    acl.rt.memcpy(dev_x, 4, acl.util.numpy_to_ptr(x), 4, H2D)
    ev, _ = acl.rt.create_event()
    long_op[1, s1](dev_x)
    acl.rt.record_event(ev, s1)
    acl.rt.stream_wait_event(s2, ev)
    short_op[1, s2](dev_x)
    acl.rt.synchronize_stream(s2)
    acl.rt.memcpy(acl.util.numpy_to_ptr(x), 4, dev_x, 4, D2H)
    ### END SOLUTION
    return x

# %% nbgrader={"grade": true, "grade_id": "ex03_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("03.2", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("03.2", solution)

# %% [markdown]
# ### Exercise 03.3 · time a kernel without blocking
#
# *Practises:* timing with events, and querying an event instead of synchronising so that the
# host keeps working.
#
# Measure how long `work[1, s](ns)` takes on the device, as the timing sample does, but without
# ever blocking the host: record an event before the kernel and one after it on the same
# stream; then, until the end event has completed, call `other_work()` (below: 50 µs of the
# host's own work) between queries of the end event; then return what
# `acl.rt.event_elapsed_time` says, in milliseconds. The grader checks:
#
# * exactly one kernel, `work[1, s](ns)` with the `ns` you are given;
# * the two events given to `aclrtEventElapsedTime` were recorded on the kernel's stream,
#   before and after it;
# * the value returned is that elapsed time, as the device's timestamps give it (to the tick:
#   a host clock or the nominal `ns` will not do);
# * **no** synchronize call, and `other_work()` running for at least **75 %** of the kernel's
#   time on the device;
# * no failed call (asking for the elapsed time too early fails).

# %% [markdown] lang="zh"
# ### 练习 03.3 · 不阻塞地为核函数计时
#
# *练习内容：* 用事件计时，并用查询事件代替同步，让 Host 继续工作。
#
# 像计时示例那样测量 `work[1, s](ns)` 在设备上的耗时，但始终不阻塞 Host：在同一条流上，在核函数之前和之后各
# 记录一个事件；然后在结束事件完成之前，在两次查询结束事件之间调用 `other_work()`（见下：Host 自己的 50 µs
# 工作）；最后返回 `acl.rt.event_elapsed_time` 给出的毫秒数。评分器检查：
#
# * 恰好一个核函数，使用给定 `ns` 的 `work[1, s](ns)`；
# * 传给 `aclrtEventElapsedTime` 的两个事件记录在核函数所在的流上，分别在它之前和之后；
# * 返回值就是设备时间戳给出的那个耗时（精确到 tick：Host 时钟或名义上的 `ns` 都不行）；
# * **没有**同步调用，并且 `other_work()` 的运行时间至少是核函数设备耗时的 **75 %**；
# * 没有失败的调用（过早查询耗时会失败）。

# %%
def other_work():
    """A slice of the host's own work: 50 µs on the calling thread."""
    sandbox.host_work(50_000, "other work")

# %% nbgrader={"grade": false, "grade_id": "ex03_3", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(ns):
    """Return the device time of work[1, s](ns) in ms, measured with two events, with the host
    calling other_work() while it waits."""
    # TODO: a stream, two events, record / launch / record, a query loop, the elapsed time.
    # Hint: acl.rt.query_event_status(e) returns (status, ret); compare the status with
    # acl.ACL_EVENT_RECORDED_STATUS_COMPLETE.
    ### BEGIN SOLUTION
    s, _ = acl.rt.create_stream()
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    acl.rt.record_event(start, s)
    work[1, s](ns)
    acl.rt.record_event(end, s)
    while acl.rt.query_event_status(end)[0] != acl.ACL_EVENT_RECORDED_STATUS_COMPLETE:
        other_work()
    ms, _ = acl.rt.event_elapsed_time(start, end)
    return ms
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex03_3_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("03.3", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("03.3", solution)

# %% [markdown]
# ## Official samples for this topic
#
# [0_simple_stream.py](../examples/1_basic_features/stream/0_simple_stream.py) (default and created
# streams, aclrtStreamQuery),
# [2_multi_stream.py](../examples/1_basic_features/stream/2_multi_stream.py) (the two streams of the
# section above, ordered in all three ways: a host synchronize, an event, a notify; then
# synchronizes with a timeout that a long kernel outlasts),
# [3_stream_config_query.py](../examples/1_basic_features/stream/3_stream_config_query.py) (a stream
# made from a config handle with aclrtCreateStreamV2, and its id, flags and priority read back),
# [0_event_status.py](../examples/1_basic_features/event/0_event_status.py) (event status before and
# after a record) and
# [1_event_timestamp.py](../examples/1_basic_features/event/1_event_timestamp.py) (timestamps and
# elapsed time). Notebook [11_official_samples](11_official_samples.ipynb), sections 3 and 4.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# [0_simple_stream.py](../../examples/1_basic_features/stream/0_simple_stream.py)（默认流与创建的流、aclrtStreamQuery）、
# [2_multi_stream.py](../../examples/1_basic_features/stream/2_multi_stream.py)（上文那两条流，用全部三种方式排序：Host
# 同步、事件、notify；然后是带超时的同步，一个长核函数运行得比超时更久）、
# [3_stream_config_query.py](../../examples/1_basic_features/stream/3_stream_config_query.py)（用 aclrtCreateStreamV2
# 从流配置句柄创建一条流，再读回它的 id、标志和优先级）、[0_event_status.py](../../examples/1_basic_features/event/0_event_status.py)（记录前后的事件状态）和
# [1_event_timestamp.py](../../examples/1_basic_features/event/1_event_timestamp.py)（时间戳与耗时）。notebook
# [11_official_samples](11_official_samples.ipynb) 第 3、4 节。

# %% [markdown]
# ## Summary
#
# Work on different streams runs side by side; work on one stream runs in order. An event
# recorded on one stream and waited for on another orders the two on the device, without
# stopping the host, and the trace shows that edge. Events also time device work (in whole
# ticks of the device's timer), and a query answers at once where a synchronize blocks, so the
# host can keep working while it waits. Work given no stream lands on the default stream and
# runs in line; streams are limited, so create the few a program needs. Next, notebook 04 turns
# to device memory: allocation policies, pages, pinned copies and fragmentation.

# %% [markdown] lang="zh"
# ## 小结
#
# 不同流上的任务并行运行；同一条流上的任务按顺序运行。在一条流上记录、在另一条流上等待的事件在设备上为两者
# 排序，而不让 Host 停下，trace 中会显示这条边。事件还可以为设备任务计时（以设备计时器的整数 tick 计）；查询
# 立即回答而同步会阻塞，所以 Host 可以一边等待一边工作。忘了指定流的任务都落到默认流上并串行运行；流的数量
# 有上限，按需创建少数几条。下一个是 notebook 04：设备内存——分配策略、页、锁页拷贝和碎片。

