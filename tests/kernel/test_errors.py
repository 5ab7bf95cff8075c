"""Errors: real codes, messages for get_recent_err_msg, last-error calls, raise_on_error, async faults."""

from __future__ import annotations

import threading

import pytest

import sandbox
from sandbox import acl
from sandbox.core.errors import ALL_CODES
from conftest import dev_alloc


def test_runtime_calls_work_before_init_as_in_the_runtime_sources():
    sandbox.configure()
    assert acl.rt.get_run_mode() == (acl.ACL_HOST, 0)  # the official helper library asks at import time
    assert acl.rt.set_device(0) == 0
    stream, ret = acl.rt.create_stream()
    assert ret == 0 and acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.destroy_stream(stream) == 0 and acl.rt.reset_device(0) == 0
    assert acl.get_recent_err_msg() == ""


def test_repeated_init_and_finalize_return_their_codes():
    sandbox.configure()
    assert acl.init() == 0
    assert acl.init() == acl.ACL_ERROR_REPEAT_INITIALIZE
    assert acl.finalize() == 0
    assert acl.finalize() == acl.ACL_ERROR_REPEAT_FINALIZE
    assert acl.init() == 0 and acl.finalize() == 0  # an init again allows a finalize again


def test_a_finalize_without_init_releases_what_the_process_holds():
    sandbox.configure()
    assert acl.rt.set_device(0) == 0
    assert acl.finalize() == 0
    assert acl.rt.get_primary_ctx_state(0) == (0, 0, 0)  # the device was released
    assert acl.finalize() == acl.ACL_ERROR_REPEAT_FINALIZE


def test_finalize_releases_devices_of_the_process(machine):
    acl.rt.set_device(0)
    acl.rt.set_device(0)
    assert acl.finalize() == 0
    acl.init()
    assert acl.rt.get_device() == (-1, acl.ACL_ERROR_RT_CONTEXT_NULL)
    assert acl.rt.reset_device(0) == acl.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR


def test_every_enum_and_error_code_is_available_by_its_c_name():
    assert acl.ACL_MEMCPY_HOST_TO_DEVICE == 1 and acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P == 3
    assert acl.ACL_EVENT_RECORDED_STATUS_COMPLETE == 1 and acl.ACL_EVENT_STATUS_COMPLETE == 0
    assert acl.ACL_DEV_ATTR_NPU_ARCH == 601 and acl.ACL_HBM_MEM_P2P_HUGE1G == 11
    for name, code in ALL_CODES.items():
        assert getattr(acl, name) == code
    assert acl.ACL_ERROR_RT_STREAM_CONTEXT == 107003 and acl.ACL_ERROR_RT_STREAM_NO_CB_REG == 107015
    assert acl.ACL_ERROR_RT_AICORE_EXCEPTION == 507015 and acl.ACL_ERROR_RT_MEMORY_ALLOCATION == 207001


def test_recent_error_message_is_per_call_newest_first_and_cleared_on_read(device0):
    acl.rt.malloc(0, 0)
    acl.rt.set_device(99)
    text = acl.get_recent_err_msg()
    assert text.index("aclrtSetDevice") < text.index("aclrtMalloc")
    assert acl.get_recent_err_msg() == ""


def test_get_last_error_clears_and_peek_does_not(device0):
    acl.rt.set_device(99)
    assert acl.rt.peek_at_last_error(acl.ACL_RT_THREAD_LEVEL) == acl.ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.get_last_error(acl.ACL_RT_THREAD_LEVEL) == acl.ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.get_last_error(acl.ACL_RT_THREAD_LEVEL) == 0


def test_raise_on_error_raises_acl_error_with_code_name_and_message(device0):
    sandbox.raise_on_error(True)
    with pytest.raises(sandbox.AclError) as info:
        acl.rt.set_device(42)
    err = info.value
    assert (err.code, err.name) == (107001, "ACL_ERROR_RT_INVALID_DEVICEID") and "42" in err.message
    sandbox.raise_on_error(False)
    assert acl.rt.set_device(42) == 107001


@pytest.mark.parametrize("bad", ["0", None, 1.5, True, [0]])
def test_wrong_argument_types_return_invalid_param_not_a_traceback(machine, bad):
    assert acl.rt.set_device(bad) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.malloc(bad, 0)[1] in (acl.ACL_ERROR_INVALID_PARAM, acl.ACL_ERROR_RT_CONTEXT_NULL)


def test_a_failed_call_changes_nothing(device0):
    before = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    host, _ = acl.rt.malloc_host(64)
    dev = dev_alloc(64)
    n_records = len(sandbox.trace())
    assert acl.rt.memcpy_async(dev, 128, host, 128, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0) != 0
    assert acl.rt.stream_query(device0) == (acl.ACL_STREAM_STATUS_COMPLETE, 0)
    kinds = {type(r).__name__ for r in sandbox.trace().records[n_records:]}
    assert "TaskSubmitted" not in kinds
    acl.rt.free(dev)
    assert acl.rt.get_mem_info(acl.ACL_HBM_MEM) == before


@sandbox.kernel(ns=1000)
def faulty(x: "float32*", n: int):
    x[n] = 1.0  # out of bounds for the views below


def test_a_kernel_fault_surfaces_at_the_next_synchronize_as_507015(device0):
    buf = dev_alloc(16)
    assert faulty[1, device0](buf, 1000) == 0  # launch itself succeeds
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_AICORE_EXCEPTION
    assert "IndexError" in acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(device0) == 0  # reported once


def test_a_kernel_given_a_freed_pointer_faults_on_the_device(device0):
    buf = dev_alloc(64)
    acl.rt.free(buf)
    faulty[1, device0](buf, 0)
    assert acl.rt.synchronize_device() == acl.ACL_ERROR_RT_AICORE_EXCEPTION


def test_stop_on_failure_discards_the_rest_of_the_stream(device0):
    buf = dev_alloc(64)
    host, _ = acl.rt.malloc_host(64)
    assert acl.rt.set_stream_failure_mode(device0, acl.ACL_STOP_ON_FAILURE) == 0
    faulty[1, device0](buf, 1000)
    acl.rt.memset_async(buf, 64, 7, 64, device0)
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_AICORE_EXCEPTION
    acl.rt.memcpy(host, 64, buf, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    assert acl.util.ptr_to_bytes(host, 1) == b"\x00"  # the memset never ran


def test_kernel_launch_arguments_are_checked(device0):
    buf = dev_alloc(64)
    assert faulty[0, device0](buf, 1) == acl.ACL_ERROR_RT_PARAM_INVALID  # block_dim: the runtime's check
    assert faulty[1, device0](buf) == acl.ACL_ERROR_INVALID_PARAM
    assert faulty[1, device0]("buf", 1) == acl.ACL_ERROR_INVALID_PARAM
    assert faulty[1, 12345](buf, 1) == acl.ACL_ERROR_INVALID_PARAM


# -- one error path: however a call is refused, the same four things ----------------------------------
def _refusals(api):
    from sandbox.core import trace as T

    return [r for r in sandbox.trace().of(T.ErrorRaised) if r.api == api]


def _my_tid():
    from sandbox.core.machine import current

    return current().threads[threading.get_ident()].tid


def test_a_call_the_gate_refuses_returns_its_code_leaves_its_message_and_records_and_raises_under_raise_on_error(
    device0,
):
    from sandbox.core import trace as T

    assert acl.rt.malloc(0, acl.ACL_MEM_MALLOC_HUGE_FIRST) == (0, acl.ACL_ERROR_INVALID_PARAM)
    assert acl.get_recent_err_msg() == "aclrtMalloc failed: size must be > 0, got 0"
    assert acl.rt.peek_at_last_error(0) == acl.ACL_ERROR_INVALID_PARAM
    (record,) = _refusals("aclrtMalloc")
    assert (record.code, record.name, record.tid) == (100000, "ACL_ERROR_INVALID_PARAM", _my_tid())
    records = list(sandbox.trace())
    row = records[records.index(record) + 1]  # the call's own row follows its error record
    assert isinstance(row, T.ApiCall) and (row.name, row.ret) == ("aclrtMalloc", 100000)
    sandbox.raise_on_error(True)
    with pytest.raises(sandbox.AclError) as caught:
        acl.rt.malloc(0, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert caught.value.code == acl.ACL_ERROR_INVALID_PARAM and len(_refusals("aclrtMalloc")) == 2


def test_a_runtime_call_from_inside_a_host_function_returns_207000_leaves_its_message_and_records_and_raises_under_raise_on_error(
    device0,
):
    got = []

    def greedy(data):
        got.append(acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST))
        got.append(acl.get_recent_err_msg())
        sandbox.raise_on_error(True)
        try:
            acl.rt.synchronize_device()
        except sandbox.AclError as exc:
            got.append(exc.code)
        sandbox.raise_on_error(False)

    acl.rt.launch_host_func(device0, greedy, None)
    assert acl.rt.synchronize_stream(device0) == 0
    assert got[0] == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert got[1].startswith("aclrtMalloc failed: aclrtMalloc was called from inside a host function")
    assert got[2] == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    tids = {r.tid for r in _refusals("aclrtMalloc") + _refusals("aclrtSynchronizeDevice")}
    assert len(tids) == 1 and tids != {_my_tid()}  # on the row of the runtime's thread that ran it


def test_host_work_inside_a_host_function_returns_207000_leaves_its_message_and_records_and_raises_under_raise_on_error(
    device0,
):
    from sandbox.core import trace as T

    got = []

    def on_host(args):
        got.append(sandbox.host_work(1000, "post-processing"))
        got.append(acl.get_recent_err_msg())
        sandbox.raise_on_error(True)
        try:
            sandbox.host_work(1000)
        except sandbox.AclError as exc:
            got.append(exc.code)
        sandbox.raise_on_error(False)

    assert acl.rt.launch_host_func(device0, on_host, None) == 0
    assert acl.rt.synchronize_stream(device0) == 0
    assert got[0] == got[2] == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert got[1].startswith("sandbox.host_work failed: sandbox.host_work inside a host function")
    (run,) = sandbox.trace().of(T.CallbackRun)
    assert [r.tid for r in _refusals("sandbox.host_work")] == [run.tid] * 2  # on the host function's row
    assert not run.error


def test_an_acl_util_helper_refused_returns_its_failure_value_leaves_its_message_and_records_and_raises_under_raise_on_error(
    device0,
):
    assert acl.util.ptr_to_bytes(0x1234, 4) == b""
    assert (
        acl.get_recent_err_msg() == "acl.util.ptr_to_bytes failed: ptr_to_bytes: 0x1234 is not inside any host buffer"
    )
    assert acl.rt.peek_at_last_error(0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.util.start_thread("not a function", None) == (0, acl.ACL_ERROR_INVALID_PARAM)
    assert acl.util.stop_thread(12345) == acl.ACL_ERROR_INVALID_PARAM
    assert [(r.code, r.tid) for r in _refusals("acl.util.ptr_to_bytes")] == [(100000, _my_tid())]
    assert len(_refusals("acl.util.start_thread")) == len(_refusals("acl.util.stop_thread")) == 1
    sandbox.raise_on_error(True)
    with pytest.raises(sandbox.AclError) as caught:
        acl.util.ptr_to_bytes(0x1234, 4)
    assert caught.value.code == acl.ACL_ERROR_INVALID_PARAM and len(_refusals("acl.util.ptr_to_bytes")) == 2


def test_every_code_is_an_int_attribute_by_its_c_name_and_other_names_are_missing():
    from sandbox.core import errors

    assert all(getattr(errors, name) == code and getattr(acl, name) == code for name, code in errors.ALL_CODES.items())
    for module in (errors, acl):
        with pytest.raises(AttributeError):
            _ = module.ACL_ERROR_NO_SUCH_CODE
