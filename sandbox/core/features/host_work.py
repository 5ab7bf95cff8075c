"""Host-side work that takes time: ``sandbox.host_work(ns, what)``.

The runtime calls charge their own host costs, but a real program also computes on the
host (preprocessing a batch, post-processing a result in a callback).  This lets a program
say how long that takes, so the timeline shows it on the thread's row and later calls start
after it.  Inside a callback served by ``aclrtProcessReport`` it lengthens the callback (and
so how long a BLOCK callback holds its stream).  A host function (aclrtLaunchHostFunc) runs
inside the device simulation on the runtime's thread, where it is not modelled: there the
call is refused like any failed call (``gate.refuse``: code, message, ErrorRaised record,
raised under ``sandbox.raise_on_error``).

``ns`` is an int from 0 to ``MAX_HOST_WORK_NS`` (one hour of virtual time), else the call
returns 100000 ACL_ERROR_INVALID_PARAM and the clock does not move: like a kernel's
duration (core/features/kernels.py, MAX_KERNEL_NS), a longer piece of host work is a slip in the
figures, and would push the virtual clock to integers no timeline can draw.
"""
from __future__ import annotations

from ..errors import ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, AclError, describe, fail
from ..gate import as_size, call, refuse
from ..machine import current

MAX_HOST_WORK_NS = 3600 * 10 ** 9       # one hour of virtual time per call


def host_work(ns, what: str = "host work") -> int:
    """Spend ``ns`` of the calling thread's virtual time on host work; returns 0 or an error code."""
    m = current()
    if m.user_code:                           # user code the runtime is running: no call of its own
        with m.lock:
            th = m.current_thread()
            try:
                _inside_user_code(th, m.user_code, ns)
                return 0
            except AclError as exc:
                return refuse(m, th, "sandbox.host_work", exc)
    return call(f"host work: {what if type(what) is str else describe(what)}", lambda m, th: _spend(th, ns),
                cost=0, args=("ns", ns))


def _spend(th, ns) -> None:
    ns = as_size(ns, "ns")
    if ns > MAX_HOST_WORK_NS:
        fail(ACL_ERROR_INVALID_PARAM, f"ns={describe(ns)} is more than the {MAX_HOST_WORK_NS} ns (one hour of "
             "virtual time) one piece of host work may take")
    th.clock += ns


def _inside_user_code(th, busy: str, ns) -> None:
    if busy == "host_func":
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             "sandbox.host_work inside a host function (aclrtLaunchHostFunc) is not modelled; use "
             "aclrtLaunchCallback with a thread that calls aclrtProcessReport")
    if busy == "kernel":
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             "sandbox.host_work inside a kernel body: a kernel's time is declared with "
             "@sandbox.kernel(ns=..., bytes=..., flops=...)")
    _spend(th, ns)
