"""The API gate: what every runtime call goes through, whatever it does.

It finds the calling host thread, charges the call's host cost to that thread's clock,
logs the call, and lets the device side catch up.  A failed call, whoever refuses it, is
reported by ``refuse``: the code and the thread's recent-error message, an ErrorRaised
record, the exception under ``sandbox.raise_on_error``.  pyACL's return conventions live
here: status-only calls return the int; value calls return a tuple with ret last.
"""
from __future__ import annotations

import numbers
from threading import get_ident

from . import current_machine as _machines
from . import hazards, learner_code
from .errors import ACL_ERROR_INVALID_PARAM, ACL_ERROR_UNINITIALIZE, AclError, RunAborted, describe, fail
from .machine import current
from .trace import API_CALL, ErrorRaised


# What a call's row starts from; the call's body adds to it.  (Typed: the compiled build,
# tools/build_compiled.py, checks a value read back against the type of what was last assigned.)
_NO_TASKS: tuple[int, ...] = ()
_NOT_BLOCKED: int | None = None
_NO_WAITS: tuple = ()


def call(c_name: str, body, params: tuple = (), *, cost: int | str, defaults: tuple = (), needs_init: bool = False,
         args=()):
    """Run ``body(machine, thread, *params)`` as the runtime call ``c_name``.

    ``cost`` is the call's host time: ns, or the name of one of the profile's host costs.
    ``args`` are the arguments the trace shows, flat: name, value, name, value ...

    ``defaults`` are the values returned beside the error code when the call fails; their
    number decides the return shape (none: a bare int).  ``needs_init``: refused with 100001
    before aclInit (only the dump and profiling calls check it in the runtime's sources).
    """
    m = _machines._current if not _machines._bound else None
    if m is None:
        m = current()
    if m.aborted:
        raise RunAborted(m.aborted)
    lock = m.lock
    with lock.raw:                       # MachineLock's acquire, inline (every call takes it)
        ident = get_ident()
        if lock.user is not None and lock.user != ident:
            lock.wait_idle()             # another thread's learner code runs: wait until it is over
        if m.user_code:                  # called from inside a kernel body, callback or host function
            if learner_code.may_call(m):  # an aclrtLaunchCallback callback, on the program's own thread
                hazards.callback_call(m, m.threads[ident], c_name)
                with learner_code.calling(m):
                    return call(c_name, body, params, cost=cost, defaults=defaults, needs_init=needs_init, args=args)
            return refuse(m, m.threads.get(ident), c_name, learner_code.nested_call(m, c_name), defaults)
        th = m.threads.get(ident) or m.current_thread()
        scheduler = m.scheduler
        if scheduler.solo is not th:     # the only thread, free to run, waits for no turn (host_turns.Scheduler.recount)
            scheduler.wait_turn(th)
        start = th.clock
        th.call_tasks = _NO_TASKS
        th.call_blocked_from, th.call_waited_for = _NOT_BLOCKED, _NO_WAITS
        th.call_seq = seq = next(m.call_numbers)     # the call's number (ApiCall.api_seq)
        ret = -1                         # no answer yet (a code is 0 or more)
        try:
            if needs_init and not th.process.initialized:
                fail(ACL_ERROR_UNINITIALIZE, f"{c_name}: call acl.init() first")
            th.clock += cost if type(cost) is int else m.host_cost_ns[cost]  # type: ignore[index]  # type() is int, not isinstance: no narrowing
            values = body(m, th, *params)
            ret = 0
        except AclError as exc:
            ret = exc.code
            return refuse(m, th, c_name, exc, defaults)        # its record first, then the call's row
        finally:
            if ret >= 0:                 # (any other exception is the sandbox's own and propagates as it is)
                m.log.append_call((API_CALL, start, th.clock, th.tid, th.process.pid, c_name, ret, args,
                                   th.call_tasks, th.call_blocked_from, seq, th.call_waited_for))
                if scheduler.solo is th:
                    m.sim.run_before(th.clock, m.pending_interrupts)   # one thread: Scheduler.advance's first case
                else:
                    m.settle()
                if scheduler.solo is not th:
                    scheduler.wait_turn(th)
                th.impatient = False     # a call has come through (host_turns.Scheduler.set_aside)
                if m.pending_interrupts:  # the stop button inside code this call ran: it stops here
                    learner_code.raise_pending(m)
    if not defaults:
        return 0
    if len(defaults) == 1:
        return values, 0
    return (*values, 0)


def refuse(m, th, c_name: str, exc: AclError, defaults: tuple = (), *, code: bool = True):
    """What a failed call returns, for every way a call fails: in the gate, a runtime call made
    from inside user code (learner_code.nested_call), sandbox.host_work inside user code, an
    acl.util helper.  Called under the machine lock.

    ``th`` (the host thread the caller's code runs on, None if none) gets the code as its last
    error and "c_name failed: message" among its recent-error messages.  The ErrorRaised
    record goes on the row of the code that made the call: the thread's, at its clock, or,
    inside a kernel body or host function, that code's row at the device's time.  With
    ``sandbox.raise_on_error(True)`` the AclError is raised; else ``defaults`` come back in
    pyACL's shape: ``code`` (runtime calls) appends the error code (no defaults: the bare
    code); without it (acl.util) the one default, or the tuple, is the whole answer.
    """
    if th is not None:
        th.last_error = exc.code
        th.err_msgs.append(f"{c_name} failed: {exc.message}")
    if th is None or m.user_code in ("kernel", "host_func", "exception"):
        tid, t = m.user_code_tid, m.sim.now
    else:
        tid, t = th.tid, th.clock
    m.log.append(ErrorRaised(t, tid, c_name, exc.code, exc.name, exc.message))
    if m.raise_errors:
        raise exc
    if not code:
        return defaults[0] if len(defaults) == 1 else defaults
    return (*defaults, exc.code) if defaults else exc.code


def local(body, c_name: str | None = None, defaults: tuple = (), *, code: bool = False, params: tuple = ()):
    """Run a helper, ``body(machine, thread, *params)``, that takes no virtual time (acl.util, recent
    error message) under the lock; a named one (``c_name``) reports an AclError as its failure (``refuse``)."""
    m = current()
    if m.aborted:
        raise RunAborted(m.aborted)
    with m.lock:
        th = m.current_thread()
        if not m.user_code:              # user code runs inside the simulation: no turn to wait for
            m.scheduler.wait_turn(th)
        if c_name is None:
            return body(m, th, *params)
        try:
            return body(m, th, *params)
        except AclError as exc:
            return refuse(m, th, c_name, exc, defaults, code=code)


# -- argument checks shared by the facade ---------------------------------------------------
def as_int(value, what: str) -> int:
    """An int argument, or ACL_ERROR_INVALID_PARAM (bools and floats are not ints)."""
    if type(value) is int:
        return value
    current().log.plain = False          # the call's record shows this value: marshal might not give it back
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be an int, got {describe(value)}")
    try:
        return int(value)    # a numpy integer scalar is an int
    except Exception as exc:  # noqa: BLE001 - an int subclass whose conversion raises: the caller's mistake
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be an int, got {describe(value)}, whose int() raised "
             f"{type(exc).__name__}")


def as_ptr(value, what: str) -> int:
    """A pointer argument: an int, with None accepted as the null pointer (0)."""
    return 0 if value is None else as_int(value, what)


def as_size(value, what: str, *, positive: bool = False) -> int:
    size = as_int(value, what)
    if size < 0 or (positive and size == 0):
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be {'> 0' if positive else '>= 0'}, got {size}")
    return size
