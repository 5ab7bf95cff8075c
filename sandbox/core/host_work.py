"""Host-side work that takes time: ``sandbox.host_work(ns, what)``.

The runtime calls charge their own host costs, but a real program also computes on the
host (preprocessing a batch, post-processing a result in a callback).  This lets a program
say how long that takes, so the timeline shows it on the thread's row and later calls start
after it.  Inside a callback served by ``aclrtProcessReport`` it lengthens the callback (and
so how long a BLOCK callback holds its stream).  A host function (aclrtLaunchHostFunc) runs
inside the device simulation on the runtime's thread, where it is not modelled: there the
call is refused with a message.
"""
from __future__ import annotations

from .errors import ACL_ERROR_RT_FEATURE_NOT_SUPPORT, AclError, fail
from .gate import as_size, call
from .machine import current


def host_work(ns, what: str = "host work") -> int:
    """Spend ``ns`` of the calling thread's virtual time on host work; returns 0 or an error code."""
    m = current()
    st = m.callback_state
    if st is not None and st.busy:            # user code the runtime is running: no call of its own
        with m.lock:
            return _inside_callback(m, m.current_thread(), st.busy, ns)
    return call(f"host work: {what}", lambda m, th: _spend(th, ns), cost=0, needs_init=False,
                args=("ns", ns))


def _spend(th, ns) -> None:
    th.clock += as_size(ns, "ns")


def _inside_callback(m, th, busy: str, ns) -> int:
    try:
        if busy == "host_func":
            fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                 "sandbox.host_work inside a host function (aclrtLaunchHostFunc) is not modelled; use "
                 "aclrtLaunchCallback with a thread that calls aclrtProcessReport")
        _spend(th, ns)
        return 0
    except AclError as exc:
        th.err_msgs.append(f"sandbox.host_work failed: {exc.message}")
        th.last_error = exc.code
        return exc.code
