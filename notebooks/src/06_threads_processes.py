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
# Each exercise cell runs the **reference solution** and its check. Replace the body with
# your own attempt and run it: the check prints ✓ or ✗ with a hint.
#
# **Exercise 1 · One thread per device.** From one process, drive devices 0–3 with four
# host threads (each thread launching on its own device) so that all four devices are
# busy at the same moment.

# %%
from sandbox import teach

sandbox.configure(device_count=4)
acl.init()
ts = [threading.Thread(target=thread_program, args=(d,), name=f"dev{d}") for d in DEVICES]
for t in ts:
    t.start()
for t in ts:
    t.join()
teach.grade(teach.check_devices_together(devices=DEVICES),
            teach.check_launchers(threads=4, processes=1))

# %% [markdown]
# **Exercise 2 · Share a device.** Start two processes that both launch `long_kernel` on
# device 0, so that kernels of the two processes run **at the same time** on it.

# %%
sandbox.configure(device_count=1)
ps = [sandbox.spawn_process(on_device_0, 12, name=f"P{i}") for i in (1, 2)]
for p in ps:
    p.join()
teach.grade(teach.check_no_errors(),
            teach.check_shared_device(device=0, processes=2))
