# %% [markdown]
# # 07 · Host callbacks: let the stream tell the host when it gets there
#
# The asynchronous-execution article (seed 003) describes the runtime's asynchronous mechanism
# as **task queues plus callback notification** (任务队列 + 回调通知): the host puts copies and
# kernels on a stream and returns at once; when the device reaches a given point of the stream,
# a **callback** runs on the host to say so. A synchronize makes the host *wait* for that point;
# a callback lets the host go on with other work and be *told*.
#
# There are two mechanisms:
#
# | what | C (AscendCL) | Python (this sandbox, pyACL style) |
# |---|---|---|
# | bind a host thread to a stream | `aclrtSubscribeReport(threadId, stream)` | `acl.rt.subscribe_report(thread.ident, stream)` |
# | queue a callback task | `aclrtLaunchCallback(fn, userData, ACL_CALLBACK_BLOCK, stream)` | `acl.rt.launch_callback(fn, [data], acl.ACL_CALLBACK_BLOCK, stream)` |
# | run the next delivered callback | `aclrtProcessReport(timeoutMs)` | `acl.rt.process_report(timeout_ms)` |
# | unbind | `aclrtUnSubscribeReport(threadId, stream)` | `acl.rt.unsubscribe_report(thread.ident, stream)` |
# | host function, no thread of yours needed | `aclrtLaunchHostFunc(stream, fn, args)` | `acl.rt.launch_host_func(stream, fn, args)` |
#
# With `aclrtLaunchCallback` *you* provide the thread that runs the callbacks: it loops on
# `aclrtProcessReport`. With `aclrtLaunchHostFunc` the runtime runs the function on a thread of
# its own.
#
# **After this notebook** you can queue host work behind the device work it needs, with a host
# function or with a callback served by a report thread, choose BLOCK or NO_BLOCK, and avoid
# the callback deadlock. **It assumes** notebooks 01 to 03 and host threads (notebook 06).

# %% [markdown] lang="zh"
# # 07 · Host 回调：让流在到达某一点时告诉 Host
#
# 异步执行文章（种子 003）把运行时的异步机制描述为**任务队列 + 回调通知**：Host 把拷贝和核函数放到流上并立即返回；当
# 设备到达流中的某一点时，一个**回调**在 Host 上运行，告知这一点。同步让 Host *等待*那一点；回调则让 Host 继续做别的
# 工作，并*被告知*。
#
# 有两种机制：
#
# | 作用 | C（AscendCL） | Python（本沙箱，pyACL 风格） |
# |---|---|---|
# | 把一个 Host 线程绑定到流 | `aclrtSubscribeReport(threadId, stream)` | `acl.rt.subscribe_report(thread.ident, stream)` |
# | 放入一个回调任务 | `aclrtLaunchCallback(fn, userData, ACL_CALLBACK_BLOCK, stream)` | `acl.rt.launch_callback(fn, [data], acl.ACL_CALLBACK_BLOCK, stream)` |
# | 运行下一个送达的回调 | `aclrtProcessReport(timeoutMs)` | `acl.rt.process_report(timeout_ms)` |
# | 解除绑定 | `aclrtUnSubscribeReport(threadId, stream)` | `acl.rt.unsubscribe_report(thread.ident, stream)` |
# | Host 函数，不需要你提供线程 | `aclrtLaunchHostFunc(stream, fn, args)` | `acl.rt.launch_host_func(stream, fn, args)` |
#
# 使用 `aclrtLaunchCallback` 时，由*你*提供运行回调的线程：它循环调用 `aclrtProcessReport`。使用 `aclrtLaunchHostFunc`
# 时，运行时在它自己的线程上运行该函数。
#
# **学完本 notebook**，你能用 Host 函数或由上报线程服务的回调，把 Host 工作排在它所需的设备任务之后，在 BLOCK 与
# NO_BLOCK 之间做出选择，并避免回调死锁。**前提**：notebook 01 到 03，以及 Host 线程（notebook 06）。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import threading

import numpy as np

import sandbox
from sandbox import acl, teach
from sandbox.core import trace as T     # the record types of sandbox.trace(), to list callback runs

BLOCK, NO_BLOCK = acl.ACL_CALLBACK_BLOCK, acl.ACL_CALLBACK_NO_BLOCK
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST


@sandbox.kernel(ns=200_000)             # 200 µs of device work
def work(x: "float32*", n: int):
    x[:n] += 1


def board():
    """A fresh 910B with acl initialised, device 0 set, one stream and a small device buffer."""
    sandbox.configure("ascend910b")
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    return stream, buf


def callback_runs():
    """Which callbacks ran, on which host thread, when (from the trace)."""
    names = {r.tid: r.name for r in sandbox.trace().of(T.ThreadStarted)}
    for r in sandbox.trace().of(T.CallbackRun):
        mode = "BLOCK" if r.block else "NO_BLOCK"
        kind = r.kind if r.kind == "host_func" else f"callback, {mode}"
        print(f"  {r.fn_name:<12} ({kind}) ran on thread {names.get(r.tid, r.tid)!r} "
              f"at {r.start / 1e6:.4f} ms" + (f", raised {r.error}" if r.error else ""))

# %% [markdown]
# ## How the official callback sample goes
#
# The runtime repository's `example/2_advanced_features/callback/0_simple_callback` sample, in
# short:
#
# 1. initialise, open device 0, make a context and a stream (set to stop on the first failure);
# 2. start a **report thread** whose body makes the context current and then loops, while a
#    flag is set, on `aclrtProcessReport` with a 100 ms timeout;
# 3. subscribe that thread to the stream with `aclrtSubscribeReport`, passing the thread's id;
# 4. queue a BLOCK callback, a long-running kernel, a host function, and five more BLOCK
#    callbacks, all on the stream; each callback just logs the thread it runs on and its
#    user data;
# 5. synchronise the stream, copy the kernel's result back, clear the flag, join the thread,
#    unsubscribe, free, and tear down.
#
# The log shows every callback on the report thread, in stream order. We build the same shape
# below. (The sample also subscribes a second thread with `aclrtSubscribeHostFunc`, which its
# own support table marks as unavailable on A2/A3; the documentation says not to mix the two
# mechanisms on one stream, and the sandbox refuses to — see below.)

# %% [markdown] lang="zh"
# ## 官方回调示例的流程
#
# 运行时仓库的 `example/2_advanced_features/callback/0_simple_callback` 示例，简述如下：
#
# 1. 初始化，打开设备 0，创建一个上下文和一条流（设置为遇到第一个失败即停止）；
# 2. 启动一个**上报线程**，它的函数体先把上下文设为当前上下文，然后在一个标志被置位期间，以 100 ms 超时循环调用
#    `aclrtProcessReport`；
# 3. 用 `aclrtSubscribeReport` 把该线程订阅到流上，传入线程的 id；
# 4. 在流上依次放入一个 BLOCK 回调、一个长时间运行的核函数、一个 Host 函数，以及另外五个 BLOCK 回调；每个回调只记录
#    它所在的线程和它的用户数据；
# 5. 同步流，把核函数的结果拷回，清除标志，join 线程，取消订阅，释放资源并收尾。
#
# 日志显示每个回调都按流的顺序在上报线程上运行。我们在下面构建同样的结构。（该示例还用 `aclrtSubscribeHostFunc` 订阅了
# 第二个线程，而它自己的支持表把该接口标为在 A2/A3 上不可用；文档说明不要在一条流上混用两种机制，沙箱也会拒绝——见下文。）

# %% [markdown]
# ## No thread, no callback: 107015
#
# A callback needs a thread to run on. Launching one on a stream nobody subscribed to fails at
# once with `ACL_ERROR_RT_STREAM_NO_CB_REG`.

# %% [markdown] lang="zh"
# ## 没有线程，就没有回调：107015
#
# 回调需要一个运行它的线程。在一条没有任何订阅的流上下发回调，会立即以 `ACL_ERROR_RT_STREAM_NO_CB_REG` 失败。

# %%
stream, buf = board()
ret = acl.rt.launch_callback(lambda data: None, [0], BLOCK, stream)   # C: aclrtLaunchCallback(fn, data, ACL_CALLBACK_BLOCK, stream);
print("aclrtLaunchCallback ->", ret)
print(acl.get_recent_err_msg())

# %% [markdown]
# ## The thread that serves reports
#
# The report thread is an ordinary `threading.Thread`. Its loop calls `process_report` with a
# timeout, so that it can notice the stop flag even when nothing arrives; each call runs **at
# most one** callback. Its last call, after the work is done, waits out its timeout and returns
# 507012 (`ACL_ERROR_RT_REPORT_TIMEOUT`): that is how the loop ends, not a failure.
#
# Threads in the sandbox take turns by virtual clock: only one runs at a time, the one that is
# furthest behind in virtual time. So the interleaving — and every number printed here — is the
# same on every run, although two real threads are involved.

# %% [markdown] lang="zh"
# ## 服务上报的线程
#
# 上报线程是一个普通的 `threading.Thread`。它的循环以超时调用 `process_report`，这样即使什么都没到达，它也能注意到
# 停止标志；每次调用**至多**运行一个回调。任务完成后的最后一次调用会等满超时并返回 507012（`ACL_ERROR_RT_REPORT_TIMEOUT`）：
# 这是循环结束的方式，不是失败。
#
# 沙箱中的线程按虚拟时钟轮流执行：同一时刻只有一个在运行，即虚拟时间最落后的那个。所以尽管涉及两个真实线程，交错
# 方式——以及这里打印的每个数字——每次运行都相同。

# %%
class ReportServer:
    """A host thread looping on process_report(timeout) until stopped (the documented pattern)."""

    def __init__(self, timeout_ms=10):
        self.running = True
        self.returns = []
        self.thread = threading.Thread(target=self.loop, args=(timeout_ms,), name="report thread")
        self.thread.start()

    def loop(self, timeout_ms):
        acl.rt.set_device(0)                                  # C: aclrtSetDevice / aclrtSetCurrentContext
        while self.running:
            self.returns.append(acl.rt.process_report(timeout_ms))    # C: aclrtProcessReport(timeout);

    def stop(self):
        self.running = False
        self.thread.join()


seen = []


def after_first(data):
    seen.append(("after_first", data, threading.current_thread().name))


stream, buf = board()
server = ReportServer()
print("aclrtSubscribeReport ->", acl.rt.subscribe_report(server.thread.ident, stream))
work[1, stream](buf, 4)
print("aclrtLaunchCallback  ->", acl.rt.launch_callback(after_first, [520], BLOCK, stream))
work[1, stream](buf, 4)
print("aclrtSynchronizeStream ->", acl.rt.synchronize_stream(stream))
picture = sandbox.gantt(min_bar_px=6)   # drawn now: the report thread's next wait has not ended yet
server.stop()
print("aclrtUnSubscribeReport ->", acl.rt.unsubscribe_report(server.thread.ident, stream))
print("the callback saw:", seen)
print("the report thread's process_report returns:", server.returns)
callback_runs()

# %% [markdown]
# The Gantt chart, drawn right after the synchronize (so the report thread's last wait, which
# runs out its 10 ms timeout, is not in it): the report thread's row has one `aclrtProcessReport`,
# black while it waited, ending with the 1 µs in which it ran the callback (green). The stream's
# row has the first kernel, the callback task (green), then the second kernel, which started
# only when the callback had returned, because the callback was BLOCK. At true scale a 1 µs bar
# is a fraction of a pixel in this 400 µs picture; `min_bar_px=6` draws every bar at least 6
# pixels wide, so the two callbacks show (wider than they last).

# %% [markdown] lang="zh"
# 甘特图在同步之后立即绘制（所以上报线程最后一次等满 10 ms 超时的等待不在其中）：上报线程那一行有一次
# `aclrtProcessReport`，等待期间为黑色，以它运行回调的 1 µs（绿色）结束。流那一行有第一个核函数、回调任务（绿色），
# 然后是第二个核函数——它只在回调返回后才开始，因为回调是 BLOCK 的。按真实比例，1 µs 的条形在这张 400 µs 的图里
# 不到一个像素；`min_bar_px=6` 让每个条形至少 6 像素宽，于是两个回调都看得见（比它们实际持续的时间宽）。

# %%
picture

# %% [markdown]
# ## BLOCK vs NO_BLOCK
#
# The block type decides what the **stream** does while the callback waits for its thread:
#
# * `ACL_CALLBACK_BLOCK`: later tasks of the stream wait until the callback has run;
# * `ACL_CALLBACK_NO_BLOCK`: the stream goes on as soon as the callback is handed to the thread.
#
# Above the report thread was idle, so the difference was 1 µs. It matters when the thread that
# serves the stream is busy. Here the main thread serves its own stream (allowed: any thread of
# the program may be subscribed) and, after queuing kernel, callback, kernel, spends about 0.6 ms
# on a blocking copy before it calls `process_report`.

# %% [markdown] lang="zh"
# ## BLOCK 与 NO_BLOCK
#
# 阻塞类型决定了回调等待其线程期间**流**做什么：
#
# * `ACL_CALLBACK_BLOCK`：流的后续任务等到回调运行完毕；
# * `ACL_CALLBACK_NO_BLOCK`：回调一交给线程，流就继续。
#
# 上面的上报线程是空闲的，所以差别只有 1 µs。当服务该流的线程很忙时，差别就显现了。这里由主线程服务它自己的流（这是
# 允许的：程序的任何线程都可以被订阅），它在放入核函数、回调、核函数之后，先花约 0.6 ms 做一次阻塞拷贝，才调用
# `process_report`。

# %%
def busy_host(block_type):
    stream, buf = board()
    big, _ = acl.rt.malloc(32 << 20, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(32 << 20)
    acl.rt.subscribe_report(threading.get_ident(), stream)      # this thread serves the stream
    teach.mark("start")
    work[1, stream](buf, 4)
    acl.rt.launch_callback(lambda data: None, None, block_type, stream)
    work[1, stream](buf, 4)
    acl.rt.memcpy(big, 32 << 20, host, 32 << 20, H2D)            # the host is busy elsewhere
    acl.rt.process_report(100)                                  # ... and only now runs the callback
    acl.rt.synchronize_stream(stream)
    teach.mark("end")
    kernels = [r for r in sandbox.trace().of(T.TaskSubmitted) if r.kind == "kernel"]
    starts = {r.task: r.t for r in sandbox.trace().of(T.TaskStarted)}
    ends = {r.task: r.t for r in sandbox.trace().of(T.TaskFinished)}
    gap = starts[kernels[1].task] - ends[kernels[0].task]
    span = teach.window(start="start", end="end")
    name = "BLOCK" if block_type == BLOCK else "NO_BLOCK"
    print(f"{name:>8}: second kernel started {gap / 1e3:7.1f} µs after the first ended; "
          f"start to end {(span[1] - span[0]) / 1e3:.1f} µs")


busy_host(BLOCK)
blocked_gantt = sandbox.gantt()
busy_host(NO_BLOCK)

# %% [markdown]
# With BLOCK the callback task occupies the stream (the long green bar) until the host gets
# round to `process_report`; the second kernel waits behind it.

# %% [markdown] lang="zh"
# 使用 BLOCK 时，回调任务占住流（长长的绿色条形），直到 Host 顾得上调用 `process_report`；第二个核函数在它后面等待。

# %%
blocked_gantt

# %% [markdown]
# With NO_BLOCK the second kernel follows the first at once; the callback still runs late on
# the host, but nothing on the device waits for it: its 1 µs task on the stream (green, drawn
# 6 pixels wide again) sits between the two kernels.

# %% [markdown] lang="zh"
# 使用 NO_BLOCK 时，第二个核函数紧跟在第一个之后；回调仍然在 Host 上较晚运行，但设备上没有任何东西等待它：
# 它在流上 1 µs 的任务（绿色，同样画成 6 像素宽）位于两个核函数之间。

# %%
sandbox.gantt(min_bar_px=6)

# %% [markdown]
# Use BLOCK when later device work must not start before the callback is done (the callback
# refills a buffer the next kernel reads); use NO_BLOCK for notifications the device need not
# wait for (logging, handing a finished result on).
#
# ## process_report: timeouts and threads that serve nothing
#
# The timeout is in milliseconds (-1 waits forever; 0 and other negatives are invalid). If no
# callback arrives in time: 507012. On a thread that serves no stream: 107012.

# %% [markdown] lang="zh"
# 当后续设备任务不能在回调完成之前开始时（回调重新填充下一个核函数要读取的缓冲区），使用 BLOCK；对设备不必等待的
# 通知（记录日志、把完成的结果交出去），使用 NO_BLOCK。
#
# ## process_report：超时以及不服务任何流的线程
#
# 超时以毫秒计（-1 永远等待；0 和其他负数无效）。如果在时限内没有回调到达：507012。在不服务任何流的线程上：107012。

# %%
stream, buf = board()
print("not subscribed:", acl.rt.process_report(10))           # C: aclrtProcessReport(10);
print(acl.get_recent_err_msg())
acl.rt.subscribe_report(threading.get_ident(), stream)
before = sandbox.now()
ret = acl.rt.process_report(5)
print(f"subscribed, nothing queued: {ret} after {(sandbox.now() - before) / 1e6:.3f} ms of waiting")
print(acl.get_recent_err_msg())

# %% [markdown]
# ## Host functions: the runtime brings the thread
#
# `aclrtLaunchHostFunc(stream, fn, args)` needs no subscription and no loop: when the stream
# reaches the task, the runtime's own thread for the device runs `fn(args)`, and the later
# tasks of the stream wait for it (like BLOCK). The official `1_callback_hostfunc` sample is
# exactly that: a kernel, a host function that logs, a synchronize.
#
# The two mechanisms do not mix on one stream: a stream that has run a host function refuses
# a subscription, and the other way round, with 107011.
#
# pyACL binds `aclrtLaunchCallback` (`acl.rt.launch_callback`) but not `aclrtLaunchHostFunc`:
# `acl.rt.launch_host_func` is the sandbox's, for the C sample; a Python program on a board uses
# callbacks.

# %% [markdown] lang="zh"
# ## Host 函数：由运行时提供线程
#
# `aclrtLaunchHostFunc(stream, fn, args)` 不需要订阅，也不需要循环：当流到达该任务时，运行时为该设备准备的线程运行
# `fn(args)`，流的后续任务等待它（与 BLOCK 相同）。官方的 `1_callback_hostfunc` 示例正是如此：一个核函数、一个记录日志
# 的 Host 函数、一次同步。
#
# 两种机制不能在一条流上混用：运行过 Host 函数的流拒绝订阅，反之亦然，返回 107011。
#
# pyACL 绑定了 `aclrtLaunchCallback`（`acl.rt.launch_callback`），但没有绑定 `aclrtLaunchHostFunc`：
# `acl.rt.launch_host_func` 是沙箱为 C 示例提供的；板卡上的 Python 程序使用回调。

# %%
stream, buf = board()
notes = []
work[1, stream](buf, 4)
print("aclrtLaunchHostFunc ->", acl.rt.launch_host_func(stream, lambda args: notes.append(args), {"batch": 0}))
work[1, stream](buf, 4)
print("aclrtSynchronizeStream ->", acl.rt.synchronize_stream(stream))
print("the host function got:", notes)
callback_runs()
print("subscribing the same stream now:", acl.rt.subscribe_report(threading.get_ident(), stream))

# %% [markdown]
# ## Callbacks must not call the runtime
#
# The documentation forbids runtime calls (allocation, release, synchronisation, launching)
# from inside a callback or host function (the runtime API reference, aclrtLaunchCallback and
# aclrtLaunchHostFunc): a callback that waits for its own stream deadlocks it. The runtime does
# not refuse them, though. A callback of `aclrtLaunchCallback` runs on **your** report thread,
# inside its `aclrtProcessReport`, and a call made there works as on a board (the official
# asynchronous ResNet-50 sample copies each result back in its callback); the sandbox lets it
# through and reports each such call once as a hazard of kind `callback_call`, so that a grader
# and you see the rule broken. A host function runs on the runtime's own thread: there the sandbox
# makes every runtime call return **207000** (`ACL_ERROR_RT_FEATURE_NOT_SUPPORT`) at once, with a
# message (the sandbox's choice, to show the rule). Reading host memory with `acl.util`, or the
# data buffers and datasets of a model (`acl.get_data_buffer_addr`, `acl.mdl.get_dataset_buffer`),
# is not a runtime call and is fine. What a callback *raises* does not crash anything either: it
# is recorded with the callback's run and in `acl.get_recent_err_msg()` of the report thread.

# %% [markdown] lang="zh"
# ## 回调不得调用运行时
#
# 文档禁止在回调或 Host 函数内部调用运行时（分配、释放、同步、下发）（运行时 API 参考中 aclrtLaunchCallback 与
# aclrtLaunchHostFunc 的说明）：等待自己所在 Stream 的回调会让它死锁。不过运行时并不拒绝这些调用。`aclrtLaunchCallback`
# 的回调运行在**你自己的**上报线程上，即它的 `aclrtProcessReport` 内部，在那里发出的调用和在开发板上一样能工作（官方的
# 异步 ResNet-50 样例就在回调中把每个结果拷回）；沙箱放行它，并把每种这样的调用作为一个 `callback_call` 类的数据竞争
# （hazard）报告一次，让评分器和你都看到规则被打破。Host 函数运行在运行时自己的线程上：在那里沙箱让每个运行时调用立即
# 返回 **207000**（`ACL_ERROR_RT_FEATURE_NOT_SUPPORT`）并附一条消息（这是沙箱的选择，用来展示这条规则）。用
# `acl.util` 读取 Host 内存，或读取模型的数据缓冲区和数据集（`acl.get_data_buffer_addr`、`acl.mdl.get_dataset_buffer`），
# 都不是运行时调用，可以使用。回调*抛出*的异常也不会让任何东西崩溃：它会记录在该回调的运行记录中，以及上报线程的
# `acl.get_recent_err_msg()` 中。

# %%
stream, buf = board()
tried = []


def greedy(data):
    ptr, ret = acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    tried.append(("aclrtMalloc", ret))
    tried.append(("aclrtFree", acl.rt.free(ptr)))


def greedier(data):
    tried.append(("aclrtMalloc in a host function", acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)[1]))


acl.rt.subscribe_report(threading.get_ident(), stream)
acl.rt.launch_callback(greedy, None, BLOCK, stream)
acl.rt.process_report(100)
other, _ = acl.rt.create_stream()        # a host function goes on a stream no report thread serves
acl.rt.launch_host_func(other, greedier, None)
acl.rt.synchronize_stream(other)
print("inside the callback and the host function:", tried)
print([h.kind for h in sandbox.hazards()])

# %% [markdown]
# ## A deadlock, shown safely
#
# A BLOCK callback holds its stream until a thread runs it. If the thread subscribed to the
# stream is the one that then waits in `aclrtSynchronizeStream`, nobody will ever call
# `aclrtProcessReport`: on hardware the program hangs. The sandbox sees that no thread can run
# and no device work can finish, and turns the synchronize into the code a timed-out
# synchronize returns (507046, `ACL_ERROR_RT_STREAM_SYNC_TIMEOUT`) with the reason, instead of
# hanging.

# %% [markdown] lang="zh"
# ## 一个死锁，安全地展示
#
# BLOCK 回调会占住它的流，直到某个线程运行它。如果订阅该流的线程恰好就是随后在 `aclrtSynchronizeStream` 中等待的那个
# 线程，就永远不会有人调用 `aclrtProcessReport`：在硬件上程序会挂起。沙箱发现没有线程能运行、也没有设备任务能完成，
# 于是把这次同步变成超时同步返回的错误码（507046，`ACL_ERROR_RT_STREAM_SYNC_TIMEOUT`）并说明原因，而不是挂起。

# %%
stream, buf = board()
acl.rt.subscribe_report(threading.get_ident(), stream)     # this thread serves the stream ...
work[1, stream](buf, 4)
acl.rt.launch_callback(lambda data: None, None, BLOCK, stream)
ret = acl.rt.synchronize_stream(stream)                    # ... but waits here instead
print("aclrtSynchronizeStream ->", ret)
print(acl.get_recent_err_msg())

# %% [markdown]
# The fixes: serve the stream from another thread (the report-thread pattern above), make the
# callback NO_BLOCK, or call `process_report` before synchronising.
#
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("07.1", solution)`
# runs **your** function on a fresh simulated 910B of its own, with batches it makes up each
# time, and judges the whole run from the trace. Threads your function starts run on that
# machine too; join them before you return. The cells below hold stubs, so their verdict is
# `✘` until you write the code.
#
# Before it calls your function, the grader opens the board: `acl.init()` has run and device 0
# is set on your function's thread. Your function creates and releases what it uses (streams,
# events, memory, other devices): a solution does not call `acl.init()` (a second `aclInit`
# fails with 100002, `ACL_ERROR_REPEAT_INITIALIZE`).
#
# Both exercises run the same pipeline: 8 batches of `N` float32 values, each copied in,
# doubled on the AI Core and copied back into its own slice of a pinned output buffer. Then
# the host post-processes each batch with `summarise(i, x)`, which the grader hands to your
# function: it returns the sum of batch `i`'s results `x` (a numpy array), and it notes
# **where** it ran and **what** it was given. The helpers below set up the pipeline on the
# open board (a stream, the pinned input and output buffers, one device buffer), queue one
# batch, and clean up what `set_up` made; `out[i]` is a numpy view of batch `i`'s slice of the
# output buffer, made once before any copy, so a callback can read it without a runtime call.

# %% [markdown] lang="zh"
# 修正方法：从另一个线程服务这条流（上面的上报线程模式），把回调设为 NO_BLOCK，或者在同步之前调用 `process_report`。
#
# ## 练习
#
# 每个练习都是一个由你补全的函数。`sandbox.teach.check("07.1", solution)` 在一台属于它自己的全新模拟 910B 上运行**你的**
# 函数，每次使用新生成的批次数据，并根据 trace 评判整次运行。你的函数启动的线程也在那台机器上运行；返回之前 join 它们。
# 下面的单元是空白模板，所以在你写代码之前结论都是 `✘`。
#
# 调用你的函数之前，评分器先打开板卡：`acl.init()` 已经运行，设备 0 已在你的函数所在的线程上设置好。你的函数自己
# 创建并释放它用到的东西（流、事件、内存、其他设备）：解答不调用 `acl.init()`（第二次 `aclInit` 会以 100002
# `ACL_ERROR_REPEAT_INITIALIZE` 失败）。
#
# 两个练习运行同一条流水线：8 个批次，每批 `N` 个 float32 值，各自拷入，在 AI Core 上翻倍，再拷回到锁页输出缓冲区中
# 属于它的那一段。然后 Host 用 `summarise(i, x)` 对每个批次做后处理，这个函数由评分器交给你的函数：它返回批次 `i` 的
# 结果 `x`（一个 numpy 数组）之和，并记下它在**哪里**运行、得到了**什么**。下面的辅助函数在已打开的板卡上搭建流水线
# （一条流、锁页的输入和输出缓冲区、一块设备缓冲区）、放入一个批次，以及清理 `set_up` 创建的东西；`out[i]` 是输出缓冲区中
# 批次 `i` 那一段的 numpy 视图，在任何拷贝之前就已创建，所以回调无需调用运行时就能读取它。

# %%
BATCHES, N = 8, 64 * 1024                       # 8 batches of 64 Ki float32 (256 KiB)
NB = 4 * N


@sandbox.kernel(ns=lambda x, n: 2 * n)          # 2 ns per element: 131 µs per batch
def double(x: "float32*", n: int):
    x[:n] *= 2


def set_up(batches):
    """On device 0, already set: a stream, pinned input (holding the batches) and output
    buffers, one device buffer, and out: a numpy view of the output, one row per batch."""
    stream, _ = acl.rt.create_stream()
    host_in, _ = acl.rt.malloc_host(BATCHES * NB)
    host_out, _ = acl.rt.malloc_host(BATCHES * NB)
    dev, _ = acl.rt.malloc(NB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(host_in, (BATCHES, N), np.float32)[:] = batches
    out = acl.util.ptr_to_numpy(host_out, (BATCHES, N), np.float32)   # a view: it sees later writes
    return stream, host_in, host_out, dev, out


def queue_batch(i, stream, host_in, host_out, dev):
    """Queue batch i: copy it in, double it, copy it back into its slice of host_out."""
    acl.rt.memcpy_async(dev, NB, host_in + i * NB, NB, H2D, stream)
    double[8, stream](dev, N)
    acl.rt.memcpy_async(host_out + i * NB, NB, dev, NB, D2H, stream)


def clean_up(stream, host_in, host_out, dev):
    """Free and destroy what set_up made (the board stays open)."""
    acl.rt.free(dev)
    acl.rt.free_host(host_out)
    acl.rt.free_host(host_in)
    acl.rt.destroy_stream(stream)

# %% [markdown]
# The plain way waits for each batch with a synchronize and post-processes on the main
# thread. It is correct, but the host stops eight times, and cannot queue batch *i + 1* while
# it waits for batch *i*. (It runs on your own machine, so the cell opens the board itself,
# as the grader does before a solution, and closes it at the end.)

# %% [markdown] lang="zh"
# 朴素的做法用一次同步等待每个批次，并在主线程上做后处理。它是正确的，但 Host 停了八次，而且在等待批次 *i* 时无法放入
# 批次 *i + 1*。（它运行在你自己的机器上，所以这个单元像评分器在调用解答之前那样自己打开板卡，并在最后关闭它。）

# %%
def sync_each(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = []
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.synchronize_stream(stream)              # the host waits for every batch
        sums.append(summarise(i, out[i]))
    clean_up(stream, host_in, host_out, dev)
    return sums


sandbox.configure("ascend910b")
acl.init()                                         # the board: what the grader opens for a solution
acl.rt.set_device(0)
sums = sync_each(np.ones((BATCHES, N), np.float32), lambda i, x: float(x.sum()))
acl.rt.reset_device(0)
acl.finalize()
print(f"sums {sums[:3]} ...; synchronize calls: {teach.sync_calls()}")

# %% [markdown]
# ### Exercise 07.1 · post-process each batch in a host function
#
# *Practises:* `aclrtLaunchHostFunc`: host work queued on the stream right behind the copy
# it needs, so it runs when the data has landed, with one synchronize for the whole run.
#
# Queue all eight batches without waiting; right after each batch's copy back, queue a host
# function that calls `summarise(i, out[i])` for that batch and keeps what it returns; then
# synchronise once and return the eight sums, in batch order. The grader wants:
#
# * the sums right, as `summarise` returned them;
# * `summarise` called once per batch, each time inside a host function of its own (8 host
#   functions run, none raising);
# * each host function reading its batch **after** that batch's copy back had landed (a host
#   function queued before the copy reads what was there before: zeros);
# * at most one synchronize.

# %% [markdown] lang="zh"
# ### 练习 07.1 · 在 Host 函数中后处理每个批次
#
# *练习内容：* `aclrtLaunchHostFunc`：把 Host 工作放在流上，紧跟在它所需的拷贝之后，于是它在数据落地时运行，整次运行
# 只同步一次。
#
# 不等待地放入全部八个批次；在每个批次拷回之后，紧接着放入一个 Host 函数，它为该批次调用 `summarise(i, out[i])` 并保存
# 返回值；然后同步一次，按批次顺序返回八个和。评分器要求：
#
# * 和正确，与 `summarise` 返回的一致；
# * 每个批次调用一次 `summarise`，每次都在它自己的 Host 函数中（运行了 8 个 Host 函数，没有一个抛出异常）；
# * 每个 Host 函数都在它的批次拷回落地**之后**读取该批次（放在拷贝之前的 Host 函数读到的是之前的内容：零）；
# * 至多一次同步。

# %% nbgrader={"grade": false, "grade_id": "ex07_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(batches, summarise):
    """Double the 8 batches on the device; summarise each in a host function; return the sums."""
    # TODO: set_up(batches); for each batch: queue_batch, then acl.rt.launch_host_func(
    # stream, fn, i) with an fn that stores summarise(i, out[i]); one synchronize; clean_up.
    # Hint: the host function runs on the runtime's thread: it may read out[i] but must not
    # call the runtime.
    ### BEGIN SOLUTION
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES

    def post_process(i):                               # runs on the runtime's thread
        sums[i] = summarise(i, out[i])

    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_host_func(stream, post_process, i)
    acl.rt.synchronize_stream(stream)
    clean_up(stream, host_in, host_out, dev)
    return sums
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex07_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("07.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("07.1", solution)

# %% [markdown]
# ### Exercise 07.2 · post-process each batch in a callback
#
# *Practises:* `aclrtLaunchCallback` with a report thread: subscribing it to the stream, one
# callback per batch behind its copy back, serving them with `aclrtProcessReport`, then
# stopping, joining and unsubscribing.
#
# The same pipeline, now with callbacks: start a thread that loops on `process_report`
# (the `ReportServer` above will do), subscribe it to the stream **before** the first
# `launch_callback`, queue each batch and a callback behind its copy back (the callback's
# user data tells it which batch it is), synchronise once, then stop and join the thread and
# unsubscribe it. The grader wants:
#
# * the sums right, as `summarise` returned them;
# * `summarise` called once per batch, each time inside a callback of its own (8 callbacks
#   run, none raising);
# * each callback reading its batch after that batch's copy back had landed;
# * at most one synchronize, and every subscription undone;
# * no runtime error, except the `aclrtProcessReport` timeouts (507012) with which a report
#   loop learns that nothing more is coming.

# %% [markdown] lang="zh"
# ### 练习 07.2 · 在回调中后处理每个批次
#
# *练习内容：* 带上报线程的 `aclrtLaunchCallback`：把线程订阅到流上，在每个批次拷回之后放一个回调，用
# `aclrtProcessReport` 服务它们，然后停止、join 并取消订阅。
#
# 同样的流水线，现在使用回调：启动一个循环调用 `process_report` 的线程（上面的 `ReportServer` 就可以），在第一次
# `launch_callback` **之前**把它订阅到流上，放入每个批次以及其拷回之后的一个回调（回调的用户数据告诉它是哪个批次），
# 同步一次，然后停止并 join 该线程，再取消订阅。评分器要求：
#
# * 和正确，与 `summarise` 返回的一致；
# * 每个批次调用一次 `summarise`，每次都在它自己的回调中（运行了 8 个回调，没有一个抛出异常）；
# * 每个回调都在它的批次拷回落地之后读取该批次；
# * 至多一次同步，并且每个订阅都已取消；
# * 没有运行时错误，除了上报循环借以得知不会再有东西到来的 `aclrtProcessReport` 超时（507012）。

# %% nbgrader={"grade": false, "grade_id": "ex07_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(batches, summarise):
    """Double the 8 batches on the device; summarise each in a callback; return the sums."""
    # TODO: set_up; a report thread subscribed to the stream; for each batch: queue_batch,
    # then acl.rt.launch_callback(fn, i, block_type, stream); one synchronize; stop and join
    # the thread; acl.rt.unsubscribe_report(thread.ident, stream); clean_up.
    # Hint: a callback needs a thread that calls aclrtProcessReport, or it never runs.
    ### BEGIN SOLUTION
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES

    def post_process(i):                               # runs on the report thread
        sums[i] = summarise(i, out[i])

    server = ReportServer()
    acl.rt.subscribe_report(server.thread.ident, stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(post_process, i, NO_BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    server.stop()
    acl.rt.unsubscribe_report(server.thread.ident, stream)
    clean_up(stream, host_in, host_out, dev)
    return sums
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex07_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("07.2", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("07.2", solution)

# %% [markdown]
# Questions to try on your solution: does it matter whether the callbacks are BLOCK or
# NO_BLOCK here? (Each batch's copy back has finished before its callback is delivered, and
# the next batch writes a *different* slice of the output buffer.) With NO_BLOCK, does every
# callback still run before `synchronize_stream` returns, and before your report thread
# stops? What would go wrong if all batches were copied back into the same slice?
#
# ## Summary
#
# A stream can call the host back: a host function (`aclrtLaunchHostFunc`) runs on the
# runtime's own thread when the stream reaches it, and a callback (`aclrtLaunchCallback`)
# runs on a thread of yours that is subscribed to the stream and calls `aclrtProcessReport`.
# Queued behind the copy it needs, either one lets the host post-process each result as soon
# as it lands, with one synchronize at the end. BLOCK holds the stream until the callback has
# run; callbacks must not call the runtime. Next, notebook 08 captures a stream's work into
# an ACL graph and replays it.

# %% [markdown] lang="zh"
# 可以在你的解答上试试这些问题：这里回调是 BLOCK 还是 NO_BLOCK 有关系吗？（每个批次的拷回在其回调送达之前已经完成，
# 而下一个批次写的是输出缓冲区中*另一*段。）使用 NO_BLOCK 时，每个回调是否仍然在 `synchronize_stream` 返回之前、在你的
# 上报线程停止之前运行？如果所有批次都拷回到同一段，会出什么问题？
#
# ## 小结
#
# 流可以回调 Host：Host 函数（`aclrtLaunchHostFunc`）在流到达它时于运行时自己的线程上运行，回调（`aclrtLaunchCallback`）
# 则在你的一个已订阅该流并调用 `aclrtProcessReport` 的线程上运行。放在它所需的拷贝之后，两者都能让 Host 在每个结果落地
# 时立即做后处理，最后只同步一次。BLOCK 会占住流直到回调运行完毕；回调不得调用运行时。下一个是 notebook 08：把流的任务
# 捕获为 ACL 图并重放。

# %% [markdown]
# ## Official samples for this topic
#
# [0_simple_callback.py](../examples/2_advanced_features/callback/0_simple_callback.py) (a
# subscribed report thread and a host-function thread),
# [1_callback_hostfunc.py](../examples/2_advanced_features/callback/1_callback_hostfunc.py) (a
# host function between kernels) and
# [2_callback_exception.py](../examples/2_advanced_features/callback/2_callback_exception.py)
# (the exception-info callback). Notebook [11_official_samples](11_official_samples.ipynb),
# section 5.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# [0_simple_callback.py](../../examples/2_advanced_features/callback/0_simple_callback.py)（订阅的上报线程和
# Host
# 函数线程）、[1_callback_hostfunc.py](../../examples/2_advanced_features/callback/1_callback_hostfunc.py)（核函数之间的
# Host 函数）和
# [2_callback_exception.py](../../examples/2_advanced_features/callback/2_callback_exception.py)（异常信息回调）。notebook
# [11_official_samples](11_official_samples.ipynb) 第 5 节。
