"""mstx (msTX, the MindStudio Tools Extension): marks and ranges in the default domain and in named domains.

The calls are C functions of CANN's ``mstx/ms_tools_ext.h`` (signatures: Ascend/mstx c/include/mstx/
ms_tools_ext.h:56-123, read in the public mirror xiaobingling93-pixel/Ascend-mstx at 7941d2d); pyACL does not
wrap them.  Without a tool behind them they do nothing (mstxRangeStartA returns 0, mstxDomainCreateA NULL:
mstx_detail/mstx_impl_core.h:22-54, 100-112).  The tool here is msprof, whose implementation is hicann/runtime
at 681ef761, src/dfx/msprof/collector/dvvp/msprof/msproftx/mstx/ (``mstx/`` below), always present in the
sandbox as msprof's library is in every CANN process:

* **On and off**: marks and ranges are kept only while msprof's mstx data handler runs (mstx/src/
  mstx_inject.cpp:135, 152, 169, 195, 215, 236), from aclprofStart with ACL_PROF_MSPROFTX (engine/src/
  prof_acl_mgr.cpp:3209, 2580-2591, 2564-2571) or the command line's ``--msproftx=on`` (:2593-2609;
  ``sandbox.msprof`` here), to aclprofStop (profimpl/adapter/src/msprofiler_acl_api.cpp:456-458,
  profimpl/report/prof_reporter_mgr.cpp:392, 407).  Off, every call but the domain ones does nothing.
* **Domains**: mstxDomainCreateA returns NULL (0) for a name that is empty, starts with = + - or @, has 1024
  bytes or more (mstx_inject.cpp:31-62) or is "default" (mstx/src/mstx_domain_mgr.cpp:29-32); a name made
  before gives its handle again (:41-45).  mstxDomainDestroy forgets the handle (:63-67): later calls with it
  do nothing.  The calls without "Domain" use the default domain, "default".
* **Filters**: the command line's ``--mstx-domain-include`` / ``--mstx-domain-exclude`` (comma-separated
  names, "default" the default domain) keep only, or drop, those domains' marks and ranges
  (mstx_domain_mgr.cpp:87-134), set at the collection's start; aclprofStart sets none (every domain is kept).
* **Marks and ranges**: a message that is empty or starts with = + - or @ is dropped (mstx_inject.cpp:38-48).
  Each mark and range start takes the next event id of the process's msproftx manager (msprof_tx_manager.cpp:
  419; ids count from 1 and never restart); a range's id is that id, 0 (MSTX_INVALID_RANGE_ID) when nothing was
  started.  A range ends only with the domain it started in (mstx_inject.cpp:102-111): mstxRangeEnd of a
  domain's range, or an id never started, ends nothing.  A mark is a ``Note`` of kind "msproftx" with its
  domain on the calling thread's row; a range is one when it ends, on the row of the thread that started it
  (mstx/src/mstx_data_handler.cpp:161-189), ``began`` its start.  With a stream (not NULL) msprof also puts a
  marker task on it (mstx_inject.cpp:67, 82, 112-123), and a stream the runtime refuses drops the mark or
  range; the sandbox checks the stream and marks the host's time only, as for aclprofMarkEx.  The sandbox
  numbers mstx's events by themselves, where aclprofMarkEx takes numbers from the same counter on a board.

None of the calls has an error code (they return void, an id or a handle): a call that does nothing leaves
its call record only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .. import constants as C
from ..errors import AclError
from ..trace import Note, ProfilingStarted, ProfilingStopped
from . import profiling

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import HostThread

DEFAULT = "default"
NAME_BYTES = 1024
COMMAND_LINE = C.ACL_PROF_ACL_API | C.ACL_PROF_TASK_TIME | C.ACL_PROF_AICORE_METRICS   # msprof's default switches


@dataclass
class Process:
    domains: dict = field(default_factory=dict)     # handle -> name
    events: int = 0                                  # the last event id given
    open: dict = field(default_factory=dict)         # range id -> (domain, message, began, tid, stream)
    command_line: ProfilingStarted | None = None     # sandbox.msprof's collection
    filters: tuple[bool, frozenset] | None = None    # (include?, names), the command line's
    tx_before: bool = False                          # aclprof's msproftx switch before the command line


class Mstx:
    """The machine's mstx state, made on first use."""

    def __init__(self, m: Machine):
        self.processes: dict[int, Process] = {}


def _state(m: Machine, th: HostThread) -> Process:
    return m.feature(Mstx).processes.setdefault(th.process.pid, Process())


def _c_string(text: str) -> str:
    return text.split("\0", 1)[0]    # what a C function reads of it


def _valid(text: str) -> bool:
    return bool(text) and text[0] not in "=+-@"


def _kept(m: Machine, th: HostThread, s: Process, domain: str) -> bool:
    """A collection with msproftx runs, and its filters keep ``domain``."""
    started = profiling._state(m, th).started
    if not any(c is not None and c.data_types & C.ACL_PROF_MSPROFTX for c in (s.command_line, started)):
        return False
    if s.filters is None:
        return True
    include, names = s.filters
    return (domain in names) == include


def _domain(s: Process, handle: int | None) -> str | None:
    return DEFAULT if handle is None else s.domains.get(handle)


def _stream_ok(m: Machine, th: HostThread, stream: int) -> bool:
    if stream:
        try:
            m.stream(th, stream)
        except AclError:
            return False
    return True


def domain_create(m: Machine, th: HostThread, name: str) -> int:
    s, name = _state(m, th), _c_string(name)
    if not _valid(name) or len(name.encode()) >= NAME_BYTES or name == DEFAULT:
        return 0
    handle = next((h for h, n in s.domains.items() if n == name), None)
    if handle is None:
        handle = m.new_handle()
        s.domains[handle] = name
    return handle


def domain_destroy(m: Machine, th: HostThread, handle: int) -> None:
    _state(m, th).domains.pop(handle, None)


def mark(m: Machine, th: HostThread, handle: int | None, message: str, stream: int) -> None:
    s, message = _state(m, th), _c_string(message)
    domain = _domain(s, handle)
    if domain is None or not _kept(m, th, s, domain) or not _valid(message):
        return
    s.events += 1
    if _stream_ok(m, th, stream):
        m.log.append(Note(th.clock, th.tid, message, "msproftx", None, domain))


def range_start(m: Machine, th: HostThread, handle: int | None, message: str, stream: int) -> int:
    s, message = _state(m, th), _c_string(message)
    domain = _domain(s, handle)
    if domain is None or not _kept(m, th, s, domain) or not _valid(message):
        return 0
    s.events += 1
    if not _stream_ok(m, th, stream):
        return 0
    s.open[s.events] = (domain, message, th.clock, th.tid, stream)
    return s.events


def range_end(m: Machine, th: HostThread, handle: int | None, range_id: int) -> None:
    s = _state(m, th)
    domain = _domain(s, handle)
    if range_id == 0 or domain is None or not _kept(m, th, s, domain):
        return
    opened = s.open.get(range_id)
    if opened is None or opened[0] != domain:
        return
    del s.open[range_id]
    _, message, began, tid, stream = opened
    if _stream_ok(m, th, stream):
        m.log.append(Note(th.clock, tid, message, "msproftx", began, domain))


# -- the command line (sandbox.msprof) ---------------------------------------------------------------
def command_line_start(m: Machine, th: HostThread, path: str, msproftx: bool, include: str, exclude: str) -> None:
    """What ``msprof --output=path --msproftx=on|off [--mstx-domain-include|exclude=...]`` starts for this
    process: a collection of every device, msproftx (aclprof's and mstx's) on with ``msproftx``."""
    s, p = _state(m, th), profiling._state(m, th)
    if s.command_line is not None:
        raise ValueError("msprof already collects this process (sandbox.msprof calls do not nest)")
    names = include or exclude
    s.filters = (bool(include), frozenset(names.split(","))) if names else None
    data_types = profiling.expand(COMMAND_LINE | (C.ACL_PROF_MSPROFTX if msproftx else 0))
    name = profiling.collection_name(th.process.pid, 0, th.clock)
    s.command_line = ProfilingStarted(th.clock, th.tid, th.process.pid, path, name, data_types,
                                      tuple(range(len(m.devices))))
    m.log.append(s.command_line)
    s.tx_before, p.tx = p.tx, p.tx or msproftx


def command_line_stop(m: Machine, th: HostThread, write) -> None:
    """The end of the command line's collection: its files are written (``write(log, started, t)``)."""
    s, p = _state(m, th), profiling._state(m, th)
    started = s.command_line
    if started is None:
        return
    s.command_line, s.filters, p.tx = None, None, s.tx_before
    m.settle()
    write(m.log, started, th.clock)
    m.log.append(ProfilingStopped(th.clock, th.tid, th.process.pid, started.collection, started.t))
