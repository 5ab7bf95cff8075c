"""Virtual time, host costs, stream ordering, engines and overlap."""

from __future__ import annotations

import numpy as np
import pytest

import sandbox
from sandbox import acl
from conftest import dev_alloc, overlap, pinned, tasks_by_id

MiB = 1 << 20


@sandbox.kernel(ns=100_000, writes=())
def busy(x: "float32*"):
    pass


@sandbox.kernel(bytes=lambda x, n: 8 * n)
def double(x: "float32*", n: int):
    x[:n] *= 2


def test_virtual_time_is_integer_nanoseconds(device0):
    before = sandbox.now()
    acl.rt.create_event()
    assert isinstance(sandbox.now(), int) and sandbox.now() > before


def test_every_call_charges_its_host_cost_from_the_profile(device0):
    costs = sandbox.profile().host_costs
    t0 = sandbox.now()
    acl.rt.create_event()
    assert sandbox.now() - t0 == costs.create_event
    t1 = sandbox.now()
    acl.rt.create_stream()
    assert sandbox.now() - t1 == costs.create_stream


def test_async_copy_from_pinned_memory_returns_at_once(device0):
    dev = dev_alloc(64 * MiB)
    host, _ = pinned(64 * MiB)
    t0 = sandbox.now()
    assert acl.rt.memcpy_async(dev, 64 * MiB, host, 64 * MiB, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0) == 0
    assert sandbox.now() - t0 == sandbox.profile().host_costs.memcpy_async
    assert acl.rt.stream_query(device0) == (acl.ACL_STREAM_STATUS_NOT_READY, 0)


def test_blocking_sync_advances_the_clock_to_completion(device0):
    dev = dev_alloc(64 * MiB)
    host, _ = pinned(64 * MiB)
    acl.rt.memcpy_async(dev, 64 * MiB, host, 64 * MiB, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
    assert acl.rt.synchronize_stream(device0) == 0
    (copy,) = [t for t in tasks_by_id().values() if t["kind"] == "memcpy"]
    assert sandbox.now() == copy["end"] + sandbox.profile().host_costs.synchronize
    p = sandbox.profile()
    assert copy["end"] - copy["start"] == p.dma_latency_ns + int(64 * MiB * 1e9 / p.h2d_pinned)


def test_a_stream_runs_its_tasks_in_submission_order(device0):
    buf = dev_alloc(4096)
    for _ in range(3):
        busy[1, device0](buf)
    acl.rt.synchronize_stream(device0)
    runs = sorted(tasks_by_id().values(), key=lambda t: t["submit"])
    for first, second in zip(runs, runs[1:]):
        assert second["start"] >= first["end"]


def test_kernels_on_different_streams_run_concurrently_when_cores_allow(device0):
    other, _ = acl.rt.create_stream()
    buf = dev_alloc(4096)
    busy[8, device0](buf)
    busy[8, other](buf)
    acl.rt.synchronize_device()
    k1, k2 = tasks_by_id().values()
    assert overlap(k1, k2) and k1["cores"] == k2["cores"] == 8


def test_kernels_that_need_all_cores_wait_for_each_other(device0):
    other, _ = acl.rt.create_stream()
    buf = dev_alloc(4096)
    busy[24, device0](buf)
    busy[24, other](buf)
    acl.rt.synchronize_device()
    k1, k2 = tasks_by_id().values()
    assert not overlap(k1, k2)


def test_a_kernel_takes_min_of_block_dim_and_cores_and_runs_in_waves(device0):
    buf = dev_alloc(4 * MiB)
    n = MiB
    double[24, device0](buf, n)
    double[48, device0](buf, n)
    acl.rt.synchronize_stream(device0)
    one_wave, two_waves = tasks_by_id().values()
    assert one_wave["cores"] == 24 and two_waves["cores"] == 24
    start = sandbox.profile().kernel_start_ns
    body1 = one_wave["end"] - one_wave["start"] - start
    body2 = two_waves["end"] - two_waves["start"] - start
    assert abs(body2 - body1) <= 2  # 2 waves of half-size blocks take as long as 1 wave


def test_copies_and_compute_overlap_on_separate_engines(device0):
    other, _ = acl.rt.create_stream()
    dev_in, dev_work = dev_alloc(64 * MiB), dev_alloc(4096)
    host, _ = pinned(64 * MiB)
    acl.rt.memcpy_async(dev_in, 64 * MiB, host, 64 * MiB, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
    busy[24, other](dev_work)
    acl.rt.synchronize_device()
    copy, kern = tasks_by_id().values()
    assert copy["engine"] == "DMA H2D" and kern["engine"] == "AI Core" and overlap(copy, kern)


def test_h2d_and_d2h_copies_overlap(device0):
    other, _ = acl.rt.create_stream()
    a, b = dev_alloc(64 * MiB), dev_alloc(64 * MiB)
    ha, _ = pinned(64 * MiB)
    hb, _ = pinned(64 * MiB)
    acl.rt.memcpy_async(a, 64 * MiB, ha, 64 * MiB, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
    acl.rt.memcpy_async(hb, 64 * MiB, b, 64 * MiB, acl.ACL_MEMCPY_DEVICE_TO_HOST, other)
    acl.rt.synchronize_device()
    up, down = tasks_by_id().values()
    assert overlap(up, down)


def test_two_copies_in_one_direction_share_one_dma_engine(device0):
    other, _ = acl.rt.create_stream()
    a, b = dev_alloc(64 * MiB), dev_alloc(64 * MiB)
    ha, _ = pinned(64 * MiB)
    acl.rt.memcpy_async(a, 64 * MiB, ha, 64 * MiB, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
    acl.rt.memcpy_async(b, 64 * MiB, ha, 64 * MiB, acl.ACL_MEMCPY_HOST_TO_DEVICE, other)
    acl.rt.synchronize_device()
    first, second = tasks_by_id().values()
    assert not overlap(first, second)


def test_the_default_stream_does_not_synchronise_with_other_streams(device0):
    buf = dev_alloc(4096)
    busy[4, device0](buf)
    busy[4, 0](buf)  # default stream: starts without waiting for device0's kernel
    acl.rt.synchronize_device()
    explicit, default = tasks_by_id().values()
    assert overlap(explicit, default)


def test_data_moves_at_completion_time_so_an_early_read_is_stale(device0):
    n = 1 << 20
    dev = dev_alloc(4 * n)
    src_ptr, src = pinned(4 * n, np.float32)
    dst_ptr, dst = pinned(4 * n, np.float32)
    src[:] = 7.0
    acl.rt.memcpy_async(dev, 4 * n, src_ptr, 4 * n, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
    acl.rt.memcpy_async(dst_ptr, 4 * n, dev, 4 * n, acl.ACL_MEMCPY_DEVICE_TO_HOST, device0)
    assert dst[0] == 0.0  # not synchronised yet: old bytes
    acl.rt.synchronize_stream(device0)
    assert (dst == 7.0).all()


def test_async_copy_from_pageable_memory_is_synchronous_and_slower(device0):
    n = 32 * MiB
    dev = dev_alloc(n)
    pageable = np.ones(n, dtype=np.uint8)
    ptr = acl.util.numpy_to_ptr(pageable)
    t0 = sandbox.now()
    acl.rt.memcpy_async(dev, n, ptr, n, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
    pageable_time = sandbox.now() - t0
    assert acl.rt.stream_query(device0) == (acl.ACL_STREAM_STATUS_COMPLETE, 0)  # done on return
    host, _ = pinned(n)
    acl.rt.memcpy_async(dev, n, host, n, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
    acl.rt.synchronize_stream(device0)
    pageable_copy, pinned_copy = tasks_by_id().values()
    assert pageable_copy["end"] - pageable_copy["start"] > 2 * (pinned_copy["end"] - pinned_copy["start"])
    assert pageable_time >= pageable_copy["end"] - pageable_copy["start"]


def test_stream_priority_orders_tasks_waiting_for_an_engine(device0):
    low, _ = acl.rt.create_stream_with_config(7, 0)
    high, _ = acl.rt.create_stream_with_config(0, 0)
    buf = dev_alloc(4096)
    busy[24, device0](buf)  # occupies every core
    busy[24, low](buf)  # submitted first, lower priority
    busy[24, high](buf)
    acl.rt.synchronize_device()
    first, low_k, high_k = tasks_by_id().values()
    assert high_k["start"] == first["end"] and low_k["start"] == high_k["end"]


def test_stream_priority_is_clamped_to_0_through_7(device0):
    s, ret = acl.rt.create_stream_with_config(42, 0)
    assert ret == 0 and acl.rt.stream_get_priority(s) == (7, 0)


def test_profiles_without_priority_support_ignore_it():
    sandbox.configure("ascend310p")
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream_with_config(5, 0)
    assert acl.rt.stream_get_priority(s) == (0, 0)


def test_blocking_memcpy_uses_the_runtimes_own_queue_not_a_user_stream(device0):
    dev = dev_alloc(MiB)
    host, view = pinned(MiB)
    view[:] = 3
    assert acl.rt.memcpy(dev, MiB, host, MiB, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    (copy,) = tasks_by_id().values()
    assert copy["stream"] != device0 and copy["end"] <= sandbox.now()
    back, out = pinned(MiB)
    acl.rt.memcpy(back, MiB, dev, MiB, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    assert (out == 3).all()


def test_stream_sync_with_timeout_returns_the_timeout_code(device0):
    buf = dev_alloc(4096)
    for _ in range(20):
        busy[1, device0](buf)  # 20 x 100 us of work
    t0 = sandbox.now()
    ret = acl.rt.synchronize_stream_with_timeout(device0, 1)
    assert ret == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert sandbox.now() - t0 < 2_000_000
    assert acl.rt.synchronize_stream_with_timeout(device0, 2) == 0


@pytest.mark.parametrize("call", ["stream", "event", "device"])
def test_a_synchronize_timeout_of_0_ms_is_refused_with_107000_and_waits_for_nothing(device0, call):
    event, _ = acl.rt.create_event()
    busy[1, device0](dev_alloc(4096))
    acl.rt.record_event(event, device0)
    t0 = sandbox.now()
    sync = {
        "stream": lambda t: acl.rt.synchronize_stream_with_timeout(device0, t),
        "event": lambda t: acl.rt.synchronize_event_with_timeout(event, t),
        "device": lambda t: acl.rt.synchronize_device_with_timeout(t),
    }[call]
    assert sync(0) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert "> 0 ms, got 0" in acl.get_recent_err_msg()
    assert sandbox.now() - t0 < 100_000  # refused before any wait
    assert sync(-1) == 0


def test_on_the_310b_board_copies_in_and_out_share_one_dma_engine():
    sandbox.configure("ascend310b")
    acl.init()
    acl.rt.set_device(0)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    a, b = dev_alloc(MiB), dev_alloc(MiB)
    ha, _ = pinned(MiB)
    hb, _ = pinned(MiB)
    acl.rt.memcpy_async(a, MiB, ha, MiB, acl.ACL_MEMCPY_HOST_TO_DEVICE, s1)
    acl.rt.memcpy_async(hb, MiB, b, MiB, acl.ACL_MEMCPY_DEVICE_TO_HOST, s2)
    acl.rt.synchronize_device()
    up, down = tasks_by_id().values()
    assert up["engine"] == down["engine"] == "DMA H2D/D2H" and not overlap(up, down)
