"""Learner code that the runtime runs: kernel bodies, callbacks and host functions.

Such code runs inside the runtime (a kernel body at its task's completion, a host function
when its stream reaches it, a callback inside aclrtProcessReport), on whichever host thread
is moving the simulation forward.  Three rules keep the machine usable whatever it does:

* It must not call the runtime: such a call is refused at once with 207000
  ACL_ERROR_RT_FEATURE_NOT_SUPPORT (the API gate asks ``machine.user_code``; the error is
  ``nested_call``'s, reported like any failed call by ``gate.refuse``).
* What it raises fails only its own work: a kernel's task fails with 507015, a callback's
  exception is text in its CallbackRun record.  An *interrupt* (KeyboardInterrupt from the
  stop button, SystemExit) is handled the same way for the simulation step, which completes,
  and is raised again in the host thread when the runtime call that ran the code returns:
  the cell stops as Jupyter expects and the machine stays consistent.
* It must not wait for another host thread (a threading.Event set by a producer, a queue, a
  join): the thread running it holds the simulation, so the other thread could never get to
  run.  Such a wait gives up after ``WAIT_LIMIT_S`` of real time and fails the code with a
  message instead of hanging the notebook (core/python_threads.py bounds the waits: Thread.join,
  Condition.wait and what is built on it, the locks the program's own files make).

It runs without the machine's lock (``MachineLock``): the machine is *busy* meanwhile, and
another thread that takes the lock waits until the code is over, but a thread interrupted
while it waits for its turn (the stop button) gets out at once, however long the code runs.
"""
from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING

from .errors import ACL_ERROR_RT_FEATURE_NOT_SUPPORT, AclError

if TYPE_CHECKING:
    from .machine import Machine

WAIT_LIMIT_S = 2.0            # real seconds a wait inside user code may take before it is a deadlock

_inside: dict[int, object] = {}      # thread ident -> the machine whose user code it is running


class MachineLock:
    """The machine's reentrant lock, given up by learner code for as long as it runs (``run``).

    Taking it (``with``, ``acquire``) waits, interruptibly, until no other thread's learner code
    runs: what holds the lock may touch the machine.  Condition.wait gets the plain lock back
    (``_acquire_restore``), so a waiter the stop button interrupts leaves at once; it may then
    undo its own waiting state only (host_turns.Scheduler.park)."""

    def __init__(self):
        self.raw = raw = threading.RLock()
        self.user: int | None = None       # ident of the thread whose learner code runs without the lock
        self.waiting = 0                   # threads in wait_idle (only they need the notify when code ends)
        self.idle = threading.Condition(raw)
        self.release = raw.release
        self._release_save = raw._release_save      # type: ignore[attr-defined]  # what Condition.wait uses: the
        self._acquire_restore = raw._acquire_restore  # type: ignore[attr-defined]  # lock itself (private, as
        self._is_owned = raw._is_owned              # type: ignore[attr-defined]  # in threading.Condition)

    def busy(self) -> bool:
        """Does another thread's learner code run (call holding the lock)?"""
        return self.user is not None and self.user != threading.get_ident()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if not self.raw.acquire(blocking, timeout):
            return False
        if self.user is None or self.user == threading.get_ident():
            return True
        try:
            if self.wait_idle(timeout if blocking else 0):
                return True
        except BaseException:
            self.raw.release()
            raise
        self.raw.release()
        return False

    def wait_idle(self, timeout: float = -1) -> bool:
        """Wait (holding the lock) until no other thread's learner code runs; False if ``timeout``
        seconds (negative: no limit) were not enough."""
        self.waiting += 1
        try:
            return self.idle.wait_for(lambda: not self.busy(), None if timeout < 0 else timeout)
        finally:
            self.waiting -= 1

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.raw.release()


class UserCodeBlocked(Exception):
    """Learner code run by the runtime waited for another host thread, which can never come."""


def run(m: Machine, kind: str, tid: int, fn, *args, calls: bool = False) -> str:
    """Run ``fn(*args)`` as user code of ``kind`` ("kernel", "callback", "host_func");
    returns "" or the text of what went wrong.  ``calls``: the code may call the runtime (a
    callback of aclrtLaunchCallback, on the program's own thread: ``may_call``)."""
    ident = threading.get_ident()
    outer = (m.user_code, m.user_code_tid, _inside.get(ident), m.user_code_calls)
    m.user_code, m.user_code_tid, m.user_code_calls = kind, tid, calls
    _inside[ident] = m
    lock = m.lock
    saved = None
    if outer[2] is None and lock._is_owned():     # give the machine's lock up while the code runs
        lock.user = ident
        saved = lock._release_save()
    try:
        fn(*args)
        return ""
    except UserCodeBlocked as blocked_wait:
        return str(blocked_wait)
    except Exception as error:       # noqa: BLE001 - the learner's code: its failure is reported, not raised
        return f"{type(error).__name__}: {error}"
    except BaseException as interrupt:  # noqa: BLE001 - an interrupt: finish the step, raise it afterwards
        m.pending_interrupts.setdefault(ident, interrupt)
        return f"interrupted ({type(interrupt).__name__})"
    finally:
        if saved is not None:
            lock._acquire_restore(saved)
            lock.user = None
            if lock.waiting:
                lock.idle.notify_all()
        m.user_code, m.user_code_tid, m.user_code_calls = outer[0], outer[1], outer[3]
        if outer[2] is None:
            _inside.pop(ident, None)


def may_call(m) -> bool:
    """May the user code now running call the runtime?  A callback of aclrtLaunchCallback runs on a
    thread of the program's own, inside its aclrtProcessReport, and the official samples call the
    runtime there (the ResNet-50 asynchronous sample copies each result back in its callback); kernel
    bodies, host functions (the runtime's thread) and exception callbacks may not."""
    if not m.user_code_calls:
        return False
    th = m.threads.get(threading.get_ident())
    return th is not None and th.tid == m.user_code_tid


@contextlib.contextmanager
def calling(m):
    """A callback's runtime call runs as the thread's own call, then the callback goes on."""
    kind = m.user_code
    m.user_code = ""
    try:
        yield
    finally:
        m.user_code = kind


def nested_call(m, c_name: str) -> AclError:
    """The refusal of runtime call ``c_name`` made from inside the user code ``m.user_code``."""
    kind = m.user_code
    where = {"host_func": "a host function (aclrtLaunchHostFunc)", "kernel": "a kernel body",
             "exception": "an exception callback (aclrtSetExceptionInfoCallback)"}.get(kind, "a callback")
    whose = "kernel bodies run on the device and" if kind == "kernel" else "callbacks"
    return AclError(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                    f"{c_name} was called from inside {where}: {whose} must not call runtime APIs (allocation, "
                    "release, synchronization, task submission ...); do that work on a thread of your own")


def interrupted(m) -> bool:
    """Did user code run by the calling thread get interrupted (and the interrupt is not raised yet)?"""
    return bool(m.pending_interrupts) and threading.get_ident() in m.pending_interrupts


def raise_pending(m) -> None:
    """Raise, in the calling thread, the interrupt its user code got (the step is complete)."""
    exc = m.pending_interrupts.pop(threading.get_ident(), None)
    if exc is not None:
        raise exc


def inside() -> bool:
    """Is the calling thread running user code for the runtime right now?"""
    return bool(_inside) and threading.get_ident() in _inside


def blocked(what: str) -> UserCodeBlocked:
    return UserCodeBlocked(
        f"{what} waited more than {WAIT_LIMIT_S:.0f} s of real time inside code the runtime runs (a kernel body, "
        "callback or host function): the host thread running it holds the simulation, so the thread it waits "
        "for can never run; do the waiting on a host thread of your own")
