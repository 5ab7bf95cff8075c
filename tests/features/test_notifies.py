"""Notifies and value waits (core/features/notifies.py): a flag or a device word that a stream waits for."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sandbox
from sandbox import acl
from sandbox.core import trace as T
from sandbox.export.chrome_trace import to_chrome_trace
from sandbox.export.validate import validate_chrome_trace
from sandbox.viz.columns import columns
from sandbox.viz.plot_gantt import gantt_figure
from sandbox.widgets.api import summary

from conftest import dev_alloc, pinned, tasks_by_id

EQ, GEQ, AND, NOR = (
    acl.ACL_STREAM_WAIT_VALUE_EQ,
    acl.ACL_STREAM_WAIT_VALUE_GEQ,
    acl.ACL_STREAM_WAIT_VALUE_AND,
    acl.ACL_STREAM_WAIT_VALUE_NOR,
)


@sandbox.kernel(ns=1_000_000, writes=("x",))
def slow_add(x: sandbox.ptr(np.uint32, count=1)):
    x[0] += 1


@sandbox.kernel(ns=1_000)
def double(x: sandbox.ptr(np.uint32, count=1)):
    x[0] *= 2


def notify():
    handle, ret = acl.rt.create_notify(acl.ACL_NOTIFY_DEFAULT)
    assert ret == 0, acl.get_recent_err_msg()
    return handle


def tasks_of(kind):
    return [t for t in tasks_by_id().values() if t["kind"] == kind]


def no_hazards():
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("error", sandbox.HazardWarning)
    return ctx


def counter():
    dev = dev_alloc(64)
    acl.rt.memset(dev, 64, 0, 64)
    return dev


def read_u32(dev):
    out = np.zeros(1, np.uint32)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(out), 4, dev, 4, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    return int(out[0])


# -- notifies: ordering ------------------------------------------------------------------------------------
def test_a_notify_wait_reached_before_its_record_holds_its_stream_until_the_record(device0):
    other, _ = acl.rt.create_stream()
    n, x = notify(), counter()
    ctx = no_hazards()  # the record releases the wait: the clocks learn the order (no race reported)
    try:
        assert acl.rt.wait_and_reset_notify(n, other, 0) == 0  # reached at once: nothing recorded yet
        double[1, other](x)
        slow_add[1, device0](x)
        assert acl.rt.record_notify(n, device0) == 0
        assert acl.rt.synchronize_stream(other) == 0
        dbl, add = tasks_of("kernel")
        acl.rt.synchronize_device()
        assert dbl["start"] >= add["end"] and read_u32(x) == 2
    finally:
        ctx.__exit__(None, None, None)
    assert sandbox.hazards() == []
    (wait,) = tasks_of("notify_wait")
    assert wait["end"] == tasks_of("notify_record")[0]["end"]


def test_a_record_that_ran_before_the_wait_lets_the_wait_pass_at_once(device0):
    other, _ = acl.rt.create_stream()
    n = notify()
    acl.rt.record_notify(n, device0)
    acl.rt.synchronize_stream(device0)
    acl.rt.wait_and_reset_notify(n, other, 0)
    assert acl.rt.synchronize_stream(other) == 0
    (wait,) = tasks_of("notify_wait")
    assert wait["end"] == wait["start"]


def test_two_records_set_the_flag_once_so_a_second_wait_waits_for_a_third(device0):
    other, _ = acl.rt.create_stream()
    n = notify()
    acl.rt.record_notify(n, device0)
    acl.rt.record_notify(n, device0)
    acl.rt.wait_and_reset_notify(n, other, 0)
    acl.rt.wait_and_reset_notify(n, other, 1)  # 1 s: reset by the first wait, nothing sets it again
    assert acl.rt.synchronize_stream(other) == acl.ACL_ERROR_RT_TASK_TIMEOUT
    first, second = tasks_of("notify_wait")
    assert first["status"] == 0 and second["status"] == acl.ACL_ERROR_RT_TASK_TIMEOUT
    assert second["end"] - second["start"] == 10**9


def test_a_third_record_releases_the_second_wait(device0):
    other, _ = acl.rt.create_stream()
    n = notify()
    acl.rt.record_notify(n, device0)
    acl.rt.wait_and_reset_notify(n, other, 0)
    acl.rt.wait_and_reset_notify(n, other, 0)
    acl.rt.record_notify(n, device0)
    assert acl.rt.synchronize_stream(other) == 0
    assert [t["status"] for t in tasks_of("notify_wait")] == [0, 0]


def test_a_notify_wait_that_nothing_records_ends_the_synchronize_with_507046_instead_of_hanging(device0):
    n = notify()
    acl.rt.wait_and_reset_notify(n, device0, 0)
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    message = acl.get_recent_err_msg()
    assert "can never finish" in message and "(NOTIFY_WAIT) of stream 1 waits for a record of its notify" in message


def test_a_notify_wait_with_a_timeout_fails_its_task_with_107020_after_that_many_seconds(device0):
    n = notify()
    acl.rt.wait_and_reset_notify(n, device0, 3)
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_TASK_TIMEOUT
    (wait,) = tasks_of("notify_wait")
    assert wait["end"] - wait["start"] == 3 * 10**9


def test_a_record_on_another_devices_stream_sets_the_notify(device0):
    n = notify()
    acl.rt.set_device(1)
    s1, _ = acl.rt.create_stream()
    acl.rt.record_notify(n, s1)
    acl.rt.set_device(0)
    acl.rt.wait_and_reset_notify(n, device0, 1)
    assert acl.rt.synchronize_stream(device0) == 0


# -- notifies: codes ---------------------------------------------------------------------------------------
def test_create_notify_with_a_flag_other_than_default_or_device_use_only_is_107000(device0):
    assert acl.rt.create_notify(acl.ACL_NOTIFY_DEVICE_USE_ONLY)[1] == 0
    assert acl.rt.create_notify(2) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


def test_create_notify_without_a_current_context_is_107002(machine):
    assert acl.rt.create_notify(0) == (0, acl.ACL_ERROR_RT_CONTEXT_NULL)


def test_destroy_notify_of_a_null_notify_is_100000_even_without_a_current_context(machine):
    assert acl.rt.destroy_notify(0) == acl.ACL_ERROR_INVALID_PARAM  # the acl layer's check comes first
    assert acl.rt.destroy_notify(0x1234) == acl.ACL_ERROR_RT_CONTEXT_NULL


def test_more_notifies_than_the_profile_allows_is_207009():
    sandbox.configure(sandbox.profiles.ASCEND_910B.with_(max_notifies=2))
    acl.init()
    acl.rt.set_device(0)
    notify(), notify()
    assert acl.rt.create_notify(0) == (0, acl.ACL_ERROR_RT_NO_NOTIFY_RESOURCE)


def test_a_null_or_unknown_or_destroyed_notify_is_100000(device0):
    n = notify()
    assert acl.rt.destroy_notify(n) == 0
    for handle in (0, n, 0x1234):
        assert acl.rt.record_notify(handle, device0) == acl.ACL_ERROR_INVALID_PARAM
        assert acl.rt.wait_and_reset_notify(handle, device0, 0) == acl.ACL_ERROR_INVALID_PARAM
        assert acl.rt.destroy_notify(handle) == acl.ACL_ERROR_INVALID_PARAM


def test_a_notify_on_a_stream_of_another_context_is_107003(device0):
    n = notify()
    acl.rt.set_device(1)
    assert acl.rt.record_notify(n, device0) == acl.ACL_ERROR_RT_STREAM_CONTEXT
    assert acl.rt.wait_and_reset_notify(n, device0, 0) == acl.ACL_ERROR_RT_STREAM_CONTEXT


def test_a_timeout_outside_uint32_is_100000_and_changes_nothing(device0):
    n = notify()
    before = len(list(sandbox.trace().of(T.TaskSubmitted)))
    assert acl.rt.wait_and_reset_notify(n, device0, -1) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.wait_and_reset_notify(n, device0, 2**32) == acl.ACL_ERROR_INVALID_PARAM
    assert len(list(sandbox.trace().of(T.TaskSubmitted))) == before


# -- capture (ACL Graph) -------------------------------------------------------------------------------------
def capture(stream, body):
    assert acl.mdl.ri_capture_begin(stream, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == 0
    body()
    ri, ret = acl.mdl.ri_capture_end(stream)
    assert ret == 0, acl.get_recent_err_msg()
    return ri


def test_a_captured_notify_record_runs_at_each_launch_and_releases_a_wait_queued_before_it(device0):
    s, _ = acl.rt.create_stream()
    other, _ = acl.rt.create_stream()
    n, x = notify(), counter()
    ri = capture(s, lambda: (slow_add[1, s](x), acl.rt.record_notify(n, s)))
    assert tasks_of("notify_record") == []  # recorded into the graph, not run
    assert [r.kind for r in sandbox.trace().of(T.TaskCaptured)] == ["kernel", "notify_record"]
    ctx = no_hazards()  # the launched record releases the wait: the graph's kernel comes before double
    try:
        for launch in (1, 2):
            assert acl.rt.wait_and_reset_notify(n, other, 0) == 0
            double[1, other](x)
            assert acl.mdl.ri_execute_async(ri, s) == 0
            assert acl.rt.synchronize_stream(other) == 0
            assert read_u32(x) == [2, 6][launch - 1]  # (0 + 1) * 2, then (2 + 1) * 2
    finally:
        ctx.__exit__(None, None, None)
    assert sandbox.hazards() == []
    assert [t["status"] for t in tasks_of("notify_record")] == [0, 0]


def test_a_captured_value_wait_holds_each_launch_until_its_word_is_written(device0, tmp_path):
    s, _ = acl.rt.create_stream()
    other, _ = acl.rt.create_stream()
    word, x = counter(), counter()
    ri = capture(s, lambda: (acl.rt.value_wait(word, 1, EQ, s), double[1, s](x), acl.rt.value_write(word, 0, 0, s)))
    acl.rt.memset(x, 64, 1, 4)  # x = 0x01010101
    for _ in (1, 2):
        assert acl.mdl.ri_execute_async(ri, s) == 0
        acl.rt.value_write(word, 1, 0, other)  # releases this launch's wait; the launch writes 0 back
        assert acl.rt.synchronize_stream(s) == 0
    assert read_u32(x) == 0x01010101 * 4
    waits, writes = tasks_of("value_wait"), tasks_of("value_write")
    assert [w["end"] for w in waits] == [writes[1]["end"], writes[3]["end"]]  # (0, 2: the launches' own)
    assert sandbox.hazards() == []  # each launch's wait learns the write that released it
    path = tmp_path / "ri.json"
    assert acl.mdl.ri_debug_json_print(ri, str(path), 0) == 0
    assert [t["task_type"] for t in json.loads(path.read_text())["tasks"]] == ["VALUE_WAIT", "KERNEL", "VALUE_WRITE"]


def test_a_capture_records_a_notify_wait_and_each_launch_waits_for_a_record_made_after_it(device0):
    s, _ = acl.rt.create_stream()
    n, x = notify(), counter()
    ri = capture(s, lambda: (acl.rt.wait_and_reset_notify(n, s, 0), double[1, s](x)))
    acl.rt.memset(x, 64, 1, 1)
    assert acl.mdl.ri_execute_async(ri, s) == 0
    assert acl.rt.synchronize_stream(s) == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT  # nothing recorded: 507046
    assert "(NOTIFY_WAIT) of stream" in acl.get_recent_err_msg()
    assert acl.rt.record_notify(n, device0) == 0
    assert acl.rt.synchronize_stream(s) == 0 and read_u32(x) == 2


# -- notifies: hazards -------------------------------------------------------------------------------------
def test_a_notify_wait_orders_the_waiting_stream_as_an_event_wait_does(device0):
    other, _ = acl.rt.create_stream()
    n, x = notify(), counter()
    ctx = no_hazards()
    try:
        slow_add[1, device0](x)
        acl.rt.record_notify(n, device0)
        acl.rt.wait_and_reset_notify(n, other, 0)
        double[1, other](x)
        acl.rt.synchronize_stream(other)
        assert read_u32(x) == 2  # (0 + 1) * 2, read after the synchronize: no hazard
    finally:
        ctx.__exit__(None, None, None)
    assert sandbox.hazards() == []


def test_without_the_notify_wait_the_race_is_still_reported(device0):
    other, _ = acl.rt.create_stream()
    n, x = notify(), dev_alloc(64)
    slow_add[1, device0](x)
    acl.rt.record_notify(n, device0)
    with pytest.warns(sandbox.HazardWarning):
        double[1, other](x)
    assert [h.kind for h in sandbox.hazards()] == ["stream_race"]


def test_a_wait_whose_record_an_earlier_wait_took_and_that_times_out_orders_nothing(device0):
    s2, _ = acl.rt.create_stream()
    s3, _ = acl.rt.create_stream()
    n, x = notify(), dev_alloc(64)
    slow_add[1, device0](x)
    acl.rt.record_notify(n, device0)
    acl.rt.wait_and_reset_notify(n, s2, 0)  # takes the record
    acl.rt.wait_and_reset_notify(n, s3, 1)  # pairs with nothing: held until it ends
    double[1, s3](x)
    assert sandbox.hazards() == []  # (a record might still release the wait)
    with pytest.warns(sandbox.HazardWarning, match="kernel double.* on Stream 3 on device 0 writes"):
        assert acl.rt.synchronize_stream(s3) == acl.ACL_ERROR_RT_TASK_TIMEOUT  # it timed out: it learns nothing
    assert [h.kind for h in sandbox.hazards()] == ["stream_race"]


def test_a_wait_released_by_a_record_not_ordered_after_the_other_writer_still_races(device0):
    s2, _ = acl.rt.create_stream()
    s3, _ = acl.rt.create_stream()
    n, x = notify(), counter()
    acl.rt.wait_and_reset_notify(n, s2, 0)
    double[1, s2](x)
    slow_add[1, device0](x)
    acl.rt.record_notify(n, s3)  # nothing orders s3's record after slow_add
    with pytest.warns(sandbox.HazardWarning, match="no event or synchronize orders the two"):
        assert acl.rt.synchronize_stream(s2) == 0
    assert [h.kind for h in sandbox.hazards()] == ["stream_race"]


def test_a_wait_released_by_a_record_that_ran_before_it_was_reached_learns_that_record(device0):
    s2, _ = acl.rt.create_stream()
    n, x, busy = notify(), counter(), counter()
    ctx = no_hazards()
    try:
        for _ in range(5):
            slow_add[1, s2](busy)  # s2 reaches the wait after 5 ms
        acl.rt.wait_and_reset_notify(n, s2, 0)
        double[1, s2](x)
        slow_add[1, device0](x)
        acl.rt.record_notify(n, device0)  # runs at 1 ms: the flag is set when the wait is reached
        assert acl.rt.synchronize_stream(s2) == 0
    finally:
        ctx.__exit__(None, None, None)
    (wait,) = tasks_of("notify_wait")
    assert wait["start"] == wait["end"] > tasks_of("notify_record")[0]["end"]
    assert sandbox.hazards() == []


def test_tasks_after_a_held_wait_through_an_event_learn_the_releasing_record_too(device0):
    s2, _ = acl.rt.create_stream()
    s3, _ = acl.rt.create_stream()
    n, x = notify(), counter()
    ev, _ = acl.rt.create_event()
    ctx = no_hazards()
    try:
        acl.rt.wait_and_reset_notify(n, s2, 0)
        acl.rt.record_event(ev, s2)
        acl.rt.stream_wait_event(s3, ev)
        double[1, s3](x)  # after the wait, through the event
        slow_add[1, device0](x)
        acl.rt.record_notify(n, device0)
        acl.rt.synchronize_device()
    finally:
        ctx.__exit__(None, None, None)
    assert sandbox.hazards() == [] and read_u32(x) == 2


# -- value write / wait ----------------------------------------------------------------------------------
def meets(flag, word, value):
    if flag == GEQ:
        return ((word - value) % 2**64) < 2**63
    if flag == EQ:
        return word == value
    if flag == AND:
        return word & value != 0
    return ~(word | value) % 2**64 != 0


@settings(max_examples=40, deadline=None)
@given(
    flag=st.sampled_from((GEQ, EQ, AND, NOR)),
    word=st.integers(0, 2**64 - 1) | st.sampled_from((0, 1, 100, 2**63, 2**64 - 1)),
    value=st.integers(0, 2**64 - 1) | st.sampled_from((0, 1, 100, 2**63, 2**64 - 1)),
)
def test_a_value_wait_passes_exactly_when_the_word_meets_its_flag(flag, word, value):
    sandbox.configure("ascend910b")
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    dev = dev_alloc(64)
    acl.rt.value_write(dev, word, 0, s)
    acl.rt.value_wait(dev, value, flag, s)
    expected = 0 if meets(flag, word, value) else acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert acl.rt.synchronize_stream(s) == expected


def test_a_value_wait_holds_its_stream_until_a_later_write_on_another_stream(device0):
    other, _ = acl.rt.create_stream()
    word, x = dev_alloc(64), counter()
    ctx = no_hazards()  # the write that releases the wait orders the two kernels: no race reported
    try:
        acl.rt.value_wait(word, 100, EQ, other)
        double[1, other](x)
        slow_add[1, device0](x)
        acl.rt.value_write(word, 99, 0, device0)
        acl.rt.value_write(word, 100, 0, device0)
        assert acl.rt.synchronize_stream(other) == 0
        dbl, add = tasks_of("kernel")
        acl.rt.synchronize_device()
        assert dbl["start"] >= add["end"] and read_u32(x) == 2
    finally:
        ctx.__exit__(None, None, None)
    assert sandbox.hazards() == []
    assert tasks_of("value_wait")[0]["end"] == tasks_of("value_write")[1]["end"]


def test_any_device_write_of_the_word_releases_a_value_wait(device0):
    other, _ = acl.rt.create_stream()
    word = dev_alloc(64)
    host, view = pinned(8, np.uint64)
    view[0] = 7
    acl.rt.value_wait(word, 7, EQ, other)
    acl.rt.memcpy_async(word, 8, host, 8, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
    assert acl.rt.synchronize_stream(other) == 0


def test_a_value_wait_nothing_satisfies_ends_the_synchronize_with_507046(device0):
    acl.rt.value_wait(dev_alloc(64), 1, EQ, device0)
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert "(MEM_WAIT_VALUE) of stream 1 waits for its word" in acl.get_recent_err_msg()


def read_word(word):
    out = np.zeros(8, np.uint8)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(out), 8, word, 8, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    return out.tobytes()


def test_a_value_write_writes_the_64_bit_word_little_endian(device0):
    word = dev_alloc(64)
    acl.rt.value_write(word, 0x0102030405060708, 0, device0)
    acl.rt.synchronize_stream(device0)
    assert read_word(word) == bytes.fromhex("0807060504030201")


def test_reading_the_word_on_the_host_before_a_synchronize_is_a_hazard(device0):
    word = dev_alloc(64)
    acl.rt.value_write(word, 5, 0, device0)
    with pytest.warns(sandbox.HazardWarning, match="MEM_WRITE_VALUE"):
        read_word(word)
    assert [h.kind for h in sandbox.hazards()] == ["stream_race"]


def test_a_value_wait_orders_the_waiting_stream_after_the_write_it_pairs_with(device0):
    other, _ = acl.rt.create_stream()
    word, x = dev_alloc(64), dev_alloc(64)
    ctx = no_hazards()
    try:
        slow_add[1, device0](x)
        acl.rt.value_write(word, 1, 0, device0)
        acl.rt.value_wait(word, 1, EQ, other)
        double[1, other](x)
        acl.rt.synchronize_stream(other)
    finally:
        ctx.__exit__(None, None, None)
    assert sandbox.hazards() == []


def test_a_value_wait_the_last_write_does_not_satisfy_orders_nothing(device0):
    other, _ = acl.rt.create_stream()
    word, x = dev_alloc(64), dev_alloc(64)
    slow_add[1, device0](x)
    acl.rt.value_write(word, 2, 0, device0)
    acl.rt.value_wait(word, 1, GEQ, other)  # 2 >= 1 holds: ordered
    acl.rt.value_wait(word, 3, EQ, other)  # 2 == 3 does not: nothing learned from this one
    double[1, other](x)
    assert sandbox.hazards() == []
    third, fourth = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
    acl.rt.value_wait(word, 3, EQ, third)  # held until a write makes the word 3
    double[1, third](x)
    assert sandbox.hazards() == []
    with pytest.warns(sandbox.HazardWarning):  # (the two value writes of the word race too)
        acl.rt.value_write(word, 3, 0, fourth)  # releases it, but nothing orders fourth after slow_add
        acl.rt.synchronize_stream(third)
    assert "stream_race" in [h.kind for h in sandbox.hazards()]


def test_a_value_wait_whose_word_already_met_it_when_reached_learns_nothing_from_a_later_write(device0):
    other, _ = acl.rt.create_stream()
    word, x, busy = counter(), counter(), counter()  # the word is 0 already (a memset, not a value write)
    for _ in range(5):
        slow_add[1, other](busy)  # the wait is reached at 5 ms, after everything below is submitted
    acl.rt.value_wait(word, 0, EQ, other)
    double[1, other](x)
    with pytest.warns(sandbox.HazardWarning, match="no event or synchronize orders the two"):
        slow_add[1, device0](x)
        acl.rt.value_write(word, 0, 0, device0)  # after the wait passed: it cannot order anything
        acl.rt.synchronize_device()
    assert [h.kind for h in sandbox.hazards()] == ["stream_race"]


def test_value_write_and_wait_codes(device0):
    word = dev_alloc(64)
    host, _ = pinned(64)
    assert acl.rt.value_write(0, 1, 0, device0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.value_write(word, 1, 1, device0) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.value_wait(word, 1, 4, device0) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.value_write(word + 4, 1, 0, device0) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.value_write(word + 64, 1, 0, device0) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.value_write(host, 1, 0, device0) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.value_write(word, 2**64, 0, device0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.value_wait(word, -1, EQ, device0) == acl.ACL_ERROR_INVALID_PARAM
    assert list(sandbox.trace().of(T.TaskSubmitted)) == []


@pytest.mark.parametrize("profile", ["ascend310p", "ascend310b"])
def test_value_write_and_wait_on_a_chip_without_them_are_207000(profile):
    sandbox.configure(profile)
    acl.init()
    acl.rt.set_device(0)
    word = dev_alloc(64)
    assert acl.rt.value_write(word, 1, 0, 0) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert acl.rt.value_wait(word, 1, EQ, 0) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT


# -- views ---------------------------------------------------------------------------------------------------
def test_notify_and_value_tasks_show_in_the_chrome_trace_the_gantt_and_the_dashboard_columns(device0):
    other, _ = acl.rt.create_stream()
    n, word = notify(), dev_alloc(64)
    acl.rt.wait_and_reset_notify(n, other, 0)
    acl.rt.record_notify(n, device0)
    acl.rt.value_wait(word, 1, EQ, device0)
    acl.rt.value_write(word, 1, 0, other)
    acl.rt.synchronize_device()
    trace = json.loads(json.dumps(to_chrome_trace(sandbox.trace())))
    assert validate_chrome_trace(trace) == []
    types = {e["args"].get("Task Type") for e in trace["traceEvents"] if e.get("ph") == "X" and "args" in e}
    assert {"NOTIFY_RECORD", "NOTIFY_WAIT", "MEM_WRITE_VALUE", "MEM_WAIT_VALUE"} <= types
    (wait,) = tasks_of("notify_wait")
    assert wait["end"] > wait["start"]  # the wait's bar spans the time it held its stream
    meta, _ = columns(sandbox.trace())
    assert {"notify_record", "notify_wait", "value_write", "value_wait"} <= set(meta["kinds"])
    gantt_figure(sandbox.trace())
    assert "task" in str(summary(sandbox.trace()))


def test_a_notify_wait_queued_before_its_record_orders_the_work_behind_it_after_the_records_stream(device0):
    s2, _ = acl.rt.create_stream()
    n, x = notify(), counter()
    acl.rt.wait_and_reset_notify(n, s2, 0)
    double[1, s2](x)  # queued before the add it comes after
    slow_add[1, device0](x)
    acl.rt.record_notify(n, device0)
    assert acl.rt.synchronize_stream(s2) == 0
    assert acl.rt.free(x) == 0  # the host knows the add is done: it came before the double it waited for
    assert sandbox.hazards() == []


def test_freeing_or_reading_memory_that_work_behind_an_unrecorded_wait_uses_is_reported(device0):
    s2, _ = acl.rt.create_stream()
    n, x = notify(), counter()
    acl.rt.wait_and_reset_notify(n, s2, 0)
    double[1, s2](x)  # cannot run before a record, but it is in use all the same
    h, _ = acl.rt.malloc_host(64)
    acl.rt.memcpy_async(h, 64, x, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST, s2)
    with pytest.warns(sandbox.HazardWarning, match="host has not seen complete"):
        acl.util.ptr_to_numpy(h, (1,), np.uint32)
    with pytest.warns(sandbox.HazardWarning, match="still uses it"):
        acl.rt.free(x)
    assert [h.kind for h in sandbox.hazards()] == ["host_read", "free_in_use"]


def test_a_device_reset_frees_the_notifies_made_in_its_context_so_their_handles_are_dead_and_the_limit_has_room():
    sandbox.configure(sandbox.profiles.ASCEND_910B.with_(max_notifies=2))
    acl.init()
    acl.rt.set_device(0)
    first, second = notify(), notify()
    assert acl.rt.reset_device(0) == 0  # no leak report: the reset is not the process's end
    acl.rt.set_device(0)
    assert acl.rt.destroy_notify(first) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.record_notify(second, 0) == acl.ACL_ERROR_INVALID_PARAM
    notify(), notify()  # the device has room for two again


def test_after_finalize_the_undestroyed_notifies_leave_the_leak_report(machine):
    acl.rt.set_device(0)
    acl.rt.create_notify(acl.ACL_NOTIFY_DEFAULT)
    with pytest.warns(sandbox.LeakWarning, match="aclrtDestroyNotify"):
        acl.finalize()
    assert sandbox.leak_report().items == ()


def test_a_reached_wait_dropped_by_a_forced_destroy_no_longer_shows_in_the_deadlock_report(device0):
    waiting, _ = acl.rt.create_stream()
    n = notify()
    assert acl.rt.wait_and_reset_notify(n, waiting, 0) == 0
    assert acl.rt.synchronize_stream_with_timeout(waiting, 10) != 0  # the wait is reached and parked
    assert acl.rt.destroy_stream_force(waiting) == 0
    dev, _ = acl.rt.malloc(64, 0)
    assert acl.rt.value_wait(dev, 1, acl.ACL_STREAM_WAIT_VALUE_EQ, device0) == 0  # nothing writes the word
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    message = acl.get_recent_err_msg()
    assert "MEM_WAIT_VALUE" in message and "NOTIFY_WAIT" not in message


@pytest.mark.parametrize("kind", ["notify", "value"])
def test_stream_abort_drops_a_reached_wait_that_nothing_would_release_and_the_stream_is_usable_again(device0, kind):
    stuck, _ = acl.rt.create_stream()
    if kind == "notify":
        assert acl.rt.wait_and_reset_notify(notify(), stuck, 0) == 0
    else:
        dev, _ = acl.rt.malloc(64, 0)
        assert acl.rt.value_wait(dev, 1, acl.ACL_STREAM_WAIT_VALUE_EQ, stuck) == 0
    assert acl.rt.synchronize_stream_with_timeout(stuck, 10) != 0  # reached, and held there
    assert acl.rt.stream_abort(stuck) == 0
    assert acl.rt.synchronize_stream(stuck) == acl.ACL_ERROR_RT_STREAM_ABORT  # once
    (row,) = [r for r in sandbox.trace().of(T.TaskFinished) if r.task == 1]
    assert row.status == acl.ACL_ERROR_RT_STREAM_ABORT
    acl.rt.memset_async(dev if kind == "value" else acl.rt.malloc(64, 0)[0], 64, 0, 64, stuck)
    assert acl.rt.synchronize_stream(stuck) == 0
