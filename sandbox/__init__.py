"""A teaching sandbox for the Ascend CANN runtime: pyACL-style calls on a simulated machine.

    from sandbox import acl
    acl.init()
    acl.rt.set_device(0)

``configure`` starts a fresh simulated machine; ``now`` is the calling thread's virtual time
in ns; ``trace`` is the log every view is drawn from; ``kernel`` turns a Python function
into a device kernel.
"""

from __future__ import annotations

from . import acl
from .core import python_threads as _python_threads
from .core.errors import AclError
from .core.hazards import HazardWarning
from .core.features.leaks import LeakWarning
from .core.features.kernels import Kernel, kernel, ptr
from .core.machine import current as _current
from .core.machine import configure as _configure
from .core.features.host_work import host_work
from .core.features.processes import SimProcess, spawn_process
from .core.trace import TraceLog
from .acl.beyond_pyacl import check as not_in_pyacl
from .command_line import msprof
from .shared import read_shared, write_shared
from .i18n import install_report_texts as _install_report_texts
from .i18n import set_language
from .profiles import PROFILES, Profile, get_profile

__all__ = [
    "acl",
    "configure",
    "now",
    "trace",
    "kernel",
    "ptr",
    "Kernel",
    "raise_on_error",
    "AclError",
    "profile",
    "PROFILES",
    "Profile",
    "get_profile",
    "TraceLog",
    "spawn_process",
    "SimProcess",
    "host_work",
    "write_shared",
    "read_shared",
    "not_in_pyacl",
    "msprof",
]
__all__ += ["hazards", "leak_report", "HazardWarning", "LeakWarning", "set_language"]

_python_threads.install()
_install_report_texts()

_VIEWS = ("show", "step_through", "gantt", "memory_map", "queues", "summary", "export_trace")
__all__ += list(_VIEWS)


def __getattr__(name):
    """The views (dashboard, Gantt, memory map, queues, summary, trace export) and the exercises
    (``sandbox.teach``) load on first use, so that ``import sandbox`` stays light for programs
    that only run the runtime."""
    if name in _VIEWS:
        from .widgets import api

        return getattr(api, name)
    if name == "teach":
        import importlib

        return importlib.import_module(".teach", __name__)
    raise AttributeError(f"module 'sandbox' has no attribute {name!r}")


def configure(profile="ascend910b", device_count: int | None = None, host_memory_budget: int | None = None) -> None:
    """Start a fresh simulated machine (default: an 8-device Ascend 910B server).

    ``profile`` is a name ("ascend910b", "ascend310p", "ascend310b"), a short alias ("310b")
    or a Profile; ``device_count`` (an int) overrides the profile's server size.
    ``host_memory_budget``: how many bytes of this computer's memory the written bytes of
    simulated device and pinned memory may take (default: half of it); a write past it fails
    with 207001 ACL_ERROR_RT_MEMORY_ALLOCATION instead of exhausting the host.
    """
    _configure(profile, device_count, host_memory_budget)


def now() -> int:
    """The calling host thread's virtual time, in integer nanoseconds."""
    m = _current()
    with m.lock:
        return m.current_thread().clock


def trace() -> TraceLog:
    """The current machine's trace log: every API call, task, allocation and error."""
    return _current().log


def profile() -> Profile:
    """The profile of the current machine."""
    return _current().profile


def raise_on_error(enabled: bool = True) -> None:
    """Make failing calls raise ``AclError`` (code, C name, message) instead of returning codes."""
    _current().raise_errors = bool(enabled)


def inject_fault(kind: str, device=None, stream=None, after: int = 0, count=..., peer=None, code=None) -> int:
    """Make coming device tasks fail, to practise error recovery; returns the fault's number.

    ``kind``: "kernel_trap" (507016), "dma_error" (507013) or "link_down" (507056, peer copies
    between ``device`` and ``peer``).  The first ``after`` matching tasks submitted from now
    on succeed, the next ``count`` fail (link_down: every one until ``clear_faults()``).
    See sandbox/core/features/faults.py.
    """
    from .core.features import faults
    from .core.gate import local

    def body(m, th):
        try:
            if count is ...:
                return faults.inject(m, th, kind, device, stream, after, peer=peer, code=code)
            return faults.inject(m, th, kind, device, stream, after, count, peer, code)
        except AclError as exc:
            raise ValueError(exc.message) from None

    return local(body)


def clear_faults() -> None:
    """Disarm every injected fault (a link that was down is up again)."""
    from .core.features import faults
    from .core.gate import local

    local(lambda m, th: faults.clear(m, th))


__all__ += ["inject_fault", "clear_faults"]


def hazards() -> list:
    """The hazards found so far on the current machine (trace.Hazard records, in order): races
    and misuse found by the ordering rules, whatever the schedule did (see core/hazards.py).
    Under ``set_language("zh")`` each record's ``message`` is in Chinese (the trace keeps the
    English one)."""
    import dataclasses

    from .core.hazards import hazards as _hazards
    from .i18n import language, report_text

    found = _hazards(_current().log)
    if language() == "en":
        return found
    return [dataclasses.replace(h, message=report_text(h.message)) for h in found]


def leak_report(pid: int | None = None):
    """What each live process (or process ``pid``) allocated or created and has not released;
    ``str()`` of it is the text report (in Chinese under ``set_language("zh")``), ``.items``
    the data (see core/features/leaks.py)."""
    from .core.features.leaks import Report, report
    from .i18n import language, report_text

    m = _current()
    with m.lock:
        found = report(m, pid)
    if language() == "en":
        return found
    return Report(tuple((p, held, report_text(text)) for p, held, text in found.parts))
