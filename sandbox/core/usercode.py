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
  message instead of hanging the notebook.
"""
from __future__ import annotations

import threading

from .errors import ACL_ERROR_RT_FEATURE_NOT_SUPPORT, AclError

WAIT_LIMIT_S = 2.0            # real seconds a wait inside user code may take before it is a deadlock

_inside: dict[int, object] = {}      # thread ident -> the machine whose user code it is running


class UserCodeBlocked(Exception):
    """Learner code run by the runtime waited for another host thread, which can never come."""


def run(m, kind: str, tid: int, fn, *args) -> str:
    """Run ``fn(*args)`` as user code of ``kind`` ("kernel", "callback", "host_func");
    returns "" or the text of what went wrong."""
    ident = threading.get_ident()
    outer = (m.user_code, m.user_code_tid, _inside.get(ident))
    m.user_code, m.user_code_tid = kind, tid
    _inside[ident] = m
    try:
        fn(*args)
        return ""
    except UserCodeBlocked as exc:
        return str(exc)
    except Exception as exc:         # noqa: BLE001 - the learner's code: its failure is reported, not raised
        return f"{type(exc).__name__}: {exc}"
    except BaseException as exc:     # noqa: BLE001 - an interrupt: finish the step, raise it afterwards
        m.pending_interrupts.setdefault(ident, exc)
        return f"interrupted ({type(exc).__name__})"
    finally:
        m.user_code, m.user_code_tid = outer[0], outer[1]
        if outer[2] is None:
            _inside.pop(ident, None)


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


# -- waits inside user code give up ----------------------------------------------------------------
_original_condition_wait = threading.Condition.wait


def _condition_wait(self, timeout=None):
    """Condition.wait (and so Event.wait, queue.Queue.get/put, Barrier, Semaphore) inside user code
    waits at most WAIT_LIMIT_S; elsewhere it is the standard one."""
    if not inside() or (timeout is not None and timeout <= WAIT_LIMIT_S):
        return _original_condition_wait(self, timeout)
    if _original_condition_wait(self, WAIT_LIMIT_S):
        return True
    raise blocked("a threading wait (Event, Condition, Queue, ...)")


def install() -> None:
    threading.Condition.wait = _condition_wait  # type: ignore[method-assign]  # the patch is the point
