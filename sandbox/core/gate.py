"""The API gate: what every runtime call goes through, whatever it does.

It finds the calling host thread, charges the call's host cost to that thread's clock,
turns an ``AclError`` into the returned code and the thread's recent-error message, logs
the call, and lets the device side catch up.  pyACL's return conventions live here:
status-only calls return the int; value calls return a tuple with ret last.
"""
from __future__ import annotations

import numbers

from .callbacks import refuse_nested
from .errors import ACL_ERROR_INVALID_PARAM, ACL_ERROR_UNINITIALIZE, AclError, RunAborted, describe, fail
from .machine import current
from .trace import API_CALL, ErrorRaised


def call(c_name: str, body, *, cost: int | str, defaults: tuple = (), needs_init: bool = True, args=()):
    """Run ``body(machine, thread)`` as the runtime call ``c_name``.

    ``cost`` is the call's host time: ns, or the name of one of the profile's host costs.
    ``args`` are the arguments the trace shows, flat: name, value, name, value ...

    ``defaults`` are the values returned beside the error code when the call fails; their
    number decides the return shape (none: a bare int).
    """
    m = current()
    if m.aborted:
        raise RunAborted(m.aborted)
    with m.lock:
        if m.user_code:                  # called from inside a kernel body, callback or host function
            return refuse_nested(m, c_name, defaults)
        th = m.current_thread()
        m.scheduler.wait_turn(th)
        start = th.clock
        th.call_tasks = []
        th.call_blocked_from = None
        th.call_seq = seq = m.new_api_seq()
        error = None
        try:
            if needs_init and not th.process.initialized:
                fail(ACL_ERROR_UNINITIALIZE, f"{c_name}: call acl.init() first")
            th.clock += cost if type(cost) is int else getattr(m.profile.host_costs, cost)
            values = body(m, th)
            ret = 0
        except AclError as exc:
            error = exc
            ret = exc.code
            values = defaults
            th.last_error = ret
            th.err_msgs.append(f"{c_name} failed: {exc.message}")
            m.log.append(ErrorRaised(th.clock, th.tid, c_name, exc.code, exc.name, exc.message))
        m.log.append((API_CALL, start, th.clock, th.tid, th.process.pid, c_name, ret, args,
                      tuple(th.call_tasks), th.call_blocked_from, seq))
        m.settle()
        m.scheduler.wait_turn(th)
        raise_errors = m.raise_errors
    if error is not None and raise_errors:
        raise error
    if not defaults:
        return ret
    if len(defaults) == 1:
        return (values, ret) if error is None else (defaults[0], ret)
    return (*values, ret)


def local(body):
    """Run a helper that takes no virtual time (acl.util, recent error message) under the lock."""
    m = current()
    if m.aborted:
        raise RunAborted(m.aborted)
    with m.lock:
        th = m.current_thread()
        if not m.user_code:              # user code runs inside the simulation: no turn to wait for
            m.scheduler.wait_turn(th)
        return body(m, th)


# -- argument checks shared by the facade ---------------------------------------------------
def as_int(value, what: str) -> int:
    """An int argument, or ACL_ERROR_INVALID_PARAM (bools and floats are not ints)."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be an int, got {describe(value)}")
    return int(value)        # a numpy integer scalar is an int


def as_ptr(value, what: str) -> int:
    """A pointer argument: an int, with None accepted as the null pointer (0)."""
    return 0 if value is None else as_int(value, what)


def as_size(value, what: str, *, positive: bool = False) -> int:
    size = as_int(value, what)
    if size < 0 or (positive and size == 0):
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be {'> 0' if positive else '>= 0'}, got {size}")
    return size
