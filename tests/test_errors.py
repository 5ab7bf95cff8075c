"""Errors: real codes, messages for get_recent_err_msg, last-error calls, raise_on_error, async faults."""
from __future__ import annotations

import pytest

import sandbox
from sandbox import acl
from sandbox.core.errors import ALL_CODES
from conftest import dev_alloc


def test_calls_before_init_fail_with_100001():
    sandbox.configure()
    assert acl.rt.set_device(0) == acl.ACL_ERROR_UNINITIALIZE
    assert "acl.init()" in acl.get_recent_err_msg()


def test_repeated_init_and_finalize_return_their_codes():
    sandbox.configure()
    assert acl.init() == 0
    assert acl.init() == acl.ACL_ERROR_REPEAT_INITIALIZE
    assert acl.finalize() == 0
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
    x[n] = 1.0                      # out of bounds for the views below


def test_a_kernel_fault_surfaces_at_the_next_synchronize_as_507015(device0):
    buf = dev_alloc(16)
    assert faulty[1, device0](buf, 1000) == 0                      # launch itself succeeds
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_AICORE_EXCEPTION
    assert "IndexError" in acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(device0) == 0                  # reported once


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
    assert acl.util.ptr_to_bytes(host, 1) == b"\x00"                # the memset never ran


def test_kernel_launch_arguments_are_checked(device0):
    buf = dev_alloc(64)
    assert faulty[0, device0](buf, 1) == acl.ACL_ERROR_INVALID_PARAM
    assert faulty[1, device0](buf) == acl.ACL_ERROR_INVALID_PARAM
    assert faulty[1, device0]("buf", 1) == acl.ACL_ERROR_INVALID_PARAM
    assert faulty[1, 12345](buf, 1) == acl.ACL_ERROR_INVALID_PARAM
