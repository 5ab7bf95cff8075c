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

import concurrent.futures
import contextlib
import functools
import os
import re
import sys
import sysconfig
import threading
import time
from typing import Callable

from . import hazards, usercode
from .errors import ACL_ERROR_RT_WAIT_TIMEOUT, RunAborted, fail
from .objects import HostThread

WATCHDOG_SECONDS = 60.0   # only for a thread stuck outside the sandbox (e.g. on a Lock): a hang, not a result


class Scheduler:
    def __init__(self, machine):
        self.m = machine
        self.cond = threading.Condition(machine.lock)
        self.threads: list[HostThread] = []       # in creation order

    # -- who may run -------------------------------------------------------------------------
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
                if self.m.pending_interrupts and usercode.interrupted(self.m):
                    break                        # the stop button: the step is done, stop here
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
        """Park ``th`` until ``done()``; returns None, "timeout" or a deadlock message.

        An interrupt (the stop button) while parked, or one that user code run meanwhile got,
        unparks ``th`` and is raised: the call is abandoned, the machine stays consistent."""
        th.parked, th.wake_when, th.waiting_for = True, done, what
        th.deadline, th.timed_out, th.wake_error = deadline, False, None
        try:
            self.advance()
            if usercode.interrupted(self.m):
                usercode.raise_pending(self.m)
            self.wait_turn(th)
        except BaseException:
            th.parked = False
            self.changed()
            raise
        finally:
            th.wake_when = None
        if th.wake_error:
            return th.wake_error
        return "timeout" if th.timed_out else None

    # -- threads coming and going ------------------------------------------------------------------
    def add(self, th: HostThread) -> None:
        self.threads.append(th)

    def finish(self, th: HostThread) -> None:
        th.finished = True
        for t in self.threads:                   # whoever joins ``th`` may go on, at ``th``'s end
            if t.joining and t.joins and th in t.joins:
                self._joined(t, th)
                t.joins = [] if t.join_any else [j for j in t.joins if j is not th]
                if not t.joins:
                    t.joining = False
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
            self.advance()

    def _joined(self, caller: HostThread, child: HostThread) -> None:
        """``caller`` learns that ``child`` has ended: it goes on at that end, knowing its work."""
        caller.clock = max(caller.clock, child.clock)
        hazards.thread_joined(self.m, caller, child)

    def leave_join(self, caller: HostThread) -> None:
        """The join was given up (the stop button): the caller is runnable again, as it was."""
        caller.joining, caller.joins = False, []
        self.changed()

    def step_aside(self, th: HostThread) -> None:
        """``th`` makes no calls for a while (a notebook between cells): the others may run."""
        if not th.joining and not th.finished:
            th.joining, th.joins, th.idle = True, [], True
            self.advance()

    def come_back(self, th: HostThread) -> None:
        """``th`` resumes after stepping aside, at the earliest time the others left it."""
        if th.idle:
            th.joining, th.idle = False, False
            th.clock = max(th.clock, self.m.sim.now)
            self.changed()


_original_start = threading.Thread.start
_original_join = threading.Thread.join
JOIN_SLICE_S = 0.1          # real seconds between checks for the stop button while joining


def _current_machine():
    from .machine import peek_current
    return peek_current()


def _spawn(m, parent, name: str, process):
    """A new sandbox thread, child of ``parent``, at the parent's clock."""
    m.scheduler.wait_turn(parent)
    child = m.register_thread(None, name, process or parent.process, parent.clock)
    hazards.thread_started(m, parent, child)
    return child


def _wrap(m, child, body):
    """``body`` run as the sandbox thread ``child`` on whichever OS thread calls the result."""
    from . import machine as machine_module
    on_bound = machine_module.is_bound(m)      # a grader's run: the child stays on its machine too

    def run(*args, **kwargs):
        ident = threading.get_ident()
        with machine_module.bound(m) if on_bound else contextlib.nullcontext():
            with m.lock:
                previous = m.threads.get(ident)
                child.ident = ident
                m.threads[ident] = child
                m.scheduler.wait_turn(child)
            try:
                return body(*args, **kwargs)
            except RunAborted:
                return None               # the grader stopped the run: the thread just ends
            finally:
                with m.lock:
                    m.thread_finished(child)
                    if previous is not None:          # a pool's OS thread serves its next task
                        m.threads[ident] = previous
    return run


def _patched_start(self: threading.Thread):
    """Register a new thread, at its parent's clock, before it can run."""
    m = _current_machine()
    process = getattr(self, "_sandbox_process", None)
    parent = m.threads.get(threading.get_ident()) if m is not None else None
    if m is None or parent is None or parent.finished or not (process is not None or _takes_part(self)):
        return _original_start(self)
    with m.lock:
        child = _spawn(m, parent, _stable_name(self), process)
        self._sandbox_thread = (m, child)
        self.run = _wrap(m, child, self.run)
    return _original_start(self)


_LIBRARY_DIRS = tuple(sorted({os.path.realpath(p) for key in ("stdlib", "platstdlib", "purelib", "platlib")
                              if (p := sysconfig.get_paths().get(key))}, key=len, reverse=True))
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _own_code(code) -> bool:
    """Is ``code`` (a function) the program's own, not the standard library's, a package's or ours?"""
    while isinstance(code, functools.partial):
        code = code.func
    code = getattr(code, "__func__", code)
    if not hasattr(code, "__code__"):          # a callable object: its __call__; a builtin has none
        code = getattr(getattr(code, "__call__", None), "__func__", None)  # noqa: B004 - the method itself
    filename = getattr(getattr(code, "__code__", None), "co_filename", None)
    if filename is None:
        return False
    path = os.path.realpath(filename)
    if path.startswith(_PACKAGE_DIR):
        return False
    return not any(path.startswith(d + os.sep) for d in _LIBRARY_DIRS)


def _takes_part(thread: threading.Thread) -> bool:
    """Does a thread started by a sandbox thread take part in the turn?

    The learner's threads do, daemon or not: threads whose code is the program's own.
    Threads that libraries start behind the scenes (asyncio loops, thread pools, a browser
    driver) run code from the standard library or site-packages and never call the runtime;
    making them take turns would stall the program, so they are left alone (a pool's tasks
    take part: see ``_patched_submit``).
    """
    if getattr(thread, "_sandbox_takes_part", False):
        return True
    return _own_code(getattr(thread, "_target", None) or type(thread).run)


def _stable_name(thread: threading.Thread) -> str:
    """Python numbers unnamed threads process-wide ("Thread-7"): that would differ run to run."""
    if not re.fullmatch(r"Thread-\d+( \(.*\))?", thread.name):
        return thread.name
    target = getattr(thread, "_target", None)
    return f"worker ({target.__name__})" if target is not None else "worker"


def wait_for(m, children, settled, any_: bool = False) -> None:
    """The calling sandbox thread waits for ``children`` (sandbox threads) the deterministic way
    (``Scheduler.join``), then until ``settled()`` -- a wait of at most JOIN_SLICE_S for the real,
    OS-level end, true once it is over -- holds, slice by slice so that the stop button gets through."""
    caller = m.threads.get(threading.get_ident())
    if caller is None or caller.finished:
        while not settled():
            pass
        return
    with m.lock:
        m.scheduler.join(caller, children, any_)
    try:
        while not settled():
            pass
    except BaseException:
        with m.lock:
            m.scheduler.leave_join(caller)
        raise
    with m.lock:
        if caller.joining and not caller.idle:     # (settled before every child had finished)
            m.scheduler.leave_join(caller)
        m.scheduler.wait_turn(caller)


def _futures_settled(fs, return_when=concurrent.futures.ALL_COMPLETED):
    def settled() -> bool:
        done, _ = _original_wait(fs, JOIN_SLICE_S, return_when)
        return len(done) == len(fs) or (return_when != concurrent.futures.ALL_COMPLETED and bool(done))
    return settled


def _until(flag) -> Callable[[], bool]:
    def settled() -> bool:
        if flag():
            return True
        time.sleep(0.001)
        return flag()
    return settled


def _patched_join(self: threading.Thread, timeout=None):
    """Joining a sandbox thread makes the caller wait for it the deterministic way: the caller
    is runnable again, with the joined thread's end as its clock, the moment that thread ends."""
    if usercode.inside():                       # inside a kernel body, callback or host function
        _original_join(self, usercode.WAIT_LIMIT_S if timeout is None else min(timeout, usercode.WAIT_LIMIT_S))
        if self.is_alive() and (timeout is None or timeout > usercode.WAIT_LIMIT_S):
            raise usercode.blocked(f"Thread.join of {self.name!r}")
        return None
    entry = getattr(self, "_sandbox_thread", None)
    if entry is None:
        return _original_join(self, timeout)
    m, child = entry
    wait_for(m, [child], lambda: (_original_join(self, JOIN_SLICE_S), not self.is_alive())[1])
    return None


# -- thread pools: each task submitted from a sandbox thread is a sandbox thread of its own ---------------------
_original_submit = concurrent.futures.ThreadPoolExecutor.submit
_original_shutdown = concurrent.futures.ThreadPoolExecutor.shutdown
_original_result = concurrent.futures.Future.result
_original_exception = concurrent.futures.Future.exception
_original_wait = concurrent.futures.wait
_original_as_completed = concurrent.futures.as_completed


def _patched_submit(self, fn, /, *args, **kwargs):
    """A task submitted to a thread pool by a sandbox thread takes part in the turn, like a
    thread started there: it starts at the submitter's clock, whichever pool thread runs it."""
    m = _current_machine()
    parent = m.threads.get(threading.get_ident()) if m is not None else None
    if parent is None or parent.finished or not _own_code(fn):
        return _original_submit(self, fn, *args, **kwargs)
    with m.lock:
        child = _spawn(m, parent, f"pool task ({getattr(fn, '__name__', 'task')})", None)
    future = _original_submit(self, _wrap(m, child, fn), *args, **kwargs)
    future._sandbox_thread = (m, child)
    self.__dict__.setdefault("_sandbox_tasks", []).append(child)
    return future


def _sandbox_futures(fs):
    entries = [getattr(f, "_sandbox_thread", None) for f in fs]
    entries = [e for e in entries if e is not None]
    return (entries[0][0], [e[1] for e in entries]) if entries else (None, [])


def _patched_result(self, timeout=None):
    m, children = _sandbox_futures([self])
    if m is not None and not usercode.inside():
        wait_for(m, children, _futures_settled([self]))
    return _original_result(self, timeout)


def _patched_exception(self, timeout=None):
    m, children = _sandbox_futures([self])
    if m is not None and not usercode.inside():
        wait_for(m, children, _futures_settled([self]))
    return _original_exception(self, timeout)


def _patched_wait(fs, timeout=None, return_when=concurrent.futures.ALL_COMPLETED):
    fs = list(fs)
    m, children = _sandbox_futures(fs)
    if m is not None and not usercode.inside():
        first = return_when == concurrent.futures.FIRST_COMPLETED
        ours = [f for f in fs if hasattr(f, "_sandbox_thread")]
        wait_for(m, children, _futures_settled(ours, return_when if first else concurrent.futures.ALL_COMPLETED),
                 any_=first)
    return _original_wait(fs, timeout, return_when)


def _patched_as_completed(fs, timeout=None):
    """Futures of sandbox tasks come out in the order their tasks finished in virtual time."""
    fs = list(dict.fromkeys(fs))
    m, children = _sandbox_futures(fs)
    if m is None or usercode.inside():
        yield from _original_as_completed(fs, timeout)
        return
    rest = [f for f in fs if not hasattr(f, "_sandbox_thread")]
    pending = [f for f in fs if hasattr(f, "_sandbox_thread")]
    while pending:
        left = [f._sandbox_thread[1] for f in pending if not f._sandbox_thread[1].finished]
        if len(left) == len(pending):
            wait_for(m, left, _until(lambda: any(f._sandbox_thread[1].finished for f in pending)), any_=True)
        finished = sorted((f for f in pending if f._sandbox_thread[1].finished),
                          key=lambda f: (f._sandbox_thread[1].clock, f._sandbox_thread[1].tid))
        for f in finished:
            pending.remove(f)
            wait_for(m, [], _futures_settled([f]))
            yield f
    if rest:
        yield from _original_as_completed(rest, timeout)


def _patched_shutdown(self, wait=True, *, cancel_futures=False):
    tasks = self.__dict__.get("_sandbox_tasks")
    m = _current_machine()
    if wait and tasks and m is not None and not usercode.inside():
        wait_for(m, tasks, _until(lambda: all(t.finished for t in tasks)))
    return _original_shutdown(self, wait, cancel_futures=cancel_futures)


# -- a main thread that has nothing more to say ---------------------------------------------------------
def _main_thread_done() -> None:
    """At the end of a script the main thread makes no more calls: it must not hold the turn
    while Python waits for the threads it started, so it counts as finished."""
    m = _current_machine()
    if m is None:
        return
    with m.lock:
        th = m.threads.get(threading.main_thread().ident)
        if th is not None and not th.finished:
            m.thread_finished(th)


def _cell_finished(*_args) -> None:
    """A notebook cell ended: threads it left running get the turns the idle main thread would hold."""
    m = _current_machine()
    if m is None:
        return
    with m.lock:
        th = m.threads.get(threading.main_thread().ident)
        if th is not None and any(not t.finished and t is not th for t in m.scheduler.threads):
            m.scheduler.step_aside(th)


def _cell_starting(*_args) -> None:
    """A notebook cell starts: the threads left running first get as far as they can on their own
    (finished, or waiting in the runtime), so the next cell sees the same state on every run."""
    m = _current_machine()
    if m is None:
        return
    th = m.threads.get(threading.main_thread().ident)
    if th is None or not th.idle:
        return
    deadline = time.monotonic() + SETTLE_BETWEEN_CELLS_S
    while time.monotonic() < deadline:
        with m.lock:
            if all(t.finished or t.parked or t.joining for t in m.scheduler.threads if t is not th):
                break
        time.sleep(0.002)
    with m.lock:
        m.scheduler.come_back(th)


SETTLE_BETWEEN_CELLS_S = 10.0    # real seconds the threads a cell left running get before the next cell


def _watch_notebook_cells() -> None:
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or getattr(shell, "_sandbox_cell_hooks", False):
        return
    shell.events.register("post_run_cell", _cell_finished)
    shell.events.register("pre_run_cell", _cell_starting)
    shell._sandbox_cell_hooks = True


def install() -> None:
    """Hook threads, thread pools, waits inside user code, the end of a script and notebook cells."""
    threading.Thread.start = _patched_start
    threading.Thread.join = _patched_join
    concurrent.futures.ThreadPoolExecutor.submit = _patched_submit
    concurrent.futures.ThreadPoolExecutor.shutdown = _patched_shutdown
    concurrent.futures.Future.result = _patched_result
    concurrent.futures.Future.exception = _patched_exception
    concurrent.futures.wait = _patched_wait
    concurrent.futures.as_completed = _patched_as_completed
    usercode.install()
    threading._register_atexit(_main_thread_done)
    _watch_notebook_cells()
