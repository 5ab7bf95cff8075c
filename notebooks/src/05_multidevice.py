# %% [markdown]
# # 05 · Several devices: choosing, resetting, affinity and peer-to-peer copies
#
# A server holds several NPUs; the runtime shows each one as a **device** numbered 0, 1, 2, …
# Work always goes to a device through a context, and every stream and event belongs to
# one device. This notebook follows the multi-device article of the runtime documentation:
# how to find and pick devices, how to give them back, which calls may cross from one
# device to another, and how to copy straight between two devices.
#
# | You will see | C call | Python call |
# |---|---|---|
# | how many devices | `aclrtGetDeviceCount(&count)` | `acl.rt.get_device_count()` |
# | a device attribute | `aclrtGetDeviceInfo(dev, ACL_DEV_ATTR_VECTOR_CORE_NUM, &value)` | `acl.rt.get_device_info(dev, acl.ACL_DEV_ATTR_VECTOR_CORE_NUM)` |
# | choose the device of this thread | `aclrtSetDevice(dev)` | `acl.rt.set_device(dev)` |
# | give it back | `aclrtResetDevice(dev)` / `aclrtResetDeviceForce(dev)` | `acl.rt.reset_device(dev)` / `acl.rt.reset_device_force(dev)` |
# | peer access | `aclrtDeviceCanAccessPeer(&can, a, b)`, `aclrtDeviceEnablePeerAccess(peer, 0)` | `acl.rt.device_can_access_peer(a, b)`, `acl.rt.device_enable_peer_access(peer, 0)` |
# | link type | `aclrtGetDevicesTopo(a, b, &bits)` | `acl.rt.get_devices_topo(a, b)` |

# %%
import threading

import numpy as np

import sandbox
from sandbox import acl

MiB = 1 << 20
sandbox.configure("ascend910b")             # an 8-device Atlas A2 server
print(acl.init())

# %% [markdown]
# ## 1 · How many devices, and what are they?
#
# Devices are numbered from 0. `aclrtGetDeviceInfo` answers one attribute at a time
# (`aclrtDevAttr`); it needs no current device, so you can look before choosing.

# %%
count, ret = acl.rt.get_device_count()
print("devices:", count, "ret", ret, "| SoC:", acl.get_soc_name())
ATTRS = ["ACL_DEV_ATTR_AICORE_CORE_NUM", "ACL_DEV_ATTR_CUBE_CORE_NUM", "ACL_DEV_ATTR_VECTOR_CORE_NUM",
         "ACL_DEV_ATTR_AICPU_CORE_NUM", "ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE", "ACL_DEV_ATTR_L2_CACHE_SIZE",
         "ACL_DEV_ATTR_NPU_ARCH", "ACL_DEV_ATTR_PHY_CHIP_ID"]
for attr in ATTRS:
    values = [acl.rt.get_device_info(d, getattr(acl, attr))[0] for d in range(count)]
    same = all(v == values[0] for v in values)
    print(f"{attr:<36} {values[0] if same else values}")
print("device 8 does not exist:", acl.rt.get_device_info(8, acl.ACL_DEV_ATTR_AICORE_CORE_NUM))

# %% [markdown]
# Eight identical devices; only the physical chip id differs. Asking about a device that
# is not there answers 107001 `ACL_ERROR_RT_INVALID_DEVICEID`.
#
# ## 2 · `SetDevice` is per thread
#
# `aclrtSetDevice(d)` makes device `d` the current device **of the calling thread only**: it
# opens the device for the process if needed, creates (or re-uses) the process's default
# context on it, and makes that context current. Memory, streams and launches that follow
# go to that device. Another thread is not affected.
#
# The runtime's multi-thread device example does exactly this: its main thread sets device
# 0, then starts a thread that sets the device again for itself before doing any work. Try
# it without the second `SetDevice`:

# %%
acl.rt.set_device(0)
seen = {}


def worker():
    seen["before set_device"] = acl.rt.get_device()
    acl.rt.set_device(3)
    seen["after set_device(3)"] = acl.rt.get_device()


t = threading.Thread(target=worker)
t.start()
t.join()
print("worker:", seen)
print("main thread still on:", acl.rt.get_device())

# %% [markdown]
# The new thread starts with **no** current device (107002 `ACL_ERROR_RT_CONTEXT_NULL`).
#
# Opening devices costs time, and the first open of a process costs the most (it sets up the
# whole runtime: seconds, in the FAQ's words). Switching back to a device already open is
# cheap:

# %%
sandbox.configure("ascend910b")
acl.init()
for d in (0, 1, 0, 1):
    t0 = sandbox.now()
    acl.rt.set_device(d)
    print(f"set_device({d}) took {(sandbox.now() - t0) / 1e6:10.3f} ms")

# %% [markdown]
# `SetDevice` uses the device's **default** context. The runtime's context example takes
# the other road: it creates an explicit context on device 0 (`aclrtCreateContext`, which
# also makes it current), checks with `aclrtGetCurrentContext` that it is the current one,
# and destroys it when done. Only explicit contexts can be destroyed; a default context goes
# with the device reset.

# %%
acl.rt.set_device(0)
default_ctx, _ = acl.rt.get_context()
ctx, ret = acl.rt.create_context(0)
print("create_context(0):", ret, "| current is the new one:", acl.rt.get_context()[0] == ctx)
print("destroy the default context:", acl.rt.destroy_context(default_ctx), "(ACL_ERROR_INVALID_PARAM)")
print("destroy the explicit one:", acl.rt.destroy_context(ctx), "| current now:", acl.rt.get_context())

# %% [markdown]
# ## 3 · Giving a device back: `ResetDevice` counts, `ResetDeviceForce` does not
#
# Every `aclrtSetDevice` adds one reference; `aclrtResetDevice` removes one and releases the
# default context (its default stream, and the streams and events made in it) only when the
# count reaches zero. So calls must come in pairs. `aclrtResetDeviceForce` releases at once,
# whatever the count. Both first **wait for the work still queued** on the device.
#
# What a reset releases is the default context and its streams; the documentation asks you to
# release the rest yourself **before** the reset, in this order: free device and host memory
# (`aclrtFree`, `aclrtFreeHost`), destroy events and explicit streams, destroy explicit
# contexts, then reset. A pointer from before a full reset must not be used after it: on
# hardware that is undefined behaviour, whatever a simulation happens to keep. After the reset,
# allocate again.

# %%
@sandbox.kernel(ns=5_000_000)          # 5 ms of device work
def work(x: "uint8*"):
    pass


@sandbox.kernel(ns=5_000_000)          # 5 ms of device work that touches no buffer
def busy():
    pass


sandbox.configure("ascend910b")
acl.init()
acl.rt.set_device(0)
acl.rt.set_device(0)                    # two references
s, _ = acl.rt.create_stream()
print("reset 1:", acl.rt.reset_device(0), "| stream still usable:", acl.rt.stream_query(s))
print("reset 2:", acl.rt.reset_device(0), "| current device now:", acl.rt.get_device())
print("reset 3:", acl.rt.reset_device(0), "= ACL_ERROR_RT_CONTEXT_RELEASE_ERROR:",
      acl.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR)

# %%
for _ in range(3):
    acl.rt.set_device(0)                # three references
s, _ = acl.rt.create_stream()
buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
work[8, s](buf)
acl.rt.synchronize_stream(s)            # buf's last user has finished...
print("free before the reset:", acl.rt.free(buf))   # ...so release it first, as documented
busy[8, s]()                            # more work still queued when we reset
t0 = sandbox.now()
ret = acl.rt.reset_device_force(0)
print(f"reset_device_force: {ret} after {(sandbox.now() - t0) / 1e6:.3f} ms "
      "(waiting for the 5 ms kernel, then 5 ms of releasing)")
acl.rt.set_device(0)
print("the old stream is gone:", acl.rt.synchronize_stream(s), "=", "ACL_ERROR_INVALID_PARAM")
buf, ret = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
print("after the reset, allocate again:", ret)

# %% [markdown]
# ## 4 · Affinity: which calls may cross devices
#
# A stream and an event belong to the device that was current when they were made. The
# article lists what happens when the current device and the object's device differ:
#
# | call | rule | result |
# |---|---|---|
# | launch a kernel on a stream of another device | fails | 107003 `ACL_ERROR_RT_STREAM_CONTEXT` |
# | `aclrtMemcpyAsync` on a stream of another device | fails | same |
# | `aclrtRecordEvent` with event and stream on different devices | fails | same |
# | `aclrtStreamWaitEvent` with event and stream on different devices | fails | same |
# | `aclrtSynchronizeEvent` on another device's event | succeeds | 0 |
# | `aclrtQueryEventStatus` on another device's event | succeeds | 0 |
#
# Set up one stream, one event and one buffer on each of devices 0 and 1, leaving device 1
# current, then try each call:

# %%
sandbox.configure("ascend910b")
acl.init()
acl.rt.set_device(0)
s0, _ = acl.rt.create_stream()
e0, _ = acl.rt.create_event()
buf0, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
work[8, s0](buf0)
acl.rt.record_event(e0, s0)            # e0 will complete when device 0's kernel ends
acl.rt.set_device(1)
s1, _ = acl.rt.create_stream()
e1, _ = acl.rt.create_event()
buf1, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
host, _ = acl.rt.malloc_host(4096)

NAMES = {0: "ACL_SUCCESS", acl.ACL_ERROR_RT_STREAM_CONTEXT: "ACL_ERROR_RT_STREAM_CONTEXT"}


def show(c_call, ret):
    ret = ret[-1] if isinstance(ret, tuple) else ret
    print(f"{c_call:<44} -> {ret:>6} {NAMES.get(ret, '')}")


show("myKernel<<<8, nullptr, s1>>>", work[8, s1](buf1))
show("myKernel<<<8, nullptr, s0>>>  (s0 on dev 0)", work[8, s0](buf0))
show("aclrtMemcpyAsync(buf0, ..., s0)", acl.rt.memcpy_async(buf0, 4096, host, 4096, acl.ACL_MEMCPY_HOST_TO_DEVICE, s0))
show("aclrtRecordEvent(e0, s1)", acl.rt.record_event(e0, s1))
show("aclrtStreamWaitEvent(s1, e0)", acl.rt.stream_wait_event(s1, e0))
show("aclrtSynchronizeEvent(e0)", acl.rt.synchronize_event(e0))
show("aclrtQueryEventStatus(e0)", acl.rt.query_event_status(e0))
print("e0 status:", "complete" if acl.rt.query_event_status(e0)[0] == acl.ACL_EVENT_RECORDED_STATUS_COMPLETE else "not yet")

# %% [markdown]
# Each failure leaves a message that names both devices; `acl.get_recent_err_msg()` returns
# the messages since the last read, newest first:

# %%
work[8, s0](buf0)
print(acl.get_recent_err_msg())

# %% [markdown]
# So a stream on device 1 cannot wait on device 0's event, but the **host** can: to make
# device 1 start after device 0, synchronise on device 0's event from the host (or from a
# thread), then queue device 1's work. The summary lists each error with its call:

# %%
sandbox.summary()

# %% [markdown]
# ## 5 · Peer-to-peer copies
#
# Devices in one server can copy to each other directly, without passing through the
# host, over the links between them. On an Atlas A2 server every pair of 910B chips has
# its own **HCCS** link (a full mesh, 56 GB/s per direction). `aclrtGetDevicesTopo`
# reports the link type as bit flags:

# %%
sandbox.configure("ascend910b")
acl.init()
bits, ret = acl.rt.get_devices_topo(0, 1)
print("topology bits 0-1:", bits, "HCCS" if bits & acl.ACL_RT_DEVS_TOPOLOGY_HCCS else "", "ret", ret)
print("can 0 access 1?", acl.rt.device_can_access_peer(0, 1))

# %% [markdown]
# Peer access is **one-directional**: `aclrtDeviceEnablePeerAccess(peer, 0)` opens the
# direction *current device → peer* only; the other direction needs its own call with the
# other device current. Buffers meant for peer copies use the `_P2P` policies.
#
# Here is the article's full sample (also the flow of the runtime's `2_device_P2P`
# example), with a payload so you can see the bytes arrive:
#
# ```c
# aclrtDeviceCanAccessPeer(&canAccessPeer, 0, 1);
# aclrtSetDevice(0);  aclrtDeviceEnablePeerAccess(1, 0);
# aclrtMalloc(&dev0Mem, 10, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
# aclrtSetDevice(1);  aclrtDeviceEnablePeerAccess(0, 0);
# aclrtMalloc(&dev1Mem, 10, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
# aclrtMemcpy(dev1Mem, 10, dev0Mem, 10, ACL_MEMCPY_DEVICE_TO_DEVICE);
# aclrtDeviceDisablePeerAccess(0);  aclrtFree(dev1Mem);  aclrtResetDevice(1);
# aclrtSetDevice(0);  aclrtDeviceDisablePeerAccess(1);  aclrtFree(dev0Mem);  aclrtResetDeviceForce(0);
# ```

# %%
can_access_peer, ret = acl.rt.device_can_access_peer(0, 1)
if can_access_peer == 1:
    acl.rt.set_device(0)
    print("enable 0->1:", acl.rt.device_enable_peer_access(1, 0))
    dev0_mem, _ = acl.rt.malloc(10, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
    payload = np.arange(40, 50, dtype=np.uint8)
    acl.rt.memcpy(dev0_mem, 10, acl.util.numpy_to_ptr(payload), 10, acl.ACL_MEMCPY_HOST_TO_DEVICE)

    acl.rt.set_device(1)
    print("enable 1->0:", acl.rt.device_enable_peer_access(0, 0))
    dev1_mem, _ = acl.rt.malloc(10, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
    print("D2D copy 0->1:", acl.rt.memcpy(dev1_mem, 10, dev0_mem, 10, acl.ACL_MEMCPY_DEVICE_TO_DEVICE))
    arrived = np.zeros(10, dtype=np.uint8)
    acl.rt.memcpy(acl.util.numpy_to_ptr(arrived), 10, dev1_mem, 10, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    print("on device 1:", arrived.tolist())

    print("disable 1->0:", acl.rt.device_disable_peer_access(0), "free:", acl.rt.free(dev1_mem),
          "reset 1:", acl.rt.reset_device(1))
    acl.rt.set_device(0)
    print("disable 0->1:", acl.rt.device_disable_peer_access(1), "free:", acl.rt.free(dev0_mem),
          "force reset 0:", acl.rt.reset_device_force(0))
    print("P2P copy success")
print("finalize:", acl.finalize())

# %% [markdown]
# What happens without peer access, or with only the opposite direction enabled? The copy
# fails with 107000 and the message says which call is missing. The sandbox also raises a
# `HazardWarning` (under the cell) before the call fails, naming the missing direction and the
# fix; notebook 09 explains these warnings.

# %%
sandbox.configure("ascend910b")
acl.init()
acl.rt.set_device(1)
dst, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
acl.rt.device_enable_peer_access(0, 0)             # opens 1 -> 0 only
acl.rt.set_device(0)
src, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
print(acl.rt.memcpy(dst, 4096, src, 4096, acl.ACL_MEMCPY_DEVICE_TO_DEVICE))
print(acl.get_recent_err_msg())

# %% [markdown]
# ### Links are shared
#
# A link has a fixed bandwidth. Two copies at the same time **in the same direction on the
# same link** share it and each takes about twice as long; the opposite direction is a link
# of its own, and so is every other pair of devices. Time a 64 MiB copy alone, two on
# 0→1 together, and 0→1 beside 0→2:

# %%
N = 64 * MiB


def peer_copies(pairs):
    """Start one async copy per (src, dst) pair at once; return the time until all are done."""
    sandbox.configure("ascend910b")
    acl.init()
    jobs = []
    for a, b in pairs:
        acl.rt.set_device(b)
        dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
        acl.rt.set_device(a)
        acl.rt.device_enable_peer_access(b, 0)
        src, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
        stream, _ = acl.rt.create_stream()
        jobs.append((a, dst, src, stream))
    t0 = sandbox.now()
    for a, dst, src, stream in jobs:
        acl.rt.set_device(a)
        acl.rt.memcpy_async(dst, N, src, N, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, stream)
    for a, dst, src, stream in jobs:
        acl.rt.set_device(a)
        acl.rt.synchronize_stream(stream)
    return (sandbox.now() - t0) / 1e6


for pairs in ([(0, 1)], [(0, 1), (0, 1)], [(0, 1), (1, 0)], [(0, 1), (0, 2)]):
    print(f"{str(pairs):<20} all done after {peer_copies(pairs):6.3f} ms")

# %% [markdown]
# One copy: 64 MiB / 56 GB/s ≈ 1.2 ms. Two on the same link: ≈ 2.4 ms. Opposite directions
# or different links: ≈ 1.2 ms, as if alone. The physical view of the Gantt chart has one row
# per link; here are the two copies sharing the 0→1 link:

# %%
peer_copies([(0, 1), (0, 1)])
sandbox.gantt(view="physical")

# %% [markdown]
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("05.1", solution)`
# runs **your** function on a fresh 8-device 910B server of its own, with inputs it makes up
# each time, and judges the whole run from the trace and from what the device memory holds at
# the end. Each criterion prints `✔` or `✘` with a hint. Your own machine above is left
# untouched. The cells below hold stubs, so their verdict is `✘` until you write the code.
#
# Start each solution with `acl.init()`, as the cells above do, but leave `sandbox.configure`
# to the grader: it builds the machine.

# %%
import sandbox.teach                                                  # the grader

D2D, H2D = acl.ACL_MEMCPY_DEVICE_TO_DEVICE, acl.ACL_MEMCPY_HOST_TO_DEVICE      # short names for the copies below
P2P = acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P

# %% [markdown]
# ### Exercise 05.1 · one device after another
#
# *Practises:* stream and event affinity: which calls may cross devices, and ordering two
# devices from the host.
#
# Run `work` (the 5 ms kernel of section 3) once on device 0 and then once on device 1, so
# that device 1's kernel starts only after device 0's kernel has finished. The grader wants:
#
# * `work` launched exactly once on device 0 and once on device 1 (each on a 4 KiB buffer of
#   its own device), and no other kernel;
# * no failing call: section 4 shows which event calls may cross devices (a stream of device
#   1 waiting for device 0's event fails with 107003 `ACL_ERROR_RT_STREAM_CONTEXT`);
# * device 1's kernel starting after device 0's kernel ended;
# * the host *knowing* it: a synchronize (or a query) that returned after device 0's kernel
#   ended and before the launch on device 1. Waiting a fixed time is luck, not a dependency.

# %% nbgrader={"grade": false, "grade_id": "ex05_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution():
    """work on device 0, then work on device 1, ordered by the host."""
    acl.init()
    # TODO: a stream, an event and a 4 KiB buffer on device 0; launch work there and record the
    # event; then switch to device 1 and launch work there only once device 0's kernel is done.
    # Hint: aclrtSynchronizeEvent works on another device's event; aclrtStreamWaitEvent does not.
    ### BEGIN SOLUTION
    acl.rt.set_device(0)
    s0, _ = acl.rt.create_stream()
    e0, _ = acl.rt.create_event()
    b0, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, s0](b0)
    acl.rt.record_event(e0, s0)
    acl.rt.set_device(1)
    s1, _ = acl.rt.create_stream()
    b1, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.synchronize_event(e0)                 # the host waits: allowed across devices
    work[8, s1](b1)
    acl.rt.synchronize_stream(s1)
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex05_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("05.1", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("05.1", solution)

# %% [markdown]
# ### Exercise 05.2 · broadcast
#
# *Practises:* peer access and device-to-device copies: one source, three links at once.
#
# Upload `data` (64 MiB of uint8, `N` bytes) to device 0, then give devices 1, 2 and 3 a copy
# of it **from device 0**; return the four device addresses as a dict
# `{0: ptr, 1: ptr, 2: ptr, 3: ptr}`. The grader wants:
#
# * each address on its device, in a live allocation with `N` bytes from it;
# * each of the four buffers holding `data` at the end, the ones on devices 1, 2 and 3 written
#   by device-to-device copies from device 0;
# * peer access enabled for 0 → 1, 0 → 2 and 0 → 3;
# * exactly 64 MiB copied host to device (once, to device 0) and 3 × 64 MiB between devices;
# * the three copies done in about the time of **one**: at most **1.5 ms** from the first
#   peer copy's start to the last one's end.

# %% nbgrader={"grade": false, "grade_id": "ex05_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(data):
    """Put data on device 0 and broadcast it to devices 1, 2, 3; return {device: address}."""
    acl.init()
    targets = (1, 2, 3)
    # TODO: a P2P buffer on each target; on device 0 a P2P buffer with data in it, peer access to
    # each target and one stream per copy; queue the three copies, then wait for all of them.
    # Hint: peer_copies() of section 5 times copies that run at once.
    ### BEGIN SOLUTION
    dsts = {}
    for d in targets:
        acl.rt.set_device(d)
        dsts[d], _ = acl.rt.malloc(N, P2P)
    acl.rt.set_device(0)
    src, _ = acl.rt.malloc(N, P2P)
    acl.rt.memcpy(src, N, acl.util.numpy_to_ptr(data), N, H2D)
    streams = {}
    for d in targets:
        acl.rt.device_enable_peer_access(d, 0)          # 0 -> d, one link each
        streams[d], _ = acl.rt.create_stream()
    for d in targets:
        acl.rt.memcpy_async(dsts[d], N, src, N, D2D, streams[d])
    acl.rt.synchronize_device()
    return {0: src, **dsts}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex05_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("05.2", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("05.2", solution)

# %% [markdown]
# ### Exercise 05.3 · exchange in the time of one copy
#
# *Practises:* one-directional peer access: both directions enabled, both links used at once.
#
# `a` and `b` are 64 MiB each (uint8). Upload `a` to device 0 and `b` to device 1, then
# exchange them with device-to-device copies, so that device 0 holds `b` and device 1 holds
# `a`; return `{0: address on device 0 holding b, 1: address on device 1 holding a}`. The
# grader wants:
#
# * each address on its device, in a live allocation with `N` bytes from it;
# * device 0's buffer holding `b` and device 1's holding `a` at the end, written by copies
#   from device 1 and from device 0 respectively;
# * peer access enabled for 0 → 1 and for 1 → 0;
# * exactly 2 × 64 MiB copied host to device and 2 × 64 MiB between devices;
# * the exchange done in the time of one copy: at most **1.5 ms** from the first peer copy's
#   start to the last one's end.

# %% nbgrader={"grade": false, "grade_id": "ex05_3", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(a, b):
    """Put a on device 0 and b on device 1, then swap them device to device; return {0: ptr, 1: ptr}."""
    acl.init()
    # TODO: on each device a buffer for what it has and one for what it gets; upload; enable the
    # direction to the other device; copy each way on a stream of its own; wait for both.
    # Hint: a copy into the buffer the other copy is still reading is a race.
    ### BEGIN SOLUTION
    mine, theirs, streams = {}, {}, {}
    for d, x in ((0, a), (1, b)):
        acl.rt.set_device(d)
        mine[d], _ = acl.rt.malloc(N, P2P)
        theirs[d], _ = acl.rt.malloc(N, P2P)
        acl.rt.memcpy(mine[d], N, acl.util.numpy_to_ptr(x), N, H2D)
        acl.rt.device_enable_peer_access(1 - d, 0)      # d -> the other device
        streams[d], _ = acl.rt.create_stream()
    for d in (0, 1):
        acl.rt.set_device(d)
        acl.rt.memcpy_async(theirs[1 - d], N, mine[d], N, D2D, streams[d])
    for d in (0, 1):
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(streams[d])
    return {0: theirs[0], 1: theirs[1]}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex05_3_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("05.3", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("05.3", solution)

# %% [markdown]
# ## Summary
#
# Devices are numbered from 0 and answer attribute queries without being current.
# `aclrtSetDevice` chooses the device of the calling thread only; `aclrtResetDevice` counts
# references while `aclrtResetDeviceForce` does not. Streams and events belong to their
# device: launches, copies, records and stream waits must not cross devices, while the host
# may synchronise on or query any device's event. Peer access is one-directional, and copies
# on different links (or opposite directions of one) run at full speed together. Next,
# notebook 06 drives several devices from several host threads and processes.
