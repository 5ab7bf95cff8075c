"""Events: snapshots, waits, queries, elapsed time (RT-API 07, RT-DG 05)."""

from __future__ import annotations

import pytest

import sandbox
from sandbox import acl
from conftest import dev_alloc, tasks_by_id


@sandbox.kernel(ns=50_000, writes=())
def work(x: "uint8*"):
    pass


def test_record_snapshots_only_the_work_already_submitted(device0):
    buf = dev_alloc(64)
    ev, _ = acl.rt.create_event()
    work[1, device0](buf)
    acl.rt.record_event(ev, device0)
    work[1, device0](buf)  # after the record: not part of the snapshot
    assert acl.rt.synchronize_event(ev) == 0
    first, record, second = tasks_by_id().values()
    assert second["end"] is None or second["end"] > record["end"]
    assert acl.rt.query_event_status(ev) == (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    assert acl.rt.stream_query(device0) == (acl.ACL_STREAM_STATUS_NOT_READY, 0)


def test_query_before_any_record_reports_not_ready(device0):
    ev, _ = acl.rt.create_event()
    assert acl.rt.query_event_status(ev) == (acl.ACL_EVENT_RECORDED_STATUS_NOT_READY, 0)


def test_stream_wait_event_holds_later_tasks_until_the_snapshot_completes(device0):
    consumer, _ = acl.rt.create_stream()
    buf = dev_alloc(64)
    ev, _ = acl.rt.create_event()
    work[1, device0](buf)
    acl.rt.record_event(ev, device0)
    acl.rt.stream_wait_event(consumer, ev)
    work[1, consumer](buf)
    acl.rt.synchronize_device()
    producer_k, record, wait, consumer_k = tasks_by_id().values()
    assert consumer_k["start"] >= producer_k["end"]


def test_a_later_record_does_not_move_a_wait_already_issued(device0):
    consumer, _ = acl.rt.create_stream()
    buf = dev_alloc(64)
    ev, _ = acl.rt.create_event()
    acl.rt.record_event(ev, device0)  # snapshot of an empty stream: complete at once
    acl.rt.stream_wait_event(consumer, ev)
    work[1, device0](buf)
    acl.rt.record_event(ev, device0)  # new snapshot, after the wait was issued
    work[1, consumer](buf)
    acl.rt.synchronize_device()
    tasks = list(tasks_by_id().values())
    producer_k, consumer_k = tasks[2], tasks[4]
    assert consumer_k["start"] < producer_k["end"]


def test_waiting_on_a_never_recorded_event_does_not_block(device0):
    ev, _ = acl.rt.create_event()
    assert acl.rt.stream_wait_event(device0, ev) == 0
    assert acl.rt.synchronize_stream(device0) == 0


def test_elapsed_time_is_in_ms_at_the_profiles_timer_resolution(device0):
    buf = dev_alloc(64)
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    acl.rt.record_event(start, device0)
    work[1, device0](buf)
    acl.rt.record_event(end, device0)
    acl.rt.synchronize_event(end)
    ms, ret = acl.rt.event_elapsed_time(start, end)
    record_start, kern, record_end = tasks_by_id().values()
    exact = (record_end["end"] - record_start["end"]) / 1e6
    assert ret == 0 and abs(ms - exact) <= 20e-6  # 910B: 20 ns ticks
    ticks = (record_end["end"] // 20) - (record_start["end"] // 20)
    assert ms == ticks / 50_000


def test_elapsed_time_on_310b_counts_48000_ticks_per_ms():
    sandbox.configure("ascend310b")
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    buf = dev_alloc(64)
    a, _ = acl.rt.create_event()
    b, _ = acl.rt.create_event()
    acl.rt.record_event(a, s)
    work[1, s](buf)
    acl.rt.record_event(b, s)
    acl.rt.synchronize_stream(s)
    ms, ret = acl.rt.event_elapsed_time(a, b)
    tasks = list(tasks_by_id().values())
    ta, tb = tasks[0]["end"], tasks[2]["end"]
    assert ret == 0 and ms == (tb * 48_000 // 1_000_000 - ta * 48_000 // 1_000_000) / 48_000


def test_elapsed_time_before_the_end_event_completes_is_107006_timestamp_invalid(device0):
    buf = dev_alloc(64)
    a, _ = acl.rt.create_event()
    b, _ = acl.rt.create_event()
    acl.rt.record_event(a, device0)
    work[1, device0](buf)
    acl.rt.record_event(b, device0)
    assert acl.rt.event_elapsed_time(a, b) == (0.0, acl.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
    assert acl.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID == 107006


def test_elapsed_time_of_a_never_recorded_event_is_an_internal_error(device0):
    a, _ = acl.rt.create_event()
    b, _ = acl.rt.create_event()
    acl.rt.record_event(a, device0)
    acl.rt.synchronize_stream(device0)
    assert acl.rt.event_elapsed_time(a, b)[1] == acl.ACL_ERROR_RT_INTERNAL_ERROR


def test_a_stream_waits_only_on_an_event_with_sync_external_or_ipc_else_207000(device0):
    timing_only, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE)
    assert acl.rt.stream_wait_event(device0, timing_only) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert "ACL_EVENT_SYNC" in acl.get_recent_err_msg()
    for flag in (acl.ACL_EVENT_SYNC, acl.ACL_EVENT_EXTERNAL):
        ev, _ = acl.rt.create_event_with_flag(flag)
        assert acl.rt.stream_wait_event(device0, ev) == 0, flag


def test_elapsed_time_reads_any_recorded_event_whatever_its_flags(device0):
    sync_only, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC)
    plain, _ = acl.rt.create_event()
    acl.rt.record_event(plain, device0)
    work[1, device0](dev_alloc(64))
    acl.rt.record_event(sync_only, device0)
    acl.rt.synchronize_stream(device0)
    ms, ret = acl.rt.event_elapsed_time(plain, sync_only)
    assert ret == 0 and ms > 0
    external, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_EXTERNAL)
    assert acl.rt.event_elapsed_time(plain, external)[1] == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT


def test_plain_events_reset_on_an_ordinary_stream(device0):
    plain, _ = acl.rt.create_event()
    acl.rt.record_event(plain, device0)
    assert acl.rt.reset_event(plain, device0) == 0
    acl.rt.synchronize_stream(device0)
    assert acl.rt.query_event_status(plain)[0] == acl.ACL_EVENT_RECORDED_STATUS_NOT_READY


def test_resetting_a_with_flag_event_without_a_wait_task_is_207000(device0):
    for flag in (acl.ACL_EVENT_TIME_LINE, acl.ACL_EVENT_CAPTURE_STREAM_PROGRESS, acl.ACL_EVENT_IPC):
        ev, _ = acl.rt.create_event_with_flag(flag)
        assert acl.rt.reset_event(ev, device0) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT == 207000
    both, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC | acl.ACL_EVENT_TIME_LINE)
    assert acl.rt.reset_event(both, device0) == 0


def test_sync_flagged_events_can_be_reset(device0):
    ev, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC)
    acl.rt.record_event(ev, device0)
    acl.rt.synchronize_stream(device0)
    assert acl.rt.query_event_status(ev)[0] == acl.ACL_EVENT_RECORDED_STATUS_COMPLETE
    assert acl.rt.reset_event(ev, device0) == 0
    acl.rt.synchronize_stream(device0)
    assert acl.rt.query_event_status(ev)[0] == acl.ACL_EVENT_RECORDED_STATUS_NOT_READY


def test_destroyed_event_handles_are_rejected(device0):
    ev, _ = acl.rt.create_event()
    assert acl.rt.destroy_event(ev) == 0
    assert acl.rt.record_event(ev, device0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_event(ev) == acl.ACL_ERROR_INVALID_PARAM


@pytest.mark.parametrize("flag", [0, 0x80, -1])
def test_unknown_event_flags_are_invalid(device0, flag):
    assert acl.rt.create_event_with_flag(flag) == (0, acl.ACL_ERROR_INVALID_PARAM)


def test_event_get_timestamp_is_when_the_recorded_work_finished_in_microseconds(device0):
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    assert acl.rt.event_get_timestamp(start)[1] == acl.ACL_ERROR_RT_INTERNAL_ERROR  # never recorded
    acl.rt.record_event(start, device0)
    work[1, device0](dev_alloc(64))
    acl.rt.record_event(end, device0)
    assert acl.rt.event_get_timestamp(end)[1] == acl.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
    acl.rt.synchronize_stream(device0)
    t0, ret0 = acl.rt.event_get_timestamp(start)
    t1, ret1 = acl.rt.event_get_timestamp(end)
    assert ret0 == ret1 == 0 and type(t0) is int
    ms, _ = acl.rt.event_elapsed_time(start, end)
    assert abs((t1 - t0) / 1000 - ms) < 0.01 and t1 - t0 >= 50
    timing_off, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC)
    acl.rt.record_event(timing_off, device0)
    acl.rt.synchronize_stream(device0)
    t2, ret2 = acl.rt.event_get_timestamp(timing_off)  # no flag check (api_error.cc:1864-1876)
    assert ret2 == 0 and t2 >= t1


def test_query_event_is_not_ready_while_its_last_record_has_not_run_and_complete_otherwise(device0):
    ev, _ = acl.rt.create_event()
    assert acl.rt.query_event(ev) == (acl.ACL_EVENT_STATUS_COMPLETE, 0)  # never recorded
    work[1, device0](dev_alloc(64))
    acl.rt.record_event(ev, device0)
    assert acl.rt.query_event(ev) == (acl.ACL_EVENT_STATUS_NOT_READY, 0)
    acl.rt.synchronize_stream(device0)
    assert acl.rt.query_event(ev) == (acl.ACL_EVENT_STATUS_COMPLETE, 0)


def test_query_event_wait_status_is_complete_once_every_wait_for_the_event_has_run(device0):
    ev, _ = acl.rt.create_event()
    other, _ = acl.rt.create_stream()
    assert acl.rt.query_event_wait_status(ev) == (acl.ACL_EVENT_WAIT_STATUS_COMPLETE, 0)  # no wait yet
    work[1, device0](dev_alloc(64))
    acl.rt.record_event(ev, device0)
    acl.rt.stream_wait_event(other, ev)
    assert acl.rt.query_event_wait_status(ev) == (acl.ACL_EVENT_WAIT_STATUS_NOT_READY, 0)
    acl.rt.synchronize_stream(other)
    assert acl.rt.query_event_wait_status(ev) == (acl.ACL_EVENT_WAIT_STATUS_COMPLETE, 0)


def test_event_ids_count_per_device_for_events_with_a_wait_task_else_507000(device0):
    first, _ = acl.rt.create_event()
    synced, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC)
    timing, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE)
    a, b = acl.rt.get_event_id(first), acl.rt.get_event_id(synced)
    assert a[1] == b[1] == 0 and b[0] == a[0] + 1
    assert acl.rt.get_event_id(timing) == (0, acl.ACL_ERROR_RT_INTERNAL_ERROR)


def test_the_available_event_and_stream_counts_are_the_device_s_limits_less_what_it_holds(device0):
    events_left, ret = acl.rt.get_event_avail_num()
    streams_left, _ = acl.rt.get_stream_available_num()
    assert ret == 0 and events_left == sandbox.profile().max_events  # the default context holds no event
    acl.rt.create_event()
    acl.rt.create_stream()
    assert acl.rt.get_event_avail_num() == (events_left - 1, 0)
    assert acl.rt.get_stream_available_num() == (streams_left - 1, 0)
