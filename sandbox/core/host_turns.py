"""Deterministic host threads: one runs at a time, chosen by virtual time.

Real ``threading.Thread``s may call the runtime concurrently.  To keep every run identical,
the sandbox passes a turn between them: the thread whose turn it is runs (its Python code
and its runtime calls); the turn always belongs to the runnable thread with the smallest
(clock, creation order).  It can only change hands when a runtime call ends, a thread
starts, joins or finishes, or a blocked thread wakes, so the interleaving never depends on
the OS scheduler.

A thread blocked in a synchronize is *parked*: it is not runnable, and the device side is
simulated only up to the smallest clock of the runnable threads, so no later submission
can change the past.  When its condition holds at device time t, it wakes with clock t (a condition
another thread's call makes true, at that call's time: ``wake_ready``).
If no thread can run and no device work is left, the parked threads fail with a clear
message instead of hanging.

Threads take part when a thread that takes part starts them (core/python_threads.py: threads
running the program's own code, not a library's) or when they first call the runtime.
``Thread.join`` of such a thread parks the caller too (``Scheduler.join``) and moves its
clock to the joined thread's end.
"""
from __future__ import annotations

import sys
import threading
import time
from typing import Callable

from . import hazards, learner_code
from .errors import ACL_ERROR_RT_WAIT_TIMEOUT, RunAborted, fail
from .objects import HostThread
from .trace import Note, ThreadEnded

WATCHDOG_SECONDS = 60.0   # only for a thread stuck outside the sandbox (e.g. on a Lock): a hang, not a result
LATE_SECONDS = 2.0        # real time an impatient thread waits for one that holds the turn outside the runtime


def thread_finished(m, th: HostThread) -> None:
    """A host thread's function returned: it no longer holds the others back (its joiners go on
    at once, at its end); then the ``thread_ended`` hooks (a spawned process ends with its last)."""
    m.log.append(ThreadEnded(th.clock, th.tid))
    m.scheduler.finish(th)
    for fn in m.hooks.thread_ended:
        fn(th)


class Scheduler:
    def __init__(self, machine):
        self.m = machine
        self.threads: list[HostThread] = []       # in creation order
        self.solo: HostThread | None = None      # the only thread, free to run: its calls wait for no turn (``recount``)
        self.hints: list[Callable[[], str]] = []  # why a wait may never end (features register one)

    # -- who may run -------------------------------------------------------------------------
    def recount(self) -> None:
        """``solo`` again, after a thread was added, parked, joined, set aside or finished, or came back
        (the gate reads it on every call instead of testing the threads; it is None whenever in doubt)."""
        threads = self.threads
        only = threads[0] if len(threads) == 1 else None
        self.solo = None if only is None or only.parked or only.joining or only.finished else only

    def turn(self) -> HostThread | None:
        """The runnable thread with the smallest clock, the first created among equals."""
        return min((t for t in self.threads if not (t.parked or t.joining or t.finished)),
                   key=lambda t: t.clock, default=None)

    def horizon(self) -> int | None:
        """Smallest clock of the runnable threads (None: nobody can submit work)."""
        clocks = [t.clock for t in self.threads if not (t.parked or t.joining or t.finished)]
        return min(clocks) if clocks else None

    def wait_turn(self, th: HostThread) -> None:
        """Block the calling OS thread until ``th`` may run."""
        if len(self.threads) == 1 and not (th.parked or th.joining):
            return
        if th.idle:                              # set aside (or between cells): it takes part again
            self.come_back(th)
        wake = th.wake
        assert wake is not None
        lock = self.m.lock
        stalled, since = None, 0.0
        while th.parked or th.joining or (holder := self.turn()) is not th or lock.busy():
            if self.m.aborted:
                raise RunAborted(self.m.aborted)
            if lock.busy():                      # another thread's learner code runs: the machine is not ours
                self._wait(th, lock.wait_idle)
                continue
            limit = WATCHDOG_SECONDS
            if not (th.parked or th.joining):
                if holder is not None and holder.wake is not None:
                    holder.wake.notify()         # hand the turn over before sleeping
                if th.impatient:                 # a thread that keeps the turn outside the runtime is set aside
                    if holder is not stalled:
                        stalled, since = holder, time.monotonic()
                    limit = max(0.0, since + LATE_SECONDS - time.monotonic())
            if self._wait(th, lambda limit=limit: wake.wait(limit)):
                continue
            holder = self.turn()
            if th.impatient and holder is stalled and holder is not None and not (th.parked or th.joining):
                self.set_aside(holder, th)
                continue
            fail(ACL_ERROR_RT_WAIT_TIMEOUT,
                 f"thread {th.name!r} has waited {WATCHDOG_SECONDS:.0f} s of real time for its turn; "
                 f"thread {holder.name if holder else '?'!r} holds it but makes no runtime call (is it "
                 "blocked on a Lock or Queue? coordinate host threads with join or runtime events)")

    @staticmethod
    def _wait(th: HostThread, wait) -> bool:
        """``wait()``; the stop button during it makes ``th`` impatient: stopped, a learner expects
        the next call to answer, not to wait for a thread busy with code of its own."""
        try:
            return wait()
        except BaseException:
            th.impatient = True
            raise

    def set_aside(self, holder: HostThread, waiter: HostThread) -> None:
        """``holder`` kept the turn for LATE_SECONDS of real time without calling the runtime (a
        sleep, a computation, a Lock) while an impatient ``waiter`` waited: the others go on without
        it, and it takes part again with its next call, at the runtime's time then.  Only a
        notebook's next cell or a stopped thread is impatient: within a run the order stays the
        turn's.  The trace and the notebook say what was not waited for."""
        text = (f"thread {holder.name!r} ran its own code outside the runtime for {LATE_SECONDS:.0f} s of real time "
                f"while {waiter.name!r} waited for its turn: not waited for; it takes part again with its next "
                "runtime call, at the runtime's time then")
        self.m.log.append(Note(waiter.clock, holder.tid, f"not waited for: {text}"))
        print(f"sandbox: {text}", file=sys.stderr)
        self.step_aside(holder, run=not self.m.lock.busy())

    def changed(self) -> None:
        """The turn may have moved: wake the thread it belongs to now (only that one, so that a call
        costs one wake-up however many threads wait), or everyone when the run is aborted."""
        if self.m.aborted:
            for t in self.threads:
                if t.wake is not None:
                    t.wake.notify()
            return
        holder = self.turn()
        if holder is not None and holder.wake is not None:
            holder.wake.notify()

    # -- the device side catches up ------------------------------------------------------------
    def advance(self) -> None:
        """Run device events before the horizon, waking parked threads whose wait is over."""
        sim = self.m.sim
        threads = self.threads
        horizon: int | None
        if self.solo is not None:                    # (a stale None only takes the general way, to the same result)
            horizon, parked = self.solo.clock, []
        else:
            horizon = self.horizon()
            parked = [t for t in threads if t.parked]
        if not parked and horizon is not None:       # the common case: nobody waits for the device
            sim.run_before(horizon, self.m.pending_interrupts)
            if len(self.threads) > 1:
                self.changed()
            return
        # A thread that stepped aside (a notebook between cells) may come back with new work at
        # any time: while one has, time does not run out for the others (no timeouts fire, no
        # wait is declared hopeless); device work still completes.
        idle = any(t.idle for t in threads)
        while True:
            next_event = sim.next_time
            deadline = None if idle else min((t.deadline for t in parked if t.deadline is not None), default=None)
            candidate = next_event if deadline is None or (next_event is not None and next_event <= deadline) \
                else deadline
            if candidate is None:
                if horizon is None and parked and not idle:
                    self._deadlock(parked)
                break
            if horizon is not None and candidate >= horizon:
                break
            if candidate == next_event:
                sim.step()
                if self.m.pending_interrupts and learner_code.interrupted(self.m):
                    break                        # the stop button: the step is done, stop here
            else:
                sim.now = max(sim.now, deadline)
            woke = False
            for t in parked:
                if not t.parked:                 # the stop button, while learner code ran in the step
                    woke = True
                elif t.wake_when():  # type: ignore[misc]  # a parked thread has its wake condition
                    t.parked, t.clock, woke = False, max(t.clock, sim.now), True
                elif t.deadline is not None and t.deadline <= sim.now:
                    t.parked, t.clock, t.timed_out, woke = False, max(t.clock, t.deadline), True, True
            if woke:
                parked = [t for t in parked if t.parked]
                horizon = self.horizon()
        if horizon is not None and sim.now < horizon and sim.next_time is None:
            sim.now = horizon
        self.recount()
        self.changed()

    def wake_ready(self, t: int) -> None:
        """A call changed host-side state a parked wait waits for (a pipe's write end closed: core/features/
        subscription.py): each parked thread whose condition now holds goes on, at ``t`` at the earliest."""
        for th in self.threads:
            if th.parked and th.wake_when is not None and th.wake_when():
                th.parked, th.clock = False, max(th.clock, t)
        self.recount()
        self.changed()

    def _deadlock(self, parked) -> None:
        names = ", ".join(f"{t.name!r} ({t.waiting_for})" for t in parked)
        hint = "".join(provider() for provider in self.hints)
        for t in parked:
            t.parked = False
            t.wake_error = (f"{t.waiting_for} can never finish: no thread can run and no device work is "
                            f"left that could complete it (waiting: {names}){hint}")

    # -- blocking inside a runtime call -------------------------------------------------------------
    def park(self, th: HostThread, done, what: str, deadline: int | None) -> str | None:
        """Park ``th`` until ``done()``; returns None, "timeout" or a deadlock message.

        An interrupt (the stop button) while parked, or one that user code run meanwhile got,
        unparks ``th`` and is raised: the call is abandoned, the machine stays consistent."""
        th.parked, th.wake_when, th.waiting_for = True, done, what
        self.solo = None
        th.deadline, th.timed_out, th.wake_error = deadline, False, None
        try:
            self.advance()
            if learner_code.interrupted(self.m):
                learner_code.raise_pending(self.m)
            self.wait_turn(th)
        except BaseException:
            th.parked = False
            self.recount()
            self.changed()
            raise
        finally:
            th.wake_when = None
        return th.wake_error or ("timeout" if th.timed_out else None)

    # -- threads coming and going ------------------------------------------------------------------
    def add(self, th: HostThread) -> None:
        th.wake = threading.Condition(self.m.lock)
        self.threads.append(th)
        self.recount()

    def finish(self, th: HostThread) -> None:
        th.finished = True
        self.solo = None
        for t in self.threads:                   # whoever joins ``th`` may go on, at ``th``'s end
            if t.joining and t.joins and th in t.joins:
                self._joined(t, th)
                t.joins = [] if t.join_any else [j for j in t.joins if j is not th]
                if not t.joins:
                    t.joining = False
        self.recount()
        self.advance()

    def join(self, caller: HostThread, children, any_: bool = False) -> None:
        """``caller`` waits for ``children`` (all, or ``any_`` one) to finish; it is not runnable
        meanwhile, and runnable again, at their end, the moment they finish (``finish``)."""
        pending = []
        for child in children:
            if child.finished:
                self._joined(caller, child)
                if any_:
                    return
            elif child not in pending:
                pending.append(child)
        if pending:
            caller.joining, caller.joins, caller.join_any = True, pending, any_
            self.solo = None
            self.advance()

    def _joined(self, caller: HostThread, child: HostThread) -> None:
        """``caller`` learns that ``child`` has ended: it goes on at that end, knowing its work."""
        caller.clock = max(caller.clock, child.clock)
        hazards.thread_joined(self.m, caller, child)

    def leave_join(self, caller: HostThread) -> None:
        """The join was given up (the stop button): the caller is runnable again, as it was."""
        caller.joining, caller.joins = False, []
        self.recount()
        self.changed()

    def step_aside(self, th: HostThread, run: bool = True) -> None:
        """``th`` makes no calls for a while (a notebook between cells, a thread set aside): the
        others may run; ``run``: the device catches up now (not while learner code runs in a step)."""
        if not th.joining and not th.finished:
            th.joining, th.joins, th.idle = True, [], True
            self.solo = None
            if run:
                self.advance()
            else:
                self.changed()

    def come_back(self, th: HostThread) -> None:
        """``th`` resumes after stepping aside, at the earliest time the others left it."""
        if th.idle:
            th.joining, th.idle = False, False
            th.clock = max(th.clock, self.m.sim.now)
            self.recount()
            self.changed()
