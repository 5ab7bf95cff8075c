"""aclrtMemPoolProps: the acl layer's checks of the struct, made before aclrtMemPoolCreate calls the runtime.

libascendcl checks the struct itself (src/acl/aclrt_impl/memory.cpp:2081-2111): allocType must be
ACL_MEM_ALLOCATION_TYPE_PINNED (2088-2091), location.type ACL_MEM_LOCATION_TYPE_DEVICE (2093-2096),
reserved all zero (2104-2107), each else 100000; only then does rtMemPoolCreate see the device id,
handleType and maxSize (core/features/pools.py ``create`` checks the device and whether the chip has pools).
pyACL passes the struct as a dict of its members: the dict, its member names and maxSize (a size_t)
are checked here first, with 100000 too.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core import constants as C
from ..core.errors import ACL_ERROR_INVALID_PARAM, describe, fail


def _member(props: dict, name: str, default=None):
    if name not in props:
        if default is not None:
            return default
        fail(ACL_ERROR_INVALID_PARAM, f"aclrtMemPoolProps needs {name!r}")
    return props[name]


def _int_or_none(value):
    """An int member's value (a numpy integer scalar too), or None if it is no int at all."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


def _all_zero(value) -> bool:
    """Is a ``reserved`` member all zero (None, 0, zero bytes, a list/tuple/array of zeros)?"""
    if value is None:
        return True
    if isinstance(value, (bytes, bytearray)):
        return not any(value)
    if isinstance(value, (list, tuple)):
        return all(_all_zero(v) for v in value)
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biuf" and not value.any()
    return _int_or_none(value) == 0


def check(props) -> tuple:
    """(location id, maxSize) of a props dict that passes the acl layer's checks."""
    if not isinstance(props, dict):
        fail(
            ACL_ERROR_INVALID_PARAM,
            "poolProps must be a dict with the aclrtMemPoolProps members: allocType, "
            "handleType, location ({'id': device, 'type': ACL_MEM_LOCATION_TYPE_DEVICE}), maxSize",
        )
    known = {"allocType", "handleType", "location", "maxSize", "reserved"}
    unknown = [key for key in props if key not in known]  # in the caller's order
    if unknown:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"aclrtMemPoolProps has no member {describe(unknown[0])} (members: {sorted(known)})",
        )
    if _int_or_none(_member(props, "allocType")) != C.ACL_MEM_ALLOCATION_TYPE_PINNED:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"poolProps allocType must be ACL_MEM_ALLOCATION_TYPE_PINNED, got {describe(props['allocType'])}",
        )
    location = _member(props, "location")
    if not isinstance(location, dict) or "id" not in location or "type" not in location:
        fail(ACL_ERROR_INVALID_PARAM, "poolProps location must be a dict {'id': device, 'type': ...}")
    if _int_or_none(location["type"]) != C.ACL_MEM_LOCATION_TYPE_DEVICE:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"poolProps location type must be ACL_MEM_LOCATION_TYPE_DEVICE, got {describe(location['type'])}",
        )
    if not _all_zero(props.get("reserved", 0)):
        fail(ACL_ERROR_INVALID_PARAM, "poolProps reserved must be all zero")
    max_size = _int_or_none(_member(props, "maxSize", 0))
    if max_size is None or max_size < 0:
        fail(ACL_ERROR_INVALID_PARAM, f"poolProps maxSize must be an int >= 0, got {describe(props['maxSize'])}")
    return location["id"], max_size
