"""How Python's own threads, thread pools and notebook cells take part in the turn (core/host_turns.py).

``install`` replaces ``threading.Thread.start``/``join``, ``ThreadPoolExecutor.submit``/
``shutdown``, ``Future.result``/``exception``, ``concurrent.futures.wait``/``as_completed``,
hooks the end of a script and IPython's cell events, and bounds the waits of code the runtime
runs (``Condition.wait``, the program's own locks: core/learner_code.py's third rule).  It also
keeps the stop button from being lost where Python drops it (``_keeping_stops``).  A thread
started by a sandbox thread becomes a sandbox thread at its parent's clock (when it runs the
program's own code, see ``_takes_part``); joining it, or waiting for a pool task, parks the
caller the deterministic way (``Scheduler.join``) and moves its clock to the joined thread's end.
"""
from __future__ import annotations

import _thread
import concurrent.futures
import contextlib
import functools
import math
import os
import re
import signal
import sys
import sysconfig
import threading
import time
from typing import Callable

from . import hazards, learner_code
from .current_machine import bound, is_bound, peek_current
from .errors import RunAborted
from .host_turns import LATE_SECONDS, thread_finished

_original_start = threading.Thread.start
_original_join = threading.Thread.join
_original_lock, _original_rlock = threading.Lock, threading.RLock
JOIN_SLICE_S = 0.1          # real seconds between checks for the stop button while joining


def _spawn(m, parent, name: str, process):
    """A new sandbox thread, child of ``parent``, at the parent's clock."""
    m.scheduler.wait_turn(parent)
    child = m.register_thread(None, name, process or parent.process, parent.clock)
    hazards.thread_started(m, parent, child)
    return child


def _wrap(m, child, body):
    """``body`` run as the sandbox thread ``child`` on whichever OS thread calls the result."""
    on_bound = is_bound(m)      # a grader's run: the child stays on its machine too

    def run(*args, **kwargs):
        ident = threading.get_ident()
        with bound(m) if on_bound else contextlib.nullcontext():
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
                    thread_finished(m, child)
                    if previous is not None:          # a pool's OS thread serves its next task
                        m.threads[ident] = previous
                    # an interrupt in code the runtime ran as the thread ended ends the thread: it is
                    # raised here, never left behind for a thread that no longer calls
                    learner_code.raise_pending(m)
    return run


def _patched_start(self: threading.Thread):
    """Register a new thread, at its parent's clock, before it can run."""
    m = peek_current()
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
    return filename is not None and _own_file(filename)


def _own_file(filename: str) -> bool:
    """Is the source file ``filename`` the program's own (a script, a notebook's cell, a module of
    the learner's), not in the standard library, site-packages or this package?"""
    path = os.path.realpath(filename)
    return not path.startswith(_PACKAGE_DIR + os.sep) and not any(path.startswith(d + os.sep) for d in _LIBRARY_DIRS)


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
        with m.lock.raw:            # (not waiting for learner code another thread runs: only flags change)
            caller.impatient = True
            m.scheduler.leave_join(caller)
        raise
    with m.lock:
        if caller.joining and not caller.idle:     # (settled before every child had finished)
            m.scheduler.leave_join(caller)
        m.scheduler.wait_turn(caller)
        learner_code.raise_pending(m)                  # the stop button inside code the wait ran


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
    if learner_code.inside():                       # inside a kernel body, callback or host function
        _original_join(self, learner_code.WAIT_LIMIT_S if timeout is None else min(timeout, learner_code.WAIT_LIMIT_S))
        if self.is_alive() and (timeout is None or timeout > learner_code.WAIT_LIMIT_S):
            raise learner_code.blocked(f"Thread.join of {self.name!r}")
        return None
    entry = getattr(self, "_sandbox_thread", None)
    if entry is None:
        return _original_join(self, timeout)
    m, child = entry
    # bounded in real time, as Python's join: it ends when the thread does or when the timeout is
    # over, whichever comes first (the thread may be waiting for the joiner itself)
    deadline = math.inf if timeout is None else time.monotonic() + max(0.0, float(timeout))

    def ended() -> bool:
        """The thread is over. After an interrupted join CPython 3.11 may call it stopped while it
        still runs (its join then returns at once): the sandbox's own record decides too."""
        if self.is_alive():
            return False
        if child.finished:
            return True
        time.sleep(JOIN_SLICE_S / 10)
        return False

    def settled() -> bool:
        _original_join(self, min(JOIN_SLICE_S, max(0.0, deadline - time.monotonic())))
        return ended() or time.monotonic() >= deadline
    wait_for(m, [child], settled)
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
    m = peek_current()
    parent = m.threads.get(threading.get_ident()) if m is not None else None
    if m is None or parent is None or parent.finished or not _own_code(fn):
        return _original_submit(self, fn, *args, **kwargs)
    with m.lock:
        child = _spawn(m, parent, f"pool task ({getattr(fn, '__name__', 'task')})", None)
    future = _original_submit(self, _wrap(m, child, fn), *args, **kwargs)
    future._sandbox_thread = (m, child)
    self.__dict__.setdefault("_sandbox_tasks", []).append(child)
    return future


def _sandbox_futures(fs):
    entries = [e for f in fs if (e := getattr(f, "_sandbox_thread", None)) is not None]
    return (entries[0][0], [e[1] for e in entries]) if entries else (None, [])


def _patched_result(self, timeout=None):
    m, children = _sandbox_futures([self])
    if m is not None and not learner_code.inside():
        wait_for(m, children, _futures_settled([self]))
    return _original_result(self, timeout)


def _patched_exception(self, timeout=None):
    m, children = _sandbox_futures([self])
    if m is not None and not learner_code.inside():
        wait_for(m, children, _futures_settled([self]))
    return _original_exception(self, timeout)


def _patched_wait(fs, timeout=None, return_when=concurrent.futures.ALL_COMPLETED):
    fs = list(fs)
    m, children = _sandbox_futures(fs)
    if m is not None and not learner_code.inside():
        first = return_when == concurrent.futures.FIRST_COMPLETED
        ours = [f for f in fs if hasattr(f, "_sandbox_thread")]
        wait_for(m, children, _futures_settled(ours, return_when if first else concurrent.futures.ALL_COMPLETED),
                 any_=first)
    return _original_wait(fs, timeout, return_when)


def _patched_as_completed(fs, timeout=None):
    """Futures of sandbox tasks come out in the order their tasks finished in virtual time."""
    fs = list(dict.fromkeys(fs))
    m, children = _sandbox_futures(fs)
    if m is None or learner_code.inside():
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
    m = peek_current()
    if wait and tasks and m is not None and not learner_code.inside():
        wait_for(m, tasks, _until(lambda: all(t.finished for t in tasks)))
    return _original_shutdown(self, wait, cancel_futures=cancel_futures)


# -- a main thread that has nothing more to say ---------------------------------------------------------
def _main_thread_done() -> None:
    """At the end of a script the main thread makes no more calls: it must not hold the turn
    while Python waits for the threads it started, so it counts as finished."""
    m = peek_current()
    if m is None:
        return
    with m.lock:
        th = m.threads.get(threading.main_thread().ident)  # type: ignore[arg-type]  # the main thread has started: it has an ident
        if th is not None and not th.finished:
            thread_finished(m, th)


def _cell_finished(*_args) -> None:
    """A notebook cell ended: threads it left running get the turns the idle main thread would hold."""
    m = peek_current()
    if m is None:
        return
    with m.lock.raw:                 # (learner code another thread runs may last: only flags change then)
        th = m.threads.get(threading.main_thread().ident)  # type: ignore[arg-type]  # the main thread has started: it has an ident
        if th is not None and any(not t.finished and t is not th for t in m.scheduler.threads):
            m.scheduler.step_aside(th, run=not m.lock.busy())


def _cell_starting(*_args) -> None:
    """A notebook cell starts: the threads left running first get as far as they can on their own
    (finished, or waiting in the runtime), so the next cell sees the same state on every run.  A
    thread that keeps the turn with code of its own (a sleep, a loop without runtime calls) for
    LATE_SECONDS is not waited for (Scheduler.set_aside): the cell answers."""
    m = peek_current()
    if m is None:
        return
    th = m.threads.get(threading.main_thread().ident)  # type: ignore[arg-type]  # the main thread has started: it has an ident
    if th is None or not th.idle:
        return
    deadline = time.monotonic() + SETTLE_BETWEEN_CELLS_S
    stalled, since = None, 0.0
    while time.monotonic() < deadline:
        if m.lock.acquire(timeout=JOIN_SLICE_S):
            try:
                holder = m.scheduler.turn()
                if holder is None:       # finished, or waiting in the runtime
                    break
                if holder is not stalled:
                    stalled, since = holder, time.monotonic()
                elif time.monotonic() - since >= LATE_SECONDS:
                    m.scheduler.set_aside(holder, th)
            finally:
                m.lock.release()
        elif m.lock.user is not None:    # learner code another thread runs in the runtime: not waited for
            break
        time.sleep(0.002)
    with m.lock.raw:
        m.scheduler.come_back(th)
        th.impatient = True          # its first call does not wait long for a thread busy on its own


# -- waits inside user code give up ----------------------------------------------------------------
_original_condition_wait = threading.Condition.wait


def _condition_wait(self, timeout=None):
    """Condition.wait (and so Event.wait, queue.Queue.get/put, Barrier, Semaphore) inside user code
    waits at most learner_code.WAIT_LIMIT_S; elsewhere it is the standard one."""
    if not learner_code.inside() or (timeout is not None and timeout <= learner_code.WAIT_LIMIT_S):
        return _original_condition_wait(self, timeout)
    if _original_condition_wait(self, learner_code.WAIT_LIMIT_S):
        return True
    raise learner_code.blocked("a threading wait (Event, Condition, Queue, ...)")


class LearnerLock:
    """A threading.Lock or RLock that the learner's own code made (``install``): inside code the
    runtime runs, waiting for it gives up after learner_code.WAIT_LIMIT_S like the other waits; a plain lock's
    acquire cannot be bounded from outside, and one the host holds would hang the notebook."""

    __slots__ = ("_lock",)

    def __init__(self, lock):
        self._lock = lock

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if not blocking or not learner_code.inside() or 0 <= timeout <= learner_code.WAIT_LIMIT_S:
            return self._lock.acquire(blocking, timeout)
        if self._lock.acquire(True, learner_code.WAIT_LIMIT_S):
            return True
        raise learner_code.blocked("a threading.Lock's acquire")

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self._lock.release()

    def release(self) -> None:
        self._lock.release()

    def __getattr__(self, name):     # locked(), and what Condition takes from an RLock (_is_owned ...)
        return getattr(self._lock, name)

    def __repr__(self) -> str:
        return repr(self._lock)


def _learners_lock(original, own_file):
    """``threading.Lock``/``RLock`` as the learner's code sees them: a LearnerLock when the caller's
    file is the program's own (the standard library's locks, and every library's, stay as they are)."""
    def make():
        lock = original()
        return LearnerLock(lock) if own_file(sys._getframe(1).f_code.co_filename) else lock
    make.__doc__ = original.__doc__
    return make


def _bound_waits(own_file) -> None:
    """Bound waits inside user code: Condition.wait, and the locks the program's own files make
    (``own_file(filename)``: is it the program's, not a library's?)."""
    threading.Condition.wait = _condition_wait
    threading.Lock = _learners_lock(_original_lock, own_file)
    threading.RLock = _learners_lock(_original_rlock, own_file)


SETTLE_BETWEEN_CELLS_S = 10.0    # real seconds the threads a cell left running get before the next cell


def _watch_notebook_cells() -> None:
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or getattr(shell, "_sandbox_cell_hooks", False):
        return
    shell.events.register("post_run_cell", _cell_finished)
    shell.events.register("pre_run_cell", _cell_starting)
    shell._sandbox_cell_hooks = True


def _keeping_stops(hook):
    """``sys.unraisablehook``, except for a stop: Python drops an exception raised where it cannot
    be raised (a weak reference's callback, a finalizer the collector runs), so a stop (the SIGINT
    a kernel interrupt sends) landing there would leave the cell running, and the learner would
    press stop for nothing.  On the main thread, the stop is sent again, once the hook has returned."""

    def unraisable(args) -> None:
        if issubclass(args.exc_type, KeyboardInterrupt) and threading.current_thread() is threading.main_thread():
            try:
                _thread.start_new_thread(_stop_again, (threading.get_ident(),))
                return
            except RuntimeError:  # (no new thread at the interpreter's exit: nothing is left to stop)
                pass
        hook(args)

    unraisable.keeps_stops = True  # (install is idempotent)
    return unraisable


def _stop_again(main: int) -> None:
    """The stop, sent again to the main thread (a real signal: it ends a wait the thread is in).  A raw
    thread, not one of the program's: it runs once the main thread gives up the interpreter, after the
    few bytecodes left of the hook (Python hands it over after 5 ms, sys.getswitchinterval())."""
    if hasattr(signal, "pthread_kill"):
        signal.pthread_kill(main, signal.SIGINT)
    else:  # (Windows: the stop reaches the main thread at its next bytecode)
        _thread.interrupt_main()


def install() -> None:
    """Hook threads, thread pools, waits inside user code, the end of a script and notebook cells."""
    if not getattr(sys.unraisablehook, "keeps_stops", False):
        sys.unraisablehook = _keeping_stops(sys.unraisablehook)
    threading.Thread.start = _patched_start
    threading.Thread.join = _patched_join
    concurrent.futures.ThreadPoolExecutor.submit = _patched_submit
    concurrent.futures.ThreadPoolExecutor.shutdown = _patched_shutdown
    concurrent.futures.Future.result = _patched_result
    concurrent.futures.Future.exception = _patched_exception
    concurrent.futures.wait = _patched_wait
    concurrent.futures.as_completed = _patched_as_completed
    _bound_waits(_own_file)
    threading._register_atexit(_main_thread_done)
    _watch_notebook_cells()
