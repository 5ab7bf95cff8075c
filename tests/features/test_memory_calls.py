"""Memory calls (core/features/memory_calls.py): free, copies and 2-D copies (bounds, kinds, alignment), memsets,
pinned vs pageable host memory, the pointer helpers, pointer attributes."""

from __future__ import annotations


import numpy as np
import pytest

from sandbox import acl
from conftest import dev_alloc, pinned, tasks_by_id

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def test_free_rules(device0):
    ptr = dev_alloc(4096)
    assert acl.rt.free(0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.free(ptr + 64) == acl.ACL_ERROR_RT_MEMORY_FREE
    assert acl.rt.free(ptr) == 0
    assert acl.rt.free(ptr) == acl.ACL_ERROR_INVALID_PARAM  # gone: not device memory any more
    host, _ = acl.rt.malloc_host(64)
    assert acl.rt.free(host) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.free_host(host) == 0 and acl.rt.free_host(host) == acl.ACL_ERROR_RT_MEMORY_FREE


def test_copies_are_bounds_checked_never_a_silent_overrun(device0):
    dev = dev_alloc(4096)
    host, _ = pinned(8192)
    ret = acl.rt.memcpy_async(dev, 8192, host, 8192, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
    assert ret == acl.ACL_ERROR_RT_PARAM_INVALID and "past the end" in acl.get_recent_err_msg()
    assert acl.rt.memcpy(dev + 4000, 200, host, 200, acl.ACL_MEMCPY_HOST_TO_DEVICE) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.memset(dev, 5000, 0, 5000) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.memset_async(dev + 4095, 2, 0, 2, device0) == acl.ACL_ERROR_RT_PARAM_INVALID


def test_a_copy_into_read_only_host_memory_is_107000_and_writes_nothing(device0):
    frozen = np.zeros(64, np.uint8)
    frozen.flags.writeable = False  # (as a one-byte bytes object's buffer is)
    plain = np.zeros(64, np.uint8)
    src = acl.util.numpy_to_ptr(np.ones(64, np.uint8))
    for dst in (acl.util.numpy_to_ptr(frozen), acl.util.numpy_to_ptr(frozen)):  # the same buffer, asked twice
        assert acl.rt.memcpy(dst, 64, src, 64, acl.ACL_MEMCPY_HOST_TO_HOST) == acl.ACL_ERROR_RT_PARAM_INVALID
        assert "read-only memory" in acl.get_recent_err_msg()
    assert not frozen.any()
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(plain), 64, src, 64, acl.ACL_MEMCPY_HOST_TO_HOST) == 0
    assert plain.all()
    dev = dev_alloc(64)  # device memory and pinned memory the sandbox backs are always writable
    assert acl.rt.memcpy(dev, 64, src, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0


def test_count_larger_than_dest_max_is_107000_and_zero_count_succeeds(device0):
    dev = dev_alloc(4096)
    host, _ = pinned(4096)
    assert acl.rt.memcpy(dev, 100, host, 200, acl.ACL_MEMCPY_HOST_TO_DEVICE) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.memcpy(dev, 100, host, 0, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    assert acl.rt.memset(dev, 100, 1, 200) == acl.ACL_ERROR_RT_PARAM_INVALID


def test_memcpy_async_kind_must_be_known_and_match_the_pointers(device0):
    dev = dev_alloc(4096)
    host, _ = pinned(4096)
    assert acl.rt.memcpy_async(dev, 64, host, 64, 8, device0) == acl.ACL_ERROR_INVALID_PARAM
    wrong = acl.rt.memcpy_async(dev, 64, host, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST, device0)
    assert wrong == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.memcpy_async(dev, 64, host, 64, acl.ACL_MEMCPY_DEFAULT, device0) == 0
    acl.rt.synchronize_stream(device0)


def test_the_blocking_memcpy_kind_is_reserved_the_pointers_decide_the_direction(device0):
    dev = dev_alloc(4096)
    host, view = pinned(4096)
    view[:64] = 9
    assert acl.rt.memcpy(dev, 64, host, 64, 8) == acl.ACL_ERROR_INVALID_PARAM  # still an aclrtMemcpyKind
    assert acl.rt.memcpy(dev, 64, host, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0  # the wrong kind: host to device
    back, out = pinned(64)
    assert acl.rt.memcpy(back, 64, dev, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    assert (out == 9).all()
    (first, second) = sorted(tasks_by_id().values(), key=lambda t: t["start"])
    assert (first["engine"], second["engine"]) == ("DMA H2D", "DMA D2H")


def test_a_copy_of_0_bytes_succeeds_before_any_other_check(device0):
    assert acl.rt.memcpy(0, 0, 0, 0, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    assert acl.rt.memcpy_async(0, 0, 0, 0, 99, 0xDEAD) == 0
    assert tasks_by_id() == {}


def test_async_host_to_host_copy_is_not_supported_in_host_run_mode(device0):
    a, _ = pinned(64)
    b, _ = pinned(64)
    ret = acl.rt.memcpy_async(a, 64, b, 64, acl.ACL_MEMCPY_HOST_TO_HOST, device0)
    assert ret == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert acl.rt.memcpy(a, 64, b, 64, acl.ACL_MEMCPY_HOST_TO_HOST) == 0


def test_on_device_async_copy_needs_64_byte_aligned_addresses(device0):
    a, b = dev_alloc(4096), dev_alloc(4096)
    assert (
        acl.rt.memcpy_async(b, 64, a + 8, 64, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, device0)
        == acl.ACL_ERROR_RT_ADDR_UNALIGNED
    )
    assert acl.rt.memcpy_async(b, 64, a + 64, 64, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, device0) == 0


def test_memset_writes_the_low_byte_of_value(device0):
    dev = dev_alloc(4096)
    back, out = pinned(4096)
    assert acl.rt.memset_async(dev, 4096, 0x1AB, 4096, device0) == 0
    acl.rt.memcpy_async(back, 4096, dev, 4096, acl.ACL_MEMCPY_DEVICE_TO_HOST, device0)
    acl.rt.synchronize_stream(device0)
    assert (out == 0xAB).all()


def test_memset_of_pageable_host_memory_is_rejected(device0):
    arr = np.zeros(64, dtype=np.uint8)
    assert acl.rt.memset(acl.util.numpy_to_ptr(arr), 64, 1, 64) == acl.ACL_ERROR_RT_PARAM_INVALID


def test_numpy_to_ptr_gives_the_same_address_for_the_same_array(machine):
    arr = np.zeros(16, dtype=np.float32)
    assert acl.util.numpy_to_ptr(arr) == acl.util.numpy_to_ptr(arr) != 0
    view = acl.util.ptr_to_numpy(acl.util.numpy_to_ptr(arr), (16,), np.float32)
    view[3] = 5.0
    assert arr[3] == 5.0


def test_ptr_to_numpy_refuses_device_memory_with_a_message(device0):
    dev = dev_alloc(64)
    assert acl.util.ptr_to_numpy(dev, (16,), np.float32) is None
    assert "device memory" in acl.get_recent_err_msg()


def test_bytes_round_trip_through_pointers(device0):
    src = acl.util.bytes_to_ptr(b"hello, npu!")
    dev = dev_alloc(64)
    host, _ = pinned(64)
    acl.rt.memcpy(dev, 64, src, 11, acl.ACL_MEMCPY_HOST_TO_DEVICE)
    acl.rt.memcpy(host, 64, dev, 11, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    assert acl.util.ptr_to_bytes(host, 11) == b"hello, npu!"


def test_a_pointer_to_a_temporary_view_stays_valid(device0):
    rows = np.arange(4 * 1024, dtype=np.float32).reshape(4, 1024)
    dev = dev_alloc(4096)
    ptr = acl.util.numpy_to_ptr(rows[1])  # the view object is gone after this line
    assert acl.rt.memcpy(dev, 4096, ptr, 4096, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    back, out = pinned(4096, np.float32)
    acl.rt.memcpy(back, 4096, dev, 4096, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    assert (out == rows[1]).all()


@pytest.mark.parametrize(
    "shape, dtype",
    [(None, np.uint8), ({}, np.uint8), ((4,), {}), ((4,), object), ((1 << 70,), np.uint8), ((-1,), np.uint8)],
)
def test_ptr_to_numpy_with_a_bad_shape_or_dtype_returns_none_and_a_message(device0, shape, dtype):
    ptr, _ = pinned(64)
    assert acl.util.ptr_to_numpy(ptr, shape, dtype) is None
    assert acl.get_recent_err_msg()


# -- 1 GiB pages are a capability of the profile (huge1g_pages_supported), not of its name ---------------


def test_mem_flush_and_invalidate_check_their_arguments_and_change_nothing(device0):
    dev = dev_alloc(64)
    assert acl.rt.mem_flush(dev, 64) == acl.rt.mem_invalidate(dev, 64) == 0
    assert acl.rt.mem_flush(0, 64) == acl.rt.mem_invalidate(dev, 0) == acl.ACL_ERROR_INVALID_PARAM
    assert tasks_by_id() == {}


def test_a_2d_copy_moves_height_rows_of_width_bytes_between_pitched_rows(device0):
    src = np.arange(64, dtype=np.uint8).reshape(8, 8)
    dev = dev_alloc(4096)
    assert acl.rt.memcpy2d(dev, 4, acl.util.numpy_to_ptr(src), 8, 4, 8, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    out = np.zeros((8, 4), np.uint8)
    assert acl.rt.memcpy2d(acl.util.numpy_to_ptr(out), 4, dev, 4, 4, 8, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert (out == src[:, :4]).all()
    (h2d, d2h) = sorted(tasks_by_id().values(), key=lambda t: t["start"])
    assert (h2d["engine"], d2h["engine"]) == ("DMA H2D", "DMA D2H")


def test_a_2d_copy_of_0_rows_or_width_copies_nothing_and_bad_shapes_get_the_layers_codes(device0):
    dev = dev_alloc(4096)
    host, _ = pinned(4096)
    h2d = acl.ACL_MEMCPY_HOST_TO_DEVICE
    assert acl.rt.memcpy2d(dev, 8, host, 8, 0, 4, h2d) == acl.rt.memcpy2d(0, 8, 0, 8, 8, 0, h2d) == 0
    assert acl.rt.memcpy2d(dev, 4, host, 8, 8, 2, h2d) == acl.ACL_ERROR_INVALID_PARAM  # wider than dpitch
    assert acl.rt.memcpy2d(dev, 8, host, 8, 8, 2, acl.ACL_MEMCPY_HOST_TO_HOST) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.memcpy2d(dev, 8, host, 8, 8, 5 * 1024 * 1024 + 1, h2d) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.memcpy2d(dev, 1024, host, 1024, 1024, 8, h2d) == acl.ACL_ERROR_RT_PARAM_INVALID  # past the ends
    assert tasks_by_id() == {}


def test_the_blocking_2d_copy_is_host_to_device_or_back_and_the_queued_one_also_on_device(device0):
    dev = dev_alloc(4096)
    d2d = acl.ACL_MEMCPY_DEVICE_TO_DEVICE
    assert acl.rt.memcpy2d(dev, 64, dev + 1024, 64, 64, 4, d2d) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert acl.rt.memcpy2d_async(dev, 64, dev + 1024, 64, 64, 4, d2d, device0) == 0
    assert acl.rt.synchronize_stream(device0) == 0
    a, b = pinned(64)[0], pinned(64)[0]
    assert acl.rt.memcpy2d_async(a, 8, b, 8, 8, 2, acl.ACL_MEMCPY_DEFAULT, device0) == acl.ACL_ERROR_RT_PARAM_INVALID


def test_pointer_attributes_say_where_memory_lives_and_its_page_size(device0):
    dev, _ = acl.rt.malloc(4 << 20, acl.ACL_MEM_MALLOC_HUGE_ONLY)
    host, _ = pinned(64)
    array = np.zeros(8)
    expect = {
        dev: {"location": {"id": 0, "type": 1}, "page_size": 2 << 20, "rsv": [0, 0, 0, 0]},
        host: {"location": {"id": 0, "type": 0}, "page_size": 4096, "rsv": [0, 0, 0, 0]},
        acl.util.numpy_to_ptr(array): {"location": {"id": 0, "type": 2}, "page_size": 4096, "rsv": [0, 0, 0, 0]},
    }
    for ptr, attributes in expect.items():
        assert acl.rt.pointer_get_attributes(ptr) == (attributes, 0)
    assert acl.rt.pointer_get_attributes(0)[1] == acl.ACL_ERROR_INVALID_PARAM


def test_memcpy_async_with_condition_is_memcpy_async(device0):
    dev = dev_alloc(64)
    host, view = pinned(64)
    view[:] = 7
    assert acl.rt.memcpy_async_with_condition(dev, 64, host, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0) == 0
    back, out = pinned(64)
    acl.rt.memcpy_async(back, 64, dev, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST, device0)
    acl.rt.synchronize_stream(device0)
    assert (out == 7).all()
