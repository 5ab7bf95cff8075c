# %% [markdown]
# # 06 · Threads and processes: four ways to drive several devices
#
# The runtime's multi-device article names four ways to organise a program that uses
# several NPUs:
#
# 1. **one host thread drives several devices**, switching with `aclrtSetDevice`;
# 2. **several host threads**, each driving its own device;
# 3. **several single-threaded processes**, each driving its own device;
# 4. **several processes with several threads**, each thread driving its own device.
#
# This notebook runs the same work in all four shapes and puts them side by side on the
# timeline. Then it shows why the output is the same on every run, and what happens when
# processes share one device.
#
# | You will see | C / POSIX | Python in the sandbox |
# |---|---|---|
# | a host thread | `std::thread t(fn, dev)` | `threading.Thread(target=fn, args=(dev,))` |
# | a host process | `fork()` / a second program | `sandbox.spawn_process(fn, dev)` |
# | per-thread device | `aclrtSetDevice(dev)` | `acl.rt.set_device(dev)` |

# %%
import threading

import sandbox
from sandbox import acl

DEVICES = (0, 1, 2, 3)


@sandbox.kernel(ns=100_000_000)      # 100 ms of device work: long next to the host calls
def long_kernel(x: "uint8*"):
    pass


def drive(device):
    """Queue the work of one device: a stream, a buffer, two kernels. Returns what finish needs."""
    acl.rt.set_device(device)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    long_kernel[24, stream](buf)
    long_kernel[24, stream](buf)
    return stream, buf


def finish(device, stream, buf):
    """Wait for the device's work and give everything back."""
    acl.rt.set_device(device)
    acl.rt.synchronize_stream(stream)
    acl.rt.free(buf)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(device)


def thread_program(device):
    finish(device, *drive(device))

# %% [markdown]
# ## Pattern 1 · One thread, several devices
#
# The thread queues work on device 0, switches to device 1 and queues there, and so on;
# only then does it wait for each device in turn. Because launches are asynchronous, the
# four devices still run at the same time: each starts as soon as its work is queued.

# %%
sandbox.configure(device_count=4)
acl.init()
work = {d: drive(d) for d in DEVICES}
for d in DEVICES:
    finish(d, *work[d])
one_thread_end = sandbox.now()
sandbox.gantt()

# %% [markdown]
# The kernels start one after another, 20 ms apart: opening each further device costs the
# thread about 20 ms (`aclrtSetDevice` on a device not yet open), and a single thread does
# those openings one at a time.
#
# ## Pattern 2 · One thread per device
#
# Each thread sets its own device (`SetDevice` is per thread) and drives it alone.

# %%
sandbox.configure(device_count=4)
acl.init()
threads = [threading.Thread(target=thread_program, args=(d,), name=f"dev{d}") for d in DEVICES]
for t in threads:
    t.start()
for t in threads:
    t.join()
threads_end = sandbox.now()
sandbox.gantt()

# %% [markdown]
# Each thread's row shows its own calls. Device 0 starts first: the first `SetDevice` of a
# process sets up the runtime for the whole process (1 s), and the other threads' openings
# wait for it; then they open devices 1, 2 and 3 at the same time, 20 ms each.
#
# ## Pattern 3 · One single-threaded process per device
#
# `sandbox.spawn_process(fn, *args)` starts `fn` as the main thread of a new simulated
# process: its own `aclInit`, its own contexts, sharing only the devices with the other
# processes. Each process pays for its own runtime start-up, but they pay it in parallel.

# %%
def single_threaded_process(device):
    acl.init()
    thread_program(device)
    acl.finalize()


sandbox.configure(device_count=4)
procs = [sandbox.spawn_process(single_threaded_process, d, name=f"proc{d}") for d in DEVICES]
for p in procs:
    p.join()
processes_end = sandbox.now()
sandbox.gantt()

# %% [markdown]
# All four devices start together: nothing is shared between the processes' runtimes, so
# no process waits for another one's set-up.
#
# ## Pattern 4 · Several processes, several threads each
#
# Two processes, each with two threads, each thread driving its own device:

# %%
def process_with_threads(devices):
    acl.init()
    ts = [threading.Thread(target=thread_program, args=(d,), name=f"dev{d}") for d in devices]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    acl.finalize()


sandbox.configure(device_count=4)
procs = [sandbox.spawn_process(process_with_threads, devs, name=f"proc{i}")
         for i, devs in enumerate(((0, 1), (2, 3)))]
for p in procs:
    p.join()
mixed_end = sandbox.now()
sandbox.gantt()

# %% [markdown]
# Within each process the second thread's device opens 20 ms after the first (it waits for
# its process's start-up); the two processes start up side by side. Side by side, in virtual time from the start of the
# program to the last thread's end:

# %%
for name, end in (("1 thread, 4 devices", one_thread_end), ("4 threads", threads_end),
                  ("4 processes", processes_end), ("2 processes x 2 threads", mixed_end)):
    print(f"{name:<26} {end / 1e6:9.3f} ms")

# %% [markdown]
# Every pattern keeps all four devices busy at once; they differ in how long the host
# spends getting there (device openings in one process follow each other) and in what the
# program has to manage (one thread switching devices vs. one device per thread or process).
#
# ## Why the output is the same every run: the deterministic turn
#
# Real threads run whenever the operating system lets them, so a real multi-threaded
# program interleaves its calls differently on every run. In the sandbox every host thread
# has a **virtual clock**, and threads take turns: the thread whose clock is furthest behind
# makes the next runtime call (ties go to the lower thread number). A thread waiting in a
# synchronize is parked until the device work it waits for is done in virtual time. So the
# order of calls depends only on the program, never on the real scheduler.
#
# Run pattern 2 twice and compare everything the trace says:

# %%
def run_pattern_2():
    sandbox.configure(device_count=4)
    acl.init()
    ts = [threading.Thread(target=thread_program, args=(d,), name=f"dev{d}") for d in DEVICES]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return f"{sandbox.summary()}\n{sandbox.gantt()}"


first, second = run_pattern_2(), run_pattern_2()
print("identical:", first == second)
print(first)

# %% [markdown]
# ## Processes sharing one device
#
# Processes can also share a device. They then share its 24 AI Cores: a kernel launched
# with `block_dim` 24 takes all of them, so two such kernels from two processes cannot run
# at the same time. The physical view (one row per engine) shows the AI Core of device 0
# running one kernel after the other:

# %%
def on_device_0(block_dim):
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    long_kernel[block_dim, stream](buf)
    long_kernel[block_dim, stream](buf)
    acl.rt.synchronize_stream(stream)
    acl.rt.free(buf)
    acl.rt.reset_device(0)
    acl.finalize()


def two_processes_on_device_0(block_dim):
    sandbox.configure(device_count=1)
    ps = [sandbox.spawn_process(on_device_0, block_dim, name=f"P{i}") for i in (1, 2)]
    for p in ps:
        p.join()
    return sandbox.now()


end_full = two_processes_on_device_0(24)
sandbox.gantt(view="physical")

# %% [markdown]
# With `block_dim` 12 each kernel takes half the cores (and, with a fixed 100 ms per
# kernel here, no longer), so the two processes' kernels run side by side:

# %%
end_half = two_processes_on_device_0(12)
print(f"block_dim 24: {end_full / 1e6:.3f} ms, block_dim 12: {end_half / 1e6:.3f} ms")
sandbox.gantt(view="physical")

# %% [markdown]
# On real hardware a kernel with fewer blocks usually takes longer, since each core does
# more of the work; what cannot change is the number of cores the device has, and every
# process on it shares them.
#
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("06.1", solution)`
# runs **your** function on a fresh simulated machine of its own (four 910B devices, or one
# for 06.3), with input chunks it makes up each time, and judges the whole run from the
# trace: whether each answer is right and came back from the device it belongs to, which
# host threads and processes launched the kernels, and whether the devices worked at the
# same moment. Threads and processes your function starts run on that machine too; join
# them all before you return. The cells below hold stubs, so their verdict is `✘` until you
# write the code.
#
# All three exercises square chunks of `N` float32 values with the `square` kernel below
# (200 ms on the device, however many blocks it is launched with), one chunk per device.

# %%
import numpy as np

import sandbox.teach                # sandbox.teach.check: the grader

N = 256 * 1024                     # float32 elements per chunk (1 MiB)
NBYTES = 4 * N
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST


@sandbox.kernel(ns=200_000_000)    # 200 ms, whatever block_dim it gets
def square(x: "float32*", n: int):
    x[:n] = x[:n] * x[:n]

# %% [markdown]
# ### Exercise 06.1 · one thread, four devices
#
# *Practises:* pattern 1, driving several devices from one host thread: switching the
# current device with `set_device`, and queuing on every device before waiting for any.
#
# `chunks` is a list of four float32 arrays of `N` elements. Square chunk `d` on device `d`
# with `square[8, stream](dev, N)` and return the four squares, in order, as a list. Use
# the solution's own thread only (start no threads). The grader wants:
#
# * each square right, computed by the kernel on its device and copied back from there;
# * every kernel launched by the one host thread of the one process;
# * all four devices busy at the same moment: a synchronize before you switch to the next
#   device makes them run one after another.

# %% nbgrader={"grade": false, "grade_id": "ex06_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(chunks):
    """Square chunks[d] on device d (d = 0..3) from this one thread; return the 4 squares."""
    # TODO: acl.init(); for each device: set_device(d), a stream, a pinned and a device buffer,
    # copy in, square[8, stream](dev, N), copy back. Only then, device by device: set_device(d),
    # synchronize its stream, read the result (.copy()), free, reset_device(d). acl.finalize().
    # Hint: a stream belongs to its device: make d current again before you synchronize it.
    ### BEGIN SOLUTION
    acl.init()
    queued = []
    for d, x in zip(DEVICES, chunks):
        acl.rt.set_device(d)
        stream, _ = acl.rt.create_stream()
        host, _ = acl.rt.malloc_host(NBYTES)
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
        acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, stream)
        square[8, stream](dev, N)
        acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, stream)
        queued.append((d, stream, host, dev))
    squares = []
    for d, stream, host, dev in queued:
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(stream)
        squares.append(acl.util.ptr_to_numpy(host, (N,), np.float32).copy())
        acl.rt.free(dev)
        acl.rt.free_host(host)
        acl.rt.destroy_stream(stream)
        acl.rt.reset_device(d)
    acl.finalize()
    return squares
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex06_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("06.1", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("06.1", solution)

# %% [markdown]
# ### Exercise 06.2 · one thread per device
#
# *Practises:* pattern 2: one host thread per device, `set_device` called **in** that thread
# (the current device and context belong to the thread that set them), and joining every
# thread before returning.
#
# The same squares, now from four `threading.Thread`s that your function starts: thread `d`
# does all of device `d`'s work (set_device, stream, buffers, copies, `square[8, stream]`,
# synchronize, read, free, reset) and puts its square at index `d` of a list your function
# made. Your function only calls `acl.init()`, starts the threads, joins them, calls
# `acl.finalize()` and returns the list. The grader wants:
#
# * each square right, computed on its device and copied back from there;
# * kernels launched from exactly 4 threads of 1 process, each thread on one device, each
#   device by one thread, none by the solution's own thread;
# * all four devices busy at the same moment (start all four threads before joining any).

# %% nbgrader={"grade": false, "grade_id": "ex06_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(chunks):
    """Square chunks[d] on device d, each device driven by a host thread of its own."""
    # TODO: write the body of one thread (it gets d, its chunk and the shared list), start
    # four threading.Threads, then join them all.
    # Hint: set_device holds for the calling thread only: a thread that has not called it has
    # no current context, and its create_stream fails with ACL_ERROR_RT_CONTEXT_NULL (107002).
    ### BEGIN SOLUTION
    squares = [None] * len(DEVICES)

    def one_device(d, x):
        acl.rt.set_device(d)
        stream, _ = acl.rt.create_stream()
        host, _ = acl.rt.malloc_host(NBYTES)
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
        acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, stream)
        square[8, stream](dev, N)
        acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, stream)
        acl.rt.synchronize_stream(stream)
        squares[d] = acl.util.ptr_to_numpy(host, (N,), np.float32).copy()
        acl.rt.free(dev)
        acl.rt.free_host(host)
        acl.rt.destroy_stream(stream)
        acl.rt.reset_device(d)

    acl.init()
    threads = [threading.Thread(target=one_device, args=(d, x), name=f"dev{d}")
               for d, x in zip(DEVICES, chunks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    acl.finalize()
    return squares
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex06_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("06.2", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("06.2", solution)

# %% [markdown]
# ### Exercise 06.3 · two processes share device 0
#
# *Practises:* `sandbox.spawn_process`: processes with runtimes of their own that share one
# device, and its AI Cores, at the same time.
#
# The grader's machine has **one** device. `chunks` holds two chunks; square each in a
# process of its own on device 0: start both with `sandbox.spawn_process(fn, ...)`, then join
# both. Each process does `acl.init()`, `set_device(0)`, its stream, buffers, copies, kernel,
# synchronize and clean-up, `acl.finalize()`, and puts its square at its index of a list your
# function made (simulated processes share the Python interpreter, so a list works as the way
# back). The grader wants:
#
# * both squares right, computed on device 0 and copied back from there;
# * the kernels launched by 2 spawned processes, one chunk each, none by your function's
#   own process;
# * kernels of the two processes running on device 0 **at the same moment**. A kernel with
#   `block_dim` 24 takes all 24 AI Cores, so the other process's kernel waits for it.

# %% nbgrader={"grade": false, "grade_id": "ex06_3", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(chunks):
    """Square each of the two chunks in a process of its own, both on device 0, side by side."""
    # TODO: write the body of one process, spawn two of them, join both, return the list.
    # Hint: how many blocks can each kernel have so that two fit on 24 cores at once?
    ### BEGIN SOLUTION
    squares = [None] * len(chunks)

    def one_process(i, x):
        acl.init()
        acl.rt.set_device(0)
        stream, _ = acl.rt.create_stream()
        host, _ = acl.rt.malloc_host(NBYTES)
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
        acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, stream)
        square[12, stream](dev, N)                 # half of the 24 cores: room for the other one
        acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, stream)
        acl.rt.synchronize_stream(stream)
        squares[i] = acl.util.ptr_to_numpy(host, (N,), np.float32).copy()
        acl.rt.free(dev)
        acl.rt.free_host(host)
        acl.rt.destroy_stream(stream)
        acl.rt.reset_device(0)
        acl.finalize()

    procs = [sandbox.spawn_process(one_process, i, x, name=f"P{i}") for i, x in enumerate(chunks)]
    for p in procs:
        p.join()
    return squares
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex06_3_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("06.3", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("06.3", solution)

# %% [markdown]
# ## Summary
#
# You can drive several devices from one host thread (switching with `set_device`, queuing
# on all before waiting on any), from one thread per device (each thread sets its own
# device), or from several processes, which may also share one device and its cores. The
# sandbox's turn order makes every one of these runs the same each time. Next, notebook 07
# lets the stream call the host back: callbacks and host functions.
