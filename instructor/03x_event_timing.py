# %% [markdown]
# # 03x · Events in depth: flags, timing, the cost of waiting, limits
#
# **Optional deep dive after notebook 03 · about 30 minutes.**
#
# Notebook 03 used events to order streams and to ask where a stream has got to. This deep dive
# goes further: which **flags** an event is created with and what each one is for, how events
# **time** device work and when asking for the time is an error, what polling costs the host
# compared with one synchronize, and the limits: how many streams a device holds, and which
# device an event belongs to.
#
# | C | Python | what it does |
# |---|---|---|
# | `aclrtCreateEventWithFlag(&e, flag)` | `e, ret = acl.rt.create_event_with_flag(flag)` | an event for a purpose: `ACL_EVENT_SYNC`, `ACL_EVENT_TIME_LINE`, ... |
# | `aclrtEventElapsedTime(&ms, e0, e1)` | `ms, ret = acl.rt.event_elapsed_time(e0, e1)` | device time between two marks |
# | `aclrtStreamQuery(s, &st)` | `st, ret = acl.rt.stream_query(s)` | is the stream idle? (never waits) |
#
# **After this deep dive** you can create an event with the flags its use needs, time a kernel
# with events without blocking the host, explain 107006, and say what limits the number of
# streams. **It assumes** notebook 03.

# %% [markdown] lang="zh"
# # 03x · 深入 Event：标志、计时、等待的代价、资源上限
#
# **选学深入：notebook 03 之后 · 约 30 分钟。**
#
# notebook 03 用 Event（事件）给 Stream（流）排序、查询 Stream 执行到了哪里。这一篇更进一步：创建 Event 时可以带
# 哪些**标志**、各自做什么用；Event 怎样为 Device（设备）任务**计时**，什么时候查询耗时会出错；轮询比一次同步
# 多花 Host（主机）多少代价；以及资源上限：一个 Device 能有多少条 Stream，一个 Event 属于哪个 Device。
#
# | C | Python | 作用 |
# |---|---|---|
# | `aclrtCreateEventWithFlag(&e, flag)` | `e, ret = acl.rt.create_event_with_flag(flag)` | 按用途创建 Event：`ACL_EVENT_SYNC`、`ACL_EVENT_TIME_LINE` 等 |
# | `aclrtEventElapsedTime(&ms, e0, e1)` | `ms, ret = acl.rt.event_elapsed_time(e0, e1)` | 两个标记之间的 Device 时间 |
# | `aclrtStreamQuery(s, &st)` | `st, ret = acl.rt.stream_query(s)` | Stream 是否空闲？（从不等待） |
#
# **学完这一篇**，你能按用途为 Event 选择标志，在不阻塞 Host 的前提下用 Event 为核函数计时，解释 107006，并说出
# 是什么限制了 Stream 的数量。**前置**：notebook 03。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import sandbox
from sandbox import acl, teach


@sandbox.kernel(ns=lambda t: t)               # as long as we ask, touching no memory
def work(t: int):
    pass


def fresh(profile="ascend910b", devices=None):
    """A fresh machine with acl initialised and device 0 set."""
    sandbox.configure(profile, devices)
    acl.init()
    acl.rt.set_device(0)

# %% [markdown]
# ## Event flags
#
# `aclrtCreateEvent` makes an event for every use. `aclrtCreateEventWithFlag(&event, flag)`
# makes one for the purposes its flag bits name (the API reference, *Event management*,
# `docs/zh/api_ref/07_event_management.md`, "aclrtCreateEventWithFlag"); flags may be OR-ed:
#
# | flag | value | the event ... |
# |---|---|---|
# | `ACL_EVENT_SYNC` | 0x1 | can be waited for by another stream (`aclrtStreamWaitEvent`) and reset |
# | `ACL_EVENT_CAPTURE_STREAM_PROGRESS` | 0x2 | tracks how far a stream's tasks have run |
# | `ACL_EVENT_TIME_LINE` | 0x8 | records timestamps, for timing (the docs warn it costs event calls some speed) |
# | `ACL_EVENT_DEVICE_USE_ONLY` | 0x10 | is used on the device only (not on 310B) |
# | `ACL_EVENT_EXTERNAL` | 0x20 | is for updating tasks in a captured graph (deep dive 08x); not combined with others |
#
# The reference's rule: an event created **without** `ACL_EVENT_SYNC` cannot be used with
# `aclrtStreamWaitEvent` or `aclrtResetEvent`; events **with** it are a limited resource
# (65 536 per device on the A2 series). The Runtime programming guide, *Event management*
# (`docs/zh/dev_guide/03-05_event_management.md`), creates `ACL_EVENT_SYNC` events for ordering
# streams and `ACL_EVENT_TIME_LINE` events for timing.
#
# **Predict, then run.** Three pairs of events, created with `TIME_LINE`, with `SYNC`, and with
# both. Each pair is recorded around a 1 ms kernel, and a second stream is made to wait for the
# end event. Which waits are accepted, and which pairs give an elapsed time?

# %% [markdown] lang="zh"
# ## Event 标志
#
# `aclrtCreateEvent` 创建的 Event 什么用途都可以。`aclrtCreateEventWithFlag(&event, flag)` 则按 flag 中各位指定的
# 用途创建 Event（API 参考“Event管理”，`docs/zh/api_ref/07_event_management.md` 中的 aclrtCreateEventWithFlag），
# 多个标志可以按位或：
#
# | 标志 | 值 | 创建出的 Event …… |
# |---|---|---|
# | `ACL_EVENT_SYNC` | 0x1 | 可供其他 Stream 等待（`aclrtStreamWaitEvent`），也可以复位 |
# | `ACL_EVENT_CAPTURE_STREAM_PROGRESS` | 0x2 | 用于跟踪 Stream 的任务执行进度 |
# | `ACL_EVENT_TIME_LINE` | 0x8 | 记录时间戳，用于计时（文档提醒：这会影响 Event 相关接口的性能） |
# | `ACL_EVENT_DEVICE_USE_ONLY` | 0x10 | 仅在 Device 上使用（310B 不支持） |
# | `ACL_EVENT_EXTERNAL` | 0x20 | 用于任务捕获场景下的任务更新（选学深入 08x），不能与其他标志按位或 |
#
# API 参考的规定：**不含** `ACL_EVENT_SYNC` 的 Event 不能用于 `aclrtStreamWaitEvent` 和 `aclrtResetEvent`；**含**
# 这个标志的 Event 数量有限（A2 系列每个 Device 65536 个）。《Runtime编程指南》“Event管理”
# （`docs/zh/dev_guide/03-05_event_management.md`）为 Stream 间同步创建 `ACL_EVENT_SYNC` Event，为计时创建
# `ACL_EVENT_TIME_LINE` Event。
#
# **先预测，再运行。**下面三对 Event 分别带 `TIME_LINE`、`SYNC`、两者兼有。每一对都记录在一个 1 ms 核函数的前后，
# 再让第二条 Stream 等待结束 Event。哪些等待会被接受？哪几对能给出耗时？

# %%
FLAGS = {"TIME_LINE": acl.ACL_EVENT_TIME_LINE, "SYNC": acl.ACL_EVENT_SYNC,
         "SYNC | TIME_LINE": acl.ACL_EVENT_SYNC | acl.ACL_EVENT_TIME_LINE}
fresh()
s, _ = acl.rt.create_stream()
s2, _ = acl.rt.create_stream()
for name, flag in FLAGS.items():
    start, _ = acl.rt.create_event_with_flag(flag)    # C: aclrtCreateEventWithFlag(&start, flag);
    end, _ = acl.rt.create_event_with_flag(flag)
    acl.rt.record_event(start, s)
    work[1, s](1_000_000)
    acl.rt.record_event(end, s)
    wait = acl.rt.stream_wait_event(s2, end)
    why = acl.get_recent_err_msg() if wait else ""
    acl.rt.synchronize_device()
    ms, ret = acl.rt.event_elapsed_time(start, end)
    print(f"{name:<17} wait ret {wait:>6}, elapsed {ms:.4f} ms (ret {ret})")
    if why:
        print("    ", why[:150])

# %% [markdown]
# The wait for a `TIME_LINE`-only event is refused with 207000 `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`
# (`include/external/acl/error_codes/rt_error_codes.h:69`): such an event has no wait task (the
# runtime's check, `src/runtime/api/impl/api_error.cc:1414-1416`).
# Every pair gave an elapsed time. The reference says `TIME_LINE` is the flag that makes an event
# record timestamps, and a program that times should ask for it; the runtime's own checks refuse
# timing only for `EXTERNAL` and IPC events (`api_error.cc:1852-1859`), and the sandbox follows
# those checks, so it times the other events too. Do not rely on that: create the events you
# time with `ACL_EVENT_TIME_LINE`, and those a stream waits for with `ACL_EVENT_SYNC`.
#
# ## Timing with events
#
# The runtime's timing sample (`example/1_basic_features/event/1_event_timestamp`) records an
# event before and one after a task, synchronises, and asks for the elapsed time: first for a
# short task, then for a long one. Event times are read from the device's timestamp counter, so
# they come in whole ticks: 20 ns on the 910B (a 50 MHz counter) and 1/48 000 ms ≈ 20.8 ns on
# the 310B (the sandbox's profiles; the documentation gives no resolution).
#
# The interval holds more than the kernel body: the start event completes as soon as it reaches
# the device, but the kernel arrives only when the host's launch call is done (8.6 µs on the
# 910B, 15 µs on the slower 310B board CPU, the sandbox's figures) and the device needs a few µs
# to start it. For short kernels that overhead dominates.

# %% [markdown] lang="zh"
# 只带 `TIME_LINE` 的 Event 被等待时，调用以 207000 `ACL_ERROR_RT_FEATURE_NOT_SUPPORT` 失败
# （`include/external/acl/error_codes/rt_error_codes.h:69`）：这样的 Event 没有等待任务（runtime 的检查：
# `src/runtime/api/impl/api_error.cc:1414-1416`）。三对 Event 都给出了耗时。API 参考说
# `TIME_LINE` 才是让 Event 记录时间戳的标志，要计时的程序就应当带上它；而 runtime 自己的检查只拒绝为 `EXTERNAL`
# 和 IPC Event 计时（`api_error.cc:1852-1859`），沙箱照这些检查实现，所以其他 Event 也能计时。不要依赖这一点：
# 要计时的 Event 用 `ACL_EVENT_TIME_LINE` 创建，要被 Stream 等待的 Event 用 `ACL_EVENT_SYNC` 创建。
#
# ## 用 Event 计时
#
# runtime 的计时示例（`example/1_basic_features/event/1_event_timestamp`）在任务前后各记录一个 Event，同步，再查询
# 耗时：先是一个短任务，再是一个长任务。Event 的时间读自 Device 的时间戳计数器，所以总是整数个 tick：910B 上
# 20 ns（50 MHz 计数器），310B 上 1/48 000 ms ≈ 20.8 ns（沙箱配置中的取值，官方文档未给出分辨率）。
#
# 这段区间里不只有核函数本身：开始 Event 一到 Device 就完成，核函数却要等 Host 的下发调用结束才到达（910B 上
# 8.6 µs，310B 板载 CPU 较慢，要 15 µs，均为沙箱的取值），Device 启动它还要几微秒。核函数越短，这部分开销占比越大。

# %%
def time_kernel(profile, ns):
    fresh(profile)
    s, _ = acl.rt.create_stream()
    start, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE)
    end, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE)
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
# **Predict, then run.** The same measurement, but the host asks for the elapsed time right after
# queueing the end event, without synchronising. What comes back: the time so far, 0, or an error?

# %% [markdown] lang="zh"
# **先预测，再运行。**还是同样的测量，但 Host 在下发结束 Event 之后不做同步，立即查询耗时。返回的是到目前为止的
# 时间、0，还是一个错误？

# %%
fresh()
s, _ = acl.rt.create_stream()
e0, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE)
e1, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE)
acl.rt.record_event(e0, s)
work[1, s](1_000_000)
acl.rt.record_event(e1, s)
ms, ret = acl.rt.event_elapsed_time(e0, e1)
print("without synchronising: ret", ret, ret == acl.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
print(acl.get_recent_err_msg())

# %% [markdown]
# An error, not a number: the end event's timestamp is not set yet, and the runtime returns
# 107006 `ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID` (`src/runtime/core/src/event/event.cc:1265-1269`,
# mapped in `errcode_manage.cc:198`; `include/external/acl/error_codes/rt_error_codes.h:27`). Synchronize the end event (or the stream) first, or
# query it until it is complete, as exercise 03.3 below does.
#
# ## The cost of waiting: polling versus one synchronize
#
# A query loop (polling) also gets there, but it keeps the host thread busy the whole time, and
# every query is a runtime call. Compare with one synchronize:

# %% [markdown] lang="zh"
# 返回的是错误而不是数字：结束 Event 的时间戳还没有写入，runtime 返回 107006
# `ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID`（`src/runtime/core/src/event/event.cc:1265-1269`，错误码映射见
# `errcode_manage.cc:198`，定义见 `include/external/acl/error_codes/rt_error_codes.h:27`）。先同步结束 Event（或整条 Stream），或者像下面练习 03.3 那样反复查询直到它完成。
#
# ## 等待的代价：轮询与一次同步
#
# 用查询循环（轮询）也能等到结果，但 Host 线程会一直忙着，而且每问一次都是一次 runtime 调用。与一次同步对比：

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
# Both waited 2 ms; the loop made two thousand calls to do it. Poll only when the host has its
# own work to do between the questions (exercise 03.3); otherwise synchronize.
#
# ## How many streams?
#
# Streams are not free. Each takes a hardware queue on the device and host time to create (50 µs
# in this profile, the sandbox's assumption), and a device has a fixed number of them: 512 on the
# 310B, 1984 on the 910B, counting the default streams (the API reference, *Stream management*,
# `docs/zh/api_ref/06_stream_management.md`). Past that, `aclrtCreateStream` fails with 207008
# `ACL_ERROR_RT_NO_STREAM_RESOURCE` (`rt_error_codes.h:77`). More streams than there are independent chains of work buy
# nothing either: the engines are shared. Create the few streams a program needs at the start,
# reuse them, and destroy them at the end.

# %% [markdown] lang="zh"
# 两者都等了 2 ms；循环为此调用了两千次。只有 Host 在两次查询之间有自己的事要做时才轮询（练习 03.3），否则就同步。
#
# ## Stream 多少条合适？
#
# Stream 不是免费的。每条 Stream 占用 Device 上的一个硬件队列，创建时要花 Host 时间（本配置为 50 µs，属沙箱的
# 假设），而且一个 Device 上的数量是固定的：310B 上 512 条，910B 上 1984 条，默认 Stream 也算在内（API 参考
# “Stream管理”，`docs/zh/api_ref/06_stream_management.md`）。超出之后，`aclrtCreateStream` 以 207008
# `ACL_ERROR_RT_NO_STREAM_RESOURCE` 失败（`rt_error_codes.h:77`）。Stream 多于相互独立的任务链也没有好处：引擎是共享的。在程序开始时创建
# 所需的少数几条 Stream，反复使用，结束时再销毁。

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

# %% [markdown]
# ## Which device an event belongs to
#
# An event belongs to the device that was current when it was created. Recording it on, or
# making a stream wait for it from, a stream of **another** device fails with
# `ACL_ERROR_RT_STREAM_CONTEXT` (107003, `rt_error_codes.h:24`); the host may still synchronise on or query it (the
# Runtime programming guide, *Multi-device programming*,
# `docs/zh/dev_guide/05_multi_device_programming.md`). Notebook 05 covers multi-device programs.

# %% [markdown] lang="zh"
# ## Event 属于哪个 Device
#
# Event 属于创建它时的当前 Device。在**另一个** Device 的 Stream 上记录它，或让另一个 Device 的 Stream 等待它，都会
# 以 `ACL_ERROR_RT_STREAM_CONTEXT`（107003，`rt_error_codes.h:24`）失败；Host 仍然可以同步或查询它（《Runtime编程指南》“多设备编程”，
# `docs/zh/dev_guide/05_multi_device_programming.md`）。多 Device 程序见 notebook 05。

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
# ### Exercise 03.3 · time a kernel without blocking
#
# *Practises:* timing with events, and querying an event instead of synchronising so that the
# host keeps working.
#
# As in notebook 03, `sandbox.teach.check` runs your function on a fresh 910B with acl initialised
# and device 0 set. Measure how long `work[1, s](ns)` takes on the device without ever blocking
# the host: record an event before the kernel and one after it on the same stream; then, until
# the end event has completed, call `other_work()` (below: 50 µs of the host's own work) between
# queries of the end event; then return what `acl.rt.event_elapsed_time` says, in milliseconds.
# The grader checks:
#
# * exactly one kernel, `work[1, s](ns)` with the `ns` you are given;
# * the two events given to `aclrtEventElapsedTime` were recorded on the kernel's stream,
#   before and after it;
# * the value returned is that elapsed time, as the device's timestamps give it (to the tick);
# * **no** synchronize call, and `other_work()` running for at least **75 %** of the kernel's
#   time on the device;
# * no failed call (asking for the elapsed time too early fails).

# %% [markdown] lang="zh"
# ### 练习 03.3 · 不阻塞地为核函数计时
#
# *练习要点：* 用 Event 计时；用查询 Event 代替同步，让 Host 继续干活。
#
# 和 notebook 03 一样，`sandbox.teach.check` 在一台已初始化 acl、已设置 Device 0 的全新 910B 上运行你的函数。测量
# `work[1, s](ns)` 在 Device 上的耗时，全程不阻塞 Host：在同一条 Stream 上，核函数前后各记录一个 Event；在结束
# Event 完成之前，每两次查询之间调用一次 `other_work()`（见下：Host 自己的 50 µs 工作）；最后返回
# `acl.rt.event_elapsed_time` 给出的毫秒数。评分器检查：
#
# * 恰好一个核函数，即用给定 `ns` 的 `work[1, s](ns)`；
# * 传给 `aclrtEventElapsedTime` 的两个 Event 记录在核函数所在的 Stream 上，一个在它之前，一个在它之后；
# * 返回值就是 Device 时间戳给出的耗时（精确到 tick）；
# * **没有**同步调用，并且 `other_work()` 运行的时间至少是核函数在 Device 上耗时的 **75 %**；
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
    start, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE)
    end, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE)
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
# ## Official samples and summary
#
# [1_event_timestamp.py](../examples/1_basic_features/event/1_event_timestamp.py) (timestamps and
# elapsed time) and [2_multi_stream.py](../examples/1_basic_features/stream/2_multi_stream.py)
# (synchronizes with a timeout that a long kernel outlasts); notebook
# [11_official_samples](11_official_samples.ipynb), sections 3 and 4.
#
# Create events for their use: `ACL_EVENT_SYNC` for one a stream waits for, `ACL_EVENT_TIME_LINE`
# for one you time. Event times come in whole ticks of the device's counter and include the
# launch overhead; asking before the end event has completed is 107006. Poll only when the host
# has work to do meanwhile. Streams and events are per-device resources with fixed limits.

# %% [markdown] lang="zh"
# ## 官方示例与小结
#
# [1_event_timestamp.py](../../examples/1_basic_features/event/1_event_timestamp.py)（时间戳与耗时）和
# [2_multi_stream.py](../../examples/1_basic_features/stream/2_multi_stream.py)（带超时的同步，长核函数的运行时间
# 超过了超时）；另见 notebook [11_official_samples](11_official_samples.ipynb) 第 3、4 节。
#
# 按用途创建 Event：要被 Stream 等待的用 `ACL_EVENT_SYNC`，要计时的用 `ACL_EVENT_TIME_LINE`。Event 的时间以
# Device 计数器的整数 tick 计，并且包含下发开销；结束 Event 完成之前查询耗时得到 107006。只有 Host 在等待期间
# 有事可做时才轮询。Stream 和 Event 都是按 Device 计的资源，数量有固定上限。

# %% [markdown] lang="zh" translates="code"
# en: # as long as we ask, touching no memory
# zh: # 要多久就多久，不访问内存
# en: """A fresh machine with acl initialised and device 0 set."""
# zh: """一台全新的机器：acl 已初始化，已设置 Device 0。"""
# en: print(f"{name:<17} wait ret {wait:>6}, elapsed {ms:.4f} ms (ret {ret})")
# zh: print(f"{name:<17} 等待 ret {wait:>6}，耗时 {ms:.4f} ms（ret {ret}）")
# en: print(f"{profile}: kernel body {ns / 1e3:>4.0f} µs -> elapsed {ms:.6f} ms "
# zh: print(f"{profile}：核函数本身 {ns / 1e3:>4.0f} µs -> 耗时 {ms:.6f} ms "
# en: f"(ret {ret}, timer resolution {res:.1f} ns)")
# zh: f"（ret {ret}，计时分辨率 {res:.1f} ns）")
# en: print("without synchronising: ret", ret, ret == acl.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
# zh: print("未同步：ret", ret, ret == acl.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
# en: print(f"{how:>11}: host waited {waited:.3f} ms, {polls} not-ready answers, {calls} runtime calls in all")
# zh: print(f"{how:>11}：Host 等了 {waited:.3f} ms，{polls} 次“未就绪”，共 {calls} 次 runtime 调用")
# en: print(f"created {made} streams in {(sandbox.now() - t0) / 1e6:.1f} ms of host time, then: {ret}")
# zh: print(f"用 {(sandbox.now() - t0) / 1e6:.1f} ms 的 Host 时间创建了 {made} 条 Stream，之后：{ret}")
# en: # an event of device 0
# zh: # Device 0 的 Event
# en: # a stream of device 1
# zh: # Device 1 的 Stream
# en: print("record a device-0 event on a device-1 stream:", ret, ret == acl.ACL_ERROR_RT_STREAM_CONTEXT)
# zh: print("在 Device 1 的 Stream 上记录 Device 0 的 Event：", ret, ret == acl.ACL_ERROR_RT_STREAM_CONTEXT)
# en: print("synchronize it from device 1:", acl.rt.synchronize_event(ev0))
# zh: print("在 Device 1 上同步它：", acl.rt.synchronize_event(ev0))
# en: """A slice of the host's own work: 50 µs on the calling thread."""
# zh: """Host 自己的一段工作：在调用线程上运行 50 µs。"""
# en: """Return the device time of work[1, s](ns) in ms, measured with two events, with the host
# zh: """用两个 Event 测量 work[1, s](ns) 的 Device 耗时并以 ms 返回，Host 在等待期间
# en:     calling other_work() while it waits."""
# zh:     调用 other_work()。"""
# en: # TODO: a stream, two events, record / launch / record, a query loop, the elapsed time.
# zh: # TODO：一条 Stream、两个 Event，记录 / 下发 / 记录，一个查询循环，最后取耗时。
# en: # Hint: acl.rt.query_event_status(e) returns (status, ret); compare the status with
# zh: # 提示：acl.rt.query_event_status(e) 返回 (status, ret)；把 status 与
# en: # acl.ACL_EVENT_RECORDED_STATUS_COMPLETE.
# zh: # acl.ACL_EVENT_RECORDED_STATUS_COMPLETE 比较。
