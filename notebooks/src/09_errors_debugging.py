# %% [markdown]
# # 09 · Errors and debugging: codes, device faults, hazards, leaks and the trace
#
# Things go wrong in three different places, and each has its own tool:
#
# | where it goes wrong | how you learn about it | C | Python |
# |---|---|---|---|
# | a call is misused (bad argument, wrong order) | the call's return code, at once | `aclError ret = aclrtMalloc(...)` | `ptr, ret = acl.rt.malloc(...)` |
# | … and why | the message of the thread's last failures | `aclGetRecentErrMsg()` | `acl.get_recent_err_msg()` |
# | … the thread's last error code | read and clear / read and keep | `aclrtGetLastError(ACL_RT_THREAD_LEVEL)` / `aclrtPeekAtLastError(...)` | `acl.rt.get_last_error()` / `acl.rt.peek_at_last_error()` |
# | a device task fails (a kernel traps, a DMA fails) | the **next synchronize** returns the code | `aclrtSynchronizeStream(stream)` | `acl.rt.synchronize_stream(stream)` |
# | what later tasks do after a failure | the stream's failure mode | `aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE)` | `acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE)` |
# | the program is racy but happens to work | the sandbox's hazard reports | — | `sandbox.hazards()` |
# | something was never released | the leak report at `aclFinalize` | — | `sandbox.leak_report()` |
# | where did the time go | the trace, in Perfetto | `msprof` timeline | `sandbox.export_trace(path)` |
#
# The last three are the sandbox's own debugging aids: the real runtime does not check for
# races, so a racy program may run correctly for months and then fail on a busier machine.

# %%
import json
import os
import tempfile
import warnings

import numpy as np

import sandbox
from sandbox import acl, teach

H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
D2D = acl.ACL_MEMCPY_DEVICE_TO_DEVICE
HUGE = acl.ACL_MEM_MALLOC_HUGE_FIRST
N = 256 * 1024                      # float32 elements per buffer
NB = 4 * N                          # 1 MiB


def name(code):
    """The C name of a return code (AclError knows every code of the runtime's headers)."""
    return sandbox.AclError(code, "").name


@sandbox.kernel(bytes=lambda x, y, n: 8 * n, flops=lambda x, y, n: 2 * n, writes=("y",))
def scale(x: "float32*", y: "float32*", n: int):
    y[:n] = 2 * x[:n]


print("ACL_SUCCESS =", acl.ACL_SUCCESS, "| ACL_ERROR_INVALID_PARAM =", acl.ACL_ERROR_INVALID_PARAM,
      "| ACL_ERROR_RT_AICORE_EXCEPTION =", acl.ACL_ERROR_RT_AICORE_EXCEPTION)

# %% [markdown]
# ## 1 · Return codes
#
# Every call returns `ACL_SUCCESS` (0) or an error code; calls that produce a value return a
# tuple with the code last. Codes come in families: `1xxxxx` the caller's mistake (bad
# parameter, not initialised), `2xxxxx` resources (out of memory, unsupported feature),
# `5xxxxx` the device or the runtime itself (a kernel fault, a DMA error). The official samples
# wrap every call in a check macro that logs the failing call and stops; here we print the codes.

# %%
sandbox.configure("ascend910b", device_count=2)
print("set_device before init:", (r := acl.rt.set_device(0)), name(r))
print("init:", acl.init())
print("set_device(0):", acl.rt.set_device(0))
print("set_device(7) on a 2-device machine:", (r := acl.rt.set_device(7)), name(r))
ptr, ret = acl.rt.malloc(0, HUGE)
print("malloc(0):", (ptr, ret), name(ret))
print("synchronize a stream that does not exist:", (r := acl.rt.synchronize_stream(12345)), name(r))

# %% [markdown]
# ## 2 · The messages: newest first, then cleared
#
# A code says *what* class of thing failed; `aclGetRecentErrMsg` says *why*. It returns the
# messages of the calling thread's failures since it was last called, **newest first**, and
# clears them: a second call returns nothing.

# %%
print(acl.get_recent_err_msg())
print("--- and again:", repr(acl.get_recent_err_msg()))

# %% [markdown]
# ## 3 · The last error: get clears, peek keeps
#
# `aclrtGetLastError` returns the thread's most recent error code and resets it to 0;
# `aclrtPeekAtLastError` returns it and leaves it in place. A library can peek without taking
# the error away from the code that will handle it.

# %%
acl.rt.destroy_stream(0)     # the default stream cannot be destroyed
print("peek:", acl.rt.peek_at_last_error(), "| peek:", acl.rt.peek_at_last_error(),
      "| get:", acl.rt.get_last_error(), "| get:", acl.rt.get_last_error())
_ = acl.get_recent_err_msg()

# %% [markdown]
# ## 4 · Exceptions instead of codes
#
# Checking every code is how C and pyACL work, and forgetting one check is how errors go
# unnoticed. `sandbox.raise_on_error(True)` makes every failing call raise `sandbox.AclError`,
# which carries the code, its C name and the message (a sandbox convenience: pyACL returns
# codes only).

# %%
sandbox.raise_on_error(True)
try:
    acl.rt.malloc(0, HUGE)
except sandbox.AclError as exc:
    print("caught:", exc.code, exc.name)
    print("message:", exc.message)
sandbox.raise_on_error(False)
_ = acl.get_recent_err_msg()

# %% [markdown]
# ## 5 · Asynchronous device errors surface at the next synchronize
#
# A launch only *queues* a kernel, so it returns `ACL_SUCCESS` even if the kernel is going to
# fault. The fault happens later, on the device, and the runtime reports it at the next
# `aclrtSynchronizeStream` (or `aclrtSynchronizeDevice`) of that stream. Here a kernel reads
# past the end of its input: a bug in the kernel, `507015 ACL_ERROR_RT_AICORE_EXCEPTION`.

# %%
@sandbox.kernel(bytes=lambda x, idx, y, n: 12 * n, writes=("y",))
def gather(x: "float32*", idx: "int32*", y: "float32*", n: int):
    y[:n] = x[idx[:n]]             # an index past the end of x is a device fault


sandbox.configure("ascend910b", device_count=2)
acl.init()
acl.rt.set_device(0)
s, _ = acl.rt.create_stream()
x, _ = acl.rt.malloc(NB, HUGE)
y, _ = acl.rt.malloc(NB, HUGE)
idx, _ = acl.rt.malloc(NB, HUGE)
host, _ = acl.rt.malloc_host(NB)
acl.util.ptr_to_numpy(host, (N,), np.int32)[:] = np.arange(N) * 1000     # far past the end
acl.rt.memcpy(idx, NB, host, NB, H2D)

print("launch:", gather[8, s](x, idx, y, N), "(queued, nothing has run yet)")
ret = acl.rt.synchronize_stream(s)
print("synchronize:", ret, name(ret))
print(acl.get_recent_err_msg())
print("synchronize again:", acl.rt.synchronize_stream(s), "(an error is reported once)")

# %% [markdown]
# To practise handling errors that a correct program can still meet — hardware faults —
# `sandbox.inject_fault(kind, ...)` makes coming device tasks fail with the runtime's codes:
#
# | kind | what fails | code |
# |---|---|---|
# | `"kernel_trap"` | the next kernel traps on the AI Core | 507016 `ACL_ERROR_RT_AICORE_TRAP_EXCEPTION` |
# | `"dma_error"` | the next copy or memset on the device's DMA engines | 507013 `ACL_ERROR_RT_SYS_DMA` |
# | `"link_down"` | every peer copy between two devices, until `sandbox.clear_faults()` | 507056 `ACL_ERROR_RT_LINK_ERROR` |
#
# The failed task takes its usual time but its data effect does not happen. A blocking copy
# (`aclrtMemcpy`) waits for its own task, so it returns the DMA error itself.

# %%
results = []


def attempt(what, submit, sync=True):
    ret = submit()
    if sync:
        ret = acl.rt.synchronize_stream(s)
    results.append((what, ret))


sandbox.inject_fault("kernel_trap", device=0)
attempt("kernel after a kernel_trap", lambda: scale[8, s](x, y, N))
sandbox.inject_fault("dma_error", device=0)
attempt("async copy after a dma_error", lambda: acl.rt.memcpy_async(x, NB, host, NB, H2D, s))
sandbox.inject_fault("dma_error", device=0)
attempt("blocking copy after a dma_error", lambda: acl.rt.memcpy(x, NB, host, NB, H2D), sync=False)

acl.rt.set_device(1)
far, _ = acl.rt.malloc(NB, HUGE)
acl.rt.set_device(0)
acl.rt.device_enable_peer_access(1, 0)
sandbox.inject_fault("link_down", device=0, peer=1)
attempt("peer copy 0 -> 1, link down", lambda: acl.rt.memcpy_async(far, NB, x, NB, D2D, s))
attempt("kernel on device 0, link still down", lambda: scale[8, s](x, y, N))
sandbox.clear_faults()
attempt("peer copy 0 -> 1, link up again", lambda: acl.rt.memcpy_async(far, NB, x, NB, D2D, s))

for what, ret in results:
    print(f"{what:<38} -> {ret:>6} {name(ret)}")
print()
print(acl.get_recent_err_msg())

# %% [markdown]
# The last message above is the first failure (newest first). Each names the task, its
# stream and device: enough to find it in the Gantt chart or the trace.

# %%
for p in (x, y, idx, far):
    acl.rt.free(p)
acl.rt.free_host(host)
acl.rt.destroy_stream(s)
acl.rt.reset_device(0)
acl.rt.reset_device(1)
print("finalize:", acl.finalize())

# %% [markdown]
# ## 6 · Failure modes: what happens to the tasks after a failure
#
# `aclrtSetStreamFailureMode(stream, mode)` chooses, once per stream:
#
# * `ACL_CONTINUE_ON_FAILURE` (the default): the failed task is skipped, **later tasks run**;
#   the synchronize reports an error (if several fail before it, the latest);
# * `ACL_STOP_ON_FAILURE`: the first failure stops the stream — and every stream of its
#   context (the docs say so for A2/A3). Later tasks are discarded, new submissions are
#   refused with the same code, until the device is reset.
#
# The same program runs in both modes: three batches, each an H2D copy, a kernel and a D2H
# copy, on two streams; the kernel of batch 1 traps.

# %%
def three_batches(mode):
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    streams = [acl.rt.create_stream()[0] for _ in range(2)]
    acl.rt.set_stream_failure_mode(streams[0], mode)
    hin, _ = acl.rt.malloc_host(3 * NB)
    hout, _ = acl.rt.malloc_host(3 * NB)
    acl.util.ptr_to_numpy(hin, (3, N), np.float32)[:] = 1.0
    bufs = [(acl.rt.malloc(NB, HUGE)[0], acl.rt.malloc(NB, HUGE)[0]) for _ in range(3)]
    sandbox.inject_fault("kernel_trap", device=0, after=1)     # the second kernel traps
    for b, (dx, dy) in enumerate(bufs):
        st = streams[b % 2]
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, st)
        scale[8, st](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, st)
    rets = [acl.rt.synchronize_stream(st) for st in streams]
    out = acl.util.ptr_to_numpy(hout, (3, N), np.float32)
    print("synchronize each stream:", [f"{r} {name(r)}" for r in rets])
    print("batch results (first element, 2.0 if it ran):", [float(out[b, 0]) for b in range(3)])
    return streams, bufs, (hin, hout)


print("== ACL_CONTINUE_ON_FAILURE")
_ = three_batches(acl.ACL_CONTINUE_ON_FAILURE)
print(sandbox.queues())
print()
print("== ACL_STOP_ON_FAILURE")
streams, bufs, hosts = three_batches(acl.ACL_STOP_ON_FAILURE)
print(sandbox.queues())

# %% [markdown]
# With continue-on-failure only batch 1 is lost: batches 0 and 2 arrived. With
# stop-on-failure nothing arrived: the tasks still queued on the *other* stream when batch 1's
# kernel trapped — batch 0's copy back and all of batch 2 — were discarded (they "finished"
# with the error code without running; the queue panel counts them as failed). And the
# context now refuses new work:

# %%
ret = acl.rt.memcpy_async(bufs[0][0], NB, hosts[0], NB, H2D, streams[1])
print("a new copy:", ret, name(ret))
print(acl.get_recent_err_msg())

# %% [markdown]
# ### Recovering: reset the device
#
# The way out is to release what belongs to the stopped context and reset the device
# (`aclrtResetDevice`), then set it again: a fresh context, new streams, and the work that
# failed can be redone. Device memory and pinned host memory belong to the process, not the
# context, so the buffers survive the reset.

# %%
for st in streams:
    acl.rt.destroy_stream(st)
print("reset_device:", acl.rt.reset_device(0))
print("set_device:", acl.rt.set_device(0))
st, _ = acl.rt.create_stream()
hin, hout = hosts
for b in range(3):                  # redo the batches that failed or were discarded
    dx, dy = bufs[b]
    acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, st)
    scale[8, st](dx, dy, N)
    acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, st)
print("synchronize:", acl.rt.synchronize_stream(st))
out = acl.util.ptr_to_numpy(hout, (3, N), np.float32)
print("batch results now:", [float(out[b, 0]) for b in range(3)])

# %% [markdown]
# ## 7 · The leak report at finalize
#
# `aclFinalize` releases what the process still holds — but a long-running service never
# finalizes, so what it forgets to free piles up. The sandbox lists what is left:
# `sandbox.leak_report()` at any time, and a `LeakWarning` (plus a record in the trace) at
# `aclFinalize` if the list is not empty. We freed nothing above:

# %%
report = sandbox.leak_report()
print(report)
print("items:", len(report))

# %% [markdown]
# The report groups the leftovers and names the call that releases each kind. We release
# half of it and let `aclFinalize` report the rest; the warning is caught here and printed,
# the way it would appear under the cell:

# %%
for dx, dy in bufs:
    acl.rt.free(dx)
    acl.rt.free(dy)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("finalize:", acl.finalize())
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
print(teach.check_no_leaks())

# %% [markdown]
# ## 8 · Hazard reports: races the schedule hid
#
# The simulation is deterministic, so a racy program may print the right answer every time.
# The sandbox therefore checks the program against the runtime's **ordering rules**, not
# against the schedule it happened to run: a task may rely only on what a stream's order, an
# event wait or a synchronize guarantees. Each violation is a `HazardWarning` (printed under
# the cell, once per place) and a record in `sandbox.hazards()`. Four common ones follow; each
# shows the report, then the fix, which makes it go away.
#
# A helper runs a program with the warnings caught and prints the hazard reports in full.

# %%
def board():
    sandbox.configure("ascend910b", device_count=2)
    acl.init()
    acl.rt.set_device(0)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    hin, _ = acl.rt.malloc_host(NB)
    hout, _ = acl.rt.malloc_host(NB)
    acl.util.ptr_to_numpy(hin, (N,), np.float32)[:] = 1.0
    dx, _ = acl.rt.malloc(NB, HUGE)
    dy, _ = acl.rt.malloc(NB, HUGE)
    return s1, s2, hin, hout, dx, dy


def run(program):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = program()
    found = sandbox.hazards()
    print(f"{len(caught)} warning(s), {len(found)} hazard(s)")
    for h in found:
        print(f"[{h.kind}] {h.message}")
    return value

# %% [markdown]
# ### 8.1 · Reading a host buffer before the copy into it is known complete

# %%
def read_early():
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    scale[8, s1](dx, dy, N)
    acl.rt.memcpy_async(hout, NB, dy, NB, D2H, s1)
    value = acl.util.ptr_to_numpy(hout, (N,), np.float32)[0]       # too early
    acl.rt.synchronize_stream(s1)
    return value


print("value read:", run(read_early))

# %%
def read_after_sync():
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    scale[8, s1](dx, dy, N)
    acl.rt.memcpy_async(hout, NB, dy, NB, D2H, s1)
    acl.rt.synchronize_stream(s1)                                  # the fix
    return acl.util.ptr_to_numpy(hout, (N,), np.float32)[0]


print("value read:", run(read_after_sync))

# %% [markdown]
# ### 8.2 · Two streams on one buffer without an event
#
# The copy on Stream 1 fills `dx`; the kernel on Stream 2 reads it. Nothing orders them.

# %%
def race():
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    scale[8, s2](dx, dy, N)                                         # may run before the copy
    acl.rt.memcpy_async(hout, NB, dy, NB, D2H, s2)
    acl.rt.synchronize_device()


run(race)

# %%
def ordered():
    s1, s2, hin, hout, dx, dy = board()
    loaded, _ = acl.rt.create_event()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    acl.rt.record_event(loaded, s1)                                 # C: aclrtRecordEvent(loaded, s1);
    acl.rt.stream_wait_event(s2, loaded)                            # C: aclrtStreamWaitEvent(s2, loaded);
    scale[8, s2](dx, dy, N)
    acl.rt.memcpy_async(hout, NB, dy, NB, D2H, s2)
    acl.rt.synchronize_device()


run(ordered)

# %% [markdown]
# ### 8.3 · Freeing memory that queued work still uses
#
# `aclrtFree` does not wait for the stream. Here it even breaks the program: by the time the
# kernel runs, its output buffer is gone, and the synchronize reports a kernel fault.

# %%
def free_early():
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    scale[8, s1](dx, dy, N)
    acl.rt.free(dy)                                                 # the kernel has not run yet
    ret = acl.rt.synchronize_stream(s1)
    print("synchronize:", ret, name(ret))


run(free_early)

# %%
def free_after_sync():
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    scale[8, s1](dx, dy, N)
    ret = acl.rt.synchronize_stream(s1)                             # the fix
    acl.rt.free(dy)
    print("synchronize:", ret, name(ret))


run(free_after_sync)

# %% [markdown]
# ### 8.4 · A copy between devices without peer access

# %%
def peer_copy(enable):
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.set_device(1)
    far, _ = acl.rt.malloc(NB, HUGE)
    acl.rt.set_device(0)
    if enable:
        acl.rt.device_enable_peer_access(1, 0)                      # C: aclrtDeviceEnablePeerAccess(1, 0);
    ret = acl.rt.memcpy(far, NB, dx, NB, D2D)
    print("copy device 0 -> 1:", ret, name(ret))


run(lambda: peer_copy(enable=False))

# %%
run(lambda: peer_copy(enable=True))

# %% [markdown]
# ## 9 · The trace in Perfetto
#
# Everything above is in the trace log, and `sandbox.export_trace(path)` writes it as Chrome
# Trace Event JSON in the layout of the Ascend profiler's (msprof) timeline. To look at it:
#
# 1. open <https://ui.perfetto.dev> (or `chrome://tracing` in Chrome/Edge);
# 2. drag the file onto the page (Perfetto: *Open trace file*);
# 3. `W`/`S` zoom, `A`/`D` pan; click a slice for its arguments, and follow its flow arrow from
#    the API call on the host row to the task on the device.
#
# We export the double-buffered fix of 8.2 with one more batch, so there is something to see.

# %%
def two_batches():
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    hin, _ = acl.rt.malloc_host(2 * NB)
    hout, _ = acl.rt.malloc_host(2 * NB)
    slots = [(acl.rt.malloc(NB, HUGE)[0], acl.rt.malloc(NB, HUGE)[0]) for _ in range(2)]
    for b, (dx, dy) in enumerate(slots):
        loaded, _ = acl.rt.create_event()
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, s1)
        acl.rt.record_event(loaded, s1)
        acl.rt.stream_wait_event(s2, loaded)
        scale[8, s2](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, s2)
    acl.rt.synchronize_stream(s2)


two_batches()
path = sandbox.export_trace(os.path.join(tempfile.mkdtemp(), "09_two_batches.json"))
print("wrote", os.path.basename(path), f"({os.path.getsize(path)} bytes)")
sandbox.gantt()

# %% [markdown]
# The file is `{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`. Each event
# has a phase `ph`: `M` metadata names the processes and threads (rows), `X` is a slice (an API
# call on a host row, a task on a stream row and on an engine row), `s`/`f` start and finish a
# flow arrow, `C` is a counter (memory in use). Times `ts`/`dur` are microseconds of virtual
# time.

# %%
with open(path) as f:
    doc = json.load(f)
events = doc["traceEvents"]
print("otherData:", doc["otherData"])
phases = {}
for e in events:
    phases[e["ph"]] = phases.get(e["ph"], 0) + 1
print("events by phase:", dict(sorted(phases.items())))

names = {}
for e in events:
    if e["ph"] == "M" and e["name"] == "process_name":
        names[e["pid"]] = e["args"]["name"]
print("\nprocesses and their rows:")
for e in events:
    if e["ph"] == "M" and e["name"] == "thread_name":
        print(f"  pid {e['pid']:>3} {names[e['pid']]!r:<24} tid {e['tid']:>5} {e['args']['name']!r}")

kernel = next(e for e in events if e["ph"] == "X" and e.get("cat") == "kernel" and "Task Type" in e["args"])
print("\na kernel slice:", json.dumps(kernel))
flow = kernel["args"]["connection_id"]
launch = next(e for e in events if e["ph"] == "X" and e["args"].get("seq") == flow)
print("the call that launched it:", json.dumps(launch))
for e in events:
    if e["ph"] in "sf" and e["id"] == kernel["args"]["Task Id"]:
        print(f"flow {e['ph']}:", json.dumps(e))

# %% [markdown]
# The kernel slice sits on the `Stream 2` row of the device process; its flow starts (`s`) on
# the host thread at the `aclrtLaunchKernel` call and finishes (`f`, binding to the enclosing
# slice, `"bp": "e"`) on the kernel. Perfetto draws that as an arrow from the call to the task.
#
# ## Exercises
#
# ### Exercise 1 · make the racy pipeline correct
#
# The program below loads two batches on a copy stream and computes them on a compute stream,
# but nothing orders the two streams, and it reads the results before waiting. The read gets
# zeros; and even with the read moved after the synchronize, the kernels could run before
# their inputs are loaded: the hazard checks flag both.

# %%
def racy():
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    copy_s, _ = acl.rt.create_stream()
    compute_s, _ = acl.rt.create_stream()
    hin, _ = acl.rt.malloc_host(2 * NB)
    hout, _ = acl.rt.malloc_host(2 * NB)
    acl.util.ptr_to_numpy(hin, (2, N), np.float32)[:] = [[1.0], [3.0]]
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    out = acl.util.ptr_to_numpy(hout, (2, N), np.float32).copy()
    acl.rt.synchronize_device()
    return out


EXPECTED = np.repeat([[2.0], [6.0]], N, axis=1).astype(np.float32)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", sandbox.HazardWarning)
    out = racy()
teach.grade(teach.check_no_hazards(), teach.check_equal(out, EXPECTED, what="two batches"))

# %% [markdown]
# Your turn: replace the body of `attempt` with a version that has no hazards, gives the right
# result and synchronizes once. (Hint: an event recorded on the copy stream after each load,
# waited for by the compute stream; one synchronize before the read.)

# %%
def attempt():
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    copy_s, _ = acl.rt.create_stream()
    compute_s, _ = acl.rt.create_stream()
    hin, _ = acl.rt.malloc_host(2 * NB)
    hout, _ = acl.rt.malloc_host(2 * NB)
    acl.util.ptr_to_numpy(hin, (2, N), np.float32)[:] = [[1.0], [3.0]]
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        loaded, _ = acl.rt.create_event()
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        acl.rt.record_event(loaded, copy_s)
        acl.rt.stream_wait_event(compute_s, loaded)
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    acl.rt.synchronize_stream(compute_s)
    return acl.util.ptr_to_numpy(hout, (2, N), np.float32).copy()


out = attempt()
teach.grade(teach.check_no_hazards(), teach.check_equal(out, EXPECTED, what="two batches"),
            teach.check_syncs(exactly=1))

# %% [markdown]
# ### Exercise 2 · survive a device fault
#
# `faulty_board()` prepares four batches on a stream in `ACL_STOP_ON_FAILURE` mode and arms a
# DMA error on the third input copy. Write `attempt(board)` so that it
#
# * runs the four batches and checks the code of its synchronize;
# * on an error, prints `acl.get_recent_err_msg()`, releases the stream, resets the device,
#   sets it again and redoes every batch whose result did not arrive;
# * returns the four results, and releases everything before `acl.finalize()`.
#
# The grader checks the results, that the fault really happened (a runtime error is in the
# trace), and the leak report at `aclFinalize`.

# %%
BATCHES = 4


def faulty_board():
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    st, _ = acl.rt.create_stream()
    acl.rt.set_stream_failure_mode(st, acl.ACL_STOP_ON_FAILURE)
    hin, _ = acl.rt.malloc_host(BATCHES * NB)
    hout, _ = acl.rt.malloc_host(BATCHES * NB)
    acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = np.arange(BATCHES, dtype=np.float32)[:, None]
    dx, _ = acl.rt.malloc(NB, HUGE)
    dy, _ = acl.rt.malloc(NB, HUGE)
    # the first two host-to-device copies succeed, the third fails (later ones are fine)
    sandbox.inject_fault("dma_error", device=0, after=4)    # 2 copies in + 2 copies out come first
    return {"stream": st, "hin": hin, "hout": hout, "dx": dx, "dy": dy}


def batch(b, bd, st):
    acl.rt.memcpy_async(bd["dx"], NB, bd["hin"] + b * NB, NB, H2D, st)
    scale[8, st](bd["dx"], bd["dy"], N)
    acl.rt.memcpy_async(bd["hout"] + b * NB, NB, bd["dy"], NB, D2H, st)


def attempt(bd):
    st = bd["stream"]
    for b in range(BATCHES):
        batch(b, bd, st)
    ret = acl.rt.synchronize_stream(st)
    if ret != acl.ACL_SUCCESS:
        print("synchronize:", ret, name(ret))
        print(acl.get_recent_err_msg())
        acl.rt.destroy_stream(st)
        acl.rt.reset_device(0)
        acl.rt.set_device(0)
        st, _ = acl.rt.create_stream()
        for b in range(BATCHES):                 # which ones arrived is unknown: redo them all
            batch(b, bd, st)
        ret = acl.rt.synchronize_stream(st)
        print("after recovery:", ret, name(ret))
    out = acl.util.ptr_to_numpy(bd["hout"], (BATCHES, N), np.float32).copy()
    acl.rt.free(bd["dx"])
    acl.rt.free(bd["dy"])
    acl.rt.free_host(bd["hin"])
    acl.rt.free_host(bd["hout"])
    acl.rt.destroy_stream(st)
    acl.rt.reset_device(0)
    acl.finalize()
    return out


out = attempt(faulty_board())
want = 2 * np.repeat(np.arange(BATCHES, dtype=np.float32)[:, None], N, axis=1)
teach.grade(teach.check_equal(out, want, what="four batches"),
            teach.check_error_reported(code=acl.ACL_ERROR_RT_SYS_DMA),
            teach.check_no_leaks())

# %% [markdown]
# And this is what the grader says about a program that ignores the code of its synchronize:
# the DMA error was reported, but batches 2 and 3 never arrived (stop-on-failure discarded
# batch 3 as well) and nothing was released.

# %%
def ignores_errors(bd):
    st = bd["stream"]
    for b in range(BATCHES):
        batch(b, bd, st)
    acl.rt.synchronize_stream(st)
    return acl.util.ptr_to_numpy(bd["hout"], (BATCHES, N), np.float32).copy()


out = ignores_errors(faulty_board())
teach.grade(teach.check_equal(out, want, what="four batches"),
            teach.check_error_reported(code=acl.ACL_ERROR_RT_SYS_DMA),
            teach.check_no_leaks())
