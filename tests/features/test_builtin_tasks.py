"""aclrtReduceAsync and the data types (see sandbox/core/features/builtin_tasks.py, sandbox/acl/_types.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T

SUM = acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM


def _device_array(values, dtype=np.float32):
    host = np.asarray(values, dtype)
    ptr, _ = acl.rt.malloc(host.nbytes, 0)
    acl.rt.memcpy(ptr, host.nbytes, acl.util.numpy_to_ptr(host), host.nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE)
    return ptr


def _read(ptr, n, dtype=np.float32):
    out = np.zeros(n, dtype)
    acl.rt.memcpy(acl.util.numpy_to_ptr(out), out.nbytes, ptr, out.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    return out.tolist()


def test_reduce_sum_adds_src_into_dst_on_the_d2d_engine_when_the_stream_gets_there(device0):
    stream, _ = acl.rt.create_stream()
    src, dst = _device_array([1, 2, 3, 4]), _device_array([1, 2, 3, 4])
    assert acl.rt.reduce_async(dst, src, 16, SUM, acl.ACL_FLOAT, stream, 0) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert _read(dst, 4) == [2, 4, 6, 8]
    (task,) = [r for r in sandbox.trace().of(T.TaskSubmitted) if r.kind == "reduce"]
    assert task.engine == "DMA D2D" and task.nbytes == 16


def test_reduce_of_int16_adds_whole_elements_of_the_count_in_bytes(device0):
    src, dst = _device_array([5, 6, 7], np.int16), _device_array([1, 1, 1], np.int16)
    assert acl.rt.reduce_async(dst, src, 5, SUM, acl.ACL_INT16, 0, 0) == 0
    acl.rt.synchronize_device()
    assert _read(dst, 3, np.int16) == [6, 7, 1]


def test_reduce_refusals_follow_the_acl_layer_then_the_runtime(device0):
    src, dst = _device_array([1, 2]), _device_array([1, 2])
    assert acl.rt.reduce_async(0, src, 8, SUM, acl.ACL_FLOAT, 0, 0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.reduce_async(dst, src, 8, SUM, acl.ACL_FLOAT, 0, 1) == 100000  # reserve must be NULL
    assert acl.rt.reduce_async(dst, src, 8, SUM, acl.ACL_INT64, 0, 0) == 100000  # unsupported type
    assert acl.rt.reduce_async(dst, src, 0, SUM, acl.ACL_FLOAT, 0, 0) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.reduce_async(dst, src, 8, SUM + 1, acl.ACL_FLOAT, 0, 0) == 107000  # only SUM
    assert acl.rt.reduce_async(dst, src, 64, SUM, acl.ACL_FLOAT, 0, 0) == 107000  # past the buffer
    assert acl.rt.reduce_async(dst, src, 8, SUM, acl.ACL_BF16, 0, 0) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert "not modelled" in acl.get_recent_err_msg()
    acl.rt.synchronize_device()
    assert _read(dst, 2) == [1, 2]  # nothing was queued


def test_a_reduce_into_bytes_another_stream_reads_unordered_is_a_hazard(device0):
    stream, _ = acl.rt.create_stream()
    src, dst = _device_array([1, 2]), _device_array([1, 2])
    out = np.zeros(2, np.float32)
    acl.rt.reduce_async(dst, src, 8, SUM, acl.ACL_FLOAT, stream, 0)
    with pytest.warns(sandbox.HazardWarning):
        acl.rt.memcpy_async(acl.util.numpy_to_ptr(out), 8, dst, 8, acl.ACL_MEMCPY_DEVICE_TO_HOST, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acl.rt.synchronize_device()


def test_data_type_sizes_and_values_are_the_headers():
    assert (acl.ACL_FLOAT, acl.ACL_FLOAT16, acl.ACL_INT64, acl.ACL_BF16) == (0, 1, 9, 27)
    assert [acl.data_type_size(t) for t in (acl.ACL_FLOAT, acl.ACL_FLOAT16, acl.ACL_INT64, acl.ACL_BF16)] == [
        4,
        2,
        8,
        2,
    ]
    assert acl.data_type_size(acl.ACL_STRING) == acl.data_type_size(99) == acl.data_type_size("x") == 0


def test_a_reduce_into_a_buffer_bigger_than_the_host_budget_touches_only_its_bytes():
    sandbox.configure("ascend910b", host_memory_budget=64 << 20)
    acl.init()
    acl.rt.set_device(0)
    big, _ = acl.rt.malloc(1 << 30, 0)  # 1 GiB of device memory, 64 MiB of host memory behind it
    src, _ = acl.rt.malloc(64, 0)
    ones = np.ones(16, np.float32)
    acl.rt.memcpy(src, 64, acl.util.numpy_to_ptr(ones), 64, acl.ACL_MEMCPY_HOST_TO_DEVICE)
    at = big + (512 << 20)
    assert acl.rt.reduce_async(at, src, 64, acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, acl.ACL_FLOAT, 0, 0) == 0
    assert acl.rt.synchronize_device() == 0
    out = np.zeros(16, np.float32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(out), 64, at, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    assert out.tolist() == [1.0] * 16
