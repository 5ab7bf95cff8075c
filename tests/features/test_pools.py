"""Stream-ordered memory pools (core/features/pools.py, RT-API 11-10)."""

from __future__ import annotations

import numpy as np

import sandbox
from sandbox import acl
from sandbox.core import trace as T

MiB = 1 << 20
A = acl


def props(device=0, max_size=0, **extra):
    p = {
        "allocType": A.ACL_MEM_ALLOCATION_TYPE_PINNED,
        "handleType": A.ACL_MEM_HANDLE_TYPE_NONE,
        "location": {"id": device, "type": A.ACL_MEM_LOCATION_TYPE_DEVICE},
        "maxSize": max_size,
    }
    p.update(extra)
    return p


def new_pool(**kw):
    pool, ret = acl.rt.mem_pool_create(props(**kw))
    assert ret == 0, acl.get_recent_err_msg()
    return pool


def attr(pool, which):
    value, ret = acl.rt.mem_pool_get_attr(pool, which)
    assert ret == 0
    return value


def test_create_needs_pinned_device_props_and_zero_reserved(device0):
    assert acl.rt.mem_pool_create(props(allocType=1))[1] == acl.ACL_ERROR_INVALID_PARAM
    bad_loc = props(location={"id": 0, "type": A.ACL_MEM_LOCATION_TYPE_HOST})
    assert acl.rt.mem_pool_create(bad_loc)[1] == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.mem_pool_create(props(reserved=b"\x01" + bytes(31)))[1] == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.mem_pool_create(props(device=99))[1] == acl.ACL_ERROR_RT_INVALID_DEVICEID
    assert new_pool() != 0


def test_pools_are_not_supported_off_the_910b():
    sandbox.configure("ascend310p")
    acl.init()
    acl.rt.set_device(0)
    assert acl.rt.mem_pool_create(props())[1] == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT


def test_malloc_async_needs_a_stream_and_size_zero_gives_null(device0):
    pool = new_pool()
    assert acl.rt.mem_pool_malloc_async(64, pool, 0) == (0, acl.ACL_ERROR_INVALID_PARAM)
    assert acl.rt.mem_pool_malloc_async(0, pool, device0) == (0, 0)
    assert acl.rt.mem_pool_malloc_async(64, 0, device0)[1] == acl.ACL_ERROR_INVALID_PARAM


def test_a_pool_reserves_device_memory_in_segments_labelled_with_the_pool(device0):
    pool = new_pool()
    free_before, _, _ = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    ptr, ret = acl.rt.mem_pool_malloc_async(1000, pool, device0)
    assert ret == 0 and ptr % 64 == 0
    seg = [r for r in sandbox.trace().of(T.MemAllocated) if r.policy == f"pool {pool:#x}"]
    assert len(seg) == 1 and seg[0].reserved == 2 * MiB
    assert attr(pool, A.ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT) == 2 * MiB
    assert acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] == free_before - 2 * MiB
    (blk,) = sandbox.trace().of(T.PoolBlockAllocated)
    assert (blk.ptr, blk.size, blk.reserved, blk.stream, blk.reused) == (ptr, 1000, 1088, device0, False)


def test_freed_blocks_are_reused_by_a_later_malloc_on_the_same_stream(device0):
    pool = new_pool()
    p1, _ = acl.rt.mem_pool_malloc_async(4096, pool, device0)
    assert acl.rt.mem_pool_free_async(p1, device0) == 0
    p2, _ = acl.rt.mem_pool_malloc_async(4096, pool, device0)  # before the free has run
    assert p2 == p1
    assert [r.reused for r in sandbox.trace().of(T.PoolBlockAllocated)] == [False, True]


def test_another_stream_reuses_a_freed_block_only_when_an_event_orders_the_free_first(device0):
    pool = new_pool()
    other, _ = acl.rt.create_stream()
    p1, _ = acl.rt.mem_pool_malloc_async(4096, pool, device0)
    acl.rt.mem_pool_free_async(p1, device0)
    p2, _ = acl.rt.mem_pool_malloc_async(4096, pool, other)
    assert p2 != p1  # nothing orders the free first
    ev, _ = acl.rt.create_event()
    acl.rt.record_event(ev, device0)
    acl.rt.stream_wait_event(other, ev)
    p3, _ = acl.rt.mem_pool_malloc_async(4096, pool, other)
    assert p3 == p1


def test_internal_dependencies_reuse_adds_the_wait_itself(device0):
    pool = new_pool()
    other, _ = acl.rt.create_stream()
    assert acl.rt.mem_pool_set_attr(pool, A.ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES, 1) == 0
    p1, _ = acl.rt.mem_pool_malloc_async(4096, pool, device0)
    acl.rt.mem_pool_free_async(p1, device0)
    p2, _ = acl.rt.mem_pool_malloc_async(4096, pool, other)
    assert p2 == p1
    sub = [r for r in sandbox.trace().of(T.TaskSubmitted) if r.name == "MEM_POOL_MALLOC"]
    free_task = [r for r in sandbox.trace().of(T.TaskSubmitted) if r.name == "MEM_POOL_FREE"][0]
    assert sub[-1].waits_on == free_task.task


def test_used_memory_follows_stream_order_and_high_marks_reset_to_current(device0):
    pool = new_pool()
    p1, _ = acl.rt.mem_pool_malloc_async(4096, pool, device0)
    p2, _ = acl.rt.mem_pool_malloc_async(4096, pool, device0)
    acl.rt.synchronize_stream(device0)
    assert attr(pool, A.ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT) == 2 * 4160
    acl.rt.mem_pool_free_async(p1, device0)
    acl.rt.synchronize_stream(device0)
    assert attr(pool, A.ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT) == 4160
    assert attr(pool, A.ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH) == 2 * 4160
    assert acl.rt.mem_pool_set_attr(pool, A.ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, 5) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.mem_pool_set_attr(pool, A.ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, 0) == 0
    assert attr(pool, A.ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH) == 4160
    assert acl.rt.mem_pool_set_attr(pool, A.ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, 0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.mem_pool_get_attr(pool, 99)[1] == acl.ACL_ERROR_INVALID_PARAM


def test_free_memory_above_the_release_threshold_goes_back_at_the_next_synchronize(device0):
    pool = new_pool()
    p1, _ = acl.rt.mem_pool_malloc_async(3 * MiB, pool, device0)
    acl.rt.mem_pool_free_async(p1, device0)
    assert attr(pool, A.ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT) == 4 * MiB  # kept until a sync
    acl.rt.synchronize_stream(device0)
    assert attr(pool, A.ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT) == 0  # threshold 0
    assert attr(pool, A.ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH) == 4 * MiB


def test_a_release_threshold_keeps_memory_for_reuse_across_synchronizes(device0):
    pool = new_pool()
    acl.rt.mem_pool_set_attr(pool, A.ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, 64 * MiB)
    assert attr(pool, A.ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD) == 64 * MiB
    p1, _ = acl.rt.mem_pool_malloc_async(MiB, pool, device0)
    acl.rt.mem_pool_free_async(p1, device0)
    acl.rt.synchronize_stream(device0)
    assert attr(pool, A.ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT) == 2 * MiB
    p2, _ = acl.rt.mem_pool_malloc_async(MiB, pool, device0)
    assert p2 == p1


def test_trim_to_gives_free_segments_back_but_never_memory_in_use(device0):
    pool = new_pool()
    acl.rt.mem_pool_set_attr(pool, A.ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, 64 * MiB)
    keep, _ = acl.rt.mem_pool_malloc_async(3 * MiB, pool, device0)
    gone, _ = acl.rt.mem_pool_malloc_async(3 * MiB, pool, device0)
    acl.rt.mem_pool_free_async(gone, device0)
    acl.rt.synchronize_stream(device0)
    assert attr(pool, A.ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT) == 8 * MiB
    assert acl.rt.mem_pool_trim_to(pool, 0) == 0
    assert attr(pool, A.ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT) == 4 * MiB
    freed = [r.ptr for r in sandbox.trace().of(T.MemFreed)]
    assert len(freed) == 1


def test_max_size_caps_the_pool(device0):
    pool = new_pool(max_size=2 * MiB)
    assert acl.rt.mem_pool_malloc_async(MiB, pool, device0)[1] == 0
    ptr, ret = acl.rt.mem_pool_malloc_async(2 * MiB, pool, device0)
    assert (ptr, ret) == (0, acl.ACL_ERROR_RT_MEMORY_ALLOCATION)
    assert "maxSize" in acl.get_recent_err_msg()


def test_pool_memory_works_with_copies_and_kernels_and_plain_free_is_refused(device0):
    pool = new_pool()
    host, _ = acl.rt.malloc_host(4096)
    acl.util.ptr_to_numpy(host, (1024,), np.float32)[:] = 3
    dev, _ = acl.rt.mem_pool_malloc_async(4096, pool, device0)
    acl.rt.memcpy_async(dev, 4096, host, 4096, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
    acl.rt.memcpy_async(host, 4096, dev, 4096, acl.ACL_MEMCPY_DEVICE_TO_HOST, device0)
    acl.rt.synchronize_stream(device0)
    assert acl.rt.free(dev) == acl.ACL_ERROR_RT_MEMORY_FREE
    assert acl.rt.mem_pool_free_async(dev, device0) == 0
    assert acl.rt.mem_pool_free_async(dev, device0) == acl.ACL_ERROR_RT_MEMORY_FREE
    assert acl.rt.mem_pool_free_async(0, device0) == acl.ACL_ERROR_INVALID_PARAM
    assert float(acl.util.ptr_to_numpy(host, (1024,), np.float32)[0]) == 3.0
    assert acl.rt.mem_pool_destroy(pool) == 0
    assert acl.rt.mem_pool_destroy(pool) == acl.ACL_ERROR_INVALID_PARAM


def test_a_pool_free_on_another_stream_without_an_event_is_a_hazard(device0):
    import pytest

    pool = new_pool()
    other, _ = acl.rt.create_stream()
    dev, _ = acl.rt.mem_pool_malloc_async(4096, pool, device0)
    acl.rt.memset_async(dev, 4096, 0, 4096, device0)
    with pytest.warns(sandbox.HazardWarning, match="returns the block"):
        acl.rt.mem_pool_free_async(dev, other)
    assert [h.kind for h in sandbox.hazards()] == ["free_in_use"]


def test_plain_malloc_and_pool_blocks_look_different_in_the_memory_records(device0):
    pool = new_pool()
    plain, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    pooled, _ = acl.rt.mem_pool_malloc_async(4096, pool, device0)
    policies = {r.ptr: r.policy for r in sandbox.trace().of(T.MemAllocated)}
    assert policies[plain] == "ACL_MEM_MALLOC_HUGE_FIRST"
    assert policies[pooled] == f"pool {pool:#x}"  # the segment the block is cut from
    (blk,) = sandbox.trace().of(T.PoolBlockAllocated)
    assert (blk.ptr, blk.pool) == (pooled, pool)


@sandbox.kernel(bytes=lambda x, n: n, writes=("x",))
def fill_sevens(x: "uint8*", n: int):
    x[:n] = 7


def test_work_queued_before_a_free_async_still_uses_the_block(device0):
    pool = new_pool()
    ptr, ret = acl.rt.mem_pool_malloc_async(4096, pool, device0)
    assert ret == 0
    host, _ = acl.rt.malloc_host(4096)
    assert fill_sevens[8, device0](ptr, 4096) == 0
    acl.rt.memcpy_async(host, 4096, ptr, 4096, acl.ACL_MEMCPY_DEVICE_TO_HOST, device0)
    assert acl.rt.mem_pool_free_async(ptr, device0) == 0
    assert acl.rt.synchronize_stream(device0) == 0
    assert acl.util.ptr_to_bytes(host, 2) == b"\x07\x07"


def test_a_block_reused_before_its_free_has_run_stays_usable(device0):
    pool = new_pool()
    ptr, _ = acl.rt.mem_pool_malloc_async(4096, pool, device0)
    acl.rt.mem_pool_free_async(ptr, device0)
    again, _ = acl.rt.mem_pool_malloc_async(4096, pool, device0)
    assert again == ptr  # same stream: reused at once, ordered after the free
    assert fill_sevens[8, device0](again, 4096) == 0
    assert acl.rt.synchronize_stream(device0) == 0


def test_a_kernel_works_on_the_block_it_was_launched_on_even_if_the_pool_hands_the_address_on(device0):
    """Stream order: step i's kernel runs before step i's free, so it sees step i's block, even
    when the host has run ahead and the pool has given the same address to step i + 1."""

    @sandbox.kernel(ns=10_000)
    def double(x: "int32*", n: int):
        x[:n] *= 2

    pool = new_pool()
    n = 1024
    host, _ = acl.rt.malloc_host(4 * n * 4)
    view = acl.util.ptr_to_numpy(host, (4, n), np.int32)
    view[:] = np.arange(4)[:, None] + 1
    addresses = []
    for i in range(4):
        d, ret = acl.rt.mem_pool_malloc_async(4 * n, pool, device0)
        assert ret == 0
        addresses.append(d)
        acl.rt.memcpy_async(d, 4 * n, host + i * 4 * n, 4 * n, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
        double[1, device0](d, n)
        acl.rt.memcpy_async(host + i * 4 * n, 4 * n, d, 4 * n, acl.ACL_MEMCPY_DEVICE_TO_HOST, device0)
        acl.rt.mem_pool_free_async(d, device0)
    assert acl.rt.synchronize_stream(device0) == 0
    assert len(set(addresses)) == 1  # the pool reused the block's address
    assert (acl.util.ptr_to_numpy(host, (4, n), np.int32)[:, 0] == [2, 4, 6, 8]).all()


def _on(profile):
    sandbox.configure(profile)
    assert acl.init() == 0 and acl.rt.set_device(0) == 0


def test_a_profile_without_the_mem_pool_flag_refuses_pools_with_207000():
    """Pools need mem_pool_supported (RT-API 11-10: A2 only), whatever the profile's name."""
    _on(sandbox.get_profile("ascend910b").with_(mem_pool_supported=False))
    assert acl.rt.mem_pool_create(props()) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert "memory pools are supported on Atlas A2 (910B) only, not on Ascend910B2" in acl.get_recent_err_msg()


def test_a_custom_profile_with_the_mem_pool_flag_creates_pools():
    """The flag, not the name, decides: a 310P given mem_pool_supported has pools."""
    _on(sandbox.get_profile("ascend310p").with_(mem_pool_supported=True))
    pool = new_pool()
    stream, _ = acl.rt.create_stream()
    ptr, ret = acl.rt.mem_pool_malloc_async(4096, pool, stream)
    assert ret == 0 and ptr != 0


def test_pool_malloc_and_free_on_a_capturing_stream_are_207000_and_change_nothing(device0):
    s, _ = acl.rt.create_stream()
    pool, _ = acl.rt.mem_pool_create(props())
    block, _ = acl.rt.mem_pool_malloc_async(4096, pool, s)
    assert acl.mdl.ri_capture_begin(s, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == 0
    before = len(sandbox.trace().records)
    assert acl.rt.mem_pool_malloc_async(4096, pool, s) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert acl.rt.mem_pool_free_async(block, s) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert "capturing stream" in acl.get_recent_err_msg()
    assert not [r for r in sandbox.trace().records[before:] if "Pool" in type(r).__name__]
    ri, ret = acl.mdl.ri_capture_end(s)
    assert ret == 0 and acl.rt.mem_pool_free_async(block, s) == 0  # the block is still the caller's
