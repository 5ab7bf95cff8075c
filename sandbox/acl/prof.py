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

Model subscription: a subscribed model's executions write a record per operator into the program's pipe,
which a thread of the program reads and decodes with the ``get_op_*`` calls (the rules, codes and the record's
layout are in ``sandbox.core.features.subscription``):

    r, w = os.pipe()
    config = acl.prof.create_subscribe_config(1, acl.ACL_AICORE_NONE, w)
    acl.prof.model_subscribe(model_id, config)
    ... a thread: size, _ = acl.prof.get_op_desc_size(); data = os.read(r, 10 * size)
                  ptr = acl.util.bytes_to_ptr(data); n, _ = acl.prof.get_op_num(ptr, len(data)) ...
    ... acl.mdl.execute(model_id, inputs, outputs) ...
    acl.prof.model_unsubscribe(model_id)     # closes w: the thread's os.read ends with b""
    acl.prof.destroy_subscribe_config(config)

``get_op_type``/``get_op_name`` return ``(str, ret)`` (``("", ret)`` on failure, and for a length over 4096,
which pyACL refuses itself), the ``_v2`` forms ``(None, ret)`` when the length cannot be had;
``get_op_start``/``end``/``duration`` return the value alone (0 on failure) and ``get_model_id`` the value or,
on failure, the code (aclprofGetModelId returns it: msprofiler_acl_api.cpp:694-700).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.errors import ACL_ERROR_INVALID_PARAM, describe, fail
from ..core.features import profiling, subscription
from ._declare import Kind, api, handle, ptr, size


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


# -- model subscription ----------------------------------------------------------------------------
@api("aclprofCreateSubscribeConfig", defaults=(0,), bare=True)
def create_subscribe_config(m, th, time_info_switch: int, aicore_metrics: int, fd: int):
    """aclprofCreateSubscribeConfig: the handle (0, NULL, unless time_info_switch is 0 or 1); ``fd`` is where the
    records go, e.g. the write end of ``os.pipe()``."""
    return subscription.create_config(m, th, time_info_switch, aicore_metrics, fd)


@api("aclprofDestroySubscribeConfig")
def destroy_subscribe_config(m, th, subscribe_config: handle) -> None:
    """aclprofDestroySubscribeConfig: 100000 for 0 (NULL) or no live config."""
    subscription.destroy_config(m, th, subscribe_config)


@api("aclprofModelSubscribe")
def model_subscribe(m, th, model_id: int, subscribe_config: handle) -> None:
    """aclprofModelSubscribe: each execution of the loaded model writes its records into the config's fd."""
    subscription.subscribe(m, th, model_id, subscribe_config)


@api("aclprofModelUnSubscribe")
def model_unsubscribe(m, th, model_id: int) -> None:
    """aclprofModelUnSubscribe: the records stop; the fd is closed (unless another subscription writes into it)."""
    subscription.unsubscribe(m, th, model_id)


@api("aclprofModelUnSubscribe")
def model_un_subscribe(m, th, model_id: int) -> None:
    """The binding's older spelling of ``model_unsubscribe`` (the same wrapper)."""
    subscription.unsubscribe(m, th, model_id)


@api("aclprofGetOpDescSize", defaults=(0,))
def get_op_desc_size(m, th):
    """aclprofGetOpDescSize: (the size of one record in bytes, ret)."""
    return subscription.desc_size()


@api("aclprofGetOpNum", defaults=(0,))
def get_op_num(m, th, op_info: ptr, op_info_len: size):
    """aclprofGetOpNum: (the number of records in the ``op_info_len`` bytes at ``op_info``, ret)."""
    return subscription.op_num(m, th, op_info, op_info_len)


def _limited(length: int, what: str) -> None:
    if length > subscription.NAME_LIMIT:  # pyACL's own check (prof_wrap.cpp), before the C call
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be at most {subscription.NAME_LIMIT}, got {length}")


@api("aclprofGetOpType", defaults=("",))
def get_op_type(m, th, op_info: ptr, op_info_len: size, index: int, op_type_len: size):
    """aclprofGetOpType: (the op type of record ``index``, ret), in ``op_type_len`` bytes with the NUL."""
    _limited(op_type_len, "op_type_len")
    return subscription.name(m, th, op_info, op_info_len, index, 0, op_type_len)


@api("aclprofGetOpName", defaults=("",))
def get_op_name(m, th, op_info: ptr, op_info_len: size, index: int, op_name_len: size):
    """aclprofGetOpName: (the op name of record ``index``, ret), in ``op_name_len`` bytes with the NUL."""
    _limited(op_name_len, "op_name_len")
    return subscription.name(m, th, op_info, op_info_len, index, 1, op_name_len)


@api("aclprofGetOpType", defaults=(None,))
def get_op_type_v2(m, th, op_info: ptr, op_info_len: size, index: int):
    """aclprofGetOpTypeLen then aclprofGetOpType: (the op type, ret), (None, ret) if the length cannot be had."""
    length = subscription.name_len(m, th, op_info, op_info_len, index, 0)
    return subscription.name(m, th, op_info, op_info_len, index, 0, length)


@api("aclprofGetOpName", defaults=(None,))
def get_op_name_v2(m, th, op_info: ptr, op_info_len: size, index: int):
    """aclprofGetOpNameLen then aclprofGetOpName: (the op name, ret), (None, ret) if the length cannot be had."""
    length = subscription.name_len(m, th, op_info, op_info_len, index, 1)
    return subscription.name(m, th, op_info, op_info_len, index, 1, length)


@api("aclprofGetOpTypeLen", defaults=(0,))
def get_op_type_len(m, th, op_info: ptr, op_info_len: size, index: int):
    """aclprofGetOpTypeLen: (the op type's length in bytes with its NUL, ret)."""
    return subscription.name_len(m, th, op_info, op_info_len, index, 0)


@api("aclprofGetOpNameLen", defaults=(0,))
def get_op_name_len(m, th, op_info: ptr, op_info_len: size, index: int):
    """aclprofGetOpNameLen: (the op name's length in bytes with its NUL, ret)."""
    return subscription.name_len(m, th, op_info, op_info_len, index, 1)


@api("aclprofGetOpStart", defaults=(0,), bare=True)
def get_op_start(m, th, op_info: ptr, op_info_len: size, index: int):
    """aclprofGetOpStart: when the operator started, in ns of virtual time (0 on failure)."""
    return subscription.field_of(m, op_info, op_info_len, index)[6]


@api("aclprofGetOpEnd", defaults=(0,), bare=True)
def get_op_end(m, th, op_info: ptr, op_info_len: size, index: int):
    """aclprofGetOpEnd: when the operator ended, in ns of virtual time (0 on failure)."""
    return subscription.field_of(m, op_info, op_info_len, index)[7]


@api("aclprofGetOpDuration", defaults=(0,), bare=True)
def get_op_duration(m, th, op_info: ptr, op_info_len: size, index: int):
    """aclprofGetOpDuration: how long the operator ran, in ns (0 on failure)."""
    return subscription.field_of(m, op_info, op_info_len, index)[5]


def _model_id(m, th, op_info: ptr, op_info_len: size, index: int):
    return subscription.field_of(m, op_info, op_info_len, index)[1]


_model_id.__name__ = "get_model_id"  # what the call's messages name
_model_id_call = api("aclprofGetModelId", defaults=(0,))(_model_id)


def get_model_id(op_info, op_info_len, index) -> int:
    """aclprofGetModelId: the model id of record ``index`` alone; on failure the code itself, as the runtime returns
    it in place of the id (msprofiler_acl_api.cpp:694-700)."""
    value, ret = _model_id_call(op_info, op_info_len, index)
    return ret or value
