"""Devices and contexts: SetDevice per thread, reference counts, resets, the affinity rules of RT-DG 05 (multi-device programming)."""

from __future__ import annotations

import threading

import sandbox
from sandbox import acl
from conftest import dev_alloc, tasks_by_id


@sandbox.kernel(ns=20_000, writes=())
def my_kernel(x: "uint8*"):
    pass


def test_device_count_and_info_come_from_the_profile(machine):
    assert acl.rt.get_device_count() == (8, 0)
    assert acl.rt.get_device_info(0, acl.ACL_DEV_ATTR_AICORE_CORE_NUM) == (24, 0)
    assert acl.rt.get_device_info(3, acl.ACL_DEV_ATTR_VECTOR_CORE_NUM) == (48, 0)
    assert acl.rt.get_device_info(0, acl.ACL_DEV_ATTR_NPU_ARCH) == (2201, 0)
    assert acl.rt.get_device_info(8, acl.ACL_DEV_ATTR_AICORE_CORE_NUM) == (0, acl.ACL_ERROR_RT_INVALID_DEVICEID)
    assert acl.get_soc_name() == "Ascend910B2"
    assert acl.rt.get_run_mode() == (acl.ACL_HOST, 0)


def test_set_device_with_an_invalid_id_fails_with_107001(machine):
    assert acl.rt.set_device(8) == acl.ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.set_device(-1) == acl.ACL_ERROR_RT_INVALID_DEVICEID


def test_calls_without_a_current_context_fail_with_107002(machine):
    assert acl.rt.get_device() == (-1, acl.ACL_ERROR_RT_CONTEXT_NULL)
    assert acl.rt.malloc(64, 0) == (0, acl.ACL_ERROR_RT_CONTEXT_NULL)
    assert acl.rt.create_stream() == (0, acl.ACL_ERROR_RT_CONTEXT_NULL)


def test_set_device_is_per_thread(machine):
    acl.rt.set_device(0)
    seen = {}

    def worker():
        seen["before"] = acl.rt.get_device()
        acl.rt.set_device(3)
        seen["after"] = acl.rt.get_device()

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == {"before": (-1, acl.ACL_ERROR_RT_CONTEXT_NULL), "after": (3, 0)}
    assert acl.rt.get_device() == (0, 0)


def test_threads_that_set_the_same_device_share_its_default_context(machine):
    acl.rt.set_device(1)
    main_ctx = acl.rt.get_context()[0]
    seen = {}

    def worker():
        acl.rt.set_device(1)
        seen["ctx"] = acl.rt.get_context()[0]

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen["ctx"] == main_ctx


def test_first_set_device_of_a_process_takes_seconds_later_ones_do_not(machine):
    costs = sandbox.profile().host_costs
    t0 = sandbox.now()
    acl.rt.set_device(0)
    t1 = sandbox.now()
    acl.rt.set_device(1)
    t2 = sandbox.now()
    acl.rt.set_device(0)
    t3 = sandbox.now()
    assert t1 - t0 >= 1_000_000_000 and t2 - t1 < 100_000_000 and t3 - t2 == costs.set_device


def test_reset_device_counts_references(machine):
    acl.rt.set_device(0)
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    assert acl.rt.reset_device(0) == 0  # one reference left: nothing released
    assert acl.rt.stream_query(s) == (acl.ACL_STREAM_STATUS_COMPLETE, 0)
    assert acl.rt.reset_device(0) == 0  # last reference: default context released
    assert acl.rt.get_device() == (-1, acl.ACL_ERROR_RT_CONTEXT_NULL)
    assert acl.rt.reset_device(0) == acl.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR


def test_reset_of_a_device_never_set_fails_with_507007(machine):
    assert acl.rt.reset_device(2) == acl.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    assert acl.rt.reset_device_force(2) == acl.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR


def test_reset_device_force_waits_for_pending_work_then_frees_streams_and_events(machine):
    acl.rt.set_device(0)
    acl.rt.set_device(0)
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ev, _ = acl.rt.create_event()
    buf = dev_alloc(64)
    my_kernel[1, s](buf)
    assert acl.rt.reset_device_force(0) == 0  # one call, whatever the count
    (kern,) = tasks_by_id().values()
    assert kern["end"] <= sandbox.now()  # it waited for the kernel
    acl.rt.set_device(0)
    assert acl.rt.synchronize_stream(s) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_event(ev) == acl.ACL_ERROR_INVALID_PARAM
    acl.rt.reset_device_force(0)
    assert acl.rt.reset_device_force(0) == acl.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR


def test_device_memory_is_not_owned_by_the_context(machine):
    acl.rt.set_device(0)
    buf = dev_alloc(64)
    acl.rt.reset_device(0)
    acl.rt.set_device(0)
    assert acl.rt.free(buf) == 0


def test_create_context_makes_it_current_and_only_explicit_contexts_can_be_destroyed(machine):
    acl.rt.set_device(0)
    default_ctx, _ = acl.rt.get_context()
    ctx, ret = acl.rt.create_context(2)
    assert ret == 0 and acl.rt.get_context() == (ctx, 0) and acl.rt.get_device() == (2, 0)
    assert acl.rt.destroy_context(default_ctx) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.set_context(default_ctx) == 0 and acl.rt.get_device() == (0, 0)
    assert acl.rt.destroy_context(ctx) == 0
    assert acl.rt.set_context(ctx) == acl.ACL_ERROR_INVALID_PARAM


def test_destroying_the_current_context_leaves_the_thread_without_one(machine):
    ctx, _ = acl.rt.create_context(0)
    acl.rt.destroy_context(ctx)
    assert acl.rt.get_context() == (0, acl.ACL_ERROR_RT_CONTEXT_NULL)


def test_synchronize_device_waits_for_every_stream_of_the_current_context(machine):
    acl.rt.set_device(0)
    streams = [acl.rt.create_stream()[0] for _ in range(3)]
    buf = dev_alloc(64)
    for s in streams:
        my_kernel[2, s](buf)
    assert acl.rt.synchronize_device() == 0
    assert all(t["end"] <= sandbox.now() for t in tasks_by_id().values())


# -- the stream/event device-affinity rules of RT-DG 05 -------------------------------------------
def _two_devices():
    acl.rt.set_device(0)
    s0, _ = acl.rt.create_stream()
    e0, _ = acl.rt.create_event()
    buf0 = dev_alloc(4096)
    acl.rt.set_device(1)
    s1, _ = acl.rt.create_stream()
    e1, _ = acl.rt.create_event()
    buf1 = dev_alloc(4096)
    return s0, e0, buf0, s1, e1, buf1


def test_affinity_launch_on_a_stream_of_another_device_fails(machine):
    s0, e0, buf0, s1, e1, buf1 = _two_devices()
    assert my_kernel[8, s1](buf1) == 0
    assert my_kernel[8, s0](buf0) == acl.ACL_ERROR_RT_STREAM_CONTEXT
    assert "device 0" in acl.get_recent_err_msg()


def test_affinity_memcpy_async_on_a_stream_of_another_device_fails(machine):
    s0, e0, buf0, s1, e1, buf1 = _two_devices()
    host, _ = acl.rt.malloc_host(4096)
    ret = acl.rt.memcpy_async(buf0, 4096, host, 4096, acl.ACL_MEMCPY_HOST_TO_DEVICE, s0)
    assert ret == acl.ACL_ERROR_RT_STREAM_CONTEXT


def test_affinity_record_event_with_event_and_stream_on_different_devices_fails(machine):
    s0, e0, buf0, s1, e1, buf1 = _two_devices()
    assert acl.rt.record_event(e0, s1) == acl.ACL_ERROR_RT_STREAM_CONTEXT
    assert acl.rt.record_event(e1, s1) == 0


def test_affinity_stream_wait_event_with_event_and_stream_on_different_devices_fails(machine):
    s0, e0, buf0, s1, e1, buf1 = _two_devices()
    assert acl.rt.stream_wait_event(s1, e0) == acl.ACL_ERROR_RT_STREAM_CONTEXT
    assert acl.rt.stream_wait_event(s1, e1) == 0


def test_affinity_synchronize_event_of_another_device_succeeds(machine):
    s0, e0, buf0, s1, e1, buf1 = _two_devices()
    acl.rt.set_device(0)
    acl.rt.record_event(e0, s0)
    acl.rt.set_device(1)
    assert acl.rt.synchronize_event(e0) == 0


def test_affinity_query_event_of_another_device_succeeds(machine):
    s0, e0, buf0, s1, e1, buf1 = _two_devices()
    acl.rt.set_device(0)
    acl.rt.record_event(e0, s0)
    acl.rt.synchronize_stream(s0)
    acl.rt.set_device(1)
    assert acl.rt.query_event_status(e0) == (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)


def test_destroy_stream_needs_its_context_current(machine):
    s0, e0, buf0, s1, e1, buf1 = _two_devices()
    assert acl.rt.destroy_stream(s0) == acl.ACL_ERROR_RT_STREAM_CONTEXT
    assert acl.rt.destroy_stream(s1) == 0
    assert acl.rt.destroy_stream(0) == acl.ACL_ERROR_INVALID_PARAM


def test_stream_limit_per_device_returns_207008():
    sandbox.configure(sandbox.get_profile("ascend310b").with_(max_streams=4))
    acl.init()
    acl.rt.set_device(0)  # the default stream counts
    rets = [acl.rt.create_stream()[1] for _ in range(4)]
    assert rets == [0, 0, 0, acl.ACL_ERROR_RT_NO_STREAM_RESOURCE]


def test_the_primary_context_is_active_while_the_process_holds_its_device(device0):
    assert acl.rt.get_primary_ctx_state(0) == (1, 0, 0)
    assert acl.rt.get_primary_ctx_state(1) == (0, 0, 0)  # never set
    assert acl.rt.get_primary_ctx_state(99)[-1] == acl.ACL_ERROR_RT_INVALID_DEVICEID


def test_logical_physical_and_user_device_ids_are_the_same_id(device0):
    for convert in (
        acl.rt.get_logic_dev_id_by_phy_dev_id,
        acl.rt.get_phy_dev_id_by_logic_dev_id,
        acl.rt.get_logic_dev_id_by_user_dev_id,
        acl.rt.get_user_dev_id_by_logic_dev_id,
    ):
        assert convert(3) == (3, 0)
        assert convert(99) == (0, acl.ACL_ERROR_RT_INVALID_DEVICEID)


def test_a_device_uuid_is_16_bytes_the_same_in_every_run_and_different_per_device(device0):
    first, ret = acl.rt.device_get_uuid(0)
    assert ret == 0 and len(first["bytes"]) == 16 and all(0 <= b < 256 for b in first["bytes"])
    assert acl.rt.device_get_uuid(0) == (first, 0) and acl.rt.device_get_uuid(1)[0] != first
    sandbox.configure()
    assert acl.rt.device_get_uuid(0) == (first, 0)
