"""The pyACL-style facade: ``from sandbox import acl``.

Same names and return conventions as pyACL (``import acl`` on real hardware): the
top-level calls here, the runtime under ``acl.rt``, helpers under ``acl.util``.  Every
enum value and error code is available by its C name (``acl.ACL_MEMCPY_HOST_TO_DEVICE``,
``acl.ACL_ERROR_RT_STREAM_CONTEXT``).
"""
from __future__ import annotations

from ..core import devices
from ..core.constants import *  # noqa: F403  (the C enum names)
from ..core.errors import ALL_CODES as _ALL_CODES
from ..core.gate import as_int, call, local
from ..core.machine import current as _current
from . import mdl, rt, util  # noqa: F401

globals().update(_ALL_CODES)

VERSION = (1, 17, 0)   # the ACL version the facade follows (acl_rt.h of the runtime snapshot)


def init(config_path=None) -> int:
    """aclInit: must come before the other calls of a process."""
    return call("aclInit", devices.init, cost="init", needs_init=False,
                args=("config_path", config_path))


def finalize() -> int:
    """aclFinalize: releases what the process still holds."""
    return call("aclFinalize", devices.finalize, cost="default", needs_init=False)


def get_recent_err_msg() -> str:
    """Messages of this thread's failed calls since the last read, newest first; then cleared."""
    def body(m, th):
        text = "\n".join(reversed(th.err_msgs))
        th.err_msgs.clear()
        return text
    return local(body)


def get_soc_name() -> str:
    return _current().profile.soc_name


def get_version():
    return call("aclrtGetVersion", lambda m, th: VERSION, cost=0, needs_init=False, defaults=(0, 0, 0))


def get_device_capability(device_id, info):
    return call("aclGetDeviceCapability",
                lambda m, th: devices.device_capability(m, as_int(device_id, "device_id"), as_int(info, "info")),
                cost="default", defaults=(0,),
                args=("device_id", device_id, "info", info))
