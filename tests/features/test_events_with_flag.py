"""aclrtCreateEventExWithFlag, aclrtRecordEventWithFlag and aclrtStreamWaitEventWithFlag (core/features/events.py),
and EXTERNAL record/wait across the capture boundary (core/features/capture.py): one test per rule."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import sandbox
from sandbox import acl
from conftest import dev_alloc, tasks_by_id

RELAXED = acl.ACL_MODEL_RI_CAPTURE_MODE_RELAXED
D2D = acl.ACL_MEMCPY_DEVICE_TO_DEVICE


@sandbox.kernel(ns=1_000_000, writes=("x",))
def fill(x: sandbox.ptr(np.int32, count=8), value: int):
    x[:] = value


def read8(ptr):
    out = np.zeros(8, np.int32)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(out), 32, ptr, 32, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    return out.tolist()


@pytest.mark.parametrize(
    "flag",
    [
        0,
        acl.ACL_EVENT_EXTERNAL,
        acl.ACL_EVENT_DEVICE_USE_ONLY,
        acl.ACL_EVENT_IPC | acl.ACL_EVENT_SYNC,
        acl.ACL_EVENT_SYNC | acl.ACL_EVENT_DEVICE_USE_ONLY,
        0x80,
    ],
)
def test_an_ex_event_flag_outside_sync_progress_timeline_or_ipc_alone_is_107000(device0, flag):
    event, ret = acl.rt.create_event_ex_with_flag(flag)
    assert ret == acl.ACL_ERROR_RT_PARAM_INVALID and "aclrtCreateEventExWithFlag" in acl.get_recent_err_msg()


def test_an_ex_event_refuses_reset_with_207000_and_changes_nothing(device0):
    event, ret = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    assert ret == 0
    assert acl.rt.record_event(event, device0) == 0
    before = len(tasks_by_id())
    assert acl.rt.reset_event(event, device0) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert len(tasks_by_id()) == before
    assert acl.rt.synchronize_event(event) == 0


def test_a_record_or_wait_flag_other_than_default_or_external_is_100000(device0):
    event, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    assert acl.rt.record_event_with_flag(event, device0, 2) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.stream_wait_event_with_flag(device0, event, 0, 2) == acl.ACL_ERROR_INVALID_PARAM
    assert tasks_by_id() == {}


def test_external_record_or_wait_off_a_capture_is_107029(device0):
    event, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    code = acl.ACL_ERROR_RT_STREAM_NOT_CAPTURED
    assert acl.rt.record_event_with_flag(event, device0, acl.ACL_EVENT_RECORD_EXTERNAL) == code
    assert acl.rt.stream_wait_event_with_flag(device0, event, 0, acl.ACL_EVENT_WAIT_EXTERNAL) == code


def test_an_external_wait_needs_timeout_0_else_100000(device0):
    event, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    assert acl.mdl.ri_capture_begin(device0, RELAXED) == 0
    assert acl.rt.stream_wait_event_with_flag(device0, event, 5, acl.ACL_EVENT_WAIT_EXTERNAL) == 100000
    _, ret = acl.mdl.ri_capture_end(device0)
    assert ret == 0


def test_the_default_flags_record_and_wait_as_the_plain_calls(device0):
    event, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    other, _ = acl.rt.create_stream()
    x = dev_alloc(32)
    fill[1, device0](x, 3)
    assert acl.rt.record_event_with_flag(event, device0, acl.ACL_EVENT_RECORD_DEFAULT) == 0
    assert acl.rt.stream_wait_event_with_flag(other, event, 0, acl.ACL_EVENT_WAIT_DEFAULT) == 0
    fill[1, other](x, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", sandbox.HazardWarning)
        assert acl.rt.synchronize_stream(other) == 0
        assert read8(x) == [4] * 8


def capture(stream, *steps):
    assert acl.mdl.ri_capture_begin(stream, RELAXED) == 0
    for step in steps:
        assert step() == 0, acl.get_recent_err_msg()
    ri, ret = acl.mdl.ri_capture_end(stream)
    assert ret == 0, acl.get_recent_err_msg()
    return ri


def test_a_graphs_external_wait_waits_for_the_record_made_before_each_launch_hazards_included(device0):
    event, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    eager, _ = acl.rt.create_stream()
    src, dst = dev_alloc(32), dev_alloc(32)
    ri = capture(
        device0,
        lambda: acl.rt.stream_wait_event_with_flag(device0, event, 0, acl.ACL_EVENT_WAIT_EXTERNAL),
        lambda: acl.rt.memcpy_async(dst, 32, src, 32, D2D, device0),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", sandbox.HazardWarning)
        for value in (5, 6):
            fill[1, eager](src, value)  # eager work the replay must follow
            assert acl.rt.record_event(event, eager) == 0
            assert acl.mdl.ri_execute_async(ri, device0) == 0
            assert acl.rt.synchronize_stream(device0) == 0
            assert read8(dst) == [value] * 8


def test_without_the_external_wait_the_replay_races_the_eager_work(device0):
    eager, _ = acl.rt.create_stream()
    src, dst = dev_alloc(32), dev_alloc(32)
    ri = capture(device0, lambda: acl.rt.memcpy_async(dst, 32, src, 32, D2D, device0))
    fill[1, eager](src, 5)
    with pytest.warns(sandbox.HazardWarning, match="kernel fill"):
        acl.mdl.ri_execute_async(ri, device0)


def test_eager_work_waiting_on_a_graphs_external_record_follows_the_replay(device0):
    event, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    eager, _ = acl.rt.create_stream()
    src, dst = dev_alloc(32), dev_alloc(32)
    fill[1, device0](src, 7)
    acl.rt.synchronize_stream(device0)
    ri = capture(
        device0,
        lambda: acl.rt.memcpy_async(dst, 32, src, 32, D2D, device0),
        lambda: acl.rt.record_event_with_flag(event, device0, acl.ACL_EVENT_RECORD_EXTERNAL),
    )
    assert acl.mdl.ri_execute_async(ri, device0) == 0
    assert acl.rt.stream_wait_event(eager, event) == 0
    fill[1, eager](dst, 9)  # must come after the replayed copy
    with warnings.catch_warnings():
        warnings.simplefilter("error", sandbox.HazardWarning)
        assert acl.rt.synchronize_stream(eager) == 0
        assert read8(dst) == [9] * 8
    copy = next(t for t in tasks_by_id().values() if t["kind"] == "memcpy" and t["stream"] != eager)
    second_fill = [t for t in tasks_by_id().values() if t["name"] == "fill"][-1]
    assert second_fill["start"] >= copy["end"]


def test_one_graphs_external_record_orders_another_graphs_external_wait(device0):
    event, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    second, _ = acl.rt.create_stream()
    src, mid, dst = dev_alloc(32), dev_alloc(32), dev_alloc(32)
    fill[1, device0](src, 2)
    acl.rt.synchronize_stream(device0)
    ri1 = capture(
        device0,
        lambda: acl.rt.memcpy_async(mid, 32, src, 32, D2D, device0),
        lambda: acl.rt.record_event_with_flag(event, device0, acl.ACL_EVENT_RECORD_EXTERNAL),
    )
    ri2 = capture(
        second,
        lambda: acl.rt.stream_wait_event_with_flag(second, event, 0, acl.ACL_EVENT_WAIT_EXTERNAL),
        lambda: acl.rt.memcpy_async(dst, 32, mid, 32, D2D, second),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", sandbox.HazardWarning)
        assert acl.mdl.ri_execute_async(ri1, device0) == 0
        assert acl.mdl.ri_execute_async(ri2, second) == 0
        assert acl.rt.synchronize_stream(second) == 0
        assert read8(dst) == [2] * 8


def test_an_external_record_leaves_the_event_outside_the_capture(device0):
    event, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    assert acl.mdl.ri_capture_begin(device0, RELAXED) == 0
    assert acl.rt.record_event_with_flag(event, device0, acl.ACL_EVENT_RECORD_EXTERNAL) == 0
    status, ret = acl.rt.query_event_status(event)  # not a captured event: no 107028
    assert ret == 0
    _, ret = acl.mdl.ri_capture_end(device0)
    assert ret == 0
