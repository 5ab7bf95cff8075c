# %% [markdown]
# # 02 · Asynchronous execution: overlapping copies with compute
#
# The asynchronous-execution article (seed 003) measures its vector addition on an Ascend 310B:
#
# | mode | data copies | compute | total |
# |---|---|---|---|
# | synchronous | 8.2 ms | 3.5 ms | 11.7 ms (8.2 + 3.5) |
# | asynchronous | 8.2 ms | 3.5 ms | 8.5 ms (≈ max(8.2, 3.5)) |
#
# The idea: the DMA engines move data and the AI Core computes; they are separate hardware,
# so while one chunk is being computed the next can be copied. This notebook rebuilds that
# table on the sandbox's 310B profile, shows why the seed's single-stream program cannot get
# the second row by itself, and builds the double-buffered version that does.

# %%
import warnings

import numpy as np

import sandbox
from sandbox import acl, teach

N = 1024 * 1024                     # int32 elements per vector
NBYTES = 4 * N                      # 4 MiB
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
HUGE = acl.ACL_MEM_MALLOC_HUGE_FIRST

p = sandbox.get_profile("ascend310b")
print(f"{p.soc_name}: {p.ai_cores} AI Core, pinned copies {p.h2d_pinned / 1e9:.3f} GB/s each way")
print(f"3 x 4 MiB at that rate: {3 * NBYTES / p.h2d_pinned * 1e3:.2f} ms")

# %% [markdown]
# ## The kernel's cost
#
# The profile's copy bandwidth is calibrated on the seed's measurement (3 × 4 MiB in 8.2 ms).
# For the kernel we **declare the time**: `ns=3_500_000` for the full 1 Mi elements, scaled by
# the elements a launch covers so that chunks cost their share. (A `bytes=` figure would be
# timed against the profile's assumed 51.2 GB/s device memory: 12 MiB would take only 0.25 ms,
# so a bytes figure matching 3.5 ms would have to claim about 179 MB of traffic. The seed
# measured 3.5 ms; declaring it is the honest choice.)

# %%
@sandbox.kernel(ns=lambda a, b, c, n: 3_500_000 * n // N)
def add(a: "int32*", b: "int32*", c: "int32*", n: int):
    c[:n] = a[:n] + b[:n]


def board(streams=1):
    """A fresh 310B with acl initialised, device 0 set, pinned inputs filled, device buffers."""
    sandbox.configure("ascend310b")
    acl.init()
    acl.rt.set_device(0)
    ss = [acl.rt.create_stream()[0] for _ in range(streams)]
    hosts = [acl.rt.malloc_host(NBYTES)[0] for _ in range(3)]
    acl.util.ptr_to_numpy(hosts[0], (N,), np.int32)[:] = np.arange(N)
    acl.util.ptr_to_numpy(hosts[1], (N,), np.int32)[:] = N - np.arange(N)
    return ss, hosts


def result(host_c):
    return acl.util.ptr_to_numpy(host_c, (N,), np.int32).copy()


rows = {}


def measure(name):
    """Copy busy time, compute busy time and the span between the marks 'start' and 'end'."""
    b = teach.busy(start="start", end="end")
    rows[name] = b
    print(f"{name}: copies {b['copy'] / 1e6:.1f} ms, compute {b['compute'] / 1e6:.1f} ms, "
          f"overlap {b['overlap'] / 1e6:.1f} ms, total {b['span'] / 1e6:.1f} ms")

# %% [markdown]
# ## Row 1 · synchronous
#
# Blocking copies (`aclrtMemcpy`) return only when the bytes have arrived, so the host does one
# thing at a time: copy, copy, launch and wait, copy back.
#
# | C | Python |
# |---|---|
# | `aclrtMemcpy(devA, byteSize, hostA, byteSize, ACL_MEMCPY_HOST_TO_DEVICE)` | `acl.rt.memcpy(dev_a, NBYTES, host_a, NBYTES, H2D)` |
# | `aclrtSynchronizeStream(stream)` | `acl.rt.synchronize_stream(stream)` |

# %%
(s,), (ha, hb, hc) = board()
da, db, dc = (acl.rt.malloc(NBYTES, HUGE)[0] for _ in range(3))
teach.mark("start")
acl.rt.memcpy(da, NBYTES, ha, NBYTES, H2D)      # C: aclrtMemcpy(devA, byteSize, hostA, byteSize, ACL_MEMCPY_HOST_TO_DEVICE);
acl.rt.memcpy(db, NBYTES, hb, NBYTES, H2D)
add[1, s](da, db, dc, N)
acl.rt.synchronize_stream(s)
acl.rt.memcpy(hc, NBYTES, dc, NBYTES, D2H)      # C: aclrtMemcpy(hostC, byteSize, devC, byteSize, ACL_MEMCPY_DEVICE_TO_HOST);
teach.mark("end")
measure("synchronous")
print("correct:", bool((result(hc) == N).all()))

# %% [markdown]
# ## Row 2, first try · the seed's program: async calls on one stream
#
# The seed's C program uses `aclrtMemcpyAsync` and one stream. The host now queues everything
# at once and waits once — but the device time does not change:

# %%
(s,), (ha, hb, hc) = board()
da, db, dc = (acl.rt.malloc(NBYTES, HUGE)[0] for _ in range(3))
teach.mark("start")
# C: aclrtMemcpyAsync(devA, byteSize, hostA, byteSize, ACL_MEMCPY_HOST_TO_DEVICE, stream);
acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
add[1, s](da, db, dc, N)                        # C: AddKernel<<<grid, block, 0, stream>>>(...);
acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
queued = sandbox.now()
acl.rt.synchronize_stream(s)                    # C: aclrtSynchronizeStream(stream);
teach.mark("end")
measure("async, one stream")
print(f"the host had queued all four tasks {(queued - teach.window(start='start')[0]) / 1e3:.0f} µs after 'start'")

# %% [markdown]
# ### Why one stream cannot overlap
#
# A stream is an in-order queue: a task starts only when the one before it in the same stream
# has finished. Here each task also *needs* the one before (the add needs both inputs; the copy
# back needs the sum), so there is nothing to overlap: in the Gantt chart the stream's four
# bars sit end to end, and the host's synchronize (red) covers all of them. Asynchronous calls
# free the **host**; they do not by themselves make the **device** do two things at once.

# %%
sandbox.gantt()

# %% [markdown]
# ## Reading before synchronising shows stale data
#
# `aclrtMemcpyAsync` returns before the bytes move. In the sandbox, as on hardware, the host
# buffer changes only when the copy completes in (simulated) time. Read `host_c` right after
# queuing and you get what was there before — zeros here:

# %%
(s,), (ha, hb, hc) = board()
da, db, dc = (acl.rt.malloc(NBYTES, HUGE)[0] for _ in range(3))
acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
add[1, s](da, db, dc, N)
acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
with warnings.catch_warnings():        # the sandbox also warns about this read (notebook 09)
    warnings.simplefilter("ignore")
    early = result(hc)
acl.rt.synchronize_stream(s)
late = result(hc)
print("before synchronize: c[:3] =", early[:3], " after:", late[:3])
teach.check_equal(early, np.full(N, N), what="result read before synchronize")

# %% [markdown]
# ## Row 2 for real · double buffering over two streams with events
#
# To overlap, split the vectors into chunks and pipeline them: while the AI Core adds chunk
# *i*, the H2D engine loads chunk *i + 1* and the D2H engine returns chunk *i − 1*. Two device
# buffer sets (slots 0 and 1) alternate — that is the *double buffer* — and two streams carry
# the work:
#
# * the **copy stream** loads chunk *i* into slot *i mod 2*, then records event `loaded[slot]`;
# * the **compute stream** waits for `loaded[slot]`, adds, copies the chunk back, then records
#   `done[slot]`;
# * before the copy stream overwrites a slot (chunk *i + 2*), it waits for `done[slot]`.
#
# | C | Python |
# |---|---|
# | `aclrtCreateEvent(&ev)` | `ev, ret = acl.rt.create_event()` |
# | `aclrtRecordEvent(ev, copyStream)` | `acl.rt.record_event(ev, copy_s)` |
# | `aclrtStreamWaitEvent(computeStream, ev)` | `acl.rt.stream_wait_event(compute_s, ev)` |
#
# The events make the dependencies explicit across streams; everything else may overlap.

# %%
def double_buffered(chunks=8):
    (copy_s, compute_s), (ha, hb, hc) = board(streams=2)
    step = N // chunks
    cb = 4 * step                                           # bytes per chunk
    slots = [[acl.rt.malloc(cb, HUGE)[0] for _ in range(3)] for _ in range(2)]
    loaded = [acl.rt.create_event()[0] for _ in range(2)]
    done = [acl.rt.create_event()[0] for _ in range(2)]
    teach.mark("start")
    for i in range(chunks):
        slot, off = i % 2, i * cb
        da, db, dc = slots[slot]
        if i >= 2:                                          # slot still in use by chunk i - 2?
            acl.rt.stream_wait_event(copy_s, done[slot])
        acl.rt.memcpy_async(da, cb, ha + off, cb, H2D, copy_s)
        acl.rt.memcpy_async(db, cb, hb + off, cb, H2D, copy_s)
        acl.rt.record_event(loaded[slot], copy_s)           # C: aclrtRecordEvent(loaded[slot], copyStream);
        acl.rt.stream_wait_event(compute_s, loaded[slot])   # C: aclrtStreamWaitEvent(computeStream, loaded[slot]);
        add[1, compute_s](da, db, dc, step)
        acl.rt.memcpy_async(hc + off, cb, dc, cb, D2H, compute_s)
        acl.rt.record_event(done[slot], compute_s)
    acl.rt.synchronize_stream(compute_s)
    teach.mark("end")
    return result(hc)


c = double_buffered(chunks=8)
measure("double buffered, 8 chunks")
print("correct:", bool((c == N).all()))

# %% [markdown]
# The logical view has a row per stream; the arrows are the event waits (record on one stream →
# the wait it releases on the other). Copies of one chunk now run beside the add of another.

# %%
sandbox.gantt()

# %% [markdown]
# The physical view has a row per engine. On this board one DMA engine carries the copies of
# both directions, so it is busy almost all the time; the AI Core works beside it.

# %%
sandbox.gantt(view="physical")

# %% [markdown]
# ### How close to the bound?
#
# More chunks mean a shorter pipeline fill at the start and drain at the end, so the total
# approaches the busiest engine's time. Here that is the DMA engine: on the 310B board the
# host and the NPU share one memory, and the profile gives copies in and out one engine, as the
# seed's table does. So the bound is max(8.2, 3.5) = 8.2 ms of copies; what is left above it is
# the fill (the first chunk's loads, with nothing to add yet), the drain (the last chunk's add
# and copy back) and each copy's start-up latency, which more chunks pay more often: past
# about 16 chunks the total grows again.

# %%
for k in (1, 2, 4, 8, 16, 32):
    double_buffered(chunks=k)
    b = teach.busy(start="start", end="end")
    print(f"{k:>2} chunks: total {b['span'] / 1e6:5.2f} ms, overlap {b['overlap'] / 1e6:4.2f} ms "
          f"({b['overlap'] / min(b['copy'], b['compute']):4.0%} of the compute)")

# %% [markdown]
# ## The rebuilt table
#
# Copy and compute are busy times (union of the bars); overlap is the time both ran at once.

# %%
print(f"{'mode':<28}{'copies':>9}{'compute':>10}{'overlap':>10}{'total':>9}")
for name, b in rows.items():
    print(f"{name:<28}{b['copy'] / 1e6:>6.1f} ms{b['compute'] / 1e6:>7.1f} ms"
          f"{b['overlap'] / 1e6:>7.1f} ms{b['span'] / 1e6:>6.1f} ms")
print(f"{'seed 003: synchronous':<28}{8.2:>6.1f} ms{3.5:>7.1f} ms{'':>10}{11.7:>6.1f} ms")
print(f"{'seed 003: asynchronous':<28}{8.2:>6.1f} ms{3.5:>7.1f} ms{'':>10}{8.5:>6.1f} ms")

# %% [markdown]
# In the double-buffered row the copies take a little more than 8.2 ms: 24 copies instead of 3,
# each with its start-up latency. The seed's 8.5 ms is max(8.2, 3.5) plus a little; the sandbox
# lands within a few percent of it.
#
# ## Exercise · pipeline it
#
# Write a version of the vector addition that finishes **within 9 ms** (the seed measured
# 8.5 ms; 9 ms leaves room for the fill and drain of your pipeline) from mark
# `"start"` to mark `"end"`, with at least **80 %** of the compute overlapped by copies, and a
# correct result. Keep `teach.mark("start")` before your first copy and `teach.mark("end")` after
# your last synchronize. The cell below runs the reference solution (double buffering with 8
# chunks); replace the body of `attempt` with your own and run it again.
#
# Hints: one stream cannot overlap; chunks on two streams can; events keep a slot from being
# overwritten before the chunk in it has been added and copied back.

# %%
def attempt():
    return double_buffered(chunks=8)


c = attempt()
teach.grade(teach.check_time(at_most_ns=9_000_000, start="start", end="end"),
            teach.check_overlap(at_least_fraction=0.8, start="start", end="end"),
            teach.check_equal(c, np.full(N, N), what="vector sum"))

# %% [markdown]
# And here is what the grader says about the seed's one-stream program:

# %%
def one_stream():
    (s,), (ha, hb, hc) = board()
    da, db, dc = (acl.rt.malloc(NBYTES, HUGE)[0] for _ in range(3))
    teach.mark("start")
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    teach.mark("end")
    return result(hc)


c = one_stream()
teach.grade(teach.check_time(at_most_ns=9_000_000, start="start", end="end"),
            teach.check_overlap(at_least_fraction=0.8, start="start", end="end"),
            teach.check_equal(c, np.full(N, N), what="vector sum"))
