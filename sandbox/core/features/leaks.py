"""Leak reports: what a process allocated or created and never released.

``report(m, pid)`` lists, for one process: device memory from aclrtMalloc (and pool blocks
still in use), mapped ranges, reserved address ranges and physical memory handles (core/features/vmm.py),
pinned host memory from aclrtMallocHost, IPC memory exported or imported and not closed
(aclrtIpcMemClose, core/features/ipc.py), memory pools not destroyed, explicit
streams, events, notifies and explicit contexts still alive.  Default contexts and default streams
are not listed: they belong to aclrtSetDevice/aclrtResetDevice, which finalize releases.

aclFinalize computes the report before it releases anything, and so does a simulated
process that ends without aclFinalize; a non-empty report becomes a ``LeakWarning`` and a
``trace.LeakReport`` record.  Everything is sorted by device and address/number, so the
report reads the same on every run.
"""
from __future__ import annotations

from .. import trace as T
from . import ipc, vmm
from ..hazards import emit
from .pools import PoolState
from .notifies import Waits


class LeakWarning(UserWarning):
    """Something the program allocated or created was never released."""


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n} bytes ({n / scale:.3g} {unit})"
    return f"{n} bytes"


def items(m, pid: int) -> tuple:
    """(kind, device, ident, size, detail) of everything process ``pid`` still holds."""
    out = [("allocation", dev.index, ptr, a.size, a.policy) for dev in m.devices for ptr, a in
           sorted(dev.memory.allocations.items()) if a.pid == pid and not a.policy.startswith("IPC import")]
    out += vmm.leaks(m, pid)
    out += ipc.held(m, pid)
    out += [("pinned", -1, ptr, b.size, "aclrtMallocHost") for ptr, b in sorted(m.host.pinned.items()) if b.pid == pid]
    pools = m.feature_in_use(PoolState)
    out += [("pool", p.device, handle, p.reserved, f"{len(p.live)} blocks in use")
            for handle, p in sorted(pools.pools.items() if pools is not None else ()) if p.pid == pid]
    streams = [s for s in m.streams.values()
               if s.alive and not s.label and not s.is_default and s.context.process.pid == pid]
    out += [("stream", s.device, s.handle, 0, f"Stream {s.stream_id}")
            for s in sorted(streams, key=lambda s: (s.device, s.stream_id))]
    events = [e for e in m.events.values() if e.alive and e.context.process.pid == pid]
    for e in sorted(events, key=lambda e: (e.device, e.handle)):
        made = ("aclrtIpcOpenEventHandle" if e.opened else "aclrtCreateEvent" if e.plain
                else "aclrtCreateEventExWithFlag" if e.ex else "aclrtCreateEventWithFlag")
        out.append(("event", e.device, e.handle, 0, made))
    notifies = getattr(m.feature_in_use(Waits), "notifies", {})
    out += [("notify", n.device, handle, 0, getattr(n, "made", "aclrtCreateNotify"))
            for handle, n in sorted(notifies.items(), key=lambda item: (item[1].device, item[0])) if n.pid == pid]
    contexts = [c for c in m.contexts.values() if c.alive and not c.is_default and c.process.pid == pid]
    out += [("context", c.device, c.handle, 0, "aclrtCreateContext")
            for c in sorted(contexts, key=lambda c: (c.device, c.handle))]
    return tuple(out)


_FIX = {"allocation": "aclrtFree", "mapping": "aclrtUnmapMem", "reservation": "aclrtReleaseMemAddress",
        "physical": "aclrtFreePhysical", "ipc memory": "aclrtIpcMemClose", "pinned": "aclrtFreeHost",
        "pool": "aclrtMemPoolDestroy", "stream": "aclrtDestroyStream", "event": "aclrtDestroyEvent",
        "notify": "aclrtDestroyNotify", "context": "aclrtDestroyContext"}
_TITLE = {"allocation": "device memory", "mapping": "mapped ranges", "reservation": "reserved address ranges",
          "physical": "physical memory handles", "ipc memory": "IPC shared memory", "pinned": "pinned host memory",
          "pool": "memory pools", "stream": "streams", "event": "events", "notify": "notifies", "context": "contexts"}


def text(m, pid: int, found: tuple, when: str) -> str:
    proc = next((p for p in m.processes if p.pid == pid), None)
    name = proc.name if proc is not None else "?"
    if not found:
        return f"process {pid} ({name}): nothing left unreleased {when}"
    lines = [f"process {pid} ({name}) did not release {len(found)} resource{'s' if len(found) > 1 else ''} {when}:"]
    for kind in _FIX:
        group = [i for i in found if i[0] == kind]
        if not group:
            continue
        lines.append(f"  {_TITLE[kind]} ({len(group)}; release with {_FIX[kind]}):")
        for _, device, ident, size, detail in group:
            where = "host" if device == -1 else "virtual addresses" if device < 0 else f"device {device}"
            if kind in ("allocation", "pinned", "mapping", "reservation", "physical", "ipc memory"):
                lines.append(f"    {ident:#x} on {where}: {_size(size)} ({detail})")
            elif kind == "pool":
                lines.append(f"    pool {ident:#x} on {where}: {_size(size)} reserved, {detail}")
            elif kind == "stream":
                lines.append(f"    {detail} on {where} (handle {ident:#x})")
            else:
                lines.append(f"    {kind} {ident:#x} on {where} ({detail})")
    return "\n".join(lines)


class Report:
    """Leaks of one or more processes: ``str()`` is the text, ``items`` the data."""

    def __init__(self, parts: tuple):
        self.parts = parts                      # (pid, items, text) per process

    @property
    def items(self) -> tuple:
        """(pid, kind, device, ident, size, detail) for every leaked resource."""
        return tuple((pid,) + item for pid, found, _ in self.parts for item in found)

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __str__(self) -> str:
        return "\n".join(t for _, _, t in self.parts)

    def __repr__(self) -> str:
        return f"<leak report: {len(self)} unreleased>"


def report(m, pid: int | None = None, when: str = "so far") -> Report:
    """The leak report of process ``pid`` (None: every process that has not ended)."""
    pids = [pid] if pid is not None else [p.pid for p in m.processes if not p.ended]
    found = {p: items(m, p) for p in pids}
    return Report(tuple((p, held, text(m, p, held, when)) for p, held in found.items()))


def at_exit(m, th, proc, when: str) -> None:
    """aclFinalize or the end of a simulated process: warn about and record what is left."""
    found = items(m, proc.pid)
    if not found:
        return
    message = text(m, proc.pid, found, f"at {when}")
    m.log.append(T.LeakReport(th.clock, th.tid, proc.pid, when, found, message))
    emit(message, LeakWarning)
