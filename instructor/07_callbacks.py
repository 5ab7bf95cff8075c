# %% [markdown]
# # 07 · Host callbacks: let the stream tell the host when it gets there
#
# **Time:** about 45 minutes.
#
# A synchronize makes the host *wait* for a point of a stream. A **host callback task** lets
# the host be *told*: it sits in the stream like any task, and when the tasks before it have
# finished, a function runs on the host (the Runtime programming guide, *Stream management*,
# `docs/zh/dev_guide/03-02_stream_management.md` in the CANN runtime repository; the API
# reference, *Execution control*, `docs/zh/api_ref/12_execution_control.md`). Two mechanisms:
#
# | what | C (AscendCL) | Python (this sandbox, pyACL style) |
# |---|---|---|
# | bind a host thread to a stream | `aclrtSubscribeReport(threadId, stream)` | `acl.rt.subscribe_report(thread.ident, stream)` |
# | queue a callback task | `aclrtLaunchCallback(fn, userData, ACL_CALLBACK_BLOCK, stream)` | `acl.rt.launch_callback(fn, [data], acl.ACL_CALLBACK_BLOCK, stream)` |
# | run the next delivered callback | `aclrtProcessReport(timeoutMs)` | `acl.rt.process_report(timeout_ms)` |
# | unbind | `aclrtUnSubscribeReport(threadId, stream)` | `acl.rt.unsubscribe_report(thread.ident, stream)` |
# | host function, no thread of yours needed | `aclrtLaunchHostFunc(stream, fn, args)` | `acl.rt.launch_host_func(stream, fn, args)` |
#
# With `aclrtLaunchCallback` *you* provide the thread that runs the callbacks; with
# `aclrtLaunchHostFunc` the runtime does. pyACL binds the first; `acl.rt.launch_host_func` is the
# sandbox's, for the C API.
#
# **After this notebook** you can queue host work behind the device work it needs, choose BLOCK
# or NO_BLOCK, and avoid the callback deadlock. **It assumes** notebooks 01 to 03 and host threads (notebook 06).

# %% [markdown] lang="zh"
# # 07 · Host 回调：让 Stream 走到某一点时通知 Host
#
# **时间**：约 45 分钟。
#
# 同步是让 Host（主机）*等着* Device（设备）走到 Stream（流）上的某一点。**Host 回调任务**则让 Host 到时候*被通知*：
# 它和别的任务一样排在 Stream 里，前面的任务完成后，Host 上就会执行一个函数（《Runtime编程指南》“Stream管理”，CANN
# runtime 仓库 `docs/zh/dev_guide/03-02_stream_management.md`；API 参考“执行控制”，
# `docs/zh/api_ref/12_execution_control.md`）。回调有两套机制：
#
# | 作用 | C（AscendCL） | Python（本沙箱，pyACL 风格） |
# |---|---|---|
# | 把一个 Host 线程绑定到 Stream | `aclrtSubscribeReport(threadId, stream)` | `acl.rt.subscribe_report(thread.ident, stream)` |
# | 下发回调任务 | `aclrtLaunchCallback(fn, userData, ACL_CALLBACK_BLOCK, stream)` | `acl.rt.launch_callback(fn, [data], acl.ACL_CALLBACK_BLOCK, stream)` |
# | 执行下一个送达的回调 | `aclrtProcessReport(timeoutMs)` | `acl.rt.process_report(timeout_ms)` |
# | 解除绑定 | `aclrtUnSubscribeReport(threadId, stream)` | `acl.rt.unsubscribe_report(thread.ident, stream)` |
# | Host 函数，不需要自己的线程 | `aclrtLaunchHostFunc(stream, fn, args)` | `acl.rt.launch_host_func(stream, fn, args)` |
#
# 用 `aclrtLaunchCallback` 时，执行回调的线程由*你*提供；用 `aclrtLaunchHostFunc` 时由运行时提供。pyACL 绑定了前者；
# `acl.rt.launch_host_func` 是沙箱为 C 接口提供的。
#
# **学完本 notebook**，你能把 Host 上的工作排在它所需的 Device 任务之后，在 BLOCK 与 NO_BLOCK 之间做出选择，并避开
# 回调死锁。**前提**：notebook 01 到 03，以及 Host 线程（notebook 06）。

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
# ## The thread that serves reports
#
# The API reference gives the pattern (the official sample `0_simple_callback` follows it): a
# thread of yours loops on `aclrtProcessReport(timeout)`, `aclrtSubscribeReport` binds it to the
# stream, then callbacks are queued. Each call runs **at most one** callback; the timeout lets the
# loop see its stop flag, and the last call returns 507012 (`ACL_ERROR_RT_REPORT_TIMEOUT`): how
# the loop ends, not a failure.
#
# **Predict, then run.** The main thread queues a kernel, a BLOCK callback `after_first` and a
# second kernel, then synchronises. Which thread runs `after_first`, and does the second kernel
# start before or after it has run?

# %% [markdown] lang="zh"
# ## 服务上报的线程
#
# API 参考给出了固定用法（官方示例 `0_simple_callback` 也照此编写）：由你创建一个线程，循环调用
# `aclrtProcessReport(timeout)`，用 `aclrtSubscribeReport` 把它绑定到 Stream，然后下发回调。每次调用**至多**执行一个
# 回调；超时让循环能看到停止标志，最后一次调用返回 507012（`ACL_ERROR_RT_REPORT_TIMEOUT`）：循环就是这样结束的，
# 这不是失败。
#
# **先预测，再运行。** 主线程依次下发一个核函数、一个 BLOCK 回调 `after_first` 和第二个核函数，然后同步。`after_first`
# 在哪个线程上执行？第二个核函数在它执行之前还是之后开始？

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
picture

# %% [markdown]
# The callback ran on the **report thread**, not on the thread that launched it, inside its first
# `aclrtProcessReport` (which returned 0; the second waited out its 10 ms: 507012). In the chart,
# the stream's row has the first kernel, the callback task (green), then the second kernel, which
# started only when the callback had returned, because the callback was BLOCK. (`min_bar_px=6`
# draws every bar at least 6 pixels wide, so the 1 µs callbacks show.)

# %% [markdown] lang="zh"
# 回调在**上报线程**上执行，而不是在下发它的线程上；它是在上报线程第一次调用 `aclrtProcessReport` 时执行的（这次调用
# 返回 0；第二次等满 10 ms，返回 507012）。图中 Stream 那一行依次是第一个核函数、回调任务（绿色）和第二个核函数；第二个
# 核函数直到回调返回后才开始，因为回调是 BLOCK 的。（`min_bar_px=6` 让每个条形至少 6 像素宽，1 µs 的回调才看得见。）

# %% [markdown]
# ## BLOCK vs NO_BLOCK
#
# The block type decides what the **stream** does while the callback waits for its thread:
# with `ACL_CALLBACK_BLOCK` the later tasks of the stream wait until the callback has run; with
# `ACL_CALLBACK_NO_BLOCK` they do not. Above, the report thread was idle, so it made no
# difference. Here the main thread serves its own stream (any thread may be subscribed) and,
# after queuing kernel, callback, kernel, spends about 0.6 ms on a blocking copy before it calls
# `process_report`.
#
# **Predict, then run.** With BLOCK, what waits for the main thread's 0.6 ms copy: the main
# thread's next call, the second kernel, or both? And with NO_BLOCK?

# %% [markdown] lang="zh"
# ## BLOCK 与 NO_BLOCK
#
# 阻塞类型决定回调等待线程期间 **Stream** 做什么：`ACL_CALLBACK_BLOCK` 时，Stream 上后续的任务要等回调执行完；
# `ACL_CALLBACK_NO_BLOCK` 时不用等。上面的上报线程闲着，所以看不出差别。这里由主线程服务它自己的 Stream（任何线程
# 都可以被绑定），它下发核函数、回调、核函数之后，先花约 0.6 ms 做一次阻塞拷贝，然后才调用 `process_report`。
#
# **先预测，再运行。** 使用 BLOCK 时，谁在等主线程那 0.6 ms 的拷贝：主线程的下一个调用、第二个核函数，还是两者都等？
# 换成 NO_BLOCK 呢？

# %%
def busy_host(block_type):
    stream, buf = board()
    big, _ = acl.rt.malloc(32 << 20, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(32 << 20)
    acl.rt.subscribe_report(threading.get_ident(), stream)      # this thread serves the stream
    teach.mark("start")
    work[1, stream](buf, 4)
    before = sandbox.now()
    acl.rt.launch_callback(lambda data: None, None, block_type, stream)
    launch = sandbox.now() - before
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
    print(f"{name:>8}: aclrtLaunchCallback took the host {launch / 1e3:.1f} µs; second kernel started "
          f"{gap / 1e3:5.1f} µs after the first ended; start to end {(span[1] - span[0]) / 1e3:.1f} µs")


busy_host(BLOCK)
blocked_gantt = sandbox.gantt()
busy_host(NO_BLOCK)
blocked_gantt                           # the BLOCK run

# %% [markdown]
# BLOCK never blocks the host: the launch returned at once in both runs. It blocks the
# **stream**: the callback task occupies it (the long green bar, BLOCK run) until the host gets
# round to `process_report`, and the second kernel waits 410 µs. With NO_BLOCK nothing on the
# device waits. Use BLOCK when later device work needs the callback done (it refills a buffer the
# next kernel reads), NO_BLOCK for notifications.

# %% [markdown] lang="zh"
# BLOCK 从不阻塞 Host：两次运行中下发都立即返回。它阻塞的是 **Stream**：回调任务一直占着 Stream（BLOCK 那次运行中
# 长长的绿色条形），直到 Host 腾出手来调用 `process_report`，第二个核函数等了 410 µs。使用 NO_BLOCK 时，Device 上没有
# 任何任务等它。后续的 Device 任务要等回调做完（回调要重新填充下一个核函数读取的缓冲区）时用 BLOCK，只是通知时用
# NO_BLOCK。

# %% [markdown]
# ## What the report calls return
#
# A callback needs a thread: launching one on a stream no thread is subscribed to fails at once
# with 107015 (`ACL_ERROR_RT_STREAM_NO_CB_REG`; `src/runtime/api/impl/api_impl.cc:5367`).
# `aclrtProcessReport` on a thread that serves no stream returns 107012
# (`ACL_ERROR_RT_THREAD_SUBSCRIBE`), and when no callback arrives in time 507012 (both in
# `src/acl/aclrt_impl/callback.cpp:195-199`). Its timeout is in milliseconds: -1 waits forever,
# 0 and other negatives are invalid (`callback.cpp:189-192`).

# %% [markdown] lang="zh"
# ## 上报相关调用的返回值
#
# 回调需要线程：在一条没有任何线程绑定的 Stream 上下发回调，立即以 107015（`ACL_ERROR_RT_STREAM_NO_CB_REG`；
# `src/runtime/api/impl/api_impl.cc:5367`）失败。在不服务任何 Stream 的线程上调用 `aclrtProcessReport`，返回 107012
# （`ACL_ERROR_RT_THREAD_SUBSCRIBE`）；在时限内没有回调到达，返回 507012（两者都见 `src/acl/aclrt_impl/callback.cpp:195-199`）。
# 超时以毫秒计：-1 表示一直等，0 和其他负数都无效（`callback.cpp:189-192`）。

# %%
stream, buf = board()
print("aclrtLaunchCallback, nobody subscribed ->", acl.rt.launch_callback(lambda data: None, [0], BLOCK, stream))
print("aclrtProcessReport, not subscribed     ->", acl.rt.process_report(10))    # C: aclrtProcessReport(10);
acl.rt.subscribe_report(threading.get_ident(), stream)
before = sandbox.now()
ret = acl.rt.process_report(5)
print(f"aclrtProcessReport, nothing queued     -> {ret} after {(sandbox.now() - before) / 1e6:.3f} ms of waiting")
print(acl.get_recent_err_msg())

# %% [markdown]
# ## Host functions: the runtime brings the thread
#
# `aclrtLaunchHostFunc(stream, fn, args)` needs no subscription and no loop: a thread the runtime
# created runs `fn(args)`, and the later tasks of the stream wait for it (like BLOCK). The two
# mechanisms must not be mixed on one stream (API reference); the runtime refuses
# a subscription on a stream that has run a host function, and the other way round, with 107011
# (`ACL_ERROR_RT_STREAM_SUBSCRIBE`; `src/runtime/api/impl/api_error.cc:4702-4704`, `:7519-7521`).

# %% [markdown] lang="zh"
# ## Host 函数：线程由运行时提供
#
# `aclrtLaunchHostFunc(stream, fn, args)` 不需要绑定，也不需要循环：由运行时创建的线程执行 `fn(args)`，Stream 上后续
# 的任务等它执行完（和 BLOCK 一样）。同一条 Stream 上不能混用两套机制（API 参考）；运行时拒绝对执行过 Host 函数的 Stream 做绑定，反过来也一样，返回 107011
# （`ACL_ERROR_RT_STREAM_SUBSCRIBE`；`src/runtime/api/impl/api_error.cc:4702-4704`、`:7519-7521`）。

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
# The API reference forbids allocating, freeing, synchronising, launching or aborting from inside
# a callback: callbacks share resources such as locks with the runtime, and a callback that waits
# for its own stream deadlocks it. The runtime does not refuse such calls: in a callback of
# `aclrtLaunchCallback` (on **your** thread) a call works as on a board, and the sandbox reports
# each kind once as a hazard `callback_call`. In a host function the sandbox makes every runtime
# call return 207000 (`ACL_ERROR_RT_FEATURE_NOT_SUPPORT`): the sandbox's choice, to show the rule.
# Reading host memory (`acl.util`) is fine.

# %% [markdown] lang="zh"
# ## 回调里不能调用运行时接口
#
# API 参考规定，回调函数里不应调用资源申请、资源释放、Stream 同步、Device 同步、任务下发、任务终止等接口：回调与运行时
# 共享锁之类的资源，等待自己所在 Stream 的回调会让它死锁。不过运行时并不拒绝这些调用。`aclrtLaunchCallback` 的回调运行在
# **你自己的**上报线程上，在那里发出的调用和在板卡上一样能成功；沙箱放行它，并把每一种这样的调用作为 `callback_call`
# 类的隐患（hazard）报告一次。Host 函数运行在运行时自己的线程上，沙箱让其中的每个运行时调用都返回 207000
# （`ACL_ERROR_RT_FEATURE_NOT_SUPPORT`）：这是沙箱的选择，用来把规则摆在眼前。读取 Host 内存（`acl.util`）不是运行时
# 调用，可以放心用。

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
# **Predict, then run.** The main thread is the one subscribed to the stream. It queues a kernel
# and a BLOCK callback, then calls `aclrtSynchronizeStream`. What happens?

# %% [markdown] lang="zh"
# ## 一个死锁，安全地演示
#
# **先预测，再运行。** 绑定到 Stream 的正是主线程。它下发一个核函数和一个 BLOCK 回调，然后调用
# `aclrtSynchronizeStream`。会发生什么？

# %%
stream, buf = board()
acl.rt.subscribe_report(threading.get_ident(), stream)     # this thread serves the stream ...
work[1, stream](buf, 4)
acl.rt.launch_callback(lambda data: None, None, BLOCK, stream)
ret = acl.rt.synchronize_stream(stream)                    # ... but waits here instead
print("aclrtSynchronizeStream ->", ret)
print(acl.get_recent_err_msg())

# %% [markdown]
# The callback holds the stream until its thread calls `aclrtProcessReport`, and that thread is
# waiting for the stream: on a board the program hangs. The sandbox sees that nothing can move
# and returns the code of a timed-out synchronize, 507046 (`ACL_ERROR_RT_STREAM_SYNC_TIMEOUT`),
# with the reason (the sandbox's choice, instead of hanging). The fixes: serve the stream from
# another thread (the report thread above), make the callback NO_BLOCK, or call
# `process_report` before synchronising.

# %% [markdown] lang="zh"
# 回调占着 Stream，直到它的线程调用 `aclrtProcessReport`，而那个线程正在等这条 Stream：在板卡上程序会卡死。沙箱看出
# 谁都动不了，于是返回同步超时的错误码 507046（`ACL_ERROR_RT_STREAM_SYNC_TIMEOUT`）并说明原因（这是沙箱的选择，代替
# 卡死）。解决办法：由另一个线程服务这条 Stream（如上面的上报线程），把回调改成 NO_BLOCK，或者在同步之前先调用
# `process_report`。

# %% [markdown]
# ## Exercises
#
# `sandbox.teach.check("07.1", solution)` runs **your** function on a fresh simulated 910B with
# new batches each time and judges the run from the trace. The grader has called `acl.init()`
# and set device 0; join the threads you start before you return.
#
# Both exercises run one pipeline: 8 batches copied in, doubled on the AI Core and copied back
# into their own slice of a pinned output buffer; then the host post-processes batch `i` with
# `summarise(i, x)`, which the grader hands you. `out[i]` is a numpy view of batch `i`'s output,
# readable without a runtime call. The plain way, `sync_each`, stops the host eight times.

# %% [markdown] lang="zh"
# ## 练习
#
# `sandbox.teach.check("07.1", solution)` 在一台全新的模拟 910B 上运行**你的**函数，每次都用新的批次数据，并根据 trace
# 评判整次运行。评分器已经调用过 `acl.init()` 并设置了 Device 0；你启动的线程要在返回之前 join。
#
# 两个练习用同一条流水线：8 个批次分别拷入，在 AI Core 上乘 2，再拷回锁页输出缓冲区中各自的那一段；然后 Host 用评分器
# 交给你的 `summarise(i, x)` 对批次 `i` 做后处理。`out[i]` 是批次 `i` 输出的 numpy 视图，不调用运行时就能读。朴素的做法
# `sync_each` 让 Host 停了八次。

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
# *Practises:* `aclrtLaunchHostFunc`: host work queued on the stream right behind the copy it
# needs, so it runs when the data has landed, with one synchronize for the whole run.
#
# Queue all eight batches without waiting; right after each batch's copy back, queue a host
# function that calls `summarise(i, out[i])` and keeps what it returns; synchronise once and
# return the eight sums, in batch order. Graded:
#
# * the sums, as `summarise` returned them;
# * `summarise` called once per batch, each time inside a host function of its own (8 host
#   functions run, none raising);
# * each host function reading its batch **after** that batch's copy back had landed;
# * at most one synchronize.

# %% [markdown] lang="zh"
# ### 练习 07.1 · 在 Host 函数中后处理每个批次
#
# *练习内容：* `aclrtLaunchHostFunc`：把 Host 上的工作排在 Stream 上它所需的拷贝后面，数据一到就执行，整次运行只同步
# 一次。
#
# 不等待地下发全部八个批次；每个批次拷回之后，紧接着下发一个 Host 函数，让它调用 `summarise(i, out[i])` 并保存返回值；
# 只同步一次，按批次顺序返回八个和。评判内容：
#
# * 和与 `summarise` 的返回值一致；
# * 每个批次调用一次 `summarise`，每次都在它自己的 Host 函数里（执行了 8 个 Host 函数，没有一个抛出异常）；
# * 每个 Host 函数都在它的批次拷回完成**之后**才读取该批次；
# * 至多同步一次。

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
# Start a thread that loops on `process_report` (`ReportServer` will do), subscribe it **before**
# the first `launch_callback`, queue each batch and a callback behind its copy back (its user data
# says which batch), synchronise once, then stop, join and unsubscribe. Graded:
#
# * the sums, as `summarise` returned them;
# * `summarise` called once per batch, each time inside a callback of its own (8 callbacks run,
#   none raising);
# * each callback reading its batch after that batch's copy back had landed;
# * at most one synchronize, and every subscription undone;
# * no runtime error but the `aclrtProcessReport` timeouts (507012) that end a report loop.

# %% [markdown] lang="zh"
# ### 练习 07.2 · 在回调中后处理每个批次
#
# *练习内容：* 带上报线程的 `aclrtLaunchCallback`：把线程绑定到 Stream，每个批次拷回之后下发一个回调，用
# `aclrtProcessReport` 执行它们，然后停止线程、join、解除绑定。
#
# 启动一个循环调用 `process_report` 的线程（用 `ReportServer` 就行），在第一次 `launch_callback` **之前**把它绑定到
# Stream；下发每个批次，并在它拷回之后下发一个回调（用户数据告诉回调是第几批）；只同步一次，然后停止线程、join、解除
# 绑定。评判内容：
#
# * 和与 `summarise` 的返回值一致；
# * 每个批次调用一次 `summarise`，每次都在它自己的回调里（执行了 8 个回调，没有一个抛出异常）；
# * 每个回调都在它的批次拷回完成之后才读取该批次；
# * 至多同步一次，并且每个绑定都已解除；
# * 除了用来结束上报循环的 `aclrtProcessReport` 超时（507012）之外，没有运行时错误。

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
# ## Concept check
#
# Answer from what the cells above showed; each wrong choice is a mistake programmers really make.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 根据上面各单元的结果作答；每个错误选项都是程序员真会犯的错。

# %%
teach.questions("07.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "b", 2: "a", 3: "c", 4: "b"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
teach.check("07.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("07.concepts", concepts, isolated=True).score * 4
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# A host function runs on the runtime's thread; a callback runs on your subscribed thread, one per
# `aclrtProcessReport`. Queued behind a copy, either post-processes each result as it lands.
# BLOCK holds the **stream**, not the host; callbacks must not call the runtime. Official samples:
# [0_simple_callback.py](../examples/2_advanced_features/callback/0_simple_callback.py),
# [1_callback_hostfunc.py](../examples/2_advanced_features/callback/1_callback_hostfunc.py),
# [2_callback_exception.py](../examples/2_advanced_features/callback/2_callback_exception.py)
# (the exception-info callback), and notebook [11_official_samples](11_official_samples.ipynb),
# section 5. Next, notebook 08 captures a stream's work into an ACL graph and replays it.

# %% [markdown] lang="zh"
# ## 小结
#
# Host 函数由运行时的线程执行；回调由你绑定的线程执行，每次 `aclrtProcessReport` 执行一个。排在拷贝之后，两者都能在
# 每个结果一到就做后处理。BLOCK 占住的是 **Stream** 而不是 Host；回调里不能调用运行时接口。官方示例：
# [0_simple_callback.py](../../examples/2_advanced_features/callback/0_simple_callback.py)、
# [1_callback_hostfunc.py](../../examples/2_advanced_features/callback/1_callback_hostfunc.py)、
# [2_callback_exception.py](../../examples/2_advanced_features/callback/2_callback_exception.py)（异常信息回调），以及
# notebook [11_official_samples](11_official_samples.ipynb) 第 5 节。下一个是 notebook 08：把 Stream 上的任务捕获成
# ACL 图并重放。

# %% [markdown] lang="zh" translates="code"
# en: # the record types of sandbox.trace(), to list callback runs
# zh: # sandbox.trace() 的记录类型，用来列出回调的执行情况
# en: # 200 µs of device work
# zh: # Device 上 200 µs 的工作
# en: """A fresh 910B with acl initialised, device 0 set, one stream and a small device buffer."""
# zh: """一台新的 910B：acl 已初始化，已设置 Device 0，创建了一条 Stream 和一小块 Device 缓冲区。"""
# en: """Which callbacks ran, on which host thread, when (from the trace)."""
# zh: """哪些回调执行了、在哪个 Host 线程上、什么时候（取自 trace）。"""
# en: f"callback, {mode}"
# zh: f"回调，{mode}"
# en: ran on thread {names.get(r.tid, r.tid)!r} "
# zh: 在线程 {names.get(r.tid, r.tid)!r} 上执行，"
# en: f"at {r.start / 1e6:.4f} ms" + (f", raised {r.error}"
# zh: f"时刻 {r.start / 1e6:.4f} ms" + (f"，抛出 {r.error}"
# en: """A host thread looping on process_report(timeout) until stopped (the documented pattern)."""
# zh: """一个循环调用 process_report(timeout) 直到被停止的 Host 线程（文档给出的用法）。"""
# en: # drawn now: the report thread's next wait has not ended yet
# zh: # 现在就画：上报线程的下一次等待还没结束
# en: print("the callback saw:"
# zh: print("回调看到的："
# en: print("the report thread's process_report returns:"
# zh: print("上报线程各次 process_report 的返回值："
# en: # this thread serves the stream ...
# zh: # 由这个线程服务这条 Stream……
# en: # this thread serves the stream
# zh: # 由这个线程服务这条 Stream
# en: # the host is busy elsewhere
# zh: # Host 在忙别的事
# en: # ... and only now runs the callback
# zh: # ……现在才执行回调
# en: aclrtLaunchCallback took the host {launch / 1e3:.1f} µs; second kernel started "
# zh: aclrtLaunchCallback 花费 Host {launch / 1e3:.1f} µs；第二个核函数在第一个结束后 "
# en: f"{gap / 1e3:5.1f} µs after the first ended; start to end {(span[1] - span[0]) / 1e3:.1f} µs")
# zh: f"{gap / 1e3:5.1f} µs 开始；从开始到结束 {(span[1] - span[0]) / 1e3:.1f} µs")
# en: # the BLOCK run
# zh: # BLOCK 那次运行
# en: print("aclrtLaunchCallback, nobody subscribed ->"
# zh: print("aclrtLaunchCallback，没有线程绑定      ->"
# en: print("aclrtProcessReport, not subscribed     ->"
# zh: print("aclrtProcessReport，本线程未绑定       ->"
# en: print(f"aclrtProcessReport, nothing queued     -> {ret} after {(sandbox.now() - before) / 1e6:.3f} ms of waiting")
# zh: print(f"aclrtProcessReport，没有排队的回调     -> {ret}，等了 {(sandbox.now() - before) / 1e6:.3f} ms")
# en: print("the host function got:"
# zh: print("Host 函数收到："
# en: print("subscribing the same stream now:"
# zh: print("现在绑定同一条 Stream："
# en: "aclrtMalloc in a host function"
# zh: "Host 函数中的 aclrtMalloc"
# en: # a host function goes on a stream no report thread serves
# zh: # Host 函数放在一条没有上报线程服务的 Stream 上
# en: print("inside the callback and the host function:"
# zh: print("回调和 Host 函数里的调用："
# en: # ... but waits here instead
# zh: # ……却在这里等待
# en: # 8 batches of 64 Ki float32 (256 KiB)
# zh: # 8 个批次，每批 64 Ki 个 float32（256 KiB）
# en: # 2 ns per element: 131 µs per batch
# zh: # 每个元素 2 ns：每批 131 µs
# en: """On device 0, already set: a stream, pinned input (holding the batches) and output
# zh: """在已设置的 Device 0 上：一条 Stream，锁页的输入缓冲区（存放各批次）和输出
# en:     buffers, one device buffer, and out: a numpy view of the output, one row per batch."""
# zh:     缓冲区，一块 Device 缓冲区，以及 out：输出的 numpy 视图，每批一行。"""
# en: # a view: it sees later writes
# zh: # 视图：之后写入的内容它都看得到
# en: """Queue batch i: copy it in, double it, copy it back into its slice of host_out."""
# zh: """下发批次 i：拷入，乘 2，拷回 host_out 中属于它的那一段。"""
# en: """Free and destroy what set_up made (the board stays open)."""
# zh: """释放、销毁 set_up 创建的资源（板卡保持打开）。"""
# en: # the host waits for every batch
# zh: # Host 等待每一个批次
# en: # the board: what the grader opens for a solution
# zh: # 板卡：评分器在调用解答之前也会这样打开
# en: print(f"sums {sums[:3]} ...; synchronize calls: {teach.sync_calls()}")
# zh: print(f"和：{sums[:3]} ……；同步调用：{teach.sync_calls()}")
# en: """Double the 8 batches on the device; summarise each in a host function; return the sums."""
# zh: """在 Device 上把 8 个批次乘 2；在 Host 函数中对每批调用 summarise；返回各批的和。"""
# en: # TODO: set_up(batches); for each batch: queue_batch, then acl.rt.launch_host_func(
# zh: # TODO：set_up(batches)；对每个批次：先 queue_batch，再 acl.rt.launch_host_func(
# en: # stream, fn, i) with an fn that stores summarise(i, out[i]); one synchronize; clean_up.
# zh: # stream, fn, i)，其中 fn 保存 summarise(i, out[i]) 的结果；同步一次；clean_up。
# en: # Hint: the host function runs on the runtime's thread: it may read out[i] but must not
# zh: # 提示：Host 函数在运行时的线程上执行：它可以读 out[i]，但不能
# en: # call the runtime.
# zh: # 调用运行时接口。
# en: # runs on the runtime's thread
# zh: # 在运行时的线程上执行
# en: """Double the 8 batches on the device; summarise each in a callback; return the sums."""
# zh: """在 Device 上把 8 个批次乘 2；在回调中对每批调用 summarise；返回各批的和。"""
# en: # TODO: set_up; a report thread subscribed to the stream; for each batch: queue_batch,
# zh: # TODO：set_up；一个绑定到该 Stream 的上报线程；对每个批次：先 queue_batch，
# en: # then acl.rt.launch_callback(fn, i, block_type, stream); one synchronize; stop and join
# zh: # 再 acl.rt.launch_callback(fn, i, block_type, stream)；同步一次；停止并 join
# en: # the thread; acl.rt.unsubscribe_report(thread.ident, stream); clean_up.
# zh: # 该线程；acl.rt.unsubscribe_report(thread.ident, stream)；clean_up。
# en: # Hint: a callback needs a thread that calls aclrtProcessReport, or it never runs.
# zh: # 提示：回调需要一个调用 aclrtProcessReport 的线程，否则它永远不会执行。
# en: # runs on the report thread
# zh: # 在上报线程上执行
# en: """Your answers: {question number: letter}."""
# zh: """你的答案：{题号: 字母}。"""
