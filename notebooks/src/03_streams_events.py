# %% [markdown]
# # 03 · Streams and events
#
# A **stream** is an in-order queue of device work; different streams run independently, so
# their tasks may run at the same time. An **event** is a marker placed in a stream: it
# completes when the work queued before it has finished. Events let one stream wait for
# another without stopping the host, let the host wait for one point in a stream, and time
# device work.
#
# | C | Python | what it does |
# |---|---|---|
# | `aclrtCreateStream(&s)` | `s, ret = acl.rt.create_stream()` | a new in-order queue |
# | `aclrtCreateStreamWithConfig(&s, priority, flag)` | `s, ret = acl.rt.create_stream_with_config(priority, flag)` | with a priority (0 highest … 7 lowest) |
# | `aclrtCreateEvent(&e)` | `e, ret = acl.rt.create_event()` | an event |
# | `aclrtRecordEvent(e, s)` | `acl.rt.record_event(e, s)` | mark "everything queued on `s` so far" |
# | `aclrtStreamWaitEvent(s2, e)` | `acl.rt.stream_wait_event(s2, e)` | later work of `s2` waits for that mark |
# | `aclrtSynchronizeEvent(e)` | `acl.rt.synchronize_event(e)` | the host waits for the mark |
# | `aclrtQueryEventStatus(e, &st)` | `st, ret = acl.rt.query_event_status(e)` | has the mark been reached? (never waits) |
# | `aclrtStreamQuery(s, &st)` | `st, ret = acl.rt.stream_query(s)` | is the stream idle? (never waits) |
# | `aclrtEventElapsedTime(&ms, e0, e1)` | `ms, ret = acl.rt.event_elapsed_time(e0, e1)` | device time between two marks |

# %%
import numpy as np

import sandbox
from sandbox import acl, teach

HUGE = acl.ACL_MEM_MALLOC_HUGE_FIRST
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST


@sandbox.kernel(ns=2_000_000)                 # 2 ms
def long_op(x: "uint32*"):
    x[0] += 1


@sandbox.kernel(ns=100_000)                   # 0.1 ms
def short_op(x: "uint32*"):
    x[0] *= 2


@sandbox.kernel(ns=lambda t: t)               # as long as we ask, touching no memory
def work(t: int):
    pass


def fresh(profile="ascend910b", devices=None):
    """A fresh machine with acl initialised and device 0 set."""
    sandbox.configure(profile, devices)
    acl.init()
    acl.rt.set_device(0)

# %% [markdown]
# ## Several streams run at the same time
#
# The 910B has 24 AI Cores. A kernel launched with `block_dim` 8 takes 8 of them, so three such
# kernels can run together — if they are on different streams. On one stream they queue.

# %%
def three_kernels(streams):
    fresh()
    ss = [acl.rt.create_stream()[0] for _ in range(streams)]
    teach.mark("start")
    for i in range(3):
        work[8, ss[i % streams]](1_000_000)
    acl.rt.synchronize_device()
    teach.mark("end")
    return teach.window(start="start", end="end")


for n in (1, 3):
    lo, hi = three_kernels(n)
    print(f"{n} stream{'s' if n > 1 else ''}: three 1 ms kernels took {(hi - lo) / 1e6:.3f} ms")

# %%
sandbox.gantt(view="physical")

# %% [markdown]
# (The physical view puts each concurrently running kernel in its own AI Core lane.)
#
# ## Ordering two streams: the official multi-stream sample
#
# The runtime repository's stream sample (`example/1_basic_features/stream/2_multi_stream`) runs
# a long kernel (`x += 1`) on stream 1 and a short one (`x *= 2`) on stream 2, on the same
# number `x = 0`. The intended answer is 2: first add, then double. The sample shows three ways
# to get that order; we take two of them:
#
# 1. **stream synchronisation**: the host waits for stream 1 before launching on stream 2;
# 2. **event synchronisation**: record an event on stream 1, make stream 2 wait for it; the
#    host waits only at the end (on an event recorded after the short kernel).
#
# Without any ordering the short kernel, being ready first, runs first: (0 × 2) + 1 = 1.
# The sandbox says so as it happens: the unordered run raises a `HazardWarning` (under the
# cell) naming the two streams that touch `dev_x` with nothing ordering them. That warning is
# the point of this section; notebook 09 explains how the sandbox finds such races.

# %%
def two_streams(order):
    fresh()
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    x = np.zeros(1, np.uint32)
    dev_x, _ = acl.rt.malloc(4, HUGE)
    acl.rt.memcpy(dev_x, 4, acl.util.numpy_to_ptr(x), 4, H2D)
    long_op[1, s1](dev_x)
    if order == "stream":
        acl.rt.synchronize_stream(s1)           # C: aclrtSynchronizeStream(stream1);
    elif order == "event":
        ev, _ = acl.rt.create_event()           # C: aclrtCreateEvent(&event);
        acl.rt.record_event(ev, s1)             # C: aclrtRecordEvent(event, stream1);
        acl.rt.stream_wait_event(s2, ev)        # C: aclrtStreamWaitEvent(stream2, event);
    short_op[1, s2](dev_x)                      # unordered: a HazardWarning (notebook 09)
    acl.rt.synchronize_device()
    acl.rt.memcpy(acl.util.numpy_to_ptr(x), 4, dev_x, 4, D2H)
    return int(x[0])


for order in ("none", "stream", "event"):
    print(f"ordering by {order:>6}: x = {two_streams(order)}, "
          f"synchronize calls: {teach.sync_calls()}")

# %% [markdown]
# The last run (event ordering) in the logical view: the arrow goes from the event record on
# stream 1 to the wait on stream 2 that it released. The host never stopped between the two
# launches.

# %%
sandbox.gantt()

# %% [markdown]
# ## Timing with events
#
# The runtime's own timing sample (`example/1_basic_features/event/1_event_timestamp`) records
# an event before and one after a task, synchronises, and asks for the elapsed time — first
# for a short task, then for a long one. Event times are read from the device's timestamp
# counter, so they come in whole ticks: 20 ns on the 910B (a 50 MHz counter) and 1/48 000 ms ≈
# 20.8 ns on the 310B.
#
# Notice what the interval holds besides the kernel body: the start event completes as soon as
# it reaches the device, but the kernel arrives only when the host's launch call is done (8.6 µs
# on the 910B, 15 µs on the slower 310B board CPU), and the device needs a few µs to start it.
# For short kernels that overhead dominates.

# %%
def time_kernel(profile, ns):
    fresh(profile)
    s, _ = acl.rt.create_stream()
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    acl.rt.record_event(start, s)               # C: aclrtRecordEvent(startEvent, stream);
    work[1, s](ns)
    acl.rt.record_event(end, s)                 # C: aclrtRecordEvent(endEvent, stream);
    acl.rt.synchronize_stream(s)
    ms, ret = acl.rt.event_elapsed_time(start, end)   # C: aclrtEventElapsedTime(&ms, startEvent, endEvent);
    return ms, ret


for profile in ("ascend910b", "ascend310b"):
    res = sandbox.get_profile(profile).timer_resolution_ns
    for ns in (1_000, 50_000):
        ms, ret = time_kernel(profile, ns)
        print(f"{profile}: kernel body {ns / 1e3:>4.0f} µs -> elapsed {ms:.6f} ms "
              f"(ret {ret}, timer resolution {res:.1f} ns)")

# %% [markdown]
# Asking for the elapsed time **before** the end event has completed is an error, not a wrong
# number: the runtime returns `ACL_ERROR_RT_EVENT_NOT_COMPLETE`.

# %%
fresh()
s, _ = acl.rt.create_stream()
e0, _ = acl.rt.create_event()
e1, _ = acl.rt.create_event()
acl.rt.record_event(e0, s)
work[1, s](1_000_000)
acl.rt.record_event(e1, s)
ms, ret = acl.rt.event_elapsed_time(e0, e1)
print("without synchronising: ret", ret, ret == acl.ACL_ERROR_RT_EVENT_NOT_COMPLETE)
print(acl.get_recent_err_msg())

# %% [markdown]
# ## Query versus synchronize
#
# The runtime's event-status sample (`example/1_basic_features/event/0_event_status`) queries an
# event three times: right after creating it, after recording it behind a long task, and after
# synchronising. A query answers at once and never waits; a synchronize blocks the host until
# the device gets there. (The seed's code calls `aclrtQueryEvent`: that is the older,
# deprecated name of this query. Its status values are numbered the other way round, with
# `ACL_EVENT_STATUS_COMPLETE` 0, so compare with the named constants, never with 0 or 1.)

# %%
fresh()
s, _ = acl.rt.create_stream()
ev, _ = acl.rt.create_event()
names = {acl.ACL_EVENT_RECORDED_STATUS_COMPLETE: "complete",
         acl.ACL_EVENT_RECORDED_STATUS_NOT_READY: "not ready"}
status, _ = acl.rt.query_event_status(ev)           # C: aclrtQueryEventStatus(event, &status);
print("just created:        ", names[status])
work[1, s](2_000_000)
acl.rt.record_event(ev, s)
status, _ = acl.rt.query_event_status(ev)
print("recorded, not synced:", names[status])
acl.rt.synchronize_event(ev)                        # C: aclrtSynchronizeEvent(event);
status, _ = acl.rt.query_event_status(ev)
print("after synchronize:   ", names[status])

# %% [markdown]
# A query loop (polling) also gets there, but it keeps the host thread busy the whole time,
# and every query is a runtime call. Compare with one synchronize:

# %%
def wait_by(how):
    fresh()
    s, _ = acl.rt.create_stream()
    work[1, s](2_000_000)
    before, polls = sandbox.now(), 0
    if how == "polling":
        while acl.rt.stream_query(s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:   # C: aclrtStreamQuery(stream, &status)
            polls += 1
    else:
        acl.rt.synchronize_stream(s)
    return (sandbox.now() - before) / 1e6, polls, teach.api_calls()


for how in ("polling", "synchronize"):
    waited, polls, calls = wait_by(how)
    print(f"{how:>11}: host waited {waited:.3f} ms, {polls} not-ready answers, {calls} runtime calls in all")

# %% [markdown]
# ## Stream priority
#
# `aclrtCreateStreamWithConfig(&stream, priority, flag)` sets a priority from 0 (highest) to 7
# (lowest). It does not preempt anything: when several streams' tasks are waiting for the same
# engine, the highest-priority one goes first. The 910B honours it; the 310B and 310P ignore it
# (their streams all report priority 0).
#
# Below, a kernel that takes every AI Core runs first; then a low-priority stream and, later, a
# high-priority stream each queue a kernel that also needs every core.

# %%
def priorities(profile):
    fresh(profile)
    cores = sandbox.profile().ai_cores
    first, _ = acl.rt.create_stream()
    low, _ = acl.rt.create_stream_with_config(7, 0)     # C: aclrtCreateStreamWithConfig(&low, 7, 0);
    high, _ = acl.rt.create_stream_with_config(0, 0)
    work[cores, first](1_000_000)
    work[cores, low](1_000_000)                     # queued first
    work[cores, high](1_000_000)                    # queued second
    acl.rt.synchronize_device()
    ran = sorted((r.t, r.task) for r in sandbox.trace() if type(r).__name__ == "TaskStarted")
    order = {2: "low", 3: "high"}
    got = [acl.rt.stream_get_priority(h)[0] for h in (low, high)]
    print(f"{profile}: priorities reported {got}; after the first kernel ran: "
          f"{' then '.join(order[t] for _, t in ran if t in order)}")


priorities("ascend910b")
priorities("ascend310b")

# %% [markdown]
# ## Events and devices (briefly)
#
# An event belongs to the device that was current when it was created. Recording it on, or
# making a stream wait for it from, a stream of **another** device fails with
# `ACL_ERROR_RT_STREAM_CONTEXT` (107003). The host may still synchronise on or query an event
# of another device. Notebook 05 covers multi-device programs in full.

# %%
fresh("ascend910b", 2)
s0, _ = acl.rt.create_stream()
ev0, _ = acl.rt.create_event()                       # an event of device 0
acl.rt.record_event(ev0, s0)
acl.rt.set_device(1)
s1, _ = acl.rt.create_stream()                       # a stream of device 1
ret = acl.rt.record_event(ev0, s1)
print("record a device-0 event on a device-1 stream:", ret, ret == acl.ACL_ERROR_RT_STREAM_CONTEXT)
print(acl.get_recent_err_msg())
print("synchronize it from device 1:", acl.rt.synchronize_event(ev0))

# %% [markdown]
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("03.1", solution)`
# runs **your** function on a fresh simulated 910B of its own, with inputs it makes up each
# time, and judges the whole run from the trace: the kernels that ran, on which streams, in
# which order and what waited for what, as well as the answer and the numbers the exercise
# states. Before it calls your function the grader has initialised acl and set device 0, so do
# not call `fresh()` or `sandbox.configure()` in a solution; create your own streams, events
# and buffers. You need not free anything: the grader throws the machine away.
#
# ### Exercise 03.1 · run independent work side by side
#
# *Practises:* streams run independently, so kernels on different streams share the AI Cores.
#
# Four kernels `work[6, s](t)` (each takes `t` ns on 6 of the 24 AI Cores) have no dependencies.
# Launch them so that they run at the same time, then wait for them. The grader checks:
#
# * exactly four kernels, each `work[6, s](t)` with the `t` you are given;
# * each on its own stream, and all four running at the same moment;
# * no wait of the host (synchronize, query, sleep) between the launches; a wait at the end
#   that sees them finish;
# * at most **t + 0.5 ms** from the start of your function to the end of that wait.

# %% nbgrader={"grade": false, "grade_id": "ex03_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(t):
    """Run four work[6, s](t) kernels side by side on device 0 and wait until they are done."""
    # TODO: create the streams, launch one kernel on each, then wait once.
    # Hint: acl.rt.synchronize_device() waits for every stream of the device.
    ### BEGIN SOLUTION
    streams = [acl.rt.create_stream()[0] for _ in range(4)]
    for s in streams:
        work[6, s](t)
    acl.rt.synchronize_device()
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex03_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("03.1", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("03.1", solution)

# %% [markdown]
# ### Exercise 03.2 · order with an event, not the host
#
# *Practises:* `aclrtRecordEvent` and `aclrtStreamWaitEvent`: one stream waits for another on
# the device, while the host goes on.
#
# The multi-stream sample again, starting from `x = x0` (a `uint32` the grader gives you): copy
# `x0` to the device, run `long_op` (`x += 1`) on one stream and `short_op` (`x *= 2`) on a
# second stream, and return `x` copied back, a numpy array of shape `(1,)` and dtype `uint32`:
# `(x0 + 1) * 2`. The order must come from an event, not from the host. The grader checks, from
# the trace:
#
# * `x` is right, and is what a device-to-host copy brought back after the kernels, read after
#   the host learnt it had landed;
# * `long_op` once and `short_op` once, on **two different streams**;
# * an `aclrtStreamWaitEvent` on `short_op`'s stream, before it, for an event recorded on
#   `long_op`'s stream after `long_op`; on the device, `short_op` started after `long_op` ended;
# * the host launched `short_op` before `long_op` had ended (it did not wait for it);
# * **at most one** synchronize call in the whole program, at the end. Blocking copies
#   (`acl.rt.memcpy`) are fine for `x`, once the host has synchronised.

# %% nbgrader={"grade": false, "grade_id": "ex03_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x0):
    """Return (x0 + 1) * 2 as np.uint32 array of shape (1,): long_op on one stream, then
    short_op on another, ordered by an event."""
    x = np.array([x0], np.uint32)
    # TODO: two streams, a device buffer for x, the copy in, the two launches with an event
    # between the streams, one synchronize, the copy back.
    # Hint: two_streams("event") above does most of it; what must change?
    ### BEGIN SOLUTION
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    dev_x, _ = acl.rt.malloc(4, HUGE)
    acl.rt.memcpy(dev_x, 4, acl.util.numpy_to_ptr(x), 4, H2D)
    ev, _ = acl.rt.create_event()
    long_op[1, s1](dev_x)
    acl.rt.record_event(ev, s1)
    acl.rt.stream_wait_event(s2, ev)
    short_op[1, s2](dev_x)
    acl.rt.synchronize_stream(s2)
    acl.rt.memcpy(acl.util.numpy_to_ptr(x), 4, dev_x, 4, D2H)
    ### END SOLUTION
    return x

# %% nbgrader={"grade": true, "grade_id": "ex03_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("03.2", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("03.2", solution)

# %% [markdown]
# ### Exercise 03.3 · time a kernel without blocking
#
# *Practises:* timing with events, and querying an event instead of synchronising so that the
# host keeps working.
#
# Measure how long `work[1, s](ns)` takes on the device, as the timing sample does, but without
# ever blocking the host: record an event before the kernel and one after it on the same
# stream; then, until the end event has completed, call `other_work()` (below: 50 µs of the
# host's own work) between queries of the end event; then return what
# `acl.rt.event_elapsed_time` says, in milliseconds. The grader checks:
#
# * exactly one kernel, `work[1, s](ns)` with the `ns` you are given;
# * the two events given to `aclrtEventElapsedTime` were recorded on the kernel's stream,
#   before and after it;
# * the value returned is that elapsed time, as the device's timestamps give it (to the tick:
#   a host clock or the nominal `ns` will not do);
# * **no** synchronize call, and `other_work()` running for at least **75 %** of the kernel's
#   time on the device;
# * no failed call (asking for the elapsed time too early fails).

# %%
def other_work():
    """A slice of the host's own work: 50 µs on the calling thread."""
    sandbox.host_work(50_000, "other work")

# %% nbgrader={"grade": false, "grade_id": "ex03_3", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(ns):
    """Return the device time of work[1, s](ns) in ms, measured with two events, with the host
    calling other_work() while it waits."""
    # TODO: a stream, two events, record / launch / record, a query loop, the elapsed time.
    # Hint: acl.rt.query_event_status(e) returns (status, ret); compare the status with
    # acl.ACL_EVENT_RECORDED_STATUS_COMPLETE.
    ### BEGIN SOLUTION
    s, _ = acl.rt.create_stream()
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    acl.rt.record_event(start, s)
    work[1, s](ns)
    acl.rt.record_event(end, s)
    while acl.rt.query_event_status(end)[0] != acl.ACL_EVENT_RECORDED_STATUS_COMPLETE:
        other_work()
    ms, _ = acl.rt.event_elapsed_time(start, end)
    return ms
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex03_3_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("03.3", solution)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("03.3", solution)

# %% [markdown]
# ## Summary
#
# Work on different streams runs side by side; work on one stream runs in order. An event
# recorded on one stream and waited for on another orders the two on the device, without
# stopping the host, and the trace shows that edge. Events also time device work (in whole
# ticks of the device's timer), and a query answers at once where a synchronize blocks, so the
# host can keep working while it waits. Next, notebook 04 turns to device memory: allocation
# policies, pages, pinned copies and fragmentation.
