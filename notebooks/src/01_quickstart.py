# %% [markdown]
# # 01 · Quick start: the five steps of a runtime program
#
# Every program that runs work on an Ascend NPU through the runtime (AscendCL) has the same
# skeleton. This notebook writes it once, on the vector addition from the asynchronous-execution
# article (seed 003): two vectors of 1 Mi `int32` go to the device, an `AddKernel` adds them,
# the sum comes back.
#
# | step | what it does | C (AscendCL) | Python (this sandbox, pyACL style) |
# |---|---|---|---|
# | 1 | initialise the runtime | `aclInit(NULL)` | `acl.init()` |
# | 2 | pick a device, make a stream | `aclrtSetDevice(0)`, `aclrtCreateStream(&stream)` | `acl.rt.set_device(0)`, `stream, ret = acl.rt.create_stream()` |
# | 3 | memory and copies in | `aclrtMalloc`, `aclrtMallocHost`, `aclrtMemcpyAsync(..., ACL_MEMCPY_HOST_TO_DEVICE, stream)` | `acl.rt.malloc`, `acl.rt.malloc_host`, `acl.rt.memcpy_async(...)` |
# | 4 | launch the kernel | Ascend C: `add_kernel<<<blockDim, nullptr, stream>>>(devA, devB, devC, size)` | `add[block_dim, stream](dev_a, dev_b, dev_c, size)` |
# | 5 | copy back, synchronise, clean up | `aclrtSynchronizeStream(stream)`, `aclrtFree`, `aclrtDestroyStream`, `aclrtResetDevice`, `aclFinalize()` | the same names in snake case |
#
# Return conventions are pyACL's: a call that only reports success returns an `int` (0 is
# `ACL_SUCCESS`); a call that produces something returns a tuple with the code last.
# Only the import differs from a program for a real board (`import acl`).
#
# **After this notebook** you can write the five steps yourself, say which layer of the
# software stack each call reaches, and read the Gantt chart, memory map and queue panel.
# **It assumes** Python and numpy; no NPU and no C are needed.

# %% [markdown]
# ## Three layers between your code and the chip
#
# The runtime overview (seed 004) describes three layers. What each does, and where it sits in
# this sandbox:
#
# | layer | what it does | on a real machine | here |
# |---|---|---|---|
# | application | your program: frameworks (PyTorch, MindSpore...) or your own code call the API | your process, `libascendcl` / pyACL | your cells, `sandbox.acl` (the facade: names, arguments, return codes) |
# | runtime | contexts, streams, events, device memory; turns each call into tasks queued on a stream; reports errors | `libruntime` (the `hicann/runtime` repository) | `sandbox/core`: every call charged host time, checked, recorded |
# | driver and device | hands the queued tasks to the device, where the **Task Scheduler** takes them off each stream in order and dispatches them to the AI Cores and DMA engines; reports faults back | kernel driver, device firmware | `sandbox/core/sim.py` and `engines.py`: the device side in virtual time |
#
# An asynchronous call returns once the runtime has queued its task; the device side runs it
# later. The Gantt chart at the end draws both sides: the host thread's calls (application and
# runtime) on top, the tasks the device ran below.

# %%
import numpy as np

import sandbox
from sandbox import acl, teach

sandbox.configure("ascend310b")     # the seed's board: an Ascend 310B with one AI Core
print(sandbox.profile().soc_name, "-", sandbox.profile().ai_cores, "AI Core")

# %% [markdown]
# ## How the official quick-start sample goes
#
# The runtime repository (`hicann/runtime`, folder `example/0_quickstart`) opens with a
# "hello CANN" sample and a custom-kernel sample. Their flow, in short:
#
# 1. initialise, set device 0, create one stream; every call's return code is checked by a
#    macro that logs the failing call and stops;
# 2. allocate three device buffers with the huge-page-first policy and copy the two input
#    vectors in with the **blocking** copy (`aclrtMemcpy`);
# 3. launch the vector-add on the stream, then **synchronise the stream** before reading;
# 4. copy the result back (blocking), compare each element with the expected sum within a
#    tolerance, and print both;
# 5. free the buffers, destroy the stream, reset the device, finalise — the reverse order of
#    creation.
#
# We follow the same five steps, but with the seed's asynchronous copies on the stream, so
# that the whole program is queued first and waited for once.

# %% [markdown]
# ## Step 1 · initialise
#
# `aclInit` must be the first call of a process. In the sandbox every call costs virtual time
# on the calling host thread; `sandbox.now()` reads that clock in integer nanoseconds.

# %%
ret = acl.init()                    # C: aclInit(NULL);
print("aclInit ->", ret, "| host clock:", sandbox.now() / 1e6, "ms")

# %% [markdown]
# ## Step 2 · device and stream
#
# `aclrtSetDevice` opens the device and gives the thread a default context. The first open of
# a process is slow (about a second on real hardware, and here). A **stream** is an in-order
# queue of device work; calls ending in `Async` put a task on it and return at once.
# (The seed's C code creates an explicit context with `aclrtCreateContext(&context, 0)`; the
# official samples rely on the default context that `aclrtSetDevice` makes. Both work.)

# %%
ret = acl.rt.set_device(0)          # C: aclrtSetDevice(0);
stream, ret2 = acl.rt.create_stream()   # C: aclrtCreateStream(&stream);
print("aclrtSetDevice ->", ret, "| aclrtCreateStream ->", ret2)
print("host clock after opening the device:", sandbox.now() / 1e6, "ms")

# %% [markdown]
# ## Step 3 · memory and copies in
#
# Device memory comes from `aclrtMalloc`; host memory that the DMA engines can read directly
# (*pinned*) from `aclrtMallocHost`. `acl.util.ptr_to_numpy` gives a numpy view of host memory
# so we can fill it. Then two asynchronous host-to-device copies go on the stream.

# %%
N = 1024 * 1024                     # elements per vector
NBYTES = N * 4                      # int32: 4 MiB per vector
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST

host_a, _ = acl.rt.malloc_host(NBYTES)      # C: aclrtMallocHost(&hostA, byteSize);
host_b, _ = acl.rt.malloc_host(NBYTES)
host_c, _ = acl.rt.malloc_host(NBYTES)
dev_a, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)   # C: aclrtMalloc(&devA, byteSize, ACL_MEM_MALLOC_HUGE_FIRST);
dev_b, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
dev_c, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)

a = acl.util.ptr_to_numpy(host_a, (N,), np.int32)
b = acl.util.ptr_to_numpy(host_b, (N,), np.int32)
a[:] = np.arange(N)                 # hostA[i] = i
b[:] = N - np.arange(N)             # hostB[i] = size - i, so every sum is size

# C: aclrtMemcpyAsync(devA, byteSize, hostA, byteSize, ACL_MEMCPY_HOST_TO_DEVICE, stream);
rets = [acl.rt.memcpy_async(dev_a, NBYTES, host_a, NBYTES, H2D, stream),
        acl.rt.memcpy_async(dev_b, NBYTES, host_b, NBYTES, H2D, stream)]
print("two aclrtMemcpyAsync ->", rets, "| host clock:", sandbox.now() / 1e6, "ms")

# %% [markdown]
# The memory map shows the three device buffers (each 4 MiB plus the runtime's 32-byte pad,
# rounded up to 2 MiB huge pages) and the three pinned host buffers.

# %%
sandbox.memory_map()

# %% [markdown]
# ## Step 4 · launch
#
# A kernel is a Python function made into a device kernel with `@sandbox.kernel`. Pointer
# parameters are annotated with their element type (`"int32*"`) and arrive as numpy views of
# device memory. Its cost is declared: here `ns=3_500_000`, the 3.5 ms the seed measured for
# `AddKernel` on the 310B. `add[block_dim, stream](...)` is Ascend C's launch
# `add_kernel<<<blockDim, nullptr, stream>>>(...)`: `blockDim` is the number of cores (blocks)
# the kernel runs on, the second argument (`l2ctrl`) is reserved and passed as `nullptr`, the
# third the stream.
#
# The seed's program is written in **CUDA**, not Ascend C: `AddKernel<<<gridDim, blockDim, 0,
# stream>>>` with a `__global__` kernel indexed by `threadIdx`, and `(N + 255) / 256` blocks of
# 256 threads. Ascend C has no thread index: a kernel learns which core it is on
# (`GetBlockIdx()`) and each core works through its share of the data in tiles. The 310B has
# one AI Core, so `blockDim` 1 uses all of it; more blocks than cores run in waves.

# %%
@sandbox.kernel(ns=lambda a, b, c, size: 3_500_000 * size // N)   # 3.5 ms for the full 1 Mi
def add(a: "int32*", b: "int32*", c: "int32*", size: int):
    c[:size] = a[:size] + b[:size]


# Ascend C: add_kernel<<<1, nullptr, stream>>>(devA, devB, devC, size);
ret = add[1, stream](dev_a, dev_b, dev_c, N)
print("launch ->", ret, "| host clock:", sandbox.now() / 1e6, "ms (the launch returned at once)")

# %% [markdown]
# Nothing has finished yet: the host is only microseconds past the first copy. The queue panel
# shows what the stream holds right now — one copy running on the DMA engine, the rest waiting
# for their turn in the stream.

# %%
sandbox.queues()

# %% [markdown]
# ## Step 5 · copy back, synchronise, clean up
#
# The result copy goes on the same stream, so it starts only after the kernel. The host then
# waits once, with `aclrtSynchronizeStream`, and only then reads `host_c`. Clean-up releases
# everything in the reverse order of creation.

# %%
# C: aclrtMemcpyAsync(hostC, byteSize, devC, byteSize, ACL_MEMCPY_DEVICE_TO_HOST, stream);
acl.rt.memcpy_async(host_c, NBYTES, dev_c, NBYTES, D2H, stream)
before = sandbox.now()
ret = acl.rt.synchronize_stream(stream)     # C: aclrtSynchronizeStream(stream);
print(f"aclrtSynchronizeStream -> {ret}, the host waited {(sandbox.now() - before) / 1e6:.3f} ms")

c = acl.util.ptr_to_numpy(host_c, (N,), np.int32).copy()
print("c[:4] =", c[:4], "| every element is", N, ":", bool((c == N).all()))
synced = teach.mark("synchronized")      # a named moment in the trace, for the dashboard below

# %%
rets = [acl.rt.free(p) for p in (dev_a, dev_b, dev_c)]           # C: aclrtFree(devA); ...
rets += [acl.rt.free_host(p) for p in (host_a, host_b, host_c)]  # C: aclrtFreeHost(hostA); ...
rets += [acl.rt.destroy_stream(stream),                          # C: aclrtDestroyStream(stream);
         acl.rt.reset_device(0),                                 # C: aclrtResetDevice(0);
         acl.finalize()]                                         # C: aclFinalize();
print("clean-up return codes:", rets)

# %% [markdown]
# ## What happened
#
# The Gantt chart draws the trace: the host thread's calls on top (the dark part of the
# synchronize is the time it was blocked), then the stream's tasks. Copies (H2D 2 × 4 MiB,
# D2H 4 MiB) took 8.2 ms and the kernel 3.5 ms. These are the seed's figures, not a measurement
# made here: the 310B profile (`sandbox/profiles`) sets its copy bandwidth to ~1.5 GB/s per
# direction so that 12 MiB take 8.2 ms (tagged `SEED003`), and the kernel's 3.5 ms is declared
# above. The seed article is partly generated text; treat its numbers as a calibration target
# for the lesson, not as the board's data sheet. On one stream the tasks run one after another —
# notebook 02 is about overlapping them.

# %%
sandbox.gantt()

# %% [markdown]
# `sandbox.show()` is the dashboard: the same Gantt chart, the memory map and the queues, with
# a time slider to scrub through the run (in JupyterLab; the saved notebook shows a snapshot).
# Here it opens at the moment just after the synchronize, before the clean-up freed the buffers.

# %%
sandbox.show(t=synced)

# %% [markdown]
# ## Step through it
#
# `sandbox.step_through(program)` runs a program one step per click of **next step**, the
# dashboard following. The program is a generator that yields the name of each step once it is
# done. Run the cell, then click through the five steps (or call `walk.step()`).

# %%
def five_steps():
    acl.init()
    yield "1 initialise"
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    yield "2 device and stream"
    ha, _ = acl.rt.malloc_host(NBYTES)
    hb, _ = acl.rt.malloc_host(NBYTES)
    hc, _ = acl.rt.malloc_host(NBYTES)
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = np.arange(N)
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = N - np.arange(N)
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    yield "3 memory and copies in"
    add[1, s](da, db, dc, N)
    yield "4 launch"
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    yield "5 synchronise and clean up"


sandbox.configure("ascend310b")
walk = sandbox.step_through(five_steps)
walk

# %% [markdown]
# Each `step()` runs one step and returns its name; the dashboard above redraws.

# %%
print(walk.step())
print(walk.step())
print(walk.step())

# %%
print(walk.step())
print(walk.step())
print("finished:", walk.step() is None)
walk

# %% [markdown]
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("01.1", solution)`
# runs **your** function on a fresh simulated board of its own, with input vectors it makes up
# each time, and judges the whole run from the trace: whether the answer is right, whether the
# device computed it and the host read it only after it had landed, and what the exercise
# asks for. Each criterion prints `✔` or `✘` with a hint. Your own program above is left
# untouched. The cells below hold stubs, so their verdict is `✘` until you write the code.
#
# ### Exercise 01.1 · make it correct
#
# *Practises:* reading a result only after the host knows it has arrived.
#
# `start_vector_add(a, b)` below is given: it opens the board, copies `a` and `b` in, and
# queues the addition into `dev_c`. The solution then copies the sum back **asynchronously**
# and reads `host_c` — too early: on real hardware that is a race; in the sandbox the copy's
# bytes land at its simulated end, so the read sees the old bytes every time.

# %%
def start_vector_add(a, b):
    """Open device 0, copy a and b in and queue c = a + b; returns the stream, host_c, dev_c."""
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    return s, hc, dc

# %% nbgrader={"grade": false, "grade_id": "ex01_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(a, b):
    """Return a + b (int32, N elements), computed on the device by start_vector_add."""
    s, host_c, dev_c = start_vector_add(a, b)
    acl.rt.memcpy_async(host_c, NBYTES, dev_c, NBYTES, D2H, s)
    # TODO: the host reads host_c on the next line before the copy back has landed.
    # Hint: one runtime call makes the host wait for everything queued on stream s.
    ### BEGIN SOLUTION
    acl.rt.synchronize_stream(s)
    ### END SOLUTION
    return acl.util.ptr_to_numpy(host_c, (N,), np.int32).copy()

# %% nbgrader={"grade": true, "grade_id": "ex01_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("01.1", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("01.1", solution)

# %% [markdown]
# ### Exercise 01.2 · the five steps, waiting once
#
# *Practises:* a whole runtime program on your own, with one wait.
#
# Write the vector addition from scratch: initialise, set device 0 and create a stream,
# allocate the buffers, copy `a` and `b` in, launch `add`, copy the sum back, and return it.
# A cautious programmer synchronises after every call (or uses the blocking `aclrtMemcpy`,
# which waits too); each wait stops the host until the device catches up. The grader wants:
#
# * the right sum, computed on the device and read after it landed;
# * 8 MiB copied in and 4 MiB copied out, with asynchronous copies;
# * **at most one** synchronize;
# * everything released before `aclFinalize` (the leak report is empty).

# %% nbgrader={"grade": false, "grade_id": "ex01_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(a, b):
    """Return a + b (int32, N elements) computed by `add` on device 0 of a fresh board."""
    # TODO: the five steps. Clean up in the reverse order of creation, then acl.finalize().
    # Hint: copy the result out of the host buffer (.copy()) before you free it.
    ### BEGIN SOLUTION
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return c
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex01_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("01.2", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("01.2", solution)

# %% [markdown]
# ## Summary
#
# Every runtime program has the same five steps, and its calls return codes you can check.
# Asynchronous calls return at once; the host must synchronise (or learn otherwise that work
# finished) before it reads what the device wrote. Next, notebook 02 makes copies and compute
# overlap.
