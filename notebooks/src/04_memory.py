# %% [markdown]
# # 04 · Device memory: policies, pages, pinned copies, fragmentation
#
# On an NPU you never get exactly the bytes you ask for. This notebook shows what the
# allocator really takes, why the host memory you copy from matters as much as the device
# memory you copy to, and how freeing in the wrong order leaves memory you cannot use.
#
# | You will see | C call | Python call |
# |---|---|---|
# | device memory with a page policy | `aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST)` | `acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)` |
# | page-locked (pinned) host memory | `aclrtMallocHost(&p, size)` | `acl.rt.malloc_host(size)` |
# | pageable host memory (a plain array) | `malloc(size)` | `acl.util.numpy_to_ptr(array)` |
# | free and total memory of the device | `aclrtGetMemInfo(ACL_HBM_MEM, &free, &total)` | `acl.rt.get_mem_info(acl.ACL_HBM_MEM)` |
#
# The machine is simulated and runs in virtual time, so every figure below is the same on
# every run.

# %%
import numpy as np

import sandbox
from sandbox import acl, teach

MiB = 1 << 20
sandbox.configure(device_count=1)          # one 910B device is enough for this notebook
print(acl.init(), acl.rt.set_device(0))

# %% [markdown]
# ## 1 · The official memory example, step by step
#
# The runtime repository's memory examples (`example/1_basic_features/memory/` in
# hicann/runtime) all follow one flow. The host-to-device asynchronous copy example goes:
#
# 1. initialise, choose device 0, create a stream;
# 2. take 1 MiB of **pinned** host memory (`aclrtMallocHost`) and 1 MiB of device memory
#    with the `HUGE_FIRST` policy (`aclrtMalloc`);
# 3. write a value into the host buffer;
# 4. queue the copy on the stream (`aclrtMemcpyAsync`, host to device) and wait for the
#    stream before anyone reads the result;
# 5. give everything back in reverse order: stream, host memory, device memory, then
#    `aclrtResetDeviceForce` and `aclFinalize`.
#
# Here is the same flow in Python; instead of a device kernel reading the value, we copy it
# back and look.

# %%
stream, _ = acl.rt.create_stream()
size = 1 * MiB
host, _ = acl.rt.malloc_host(size)                          # pinned host memory
dev, _ = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)  # device memory
acl.util.ptr_to_numpy(host, (size // 4,), np.int32)[0] = 123
acl.rt.memcpy_async(dev, size, host, size, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream)
acl.rt.synchronize_stream(stream)                            # the copy is done only now

back = np.zeros(size // 4, dtype=np.int32)
acl.rt.memcpy(acl.util.numpy_to_ptr(back), size, dev, size, acl.ACL_MEMCPY_DEVICE_TO_HOST)
print("value on the device:", back[0])
print([acl.rt.destroy_stream(stream), acl.rt.free_host(host), acl.rt.free(dev)])

# %% [markdown]
# ## 2 · Policies and page sizes
#
# `aclrtMalloc` takes a **policy** that says which pages back the block:
#
# | policy | value | pages |
# |---|---|---|
# | `ACL_MEM_MALLOC_HUGE_FIRST` | 0 | up to 1 MiB: 4 KiB normal pages; above: 2 MiB huge pages, normal if no huge run is free |
# | `ACL_MEM_MALLOC_HUGE_ONLY` | 1 | 2 MiB huge pages only; fails when none are free |
# | `ACL_MEM_MALLOC_NORMAL_ONLY` | 2 | 4 KiB normal pages only |
#
# Before page rounding the runtime pads every request: it reserves
# **`ALIGN_UP(size, 32) + 32`** bytes (the 32 extra bytes guard against kernels that read a
# little past the end). The block then grows to a whole number of pages.
#
# You cannot see the reserved size on the pointer, but you can see it the way you would on
# real hardware: ask `get_mem_info` for the free bytes before and after the allocation.

# %%
POLICIES = {"HUGE_FIRST": acl.ACL_MEM_MALLOC_HUGE_FIRST,
            "HUGE_ONLY": acl.ACL_MEM_MALLOC_HUGE_ONLY,
            "NORMAL_ONLY": acl.ACL_MEM_MALLOC_NORMAL_ONLY}


def reserved_by(size, policy):
    """Bytes an allocation takes from the device, measured with get_mem_info."""
    before, total, _ = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    ptr, ret = acl.rt.malloc(size, policy)
    after, total, _ = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    acl.rt.free(ptr)
    return before - after


sizes = [1, 100, 4064, 4065, 1 * MiB, 1 * MiB + 1, 3 * MiB]
print(f"{'requested':>10}  {'padded':>10}  " + "  ".join(f"{name:>12}" for name in POLICIES))
for size in sizes:
    padded = (size + 31) // 32 * 32 + 32
    taken = [reserved_by(size, policy) for policy in POLICIES.values()]
    print(f"{size:>10}  {padded:>10}  " + "  ".join(f"{t:>12}" for t in taken))

# %% [markdown]
# Read the table row by row:
#
# * **1 byte** pads to 64 bytes, then takes a whole 4 KiB page (normal) or a whole 2 MiB
#   page (`HUGE_ONLY`): two million bytes for one.
# * **4064 bytes** pad to exactly 4096 and fit one normal page; **4065 bytes** pad to 4128
#   and need two. The padding alone pushes a request over a page boundary.
# * **1 MiB** is the last size `HUGE_FIRST` serves with normal pages (1 MiB + 64 bytes,
#   rounded to 4 KiB); **1 MiB + 1** switches it to a 2 MiB huge page.
# * **3 MiB** with huge pages takes 4 MiB.
#
# Huge pages make the device's address translation cheaper for big buffers; the cost is
# this rounding. Small buffers belong on normal pages, which is what `HUGE_FIRST` does.
#
# The runtime overview (seed 004, partly generated text) lists three "strategies":
# `HUGE_FIRST`, "`NORMAL_ONLY`: normal memory, less fragmentation" and "`MEMORY_POOL`: from a
# memory pool". Two corrections. There is no `MEMORY_POOL` policy: the policies are the three
# above (and their `_P2P` twins for peer copies); a memory pool is a separate set of calls
# (`aclrtMemPoolCreate`, section 5). And `NORMAL_ONLY` does not fragment "less" in general: its
# 4 KiB pages waste less **inside** a small block (the table: 4 KiB instead of 2 MiB for one
# byte), but holes **between** blocks come from the order of frees (section 4), whatever the
# page size, and a big buffer on normal pages costs the device more address translations.
#
# Now keep one block of each kind alive and look at the memory map. Each bar is a block;
# the text beside the picture lists requested and reserved sizes.

# %%
kept = [acl.rt.malloc(1, acl.ACL_MEM_MALLOC_HUGE_ONLY)[0],
        acl.rt.malloc(4065, acl.ACL_MEM_MALLOC_NORMAL_ONLY)[0],
        acl.rt.malloc(3 * MiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0]]
sandbox.memory_map()

# %%
_ = [acl.rt.free(p) for p in kept]
free, total, ret = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
print(f"HBM: {free} bytes free of {total} ({total / (1 << 30):.1f} GiB), ret {ret}")
for name in ("ACL_HBM_MEM_HUGE", "ACL_HBM_MEM_NORMAL", "ACL_DDR_MEM"):
    print(f"{name:<20}", acl.rt.get_mem_info(getattr(acl, name)))

# %% [markdown]
# `aclrtGetMemInfo` answers for the **current device**. The `_HUGE` attribute counts only
# whole free 2 MiB pages; the `_NORMAL` one counts every free byte. A 910B has HBM and no
# DDR, so the DDR attribute answers `(0, 0)`, which is the documented answer for memory the
# hardware lacks.
#
# ## 3 · Pinned or pageable: where the host bytes live
#
# The DMA engine can only read host memory whose pages cannot move. **Pinned** memory from
# `aclrtMallocHost` qualifies; an ordinary array (**pageable** memory, here a numpy array
# handed over with `acl.util.numpy_to_ptr`) does not, so the runtime stages it through a
# bounce buffer. Two consequences, both documented:
#
# * the copy is slower (the profile uses 57 GB/s pinned, 14 GB/s pageable for H2D);
# * `aclrtMemcpyAsync` from pageable memory **returns only when the copy is done**: the call
#   is asynchronous in name only.
#
# Measure both with the thread's virtual clock, `sandbox.now()`.

# %%
sandbox.configure(device_count=1)
acl.init()
acl.rt.set_device(0)
copy_stream, _ = acl.rt.create_stream()
N = 64 * MiB
dev, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
pinned, _ = acl.rt.malloc_host(N)
pageable = acl.util.numpy_to_ptr(np.ones(N, dtype=np.uint8))


def timed_copy(src):
    t0 = sandbox.now()
    acl.rt.memcpy_async(dev, N, src, N, acl.ACL_MEMCPY_HOST_TO_DEVICE, copy_stream)
    t_return = sandbox.now()
    acl.rt.synchronize_stream(copy_stream)
    t_done = sandbox.now()
    return (t_return - t0) / 1e6, (t_done - t0) / 1e6


for name, src in (("pinned", pinned), ("pageable", pageable)):
    back, done = timed_copy(src)
    print(f"{name:>8}: memcpy_async returned after {back:7.3f} ms, copy done after {done:7.3f} ms "
          f"({N / (done * 1e-3) / 1e9:.1f} GB/s)")

# %% [markdown]
# The pinned call returned after 5 µs (its submit cost) while the copy ran for 1.2 ms; the
# pageable call held the thread for the whole 4.8 ms copy. That matters when you want the
# host to queue more work while a copy runs. Here a kernel that does not touch the copied
# buffer is launched on a second stream straight after each copy:

# %%
@sandbox.kernel(ns=2_000_000)          # 2 ms of compute on a separate buffer
def busy(x: "uint8*"):
    pass


def copy_then_compute(src):
    sandbox.configure(device_count=1)
    acl.init()
    acl.rt.set_device(0)
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host_src = acl.rt.malloc_host(N)[0] if src == "pinned" else acl.util.numpy_to_ptr(np.ones(N, np.uint8))
    acl.rt.memcpy_async(dst, N, host_src, N, acl.ACL_MEMCPY_HOST_TO_DEVICE, s_copy)
    busy[24, s_compute](work)
    acl.rt.synchronize_device()


copy_then_compute("pinned")
sandbox.gantt()

# %%
copy_then_compute("pageable")
sandbox.gantt()

# %% [markdown]
# With pinned memory the copy and the kernel overlap (see "overlap" in the text and the two
# bars side by side). With pageable memory the host was stuck inside `memcpy_async`, so the
# kernel was launched only after the copy: no overlap, and the total grows by the copy time.
#
# ## 4 · Fragmentation: free bytes you cannot use
#
# The allocator hands out contiguous address ranges. When blocks are freed in between
# blocks that stay, the free memory is split into holes, and a request bigger than the
# largest hole fails even though the total is enough. To see it without allocating 62 GiB,
# shrink the device to 64 MiB with a changed profile.
#
# The blocks below ask for `8 MiB - 32` bytes: padded, that is exactly 8 MiB, four huge
# pages. (Ask for 8 MiB and the padding makes it 10 MiB.)

# %%
small = sandbox.get_profile("ascend910b").with_(memory_bytes=64 * MiB)
sandbox.configure(small, device_count=1)
acl.init()
acl.rt.set_device(0)
blocks = [acl.rt.malloc(8 * MiB - 32, acl.ACL_MEM_MALLOC_HUGE_ONLY)[0] for _ in range(8)]
print("free after 8 blocks:", acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0])
for i in (1, 3, 5, 7):
    acl.rt.free(blocks[i])
t_after_frees = sandbox.now()
print("free after freeing every other block:", acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] // MiB, "MiB")
ptr, ret = acl.rt.malloc(16 * MiB - 32, acl.ACL_MEM_MALLOC_HUGE_ONLY)
print("malloc of 16 MiB:", ret, "=", "ACL_ERROR_RT_MEMORY_ALLOCATION" if ret == acl.ACL_ERROR_RT_MEMORY_ALLOCATION else ret)
print(acl.get_recent_err_msg())

# %%
sandbox.memory_map(t_after_frees)

# %% [markdown]
# (The map numbers blocks from 1 in allocation order, so `blocks[2]` is "block 3".)
# 32 MiB are free, in four 8 MiB holes: fragmentation (1 - largest hole / free bytes) is
# 75 %. Freeing one more block joins its two neighbouring holes into one 24 MiB extent,
# and the same request now fits:

# %%
acl.rt.free(blocks[2])
ptr, ret = acl.rt.malloc(16 * MiB - 32, acl.ACL_MEM_MALLOC_HUGE_ONLY)
print("malloc of 16 MiB:", ret)
sandbox.memory_map()

# %% [markdown]
# Long-running programs avoid this by allocating big buffers once and carving them up
# themselves, or by letting a memory pool do it. (The docs also note that frequent
# malloc/free is slow: each call costs host time, 20 µs and 10 µs in this profile.)
#
# ## 5 · Stream-ordered memory pools
#
# `aclrtFree` does not wait for queued work: free a buffer while a copy on a stream still
# uses it and the copy reads freed memory. So a loop that needs a fresh buffer per step,
# with plain `aclrtMalloc`/`aclrtFree`, must synchronise before every free, and the host can
# never run ahead of the device.
#
# A **stream-ordered pool** (Atlas A2 only, experimental in the docs) moves the allocation
# and the free *into the stream*: `aclrtMemPoolFreeAsync(ptr, stream)` gives the block back
# when the work queued before it on that stream is done, and a later
# `aclrtMemPoolMallocAsync` on the same stream can reuse it safely. The pool keeps the
# device memory between steps.
#
# | C call | Python call |
# |---|---|
# | `aclrtMemPoolCreate(&pool, &props)` | `acl.rt.mem_pool_create(props)` |
# | `aclrtMemPoolMallocAsync(&ptr, size, pool, stream)` | `acl.rt.mem_pool_malloc_async(size, pool, stream)` |
# | `aclrtMemPoolFreeAsync(ptr, stream)` | `acl.rt.mem_pool_free_async(ptr, stream)` |
# | `aclrtMemPoolGetAttr(pool, attr, &value)` | `acl.rt.mem_pool_get_attr(pool, attr)` |
#
# Four steps, each uploading 8 MiB into a fresh buffer and reading it back, first with
# plain malloc/free, then with a pool:

# %%
STEP = 8 * MiB
POOL_PROPS = {"allocType": acl.ACL_MEM_ALLOCATION_TYPE_PINNED, "handleType": acl.ACL_MEM_HANDLE_TYPE_NONE,
              "location": {"id": 0, "type": acl.ACL_MEM_LOCATION_TYPE_DEVICE}, "maxSize": 0}


def four_steps(use_pool):
    """Four upload/read-back steps in fresh buffers; returns when the host had queued them all."""
    sandbox.configure(device_count=1)
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    host, _ = acl.rt.malloc_host(STEP)
    pool = acl.rt.mem_pool_create(POOL_PROPS)[0] if use_pool else None
    t0 = sandbox.now()
    for _ in range(4):
        if use_pool:
            buf, _ = acl.rt.mem_pool_malloc_async(STEP, pool, stream)
        else:
            buf, _ = acl.rt.malloc(STEP, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.rt.memcpy_async(buf, STEP, host, STEP, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream)
        acl.rt.memcpy_async(host, STEP, buf, STEP, acl.ACL_MEMCPY_DEVICE_TO_HOST, stream)
        if use_pool:
            acl.rt.mem_pool_free_async(buf, stream)       # in stream order: after the copies
        else:
            acl.rt.synchronize_stream(stream)             # aclrtFree would not wait
            acl.rt.free(buf)
    t_queued = sandbox.now()
    acl.rt.synchronize_stream(stream)
    name, syncs = "pool" if use_pool else "malloc/free", sum(teach.sync_calls().values())
    print(f"{name:>11}: host free again after {(t_queued - t0) / 1e3:7.1f} µs, all done after "
          f"{(sandbox.now() - t0) / 1e3:7.1f} µs, {syncs} synchronize call{'s' * (syncs != 1)}")
    if use_pool:
        for attr in ("RESERVED_MEM_HIGH", "USED_MEM_HIGH", "RESERVED_MEM_CURRENT"):
            value, _ = acl.rt.mem_pool_get_attr(pool, getattr(acl, "ACL_RT_MEM_POOL_ATTR_" + attr))
            print(f"{'':>13}{attr:<22} {value:>9} bytes")
    return t_queued


four_steps(use_pool=False)
t_queued = four_steps(use_pool=True)
sandbox.memory_map(t_queued)

# %% [markdown]
# Without a pool the host waits in every step and gets its thread back only at the end.
# With the pool it queues all four steps in a few dozen microseconds and waits once; the
# device work is the same, and the four steps share **one** segment: 8 MiB plus the padding
# in 2 MiB pages, so 10 MiB reserved, of which 8 MiB + 64 bytes are in use at a time. The
# memory map at the moment the host finished queueing shows that segment, labelled with its
# pool. With the default release threshold of 0 the pool gives the segment back to the
# device at the synchronize (`RESERVED_MEM_CURRENT` is 0 afterwards);
# `ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD` keeps that much memory in the pool instead.
#
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("04.1", solution)`
# runs **your** function on a fresh simulated 910B of its own (one device), with inputs it
# makes up each time, and judges the whole run from the trace and from what the device memory
# holds at the end. Each criterion prints `✔` or `✘` with a hint. Your own machine above is
# left untouched. The cells below hold stubs, so their verdict is `✘` until you write the code.
#
# In every exercise of this notebook the grader has already called `acl.init()` and
# `acl.rt.set_device(0)` before it calls `solution`: do not call them again (a second
# `aclInit` fails), and do not call `sandbox.configure`.

# %%
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST      # short names for the copies below

# %% [markdown]
# ### Exercise 04.1 · fit the budget
#
# *Practises:* what an allocation really reserves: the padding, the page size and the policy.
#
# Put three arrays on device 0 so that all three are alive together when `solution`
# returns: `weights` (3 MiB of float32), `table` (1000 bytes of int32) and `flags`
# (100 bytes of uint8). Return their three device addresses, `(weights_ptr, table_ptr,
# flags_ptr)`. The grader wants:
#
# * each address on device 0, inside a live allocation with room for its array, and the three
#   byte ranges apart from each other (three allocations, or one allocation you carve into
#   three: either is fine);
# * each range holding its array's bytes, copied there from the host;
# * at most **3 MiB + 12 KiB** (3 158 016 bytes) reserved on device 0 at the peak, padding and
#   page rounding included (`get_mem_info` would show it; the grader reads the allocator's trace).

# %% nbgrader={"grade": false, "grade_id": "ex04_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(weights, table, flags):
    """Copy weights, table and flags to device 0; return their device addresses."""
    # TODO: allocate device memory, copy each array in (acl.util.numpy_to_ptr(array) is its host
    # address; a blocking acl.rt.memcpy is fine here), and return the three addresses.
    # Hint: the table in section 2 shows what each policy reserves for 3 MiB, 1000 and 100 bytes.
    ### BEGIN SOLUTION
    ptrs = []
    for array, policy in ((weights, acl.ACL_MEM_MALLOC_NORMAL_ONLY),     # 3 MiB + 4 KiB, not 4 MiB
                          (table, acl.ACL_MEM_MALLOC_HUGE_FIRST),        # up to 1 MiB: normal pages
                          (flags, acl.ACL_MEM_MALLOC_HUGE_FIRST)):
        ptr, _ = acl.rt.malloc(array.nbytes, policy)
        acl.rt.memcpy(ptr, array.nbytes, acl.util.numpy_to_ptr(array), array.nbytes, H2D)
        ptrs.append(ptr)
    return tuple(ptrs)
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex04_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("04.1", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("04.1", solution)

# %% [markdown]
# ### Exercise 04.2 · copy while computing
#
# *Practises:* pinned host memory: an asynchronous copy that really is asynchronous, beside a kernel.
#
# Copy `data` (64 MiB of uint8, `N` bytes) into a new buffer on device 0 while `busy` (the
# 2 ms kernel of section 3) runs on device 0, on a 4 KiB buffer of its own; return the device
# address of the copy, and keep that buffer (the grader reads it after `solution` returns).
# The grader wants:
#
# * the returned buffer on device 0 holding `data`, with exactly 64 MiB copied host to device;
# * the copy reading **pinned** host memory;
# * `busy` launched once, on device 0, and the copy and the kernel overlapping on device 0 for
#   at least 90 % of the shorter of the two (the copy);
# * the whole run of `solution`, from its call to the end of its last device task, within
#   **2.5 ms** of virtual time (freeing what you no longer need fits in it; a device reset,
#   5 ms, does not);
# * the host waiting for the copy and the kernel (a synchronize) before it returns.

# %% nbgrader={"grade": false, "grade_id": "ex04_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(data):
    """Copy data (N bytes) to a new buffer on device 0 while busy runs; return the buffer's address."""
    # TODO: two streams, an N-byte device buffer, a 4 KiB buffer for busy, the copy, the launch, a wait.
    # Hint: which host memory lets memcpy_async return at once? Fill it with
    # acl.util.ptr_to_numpy(host_ptr, (N,), np.uint8)[:] = data
    ### BEGIN SOLUTION
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)                       # pinned: memcpy_async returns at once
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    acl.rt.memcpy_async(dst, N, src, N, H2D, s_copy)
    busy[24, s_compute](work)
    acl.rt.synchronize_device()
    return dst
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex04_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("04.2", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("04.2", solution)

# %% [markdown]
# ### Exercise 04.3 · four steps in two buffers' worth of memory
#
# *Practises:* stream-ordered memory: device memory reused step after step without stopping the host.
#
# `chunks` holds four chunks of `STEP` = 8 MiB (uint8, shape `(4, STEP)`). Run the loop of
# section 5 on them: each step copies its chunk into device memory and back out into row `k`
# of a host result; return the result. The grader wants:
#
# * the result equal to `chunks`, brought back by device-to-host copies and read after they
#   landed;
# * exactly 32 MiB copied host to device and 32 MiB device to host;
# * the host waiting **at most once** (a synchronize that has to wait counts, and so do a
#   blocking `aclrtMemcpy` and an `aclrtMemcpyAsync` from pageable memory);
# * at most **20 MiB** reserved on device 0 at the peak: two steps' buffers (8 MiB plus the
#   padding, in 2 MiB pages, is 10 MiB each), not four.

# %% nbgrader={"grade": false, "grade_id": "ex04_3", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(chunks):
    """Copy each chunk to device memory and back in four steps, waiting once; return the result."""
    steps = chunks.shape[0]
    # TODO: pinned host buffers for the chunks and the result, one stream, and per step a device
    # buffer, the copy in, the copy out; then one wait, and a copy of the result.
    # Hint: plain aclrtFree does not wait for queued work; POOL_PROPS and four_steps() of section 5
    # show the stream-ordered alternative.
    ### BEGIN SOLUTION
    stream, _ = acl.rt.create_stream()
    pool, _ = acl.rt.mem_pool_create(POOL_PROPS)
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    host_out, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    for k in range(steps):
        buf, _ = acl.rt.mem_pool_malloc_async(STEP, pool, stream)
        acl.rt.memcpy_async(buf, STEP, host_in + k * STEP, STEP, H2D, stream)
        acl.rt.memcpy_async(host_out + k * STEP, STEP, buf, STEP, D2H, stream)
        acl.rt.mem_pool_free_async(buf, stream)          # back to the pool after the copies
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(host_out, chunks.shape, np.uint8).copy()
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex04_3_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("04.3", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("04.3", solution)

# %% [markdown]
# ## Summary
#
# An allocation reserves more than it asks for: `ALIGN_UP(size, 32) + 32` bytes, rounded to
# whole 4 KiB or 2 MiB pages as its policy says, so small buffers belong on normal pages and
# one carved allocation can cost less than several. Copies from pinned memory are truly
# asynchronous and overlap with kernels; copies from pageable memory hold the host. Freed
# memory between live blocks fragments the device, and a stream-ordered pool lets a loop
# reuse its memory without synchronising before every free. Next, notebook 05 spreads work
# over several devices and copies between them.
