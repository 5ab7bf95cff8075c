"""aclrtPhysicalMemProp and aclrtMemAccessDesc: the acl layer's checks, made before the runtime sees them.

libascendcl checks the physical memory properties itself (src/acl/aclrt_impl/memory.cpp): for
aclrtMallocPhysical (1073-1146) handleType must be ACL_MEM_HANDLE_TYPE_NONE (1118), allocationType
ACL_MEM_ALLOCATION_TYPE_PINNED (1119), location.type neither UNREGISTERED nor MANAGED (1120-1134), and
memAttr one its table knows (memAttrHandlers, 51-165; 1157-1175) and no DDR kind for device memory
(1144-1156); aclrtMemGetAllocationGranularity (1299-1346) makes the last two checks only.  Each is 100000.
Only then does the runtime see the location (device id: 107001; host locations are not modelled) and
the page kind (core/features/vmm.py).  pyACL passes a struct as a dict of its members (as for aclrtMemPoolProps,
acl/_pool_props.py); the dict and its member types are checked here first, with 100000 too.

aclrtMemSetAccess's descriptors reach the driver unchecked (memory.cpp 1956-1966): the sandbox checks
each one's members where it reads the dict: flags one of NONE/READ/READWRITE and location type DEVICE,
else 107000, the driver's "invalid value" (errcode_manage.cc 565, 86).
"""

from __future__ import annotations

from ..core import constants as C
from ..core.errors import ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_PARAM_INVALID, describe, fail
from ._pool_props import _all_zero, _int_or_none

# the VMM enum values (acl_rt.h 71-72, 314-320, 355-358, 377-381, 946-950); core/features/vmm.py reads the
# granularity options and export flags as the numbers they are
ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED = 0, 1
ACL_RT_VMM_EXPORT_FLAG_DEFAULT, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION = 0x0, 0x1
ACL_MEM_LOCATION_TYPE_UNREGISTERED, ACL_MEM_LOCATION_TYPE_MANAGED, ACL_MEM_LOCATION_TYPE_HOST_NUMA = 2, 3, 4
ACL_MEM_HANDLE_TYPE_POSIX = 2
ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF = 0xFFFF
ACL_RT_MEM_ACCESS_FLAGS_NONE, ACL_RT_MEM_ACCESS_FLAGS_READ, ACL_RT_MEM_ACCESS_FLAGS_READWRITE = 0x0, 0x1, 0x3
ACCESS_FLAGS = (ACL_RT_MEM_ACCESS_FLAGS_NONE, ACL_RT_MEM_ACCESS_FLAGS_READ, ACL_RT_MEM_ACCESS_FLAGS_READWRITE)

MEM_ATTRS = {  # memory.cpp memAttrHandlers: the memAttr values the acl layer accepts
    C.ACL_HBM_MEM_HUGE,
    C.ACL_HBM_MEM_NORMAL,
    C.ACL_HBM_MEM_HUGE1G,
    C.ACL_DDR_MEM_HUGE,
    C.ACL_DDR_MEM_NORMAL,
    C.ACL_DDR_MEM_P2P_HUGE,
    C.ACL_DDR_MEM_P2P_NORMAL,
    C.ACL_MEM_NORMAL,
    C.ACL_MEM_HUGE,
    C.ACL_MEM_HUGE1G,
    C.ACL_MEM_P2P_NORMAL,
    C.ACL_MEM_P2P_HUGE,
    C.ACL_MEM_P2P_HUGE1G,
}
DDR_ATTRS = {C.ACL_DDR_MEM_HUGE, C.ACL_DDR_MEM_NORMAL, C.ACL_DDR_MEM_P2P_HUGE, C.ACL_DDR_MEM_P2P_NORMAL}
MEMBERS = ("handleType", "allocationType", "memAttr", "location", "reserve")


def _int(struct: dict, name: str, what: str) -> int:
    value = _int_or_none(struct.get(name, 0))
    if value is None:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} {name} must be an int, got {describe(struct[name])}")
    return value


def _location(value, what: str) -> tuple[int, int]:
    if not isinstance(value, dict) or "id" not in value or "type" not in value:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} location must be a dict {{'id': device, 'type': ...}}")
    return _int(value, "type", f"{what} location"), _int(value, "id", f"{what} location")


def physical_prop(prop, allocating: bool) -> tuple[int, int, int]:
    """(location type, location id, memAttr) of an aclrtPhysicalMemProp dict the acl layer accepts."""
    if not isinstance(prop, dict):
        fail(ACL_ERROR_INVALID_PARAM, f"prop must be a dict with the aclrtPhysicalMemProp members {list(MEMBERS)}")
    unknown = [key for key in prop if key not in MEMBERS]
    if unknown:
        fail(ACL_ERROR_INVALID_PARAM, f"aclrtPhysicalMemProp has no member {describe(unknown[0])}")
    location_type, location_id = _location(prop.get("location"), "prop")
    attr = _int(prop, "memAttr", "prop")
    if not _all_zero(prop.get("reserve", 0)):
        fail(ACL_ERROR_INVALID_PARAM, "prop reserve must be 0")
    if allocating:
        if _int(prop, "handleType", "prop") != C.ACL_MEM_HANDLE_TYPE_NONE:
            fail(ACL_ERROR_INVALID_PARAM, "prop handleType must be ACL_MEM_HANDLE_TYPE_NONE")
        if _int(prop, "allocationType", "prop") != C.ACL_MEM_ALLOCATION_TYPE_PINNED:
            fail(ACL_ERROR_INVALID_PARAM, "prop allocationType must be ACL_MEM_ALLOCATION_TYPE_PINNED")
        if location_type in (ACL_MEM_LOCATION_TYPE_UNREGISTERED, ACL_MEM_LOCATION_TYPE_MANAGED):
            fail(
                ACL_ERROR_INVALID_PARAM,
                f"prop location type {location_type} (UNREGISTERED or MANAGED) is not supported",
            )
    if location_type == C.ACL_MEM_LOCATION_TYPE_DEVICE and attr in DDR_ATTRS:
        fail(ACL_ERROR_INVALID_PARAM, f"memAttr {attr} (a DDR kind) is for host memory only, not device memory")
    if attr not in MEM_ATTRS:
        fail(ACL_ERROR_INVALID_PARAM, f"memAttr {describe(attr)} is not supported for physical memory")
    return location_type, location_id, attr


def access_devices(desc, count) -> tuple[int, ...]:
    """The device ids of the first ``count`` aclrtMemAccessDesc dicts (one dict, or a list of them)."""
    descs = [desc] if isinstance(desc, dict) else desc
    if not isinstance(descs, (list, tuple)) or not all(isinstance(d, dict) for d in descs):
        fail(
            ACL_ERROR_INVALID_PARAM,
            "desc must be an aclrtMemAccessDesc dict {'flags': ..., 'location': {...}} or a list of them",
        )
    if type(count) is not int or not 1 <= count <= len(descs):
        fail(ACL_ERROR_INVALID_PARAM, f"count must be between 1 and the {len(descs)} descriptors given, got {count!r}")
    devices = []
    for d in descs[:count]:
        flags = _int(d, "flags", "desc")
        location_type, location_id = _location(d.get("location"), "desc")
        if flags not in ACCESS_FLAGS:
            fail(
                ACL_ERROR_RT_PARAM_INVALID, f"desc flags {flags} is not ACL_RT_MEM_ACCESS_FLAGS_NONE, READ or READWRITE"
            )
        if location_type != C.ACL_MEM_LOCATION_TYPE_DEVICE:
            fail(ACL_ERROR_RT_PARAM_INVALID, f"desc location type {location_type} is not ACL_MEM_LOCATION_TYPE_DEVICE")
        devices.append(location_id)
    return tuple(devices)


def pid_list(pid, pid_num) -> tuple[int, ...]:
    """The first ``pid_num`` pids of a list (or one int) for aclrtMemSetPidToShareableHandle (1275-1285)."""
    pids = [pid] if type(pid) is int else pid
    if not isinstance(pids, (list, tuple)) or not all(type(p) is int for p in pids):
        fail(ACL_ERROR_INVALID_PARAM, f"pid must be a list of ints (process ids), got {describe(pid)}")
    if type(pid_num) is not int or not 1 <= pid_num <= len(pids):
        fail(ACL_ERROR_INVALID_PARAM, f"pid_num must be between 1 and the {len(pids)} pids given, got {pid_num!r}")
    return tuple(pids[:pid_num])
