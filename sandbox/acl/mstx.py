"""``acl.mstx``: the mstx calls of CANN's ``mstx/ms_tools_ext.h``, beyond pyACL.

pyACL does not wrap mstx (msTX, the MindStudio Tools Extension); the official sample
``5_performance/profiling/3_mstx_with_domain`` calls it from C.  The sandbox offers its calls under pyACL's
naming rule for a C call, with the library's prefix as the submodule, as ``aclprofMarkEx`` is
``acl.prof.mark_ex``: ``mstxMarkA`` is ``acl.mstx.mark_a``, ``mstxDomainCreateA`` ``acl.mstx.domain_create_a``.

    domain = acl.mstx.domain_create_a("DoAclAdd_Inner")       # a handle; 0 (NULL) for a name refused
    range_id = acl.mstx.range_start_a("TestMstxWithDomain", stream)
    acl.mstx.mark_a("DoAclAdd Start", stream)                  # None, as the C call returns void
    acl.mstx.domain_mark_a(domain, "Create alpha aclScalar", stream)
    acl.mstx.range_end(range_id)
    acl.mstx.domain_destroy(domain)

The returns are the C calls': None for the void ones, the range id (0: none started) and the domain handle
(0: NULL) alone.  No call has an error code: one that does nothing leaves its call record only.  ``stream``
is a stream handle or 0 (NULL: no stream).  A message or name must be a str (None: TypeError; another type
returns the call's default, with 100000 in the thread's recent error message, as the facade's other calls).

**When they are kept**: as on a board, only while a collection with msproftx runs in the process:
``acl.prof.start`` of a config holding ACL_PROF_MSPROFTX until ``acl.prof.stop``, or ``sandbox.msprof``
(msprof's command line, ``--msproftx=on``, with its ``--mstx-domain-include``/``--mstx-domain-exclude``
filters).  Outside one they do nothing and a range start returns 0, as mstx does with no tool behind it.
Kept marks and ranges are trace ``Note`` records of kind "msproftx" with their domain: the collection's
``msprof_*.json`` and ``sandbox.export_trace`` show them on their thread's row, with ``args.domain``.  The
rules and their sources are in ``sandbox.core.features.mstx``.
"""

from __future__ import annotations

from ..core.features import mstx
from ._declare import api, handle
from .prof import text


@api("mstxMarkA", defaults=(None,), bare=True)
def mark_a(m, th, message: text, stream: handle) -> None:
    """mstxMarkA: an instant in the default domain, on this thread's row."""
    mstx.mark(m, th, None, message, stream)


@api("mstxRangeStartA", defaults=(0,), bare=True)
def range_start_a(m, th, message: text, stream: handle):
    """mstxRangeStartA: a range of the default domain starts; its id (0 when none started)."""
    return mstx.range_start(m, th, None, message, stream)


@api("mstxRangeEnd", defaults=(None,), bare=True)
def range_end(m, th, range_id: int) -> None:
    """mstxRangeEnd: the default domain's range ``range_id`` ends."""
    mstx.range_end(m, th, None, range_id % (1 << 64))


@api("mstxDomainCreateA", defaults=(0,), bare=True)
def domain_create_a(m, th, name: text):
    """mstxDomainCreateA: the domain's handle (the same for a name made before), 0 (NULL) for "default", an
    empty name, one starting with = + - or @, or one of 1024 bytes or more."""
    return mstx.domain_create(m, th, name)


@api("mstxDomainDestroy", defaults=(None,), bare=True)
def domain_destroy(m, th, domain: handle) -> None:
    """mstxDomainDestroy: the handle is forgotten; calls with it do nothing."""
    mstx.domain_destroy(m, th, domain)


@api("mstxDomainMarkA", defaults=(None,), bare=True)
def domain_mark_a(m, th, domain: handle, message: text, stream: handle) -> None:
    """mstxDomainMarkA: an instant in ``domain``, on this thread's row."""
    mstx.mark(m, th, domain, message, stream)


@api("mstxDomainRangeStartA", defaults=(0,), bare=True)
def domain_range_start_a(m, th, domain: handle, message: text, stream: handle):
    """mstxDomainRangeStartA: a range of ``domain`` starts; its id (0 when none started)."""
    return mstx.range_start(m, th, domain, message, stream)


@api("mstxDomainRangeEnd", defaults=(None,), bare=True)
def domain_range_end(m, th, domain: handle, range_id: int) -> None:
    """mstxDomainRangeEnd: the range ``range_id`` of ``domain`` ends."""
    mstx.range_end(m, th, domain, range_id % (1 << 64))
