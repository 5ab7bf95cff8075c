"""Virtual memory management: physical handles, reserved address ranges, mappings, shareable handles.

Sources: acl_rt.h 2573-2687, 3322-3417, 5610-5631; RT-API 11-04 (11-04:N, its lines); acl memory.cpp 1044-1346;
api_error.cc 6326-6520, api_impl.cc 7293-7430.  The driver's refusals map by errcode_manage.cc 561-592 to 107000
(invalid value), 107017 (invalid handle), 207006 (not permitted), 207001 (no memory).  The acl layer's checks
of the property structs sit in acl/_vmm_props.py.

* Granularity: 1 GiB for the HUGE1G attributes, else 2 MiB (11-04:91-133); RECOMMENDED is MINIMUM.
  aclrtMallocPhysical takes the size rounded up to it (11-04 asks for aligned sizes "to save memory"; older
  pyACL pages demanded 2 MiB multiples: the newer text is followed), a MemAllocated block in the trace; no
  1 GiB pages on the chip, or host physical memory (not modelled): 207000; no room: 207001.
* aclrtReserveMemAddress: addresses with no bytes behind them; alignment must be 0 (107000); expectPtr
  (experimental, 11-04:255) is not modelled (207000).  Releasing anything but a reserved start, or a range
  still mapped (11-04:403), is 107000.
* aclrtMapMem maps a whole allocation (offset 0, its rounded size: 11-04:461-462) at a granularity-aligned
  address inside one of the caller's ranges, not over a mapping (107000).  Copies, memsets and kernels
  through it then reach the allocation's bytes, in every process that maps them.  aclrtMapMem grants access
  (only aclrtMemMapNoAccess does not, acl_rt.h:2672); aclrtMemSetAccess checks its mapping (start and size,
  11-04:1124-1125) and descriptors (107000); the flags are not enforced.
* aclrtUnmapMem of anything but a mapping's start: 107000.  aclrtFreePhysical of a mapped handle succeeds;
  the bytes go with the last mapping (11-04:180).  A handle not live in the caller's process: 107017.
* Export: flags 0 or DISABLE_PID_VALIDATION (api_error.cc:6410), allocated handles only, once each
  (11-04:683); else 107000.  The shareable handle is a counter (1, 2, ...) and lives until the exporter frees
  its handle (11-04:667).  Only the exporter sets the allow-list (11-04:744, else 207006).  Import needs a
  current context (api_impl.cc:7416, 107002) and a live shareable handle (107000); in the exporting process
  207000 (11-04:818); off the allow-list 207006.

A mapping is a device buffer at its virtual address whose storage is its allocation's; all mappings of one
allocation are one key to the hazard checks, and the last unmap is checked like a free.  One window
(VMM_BASE..VMM_END, above every device's) serves all processes, so their ranges never overlap (a process
using another's address is not caught; hardware faults).  Process end releases what the process holds.
"""
from __future__ import annotations

import bisect
import itertools

from . import constants as C, hazards, trace as T
from .errors import (ACL_ERROR_RT_FEATURE_NOT_SUPPORT as UNSUPPORTED, ACL_ERROR_RT_INVALID_HANDLE,
                     ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_RT_NO_PERMISSION, ACL_ERROR_RT_PARAM_INVALID as INVALID,
                     describe, fail)
from .memory import GiB, HUGE_PAGE, Buffer, DeviceAllocation, _containing, align_up

VMM_BASE, VMM_END = 0x5000_0000_0000, 0x5500_0000_0000
HUGE1G_ATTRS = (C.ACL_HBM_MEM_HUGE1G, C.ACL_HBM_MEM_P2P_HUGE1G, C.ACL_MEM_HUGE1G, C.ACL_MEM_P2P_HUGE1G)


class Physical(Buffer):
    """The bytes of one aclrtMallocPhysical, held by its handles (its own and imports) and its mappings."""
    __slots__ = ("device", "unit", "handles", "mappings", "shareable", "check_pid", "pids", "exporter")
    kind = "device"

    def __init__(self, start: int, size: int, device: int, unit: int, budget, pid: int):
        super().__init__(start, size)
        self.device, self.unit, self.budget, self.handles, self.mappings = device, unit, budget, 1, 0
        self.shareable, self.check_pid, self.pids, self.exporter = 0, True, set(), pid   # shareable: 0 until exported


class Handle:
    def __init__(self, value: int, phys: Physical, pid: int, imported: bool):
        self.value, self.phys, self.pid, self.imported = value, phys, pid, imported


def _page(unit: int) -> str:
    return "huge1g" if unit == GiB else "huge"


def _forward(name: str):
    return property(lambda self: getattr(self.phys, name), lambda self, value: setattr(self.phys, name, value))


class Mapping(DeviceAllocation):
    """Device memory at a virtual address whose storage (and host-budget charge) is its allocation's."""
    __slots__ = ("phys", "handle", "range")
    _storage, _chunks, charged = _forward("_storage"), _forward("_chunks"), _forward("charged")  # type: ignore[assignment]  # the allocation's

    def __init__(self, ptr: int, handle: Handle, reservation: list, th):   # not Buffer's: it would reset the bytes
        phys = self.phys = handle.phys
        self.handle, self.range, self.ptr, self.block, self.size = handle, reservation, ptr, ptr, phys.size
        self.device, self.reserved, self.page, self.policy = phys.device, phys.size, _page(phys.unit), "aclrtMapMem"
        self.pid, self.tid, self.freed, self.budget = th.process.pid, th.tid, False, phys.budget
        self.resets = th.process.device_resets.get(phys.device, 0)

    def __hash__(self):          # the hazard checks key accesses by buffer: all mappings of the bytes are one
        return id(self.phys)

    def __eq__(self, other):
        return isinstance(other, Mapping) and other.phys is self.phys


class VmmState:
    def __init__(self, m):
        self.handles: dict[int, Handle] = {}
        self.shared: dict[int, Physical] = {}         # live shareable handles
        self.ranges: dict[int, list] = {}             # start -> [size, pid, {address: Mapping}]
        self.mappings: dict[int, Mapping] = {}        # by virtual address, ``starts`` sorted
        self.starts: list[int] = []
        self.next_range, self.counter = VMM_BASE, itertools.count(1)
        m.hooks.add("process_ending", lambda th, proc: release_process(m, th, proc))


def lookup(m, ptr: int):
    st = m.feature_in_use(VmmState)
    return _containing(st.mappings, st.starts, ptr) if st is not None and VMM_BASE <= ptr < VMM_END else None


def _handle(m, th, value, api: str) -> Handle:
    h = m.feature(VmmState).handles.get(value)
    if h is None or h.pid != th.process.pid:
        fail(ACL_ERROR_RT_INVALID_HANDLE, f"{api}: {describe(value)} is not a live physical memory handle here")
    return h


def granularity(m, th, location_type, location_id, attr: int, option: int = 0, api="aclrtMemGetAllocationGranularity"):
    if location_type != C.ACL_MEM_LOCATION_TYPE_DEVICE:
        fail(UNSUPPORTED, f"{api}: only device physical memory is modelled, not location type {location_type}")
    m.device(location_id)
    if option not in (C.ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, C.ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED):
        fail(INVALID, f"option {describe(option)} is not ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM or _RECOMMENDED")
    return GiB if attr in HUGE1G_ATTRS else HUGE_PAGE


def malloc_physical(m, th, size: int, location_type, location_id, attr: int) -> int:
    unit = granularity(m, th, location_type, location_id, attr, api="aclrtMallocPhysical")
    if unit == GiB and not m.profile.huge1g_pages_supported:
        fail(UNSUPPORTED, f"1 GiB pages are not supported on {m.profile.soc_name}")
    mem, taken = m.devices[location_id].memory, align_up(size, unit)
    start = mem.take_range(taken, unit)
    if start is None:
        fail(ACL_ERROR_RT_MEMORY_ALLOCATION, f"aclrtMallocPhysical: out of device memory on device {location_id}: "
             f"{taken} bytes requested, {mem.free_bytes('huge')} free in whole 2 MiB pages")
    phys = Physical(start, taken, location_id, unit, m.host_budget, th.process.pid)
    h = Handle(m.new_handle(), phys, th.process.pid, False)
    m.feature(VmmState).handles[h.value] = h
    m.log.append(T.MemAllocated(th.clock, location_id, start, size, taken, "aclrtMallocPhysical", _page(unit), h.pid,
                                th.tid, th.call_seq))
    return h.value


def free_physical(m, th, value, h: Handle | None = None) -> None:
    st, h = m.feature(VmmState), h or _handle(m, th, value, "aclrtFreePhysical")
    del st.handles[h.value]
    h.phys.handles -= 1
    if not h.imported and h.phys.shareable:     # the exporter's free ends the shareable handle
        del st.shared[h.phys.shareable]
        h.phys.shareable = 0
    _maybe_release(m, th, h.phys)


def _maybe_release(m, th, phys: Physical) -> None:
    if phys.handles == 0 and phys.mappings == 0:
        m.host_budget.give_back(phys)
        m.devices[phys.device].memory.give_back(phys.ptr, phys.size)
        m.log.append(T.MemFreed(th.clock, phys.device, phys.ptr, th.call_seq))


def reserve(m, th, size: int, alignment: int, expect_ptr: int) -> int:
    if alignment != 0:
        fail(INVALID, f"aclrtReserveMemAddress: alignment is reserved and must be 0, got {alignment}")
    if expect_ptr:
        fail(UNSUPPORTED, "aclrtReserveMemAddress: expectPtr (experimental) is not modelled; pass 0")
    st = m.feature(VmmState)
    start = align_up(st.next_range, GiB if size >= GiB else HUGE_PAGE)   # addresses are not reused
    if start + size > VMM_END:
        fail(ACL_ERROR_RT_MEMORY_ALLOCATION, f"aclrtReserveMemAddress: no free {size}-byte range is left")
    st.ranges[start], st.next_range = [size, th.process.pid, {}], align_up(start + size, HUGE_PAGE)
    return start


def _range(m, th, ptr: int, api: str, start: bool = True) -> tuple[int, list]:
    found = [(s, r) for s, r in m.feature(VmmState).ranges.items() if s <= ptr < s + r[0] and r[1] == th.process.pid]
    if not found or (start and found[0][0] != ptr):
        fail(INVALID, f"{api}: {ptr:#x} is not {'the start of ' if start else 'inside '}a range this process reserved")
    return found[0]


def release(m, th, ptr: int) -> None:
    _, r = _range(m, th, ptr, "aclrtReleaseMemAddress")
    if r[2]:
        fail(INVALID, f"aclrtReleaseMemAddress: the range at {ptr:#x} is still mapped at {min(r[2]):#x}: unmap first")
    del m.feature(VmmState).ranges[ptr]


def map_mem(m, th, ptr: int, size: int, offset: int, value) -> None:
    h = _handle(m, th, value, "aclrtMapMem")
    (start, r), phys = _range(m, th, ptr, "aclrtMapMem", start=False), h.phys
    if offset != 0 or size != phys.size:
        fail(INVALID, f"aclrtMapMem maps a whole allocation: offset 0 (got {offset}), size {phys.size} (got {size})")
    if ptr % phys.unit or ptr + size > start + r[0]:
        fail(INVALID, f"aclrtMapMem: [{ptr:#x}, {ptr + size:#x}) is not {phys.unit}-byte aligned inside its range")
    for other in r[2].values():
        if other.ptr < ptr + size and ptr < other.end:
            fail(INVALID, f"aclrtMapMem: [{ptr:#x}, {ptr + size:#x}) overlaps the mapping at {other.ptr:#x}")
    st = m.feature(VmmState)
    r[2][ptr] = st.mappings[ptr] = Mapping(ptr, h, r, th)
    bisect.insort(st.starts, ptr)
    phys.mappings += 1


def _mapping(m, th, ptr: int, api: str) -> Mapping:
    view = m.feature(VmmState).mappings.get(ptr)
    if view is None or view.pid != th.process.pid:
        fail(INVALID, f"{api}: {ptr:#x} is not the start of a mapping of this process")
    return view


def unmap(m, th, ptr: int, view: Mapping | None = None) -> None:
    st, view = m.feature(VmmState), view or _mapping(m, th, ptr, "aclrtUnmapMem")
    del st.mappings[view.ptr]
    del view.range[2][view.ptr]
    st.starts.remove(view.ptr)
    view.freed, view.phys.mappings = True, view.phys.mappings - 1
    if view.phys.mappings == 0:                 # the bytes are reachable no more
        hazards.freeing(m, th, view, "aclrtUnmapMem")
    _maybe_release(m, th, view.phys)


def set_access(m, th, ptr: int, size: int, devices: tuple) -> None:
    """``devices``: the descriptors' location ids (the facade checked their members, acl/_vmm_props.py)."""
    view = _mapping(m, th, ptr, "aclrtMemSetAccess")
    if size != view.size:
        fail(INVALID, f"aclrtMemSetAccess: size must be the mapping's {view.size} bytes, got {size}")
    for device in devices:
        m.device(device)


def export(m, th, value, flags: int) -> int:
    if not 0 <= flags <= C.ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION:
        fail(INVALID, f"aclrtMemExportToShareableHandle: flags must be in [0, 1], got {flags}")
    h, st = _handle(m, th, value, "aclrtMemExportToShareableHandle"), m.feature(VmmState)
    if h.imported or h.phys.shareable:
        fail(INVALID, f"aclrtMemExportToShareableHandle: handle {h.value:#x} was imported or is exported already")
    h.phys.shareable, h.phys.check_pid = next(st.counter), not flags
    st.shared[h.phys.shareable] = h.phys
    return h.phys.shareable


def _shared(m, shareable: int, api: str) -> Physical:
    phys = m.feature(VmmState).shared.get(shareable)
    if phys is None:
        fail(INVALID, f"{api}: {shareable} is not a live shareable handle (the exporter's handle may be freed)")
    return phys


def set_pids(m, th, shareable: int, pids: tuple) -> None:
    phys = _shared(m, shareable, "aclrtMemSetPidToShareableHandle")
    if phys.exporter != th.process.pid:
        fail(ACL_ERROR_RT_NO_PERMISSION, f"only process {phys.exporter}, the exporter of {shareable}, sets its pids")
    phys.pids.update(pids)


def import_(m, th, shareable: int, device_id) -> int:
    m.device(device_id)
    m.current_context(th)
    phys, pid, st = _shared(m, shareable, "aclrtMemImportFromShareableHandle"), th.process.pid, m.feature(VmmState)
    if phys.exporter == pid:
        fail(UNSUPPORTED, f"shareable handle {shareable} was exported by this process: import it in another one")
    if phys.check_pid and pid not in phys.pids:
        fail(ACL_ERROR_RT_NO_PERMISSION, f"process {pid} is not on the allow-list of shareable handle {shareable} "
             "(aclrtMemSetPidToShareableHandle in the exporter, or export with DISABLE_PID_VALIDATION)")
    h = Handle(m.new_handle(), phys, pid, True)
    st.handles[h.value], phys.handles = h, phys.handles + 1
    return h.value


def release_process(m, th, proc) -> None:
    """Process end: its mappings, reservations and handles go, in address and handle order."""
    st = m.feature(VmmState)
    for ptr in sorted(p for p, v in st.mappings.items() if v.pid == proc.pid):
        unmap(m, th, ptr, st.mappings[ptr])
    st.ranges = {s: r for s, r in st.ranges.items() if r[1] != proc.pid}
    for value in sorted(v for v, h in st.handles.items() if h.pid == proc.pid):
        free_physical(m, th, value, st.handles[value])


def leaks(m, pid: int) -> list:
    """(kind, device, ident, size, detail) of what process ``pid`` holds, for core/leaks.py."""
    st = m.feature_in_use(VmmState)
    if st is None:
        return []
    out = [("mapping", v.device, p, v.size, f"handle {v.handle.value:#x}") for p, v in sorted(st.mappings.items())
           if v.pid == pid]
    out += [("reservation", -2, s, r[0], "aclrtReserveMemAddress") for s, r in sorted(st.ranges.items()) if r[1] == pid]
    return out + [("physical", h.phys.device, v, h.phys.size, "imported" if h.imported else "aclrtMallocPhysical")
                  for v, h in sorted(st.handles.items()) if h.pid == pid]
