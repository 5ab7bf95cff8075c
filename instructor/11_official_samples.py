# %% [markdown]
# # 11 · The official samples, step by step
#
# **Time:** about 45 minutes · **Optional** (a review after the topic notebooks) · **Assumes**
# notebooks 01 to 08.
#
# The CANN runtime repository (`hicann/runtime`, folder `example/`) teaches its API with small
# numbered C++ samples. The sandbox has a Python port of each sample it can run, call for call,
# in `examples/` (the list, with the status of all 61: [examples/README.md](../examples/README.md)).
# This notebook walks through a selection of them: for each, what the sample demonstrates and why
# it matters on real hardware, a few lines of C in the sample's style (written for this notebook,
# not copied), the same steps in Python, one cell at a time, and a panel after the important steps.
#
# | section | official sample (`example/…`) | the port |
# |---|---|---|
# | 1 · quickstart | `0_quickstart/4_custom_kernel_launch` | [4_custom_kernel_launch.py](../examples/0_quickstart/4_custom_kernel_launch.py) |
# | 2 · error handling | `0_quickstart/1_error_handling` | [1_error_handling.py](../examples/0_quickstart/1_error_handling.py) |
# | 3 · two streams and an event | `1_basic_features/stream/2_multi_stream` (its event half), `1_basic_features/event/1_event_timestamp` | [2_multi_stream.py](../examples/1_basic_features/stream/2_multi_stream.py), [1_event_timestamp.py](../examples/1_basic_features/event/1_event_timestamp.py) |
# | 4 · failure modes | `1_basic_features/stream/0_simple_stream`, `1_basic_features/event/0_event_status` | [0_simple_stream.py](../examples/1_basic_features/stream/0_simple_stream.py), [0_event_status.py](../examples/1_basic_features/event/0_event_status.py) |
# | 5 · callbacks | `2_advanced_features/callback/0_simple_callback`, `1_callback_hostfunc`, `2_callback_exception` | [0](../examples/2_advanced_features/callback/0_simple_callback.py), [1](../examples/2_advanced_features/callback/1_callback_hostfunc.py), [2](../examples/2_advanced_features/callback/2_callback_exception.py) |
# | 6 · capture and replay | `2_advanced_features/model_ri/0_simple_model` | [0_simple_model.py](../examples/2_advanced_features/model_ri/0_simple_model.py) (its aclnn operators are two `@sandbox.kernel` functions) |
# | 7 · memory pool | `3_memory_advanced/memory_pool` (a topic page) | none: the topic has no sample code |
# | 8 · two devices | `1_basic_features/device/2_device_P2P` | [2_device_P2P.py](../examples/1_basic_features/device/2_device_P2P.py) |
#
# **After this notebook** you can read an official runtime sample and say what each call does
# and what the device does meanwhile, run the same program in the sandbox, and spot where a
# sample relies on an ordering it does not state. Each section names the topic notebook that
# goes deeper.

# %% [markdown] lang="zh"
# # 11 · 官方样例逐步讲解
#
# **时间**：约 45 分钟 · **选学**（学完各专题 notebook 后的复习）· **前提**：notebook 01 到 08。
#
# CANN runtime 仓库（`hicann/runtime`，目录 `example/`）用一组带编号的 C++ 小样例讲解它的接口。沙箱为其中能运行的每个样例提供了
# 逐个调用对应的 Python 移植版本，放在 `examples/` 中（全部 61 个样例及其状态见 [examples/README.md](../../examples/README.md)）。
# 本 notebook 挑选其中一部分逐一讲解：样例演示什么、在真实硬件上为什么重要；几行样例风格的 C 代码（为本 notebook 而写，
# 并非照抄）；同样的步骤用 Python 一个单元格一个单元格地运行；关键步骤之后给出一张视图。
#
# | 章节 | 官方样例（`example/…`） | 移植版本 |
# |---|---|---|
# | 1 · 快速入门 | `0_quickstart/4_custom_kernel_launch` | [4_custom_kernel_launch.py](../../examples/0_quickstart/4_custom_kernel_launch.py) |
# | 2 · 错误处理 | `0_quickstart/1_error_handling` | [1_error_handling.py](../../examples/0_quickstart/1_error_handling.py) |
# | 3 · 两条 Stream 和一个 Event | `1_basic_features/stream/2_multi_stream`（Event 部分）、`1_basic_features/event/1_event_timestamp` | [2_multi_stream.py](../../examples/1_basic_features/stream/2_multi_stream.py)、[1_event_timestamp.py](../../examples/1_basic_features/event/1_event_timestamp.py) |
# | 4 · 任务调度模式 | `1_basic_features/stream/0_simple_stream`、`1_basic_features/event/0_event_status` | [0_simple_stream.py](../../examples/1_basic_features/stream/0_simple_stream.py)、[0_event_status.py](../../examples/1_basic_features/event/0_event_status.py) |
# | 5 · 回调 | `2_advanced_features/callback/0_simple_callback`、`1_callback_hostfunc`、`2_callback_exception` | [0](../../examples/2_advanced_features/callback/0_simple_callback.py)、[1](../../examples/2_advanced_features/callback/1_callback_hostfunc.py)、[2](../../examples/2_advanced_features/callback/2_callback_exception.py) |
# | 6 · 捕获与重放 | `2_advanced_features/model_ri/0_simple_model` | [0_simple_model.py](../../examples/2_advanced_features/model_ri/0_simple_model.py)（其中的 aclnn 算子换成两个 `@sandbox.kernel` 函数） |
# | 7 · 内存池 | `3_memory_advanced/memory_pool`（专题页） | 无：该专题没有样例代码 |
# | 8 · 两个 Device | `1_basic_features/device/2_device_P2P` | [2_device_P2P.py](../../examples/1_basic_features/device/2_device_P2P.py) |
#
# **学完本 notebook**，你能读懂一个官方 runtime 样例，说出每个调用做什么、Device（设备）在此期间做什么，在沙箱中运行同样的程序，
# 并找出样例依赖了哪些它没有写明的顺序。每一节都会指出讲得更深入的专题 notebook。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import threading

import numpy as np

import sandbox
from sandbox import acl, teach
from sandbox.core import trace as T     # record types of sandbox.trace()

HUGE = acl.ACL_MEM_MALLOC_HUGE_FIRST
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST


def fresh(device_count=None):
    """A fresh 910B server with acl initialised and device 0 set on this thread."""
    sandbox.configure("ascend910b", device_count)
    acl.init()
    acl.rt.set_device(0)


def finished_tasks(kind="kernel"):
    """The names of the tasks of a kind that finished without error so far, from the trace."""
    log = sandbox.trace()
    names = {r.task: r.name for r in log.of(T.TaskSubmitted) if r.kind == kind}
    return [names[r.task] for r in log.of(T.TaskFinished) if r.task in names and r.status == 0]


def upload(values, dtype=np.float32):
    """A device buffer holding ``values`` (a blocking copy from ordinary host memory)."""
    host = np.asarray(values, dtype)
    dev, _ = acl.rt.malloc(host.nbytes, HUGE)
    acl.rt.memcpy(dev, host.nbytes, acl.util.numpy_to_ptr(host), host.nbytes, H2D)
    return dev


def download(dev, n, dtype=np.float32):
    """``n`` values copied back from a device buffer (a blocking copy)."""
    out = np.zeros(n, dtype)
    acl.rt.memcpy(acl.util.numpy_to_ptr(out), out.nbytes, dev, out.nbytes, D2H)
    return out


@sandbox.kernel(ns=20_000)                    # 20 µs
def vector_add(a: "float32*", b: "float32*", out: "float32*", alpha: float, n: int):
    out[:n] = a[:n] + alpha * b[:n]


@sandbox.kernel(ns=2_000_000)                 # 2 ms, as the samples' long kernel
def long_op(x: "uint32*"):
    x[0] += 1


@sandbox.kernel(ns=100_000)                   # 0.1 ms
def short_op(x: "uint32*"):
    x[0] *= 2


@sandbox.kernel(ns=10_000)
def easy_op(x: "uint32*"):
    x[0] += 1


@sandbox.kernel(ns=10_000)
def error_op():
    raise RuntimeError("illegal instruction")  # a fault on the device: an AI Core exception

# %% [markdown]
# ## 1 · Quickstart: a custom kernel on a stream (`0_quickstart/4_custom_kernel_launch`)
#
# The sample adds two 8-element float vectors with its own Ascend C kernel. It is the smallest
# complete runtime program: initialise, pick a device, make a stream, allocate, copy in, launch,
# synchronise, copy out, release. On real hardware the one step that is easy to get wrong is the
# launch: `<<<>>>` only *queues* the kernel and returns at once, so the host must synchronise
# before it reads the result. In C (the middle launch argument is the L2 control, null here):
#
# ```c
# aclrtSetDevice(0);
# aclrtCreateStream(&stream);
# aclrtMalloc(&a, bytes, ACL_MEM_MALLOC_HUGE_FIRST);            // and b, out
# aclrtMemcpy(a, bytes, hostA, bytes, ACL_MEMCPY_HOST_TO_DEVICE);  // and b
# vector_add<<<blockDim, nullptr, stream>>>(a, b, out, alpha, n);  // queued, not run
# aclrtSynchronizeStream(stream);                                  // now it has run
# aclrtMemcpy(hostOut, bytes, out, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
# ```
#
# In the sandbox the kernel is a Python function under `@sandbox.kernel` and
# `vector_add[block_dim, stream](...)` is the launch. First the buffers and the copies in:

# %% [markdown] lang="zh"
# ## 1 · 快速入门：在 Stream 上下发自定义核函数（`0_quickstart/4_custom_kernel_launch`）
#
# 该样例用它自己的 Ascend C 核函数把两个 8 元素的 float 向量相加。这是最小的完整运行时程序：初始化、选择 Device、
# 创建 Stream（流）、分配内存、拷入、下发、同步、拷出、释放。在真实硬件上最容易出错的一步是下发：`<<<>>>` 只是把核函数
# *放入队列*并立即返回，所以 Host（主机）必须先同步再读取结果。C 代码如下（下发的中间参数是 L2 控制，这里为空）：
#
# ```c
# aclrtSetDevice(0);
# aclrtCreateStream(&stream);
# aclrtMalloc(&a, bytes, ACL_MEM_MALLOC_HUGE_FIRST);            // b、out 同理
# aclrtMemcpy(a, bytes, hostA, bytes, ACL_MEMCPY_HOST_TO_DEVICE);  // b 同理
# vector_add<<<blockDim, nullptr, stream>>>(a, b, out, alpha, n);  // 已入队，尚未运行
# aclrtSynchronizeStream(stream);                                  // 现在已运行
# aclrtMemcpy(hostOut, bytes, out, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
# ```
#
# 在沙箱中，核函数是 `@sandbox.kernel` 修饰的 Python 函数，`vector_add[block_dim, stream](...)` 就是下发。
# 先准备缓冲区并拷入数据：

# %%
fresh()
stream, ret = acl.rt.create_stream()                       # C: aclrtCreateStream(&stream);
a_host = np.arange(1, 9, dtype=np.float32)
b_host = a_host / 2
a, b = upload(a_host), upload(b_host)                      # aclrtMalloc + aclrtMemcpy H2D, twice
out, ret = acl.rt.malloc(a_host.nbytes, HUGE)
print("create_stream, malloc ->", ret, "; a =", a_host, "; b =", b_host)
sandbox.memory_map()

# %% [markdown]
# The launch returns 0 at once: the kernel is in the stream's queue, and the output buffer
# still holds nothing.

# %% [markdown] lang="zh"
# 下发立即返回 0：核函数在 Stream 的队列中，输出缓冲区里还什么都没有。

# %%
t0 = sandbox.now()
ret = vector_add[1, stream](a, b, out, 1.0, 8)             # C: vector_add<<<1, nullptr, stream>>>(...);
print(f"launch -> {ret} after {(sandbox.now() - t0) / 1e3:.1f} µs of host time; "
      f"kernels finished so far: {finished_tasks()}")

# %%
print("synchronize ->", acl.rt.synchronize_stream(stream))  # C: aclrtSynchronizeStream(stream);
result = download(out, 8)
print("result:", result, "matches the host's sum:", bool(np.allclose(result, a_host + b_host)))
sandbox.gantt()

# %% [markdown]
# The Gantt chart shows the two blocking copies in (the host waits for each, in black), the
# kernel on stream 1 while the host waits in the synchronize, and the copy out. Notebook 01 builds this program piece by piece; notebook 02 shows what a read
# before the synchronize returns.

# %% [markdown] lang="zh"
# 甘特图显示两次阻塞的拷入（Host 等待每一次，黑色部分）、Host 在同步中等待时 Stream 1 上的核函数，以及拷出。notebook 01 一块一块地搭建这个程序；notebook 02 展示在
# 同步之前读取会得到什么。

# %% [markdown]
# ## 2 · Error handling (`0_quickstart/1_error_handling`)
#
# Every runtime call returns an `aclError`; the sample fails one call on purpose and reads what
# the runtime kept about it: the thread's last error (`aclrtPeekAtLastError` reads it,
# `aclrtGetLastError` reads and clears it) and the message (`aclGetRecentErrMsg`, cleared when
# read). On hardware this is how a program finds out *why* a call failed: the code names the
# kind of mistake, the message names the argument. The C sample passes a null output pointer
# to `aclrtGetRunMode`, a mistake Python cannot make (pyACL returns outputs), so this cell makes
# another invalid-parameter mistake, `aclrtMalloc` of 0 bytes:
#
# ```c
# void *p = nullptr;
# aclError ret = aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST);  // fails: 100000
# aclError peek = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);    // 100000, kept
# aclError last = aclrtGetLastError(ACL_RT_THREAD_LEVEL);       // 100000, now cleared
# const char *msg = aclGetRecentErrMsg();                       // why, then cleared
# ```

# %% [markdown] lang="zh"
# ## 2 · 错误处理（`0_quickstart/1_error_handling`）
#
# 每个运行时调用都返回一个 `aclError`；该样例故意让一个调用失败，然后读取运行时为它保存的信息：线程的最近错误
# （`aclrtPeekAtLastError` 读取，`aclrtGetLastError` 读取并清除）和错误信息（`aclGetRecentErrMsg`，读取后清除）。
# 在硬件上，程序就是这样得知调用*为什么*失败的：错误码说明错误的种类，错误信息指出是哪个参数。C 样例给
# `aclrtGetRunMode` 传入空的输出指针，这种错误在 Python 里犯不了（pyACL 直接返回输出），所以下面的单元格
# 换了一个参数错误：`aclrtMalloc` 0 字节：
#
# ```c
# void *p = nullptr;
# aclError ret = aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST);  // 失败：100000
# aclError peek = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);    // 100000，保留
# aclError last = aclrtGetLastError(ACL_RT_THREAD_LEVEL);       // 100000，随即清除
# const char *msg = aclGetRecentErrMsg();                       // 原因，随即清除
# ```

# %%
fresh()
_, ret = acl.rt.malloc(0, HUGE)
print("malloc(0) ->", ret)
print("peek ->", acl.rt.peek_at_last_error(acl.ACL_RT_THREAD_LEVEL),
      "; get ->", acl.rt.get_last_error(acl.ACL_RT_THREAD_LEVEL))
print("message:", acl.get_recent_err_msg())
print("read again: peek ->", acl.rt.peek_at_last_error(acl.ACL_RT_THREAD_LEVEL),
      "; get ->", acl.rt.get_last_error(acl.ACL_RT_THREAD_LEVEL),
      "; message:", repr(acl.get_recent_err_msg()))

# %% [markdown]
# A failed call changes nothing: no buffer was made. Notebook 09 goes through the code ranges
# and the faults that are reported later, at a synchronize.

# %% [markdown] lang="zh"
# 失败的调用不改变任何状态：没有创建缓冲区。notebook 09 讲解错误码的范围，以及那些稍后在同步时才报告的故障。

# %% [markdown]
# ## 3 · Two streams and an event (`stream/2_multi_stream`, `event/1_event_timestamp`)
#
# `2_multi_stream` runs a long kernel (`x += 1`) on stream 1 and a short one (`x *= 2`) on
# stream 2 on the same number, and wants 2: add first, then double. Its event half records an
# event on stream 1 after the long kernel and makes stream 2 wait for it; then it resets the
# event on stream 2, records it again after the short kernel and the host waits for that.
# On hardware the wait is done by the device: the host queues everything and never stops
# between the launches.
#
# The sample creates its event with `aclrtCreateEvent` and resets it. The API reference
# supports `aclrtResetEvent` only on an event made by `aclrtCreateEventWithFlag` with
# `ACL_EVENT_SYNC` (*aclrtResetEvent*, `docs/zh/api_ref/07_event_management.md`), so this cell
# creates it that way. (The sandbox resets an `aclrtCreateEvent` event too, without an error, as
# the runtime's source does: its default flags include the sync bit; that is the sandbox's
# choice where the reference says "not supported".)
#
# ```c
# long_op<<<1, nullptr, stream1>>>(x);
# aclrtRecordEvent(event, stream1);
# aclrtStreamWaitEvent(stream2, event);   // stream 2 waits, the host does not
# aclrtResetEvent(event, stream2);
# short_op<<<1, nullptr, stream2>>>(x);
# aclrtRecordEvent(event, stream2);
# aclrtSynchronizeEvent(event);            // the host waits here, once
# ```

# %% [markdown] lang="zh"
# ## 3 · 两条 Stream 和一个 Event（`stream/2_multi_stream`、`event/1_event_timestamp`）
#
# `2_multi_stream` 在同一个数上，在 Stream 1 上运行一个长核函数（`x += 1`），在 Stream 2 上运行一个短核函数（`x *= 2`），
# 期望得到 2：先加，再翻倍。它的 Event 部分在长核函数之后在 Stream 1 上记录一个 Event（事件），并让 Stream 2 等待它；然后在 Stream 2 上
# 复位该 Event，在短核函数之后再次记录，由 Host 等待它。在硬件上，这个等待由 Device 完成：Host 把所有任务放入队列，
# 在两次下发之间从不停下。
#
# 样例用 `aclrtCreateEvent` 创建 Event 后又复位它。API 参考规定 `aclrtResetEvent` 仅支持复位由 `aclrtCreateEventWithFlag` 创建、
# 带有 `ACL_EVENT_SYNC` 标志的 Event（`docs/zh/api_ref/07_event_management.md` 中的 aclrtResetEvent），所以下面的单元格按这种方式
# 创建 Event。（沙箱对 `aclrtCreateEvent` 创建的 Event 也照样复位、不报错，与运行时源码一致：其默认标志包含 sync 位；
# 在参考文档写明“不支持”的地方这样处理，是沙箱的选择。）
#
# ```c
# long_op<<<1, nullptr, stream1>>>(x);
# aclrtRecordEvent(event, stream1);
# aclrtStreamWaitEvent(stream2, event);   // Stream 2 等待，Host 不等待
# aclrtResetEvent(event, stream2);
# short_op<<<1, nullptr, stream2>>>(x);
# aclrtRecordEvent(event, stream2);
# aclrtSynchronizeEvent(event);            // Host 只在这里等待一次
# ```

# %%
fresh()
s1, _ = acl.rt.create_stream()
s2, _ = acl.rt.create_stream()
event, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC)   # C: aclrtCreateEventWithFlag(&event, ACL_EVENT_SYNC);
x = upload([0], np.uint32)
long_op[1, s1](x)
print("record on stream 1 ->", acl.rt.record_event(event, s1))
print("stream 2 waits ->", acl.rt.stream_wait_event(s2, event))
print("reset on stream 2 ->", acl.rt.reset_event(event, s2))
short_op[1, s2](x)
print("record on stream 2 ->", acl.rt.record_event(event, s2))
t_queued = sandbox.now()
print("synchronize event ->", acl.rt.synchronize_event(event))
print(f"x = {download(x, 1, np.uint32)[0]} (expected 2); the host waited "
      f"{(sandbox.now() - t_queued) / 1e6:.3f} ms, once, after queueing everything")
sandbox.gantt()

# %% [markdown]
# The arrow goes from the record on stream 1 to the wait on stream 2 it released. The timing
# sample, `event/1_event_timestamp`, brackets a task with two events and reads their device
# timestamps and the time between them:
#
# ```c
# aclrtRecordEvent(start, stream);
# long_op<<<1, nullptr, stream>>>(x);
# aclrtRecordEvent(end, stream);
# aclrtSynchronizeStream(stream);
# aclrtEventGetTimestamp(start, &t0);  aclrtEventGetTimestamp(end, &t1);
# aclrtEventElapsedTime(&ms, start, end);
# ```

# %% [markdown] lang="zh"
# 箭头从 Stream 1 上的记录指向它所放行的 Stream 2 上的等待。计时样例 `event/1_event_timestamp` 用两个 Event 把一个任务夹在
# 中间，读取它们的 Device 时间戳以及两者之间的时间：
#
# ```c
# aclrtRecordEvent(start, stream);
# long_op<<<1, nullptr, stream>>>(x);
# aclrtRecordEvent(end, stream);
# aclrtSynchronizeStream(stream);
# aclrtEventGetTimestamp(start, &t0);  aclrtEventGetTimestamp(end, &t1);
# aclrtEventElapsedTime(&ms, start, end);
# ```

# %%
start, _ = acl.rt.create_event()
end, _ = acl.rt.create_event()
acl.rt.record_event(start, s1)
long_op[1, s1](x)
acl.rt.record_event(end, s1)
acl.rt.synchronize_stream(s1)
(t0, _), (t1, _) = acl.rt.event_get_timestamp(start), acl.rt.event_get_timestamp(end)
ms, ret = acl.rt.event_elapsed_time(start, end)
print(f"timestamps {t0} and {t1} (µs); elapsed {ms:.4f} ms for a kernel declared as 2 ms")

# %% [markdown]
# The elapsed time is slightly more than the 2 ms the kernel declares: the two events bracket
# everything the stream did between them, the kernel's start on the device included. Notebook 03 covers events and priorities; its deep dive 03x_event_timing covers timing in depth.

# %% [markdown] lang="zh"
# 耗时略多于核函数声明的 2 ms：两个 Event 夹住了 Stream 在它们之间所做的一切，包括核函数在 Device 上的启动。notebook 03 讲解 Event 和优先级；它的选学深入 03x_event_timing 深入讲解计时。

# %% [markdown]
# ## 4 · Failure modes (`stream/0_simple_stream`, `event/0_event_status`)
#
# Both samples set `ACL_STOP_ON_FAILURE` on their stream before launching, and both runs go
# well, so the README never shows what it does. It decides what happens to the tasks after a
# failed one: by default (`ACL_CONTINUE_ON_FAILURE`) the failed task is skipped and later tasks
# run; with stop-on-failure the stream stops, and so does every stream of its context (the API
# reference says so for every product that has the call: *aclrtSetStreamFailureMode*,
# `docs/zh/api_ref/06_stream_management.md`). On hardware that is the difference between a
# wrong result computed from a half-done step and a clean stop with an error code. Here the
# sample's steps with a failing kernel between two good ones:
#
# ```c
# aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE);   // once per stream
# easy_op<<<1, nullptr, stream>>>(x);
# error_op<<<1, nullptr, stream>>>();                       // faults on the device
# easy_op<<<1, nullptr, stream>>>(x);                       // runs, or not?
# aclrtRecordEvent(event, stream);
# aclrtQueryEventStatus(event, &status);                    // the sample's event check
# aclError ret = aclrtSynchronizeStream(stream);            // the fault is reported here
# ```
#
# **Predict, then run.** The cell runs these steps once in each mode on a fresh `x = 0`. What
# is `x` after each run, and what does each synchronize return?

# %% [markdown] lang="zh"
# ## 4 · 任务调度模式（`stream/0_simple_stream`、`event/0_event_status`）
#
# 这两个样例都在下发之前给它们的 Stream 设置了 `ACL_STOP_ON_FAILURE`，而两次运行都很顺利，所以 README 从未展示它的
# 作用。它决定失败任务之后的任务怎么办：默认（`ACL_CONTINUE_ON_FAILURE`）跳过失败的任务，后续任务照常运行；
# 设置为遇错即停后，这条 Stream 以及它所在 Context（上下文）的每条 Stream 都会停止（API 参考对所有支持该接口的产品都这样写：
# `docs/zh/api_ref/06_stream_management.md` 中的 aclrtSetStreamFailureMode）。在硬件上，这就是“用做了一半的步骤
# 算出错误结果”与“带着错误码干净地停下”之间的区别。下面是样例的步骤，在两个正常核函数之间放一个会失败的核函数：
#
# ```c
# aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE);   // 每条 Stream 只能设置一次
# easy_op<<<1, nullptr, stream>>>(x);
# error_op<<<1, nullptr, stream>>>();                       // 在 Device 上出错
# easy_op<<<1, nullptr, stream>>>(x);                       // 运行还是不运行？
# aclrtRecordEvent(event, stream);
# aclrtQueryEventStatus(event, &status);                    // 样例中的 Event 检查
# aclError ret = aclrtSynchronizeStream(stream);            // 故障在这里报告
# ```
#
# **先预测，再运行。** 下面的单元格在 `x = 0` 上把这些步骤按两种模式各运行一次。每次运行后 `x` 是多少？每次同步返回什么？

# %%
def with_a_failing_kernel(mode):
    fresh()
    stream, _ = acl.rt.create_stream()
    acl.rt.set_stream_failure_mode(stream, mode)
    event, _ = acl.rt.create_event()
    x = upload([0], np.uint32)
    easy_op[1, stream](x)
    error_op[1, stream]()
    easy_op[1, stream](x)
    acl.rt.record_event(event, stream)
    status, _ = acl.rt.query_event_status(event)
    sync = acl.rt.synchronize_stream(stream)
    acl.get_recent_err_msg()                      # read (and clear) the failure's message
    value = download(x, 1, np.uint32)
    ran = finished_tasks()
    print(f"{'stop' if mode else 'continue':>8}: event status before the sync {status}, sync -> {sync}, "
          f"kernels that ran {ran}, x = {value[0]}")


with_a_failing_kernel(acl.ACL_CONTINUE_ON_FAILURE)
with_a_failing_kernel(acl.ACL_STOP_ON_FAILURE)
sandbox.gantt()

# %% [markdown]
# Both synchronizes return 507015 (an AI Core exception). With continue-on-failure the second
# `easy_op` runs (x = 2); with stop-on-failure it does not (x = 1): the stream stopped at the
# fault, and the chart shows the second `easy_op` never started. The event status read before the
# synchronize is 0 (not yet reached) in both, as in `0_event_status`. Notebook 09 shows the
# recovery (`aclrtResetDevice`) and injected faults.

# %% [markdown] lang="zh"
# 两次同步都返回 507015（AI Core 异常）。遇错继续时第二个 `easy_op` 照常运行（x = 2）；遇错即停时它不运行
# （x = 1）：Stream 在故障处停了下来，图中可以看到第二个 `easy_op` 从未开始。同步之前读取的 Event 状态两次都是 0（尚未到达），与
# `0_event_status` 一样。notebook 09 展示如何恢复（`aclrtResetDevice`）以及注入故障。

# %% [markdown]
# ## 5 · Callbacks (`callback/0_simple_callback`, `1_callback_hostfunc`, `2_callback_exception`)
#
# A callback is host code the *stream* runs: it is queued like a kernel and runs when the stream
# gets there, and with `ACL_CALLBACK_BLOCK` the stream waits for it. `aclrtLaunchCallback` needs
# a host thread of yours subscribed to the stream and looping on `aclrtProcessReport`;
# `aclrtLaunchHostFunc` runs on a thread the runtime makes. On hardware this is how a program
# learns, without polling, that a step is done (to free a buffer, to hand a result on). Sample
# 0 in short, with sample 1's host function on a second stream:
#
# ```c
# // a thread of yours:  while (running) aclrtProcessReport(100);
# aclrtSubscribeReport(reportThreadId, stream);
# long_op<<<1, nullptr, stream>>>(x);
# aclrtLaunchCallback(on_done, &userData, ACL_CALLBACK_BLOCK, stream);  // after the kernel
# aclrtLaunchHostFunc(other, host_func, &userData);    // 1_callback_hostfunc: the runtime's thread
# aclrtSynchronizeStream(stream);
# ```
#
# pyACL binds the callback calls (`subscribe_report`, `launch_callback`, `process_report`);
# `acl.rt.launch_host_func` is the sandbox's, named by pyACL's rule, and not in `import acl` on a
# board.

# %% [markdown] lang="zh"
# ## 5 · 回调（`callback/0_simple_callback`、`1_callback_hostfunc`、`2_callback_exception`）
#
# 回调是由 *Stream* 来运行的 Host 代码：它像核函数一样入队，在 Stream 执行到它时运行；使用 `ACL_CALLBACK_BLOCK` 时 Stream 会等待
# 它完成。`aclrtLaunchCallback` 需要你自己的一个 Host 线程订阅该 Stream 并循环调用 `aclrtProcessReport`；
# `aclrtLaunchHostFunc` 则在运行时创建的线程上运行。在硬件上，程序就是这样不经轮询地得知某一步已经完成（以便
# 释放缓冲区、把结果传下去）。下面是样例 0 的要点，样例 1 的 Host 函数放在第二条 Stream 上：
#
# ```c
# // 你自己的线程：  while (running) aclrtProcessReport(100);
# aclrtSubscribeReport(reportThreadId, stream);
# long_op<<<1, nullptr, stream>>>(x);
# aclrtLaunchCallback(on_done, &userData, ACL_CALLBACK_BLOCK, stream);  // 在核函数之后
# aclrtLaunchHostFunc(other, host_func, &userData);    // 1_callback_hostfunc：运行时的线程
# aclrtSynchronizeStream(stream);
# ```
#
# pyACL 绑定了回调相关的调用（`subscribe_report`、`launch_callback`、`process_report`）；`acl.rt.launch_host_func` 是沙箱按
# pyACL 的命名规则提供的，板卡上的 `import acl` 里没有。

# %%
fresh()
stream, _ = acl.rt.create_stream()
x = upload([0], np.uint32)
running, seen = [True], []


def report_loop():
    while running[0]:
        acl.rt.process_report(100)               # C: aclrtProcessReport(100);


def on_done(data):
    seen.append(f"callback on {threading.current_thread().name}: user data {data[0]}, "
                f"kernels done by then: {finished_tasks()}")


def host_func(data):
    seen.append(f"host function: user data {data[0]}")


reporter = threading.Thread(target=report_loop, name="report thread")
reporter.start()
print("subscribe ->", acl.rt.subscribe_report(reporter.ident, stream))
long_op[1, stream](x)
print("launch_callback ->", acl.rt.launch_callback(on_done, [520], acl.ACL_CALLBACK_BLOCK, stream))
other, _ = acl.rt.create_stream()               # 1_callback_hostfunc: a stream nobody subscribed to
print("launch_host_func ->", acl.rt.launch_host_func(other, host_func, [521]))
print("synchronize ->", acl.rt.synchronize_stream(stream), acl.rt.synchronize_stream(other))
running[0] = False
reporter.join()
print("unsubscribe ->", acl.rt.unsubscribe_report(reporter.ident, stream))
print(*seen, sep="\n")
sandbox.gantt()

# %% [markdown]
# The callback ran on the report thread once the 2 ms kernel was done; the host function, with
# nothing before it on its stream, ran at once, on the runtime's side (its own row in the chart). `2_callback_exception` registers an
# exception-info callback, which the runtime calls from its own thread when a task fails on the
# device, before the synchronize returns the code:
#
# ```c
# aclrtSetExceptionInfoCallback(on_exception);   // on_exception(aclrtExceptionInfo *info)
# error_op<<<1, nullptr, stream>>>();
# aclrtSynchronizeStream(stream);                // 507015, after on_exception ran
# // inside: aclrtGetTaskIdFromExceptionInfo(info), ...GetStreamId..., ...GetErrorCode...
# ```

# %% [markdown] lang="zh"
# 回调在 2 ms 的核函数完成后运行在上报线程上；Host 函数所在的 Stream 上它之前没有任务，所以它立即在运行时一侧运行
# （图中有它自己的一行）。
# `2_callback_exception` 注册一个异常信息回调：当任务在 Device 上失败时，运行时会在同步返回错误码之前，从它自己的
# 线程调用这个回调：
#
# ```c
# aclrtSetExceptionInfoCallback(on_exception);   // on_exception(aclrtExceptionInfo *info)
# error_op<<<1, nullptr, stream>>>();
# aclrtSynchronizeStream(stream);                // 507015，此时 on_exception 已运行
# // 回调内：aclrtGetTaskIdFromExceptionInfo(info)、...GetStreamId...、...GetErrorCode...
# ```

# %%
fresh()
stream, _ = acl.rt.create_stream()
reports = []


def on_exception(info):
    reports.append(f"task {acl.rt.get_task_id_from_exception_info(info)}, "
                   f"stream {acl.rt.get_stream_id_from_exception_info(info)}, "
                   f"device {acl.rt.get_device_id_from_exception_info(info)}, "
                   f"code {acl.rt.get_error_code_from_exception_info(info)}")


print("set_exception_info_callback ->", acl.rt.set_exception_info_callback(on_exception))
error_op[1, stream]()
print("synchronize ->", acl.rt.synchronize_stream(stream))
acl.get_recent_err_msg()
print("the exception callback saw:", reports)

# %% [markdown]
# Notebook 07 covers callbacks: blocking or not, what a slow callback costs the stream, and the
# host functions.

# %% [markdown] lang="zh"
# notebook 07 专门讲解回调：阻塞与非阻塞、慢回调让 Stream 付出什么代价，以及 Host 函数。

# %% [markdown]
# ## 6 · Capture and replay (`model_ri/0_simple_model`)
#
# `0_simple_model` records the work of a stream into a model runtime instance (`aclmdlRI`)
# between `aclmdlRICaptureBegin` and `aclmdlRICaptureEnd`, prints it as JSON and replays it
# several times with `aclmdlRIExecuteAsync`. Its captured work is two operators of the operator
# library, aclnnAdd and aclnnMul, which the sandbox does not have: this section captures a
# `@sandbox.kernel` in their place, and the capture calls are the sample's. On hardware a replay
# submits every recorded task with one host call, which is what makes graphs worth it for many
# small kernels.
#
# ```c
# aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
# aclrtMemcpyAsync(a, bytes, hostA, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream);  // recorded
# vector_add<<<1, nullptr, stream>>>(a, b, out, alpha, n);                      // recorded
# aclmdlRICaptureEnd(stream, &modelRI);
# aclmdlRIDebugJsonPrint(modelRI, "model.json", 0);
# for (int i = 0; i < 3; ++i) { aclmdlRIExecuteAsync(modelRI, stream); aclrtSynchronizeStream(stream); }
# aclmdlRIDestroy(modelRI);
# ```
#
# pyACL has no binding of the capture calls: `acl.mdl.ri_*` are the sandbox's, named by pyACL's rule.
#
# **Predict, then run.** The cell captures a copy and a kernel, then ends the capture. What
# does `out` hold right after `aclmdlRICaptureEnd`?

# %% [markdown] lang="zh"
# ## 6 · 捕获与重放（`model_ri/0_simple_model`）
#
# `0_simple_model` 在 `aclmdlRICaptureBegin` 与 `aclmdlRICaptureEnd` 之间把一条 Stream 的任务记录进一个模型运行实例
# （`aclmdlRI`），把它打印为 JSON，再用 `aclmdlRIExecuteAsync` 重放若干次。它捕获的是算子库中的两个算子
# aclnnAdd 和 aclnnMul，沙箱没有这些算子：本节用一个 `@sandbox.kernel` 代替它们，捕获相关的调用与样例相同。
# 在硬件上，一次重放用一次 Host 调用提交全部记录的任务，这正是图在大量小核函数时值得使用的原因。
#
# ```c
# aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
# aclrtMemcpyAsync(a, bytes, hostA, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream);  // 被记录
# vector_add<<<1, nullptr, stream>>>(a, b, out, alpha, n);                      // 被记录
# aclmdlRICaptureEnd(stream, &modelRI);
# aclmdlRIDebugJsonPrint(modelRI, "model.json", 0);
# for (int i = 0; i < 3; ++i) { aclmdlRIExecuteAsync(modelRI, stream); aclrtSynchronizeStream(stream); }
# aclmdlRIDestroy(modelRI);
# ```
#
# pyACL 没有绑定捕获相关的调用：`acl.mdl.ri_*` 是沙箱按 pyACL 的命名规则提供的。
#
# **先预测，再运行。** 下面的单元格捕获一次拷贝和一个核函数，然后结束捕获。刚调用完 `aclmdlRICaptureEnd` 时，`out` 里是什么？

# %%
import json
import os
import tempfile

fresh()
stream, _ = acl.rt.create_stream()
a_pinned, _ = acl.rt.malloc_host(32)
acl.util.ptr_to_numpy(a_pinned, (8,), np.float32)[:] = np.arange(1, 9)
a, b = upload(np.zeros(8)), upload(np.ones(8))
out, _ = acl.rt.malloc(32, HUGE)
print("capture begin ->", acl.mdl.ri_capture_begin(stream, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL))
acl.rt.memcpy_async(a, 32, a_pinned, 32, H2D, stream)
vector_add[1, stream](a, b, out, 1.0, 8)
ri, ret = acl.mdl.ri_capture_end(stream)
print("capture end ->", ret, "; out after the capture:", download(out, 8))
path = os.path.join(tempfile.mkdtemp(), "model.json")
acl.mdl.ri_debug_json_print(ri, path, 0)
with open(path, encoding="utf-8") as f:
    print("tasks in the instance:", [(task["task_type"], task["name"]) for task in json.load(f)["tasks"]])

# %%
for i in range(3):
    acl.util.ptr_to_numpy(a_pinned, (8,), np.float32)[:] += 10   # new input each time
    acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_stream(stream)
    print(f"replay {i + 1}: out = {download(out, 8)}")
print("destroy ->", acl.mdl.ri_destroy(ri))
sandbox.gantt()

# %% [markdown]
# Capturing ran nothing (the output stayed zero); each replay ran the copy and the kernel again,
# reading the pinned buffer as it was at that moment. Notebook 08 measures what a replay saves
# and what may not be captured.

# %% [markdown] lang="zh"
# 捕获时什么也没有运行（输出仍为零）；每次重放都重新执行拷贝和核函数，读取的是锁页缓冲区在那一刻的内容。
# notebook 08 测量重放节省了什么，以及哪些调用不能被捕获。

# %% [markdown]
# ## 7 · Memory pool (`3_memory_advanced/memory_pool`)
#
# The topic page has no sample code; it lists what to understand: the pool's thresholds, its
# reserved and used memory, and how an asynchronous allocation and free relate to stream
# order, compared with `aclrtMalloc`/`aclrtFree`. The sandbox has the calls. On hardware the
# point is that `aclrtFree` does not wait for the work still using a buffer, so a loop with
# fresh buffers must synchronise before each free; a pool's free is queued on the stream and
# gives the block back only when the work before it is done, so the host never waits:
#
# ```c
# aclrtMemPoolCreate(&pool, &props);
# for (int step = 0; step < 4; ++step) {
#     aclrtMemPoolMallocAsync(&buf, bytes, pool, stream);
#     aclrtMemcpyAsync(buf, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream);
#     aclrtMemPoolFreeAsync(buf, stream);            // in stream order, after the copy
# }
# aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &high);
# ```
#
# pyACL has no binding of the pool calls either: `acl.rt.mem_pool_*` are the sandbox's.

# %% [markdown] lang="zh"
# ## 7 · 内存池（`3_memory_advanced/memory_pool`）
#
# 该专题页没有样例代码；它列出需要理解的内容：内存池的阈值、保留内存与已用内存，以及异步分配和释放与 Stream 顺序的
# 关系，并与 `aclrtMalloc`/`aclrtFree` 比较。沙箱提供这些调用。在硬件上，关键在于 `aclrtFree` 不会等待仍在使用
# 缓冲区的任务，所以每步都用新缓冲区的循环必须在每次释放之前同步；内存池的释放被放入 Stream 中，只有在它之前的任务
# 完成后才归还内存块，所以 Host 从不等待：
#
# ```c
# aclrtMemPoolCreate(&pool, &props);
# for (int step = 0; step < 4; ++step) {
#     aclrtMemPoolMallocAsync(&buf, bytes, pool, stream);
#     aclrtMemcpyAsync(buf, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream);
#     aclrtMemPoolFreeAsync(buf, stream);            // 按 Stream 顺序，在拷贝之后
# }
# aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &high);
# ```
#
# pyACL 也没有绑定内存池的调用：`acl.rt.mem_pool_*` 是沙箱提供的。

# %%
MiB = 1 << 20
fresh(device_count=1)
stream, _ = acl.rt.create_stream()
host, _ = acl.rt.malloc_host(8 * MiB)
props = {"allocType": acl.ACL_MEM_ALLOCATION_TYPE_PINNED, "handleType": acl.ACL_MEM_HANDLE_TYPE_NONE,
         "location": {"id": 0, "type": acl.ACL_MEM_LOCATION_TYPE_DEVICE}, "maxSize": 0}
pool, ret = acl.rt.mem_pool_create(props)
print("mem_pool_create ->", ret)
blocks, t0 = [], sandbox.now()
for step in range(4):
    buf, _ = acl.rt.mem_pool_malloc_async(8 * MiB, pool, stream)
    acl.rt.memcpy_async(buf, 8 * MiB, host, 8 * MiB, H2D, stream)
    acl.rt.mem_pool_free_async(buf, stream)
    blocks.append(hex(buf))
t_queued = sandbox.now()
print(f"four steps queued in {(t_queued - t0) / 1e3:.1f} µs of host time; the blocks: {blocks}")
for attr in ("RESERVED_MEM_CURRENT", "USED_MEM_HIGH"):
    value, _ = acl.rt.mem_pool_get_attr(pool, getattr(acl, "ACL_RT_MEM_POOL_ATTR_" + attr))
    print(f"{attr:<21} {value // MiB} MiB")
sandbox.memory_map(t_queued)

# %%
acl.rt.synchronize_stream(stream)
print("after the synchronize, used now:",
      acl.rt.mem_pool_get_attr(pool, acl.ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT)[0], "bytes")
sandbox.show(t=t_queued)

# %% [markdown]
# The four steps reused one block, and the host queued them all before the first copy ended:
# the dashboard at that moment shows the copies still waiting in the stream's queue. The deep
# dive 04x_memory_pools compares this loop with plain `aclrtMalloc`/`aclrtFree`.

# %% [markdown] lang="zh"
# 四个步骤重复使用同一个内存块，而且 Host 在第一次拷贝结束之前就把它们全部放入了队列：仪表盘在那一刻显示拷贝仍
# 在 Stream 的队列中等待。选学深入 04x_memory_pools 把这个循环与普通的 `aclrtMalloc`/`aclrtFree` 进行比较。

# %% [markdown]
# ## 8 · Two devices (`device/2_device_P2P`)
#
# The sample checks that device 0 can reach device 1 (`aclrtDeviceCanAccessPeer`), enables
# peer access in both directions (each from its own device), fills a buffer on device 0, copies
# it straight to device 1 and verifies it on the host. On hardware a peer copy goes over the
# link between the two chips instead of through host memory; without peer access from the
# source device to the destination it is refused. The buffers use the `_P2P` allocation policy:
#
# ```c
# aclrtSetDevice(0);  aclrtDeviceCanAccessPeer(&can, 0, 1);  aclrtDeviceEnablePeerAccess(1, 0);
# aclrtMalloc(&dev0, n, ACL_MEM_MALLOC_HUGE_FIRST_P2P);  aclrtMemset(dev0, n, value, n);
# aclrtSetDevice(1);  aclrtDeviceEnablePeerAccess(0, 0);
# aclrtMalloc(&dev1, n, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
# aclrtMemcpy(dev1, n, dev0, n, ACL_MEMCPY_DEVICE_TO_DEVICE);     // device 0 -> device 1
# aclrtMemcpy(host, n, dev1, n, ACL_MEMCPY_DEVICE_TO_HOST);
# ```

# %% [markdown] lang="zh"
# ## 8 · 两个 Device（`device/2_device_P2P`）
#
# 该样例检查 Device 0 能否访问 Device 1（`aclrtDeviceCanAccessPeer`），在两个方向上启用 Device 间数据交互（各自在自己的 Device 上
# 启用），在 Device 0 上填充一个缓冲区，把它直接拷贝到 Device 1，并在 Host 上验证。在硬件上，Device 间拷贝走两颗芯片之间
# 的链路，而不经过 Host 内存；源 Device 没有开启到目的 Device 的数据交互时，拷贝会被拒绝。缓冲区使用 `_P2P` 分配策略：
#
# ```c
# aclrtSetDevice(0);  aclrtDeviceCanAccessPeer(&can, 0, 1);  aclrtDeviceEnablePeerAccess(1, 0);
# aclrtMalloc(&dev0, n, ACL_MEM_MALLOC_HUGE_FIRST_P2P);  aclrtMemset(dev0, n, value, n);
# aclrtSetDevice(1);  aclrtDeviceEnablePeerAccess(0, 0);
# aclrtMalloc(&dev1, n, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
# aclrtMemcpy(dev1, n, dev0, n, ACL_MEMCPY_DEVICE_TO_DEVICE);     // Device 0 -> Device 1
# aclrtMemcpy(host, n, dev1, n, ACL_MEMCPY_DEVICE_TO_HOST);
# ```

# %%
fresh(device_count=2)
P2P = acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P
can, ret = acl.rt.device_can_access_peer(0, 1)
print("device 0 can access device 1:", can, "; enable 0 -> 1 ->", acl.rt.device_enable_peer_access(1, 0))
n = 10
dev0, _ = acl.rt.malloc(n, P2P)
acl.rt.memset(dev0, n, 7, n)
acl.rt.set_device(1)
print("enable 1 -> 0 ->", acl.rt.device_enable_peer_access(0, 0))
dev1, _ = acl.rt.malloc(n, P2P)
acl.rt.memset(dev1, n, 0, n)
print("copy device 0 -> device 1 ->", acl.rt.memcpy(dev1, n, dev0, n, acl.ACL_MEMCPY_DEVICE_TO_DEVICE))
host, _ = acl.rt.malloc_host(n)
acl.rt.memcpy(host, n, dev1, n, D2H)
print("bytes read back on the host:", list(acl.util.ptr_to_bytes(host, n)))
sandbox.gantt()

# %% [markdown]
# **Predict, then run.** The sample enables both directions. Is one enable enough for this
# copy from device 0 to device 1, and if so which one? The cell tries the enable on device 0
# alone (`aclrtDeviceEnablePeerAccess(1, 0)` with device 0 current), then none.

# %% [markdown] lang="zh"
# **先预测，再运行。** 样例开启了两个方向。这次从 Device 0 到 Device 1 的拷贝，只开一个方向够不够？如果够，是哪一个？
# 下面的单元格先只在 Device 0 上开启（当前 Device 为 0 时调用 `aclrtDeviceEnablePeerAccess(1, 0)`），再一个都不开。

# %%
for enable_0_to_1 in (True, False):
    fresh(device_count=2)
    if enable_0_to_1:
        acl.rt.device_enable_peer_access(1, 0)   # on device 0: access to device 1
    dev0, _ = acl.rt.malloc(n, P2P)
    acl.rt.set_device(1)
    dev1, _ = acl.rt.malloc(n, P2P)
    ret = acl.rt.memcpy(dev1, n, dev0, n, acl.ACL_MEMCPY_DEVICE_TO_DEVICE)
    print(f"enable 0 -> 1 only: {enable_0_to_1}; copy device 0 -> device 1 -> {ret}")
print(acl.get_recent_err_msg())

# %% [markdown]
# One enable is enough: access from device 0 to device 1 lets device 0's memory be copied to
# device 1. The sample's second enable would serve a copy the other way. Notebook 05 covers
# devices and the per-thread current device; its deep dive 05x_peer_links, peer links and their bandwidth.

# %% [markdown] lang="zh"
# 开一个方向就够了：开启 Device 0 到 Device 1 的访问后，Device 0 的内存就能拷到 Device 1。样例的第二次开启服务的是反方向的拷贝。
# notebook 05 讲解 Device 和按线程的当前 Device；它的选学深入 05x_peer_links 讲解 Device 间链路及其带宽。

# %% [markdown]
# ## Concept check
#
# Five questions on what the samples show; each wrong choice is a mistake programs really make.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 五道题，考查这些样例演示的要点；每个错误选项都是程序里真实会犯的错。

# %%
teach.questions("11.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "b", 2: "a", 3: "c", 4: "b", 5: "a"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 5, "schema_version": 3, "solution": false, "task": false}
teach.check("11.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("11.concepts", concepts, isolated=True).score * 5
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# The official samples are short because each shows one idea: a launch only queues work
# (quickstart); a failed call leaves a code and a message to read once (error handling); an
# event orders two streams on the device and times work with device timestamps; a stream's
# failure mode decides whether work after a fault runs, and stop-on-failure covers the whole
# context; callbacks and host functions let the stream run host code in order; a captured
# instance replays many tasks for one call; a pool frees in stream order; a peer copy needs
# access enabled from its source device, one direction per enable. Each port in `examples/`
# runs the whole sample, and examples/README.md lists the samples and their status. Notebook 12
# (inference) comes next; go back to any topic notebook from its "Official samples for this
# topic" cell.

# %% [markdown] lang="zh"
# ## 小结
#
# 官方样例都很短，因为每个只讲一个要点：下发只是把任务放进队列（快速入门）；失败的调用留下只能读一次的错误码和错误信息
# （错误处理）；Event 在 Device 上为两条 Stream 排序，并用 Device 时间戳为任务计时；Stream 的任务调度模式决定故障之后的任务
# 是否执行，而遇错即停作用于整个 Context；回调和 Host 函数让 Stream 按顺序执行 Host 代码；捕获得到的实例用一次调用重放许多
# 任务；内存池按 Stream 顺序释放；Device 间拷贝需要源 Device 开启数据交互，每次开启只开一个方向。`examples/` 中的每个移植版本
# 运行完整的样例，examples/README.md 列出了全部样例及其状态。下一个是 notebook 12（推理）；也可以从任何专题 notebook 的
# “本专题的官方示例”单元格回到这里。

# %% [markdown] lang="zh" translates="code"
# en: # record types of sandbox.trace()
# zh: # sandbox.trace() 的记录类型
# en: """A fresh 910B server with acl initialised and device 0 set on this thread."""
# zh: """一台全新的 910B 服务器：acl 已初始化，本线程已设置 Device 0。"""
# en: """The names of the tasks of a kind that finished without error so far, from the trace."""
# zh: """从 trace 中找出到目前为止某类任务里无错完成的那些任务的名字。"""
# en: """A device buffer holding ``values`` (a blocking copy from ordinary host memory)."""
# zh: """一个存放 ``values`` 的 Device 缓冲区（从普通 Host 内存阻塞拷贝）。"""
# en: """``n`` values copied back from a device buffer (a blocking copy)."""
# zh: """从 Device 缓冲区拷回的 ``n`` 个值（阻塞拷贝）。"""
# en: # 2 ms, as the samples' long kernel
# zh: # 2 ms，与样例中的长核函数一样
# en: # a fault on the device: an AI Core exception
# zh: # Device 上的故障：AI Core 异常
# en: # aclrtMalloc + aclrtMemcpy H2D, twice
# zh: # aclrtMalloc + aclrtMemcpy H2D，各两次
# en: f"launch -> {ret} after {(sandbox.now() - t0) / 1e3:.1f} µs of host time; "
# zh: f"launch -> {ret}，用时 {(sandbox.now() - t0) / 1e3:.1f} µs Host 时间；"
# en: f"kernels finished so far: {finished_tasks()}"
# zh: f"目前已完成的核函数：{finished_tasks()}"
# en: "result:", result, "matches the host's sum:"
# zh: "结果：", result, "与 Host 算出的和一致："
# en: "message:"
# zh: "错误信息："
# en: "read again: peek ->"
# zh: "再读一次：peek ->"
# en: f"x = {download(x, 1, np.uint32)[0]} (expected 2); the host waited "
# zh: f"x = {download(x, 1, np.uint32)[0]}（期望 2）；Host 在全部入队之后只等待了一次，"
# en: f"{(sandbox.now() - t_queued) / 1e6:.3f} ms, once, after queueing everything"
# zh: f"共 {(sandbox.now() - t_queued) / 1e6:.3f} ms"
# en: f"timestamps {t0} and {t1} (µs); elapsed {ms:.4f} ms for a kernel declared as 2 ms"
# zh: f"时间戳 {t0} 和 {t1}（µs）；声明为 2 ms 的核函数耗时 {ms:.4f} ms"
# en: # read (and clear) the failure's message
# zh: # 读取（并清除）这次失败的错误信息
# en: f"{'stop' if mode else 'continue':>8}: event status before the sync {status}, sync -> {sync}, "
# zh: f"{'遇错即停' if mode else '遇错继续'}：同步前的 Event 状态 {status}，同步 -> {sync}，"
# en: f"kernels that ran {ran}, x = {value[0]}"
# zh: f"执行过的核函数 {ran}，x = {value[0]}"
# en: f"callback on {threading.current_thread().name}: user data {data[0]}, "
# zh: f"回调运行在 {threading.current_thread().name} 上：用户数据 {data[0]}，"
# en: f"kernels done by then: {finished_tasks()}"
# zh: f"那时已完成的核函数：{finished_tasks()}"
# en: f"host function: user data {data[0]}"
# zh: f"Host 函数：用户数据 {data[0]}"
# en: # 1_callback_hostfunc: a stream nobody subscribed to
# zh: # 1_callback_hostfunc：一条没有任何线程订阅的 Stream
# en: "the exception callback saw:"
# zh: "异常回调看到的："
# en: "; out after the capture:"
# zh: "；捕获之后的 out："
# en: "tasks in the instance:"
# zh: "实例中的任务："
# en: # new input each time
# zh: # 每次都是新的输入
# en: f"replay {i + 1}: out = {download(out, 8)}"
# zh: f"第 {i + 1} 次重放：out = {download(out, 8)}"
# en: f"four steps queued in {(t_queued - t0) / 1e3:.1f} µs of host time; the blocks: {blocks}"
# zh: f"四个步骤用 {(t_queued - t0) / 1e3:.1f} µs Host 时间全部入队；内存块：{blocks}"
# en: "after the synchronize, used now:"
# zh: "同步之后，当前已用："
# en: "bytes")
# zh: "字节")
# en: "device 0 can access device 1:"
# zh: "Device 0 能否访问 Device 1："
# en: "copy device 0 -> device 1 ->"
# zh: "拷贝 Device 0 -> Device 1 ->"
# en: "bytes read back on the host:"
# zh: "Host 上读回的字节："
# en: # on device 0: access to device 1
# zh: # 在 Device 0 上开启到 Device 1 的访问
# en: f"enable 0 -> 1 only: {enable_0_to_1}; copy device 0 -> device 1 -> {ret}"
# zh: f"只开启 0 -> 1：{enable_0_to_1}；拷贝 Device 0 -> Device 1 -> {ret}"
