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
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("07.1", solution)`
# runs **your** function on a fresh simulated 910B of its own, with batches it makes up each
# time, and judges the whole run from the trace. Threads your function starts run on that
# machine too; join them before you return. The cells below hold stubs, so their verdict is
# `✘` until you write the code.
#
# Both exercises run the same pipeline: 8 batches of `N` float32 values, each copied in,
# doubled on the AI Core and copied back into its own slice of a pinned output buffer. Then
# the host post-processes each batch with `summarise(i, x)`, which the grader hands to your
# function: it returns the sum of batch `i`'s results `x` (a numpy array), and it notes
# **where** it ran and **what** it was given. The helpers below open the board, queue one
# batch and close the board; `out[i]` is a numpy view of batch `i`'s slice of the output
# buffer, made once before any copy, so a callback can read it without a runtime call.

# %%
BATCHES, N = 8, 64 * 1024                       # 8 batches of 64 Ki float32 (256 KiB)
NB = 4 * N


@sandbox.kernel(ns=lambda x, n: 2 * n)          # 2 ns per element: 131 µs per batch
def double(x: "float32*", n: int):
    x[:n] *= 2


def open_board(batches):
    """acl.init, device 0, a stream, pinned input (holding the batches) and output buffers,
    one device buffer, and out: a numpy view of the output, one row per batch."""
    acl.init()
    acl.rt.set_device(0)
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


def close_board(stream, host_in, host_out, dev):
    acl.rt.free(dev)
    acl.rt.free_host(host_out)
    acl.rt.free_host(host_in)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(0)
    acl.finalize()

# %% [markdown]
# The plain way waits for each batch with a synchronize and post-processes on the main
# thread. It is correct, but the host stops eight times, and cannot queue batch *i + 1* while
# it waits for batch *i*:

# %%
def sync_each(batches, summarise):
    stream, host_in, host_out, dev, out = open_board(batches)
    sums = []
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.synchronize_stream(stream)              # the host waits for every batch
        sums.append(summarise(i, out[i]))
    close_board(stream, host_in, host_out, dev)
    return sums


sandbox.configure("ascend910b")
sums = sync_each(np.ones((BATCHES, N), np.float32), lambda i, x: float(x.sum()))
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

# %% nbgrader={"grade": false, "grade_id": "ex07_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(batches, summarise):
    """Double the 8 batches on the device; summarise each in a host function; return the sums."""
    # TODO: open_board(batches); for each batch: queue_batch, then acl.rt.launch_host_func(
    # stream, fn, i) with an fn that stores summarise(i, out[i]); one synchronize; close_board.
    # Hint: the host function runs on the runtime's thread: it may read out[i] but must not
    # call the runtime.
    ### BEGIN SOLUTION
    stream, host_in, host_out, dev, out = open_board(batches)
    sums = [None] * BATCHES

    def post_process(i):                               # runs on the runtime's thread
        sums[i] = summarise(i, out[i])

    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_host_func(stream, post_process, i)
    acl.rt.synchronize_stream(stream)
    close_board(stream, host_in, host_out, dev)
    return sums
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex07_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("07.1", solution)).passed, str(grade)
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

# %% nbgrader={"grade": false, "grade_id": "ex07_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(batches, summarise):
    """Double the 8 batches on the device; summarise each in a callback; return the sums."""
    # TODO: open_board; a report thread subscribed to the stream; for each batch: queue_batch,
    # then acl.rt.launch_callback(fn, i, block_type, stream); one synchronize; stop and join
    # the thread; acl.rt.unsubscribe_report(thread.ident, stream); close_board.
    # Hint: a callback needs a thread that calls aclrtProcessReport, or it never runs.
    ### BEGIN SOLUTION
    stream, host_in, host_out, dev, out = open_board(batches)
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
    close_board(stream, host_in, host_out, dev)
    return sums
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex07_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("07.2", solution)).passed, str(grade)
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
