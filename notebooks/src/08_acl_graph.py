# %% [markdown]
# # 08 · ACL Graph: capture stream work once, replay it with one call
#
# Every `Async` call and every kernel launch costs the host a few microseconds: on the 910B
# profile a launch is 8.6 µs of host time. When the kernels are big that does not matter. When a
# step of a program is many **small** kernels (a few µs each on the device), the host cannot
# queue them as fast as the device runs them: the device waits between kernels, and the host
# spends its time launching.
#
# ACL Graph (the runtime overview, seed 004, lists it among the advanced features) records the
# tasks issued to a stream into a **model run instance** (`aclmdlRI`) instead of running them,
# and then replays all of them with **one** host call, as often as needed.
#
# The seed says the runtime "optimises the execution order" of the graph to maximise
# parallelism. The runtime's documentation describes no such reordering: a replay runs the
# captured tasks in the order each stream issued them, with the event waits that were captured
# between streams (and one launch of a graph after another). The parallelism in a graph is the
# parallelism you captured; what a replay saves is host time, as this notebook measures.
#
# | step | C (AscendCL) | Python (this sandbox) |
# |---|---|---|
# | start recording a stream | `aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)` | `acl.mdl.ri_capture_begin(stream, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)` |
# | issue work as usual (recorded, not run) | `aclrtMemcpyAsync`, kernel launches, `aclrtRecordEvent` ... | the same calls |
# | is it capturing? | `aclmdlRICaptureGetInfo(stream, &status, &ri)` | `status, ri, ret = acl.mdl.ri_capture_get_info(stream)` |
# | stop recording | `aclmdlRICaptureEnd(stream, &ri)` | `ri, ret = acl.mdl.ri_capture_end(stream)` |
# | replay every recorded task | `aclmdlRIExecuteAsync(ri, stream)` | `acl.mdl.ri_execute_async(ri, stream)` |
# | free it | `aclmdlRIDestroy(ri)` | `acl.mdl.ri_destroy(ri)` |
#
# No pyACL binding of these calls is published (Python users reach them through torch_npu's
# `NPUGraph`); the sandbox names them by pyACL's rule, under `acl.mdl`.
# ACL Graph runs on the A2/A3 boards (and 310P), **not on the 310B**, so this notebook uses the
# 910B profile.

# %%
import json
import os
import tempfile

import numpy as np

import sandbox
from sandbox import acl, teach
from sandbox.core import trace as T     # record types of sandbox.trace(), to count what happened

GLOBAL = acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL
THREAD_LOCAL = acl.ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL
RELAXED = acl.ACL_MODEL_RI_CAPTURE_MODE_RELAXED
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
STATUS = {acl.ACL_MODEL_RI_CAPTURE_STATUS_NONE: "NONE", acl.ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE: "ACTIVE",
          acl.ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED: "INVALIDATED"}
N = 1024                    # float32 elements the kernels touch
K = 32                      # small kernels in one step


@sandbox.kernel(ns=1_000)   # a small kernel: 1 µs of work (+ the device's per-kernel start)
def step(x: "float32*", n: int):
    x[:n] = x[:n] * 0.5 + 1


def board(profile="ascend910b"):
    """A fresh board: acl initialised, device 0 set, a created stream, a zeroed device buffer."""
    sandbox.configure(profile)
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memset(buf, 4 * N, 0, 4 * N)
    return stream, buf


def read(buf):
    """The device buffer's first values, copied back (blocking)."""
    host = np.zeros(N, np.float32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(host), 4 * N, buf, 4 * N, D2H)
    return host


def expected(steps):
    """What `steps` applications of step() make of zeros."""
    x = np.zeros(N, np.float32)
    for _ in range(steps):
        x = x * np.float32(0.5) + np.float32(1)
    return x


p = sandbox.get_profile("ascend910b")
print(f"{p.soc_name}: a kernel launch costs the host {p.host_costs.kernel_launch / 1e3} µs, "
      f"each kernel starts in {p.kernel_start_ns / 1e3} µs on the device")

# %% [markdown]
# ## How the official model-RI sample goes
#
# The runtime repository's `example/2_advanced_features/model_ri/0_simple_model` builds
# `out = (self + other × alpha) × other` from two library operators, in short:
#
# 1. initialise, open device 0, make a context; create the tensors and the two operators'
#    workspaces; create a stream and pinned host memory for one input;
# 2. **begin capture** on the stream in GLOBAL mode;
# 3. queue an async host-to-device copy of the pinned input (a "safe" call: it is recorded);
# 4. switch the thread to RELAXED with `aclmdlRICaptureThreadExchangeMode`, do a **blocking**
#    copy of the other input (not recorded: it runs at once), and switch back;
# 5. queue the add and the mul operators (recorded); **end capture** to get the `aclmdlRI`;
#    print it as JSON with `aclmdlRIDebugJsonPrint`;
# 6. four times: execute the instance asynchronously, synchronise the stream, copy the result
#    back and print it;
# 7. destroy the instance, the stream, tensors, buffers, context; reset and finalise.
#
# We follow the same path on small kernels of our own, then measure what it saves.

# %% [markdown]
# ## Capture: recorded, not run
#
# Between begin and end, kernel launches return 0 but reach no queue: the trace gets a
# `TaskCaptured` record for each, the device does nothing, the data does not change.

# %%
stream, buf = board()
print("aclmdlRICaptureBegin ->", acl.mdl.ri_capture_begin(stream, GLOBAL))   # C: aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
rets = {step[1, stream](buf, N) for _ in range(K)}
status, _ri, ret = acl.mdl.ri_capture_get_info(stream)                        # C: aclmdlRICaptureGetInfo(stream, &status, &ri);
print(f"{K} launches returned {rets}; capture status: {STATUS[status]}")
ri, ret = acl.mdl.ri_capture_end(stream)                                      # C: aclmdlRICaptureEnd(stream, &modelRI);
print("aclmdlRICaptureEnd ->", ret)
captured = len(list(sandbox.trace().of(T.TaskCaptured)))
submitted = sum(1 for r in sandbox.trace().of(T.TaskSubmitted) if r.kind == "kernel")
print(f"tasks recorded: {captured}, kernels sent to the device: {submitted}")
print("data after capture:", read(buf)[:3])

# %% [markdown]
# `aclmdlRIDebugJsonPrint` writes what the instance holds: its streams and each task's type.

# %%
path = os.path.join(tempfile.mkdtemp(), "model_ri.json")
print("aclmdlRIDebugJsonPrint ->", acl.mdl.ri_debug_json_print(ri, path, 0))
with open(path, encoding="utf-8") as f:
    doc = json.load(f)
print(f"model {doc['model_id']} on device {doc['device_id']}, streams {doc['streams']}, "
      f"{len(doc['tasks'])} tasks; the first two: {doc['tasks'][:2]}")

# %% [markdown]
# ## Replay: one call, every task
#
# `aclmdlRIExecuteAsync` submits all 32 recorded kernels onto the stream for a single host call.
# It is asynchronous like any `Async` call: synchronise before reading.

# %%
calls_before = len(list(sandbox.trace().of(T.ApiCall)))
print("aclmdlRIExecuteAsync ->", acl.mdl.ri_execute_async(ri, stream))         # C: aclmdlRIExecuteAsync(modelRI, stream);
print("aclrtSynchronizeStream ->", acl.rt.synchronize_stream(stream))
print("host calls for the replay and its synchronize:", len(list(sandbox.trace().of(T.ApiCall))) - calls_before)
teach.check_equal(read(buf), expected(K), what=f"data after one replay ({K} steps)")

# %% [markdown]
# ## Eager vs replayed
#
# The same 32 kernels, once launched one by one ("eager") and once replayed from a graph
# captured beforehand. Between the marks `start` and `end` we count the host calls, the time,
# and the largest gap between two kernels on the device.

# %%
results = {}


def kernel_gaps():
    starts = {r.task: r.t for r in sandbox.trace().of(T.TaskStarted)}
    ends = {r.task: r.t for r in sandbox.trace().of(T.TaskFinished)}
    ks = [r.task for r in sandbox.trace().of(T.TaskSubmitted) if r.kind == "kernel"][-K:]
    return max(starts[b] - ends[a] for a, b in zip(ks, ks[1:]))


def run(mode, replays=1):
    stream, buf = board()
    if mode == "graph":
        acl.mdl.ri_capture_begin(stream, GLOBAL)
        for _ in range(K):
            step[1, stream](buf, N)
        ri, _ = acl.mdl.ri_capture_end(stream)
    teach.mark("start")
    for _ in range(replays):
        if mode == "graph":
            acl.mdl.ri_execute_async(ri, stream)
        else:
            for _ in range(K):
                step[1, stream](buf, N)
    acl.rt.synchronize_stream(stream)
    teach.mark("end")
    calls = teach.check_host_calls(at_most=10**9, start="start", end="end").value
    lo, hi = teach.window(start="start", end="end")
    results[(mode, replays)] = (calls, hi - lo, kernel_gaps())
    ok = np.allclose(read(buf), expected(K * replays))
    print(f"{mode:>6} x{replays:<4}: {calls:5d} host calls, {(hi - lo) / 1e3:8.1f} µs start to end, "
          f"largest gap between kernels {kernel_gaps() / 1e3:.1f} µs, data correct: {ok}")


run("eager")
eager_gantt = sandbox.gantt()
run("graph")

# %% [markdown]
# Eager: the host row is solid with launches (32 of them, one after another); each kernel (4 µs on the device: 1 µs of
# work and the 3 µs start) finishes before the host has queued the next one (8.6 µs), so the
# stream runs at the host's pace, with gaps.

# %%
eager_gantt

# %% [markdown]
# Replayed: the first ~290 µs are the **capture** — the host records the 32 launches, paying
# each launch's cost, while the device does nothing. Then, after the mark, one
# `aclmdlRIExecuteAsync` (too short to see at the left end of the red synchronize) and the 32
# kernels run back to back: one solid bar on the stream. The capture only pays off when the
# instance is replayed, which is the point of the next section.

# %%
sandbox.gantt()

# %% [markdown]
# ## Replaying many times
#
# Capture pays the launch cost once (each captured launch still costs its 8.6 µs when it is
# recorded); every replay after that is one call. A training or inference loop that runs the
# same step thousands of times is where that pays.

# %%
for n in (10, 100):
    run("eager", n)
    run("graph", n)
(ec, et, _), (gc, gt, _) = results[("eager", 100)], results[("graph", 100)]
print(f"100 steps: {ec / gc:.0f}x fewer host calls, {et / gt:.2f}x shorter")

# %% [markdown]
# ## The rules, and what breaking them returns
#
# **Synchronising during capture** (stream, event, device) is illegal in every mode: 107041
# (`ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC`). It also *invalidates* the capture, and ending it
# then fails with 507903: nothing was kept.

# %%
stream, buf = board()
acl.mdl.ri_capture_begin(stream, GLOBAL)
step[1, stream](buf, N)
print("aclrtSynchronizeStream during capture ->", acl.rt.synchronize_stream(stream))
print("status now:", STATUS[acl.mdl.ri_capture_get_info(stream)[0]])
print("aclmdlRICaptureEnd ->", acl.mdl.ri_capture_end(stream)[1])
print(acl.get_recent_err_msg())

# %% [markdown]
# **The default stream** cannot be captured, nor used while a capture is active in its
# context: 107031 (`ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT`). Capture a stream you created.

# %%
stream, buf = board()
print("begin on the default stream ->", acl.mdl.ri_capture_begin(0, GLOBAL))
acl.mdl.ri_capture_begin(stream, GLOBAL)
print("launch on the default stream during a capture ->", step[1, 0](buf, N))
print(acl.get_recent_err_msg())
_ = acl.mdl.ri_capture_end(stream)

# %% [markdown]
# **Host memory must be pinned.** An async copy from pageable memory (a numpy array's address)
# becomes a synchronous copy inside the runtime, and cannot be captured: 107041. Memory from
# `aclrtMallocHost` can.
#
# **Capture modes** restrict the "unsafe" calls — blocking `aclrtMemcpy`/`aclrtMemset` —
# while a capture is active: GLOBAL forbids them to every thread (while any GLOBAL capture
# runs), THREAD_LOCAL only to the capturing thread, RELAXED to nobody. The sandbox answers a
# refused blocking copy with 107030 (`ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT`, the code the
# runtime's source maps there). As in the official sample, a thread can switch itself to
# RELAXED for one call with `aclmdlRICaptureThreadExchangeMode` and back; the blocking copy then
# runs at once and is **not** recorded.

# %%
stream, buf = board()
pageable = np.ones(N, np.float32)
pinned, _ = acl.rt.malloc_host(4 * N)
acl.mdl.ri_capture_begin(stream, GLOBAL)
print("pageable async copy ->", acl.rt.memcpy_async(buf, 4 * N, acl.util.numpy_to_ptr(pageable), 4 * N, H2D, stream))
print("pinned async copy   ->", acl.rt.memcpy_async(buf, 4 * N, pinned, 4 * N, H2D, stream))
print("blocking copy       ->", acl.rt.memcpy(buf, 4 * N, pinned, 4 * N, H2D))
old, _ = acl.mdl.ri_capture_thread_exchange_mode(RELAXED)          # C: aclmdlRICaptureThreadExchangeMode(&mode);
print("blocking copy, RELAXED ->", acl.rt.memcpy(buf, 4 * N, pinned, 4 * N, H2D))
acl.mdl.ri_capture_thread_exchange_mode(old)                       # back to GLOBAL
ri, ret = acl.mdl.ri_capture_end(stream)
print("aclmdlRICaptureEnd ->", ret, "| tasks recorded:", [r.n_tasks for r in sandbox.trace().of(T.GraphCaptured)])

# %% [markdown]
# **Side streams must rejoin.** A second stream joins a capture by waiting on an event recorded
# on a captured stream; its tasks are then recorded too. Before the end, every side stream must
# lead back to the origin stream (record an event on it, wait for that on the origin), or the
# end fails with 107025 (`ACL_ERROR_RT_STREAM_UNJOINED`) and the capture is dropped.

# %%
def fork_join(rejoin):
    stream, buf = board()
    side, _ = acl.rt.create_stream()
    fork, _ = acl.rt.create_event()
    join, _ = acl.rt.create_event()
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.record_event(fork, stream)
    acl.rt.stream_wait_event(side, fork)          # the side stream joins the capture
    step[1, side](buf, N)
    step[1, stream](buf + 4 * N // 2, N // 2)
    if rejoin:
        acl.rt.record_event(join, side)
        acl.rt.stream_wait_event(stream, join)    # ... and rejoins the origin
    ri, ret = acl.mdl.ri_capture_end(stream)
    print(f"rejoin={rejoin}: aclmdlRICaptureEnd -> {ret}")
    if ret:
        print(" ", acl.get_recent_err_msg())


fork_join(False)
fork_join(True)

# %% [markdown]
# **Not on the 310B:** every ACL Graph call there answers 207000.

# %%
stream, buf = board("ascend310b")
print("310B aclmdlRICaptureBegin ->", acl.mdl.ri_capture_begin(stream, GLOBAL))

# %% [markdown]
# ## The other way: one bigger kernel
#
# The runtime overview (seed 004) also advises **batching**: merge many small tasks into one
# bigger one, to cut launch overhead. Where you write the kernels, one kernel that does all 32
# steps beats even the replayed graph: one launch, and one device start instead of 32. A graph
# keeps separate kernels (library operators you cannot merge, work on several streams) and
# replays them cheaply; fusing changes the kernels themselves.

# %%
@sandbox.kernel(ns=lambda x, n, k: 1_000 * k)
def steps(x: "float32*", n: int, k: int):
    for _ in range(k):
        x[:n] = x[:n] * 0.5 + 1


stream, buf = board()
teach.mark("start")
steps[1, stream](buf, N, K)
acl.rt.synchronize_stream(stream)
teach.mark("end")
lo, hi = teach.window(start="start", end="end")
results[("fused", 1)] = (teach.check_host_calls(at_most=10**9, start="start", end="end").value, hi - lo, 0)
print(f"{'':>12}{'host calls':>12}{'start to end':>16}")
for key in (("eager", 1), ("graph", 1), ("fused", 1)):
    calls, span, _ = results[key]
    print(f"{key[0]:>12}{calls:>12}{span / 1e3:>13.1f} µs")
teach.check_equal(read(buf), expected(K), what="fused kernel's data")

# %% [markdown]
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("08.1", solution)` runs
# **your** function on a fresh simulated 910B of its own, with inputs it makes up each time, and
# judges the whole run from the trace: the answer, whether the device computed it, which
# kernels ran and where they came from, and the numbers the exercise states. Each criterion
# prints `✔` or `✘` with a hint. The whole run of `solution` is the graded window: there is no
# mark to set, and work done before or after it does not exist.
#
# The grader opens the board for you: `acl.init()` has run, device 0 is set, and `stream` is a
# stream it created. Do not call `sandbox.configure` or `board()` in a solution (the grader
# builds the machine), and you need not reset the device or finalise.
#
# The exercises use a kernel of their own, `tick` (`x = 3·x + j` on int32, wrapping), so the
# result depends on every launch and on their order. A **step** of the model is 32 ticks,
# `j = 0 … 31`: `model_step(stream, buf)` launches them. `tick` declares how many elements it
# touches (`sandbox.ptr("int32", "n")`), so two ticks on different halves of one buffer do not
# conflict.

# %%
REPEATS = 20                # steps in 08.1 and 08.3
BATCHES = 6                 # batches in 08.2


@sandbox.kernel(ns=1_000)   # a small kernel, 1 µs of work like step()
def tick(x: sandbox.ptr("int32", "n"), n: int, j: int):
    x[:n] = x[:n] * 3 + j


def model_step(stream, buf, n=N):
    """One step of the model on the n int32 values at buf: tick with j = 0 .. K-1, in order."""
    for j in range(K):
        tick[1, stream](buf, n, j)


def model(x, steps=1):
    """What `steps` steps make of x, computed with numpy (to compare with; not an answer)."""
    y = np.array(x, dtype=np.int32)
    for _ in range(steps):
        for j in range(K):
            y = y * np.int32(3) + np.int32(j)
    return y

# %% [markdown]
# ### Exercise 08.1 · replay the step
#
# *Practises:* capturing a step of small kernels once and replaying it, so that the host makes
# one call per step and the device runs the kernels back to back.
#
# `eager_steps` below runs 20 steps of the model on `x`, launching all 640 ticks one by one; the
# grader accepts its answer and rejects the rest. Write `solution(x, stream)` that returns the
# same values (int32, `N` of them) with the step captured into a graph once and replayed. Graded:
#
# * the answer: `x` after 20 steps, computed by kernels on the device and copied back;
# * the kernels unchanged: exactly 640 launches of `tick` ran (32 per step, 20 steps), and no
#   other kernel (a fused kernel is another program);
# * every one of the 640 kernels ran from a replay (`aclmdlRIExecuteAsync`) of a captured graph;
# * at most **100 host calls** in the whole solution (the capture's launches count; stream and
#   event queries, if you poll instead of synchronising, do not);
# * at most **4 ms** from the solution's start to its end (the capture counts).

# %%
def eager_steps(x, stream):
    """20 steps of the model on x, every tick launched eagerly (the starting point)."""
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memcpy(buf, 4 * N, acl.util.numpy_to_ptr(x), 4 * N, H2D)
    for _ in range(REPEATS):
        model_step(stream, buf)
    acl.rt.synchronize_stream(stream)
    out = np.empty(N, np.int32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(out), 4 * N, buf, 4 * N, D2H)
    acl.rt.free(buf)
    return out


print(sandbox.teach.check("08.1", eager_steps))

# %% nbgrader={"grade": false, "grade_id": "ex08_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x, stream):
    """Return x (int32, N) after REPEATS steps of model_step, replayed from a graph on the device."""
    # TODO: copy x into a device buffer; capture model_step(stream, buf) once between
    # acl.mdl.ri_capture_begin(stream, GLOBAL) and acl.mdl.ri_capture_end(stream); replay the
    # instance REPEATS times with acl.mdl.ri_execute_async(ri, stream); synchronise once; copy
    # the buffer back and return it.
    # Hint: no synchronize (and no blocking copy) between begin and end; ri_destroy at the end.
    ### BEGIN SOLUTION
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(4 * N)
    acl.util.ptr_to_numpy(host, (N,), np.int32)[:] = x
    acl.rt.memcpy_async(buf, 4 * N, host, 4 * N, H2D, stream)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    model_step(stream, buf)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.memcpy_async(host, 4 * N, buf, 4 * N, D2H, stream)
    acl.rt.synchronize_stream(stream)
    out = acl.util.ptr_to_numpy(host, (N,), np.int32).copy()
    acl.mdl.ri_destroy(ri)
    acl.rt.free(buf)
    acl.rt.free_host(host)
    return out
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex08_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("08.1", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("08.1", solution)

# %% [markdown]
# ### Exercise 08.2 · copies in the graph
#
# *Practises:* capturing copies from pinned host memory together with the kernels, and feeding a
# graph new data through the buffers it was captured with.
#
# A graph replays its tasks with the addresses they were captured with. To run it on new data,
# capture the copies too: the copy in from a **pinned** host buffer (`aclrtMallocHost`; an async
# copy from pageable memory cannot be captured), one step, and the copy out into another pinned
# buffer. Then, for each of the 6 batches `x[i]` (int32, `N` each): write the batch into the
# pinned input buffer, replay, wait, and read the pinned output buffer before the next replay
# overwrites it. Return the 6 results as an array of shape `(BATCHES, N)`. Graded:
#
# * the answer: each row is one step of the model on its batch, computed by kernels on the
#   device and brought back by a device-to-host copy;
# * the kernels unchanged: 192 launches of `tick` (32 per batch), all from replays;
# * the copies in the graph: 6 copies in and 6 copies out of 4 KiB, all replayed from the graph;
# * exactly **6 replays** of the graph, one per batch;
# * at most **80 host calls** in the whole solution.

# %% nbgrader={"grade": false, "grade_id": "ex08_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x, stream):
    """Return model(x[i]) for each of the BATCHES rows of x, each from one replay of one graph."""
    # TODO: pinned host buffers for one batch in and one out, and a device buffer; capture
    # [copy in, model_step, copy out] once; then per batch: fill the input buffer, replay,
    # synchronise, keep a copy of the output buffer.
    # Hint: acl.util.ptr_to_numpy(ptr, (N,), np.int32) is a view of pinned memory: write with
    # view[:] = ..., and .copy() what you read before the next replay changes it.
    ### BEGIN SOLUTION
    hin, _ = acl.rt.malloc_host(4 * N)
    hout, _ = acl.rt.malloc_host(4 * N)
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.memcpy_async(buf, 4 * N, hin, 4 * N, H2D, stream)
    model_step(stream, buf)
    acl.rt.memcpy_async(hout, 4 * N, buf, 4 * N, D2H, stream)
    ri, _ = acl.mdl.ri_capture_end(stream)
    out = np.empty((BATCHES, N), np.int32)
    for i in range(BATCHES):
        acl.util.ptr_to_numpy(hin, (N,), np.int32)[:] = x[i]
        acl.mdl.ri_execute_async(ri, stream)
        acl.rt.synchronize_stream(stream)
        out[i] = acl.util.ptr_to_numpy(hout, (N,), np.int32)
    acl.mdl.ri_destroy(ri)
    acl.rt.free(buf)
    acl.rt.free_host(hin)
    acl.rt.free_host(hout)
    return out
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex08_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("08.2", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("08.2", solution)

# %% [markdown]
# ### Exercise 08.3 · two streams in one graph
#
# *Practises:* cross-stream capture: a side stream joins the capture through an event and
# rejoins the origin stream before the end, so that one replay runs both streams side by side.
#
# Two vectors `a` and `b` (int32, `N` each) each go through 20 steps of the model. They do not
# depend on each other, but on one stream their 1280 ticks run one after another. Capture one
# step of both into **one graph on two streams**: inside the capture, record an event on
# `stream` and make a side stream (one you create) wait for it, launch `b`'s step on the side
# stream and `a`'s on `stream`, then record an event on the side stream and make `stream` wait
# for it before `ri_capture_end` (or the end fails with 107025). Replay it 20 times and return
# `np.stack([a_after, b_after])`, shape `(2, N)`. Graded:
#
# * the answer: `a` and `b` after 20 steps, computed by kernels on the device and copied back;
# * the kernels unchanged: 1280 launches of `tick`, all from replays;
# * one graph, captured on two streams, is what was replayed;
# * the two streams ran kernels at the same time for at least **75%** of the shorter one's
#   kernel time;
# * at most **150 host calls** and at most **4 ms** in the whole solution.

# %% nbgrader={"grade": false, "grade_id": "ex08_3", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(a, b, stream):
    """Return np.stack([a, b]) after REPEATS steps each, from one graph that runs a and b side by side."""
    # TODO: a side stream and two events; device memory for a and b; inside one capture on
    # stream: fork (record on stream, side waits), a's step on stream, b's on side, join (record
    # on side, stream waits); end the capture; replay REPEATS times; copy back; synchronise.
    # Hint: the fork and the join are acl.rt.record_event(event, s) + acl.rt.stream_wait_event(other, event).
    ### BEGIN SOLUTION
    side, _ = acl.rt.create_stream()
    fork, _ = acl.rt.create_event()
    join, _ = acl.rt.create_event()
    host, _ = acl.rt.malloc_host(8 * N)
    dev, _ = acl.rt.malloc(8 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(host, (2, N), np.int32)[:] = [a, b]
    acl.rt.memcpy_async(dev, 8 * N, host, 8 * N, H2D, stream)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.record_event(fork, stream)
    acl.rt.stream_wait_event(side, fork)          # the side stream joins the capture
    model_step(stream, dev)
    model_step(side, dev + 4 * N)
    acl.rt.record_event(join, side)
    acl.rt.stream_wait_event(stream, join)        # ... and rejoins the origin
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.memcpy_async(host, 8 * N, dev, 8 * N, D2H, stream)
    acl.rt.synchronize_stream(stream)
    out = acl.util.ptr_to_numpy(host, (2, N), np.int32).copy()
    acl.mdl.ri_destroy(ri)
    acl.rt.free(dev)
    acl.rt.free_host(host)
    for e in (fork, join):
        acl.rt.destroy_event(e)
    acl.rt.destroy_stream(side)
    return out
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex08_3_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("08.3", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("08.3", solution)

# %% [markdown]
# ## Summary
#
# A graph pays the launch cost of a step once, at capture, and every replay after that is one
# host call that puts all the step's tasks on the device together. Capture records, it does not
# run: no synchronize inside it, only pinned host memory in its copies, side streams joined by
# an event and rejoined before the end. A replay reuses the captured addresses, so new data goes
# into the captured buffers between replays. Next, notebook 09: what to do when calls and device
# tasks fail, and how the sandbox finds races that a schedule hid.
