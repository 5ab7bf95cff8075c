# %% [markdown]
# # 03 · Streams and events
#
# **Time:** about 45 minutes. Optional deep dive afterwards: [03x_event_timing](03x_event_timing.ipynb).
#
# A **stream** is an in-order queue of device work; different streams run independently, so
# their tasks may run at the same time. An **event** is a marker placed in one stream: it
# completes when the work queued on that stream before it has finished. Events let one stream
# wait for another without stopping the host, and let the host wait for one point in a stream.
#
# | C | Python | what it does |
# |---|---|---|
# | `aclrtCreateStream(&s)` | `s, ret = acl.rt.create_stream()` | a new in-order queue |
# | `aclrtCreateStreamWithConfig(&s, priority, flag)` | `s, ret = acl.rt.create_stream_with_config(priority, flag)` | a stream with a priority |
# | `aclrtDeviceGetStreamPriorityRange(&least, &greatest)` | `least, greatest, ret = acl.rt.device_get_stream_priority_range()` | the priorities the device accepts |
# | `aclrtCreateEvent(&e)` | `e, ret = acl.rt.create_event()` | an event |
# | `aclrtRecordEvent(e, s)` | `acl.rt.record_event(e, s)` | mark "everything queued on `s` so far" |
# | `aclrtStreamWaitEvent(s2, e)` | `acl.rt.stream_wait_event(s2, e)` | later work of `s2` waits for that mark |
# | `aclrtSynchronizeEvent(e)` | `acl.rt.synchronize_event(e)` | the host waits for the mark |
# | `aclrtQueryEventStatus(e, &st)` | `st, ret = acl.rt.query_event_status(e)` | has the mark been reached? (never waits) |
#
# On the device, the **Task Scheduler** starts a task only when the one before it in its stream
# is done and every event it waits for has completed: only events order two streams.
#
# **After this notebook** you can run independent work side by side on several streams, order
# streams with events instead of host waits, choose between a query and a synchronize, and say
# what a stream priority does and what it does not. **It assumes** notebooks 01 and 02.

# %% [markdown] lang="zh"
# # 03 · Stream 与 Event
#
# **时间**：约 45 分钟。之后可选学深入：[03x_event_timing](03x_event_timing.ipynb)。
#
# **Stream（流）**是 Device（设备）任务的按序队列。不同的 Stream 各自独立运行，它们的任务可以同时执行。
# **Event（事件）**是放在某一条 Stream 里的标记：这条 Stream 上排在它前面的任务全部完成，它才算完成。借助 Event，
# 一条 Stream 可以等待另一条 Stream 而 Host（主机）不必停下；Host 也可以等待 Stream 中的某一点。
#
# | C | Python | 作用 |
# |---|---|---|
# | `aclrtCreateStream(&s)` | `s, ret = acl.rt.create_stream()` | 新建一个按序队列 |
# | `aclrtCreateStreamWithConfig(&s, priority, flag)` | `s, ret = acl.rt.create_stream_with_config(priority, flag)` | 创建带优先级的 Stream |
# | `aclrtDeviceGetStreamPriorityRange(&least, &greatest)` | `least, greatest, ret = acl.rt.device_get_stream_priority_range()` | 查询 Device 支持的优先级范围 |
# | `aclrtCreateEvent(&e)` | `e, ret = acl.rt.create_event()` | 创建 Event |
# | `aclrtRecordEvent(e, s)` | `acl.rt.record_event(e, s)` | 标记“`s` 上到此为止下发的全部任务” |
# | `aclrtStreamWaitEvent(s2, e)` | `acl.rt.stream_wait_event(s2, e)` | `s2` 之后的任务等这个标记 |
# | `aclrtSynchronizeEvent(e)` | `acl.rt.synchronize_event(e)` | Host 等这个标记 |
# | `aclrtQueryEventStatus(e, &st)` | `st, ret = acl.rt.query_event_status(e)` | 标记到了没有？（从不等待） |
#
# 在 Device 上，**任务调度器（Task Scheduler）**只有在同一条 Stream 中的前一个任务已经完成、它所等待的 Event
# 也都已完成时，才启动下一个任务：两条 Stream 之间的先后只由 Event 决定。
#
# **学完本 notebook**，你能把相互独立的任务放到多条 Stream 上并行执行，用 Event 而不是 Host 等待来给 Stream
# 排序，在查询和同步之间做出选择，并说清 Stream 优先级能做什么、不能做什么。**前置**：notebook 01 和 02。

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
# kernels fit on the device together.
#
# **Predict, then run.** Three 1 ms kernels, each on 8 of the 24 cores, are launched first all on
# one stream, then one per stream on three streams. How long does the device take each time?

# %% [markdown] lang="zh"
# ## 多条 Stream 同时运行
#
# 910B 有 24 个 AI Core。以 `block_dim` 8 下发的核函数占用其中 8 个，三个这样的核函数同时放得下。
#
# **先预测，再运行。**三个各占 24 个核中 8 个、各运行 1 ms 的核函数，先全部下发到一条 Stream 上，再分别下发到
# 三条 Stream 上。两次 Device 各要多久？

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
sandbox.gantt(view="physical")

# %% [markdown]
# On one stream they took 3 ms although the cores were free: a stream never overlaps its own
# tasks. On three streams they ran together; the physical view of that last run puts each kernel
# in its own lanes of AI Cores.
#
# ## Forgetting the stream: everything lands on the default stream
#
# A community article on CANN asynchronous execution (not official documentation) warns that an
# asynchronous call must be given a stream, "otherwise it uses the null stream and the asynchrony
# is lost". Half of that holds. Passing `0` (C: `NULL`) puts the task on the **default stream**
# of the current context (the FAQ *如何理解默认Device和默认Stream机制*, `docs/zh/FAQ/` in the CANN
# runtime repository). The call still returns at once: the host stays asynchronous. What is lost
# is the **device's** concurrency: every task given stream 0 joins one queue. A 16 MiB copy and
# an unrelated 1 ms kernel, first on two streams, then both on stream 0:

# %% [markdown] lang="zh"
# 放在一条 Stream 上时，尽管核还空着，它们仍用了 3 ms：一条 Stream 从不让自己的任务重叠。放在三条 Stream 上时，
# 它们同时运行；最后一次运行的物理视图把每个核函数画在它所占的那几条 AI Core 通道上。
#
# ## 忘了指定 Stream：任务全部落到默认 Stream 上
#
# 一篇介绍 CANN 异步执行的社区文章（并非官方文档）提醒：异步接口必须绑定 Stream，“否则默认使用空 Stream，导致
# 异步失效”。这句话只对了一半。传入 `0`（C 中为 `NULL`）会把任务放到当前 Context（上下文）的**默认 Stream** 上
# （见 CANN runtime 仓库 FAQ《如何理解默认Device和默认Stream机制》，位于 `docs/zh/FAQ/`）。调用照样立即返回，Host
# 依然是异步的。真正失去的是 **Device** 上的并发：所有传入 0 的任务都排进同一个队列。下面把一次 16 MiB 的拷贝
# 和一个与它无关的 1 ms 核函数先放在两条 Stream 上，再都放在 Stream 0 上：

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
# ## Ordering two streams: the official multi-stream sample
#
# The runtime repository's stream sample (`example/1_basic_features/stream/2_multi_stream`) runs
# a long kernel (`x += 1`) on stream 1 and a short one (`x *= 2`) on stream 2, on the same
# number `x = 0`. The intended answer is 2: first add, then double. Two of the sample's ways to
# get that order:
#
# 1. **stream synchronisation**: the host waits for stream 1 before launching on stream 2;
# 2. **event synchronisation**: record an event on stream 1, make stream 2 wait for it; the
#    host waits only at the end.
#
# Without any ordering the short kernel, ready first, runs first: (0 × 2) + 1 = 1. The sandbox
# says so as it happens: the unordered run raises a `HazardWarning` naming the two streams that
# touch `dev_x` with nothing ordering them (notebook 09b explains how it finds such races).

# %% [markdown] lang="zh"
# ## 为两条 Stream 排序：官方多 Stream 示例
#
# runtime 仓库的 Stream 示例（`example/1_basic_features/stream/2_multi_stream`）对同一个数 `x = 0`，在 Stream 1 上
# 运行一个长核函数（`x += 1`），在 Stream 2 上运行一个短核函数（`x *= 2`）。预期结果是 2：先加一，再翻倍。示例
# 给出的排序方法中，我们看其中两种：
#
# 1. **Stream 同步**：Host 先等 Stream 1 执行完，再往 Stream 2 下发；
# 2. **Event 同步**：在 Stream 1 上记录一个 Event，让 Stream 2 等待它；Host 只在最后等待一次。
#
# 如果不排序，先就绪的短核函数先执行：(0 × 2) + 1 = 1。沙箱会当场指出问题：无序的那次运行产生一个
# `HazardWarning`，指出有两条 Stream 访问 `dev_x`，而它们之间没有任何排序（沙箱如何发现这类数据竞争，见
# notebook 09b）。

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
sandbox.gantt()

# %% [markdown]
# The timeline is the event-ordered run: the arrow goes from the record on stream 1 to the wait
# it released on stream 2, and the host never stopped. The event marks a point in **stream 1
# only**: work on any other stream is not part of it.
#
# ## Query versus synchronize
#
# The runtime's event-status sample (`example/1_basic_features/event/0_event_status`) asks about
# an event three times: right after creating it, after recording it behind a 2 ms task, and after
# synchronising.
#
# **Predict, then run.** The second query comes while the 2 ms task is still running. Does it
# wait for the task, fail, or answer at once?

# %% [markdown] lang="zh"
# 时间线显示的是最后一次运行（Event 排序）：箭头从 Stream 1 上的 Event 记录指向被它放行的 Stream 2 上的等待，
# 两次下发之间 Host 一刻也没有停。这个 Event 标记的**只是 Stream 1** 中的一点，其他 Stream 上的任务不在其中。
#
# ## 查询与同步
#
# runtime 的 Event 状态示例（`example/1_basic_features/event/0_event_status`）三次查询同一个 Event：刚创建时、
# 把它记录在一个 2 ms 的任务后面之后、同步之后。
#
# **先预测，再运行。**第二次查询发生时，那个 2 ms 的任务还在运行。查询会等任务结束、会报错，还是立即回答？

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
t0 = sandbox.now()
status, _ = acl.rt.query_event_status(ev)
print("recorded, not synced:", names[status], f"(answered in {(sandbox.now() - t0) / 1e3:.1f} µs)")
acl.rt.synchronize_event(ev)                        # C: aclrtSynchronizeEvent(event);
status, _ = acl.rt.query_event_status(ev)
print("after synchronize:   ", names[status])

# %% [markdown]
# A query answers at once and never waits; a synchronize blocks the host until the device gets
# there. (The Runtime programming guide's *Multi-device programming* page,
# `docs/zh/dev_guide/05_multi_device_programming.md`, still names the older `aclrtQueryEvent`;
# *Compatibility handling*, `docs/zh/dev_guide/11_compatibility_handling.md`, marks it deprecated
# in favour of `aclrtQueryEventStatus`. Its status values are numbered the other way round, so
# compare with the named constants, never with 0 or 1.) Polling in a loop costs a runtime call
# per question: notebook 03x measures it.
#
# ## Stream priority
#
# `aclrtCreateStreamWithConfig(&stream, priority, flag)` gives a stream a priority.
# `aclrtDeviceGetStreamPriorityRange` says which numbers the device accepts: the **least**
# priority and the **greatest** one.

# %% [markdown] lang="zh"
# 查询立即回答，从不等待；同步则让 Host 阻塞，直到 Device 执行到那一点。（《Runtime编程指南》“多设备编程”
# （`docs/zh/dev_guide/05_multi_device_programming.md`）里用的仍是较早的 `aclrtQueryEvent`；“兼容性处理”
# （`docs/zh/dev_guide/11_compatibility_handling.md`）已将它标为废弃，改用 `aclrtQueryEventStatus`。两者的状态值
# 编号方向相反，所以要和命名常量比较，不要和 0、1 比较。）在循环里轮询，每问一次就是一次 runtime 调用，
# notebook 03x 会量出它的代价。
#
# ## Stream 优先级
#
# `aclrtCreateStreamWithConfig(&stream, priority, flag)` 为 Stream 指定优先级。
# `aclrtDeviceGetStreamPriorityRange` 告诉你 Device 接受哪些数值：**最低**优先级和**最高**优先级。

# %%
fresh()
least, greatest, ret = acl.rt.device_get_stream_priority_range()   # C: aclrtDeviceGetStreamPriorityRange(&least, &greatest);
print(f"least priority: {least}, greatest priority: {greatest}, ret {ret}")

# %% [markdown]
# The least priority is the **larger** number: 0 is the highest priority, 7 the lowest (the
# runtime's `RT_STREAM_GREATEST_PRIORITY = 0` and `RT_STREAM_LEAST_PRIORITY = 7`,
# `src/runtime/core/inc/spec/base_info.hpp:168-169`; values outside are clamped). When several
# streams' tasks wait for the same engine, the highest-priority one goes next; a running task is
# never preempted (the Runtime programming guide, *Stream management*, "配置Stream优先级",
# `docs/zh/dev_guide/03-02_stream_management.md`). The A2 series (910B) supports priorities;
# the 310B and 310P do not, and their streams report 0 (the API reference, `aclrtStreamAttr`,
# `docs/zh/api_ref/25-02_Enumerations.md`; its page on `aclrtCreateStreamWithConfig` still calls
# `priority` reserved, the sandbox follows the guide).
#
# **Predict, then run.** A kernel that takes every AI Core runs first. Then stream `low`
# (created with priority 7) queues a kernel that also needs every core, and **after** it stream
# `high` (priority 0) does the same. Which of the two runs next on the 910B, and on the 310B?

# %% [markdown] lang="zh"
# 最低优先级是那个**较大**的数：0 为最高优先级，7 为最低（runtime 中 `RT_STREAM_GREATEST_PRIORITY = 0`、
# `RT_STREAM_LEAST_PRIORITY = 7`，见 `src/runtime/core/inc/spec/base_info.hpp:168-169`；超出范围的值会被截到
# 范围内）。当多条 Stream 的任务在等同一个引擎时，优先级最高的先执行；正在运行的任务不会被抢占（《Runtime编程
# 指南》“Stream管理”中的“配置Stream优先级”，`docs/zh/dev_guide/03-02_stream_management.md`）。A2 系列（910B）
# 支持优先级；310B 和 310P 不支持，它们的 Stream 优先级都报告为 0（API 参考 `aclrtStreamAttr`，
# `docs/zh/api_ref/25-02_Enumerations.md`；其中 `aclrtCreateStreamWithConfig` 一页仍把 `priority` 写作预留参数，
# 沙箱以编程指南为准）。
#
# **先预测，再运行。**一个占满全部 AI Core 的核函数先运行。随后 Stream `low`（优先级 7）下发一个同样要用全部核的
# 核函数，**之后** Stream `high`（优先级 0）也下发一个。在 910B 上、在 310B 上，这两个谁先执行？

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
# On the 910B `high` (priority **0**) went first although it was queued second; on the 310B the
# queue order held. Priority only picks which **waiting** task an engine takes next, among tasks
# that want the **same** engine: between a copy stream and a compute stream it changes nothing,
# and it makes nothing faster (an overview article on the CANN runtime, not official
# documentation, advises "compute-intensive tasks on high-priority streams"). Give it to work
# whose **latency** matters. (`acl.rt.stream_get_priority`, C `aclrtStreamGetPriority`, is not
# in pyACL: it runs only on the sandbox.)
#
# ## Exercises
#
# `sandbox.teach.check("03.1", solution)` runs **your** function on a fresh simulated 910B, acl
# initialised and device 0 set, with new inputs each time, and judges the run from the trace. Do
# not call `fresh()` or `sandbox.configure()`; create your own streams, events and buffers.
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
# 在 910B 上，`high`（优先级 **0**）虽然后下发，却先执行；在 310B 上，仍按下发顺序执行。优先级只决定一个引擎
# 接下来从**等待中**的任务里挑哪一个，而且只在要用**同一个**引擎的任务之间起作用：拷贝 Stream 与计算 Stream
# 之间设优先级毫无作用，它也不会让任何任务变快（一篇 CANN Runtime 概述文章——并非官方文档——建议“计算密集型
# 任务使用高优先级 Stream”）。把高优先级留给**时延**要紧的任务。（`acl.rt.stream_get_priority`，即 C 的
# `aclrtStreamGetPriority`，不在 pyACL 中：只能在沙箱里用。）
#
# ## 练习
#
# `sandbox.teach.check("03.1", solution)` 在一台全新的模拟 910B 上运行**你的**函数：acl 已初始化，Device 0 已设置，
# 每次输入都不同，并根据 trace 评判整次运行。不要调用 `fresh()` 或 `sandbox.configure()`；Stream、Event 和缓冲区
# 自己创建。
#
# ### 练习 03.1 · 并行运行相互独立的任务
#
# *练习要点：* Stream 各自独立运行，不同 Stream 上的核函数共享 AI Core。
#
# 四个核函数 `work[6, s](t)`（每个在 24 个 AI Core 中的 6 个上运行 `t` ns）之间没有依赖。把它们下发得能同时运行，
# 然后等它们完成。评分器检查：
#
# * 恰好四个核函数，每个都是用给定 `t` 的 `work[6, s](t)`；
# * 每个在自己的 Stream 上，四个在同一时刻都在运行；
# * 几次下发之间 Host 没有等待（同步、查询、sleep）；最后有一次等待，并看到它们完成；
# * 从函数开始到那次等待结束，不超过 **t + 0.5 ms**。

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
# `(x0 + 1) * 2`. The order must come from an event, not from the host. The grader checks:
#
# * `x` is right, copied back after the kernels and read after the host knew it had landed;
# * `long_op` once and `short_op` once, on **two different streams**;
# * an `aclrtStreamWaitEvent` on `short_op`'s stream, before it, for an event recorded on
#   `long_op`'s stream after `long_op`; on the device, `short_op` started after `long_op` ended;
# * the host launched `short_op` before `long_op` had ended;
# * **at most one** synchronize call, at the end (blocking copies are fine once the host has
#   synchronised).

# %% [markdown] lang="zh"
# ### 练习 03.2 · 用 Event 而不是 Host 来排序
#
# *练习要点：* `aclrtRecordEvent` 与 `aclrtStreamWaitEvent`：一条 Stream 在 Device 上等待另一条，Host 照常往下走。
#
# 还是那个多 Stream 示例，从 `x = x0` 开始（`x0` 是评分器给的一个 `uint32`）：把 `x0` 拷到 Device，在一条 Stream
# 上运行 `long_op`（`x += 1`），在另一条 Stream 上运行 `short_op`（`x *= 2`），返回拷回来的 `x`，即形状为 `(1,)`、
# dtype 为 `uint32` 的 numpy 数组 `(x0 + 1) * 2`。顺序必须来自 Event，而不是 Host。评分器检查：
#
# * `x` 正确，是核函数之后由 Device 到 Host 的拷贝带回的，并且在 Host 确知它已落地之后才读取；
# * `long_op` 和 `short_op` 各一次，在**两条不同的 Stream** 上；
# * `short_op` 所在 Stream 上、在它之前，有一次 `aclrtStreamWaitEvent`，等的是 `long_op` 之后记录在 `long_op`
#   所在 Stream 上的 Event；在 Device 上，`short_op` 在 `long_op` 结束后才开始；
# * Host 在 `long_op` 结束之前就下发了 `short_op`；
# * 同步调用**至多一次**，放在最后（Host 同步之后，用阻塞拷贝没有问题）。

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
# ## Concept check
#
# Answer with letters; the check says why each choice is right or which cell shows the answer.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 用字母作答；检查会说明每个选项为什么对，或者哪个单元格展示了答案。

# %%
teach.questions("03.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "b", 2: "b", 3: "c", 4: "a"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
teach.check("03.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("03.concepts", concepts, isolated=True).score * 4
### END HIDDEN TESTS

# %% [markdown]
# ## Official samples for this topic
#
# [0_simple_stream.py](../examples/1_basic_features/stream/0_simple_stream.py),
# [2_multi_stream.py](../examples/1_basic_features/stream/2_multi_stream.py) (the two streams above,
# ordered by a host synchronize, an event and a notify),
# [3_stream_config_query.py](../examples/1_basic_features/stream/3_stream_config_query.py) and
# [0_event_status.py](../examples/1_basic_features/event/0_event_status.py); notebook
# [11_official_samples](11_official_samples.ipynb), section 3.
#
# ## Summary
#
# Work on different streams runs side by side; work on one stream runs in order. An event
# recorded on one stream and waited for on another orders the two on the device without
# stopping the host. A query answers at once where a synchronize blocks. Work given no stream
# lands on the default stream and runs in line. Priority 0 is the highest; it orders only tasks
# waiting for the same engine. The optional [03x_event_timing](03x_event_timing.ipynb) goes on
# with event flags, timing and the limits; notebook 04 turns to device memory.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# [0_simple_stream.py](../../examples/1_basic_features/stream/0_simple_stream.py)、
# [2_multi_stream.py](../../examples/1_basic_features/stream/2_multi_stream.py)（上文的两条 Stream，分别用 Host
# 同步、Event 和 Notify 排序）、[3_stream_config_query.py](../../examples/1_basic_features/stream/3_stream_config_query.py)
# 和 [0_event_status.py](../../examples/1_basic_features/event/0_event_status.py)；另见 notebook
# [11_official_samples](11_official_samples.ipynb) 第 3 节。
#
# ## 小结
#
# 不同 Stream 上的任务并行执行，同一条 Stream 上的任务按顺序执行。在一条 Stream 上记录、在另一条上等待的
# Event 在 Device 上为两者排序，Host 不必停下。查询立即回答，同步则会阻塞。没有指定 Stream 的任务落到默认
# Stream 上，排队执行。优先级 0 最高，它只决定等同一个引擎的任务谁先。选学的
# [03x_event_timing](03x_event_timing.ipynb) 继续讲 Event 标志、计时和资源上限；notebook 04 转向 Device 内存。

# %% [markdown] lang="zh" translates="code"
# en: # as long as we ask, touching no memory
# zh: # 要多久就多久，不访问内存
# en: """A fresh machine with acl initialised and device 0 set."""
# zh: """一台全新的机器：acl 已初始化，已设置 Device 0。"""
# en: print(f"{n} stream{'s' if n > 1 else ''}: three 1 ms kernels took {(hi - lo) / 1e6:.3f} ms")
# zh: print(f"{n} 条 Stream：三个 1 ms 核函数用了 {(hi - lo) / 1e6:.3f} ms")
# en: # 1 ms on its own buffer
# zh: # 在自己的缓冲区上运行 1 ms
# en: print(f"{streams:<15}: the host queued both in {queued / 1e3:.1f} µs; "
# zh: print(f"{streams:<15}：Host 下发两者用了 {queued / 1e3:.1f} µs；"
# en: f"the device finished after {(sandbox.now() - t0) / 1e6:.3f} ms")
# zh: f"Device 在 {(sandbox.now() - t0) / 1e6:.3f} ms 后完成")
# en: # unordered: a HazardWarning (notebook 09b)
# zh: # 无序时：HazardWarning（见 notebook 09b）
# en: print(f"ordering by {order:>6}: x = {two_streams(order)}, "
# zh: print(f"排序方式 {order:>6}：x = {two_streams(order)}，"
# en: f"synchronize calls: {teach.sync_calls()}")
# zh: f"同步调用：{teach.sync_calls()}")
# en: names = {acl.ACL_EVENT_RECORDED_STATUS_COMPLETE: "complete",
# zh: names = {acl.ACL_EVENT_RECORDED_STATUS_COMPLETE: "已完成",
# en: acl.ACL_EVENT_RECORDED_STATUS_NOT_READY: "not ready"}
# zh: acl.ACL_EVENT_RECORDED_STATUS_NOT_READY: "未就绪"}
# en: print("just created:        ", names[status])
# zh: print("刚创建：        ", names[status])
# en: print("recorded, not synced:", names[status], f"(answered in {(sandbox.now() - t0) / 1e3:.1f} µs)")
# zh: print("已记录、未同步：", names[status], f"（{(sandbox.now() - t0) / 1e3:.1f} µs 内回答）")
# en: print("after synchronize:   ", names[status])
# zh: print("同步之后：      ", names[status])
# en: print(f"least priority: {least}, greatest priority: {greatest}, ret {ret}")
# zh: print(f"最低优先级：{least}，最高优先级：{greatest}，ret {ret}")
# en: print(f"{profile}: priorities reported {got}; after the first kernel ran: "
# zh: print(f"{profile}：读回的优先级 {got}；第一个核函数之后的执行顺序："
# en: f"{' then '.join(order[t] for _, t in ran if t in order)}")
# zh: f"{' 然后 '.join(order[t] for _, t in ran if t in order)}")
# en: # queued first
# zh: # 先下发
# en: # queued second
# zh: # 后下发
# en: """Run four work[6, s](t) kernels side by side on device 0 and wait until they are done."""
# zh: """在 Device 0 上并行运行四个 work[6, s](t) 核函数，并等待它们完成。"""
# en: # TODO: create the streams, launch one kernel on each, then wait once.
# zh: # TODO：创建 Stream，每条上下发一个核函数，然后只等待一次。
# en: # Hint: acl.rt.synchronize_device() waits for every stream of the device.
# zh: # 提示：acl.rt.synchronize_device() 会等待该 Device 的所有 Stream。
# en: """Return (x0 + 1) * 2 as np.uint32 array of shape (1,): long_op on one stream, then
# zh: """返回形状为 (1,) 的 np.uint32 数组 (x0 + 1) * 2：先在一条 Stream 上运行 long_op，
# en:     short_op on another, ordered by an event."""
# zh:     再在另一条上运行 short_op，两者由 Event 排序。"""
# en: # TODO: two streams, a device buffer for x, the copy in, the two launches with an event
# zh: # TODO：两条 Stream、存放 x 的 Device 缓冲区、拷入、两次下发（两条 Stream 之间用 Event 排序）、
# en: # between the streams, one synchronize, the copy back.
# zh: # 一次同步、拷回。
# en: # Hint: two_streams("event") above does most of it; what must change?
# zh: # 提示：上面的 two_streams("event") 已完成大半；哪里需要改？
# en: """Your answers: {question number: letter}."""
# zh: """你的答案：{题号: 字母}。"""
# en: "two streams"
# zh: "两条 Stream"
# en: "stream 0"
# zh: "Stream 0"
