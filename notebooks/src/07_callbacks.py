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

# %% [markdown]
# ## No thread, no callback: 107015
#
# A callback needs a thread to run on. Launching one on a stream nobody subscribed to fails at
# once with `ACL_ERROR_RT_STREAM_NO_CB_REG`.

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
picture = sandbox.gantt()           # drawn now: the report thread's next wait has not ended yet
server.stop()
print("aclrtUnSubscribeReport ->", acl.rt.unsubscribe_report(server.thread.ident, stream))
print("the callback saw:", seen)
print("the report thread's process_report returns:", server.returns)
callback_runs()

# %% [markdown]
# The Gantt chart, drawn right after the synchronize (so the report thread's last wait, which
# runs out its 10 ms timeout, is not in it): the report thread's row has one `aclrtProcessReport`,
# red while it waited, ending with the 1 µs in which it ran the callback. The stream's row has
# the first kernel, the callback task (1 µs, too thin to see), then the second kernel, which
# started only when the callback had returned, because the callback was BLOCK.

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

# %%
blocked_gantt

# %% [markdown]
# With NO_BLOCK the second kernel follows the first at once; the callback still runs late on
# the host, but nothing on the device waits for it.

# %%
sandbox.gantt()

# %% [markdown]
# Use BLOCK when later device work must not start before the callback is done (the callback
# refills a buffer the next kernel reads); use NO_BLOCK for notifications the device need not
# wait for (logging, handing a finished result on).
#
# ## process_report: timeouts and threads that serve nothing
#
# The timeout is in milliseconds (-1 waits forever; 0 and other negatives are invalid). If no
# callback arrives in time: 507012. On a thread that serves no stream: 107012.

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
# from inside a callback or host function: on hardware they may fail or deadlock. The sandbox
# makes every such call return **207000** (`ACL_ERROR_RT_FEATURE_NOT_SUPPORT`) at once, with a
# message, and lists it in the trace as an error. Reading host memory with `acl.util` is not
# a runtime call and is fine. What a callback *raises* does not crash anything either: it is
# recorded with the callback's run and in `acl.get_recent_err_msg()` of the report thread.

# %%
stream, buf = board()
tried = []


def greedy(data):
    tried.append(("aclrtMalloc", acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)[1]))
    tried.append(("aclrtSynchronizeDevice", acl.rt.synchronize_device()))


acl.rt.subscribe_report(threading.get_ident(), stream)
acl.rt.launch_callback(greedy, None, BLOCK, stream)
acl.rt.process_report(100)
print("inside the callback:", tried)
print(acl.get_recent_err_msg())

# %% [markdown]
# ## A deadlock, shown safely
#
# A BLOCK callback holds its stream until a thread runs it. If the thread subscribed to the
# stream is the one that then waits in `aclrtSynchronizeStream`, nobody will ever call
# `aclrtProcessReport`: on hardware the program hangs. The sandbox sees that no thread can run
# and no device work can finish, and turns the synchronize into the code a timed-out
# synchronize returns (507046, `ACL_ERROR_RT_STREAM_SYNC_TIMEOUT`) with the reason, instead of
# hanging.

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
# ## Exercise · post-process each batch in a callback
#
# A stream processes 8 batches: copy the batch in, double it on the AI Core, copy it back.
# The host then post-processes each batch (here: its sum). The version below waits for each
# batch with a synchronize and post-processes on the main thread — correct, but the host stops
# eight times, and cannot queue batch *i + 1* while it waits for batch *i*.

# %%
BATCHES, N = 8, 64 * 1024                       # 8 batches of 64 Ki float32 (256 KiB)
NB = 4 * N


@sandbox.kernel(ns=lambda x, n: 2 * n)          # 2 ns per element: 131 µs per batch
def double(x: "float32*", n: int):
    x[:n] *= 2


def pipeline_board():
    """Pinned input (8 batches) and output, one device buffer, a stream, a numpy view of the
    output (made once, before any copy, so the callbacks read plain memory), the expected sums."""
    stream, _ = board()
    host_in, _ = acl.rt.malloc_host(BATCHES * NB)
    host_out, _ = acl.rt.malloc_host(BATCHES * NB)
    dev, _ = acl.rt.malloc(NB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    data = (np.arange(BATCHES * N) % 7).astype(np.float32).reshape(BATCHES, N)
    acl.util.ptr_to_numpy(host_in, (BATCHES, N), np.float32)[:] = data
    out = acl.util.ptr_to_numpy(host_out, (BATCHES, N), np.float32)   # a view: it sees later writes
    return stream, host_in, host_out, dev, out, (2 * data).sum(axis=1)


def queue_batch(i, stream, host_in, host_out, dev):
    acl.rt.memcpy_async(dev, NB, host_in + i * NB, NB, H2D, stream)
    double[8, stream](dev, N)
    acl.rt.memcpy_async(host_out + i * NB, NB, dev, NB, D2H, stream)


def sync_each():
    stream, host_in, host_out, dev, out, expected = pipeline_board()
    sums = [0.0] * BATCHES
    teach.mark("start")
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.synchronize_stream(stream)              # the host waits for every batch
        sums[i] = float(out[i].sum())
    teach.mark("end")
    return sums, expected


sums, expected = sync_each()
teach.grade(teach.check_callbacks(ran=BATCHES),
            teach.check_syncs(at_most=1),
            teach.check_equal(sums, expected, what="batch sums"))

# %% [markdown]
# Your turn: queue all eight batches without waiting, post-process each batch in a callback
# that runs when its copy back has finished, and synchronise once at the end. The grader counts
# the callbacks that ran (8, none raising), the synchronize calls (at most 1) and checks the
# sums. The cell below is the reference solution; replace the body of `attempt` with your own.
#
# Hints: subscribe a report thread to the stream before the first launch; the callback's user
# data tells it which batch it is; a callback may read host memory but must not call the
# runtime; stop and join the report thread after the synchronize.

# %%
def attempt():
    stream, host_in, host_out, dev, out, expected = pipeline_board()
    sums = [0.0] * BATCHES

    def post_process(data):                            # runs on the report thread
        i = data[0]
        sums[i] = float(out[i].sum())

    server = ReportServer()
    acl.rt.subscribe_report(server.thread.ident, stream)
    teach.mark("start")
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(post_process, [i], NO_BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    teach.mark("end")
    server.stop()
    acl.rt.unsubscribe_report(server.thread.ident, stream)
    return sums, expected


sums, expected = attempt()
teach.grade(teach.check_callbacks(ran=BATCHES),
            teach.check_syncs(at_most=1),
            teach.check_equal(sums, expected, what="batch sums"))

# %% [markdown]
# Why NO_BLOCK is enough here: each batch's copy back finished before its callback was
# delivered, and the next batch writes a *different* slice of `host_out`. (The device buffer is
# reused, but the stream keeps the batches in order.) Would BLOCK change the result? The
# timeline? Try it.
#
# ### Exercise 2 · the same with host functions
#
# Do it again with `acl.rt.launch_host_func(stream, fn, args)`: no report thread, no
# subscription. The grader wants 8 host functions run and the same sums.

# %%
def attempt_host_func():
    stream, host_in, host_out, dev, out, expected = pipeline_board()
    sums = [0.0] * BATCHES

    def post_process(i):                               # runs on the runtime's thread
        sums[i] = float(out[i].sum())

    teach.mark("start")
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_host_func(stream, post_process, i)
    acl.rt.synchronize_stream(stream)
    teach.mark("end")
    return sums, expected


sums, expected = attempt_host_func()
teach.grade(teach.check_callbacks(ran=BATCHES, kind="host_func"),
            teach.check_syncs(at_most=1),
            teach.check_equal(sums, expected, what="batch sums"))
