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
# The way out is to reset the device (`aclrtResetDevice`) and set it again. The documentation
# says what a reset releases: the device's default context, its default stream and every
# stream created in that context. It also gives the order to release things in before a reset:
# memory first (`aclrtFree`, `aclrtFreeHost`), then events and streams, and only then
# `aclrtResetDevice`. A pointer from before a full reset must not be used after it (on
# hardware that is undefined, whatever this simulation happens to keep). So recovery frees
# what it holds, resets, sets the device again, and then allocates new buffers and uploads the
# inputs again before redoing the work that failed. The inputs are still on the host: we keep
# a copy in numpy before freeing the pinned buffer.

# %%
hin, hout = hosts
inputs = acl.util.ptr_to_numpy(hin, (3, N), np.float32).copy()      # what the batches need again
for dx, dy in bufs:
    acl.rt.free(dx)
    acl.rt.free(dy)
acl.rt.free_host(hin)
acl.rt.free_host(hout)
for st in streams:
    acl.rt.destroy_stream(st)
print("reset_device:", acl.rt.reset_device(0))
print("set_device:", acl.rt.set_device(0))
st, _ = acl.rt.create_stream()
hin, _ = acl.rt.malloc_host(3 * NB)                                  # everything allocated anew
hout, _ = acl.rt.malloc_host(3 * NB)
hosts = (hin, hout)
acl.util.ptr_to_numpy(hin, (3, N), np.float32)[:] = inputs
bufs = [(acl.rt.malloc(NB, HUGE)[0], acl.rt.malloc(NB, HUGE)[0]) for _ in range(3)]
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
# `aclFinalize` if the list is not empty. We have freed nothing since the recovery:

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
# We export the fix of 8.2 (an event orders each load before its kernel), run on two batches
# with their own buffers, so there is something to see. Both kernels wait for their loads,
# so the Gantt shows the steps one after another: ordering, not overlap.

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
# Each exercise is a function for you to complete. `sandbox.teach.check("09.1", solution)` runs
# **your** function on a fresh simulated 910B of its own, with inputs it makes up each time,
# and judges the whole run from the trace: the answer and where it came from, the hazard
# reports (any hazard is a `✘`), the errors, and what the exercise states. The grader opens
# the board for you: `acl.init()` has run and device 0 is set. Do not call
# `sandbox.configure` or `board()` in a solution.
#
# ### Exercise 09.1 · make the racy pipeline correct
#
# *Practises:* reading a hazard report and fixing it with the ordering the runtime guarantees:
# an event between two streams, and one synchronize before the host reads.
#
# `racy(x)` below loads two batches (`x[0]`, `x[1]`, float32, `N` each) on a copy stream and
# scales them on a compute stream, but nothing orders the two streams, and it reads the results
# before waiting. The grader's verdict names the hazards and the wrong values. Write
# `solution(x)` that returns `2 * x` (shape `(2, N)`) with the same shape of program. Graded:
#
# * no hazard, and the answer right, computed by kernels and copied back from the device;
# * the loads on one stream and the two `scale` kernels on another;
# * the compute stream waits for at least one event recorded on the copy stream (the device
#   orders the work, not a host wait);
# * at most **one** synchronize (a stream query that saw completion may replace it).

# %%
def racy(x):
    copy_s, _ = acl.rt.create_stream()
    compute_s, _ = acl.rt.create_stream()
    hin, _ = acl.rt.malloc_host(2 * NB)
    hout, _ = acl.rt.malloc_host(2 * NB)
    acl.util.ptr_to_numpy(hin, (2, N), np.float32)[:] = x
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    out = acl.util.ptr_to_numpy(hout, (2, N), np.float32).copy()
    acl.rt.synchronize_device()
    return out


print(sandbox.teach.check("09.1", racy))

# %% nbgrader={"grade": false, "grade_id": "ex09_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x):
    """Return 2 * x (float32, shape (2, N)): loads on copy_s, scale on compute_s, ordered by events."""
    # TODO: start from racy(x). After each load, record an event on copy_s and make compute_s
    # wait for it before the batch's kernel; synchronise once, then read hout.
    # Hint: acl.rt.create_event(), acl.rt.record_event(ev, copy_s), acl.rt.stream_wait_event(compute_s, ev).
    ### BEGIN SOLUTION
    copy_s, _ = acl.rt.create_stream()
    compute_s, _ = acl.rt.create_stream()
    hin, _ = acl.rt.malloc_host(2 * NB)
    hout, _ = acl.rt.malloc_host(2 * NB)
    acl.util.ptr_to_numpy(hin, (2, N), np.float32)[:] = x
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
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex09_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("09.1", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("09.1", solution)

# %% [markdown]
# ### Exercise 09.2 · survive a device fault
#
# *Practises:* checking the code a synchronize returns, and recovering from a stopped context:
# release, reset, set the device again, allocate, upload and redo.
#
# The grader hands you `stream`, already in `ACL_STOP_ON_FAILURE` mode, and arms a kernel trap
# (`sandbox.inject_fault("kernel_trap", ...)`) on **one** of the four batches; which one
# depends on the inputs. Write `solution(x, stream)` for the four batches `x[b]` (float32, `N`
# each) that
#
# * runs each batch as `batch()` does (copy in, one `scale`, copy out), synchronises and
#   **checks the code**;
# * on an error: prints `acl.get_recent_err_msg()`; frees every buffer (device and pinned host)
#   and destroys the stream **before** `acl.rt.reset_device(0)`; sets the device again, creates
#   a stream, allocates new buffers, uploads the inputs again and redoes every batch whose
#   result did not arrive (or simply all of them);
# * returns the four results, shape `(4, N)`, then releases everything and calls
#   `acl.finalize()`.
#
# Graded (this exercise allows failed calls, and judges them itself):
#
# * the trap's code, 507016 `ACL_ERROR_RT_AICORE_TRAP_EXCEPTION`, was returned to the program by
#   a synchronize, and **no other call failed** (work that the stopped context refused while
#   you were still queueing, before that synchronize, is part of the fault);
# * an `aclrtResetDevice` after it, the device set again and the batches redone;
# * every buffer, stream and event from before was released **before** the reset;
# * the four results right (`2 * x`), computed by kernels and copied back from the device;
# * the leak report at `aclFinalize` empty.

# %%
BATCHES = 4


def batch(b, hin, hout, dx, dy, st):
    """Batch b: copy x[b] in from hin, scale it into dy, copy it out to hout."""
    acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, st)
    scale[8, st](dx, dy, N)
    acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, st)


def ignores_errors(x, stream):
    """Runs the batches and never looks at the code of its synchronize."""
    hin, _ = acl.rt.malloc_host(BATCHES * NB)
    hout, _ = acl.rt.malloc_host(BATCHES * NB)
    acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
    dx, _ = acl.rt.malloc(NB, HUGE)
    dy, _ = acl.rt.malloc(NB, HUGE)
    for b in range(BATCHES):
        batch(b, hin, hout, dx, dy, stream)
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(hout, (BATCHES, N), np.float32).copy()


print(sandbox.teach.check("09.2", ignores_errors))

# %% [markdown]
# The fault was reported, but nobody listened: the trapped batch and every batch after it
# (discarded by stop-on-failure) never arrived, there was no reset, and nothing was released.

# %% nbgrader={"grade": false, "grade_id": "ex09_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x, stream):
    """Return 2 * x (float32, shape (BATCHES, N)), recovering from the device fault on the way."""
    # TODO: allocate, upload, run the batches on stream, synchronise and check the code. On an
    # error: free everything, destroy the stream, reset device 0, set it again, create a stream,
    # allocate and upload again, redo the batches, synchronise. Keep the results, release
    # everything, acl.finalize(), return.
    # Hint: a helper that allocates and uploads, used before and after the reset, keeps it short.
    ### BEGIN SOLUTION
    def start(st):
        hin, _ = acl.rt.malloc_host(BATCHES * NB)
        hout, _ = acl.rt.malloc_host(BATCHES * NB)
        acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        for b in range(BATCHES):
            batch(b, hin, hout, dx, dy, st)
        return hin, hout, dx, dy, acl.rt.synchronize_stream(st)

    def release(hin, hout, dx, dy, st):
        acl.rt.free(dx)
        acl.rt.free(dy)
        acl.rt.free_host(hin)
        acl.rt.free_host(hout)
        acl.rt.destroy_stream(st)

    st = stream
    hin, hout, dx, dy, ret = start(st)
    if ret != acl.ACL_SUCCESS:
        print("synchronize:", ret, name(ret))
        print(acl.get_recent_err_msg())
        release(hin, hout, dx, dy, st)
        acl.rt.reset_device(0)
        acl.rt.set_device(0)
        st, _ = acl.rt.create_stream()
        hin, hout, dx, dy, ret = start(st)         # which batches arrived matters not: redo all
        print("after recovery:", ret, name(ret))
    out = acl.util.ptr_to_numpy(hout, (BATCHES, N), np.float32).copy()
    release(hin, hout, dx, dy, st)
    acl.rt.reset_device(0)
    acl.finalize()
    return out
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex09_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("09.2", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("09.2", solution)

# %% [markdown]
# ## Summary
#
# A misused call says so at once, in its return code and in `aclGetRecentErrMsg`; a device
# fault says so at the next synchronize, once. Under stop-on-failure a fault stops the context
# until the device is reset, and recovery releases everything first, then resets, sets the
# device again and allocates and uploads anew. The hazard reports find races that a lucky
# schedule hid, the leak report finds what was never released, and the exported trace shows
# where the time went. Next, notebook 10 puts it all together in a capstone.
