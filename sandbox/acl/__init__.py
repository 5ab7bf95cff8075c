"""The pyACL-style facade: ``from sandbox import acl``.

Same names and return conventions as pyACL (``import acl`` on real hardware): the
top-level calls here, the runtime under ``acl.rt``, helpers under ``acl.util``.  Every
enum value and error code is available by its C name (``acl.ACL_MEMCPY_HOST_TO_DEVICE``,
``acl.ACL_ERROR_RT_STREAM_CONTEXT``).
"""

from __future__ import annotations

import sys

from ..core.features import devices
from ..core.constants import *  # noqa: F403  (the C enum names)
from ..core.errors import ALL_CODES as _ALL_CODES
from ..core.gate import local
from ..core.machine import current as _current
from . import _unmodelled, beyond_pyacl, mdl, media, mstx, prof, rt, util
from ._compat import (  # noqa: F401  (re-exported: acl.get_cann_attribute_list, acl.ACL_CANN_ATTR_BF16)
    ACL_CANN_ATTR_BF16,
    ACL_CANN_ATTR_INF_NAN,
    ACL_CANN_ATTR_JIT_COMPILE,
    ACL_CANN_ATTR_UNDEFINED,
    ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV,
    ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV,
    get_cann_attribute,
    get_cann_attribute_list,
)
from ._app_log import ACL_DEBUG, ACL_ERROR, ACL_INFO, ACL_WARNING, app_log  # noqa: F401  (re-exported)
from ._data_buffer import (  # noqa: F401  (re-exported: acl.create_data_buffer, ...)
    create_data_buffer,
    destroy_data_buffer,
    get_data_buffer_addr,
    get_data_buffer_size,
    get_data_buffer_size_v2,
    update_data_buffer,
)
from ._declare import api
from ._sysinfo import (  # noqa: F401  (re-exported: acl.float_to_float16, acl.get_version_str)
    RUNTIME_SOURCES_VERSION,
    float16_to_float,
    float_to_float16,
    get_version_num,
    get_version_str,
)
from ._types import (  # noqa: F401  (re-exported: acl.ACL_FLOAT, acl.data_type_size)
    ACL_BF16,
    ACL_BOOL,
    ACL_COMPLEX64,
    ACL_COMPLEX128,
    ACL_DOUBLE,
    ACL_DT_UNDEFINED,
    ACL_FLOAT,
    ACL_FLOAT16,
    ACL_INT8,
    ACL_INT16,
    ACL_INT32,
    ACL_INT64,
    ACL_STRING,
    ACL_UINT8,
    ACL_UINT16,
    ACL_UINT32,
    ACL_UINT64,
    data_type_size,
)
from ._vmm_props import (  # noqa: F401  (re-exported: the VMM structs' enum values only the acl layer reads)
    ACL_MEM_HANDLE_TYPE_POSIX,
    ACL_MEM_LOCATION_TYPE_HOST_NUMA,
    ACL_MEM_LOCATION_TYPE_MANAGED,
    ACL_MEM_LOCATION_TYPE_UNREGISTERED,
    ACL_RT_MEM_ACCESS_FLAGS_NONE,
    ACL_RT_MEM_ACCESS_FLAGS_READ,
    ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
    ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
    ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
    ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF,
    ACL_RT_VMM_EXPORT_FLAG_DEFAULT,
    ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
)

ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM = 10  # aclrtReduceKind (acl_rt.h)
ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX = 11
ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN = 12
ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL = 13

# IPC export and import flags (acl_rt.h:59-69)
ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION = 0x0, 0x2
ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT, ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS = 0x0, 0x2
ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION = 0x0, 0x1
ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT, ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS = 0x0, 0x1
ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK = 0  # aclrtRandomNumFuncType (acl_rt.h)
ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS = 1
ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS = 2
ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS = 3

globals().update(_ALL_CODES)  # every error code by its C name: acl.ACL_ERROR_RT_STREAM_CONTEXT


def __getattr__(name: str) -> int:
    """Only reached for a name that is neither a code nor defined here: it tells type checkers
    that the codes set from ALL_CODES above are ints."""
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


VERSION = (1, 17, 0)  # the ACL version the facade follows (acl_rt.h of the runtime snapshot)


@api("aclInit", cost="init")
def init(m, th, config_path=None) -> None:
    """aclInit: must come before the other calls of a process."""
    return devices.init(m, th)


@api("aclFinalize")
def finalize(m, th) -> None:
    """aclFinalize: releases what the process still holds."""
    return devices.finalize(m, th)


def get_recent_err_msg() -> str:
    """Messages of this thread's failed calls since the last read, newest first; then cleared."""

    def body(m, th):
        text = "\n".join(reversed(th.err_msgs))
        th.err_msgs.clear()
        return text

    return local(body)


def get_soc_name() -> str:
    return _current().profile.soc_name


@api("aclrtGetVersion", cost=0, defaults=(0, 0, 0))
def get_version(m, th):
    return VERSION


@api("aclGetDeviceCapability", defaults=(0,))
def get_device_capability(m, th, device_id: int, info: int):
    return devices.device_capability(m, device_id, info)


# pyACL's submodules with no modelled call: each of their functions refuses with 207000 (acl/_unmodelled.py)
op = _unmodelled.submodule(__name__, "op", "acl.op: single operators (not modelled: each call refuses with 207000).")
blas = _unmodelled.submodule(
    __name__, "blas", "acl.blas: matrix operators (not modelled: each call refuses with 207000)."
)
himpi = _unmodelled.submodule(
    __name__, "himpi", "acl.himpi: hi_mpi media (not modelled: each call refuses with 207000)."
)
fv = _unmodelled.submodule(
    __name__, "fv", "acl.fv: feature-vector retrieval (not modelled: each call refuses with 207000)."
)

# every pyACL function and official sample call the sandbox does not model refuses with 207000 (acl/_unmodelled.py)
_MODULES = {
    "": sys.modules[__name__],
    "rt": rt,
    "mdl": mdl,
    "media": media,
    "util": util,
    "op": op,
    "blas": blas,
    "prof": prof,
    "himpi": himpi,
    "fv": fv,
    "mstx": mstx,  # beyond pyACL: CANN's mstx calls (acl/mstx.py)
}
_unmodelled.install(_MODULES)
beyond_pyacl.declare(_MODULES)  # the calls beyond pyACL say so (acl/beyond_pyacl.py)
beyond_pyacl.watch_cells()
