"""IPC: device memory and notifies one simulated process shares with another by key.

Sources (hicann/runtime): include/external/acl/acl_rt.h:59-69, 4583-4690; docs/zh/api_ref/11-07, 08; src/runtime/api/
impl/api_error.cc:3747-3855, 4464-4499, api_impl_standard_soc.cc:635-780, api_impl.cc:4760-4790, 4972-5006; the
driver's codes through errcode_manage.cc:565/86 (107000), 575/92 (207006).

* Keys are "ipc_mem_N" / "ipc_notify_N" (a count per machine).  Export: size or len 0, a memory flag above 1, a notify
  flag not 0 or 2: 107000 (api_error.cc:3752-3758, 4469, 4477); len below 65 too (the docs' length; the sources check
  only 0: the sandbox's choice), and memory that is not the start of a live aclrtMalloc block of the caller (size
  within it), a notify with a key already (the driver's checks, codes unseen); a chip without IPC (200I/500 A2) 207000.
* Default flag: only pids given to aclrtIpcMemSetImportPid / aclrtNotifySetImportPid import (num <= 0 107000,
  api_error.cc:3801, 3813); DISABLE_PID_VALIDATION: anyone.  Setting pids then, or from another process than the
  exporter: 207006 (ascend_hal_base.h:2325, 1802: not permitted).
* Import: an unknown or closed key, or the exporter itself 107000; a pid off the list 207006; memory flags above 1,
  notify flags above 3 107000 (api_error.cc:3826, 4492); notify flag 1 207000 (api_impl.cc:4995).  Memory: a new
  address per import (api_impl_standard_soc.cc:700-707) in the importer's device range, owned by it, of the same bytes;
  the hazard checks see one buffer.  (The range, in the exporter's pages, is taken from that device's allocator, so
  aclrtGetMemInfo there counts it; none left: 207001.)  A notify: a new handle of the same flag (aclrtDestroyNotify).
* aclrtIpcMemClose unmaps the importer's first import of the key (api_impl_standard_soc.cc:757-780), or destroys the
  exporter's key (imports stay valid); else (closed twice) 107000.  Freeing exported memory, or the exporter's end,
  while imported: the docs ask importers to close first, with no code; here the key dies and importers keep the bytes
  until they close.  A process's end closes what it exports and imports; the leak report lists both.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import trace as T
from . import notifies
from ..errors import (ACL_ERROR_RT_FEATURE_NOT_SUPPORT, ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_RT_NO_PERMISSION,
                     ACL_ERROR_RT_PARAM_INVALID, fail)
from ..allocator import PAGE_SIZES, Alias, DeviceAllocation, align_up

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import HostThread

KEY_LEN = 65


class Imported(Alias, DeviceAllocation):
    """An imported address of ``of``, the exporter's allocation (memory.Alias)."""
    __slots__ = ("of",)

    def __init__(self, target: DeviceAllocation, size, device, ptr, reserved, pid, tid, key):
        self.of = target
        super().__init__(device, ptr, size, ptr, reserved, target.page, f"IPC import of {key}", pid, tid)


class ImportedNotify:
    """An imported notify handle: the exporter's flag and pairing, read and written through, but the
    importer's pid (whose leak it is, core/features/leaks.py), device and context (ApiImpl::IpcOpenNotify makes it in
    the current context, api_impl.cc:4988-5006: its end frees it, core/features/notifies.py release_context)."""
    made = "aclrtNotifyImportByKey"

    def __init__(self, notify: notifies.Notify, pid: int, ctx):
        self.__dict__.update(of=notify, pid=pid, device=ctx.device, context=ctx.handle)

    def __getattr__(self, name):
        return getattr(self.of, name)

    def __setattr__(self, name, value):
        setattr(self.of, name, value)


class Export:
    def __init__(self, pid: int, thing, size: int, check_pid: bool):
        self.pid, self.thing, self.size = pid, thing, size  # thing: an allocation, or a notify handle (size 0)
        self.check_pid, self.closed, self.pids = check_pid, False, set[int]()

    def alive(self, m: Machine) -> bool:
        return not self.closed and (self.thing in notifies.state(m).notifies if self.size == 0 else not self.thing.freed)


class Ipc:
    def __init__(self, m: Machine):
        self.m, self.exports = m, dict[str, Export]()
        self.imports: list[tuple[str, int, int]] = []  # (key, pid, address or notify handle), oldest first
        m.hooks.process_ending.append(self.process_ending)

    def process_ending(self, th: HostThread, proc) -> None:
        for item in [i for i in self.imports if i[1] == proc.pid]:
            close_import(self.m, th, item)
        for e in self.exports.values():
            e.closed |= e.pid == proc.pid


def state(m: Machine) -> Ipc:
    return m.feature(Ipc)


def _supported(m: Machine, th: HostThread) -> None:
    m.current_context(th)
    if not m.profile.ipc_supported:
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"IPC memory and notifies are not supported on {m.profile.soc_name}")


def export(m: Machine, th: HostThread, thing: int, size: int | None, length: int, flags: int) -> str:
    """aclrtIpcMemGetExportKey (``thing`` an address) or aclrtNotifyGetExportKey (a handle, size None)."""
    kind, allowed = ("notify", (0, 2)) if size is None else ("mem", (0, 1))
    if size == 0 or length == 0 or flags not in allowed or length < KEY_LEN:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"size {size}, len {length}, flags {flags}: the size and len must not be "
             f"0, len must hold a key ({KEY_LEN} bytes, as the docs ask), flags must be one of {allowed}")
    _supported(m, th)
    st, buf = state(m), None if size is None else m.buffer(thing)
    if size is None and (any(e.thing == thing for e in st.exports.values()) or any(i[2] == thing for i in st.imports)):
        fail(ACL_ERROR_RT_PARAM_INVALID, f"notify {thing:#x} was imported or has its key: only its creator exports it")
    if size is not None and (type(buf) is not DeviceAllocation or buf.ptr != thing or buf.pid != th.process.pid
                             or buf.policy.startswith(("pool ", "aclrtMapMem")) or size > buf.size):
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{thing:#x} with size {size} is not the start of a device allocation "
             "(aclrtMalloc) of this process, or the size runs past its end")
    key = f"ipc_{kind}_{sum(k.startswith(f'ipc_{kind}_') for k in st.exports) + 1}"
    st.exports[key] = Export(th.process.pid, thing if buf is None else buf, size or 0, flags == 0)
    return key


def _live(m: Machine, key, kind: str) -> tuple[str, Export]:
    """The export of ``key`` (or, for "notify", of the notify handle ``key``), if it is still open."""
    if kind == "notify" and type(key) is int:
        notifies._notify(m, key)
        key = next((k for k, e in state(m).exports.items() if e.thing == key and e.size == 0), f"notify {key:#x}")
    e = state(m).exports.get(key)
    if e is None or not key.startswith(f"ipc_{kind}_") or not e.alive(m):
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{key!r} is not the key of a live IPC {kind} export (never exported, "
             "closed, or its memory or notify is gone)")
    return key, e


def set_pids(m: Machine, th: HostThread, key, kind: str, pids: list[int]) -> None:
    """aclrtIpcMemSetImportPid (a key) or aclrtNotifySetImportPid (the handle of an exported notify)."""
    _supported(m, th)
    if not pids:
        fail(ACL_ERROR_RT_PARAM_INVALID, "num must be at least 1")
    key, e = _live(m, key, kind)
    if e.pid != th.process.pid or not e.check_pid:
        fail(ACL_ERROR_RT_NO_PERMISSION, f"{key}: " + ("only the exporting process sets its allow-list"
             if e.pid != th.process.pid else "exported with DISABLE_PID_VALIDATION, which takes no allow-list"))
    e.pids.update(pids)


def import_key(m: Machine, th: HostThread, key: str, kind: str, flags: int) -> int:
    """aclrtIpcMemImportByKey (kind "mem": the new address) or aclrtNotifyImportByKey ("notify": a handle)."""
    if not 0 <= flags <= (1 if kind == "mem" else 3):
        fail(ACL_ERROR_RT_PARAM_INVALID, f"flags {flags} is outside [0, {1 if kind == 'mem' else 3}]")
    _supported(m, th)
    if kind == "notify" and flags & 1:
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "notify import flag 1 (download to device) is not supported here")
    e, pid = _live(m, key, kind)[1], th.process.pid
    if e.pid == pid:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{key} was exported by this process (pid {pid}): import it in another")
    if e.check_pid and pid not in e.pids:
        fail(ACL_ERROR_RT_NO_PERMISSION, f"pid {pid} is not on {key}'s allow-list {sorted(e.pids)}: the exporter "
             "adds it with aclrtIpcMemSetImportPid / aclrtNotifySetImportPid (or exports with DISABLE_PID_VALIDATION)")
    if kind == "notify":
        ident = m.new_handle()
        table = notifies.state(m).notifies
        twin = ImportedNotify(table[e.thing], pid, m.current_context(th))
        table[ident] = twin  # type: ignore[assignment]  # a Notify to notifies.py
    else:
        dev = m.current_context(th).device
        mem, page = m.devices[dev].memory, PAGE_SIZES[e.thing.page]  # the exporter's pages, mapped again
        reserved = align_up(e.size, page)
        ident = mem.take_range(reserved, page) or fail(ACL_ERROR_RT_MEMORY_ALLOCATION, f"device {dev} has no "
                                                            f"free address range of {reserved} bytes to map {key}")
        mem.map(imported := Imported(e.thing, e.size, dev, ident, reserved, pid, th.tid, key))
        imported.resets = th.process.device_resets.get(dev, 0)  # (as aclrtMalloc's: core/hazards.py stale)
        m.log.append(T.MemAllocated(th.clock, dev, ident, e.size, reserved, f"IPC import of {key}", e.thing.page,
                                    pid, th.tid, th.call_seq))
    state(m).imports.append((key, pid, ident))
    return ident


def close_import(m: Machine, th: HostThread, item: tuple[str, int, int]) -> None:
    state(m).imports.remove(item)
    buf = m.buffer(item[2]) if item[0].startswith("ipc_mem_") else None
    if buf is None:
        notifies.state(m).notifies.pop(item[2], None)
    else:
        m.devices[buf.device].memory.release(item[2])
        m.log.append(T.MemFreed(th.clock, buf.device, item[2], th.call_seq))


def mem_close(m: Machine, th: HostThread, key: str) -> None:
    _supported(m, th)
    st, pid = state(m), th.process.pid
    mine = [i for i in st.imports if i[:2] == (key, pid) and key.startswith("ipc_mem_")]
    if mine:
        return close_import(m, th, mine[0])
    e = st.exports.get(key) if key.startswith("ipc_mem_") else None
    if e is None or e.pid != pid or e.closed:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{key!r} is neither exported nor imported by this process (pid {pid}), "
             "or it was closed already")
    e.closed = True


def held(m: Machine, pid: int) -> list[tuple]:
    """(kind, device, address, size, detail) of the IPC memory process ``pid`` exports or imports, unclosed."""
    st = m.feature_in_use(Ipc)
    out = [("ipc memory", e.thing.device, e.thing.ptr, e.size, f"aclrtIpcMemGetExportKey {k}")
           for k, e in (st.exports.items() if st else ()) if e.pid == pid and e.size and e.alive(m)]
    bufs = [(key, m.buffer(ident)) for key, p, ident in (st.imports if st else ()) if p == pid and "_mem_" in key]
    return out + [("ipc memory", b.device, b.ptr, b.size, f"aclrtIpcMemImportByKey {key}") for key, b in bufs]
