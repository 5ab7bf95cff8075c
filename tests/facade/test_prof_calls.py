"""``acl.prof`` (sandbox/acl/prof.py): the binding's names, arguments and return shapes for the profiling calls."""

from __future__ import annotations

import inspect

import pytest

from sandbox import acl
from sandbox.acl import _binding, _unmodelled

PROF = [f for f in _binding.FACTS.values() if f.module == "prof"]
SUBSCRIPTION = {
    "model_subscribe",
    "model_un_subscribe",
    "model_unsubscribe",
    "create_subscribe_config",
    "destroy_subscribe_config",
    "get_model_id",
} | {f.name for f in PROF if f.name.startswith("get_op_")}


def test_every_profiling_call_of_the_binding_is_modelled():
    modelled = {f.name for f in PROF if getattr(acl.prof, f.name).__module__ == "sandbox.acl.prof"}
    assert modelled == {f.name for f in PROF} and len(SUBSCRIPTION) == 17
    assert len(modelled) == 36
    assert not [name for name in _unmodelled.WHY if name.startswith("aclprof")]


def test_the_subscription_calls_return_the_binding_s_shapes(machine):
    config = acl.prof.create_subscribe_config(1, acl.ACL_AICORE_NONE, 1)
    assert type(config) is int and config != 0
    assert acl.prof.create_subscribe_config(3, acl.ACL_AICORE_NONE, 1) == 0  # a bare NULL handle
    assert acl.prof.get_op_desc_size() == (80, 0)
    assert acl.prof.get_op_num(0, 80) == (0, acl.ACL_ERROR_INVALID_PARAM)
    assert acl.prof.get_op_type(0, 80, 0, 10) == ("", acl.ACL_ERROR_INVALID_PARAM)
    assert acl.prof.get_op_name_v2(0, 80, 0) == (None, acl.ACL_ERROR_INVALID_PARAM)
    assert acl.prof.get_op_type_len(0, 80, 0) == (0, acl.ACL_ERROR_INVALID_PARAM)
    assert [acl.prof.get_op_start(0, 80, 0), acl.prof.get_op_end(0, 80, 0), acl.prof.get_op_duration(0, 80, 0)] == [
        0,
        0,
        0,
    ]
    assert acl.prof.get_model_id(0, 80, 0) == acl.ACL_ERROR_INVALID_PARAM  # the code, in place of the id
    assert acl.prof.model_subscribe(1, config) == acl.ACL_ERROR_INVALID_MODEL_ID
    assert acl.prof.model_unsubscribe(1) == acl.prof.model_un_subscribe(1) == acl.ACL_ERROR_INVALID_MODEL_ID
    assert acl.prof.destroy_subscribe_config(config) == 0


@pytest.mark.parametrize(
    "call, args",
    [
        ("get_op_num", (None, 80)),
        ("get_model_id", (None, 80, 0)),
        ("get_op_start", (None, 80, 0)),
        ("model_subscribe", (1, None)),
        ("destroy_subscribe_config", (None,)),
    ],
)
def test_none_for_an_address_or_a_handle_of_the_subscription_calls_raises_type_error(machine, call, args):
    with pytest.raises(TypeError, match=f"acl.prof.{call}"):
        getattr(acl.prof, call)(*args)


def test_the_creating_calls_return_the_handle_alone_and_0_on_failure(machine):
    config = acl.prof.create_config([0], acl.ACL_AICORE_NONE, 0, acl.ACL_PROF_TASK_TIME)
    assert type(config) is int and config != 0
    assert acl.prof.create_config((0, 1), 0, 0, acl.ACL_PROF_TASK_TIME) != 0  # a tuple is a list of ids too
    assert acl.prof.create_config(None, 0, 0, acl.ACL_PROF_TASK_TIME) == 0
    assert acl.prof.create_config("0", 0, 0, acl.ACL_PROF_TASK_TIME) == 0
    assert "device_list must be a list" in acl.get_recent_err_msg()
    assert acl.prof.create_stamp() == 0  # msproftx is off
    step = acl.prof.create_step_info()
    assert type(step) is int and step != 0


def test_the_destroying_calls_of_stamps_and_step_infos_return_none(machine):
    assert acl.prof.destroy_stamp(0) is None
    assert acl.prof.destroy_step_info(acl.prof.create_step_info()) is None


def test_range_start_returns_the_range_id_and_the_code(machine):
    assert acl.prof.range_start(0) == (0, acl.ACL_ERROR_INVALID_PARAM)


@pytest.mark.parametrize(
    "call, args",
    [
        ("init", (None,)),
        ("set_config", (acl.ACL_PROF_PATH, None)),
        ("mark_ex", (None, 0)),
        ("set_stamp_trace_message", (1, None, 1)),
        ("start", (None,)),
    ],
)
def test_none_for_a_string_or_a_handle_raises_type_error_as_pyacl_s_parsing_does(machine, call, args):
    with pytest.raises(TypeError, match=f"acl.prof.{call}"):
        getattr(acl.prof, call)(*args)


def test_a_string_argument_that_is_not_a_str_is_100000(machine):
    assert acl.prof.init(b"./out") == acl.ACL_ERROR_INVALID_PARAM
    assert "path must be a str" in acl.get_recent_err_msg()
    assert acl.prof.set_config(acl.ACL_PROF_PATH, 3) == acl.ACL_ERROR_INVALID_PARAM


def test_the_calls_take_the_binding_s_parameters_by_name():
    assert list(inspect.signature(acl.prof.create_config).parameters) == [
        "device_list",
        "aicore_metrics",
        "aicore_events",
        "data_type_config",
    ]
    assert list(inspect.signature(acl.prof.set_stamp_trace_message).parameters) == ["stamp", "msg", "msg_len"]
    assert list(inspect.signature(acl.prof.get_step_timestamp).parameters) == ["step_info", "tag", "stream"]
    assert list(inspect.signature(acl.prof.create_subscribe_config).parameters) == [
        "time_info_switch",
        "aicore_metrics",
        "fd",
    ]
    assert list(inspect.signature(acl.prof.get_op_type).parameters) == [
        "op_info",
        "op_info_len",
        "index",
        "op_type_len",
    ]
    assert list(inspect.signature(acl.prof.get_model_id).parameters) == ["op_info", "op_info_len", "index"]


def test_the_profiling_enums_have_their_header_s_values():
    assert (acl.ACL_PROF_ACL_API, acl.ACL_PROF_TASK_TIME, acl.ACL_PROF_MSPROFTX) == (0x1, 0x2, 0x80)
    assert (acl.ACL_PROF_TASK_TIME_L0, acl.ACL_PROF_GE_API_L1) == (0x800, 0x01000000)
    assert (acl.ACL_PROF_API_STATS, acl.ACL_PROF_AICORE_SHAPE) == (0x400000000, 0x800000000)
    assert (acl.ACL_AICORE_ARITHMETIC_UTILIZATION, acl.ACL_AICORE_MEMORY_ACCESS, acl.ACL_AICORE_NONE) == (0, 8, 0xFF)
    assert (acl.ACL_STEP_START, acl.ACL_STEP_END) == (0, 1)
    assert (acl.ACL_PROF_SYS_HARDWARE_MEM_FREQ, acl.ACL_PROF_PATH, acl.ACL_PROF_ARGS_MAX) == (3, 16, 17)
