"""``acl.prof``: profiling, with pyACL's names, arguments and return shapes (python/pyACL/prof/prof_wrap.cpp).

    acl.prof.init("./output")
    config = acl.prof.create_config([0], acl.ACL_AICORE_ARITHMETIC_UTILIZATION, 0,
                                    acl.ACL_PROF_ACL_API | acl.ACL_PROF_TASK_TIME | acl.ACL_PROF_MSPROFTX)
    acl.prof.start(config)
    ... the work to profile, acl.prof.mark(stamp), acl.prof.push(stamp) / acl.prof.pop() ...
    acl.prof.stop(config)          # writes ./output/PROF_.../mindstudio_profiler_output/
    acl.prof.destroy_config(config)
    acl.prof.finalize()

Status calls return the code; ``create_config``, ``create_stamp`` and ``create_step_info`` return the
handle alone (0: NULL, on failure), ``destroy_stamp`` and ``destroy_step_info`` return None, and
``range_start`` returns ``(range_id, ret)``, as the binding's rows say.  The msproftx calls return -1, no
ACL code, where the runtime's msproftx manager refuses.  The rules and codes are in
``sandbox.core.features.profiling``, what a collection writes in ``sandbox.export.msprof``.  A string
argument that is not a str is refused with 100000 (None: TypeError, as pyACL's "s" parsing raises).

The model subscription calls (``model_subscribe``, ``create_subscribe_config``, ``get_op_*``) are not
modelled: see ``acl/_unmodelled.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.errors import ACL_ERROR_INVALID_PARAM, describe, fail
from ..core.features import profiling
from ._declare import Kind, api, handle


def _text(value, what: str) -> str:
    if type(value) is not str:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be a str, got {describe(value)}")
    return value


if TYPE_CHECKING:  # to a type checker, a kind is the type the body gets
    text = str
    device_list = Any
else:
    text = Kind(_text, "type({v}) is str", no_none=True)
    device_list = Kind(show=lambda value: describe(value, limit=200))  # a list: shown as its text


def _write(log, started, t: int) -> None:
    """Write a collection's files (loaded on the first stop: ``import sandbox`` stays light)."""
    from ..export.msprof import write_collection

    write_collection(log, started, t)


# -- init, configs, start, stop ---------------------------------------------------------------------
@api("aclprofInit")
def init(m, th, path: text) -> None:
    """aclprofInit: where collections are written (created at the first start)."""
    profiling.init(m, th, path)


@api("aclprofFinalize")
def finalize(m, th) -> None:
    """aclprofFinalize: ends profiling (a running collection is written first); 0 without init."""
    profiling.finalize(m, th, _write)


@api("aclprofCreateConfig", defaults=(0,), bare=True)
def create_config(m, th, device_list: device_list, aicore_metrics: int, aicore_events: handle, data_type_config: int):
    """aclprofCreateConfig: the config's handle, 0 (NULL) for a device not present, twice, or none."""
    return profiling.create_config(m, th, device_list, aicore_metrics, aicore_events, data_type_config)


@api("aclprofDestroyConfig")
def destroy_config(m, th, cfg: handle) -> None:
    """aclprofDestroyConfig: 100000 for 0 (NULL) or no live config."""
    profiling.destroy_config(m, th, cfg)


@api("aclprofStart")
def start(m, th, cfg: handle) -> None:
    """aclprofStart: a collection begins (0: the default config); initialises profiling if needed."""
    profiling.start(m, th, cfg)


@api("aclprofStop")
def stop(m, th, cfg: handle) -> None:
    """aclprofStop: the collection ends and its files are written; 0 when none runs."""
    profiling.stop(m, th, cfg, _write)


@api("aclprofSetConfig")
def set_config(m, th, config_type: int, value: text) -> None:
    """aclprofSetConfig: one aclprofConfigType option (ACL_PROF_PATH: the result path)."""
    profiling.set_config(m, th, config_type, value)


# -- msproftx --------------------------------------------------------------------------------------
@api("aclprofCreateStamp", defaults=(0,), bare=True)
def create_stamp(m, th):
    """aclprofCreateStamp: a stamp's handle, 0 (NULL) unless msproftx is on."""
    return profiling.create_stamp(m, th)


@api("aclprofDestroyStamp", defaults=(None,), bare=True)
def destroy_stamp(m, th, stamp: handle) -> None:
    """aclprofDestroyStamp: returns None."""
    profiling.destroy_stamp(m, th, stamp)


@api("aclprofSetStampTraceMessage")
def set_stamp_trace_message(m, th, stamp: handle, msg: text, msg_len: int) -> None:
    """aclprofSetStampTraceMessage: the stamp's message, its first ``msg_len`` bytes (below 128)."""
    profiling.set_stamp_message(m, th, stamp, msg, msg_len)


@api("aclprofMark")
def mark(m, th, stamp: handle) -> None:
    """aclprofMark: an instant with the stamp's message, on this thread's row."""
    profiling.mark(m, th, stamp)


@api("aclprofMarkEx")
def mark_ex(m, th, msg: text, stream: handle) -> None:
    """aclprofMarkEx: an instant with ``msg``, for ``stream`` (not 0)."""
    profiling.mark_ex(m, th, msg, stream)


@api("aclprofPush")
def push(m, th, stamp: handle) -> None:
    """aclprofPush: opens a nested range (closed by aclprofPop)."""
    profiling.push(m, th, stamp)


@api("aclprofPop")
def pop(m, th) -> None:
    """aclprofPop: closes the range the last push opened."""
    profiling.pop(m, th)


@api("aclprofRangeStart", defaults=(0,))
def range_start(m, th, stamp: handle):
    """aclprofRangeStart: (range_id, ret); the range runs until aclprofRangeStop(range_id)."""
    return profiling.range_start(m, th, stamp)


@api("aclprofRangeStop")
def range_stop(m, th, range_id: int) -> None:
    """aclprofRangeStop: closes the range ``range_id``."""
    profiling.range_stop(m, th, range_id)


# -- step info -------------------------------------------------------------------------------------
@api("aclprofCreateStepInfo", defaults=(0,), bare=True)
def create_step_info(m, th):
    """aclprofCreateStepInfo: a step info's handle."""
    return profiling.create_step_info(m, th)


@api("aclprofGetStepTimestamp")
def get_step_timestamp(m, th, step_info: handle, tag: int, stream: handle) -> None:
    """aclprofGetStepTimestamp: marks the step's start (ACL_STEP_START) or end (ACL_STEP_END)."""
    profiling.get_step_timestamp(m, th, step_info, tag, stream)


@api("aclprofDestroyStepInfo", defaults=(None,), bare=True)
def destroy_step_info(m, th, step_info: handle) -> None:
    """aclprofDestroyStepInfo: returns None."""
    profiling.destroy_step_info(m, th, step_info)
