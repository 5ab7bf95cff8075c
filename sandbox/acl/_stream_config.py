"""aclrtStreamConfigHandle: the acl library's own host records, read by aclrtCreateStreamV2.

A config handle holds a flag, a priority and a work buffer (kept, not used: the sandbox's
streams need no work memory).  Nothing of it reaches the runtime until aclrtCreateStreamV2
makes a stream with its flag and priority (core/features/streams.py ``create``), so, like the other
checks of the acl layer in the facade, it lives here and not in the core.

Only libascendcl_c has the four calls (src/acl/aclrt_c/runtime/stream.c, built for Linux and
LiteOS, src/acl/aclrt_c/CMakeLists.txt:24,76); the standard libascendcl (src/acl/aclrt_impl)
exports none of them, so there the official sample stream/3_stream_config_query finds no symbol
and prints its skip lines.  aclrtSetStreamConfigOpt (stream.c:109-127): a null handle or value,
or an attr outside 0..3, is 100000; each attribute checks its value size (stream.c:49-102): the
priority sizeof(uint32_t) and at most 7, the work pointer sizeof(void*), the work size and the
flag sizeof(size_t).  The sample passes sizeof(uint32_t) for the flag and its README shows the
run succeeding, as it does where size_t has 4 bytes.  Sandbox choice: the flag takes 4 (uint32_t,
its type in aclrtCreateStreamWithConfig and aclrtStreamGetFlags) or 8 bytes; any other size is
100000.  A value is the unsigned integer of that many bytes, as C reads it: -1 is all ones.
"""

from __future__ import annotations

from ..core import constants as C
from ..core.features import streams
from ..core.errors import ACL_ERROR_INVALID_PARAM, fail

# attr -> (name, the value sizes taken: uint32_t for the priority, 4 or 8 for the flag, else 8)
ATTRS = {
    C.ACL_RT_STREAM_WORK_ADDR_PTR: ("work_ptr", (8,)),
    C.ACL_RT_STREAM_WORK_SIZE: ("work_size", (8,)),
    C.ACL_RT_STREAM_FLAG: ("flag", (4, 8)),
    C.ACL_RT_STREAM_PRIORITY: ("priority", (4,)),
}


class StreamConfigs:
    """One machine's live config handles (made on first use, ``Machine.feature``)."""

    def __init__(self, m):
        self.handles: dict[int, dict] = {}

    def get(self, handle) -> dict:
        config = self.handles.get(handle) if handle else None
        if config is None:
            fail(
                ACL_ERROR_INVALID_PARAM,
                f"{handle!r} is not a live aclrtStreamConfigHandle (make one with aclrtCreateStreamConfigHandle)",
            )
        return config


def create_config(m, th) -> int:
    handle = m.new_handle()
    m.feature(StreamConfigs).handles[handle] = dict(work_ptr=0, work_size=0, flag=0, priority=0)
    return handle


def destroy_config(m, th, handle) -> None:
    configs = m.feature(StreamConfigs)
    configs.get(handle)
    del configs.handles[handle]


def set_config_opt(m, th, handle, attr: int, value, value_size: int) -> None:
    config = m.feature(StreamConfigs).get(handle)
    if value is None:
        fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamConfigOpt: attrValue is null")
    if attr not in ATTRS:
        fail(ACL_ERROR_INVALID_PARAM, f"aclrtSetStreamConfigOpt: attr {attr} is not an aclrtStreamConfigAttr (0..3)")
    name, sizes = ATTRS[attr]
    if value_size not in sizes:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"aclrtSetStreamConfigOpt: valueSize {value_size} is invalid for {name}, "
            f"it should be {' or '.join(map(str, sizes))}",
        )
    value = int(value) % 2 ** (8 * value_size)  # C reads valueSize bytes of an unsigned integer: -1 is all ones
    if name == "priority" and not 0 <= value <= streams.LOWEST_PRIORITY:
        fail(ACL_ERROR_INVALID_PARAM, f"aclrtSetStreamConfigOpt: priority {value} is invalid, it should be in [0, 7]")
    config[name] = value


def create_v2(m, th, handle) -> int:
    """aclrtCreateStreamV2: a stream with the config's flag and priority (a null config: both 0)."""
    config = m.feature(StreamConfigs).get(handle) if handle else dict(flag=0, priority=0)
    return streams.create(m, th, config["priority"], config["flag"] % 2**32)  # a stream's flags are a uint32_t
