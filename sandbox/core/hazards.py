"""Hazard checks: races and misuse found by the program's ordering rules, not by its schedule.

The simulation is deterministic, so a racy program may well print the right numbers every
time.  These checks ask what the *rules* guarantee instead, with vector clocks:

* Every task gets a clock ``task.vc`` (stream handle -> id of the latest task of that stream
  known to come before it).  It inherits its stream's clock (stream order), the submitting
  host thread's clock, and for an event wait the clock of the record it waits for.
* A host thread's clock grows only when it *learns* that work is complete: a synchronize of
  a stream, event or device, a blocking copy, a query answering "complete", a joined thread.
  Submitting work teaches the host nothing.
* Task A comes before task B iff ``B.vc[A.stream] >= A.id``.
* A notify or value wait (core/features/notifies.py) may be released by a task submitted after it, so it is
  *held* until it ends: when it is released, it and every task not finished that comes after it
  join the releaser's clock (they can only run after it), and a race found meanwhile between
  tasks one of which comes after a held wait is reported then (at the call during which the
  device released it), unless the clocks now order the two.  A wait that never ends keeps its
  races: what comes after it never runs.

Each device task declares the bytes it reads and writes (copies: source read, destination
write; memsets: write; kernels: every pointer argument's view, read and write unless the
kernel declares ``reads``/``writes``).  The checks:

1. ``host_read``: acl.util.ptr_to_numpy / ptr_to_bytes (or a host-to-host copy) reads bytes
   that an async write not yet known complete to the reading thread may still change --
   even if the simulation happened to finish it already.
2. ``stream_race``: two tasks on different streams touch overlapping bytes, at least one
   writing, and neither comes before the other -- even if their run times did not overlap.
3. ``free_in_use``: aclrtFree / aclrtFreeHost / a pool free of memory that work not known
   complete still uses.
4. ``peer_access``: a copy between devices without peer access (the call fails, too).
5. ``use_after_reset``: a task or a host access touches device memory allocated before the
   last full reset of its device by its process (aclrtResetDevice to a count of 0, or
   aclrtResetDeviceForce).  The reset releases the default context and its streams, and the
   docs ask for memory to be freed before it (teardown order: free, destroy events, streams,
   contexts, then reset); what such a pointer does afterwards is undefined on hardware, and
   the runtime has no code for it, so it is a hazard and not a failed call.  The sandbox
   keeps the bytes (the program runs on, as on hardware it might), and says so once per buffer.

Each hazard is reported once per (kind, streams, buffer): a ``HazardWarning`` naming the
streams, tasks and the fix, and a ``trace.Hazard`` record.  The bookkeeping is a short list
of recent accesses per buffer: an access covered by a later ordered one is dropped.
"""
from __future__ import annotations

import os
import re
import sys
import types
import warnings
from typing import TYPE_CHECKING, Any

from . import trace as T
from .tasks import Task

if TYPE_CHECKING:
    from .objects import HostThread, Stream

MAX_ACCESSES = 64          # recent accesses remembered per buffer (older ones are forgotten)
# the package's folder, from its __init__ (a compiled module's own __file__ need not name its folder)
_PACKAGE_DIR = os.path.dirname(os.path.abspath(sys.modules[__name__.partition(".")[0]].__file__ or ""))


class HazardWarning(UserWarning):
    """A program error that the sandbox's deterministic schedule may hide."""


# -- warnings that point at the learner's line -------------------------------------------------
def emit(message: str, category) -> None:
    """Warn at the first frame outside the sandbox package, every time (no once-registry),
    so a notebook cell shows the same warnings on every run.  (The search starts at the innermost
    frame, this function's own: compiled code, tools/build_compiled.py, has no frames.)"""
    frame: types.FrameType | None = sys._getframe(0)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        filename, lineno, module = "<sandbox>", 0, "sandbox"
    else:
        filename, lineno = frame.f_code.co_filename, frame.f_lineno
        module = frame.f_globals.get("__name__", "sandbox")
    warnings.warn_explicit(message, category, filename, lineno, module=module, registry=None)


# -- the checker --------------------------------------------------------------------------------
class Access:
    """Bytes one task touched: what the ordering test and the messages need, not the task
    itself, so a finished task (and the data its effect held) is freed without waiting here."""
    start: int
    end: int
    write: bool
    handle: int
    id: int
    stream: Stream
    kind: str
    name: str
    vc: dict[int, int]
    __slots__ = tuple(__annotations__)      # (typed: the compiled build reads them as C fields)

    def __init__(self, start: int, end: int, write: bool, task: Task, vc: dict[int, int]):
        self.start, self.end, self.write, self.vc = start, end, write, vc   # vc: the task's own clock
        self.handle, self.id, self.stream = task.stream.handle, task.id, task.stream   # handle: the clocks' key
        self.kind, self.name = task.kind, task.name


class Checker:
    """One machine's clocks and recent accesses (the machine makes it at once: every task
    gets a clock, and every synchronize teaches the host one)."""

    def __init__(self, m):
        self.m = m
        self.stream_vc: dict[int, dict[int, int]] = {}     # stream handle -> clock after its last task
        self.host_vc: dict[int, dict[int, int]] = {}       # host thread tid -> what it knows is done
        self.accesses: dict[Any, list[Access]] = {}   # buffer -> [Access]; a free drops the buffer's entry
        self.reported: set = set()
        self.held: dict = {}           # held wait (Task) -> races found after it: [(buf, Access, Access)]
        self.resets = False            # has any device been fully reset? (until then no memory is stale)

    def task_submitted(self, th: HostThread, stream: Stream, task: Task) -> None:
        """A task entered ``stream`` (Machine.submit calls this for every task, before the
        ``submitted`` hooks): give it its clock, then check the bytes it touches."""
        handle = stream.handle
        after = self.stream_vc.get(handle)
        vc = dict(after) if after else {}
        known = self.host_vc.get(th.tid)
        if known:                         # (what the host learned: nothing, until it synchronizes)
            join(vc, known)
        dep = task.waits_on
        if dep is not None:
            join(vc, dep.vc)
        vc[handle] = task.id
        task.vc = vc
        self.stream_vc[handle] = vc
        for buf, offset, nbytes, write in task.access:
            if nbytes > 0:
                if self.resets and buf.kind == "device":
                    stale(self.m, th, buf, lambda: describe_task(task) + f" on {stream_name(stream)}", (task.id,))
                _device_access(self.m, self, th, buf, offset, offset + nbytes, write, task, vc)


def device_reset(m) -> None:
    """A process fully reset a device: memory it allocated there before is stale (``stale`` looks from now on)."""
    checker(m).resets = True


def checker(m) -> Checker:
    return m.hazards


def join(into: dict, other: dict | None) -> None:
    if other:
        for k, v in other.items():
            if into.get(k, 0) < v:
                into[k] = v


def clock_for(m, th, stream) -> dict:
    """The clock a task submitted now by ``th`` on ``stream`` would start from."""
    c = checker(m)
    vc = dict(c.stream_vc.get(stream.handle, ()))
    join(vc, c.host_vc.get(th.tid))
    return vc


def before(task, vc: dict) -> bool:
    """Does ``task`` come before whatever holds clock ``vc``?"""
    return vc.get(task.stream.handle, 0) >= task.id


# -- feeding the checker --------------------------------------------------------------------------
def _device_access(m, c: Checker, th, buf, start: int, end: int, write: bool, task: Task, vc: dict[int, int]) -> None:
    accesses = c.accesses.get(buf)
    if accesses is None:
        c.accesses[buf] = [Access(start, end, write, task, vc)]
        return
    covered = None
    for a in accesses:
        if a.end <= start or end <= a.start:
            continue
        if vc.get(a.handle, 0) >= a.id:      # ordered before ``task``
            if start <= a.start and a.end <= end and (write or not a.write):
                if covered is None:           # anything that races with ``a`` now races with ``task``
                    covered = [a]
                else:
                    covered.append(a)
        elif write or a.write:
            _race_or_hold(m, c, th, buf, a, Access(max(start, a.start), min(end, a.end), write, task, vc))
    if covered is not None:
        for a in covered:
            accesses.remove(a)
    if len(accesses) >= MAX_ACCESSES:
        del accesses[:len(accesses) - MAX_ACCESSES + 1]
    accesses.append(Access(start, end, write, task, vc))


def snapshot(m, items) -> list:
    """Clocks of these streams (their work submitted so far) and tasks, taken now."""
    stream_vc = checker(m).stream_vc
    return [item.vc if isinstance(item, Task) else stream_vc.get(item.handle) for item in items if item is not None]


def learn(m, th, items) -> None:
    """``th`` now knows that these streams' submitted work (or these tasks) are complete."""
    learned_clocks(m, th, snapshot(m, items))


def learned_clocks(m, th, clocks) -> None:
    hv = checker(m).host_vc.setdefault(th.tid, {})
    for vc in clocks:
        join(hv, vc)


def thread_started(m, parent, child) -> None:
    """What the parent knew when it started the child, the child knows too."""
    c = checker(m)
    c.host_vc[child.tid] = dict(c.host_vc.get(parent.tid, ()))


def thread_joined(m, caller, child) -> None:
    c = checker(m)
    join(c.host_vc.setdefault(caller.tid, {}), c.host_vc.get(child.tid))


def hold(m, wait) -> None:
    """``wait`` orders its stream after a task not known yet (a record or write, maybe submitted after it)."""
    checker(m).held[wait] = []


def released(m, wait, by) -> None:
    """A held ``wait`` ended: released by task ``by``, or (None) by a timeout or a condition that already
    held.  Every task not finished that comes after the wait learns ``by``'s clock; then the races held on
    the wait are checked again."""
    c = checker(m)
    races = c.held.pop(wait, None)
    if races is None:
        return
    if by is not None and by.vc:
        for stream in m.streams.values():
            for task in stream.queue:
                if task.vc is not None and before(wait, task.vc):
                    join(task.vc, by.vc)
    for buf, a, b in races:
        if not (before(a, b.vc) or before(b, a.vc)):
            _race_or_hold(m, c, m.current_thread(), buf, a, b)


def _race_or_hold(m, c: Checker, th, buf, a: Access, b: Access) -> None:
    """``a`` and ``b`` touch overlapping bytes and no clock orders them: a race, unless one of them comes
    after a held wait (which may yet order them)."""
    wait = next((w for w in c.held if before(w, a.vc) or before(w, b.vc)), None)
    if wait is not None:
        c.held[wait].append((buf, a, b))
    else:
        _race(m, c, th, buf, a, b, b.write, b.start, b.end)


# -- host-side checks -----------------------------------------------------------------------------
def host_access(m, th, buf, offset: int, nbytes: int, write: bool, api: str) -> None:
    """The host reads (or writes) bytes of ``buf``: is queued work not known complete using them?

    A host function runs when the work before it on its stream has finished, on the runtime's
    own thread, not on ``th``: its reads are not checked against ``th``'s knowledge.
    """
    if m.user_code == "host_func":
        return
    c = checker(m)
    if c.resets and buf.kind == "device":
        stale(m, th, buf, f"{api} on host thread {th.name!r}", ())
    old = c.accesses.get(buf)
    if not old or nbytes <= 0:
        return
    start, end = offset, offset + nbytes
    hv = c.host_vc.get(th.tid, {})
    for a in old:
        if a.end <= start or end <= a.start or not (write or a.write) or hv.get(a.handle, 0) >= a.id:
            continue                  # no overlap, both reads, or the host knows the task is done
        s = a.stream
        lo, hi = max(start, a.start), min(end, a.end)
        kind = "host_write" if write else "host_read"
        verb = "overwrites" if write else "reads"
        use = "writes" if a.write else "reads"
        message = (f"{api} on host thread {th.name!r} {verb} {_span(buf, lo, hi)}, which {describe_task(a)} "
                   f"on {stream_name(s)} {use} and which the host has not seen complete (it may still be "
                   f"queued or running). Fix: {_sync_fix(s, a)} before "
                   f"{'touching' if write else 'reading'} this memory on the host.")
        report(m, th, kind, message, (a.id,), (s.handle,), key=(kind, s.handle, th.tid, buf.ptr))
        return


def freeing(m, th, buf, api: str) -> None:
    """aclrtFree/aclrtFreeHost of ``buf`` by the host: work not known complete still uses it?"""
    c = checker(m)
    old = c.accesses.pop(buf, None)
    if not old:
        return
    hv = c.host_vc.get(th.tid, {})
    pending = [a for a in old if hv.get(a.handle, 0) < a.id]
    if pending:
        a = pending[-1]
        s = a.stream
        message = (f"{api} frees the {buf.size}-byte {buf.kind} buffer at {buf.ptr:#x} while "
                   f"{describe_task(a)} on {stream_name(s)} still uses it as far as the host knows "
                   f"({len(pending)} such task{'s' if len(pending) > 1 else ''}); the free does not wait "
                   f"for queued work. Fix: {_sync_fix(s, a)} before freeing.")
        report(m, th, "free_in_use", message, tuple(x.id for x in pending), (s.handle,),
               key=("free_in_use", s.handle, buf.ptr))


def freeing_on_stream(m, th, buf, free_task) -> None:
    """A stream-ordered free (a pool free task): is the buffer used by work not ordered before it?"""
    old = checker(m).accesses.pop(buf, None)
    if not old:
        return
    pending = [a for a in old if free_task.vc.get(a.handle, 0) < a.id]
    if pending:
        a = pending[-1]
        s, fs = a.stream, free_task.stream
        message = (f"aclrtMemPoolFreeAsync on {stream_name(fs)} ({describe_task(free_task)}) returns the block at "
                   f"{buf.ptr:#x} to its pool while {describe_task(a)} on {stream_name(s)} may still use it: "
                   f"nothing orders that task before the free. Fix: record an event on {stream_name(s)} after "
                   f"task {a.id} and make {stream_name(fs)} wait on it (aclrtRecordEvent + "
                   f"aclrtStreamWaitEvent) before the free, or free on {stream_name(s)}.")
        report(m, th, "free_in_use", message, (a.id, free_task.id), (s.handle, fs.handle),
               key=("free_in_use", s.handle, fs.handle, buf.ptr))


def stale(m, th, buf, who, tasks) -> None:
    """Device memory allocated before its device's last full reset by its owner is used.
    ``who`` names the user (a str, or a function making it: the text is needed only then)."""
    for owner in m.processes:
        if owner.pid == buf.pid:
            if not owner.device_resets or owner.device_resets.get(buf.device, 0) <= buf.resets:
                return
            break
    else:
        return
    resets = owner.device_resets[buf.device]
    if callable(who):
        who = who()
    message = (f"{who} uses the {buf.size}-byte device buffer at {buf.ptr:#x}, allocated before device "
               f"{buf.device} was fully reset (aclrtResetDevice): the reset released the device's default "
               f"context and streams, and memory allocated before it must not be used after it (undefined "
               f"on hardware). Fix: free device memory (aclrtFree) before resetting the device, and "
               f"allocate again after aclrtSetDevice.")
    report(m, th, "use_after_reset", message, tasks, (), key=("use_after_reset", buf.device, buf.ptr, resets))


# the acl layer's own host records: reading or filling them from a callback is no runtime call
_RECORD_CALL = re.compile(
    r"acl(Create|Destroy|Update|Get)DataBuffer|aclmdl(Get|CreateDataset|AddDatasetBuffer|DestroyDataset|CreateDesc|DestroyDesc)"
)


def callback_call(m, th, c_name: str) -> None:
    """A callback of aclrtLaunchCallback made runtime call ``c_name``: it works, as on a board (the
    callback runs on the program's own report thread), but the documentation forbids runtime calls
    in callbacks (RT-API 12: deadlock risk), so it is reported once per call and thread."""
    if _RECORD_CALL.match(c_name):
        return
    report(m, th, "callback_call", f"{c_name} was called from inside a callback on host thread {th.name!r}: the "
           "documentation forbids runtime calls in callbacks (allocation, release, synchronization, task "
           "submission), since a callback that waits for its own stream deadlocks it. It works here, as on a "
           "board; move the call to a thread of your own (after a synchronize, or in the loop that calls "
           "aclrtProcessReport) to follow the rule.", (), (), key=("callback_call", c_name, th.tid))


def peer_copy_denied(m, th, src: int, dst: int) -> None:
    message = (f"a copy from device {src} to device {dst} without peer access {src} -> {dst}: the call fails. "
               f"Fix: aclrtSetDevice({src}) then aclrtDeviceEnablePeerAccess({dst}, 0) before copying "
               f"(check with aclrtDeviceCanAccessPeer({src}, {dst})).")
    report(m, th, "peer_access", message, (), (), key=("peer_access", th.process.pid, src, dst))


# -- wording ------------------------------------------------------------------------------------------
def stream_name(s) -> str:
    if s.label:
        return f"the runtime's {s.label} queue of device {s.device}"
    return f"Stream {s.stream_id} on device {s.device}"


def describe_task(task) -> str:
    return f"task {task.id} ({task.kind} {task.name})"


def _span(buf, lo: int, hi: int) -> str:
    return f"bytes [{lo}, {hi}) of the {buf.size}-byte {buf.kind} buffer at {buf.ptr:#x}"


def _sync_fix(s, task) -> str:
    if s.label:
        return f"wait for the blocking call that queued task {task.id} to return"
    return (f"synchronize {stream_name(s)} (aclrtSynchronizeStream), or an event recorded after task "
            f"{task.id} (aclrtSynchronizeEvent),")


def _race(m, c, th, buf, a: Access, task, write: bool, lo: int, hi: int) -> None:
    s1, s2 = a.stream, task.stream
    key = ("stream_race", s1.handle, s2.handle, buf.ptr)
    if key in c.reported:
        return
    first = "writes" if a.write else "reads"
    second = "writes" if write else "reads"
    if s1.label or s2.label:
        user, queue = (s2, s1) if s1.label else (s1, s2)
        fix = (f"synchronize {stream_name(user)} (aclrtSynchronizeStream) before the blocking copy or "
               f"memset, or use the async call on {stream_name(user)} itself")
        if queue.label.startswith("model RI"):   # a replayed graph's side stream: order its launch instead
            fix = (f"order the graph's launch and the work on {stream_name(user)} with an event "
                   "(aclrtRecordEvent + aclrtStreamWaitEvent) or a synchronize")
    else:
        fix = (f"record an event on {stream_name(s1)} after task {a.id} and make {stream_name(s2)} wait on "
               f"it (aclrtRecordEvent + aclrtStreamWaitEvent) before submitting task {task.id}, or put both on "
               f"one stream")
    message = (f"{describe_task(task)} on {stream_name(s2)} {second} {_span(buf, lo, hi)}, which "
               f"{describe_task(a)} on {stream_name(s1)} {first}, and no event or synchronize orders the "
               f"two: they may run in either order or at the same time. Fix: {fix}.")
    report(m, th, "stream_race", message, (a.id, task.id), (s1.handle, s2.handle), key=key)


def report(m, th, kind: str, message: str, tasks, streams, key) -> None:
    """Record a hazard once per key: a trace record and a HazardWarning."""
    c = checker(m)
    if key in c.reported:
        return
    c.reported.add(key)
    m.log.append(T.Hazard(th.clock, th.tid, kind, message, tuple(tasks), tuple(streams)))
    emit(message, HazardWarning)


def hazards(log) -> list:
    """The hazard records of a trace log, in order."""
    return [r for r in log.records if isinstance(r, T.Hazard)]
