"""Deterministic host threads: one runs at a time, chosen by virtual time.

Real ``threading.Thread``s may call the runtime concurrently.  To keep every run identical,
the sandbox passes a turn between them: the thread whose turn it is runs (its Python code
and its runtime calls); the turn always belongs to the runnable thread with the smallest
(clock, creation order).  It can only change hands when a runtime call ends, a thread
starts, joins or finishes, or a blocked thread wakes, so the interleaving never depends on
the OS scheduler.

A thread blocked in a synchronize is *parked*: it is not runnable, and the device side is
simulated only up to the smallest clock of the runnable threads, so no later submission
can change the past.  When its condition holds at device time t, it wakes with clock t.
If no thread can run and no device work is left, the parked threads fail with a clear
message instead of hanging.

Threads take part when a thread that takes part starts them (non-daemon threads running
the program's own code, not a library's: see ``_takes_part``) or when they first call the
runtime.  ``Thread.join`` of such a thread parks the caller too and
moves its clock to the joined thread's end.
"""
from __future__ import annotations

import contextlib
import functools
import os
import re
import sysconfig
import threading

from . import hazards
from .errors import ACL_ERROR_RT_WAIT_TIMEOUT, RunAborted, fail
from .objects import HostThread

WATCHDOG_SECONDS = 60.0   # only for a thread stuck outside the sandbox (e.g. on a Lock): a hang, not a result


class Scheduler:
    def __init__(self, machine):
        self.m = machine
        self.cond = threading.Condition(machine.lock)
        self.threads: list[HostThread] = []       # in creation order

    # -- who may run -------------------------------------------------------------------------
    def runnable(self):
        return [t for t in self.threads if not (t.parked or t.joining or t.finished)]

    def turn(self) -> HostThread | None:
        best = None
        for t in self.threads:
            if t.parked or t.joining or t.finished:
                continue
            if best is None or t.clock < best.clock:
                best = t
        return best

    def horizon(self) -> int | None:
        """Smallest clock of the runnable threads (None: nobody can submit work)."""
        clocks = [t.clock for t in self.threads if not (t.parked or t.joining or t.finished)]
        return min(clocks) if clocks else None

    def wait_turn(self, th: HostThread) -> None:
        """Block the calling OS thread until ``th`` may run."""
        if len(self.threads) == 1 and not (th.parked or th.joining):
            return
        while th.parked or th.joining or self.turn() is not th:
            if self.m.aborted:
                raise RunAborted(self.m.aborted)
            if not self.cond.wait(WATCHDOG_SECONDS):
                holder = self.turn()
                fail(ACL_ERROR_RT_WAIT_TIMEOUT,
                     f"thread {th.name!r} has waited {WATCHDOG_SECONDS:.0f} s of real time for its turn; "
                     f"thread {holder.name if holder else '?'!r} holds it but makes no runtime call (is it "
                     "blocked on a Lock or Queue? coordinate host threads with join or runtime events)")

    def changed(self) -> None:
        self.cond.notify_all()

    # -- the device side catches up ------------------------------------------------------------
    def advance(self) -> None:
        """Run device events before the horizon, waking parked threads whose wait is over."""
        sim = self.m.sim
        threads = self.threads
        if len(threads) == 1 and not (threads[0].parked or threads[0].joining or threads[0].finished):
            horizon, parked = threads[0].clock, ()
        else:
            horizon = self.horizon()
            parked = [t for t in threads if t.parked]
        if not parked and horizon is not None:       # the common case: nobody waits for the device
            sim.run_before(horizon)
            if len(self.threads) > 1:
                self.changed()
            return
        while True:
            next_event = sim.next_time
            deadline = min((t.deadline for t in parked if t.deadline is not None), default=None)
            candidate = next_event if deadline is None or (next_event is not None and next_event <= deadline) \
                else deadline
            if candidate is None:
                if horizon is None and parked:
                    self._deadlock(parked)
                break
            if horizon is not None and candidate >= horizon:
                break
            if candidate == next_event:
                sim.step()
            else:
                sim.now = max(sim.now, deadline)
            woke = False
            for t in parked:
                if t.wake_when():
                    t.parked, t.clock, woke = False, max(t.clock, sim.now), True
                elif t.deadline is not None and t.deadline <= sim.now:
                    t.parked, t.clock, t.timed_out, woke = False, max(t.clock, t.deadline), True, True
            if woke:
                parked = [t for t in parked if t.parked]
                horizon = self.horizon()
        if horizon is not None and sim.now < horizon and sim.next_time is None:
            sim.now = horizon
        self.changed()

    def _deadlock(self, parked) -> None:
        from .callbacks import deadlock_hint
        names = ", ".join(f"{t.name!r} ({t.waiting_for})" for t in parked)
        hint = deadlock_hint(self.m)
        for t in parked:
            t.parked = False
            t.wake_error = (f"{t.waiting_for} can never finish: no thread can run and no device work is "
                            f"left that could complete it (waiting: {names}){hint}")

    # -- blocking inside a runtime call -------------------------------------------------------------
    def park(self, th: HostThread, done, what: str, deadline: int | None) -> str | None:
        """Park ``th`` until ``done()``; returns None, "timeout" or a deadlock message."""
        th.parked, th.wake_when, th.waiting_for = True, done, what
        th.deadline, th.timed_out, th.wake_error = deadline, False, None
        self.advance()
        self.wait_turn(th)
        th.wake_when = None
        if th.wake_error:
            return th.wake_error
        return "timeout" if th.timed_out else None

    # -- threads coming and going ------------------------------------------------------------------
    def add(self, th: HostThread) -> None:
        self.threads.append(th)

    def finish(self, th: HostThread) -> None:
        th.finished = True
        self.advance()


_original_start = threading.Thread.start
_original_join = threading.Thread.join


def _current_machine():
    from .machine import peek_current
    return peek_current()


def _patched_start(self: threading.Thread):
    """Register a new thread, at its parent's clock, before it can run."""
    m = _current_machine()
    process = getattr(self, "_sandbox_process", None)
    parent = m.threads.get(threading.get_ident()) if m is not None else None
    if m is None or parent is None or not (process is not None or _takes_part(self)):
        return _original_start(self)
    with m.lock:
        m.scheduler.wait_turn(parent)
        child = m.register_thread(None, _stable_name(self), process or parent.process, parent.clock)
        hazards.thread_started(m, parent, child)
        self._sandbox_thread = (m, child)
        target_run = self.run
        from . import machine as machine_module
        on_bound = machine_module.is_bound(m)     # a grader's run: the child stays on it too

        def run():
            with machine_module.bound(m) if on_bound else contextlib.nullcontext():
                with m.lock:
                    child.ident = threading.get_ident()
                    m.threads[child.ident] = child
                    m.scheduler.wait_turn(child)
                try:
                    target_run()
                except RunAborted:
                    pass                  # the grader stopped the run: the thread just ends
                finally:
                    with m.lock:
                        m.thread_finished(child)
        self.run = run
    return _original_start(self)


_LIBRARY_DIRS = tuple(sorted({os.path.realpath(p) for key in ("stdlib", "platstdlib", "purelib", "platlib")
                              if (p := sysconfig.get_paths().get(key))}, key=len, reverse=True))
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _takes_part(thread: threading.Thread) -> bool:
    """Does a thread started by a sandbox thread take part in the turn?

    The learner's threads do: non-daemon threads whose code is the program's own.  Threads
    that libraries start behind the scenes (asyncio loops, thread pools, a browser driver)
    run their own code from the standard library or site-packages and never call the
    runtime; making them take turns would stall the program, so they are left alone.
    """
    if getattr(thread, "_sandbox_takes_part", False):
        return True
    if thread.daemon and not getattr(threading.current_thread(), "_sandbox_grading", False):
        return False          # (a grader's solution thread is a daemon, and so by default its children)
    code = getattr(thread, "_target", None) or type(thread).run
    while isinstance(code, functools.partial):
        code = code.func
    code = getattr(code, "__func__", code)
    filename = getattr(getattr(code, "__code__", None), "co_filename", None)
    if filename is None:
        return True
    path = os.path.realpath(filename)
    if path.startswith(_PACKAGE_DIR):
        return False
    return not any(path.startswith(d + os.sep) for d in _LIBRARY_DIRS)


def _stable_name(thread: threading.Thread) -> str:
    """Python numbers unnamed threads process-wide ("Thread-7"): that would differ run to run."""
    if not re.fullmatch(r"Thread-\d+( \(.*\))?", thread.name):
        return thread.name
    target = getattr(thread, "_target", None)
    return f"worker ({target.__name__})" if target is not None else "worker"


def _patched_join(self: threading.Thread, timeout=None):
    """Joining a sandbox thread parks the caller; it resumes at the joined thread's end."""
    entry = getattr(self, "_sandbox_thread", None)
    if entry is None:
        return _original_join(self, timeout)
    m, child = entry
    caller = m.threads.get(threading.get_ident())
    if caller is None or caller.finished:
        return _original_join(self, timeout)
    with m.lock:
        caller.joining = True
        m.scheduler.advance()
    try:
        _original_join(self)
    finally:
        with m.lock:
            caller.joining = False
            caller.clock = max(caller.clock, child.clock)
            hazards.thread_joined(m, caller, child)
            m.scheduler.changed()
            m.scheduler.wait_turn(caller)


def install() -> None:
    """Hook Thread.start/join so that threads started by sandbox threads take part."""
    threading.Thread.start = _patched_start
    threading.Thread.join = _patched_join
