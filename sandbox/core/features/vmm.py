"""Virtual memory management: physical handles, reserved address ranges, mappings, shareable handles.

Sources: acl_rt.h 2573-2687, 3322-3417; RT-API 11-04 (11-04:N, its line N); api_error.cc 6326-6520; api_impl.cc
7293-7430; the driver's refusals as errcode_manage.cc 561-592 maps them.  The acl layer's checks (memory.cpp
1044-1346) are in acl/rt.py and acl/_vmm_props.py.

* Granularity 1 GiB for the HUGE1G attributes, else 2 MiB (11-04:91-133); RECOMMENDED = MINIMUM.  Physical memory
  takes its size rounded up to it (11-04 asks for aligned sizes "to save memory"; older pyACL pages demanded 2 MiB
  multiples: the newer text is followed), a MemAllocated block; no 1 GiB pages, host memory (not modelled): 207000.
* aclrtMapMem maps a whole allocation (offset 0, its rounded size: 11-04:461-462) at a granularity-aligned address
  in one of the caller's ranges, not over a mapping; it grants access (acl_rt.h:2672: only aclrtMemMapNoAccess does
  not), aclrtMemSetAccess takes a mapping's start and size (11-04:1124-1125), and its flags are not enforced.
* A reservation has no bytes; its alignment must be 0 (expectPtr is refused by acl/rt.py, not modelled).  Unmapping
  a non-mapping, releasing a non-range or a mapped one (11-04:403): 107000.  Freeing a mapped handle succeeds, the
  bytes go with the last mapping (11-04:180).  A handle not live in the caller's process: 107017.
* Export: flags 0 or 1 (api_error.cc:6410), allocated handles, once (11-04:683), else 107000; the shareable handle
  counts 1, 2, ... and lives until the exporter frees its handle (11-04:667), which alone sets the allow-list
  (11-04:744, 207006).  Import: a current context (api_impl.cc:7416, 107002), a live shareable handle (107000),
  another process than the exporter (11-04:818, 207000), on the allow-list unless disabled (207006).

A mapping is a device buffer at its virtual address whose storage is its allocation's, in every process that maps
it; all mappings of one allocation are one key to the hazard checks, and the last unmap is checked like a free.
One address window above every device's serves all processes (a process using another's address is not caught).
Process end releases what the process holds; until then it is in the leak report (core/features/leaks.py).
"""
from __future__ import annotations

import itertools
from collections import namedtuple

from .. import constants as C, hazards, trace as T
from ..errors import (ACL_ERROR_RT_FEATURE_NOT_SUPPORT as UNSUPPORTED, ACL_ERROR_RT_INVALID_HANDLE as BAD_HANDLE,
                     ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_RT_NO_PERMISSION as DENIED,
                     ACL_ERROR_RT_PARAM_INVALID as INVALID, describe, fail)
from ..allocator import GiB, HUGE_PAGE, Alias, Buffer, align_up

VMM_BASE, VMM_END = 0x5000_0000_0000, 0x5500_0000_0000
HUGE1G_ATTRS = (C.ACL_HBM_MEM_HUGE1G, C.ACL_MEM_HUGE1G, C.ACL_MEM_P2P_HUGE1G)
Handle = namedtuple("Handle", "value phys pid imported")          # an aclrtDrvMemHandle of one process


class Physical(Buffer):
    """The bytes of one aclrtMallocPhysical, held while a handle (its own or an import) or a mapping is."""
    __slots__ = ("device", "page", "shareable", "check_pid", "pids", "exporter")
    kind = "device"

    def __init__(self, start: int, size: int, device: int, page: str, budget, pid: int):
        super().__init__(start, size)
        self.device, self.page, self.budget = device, page, budget
        self.shareable, self.check_pid, self.exporter = 0, True, pid   # shareable: 0 until exported
        self.pids: set[int] = set()


class Mapping(Alias, Buffer):
    """Device memory at a virtual address whose bytes are its allocation's (memory.Alias): all mappings of one
    allocation are one buffer to the hazard checks."""
    __slots__ = ("phys", "handle", "device", "policy", "pid", "resets", "freed")
    kind = "device"
    of = property(lambda v: v.phys)
    charged = property(lambda v: v.phys.charged, lambda v, x: None)  # (what kernels.check_dense counts)

    def __init__(self, ptr: int, handle: Handle, th):
        super().__init__(ptr, handle.phys.size)
        self.phys, self.handle, self.device, self.policy = handle.phys, handle, handle.phys.device, "aclrtMapMem"
        self.pid, self.freed, self.resets = th.process.pid, False, th.process.device_resets.get(self.device, 0)
        self.budget = handle.phys.budget  # (hazards.stale reads resets, kernels.check_dense the budget)


class VmmState:
    def __init__(self, m):
        self.handles: dict[int, Handle] = {}
        self.shared: dict[int, Physical] = {}         # live shareable handles
        self.ranges: dict[int, tuple[int, int]] = {}  # reserved start -> (size, pid)
        self.mappings: dict[int, Mapping] = {}        # by virtual address
        self.next_range, self.counter = VMM_BASE, itertools.count(1)
        m.hooks.add("process_ending", lambda th, proc: release_process(m, th, proc))
        m.hooks.add("address", lambda ptr: lookup(m, ptr))


def lookup(m, ptr: int):
    st = m.feature_in_use(VmmState) if VMM_BASE <= ptr < VMM_END else None
    return next((v for v in st.mappings.values() if v.ptr <= ptr < v.end), None) if st is not None else None


def _live(table: dict, key, pid: int | None, code: int, message: str):
    """``table[key]``, if there and (``pid`` given) the calling process's own; else fails with ``code``."""
    item = table.get(key)
    if item is None or (pid is not None and item.pid != pid):
        fail(code, message)
    return item


def _handle(m, th, value, api: str) -> Handle:
    return _live(m.feature(VmmState).handles, value, th.process.pid, BAD_HANDLE,
                 f"{api}: {describe(value)} is not a live physical memory handle of this process")


def granularity(m, th, location_type, location_id, attr: int, option: int = 0, api="aclrtMemGetAllocationGranularity"):
    if location_type != C.ACL_MEM_LOCATION_TYPE_DEVICE:
        fail(UNSUPPORTED, f"{api}: only device physical memory is modelled, not location type {location_type}")
    m.device(location_id)
    if option not in (0, 1):                 # ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, _RECOMMENDED
        fail(INVALID, f"option {describe(option)} is not ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM or _RECOMMENDED")
    return GiB if attr in HUGE1G_ATTRS else HUGE_PAGE


def malloc_physical(m, th, size: int, location_type, location_id, attr: int) -> int:
    unit = granularity(m, th, location_type, location_id, attr, api="aclrtMallocPhysical")
    if unit == GiB and not m.profile.huge1g_pages_supported:
        fail(UNSUPPORTED, f"1 GiB pages are not supported on {m.profile.soc_name}")
    mem, taken = m.devices[location_id].memory, align_up(size, unit)
    start = mem.take_range(taken, unit)
    if start is None:
        fail(ACL_ERROR_RT_MEMORY_ALLOCATION, f"aclrtMallocPhysical: device {location_id} has no {taken} bytes free")
    phys = Physical(start, taken, location_id, "huge1g" if unit == GiB else "huge", m.host_budget, th.process.pid)
    h = Handle(m.new_handle(), phys, th.process.pid, False)
    m.feature(VmmState).handles[h.value] = h
    m.log.append(T.MemAllocated(th.clock, location_id, start, size, taken, "aclrtMallocPhysical", phys.page, h.pid,
                                th.tid, th.call_seq))
    return h.value


def free_physical(m, th, value, h: Handle | None = None) -> None:
    st, h = m.feature(VmmState), h or _handle(m, th, value, "aclrtFreePhysical")
    del st.handles[h.value]
    if not h.imported and h.phys.shareable:     # the exporter's free ends the shareable handle
        del st.shared[h.phys.shareable]
        h.phys.shareable = 0
    _maybe_release(m, th, h.phys)


def _maybe_release(m, th, phys: Physical) -> None:
    st = m.feature(VmmState)
    if not any(x.phys is phys for x in (*st.handles.values(), *st.mappings.values())):
        m.host_budget.give_back(phys)
        m.devices[phys.device].memory.give_back(phys.ptr, phys.size)
        m.log.append(T.MemFreed(th.clock, phys.device, phys.ptr, th.call_seq))


def reserve(m, th, size: int, alignment: int) -> int:
    if alignment != 0:
        fail(INVALID, f"aclrtReserveMemAddress: alignment is reserved and must be 0, got {alignment}")
    st = m.feature(VmmState)
    start = align_up(st.next_range, GiB if size >= GiB else HUGE_PAGE)   # addresses are not reused
    if start + size > VMM_END:
        fail(ACL_ERROR_RT_MEMORY_ALLOCATION, f"aclrtReserveMemAddress: no free {size}-byte range is left")
    st.ranges[start], st.next_range = (size, th.process.pid), align_up(start + size, HUGE_PAGE)
    return start


def _range(m, th, ptr: int, api: str, start: bool = True) -> tuple[int, int]:
    mine = [(s, n) for s, (n, pid) in m.feature(VmmState).ranges.items() if s <= ptr < s + n and pid == th.process.pid]
    if not mine or (start and mine[0][0] != ptr):
        fail(INVALID, f"{api}: {ptr:#x} is not {'the start of' if start else 'inside'} a range this process reserved")
    return mine[0]


def release(m, th, ptr: int) -> None:
    size, st = _range(m, th, ptr, "aclrtReleaseMemAddress")[1], m.feature(VmmState)
    mapped = sorted(v for v in st.mappings if ptr <= v < ptr + size)
    if mapped:
        fail(INVALID, f"aclrtReleaseMemAddress: the range at {ptr:#x} is still mapped at {mapped[0]:#x}")
    del st.ranges[ptr]


def map_mem(m, th, ptr: int, size: int, offset: int, value) -> None:
    h, st = _handle(m, th, value, "aclrtMapMem"), m.feature(VmmState)
    start, length = _range(m, th, ptr, "aclrtMapMem", start=False)
    unit = GiB if h.phys.page == "huge1g" else HUGE_PAGE
    if offset != 0 or size != h.phys.size:
        fail(INVALID, f"aclrtMapMem maps a whole allocation: offset 0 (got {offset}), size {h.phys.size} (got {size})")
    if ptr % unit or ptr + size > start + length:
        fail(INVALID, f"aclrtMapMem: [{ptr:#x}, {ptr + size:#x}) is not {unit}-byte aligned inside its range")
    overlap = sorted(v.ptr for v in st.mappings.values() if v.ptr < ptr + size and ptr < v.end)
    if overlap:
        fail(INVALID, f"aclrtMapMem: [{ptr:#x}, {ptr + size:#x}) overlaps the mapping at {overlap[0]:#x}")
    st.mappings[ptr] = Mapping(ptr, h, th)


def _mapping(m, th, ptr: int, api: str) -> Mapping:
    return _live(m.feature(VmmState).mappings, ptr, th.process.pid, INVALID, f"{api}: {ptr:#x} starts no mapping")


def unmap(m, th, ptr: int, view: Mapping | None = None) -> None:
    st, view = m.feature(VmmState), view or _mapping(m, th, ptr, "aclrtUnmapMem")
    del st.mappings[view.ptr]
    view.freed = True
    if not any(v.phys is view.phys for v in st.mappings.values()):     # the bytes are reachable no more
        hazards.freeing(m, th, view, "aclrtUnmapMem")
    _maybe_release(m, th, view.phys)


def set_access(m, th, ptr: int, size: int, devices: tuple) -> None:
    """``devices``: the descriptors' location ids (acl/_vmm_props.py checked their members)."""
    if size != _mapping(m, th, ptr, "aclrtMemSetAccess").size:
        fail(INVALID, f"aclrtMemSetAccess: size {size} is not the mapping's at {ptr:#x}")
    for device in devices:
        m.device(device)


def export(m, th, value, flags: int) -> int:
    if flags not in (0, 1):                  # ACL_RT_VMM_EXPORT_FLAG_DEFAULT, _DISABLE_PID_VALIDATION
        fail(INVALID, f"aclrtMemExportToShareableHandle: flags must be 0 or 1, got {flags}")
    h, st = _handle(m, th, value, "aclrtMemExportToShareableHandle"), m.feature(VmmState)
    if h.imported or h.phys.shareable:
        fail(INVALID, f"aclrtMemExportToShareableHandle: handle {h.value:#x} was imported or is exported already")
    h.phys.shareable, h.phys.check_pid = next(st.counter), not flags
    st.shared[h.phys.shareable] = h.phys
    return h.phys.shareable


def _shared(m, shareable: int, api: str) -> Physical:
    return _live(m.feature(VmmState).shared, shareable, None, INVALID,
                 f"{api}: {shareable} is not a live shareable handle (the exporter's handle may be freed)")


def set_pids(m, th, shareable: int, pids: tuple) -> None:
    phys = _shared(m, shareable, "aclrtMemSetPidToShareableHandle")
    if phys.exporter != th.process.pid:
        fail(DENIED, f"only process {phys.exporter}, the exporter of {shareable}, sets its allow-list")
    phys.pids.update(pids)


def import_(m, th, shareable: int, device_id) -> int:
    m.device(device_id)
    m.current_context(th)
    phys, pid = _shared(m, shareable, "aclrtMemImportFromShareableHandle"), th.process.pid
    if phys.exporter == pid:
        fail(UNSUPPORTED, f"shareable handle {shareable} was exported by this process: import it in another one")
    if phys.check_pid and pid not in phys.pids:
        fail(DENIED, f"process {pid} is not on the allow-list of shareable handle {shareable} "
             "(aclrtMemSetPidToShareableHandle in the exporter, or export with DISABLE_PID_VALIDATION)")
    h = Handle(m.new_handle(), phys, pid, True)
    m.feature(VmmState).handles[h.value] = h
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
    """(kind, device, ident, size, detail) of what process ``pid`` holds, for core/features/leaks.py."""
    st = m.feature_in_use(VmmState)
    if st is None:
        return []
    out = [("mapping", v.device, p, v.size, f"handle {v.handle.value:#x}") for p, v in sorted(st.mappings.items())
           if v.pid == pid]
    out += [("reservation", -2, s, n, "aclrtReserveMemAddress") for s, (n, p) in sorted(st.ranges.items()) if p == pid]
    return out + [("physical", h.phys.device, v, h.phys.size, "imported" if h.imported else "aclrtMallocPhysical")
                  for v, h in sorted(st.handles.items()) if h.pid == pid]
