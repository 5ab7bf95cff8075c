"""aclrtStreamStop, aclrtStreamAbort and aclrtRegStreamStateCallback (core/features/streams.py), and how they
meet the stop-on-failure mode: one test per rule."""

from __future__ import annotations

import numpy as np

import sandbox
from sandbox import acl
from sandbox.core import trace as T
from conftest import dev_alloc, tasks_by_id


@sandbox.kernel(ns=10_000_000, writes=("x",))
def slow_add(x: sandbox.ptr(np.uint32, count=1)):
    x[0] += 1


@sandbox.kernel(ns=2_000, writes=("x",))
def add(x: sandbox.ptr(np.uint32, count=1)):
    x[0] += 1


def read_u32(ptr):
    out = np.zeros(1, np.uint32)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(out), 4, ptr, 4, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    return int(out[0])


def zeroed():
    ptr = dev_alloc(4)
    assert acl.rt.memset(ptr, 4, 0, 4) == 0
    return ptr


def test_stream_abort_stops_the_running_task_and_discards_the_queued_ones_with_107023(device0):
    x = zeroed()
    slow_add[1, device0](x)
    add[1, device0](x)
    assert acl.rt.stream_abort(device0) == 0
    statuses = [t["status"] for t in tasks_by_id().values() if t["stream"] == device0]
    assert statuses == [acl.ACL_ERROR_RT_STREAM_ABORT] * 2
    assert read_u32(x) == 0  # neither task's effect happened


def test_the_synchronize_after_an_abort_that_discarded_work_returns_107023_once(device0):
    slow_add[1, device0](zeroed())
    assert acl.rt.stream_abort(device0) == 0
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_STREAM_ABORT
    assert acl.rt.synchronize_stream(device0) == 0


def test_an_aborted_stream_is_usable_again(device0):
    x = zeroed()
    slow_add[1, device0](x)
    acl.rt.stream_abort(device0)
    acl.rt.synchronize_stream(device0)
    add[1, device0](x)
    assert acl.rt.synchronize_stream(device0) == 0
    assert read_u32(x) == 1
    assert acl.rt.destroy_stream(device0) == 0


def test_abort_of_the_null_stream_aborts_the_default_stream(device0):
    x = zeroed()
    slow_add[1, 0](x)
    assert acl.rt.stream_abort(0) == 0
    assert read_u32(x) == 0


def test_stream_stop_ends_the_running_task_with_507000_and_holds_the_rest_until_an_abort(device0):
    x = zeroed()
    slow_add[1, device0](x)
    add[1, device0](x)
    assert acl.rt.stream_stop(device0) == 0
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_INTERNAL_ERROR
    assert "aclrtStreamStop" in acl.get_recent_err_msg()
    first, second = (t for t in tasks_by_id().values() if t["stream"] == device0)
    assert first["status"] == acl.ACL_ERROR_RT_INTERNAL_ERROR and second["end"] is None  # held: not run
    assert acl.rt.stream_abort(device0) == 0
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_STREAM_ABORT
    assert read_u32(x) == 0


def test_a_stopped_stream_can_be_destroyed_by_force(device0):
    slow_add[1, device0](zeroed())
    add[1, device0](zeroed())
    acl.rt.stream_stop(device0)
    assert acl.rt.destroy_stream_force(device0) == 0
    assert all(t["end"] is not None for t in tasks_by_id().values())


def test_stream_stop_of_the_null_stream_is_107000_and_changes_nothing(device0):
    assert acl.rt.stream_stop(0) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.synchronize_stream(0) == 0


def test_stop_and_abort_of_another_contexts_stream_are_107003(device0):
    ctx, _ = acl.rt.create_context(0)  # now current: device0's stream belongs to the primary context
    assert acl.rt.stream_stop(device0) == acl.ACL_ERROR_RT_STREAM_CONTEXT
    assert acl.rt.stream_abort(device0) == acl.ACL_ERROR_RT_STREAM_CONTEXT


def test_stop_and_abort_are_207000_off_a2_and_a3():
    sandbox.configure("ascend310p")
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    assert acl.rt.stream_stop(stream) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert acl.rt.stream_abort(stream) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT


def test_a_context_stopped_on_a_failure_answers_its_code_to_every_later_synchronize(device0):
    sandbox.inject_fault("kernel_trap", stream=device0)
    assert acl.rt.set_stream_failure_mode(device0, acl.ACL_STOP_ON_FAILURE) == 0
    add[1, device0](zeroed())
    trap = acl.ACL_ERROR_RT_AICORE_TRAP_EXCEPTION
    assert acl.rt.synchronize_stream(device0) == trap
    assert acl.rt.synchronize_stream(device0) == trap
    other, _ = acl.rt.create_stream()  # same context: it stopped too
    assert acl.rt.synchronize_stream(other) == trap


def test_a_continue_on_failure_stream_reports_its_error_once(device0):
    sandbox.inject_fault("kernel_trap", stream=device0)
    add[1, device0](zeroed())
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_AICORE_TRAP_EXCEPTION
    assert acl.rt.synchronize_stream(device0) == 0


def test_the_state_callback_runs_after_each_stream_is_made_and_before_it_goes(machine):
    seen = []
    assert acl.rt.reg_stream_state_callback("probe", lambda s, st, a: seen.append((s, st, a)), "tag") == 0
    acl.rt.set_device(0)  # the default stream
    stream, _ = acl.rt.create_stream()
    acl.rt.destroy_stream(stream)
    assert [st for _, st, _ in seen] == [acl.ACL_RT_STREAM_STATE_CREATE_POST] * 2 + [
        acl.ACL_RT_STREAM_STATE_DESTROY_PRE
    ]
    assert seen[1] == (stream, 1, "tag") and seen[2] == (stream, 2, "tag")
    assert acl.rt.reset_device(0) == 0
    assert seen[-1][1] == acl.ACL_RT_STREAM_STATE_DESTROY_PRE  # the default stream goes with the device


def test_a_state_callback_that_raises_is_reported_in_its_record_and_the_call_succeeds(machine):
    def broken(stream, state, args):
        raise ValueError("boom")

    acl.rt.reg_stream_state_callback("broken", broken, None)
    assert acl.rt.set_device(0) == 0
    stream, ret = acl.rt.create_stream()
    assert ret == 0 and acl.rt.destroy_stream(stream) == 0
    runs = [r for r in sandbox.trace() if isinstance(r, T.CallbackRun) and r.kind == "stream_state"]
    assert len(runs) == 3 and all("ValueError: boom" in r.error for r in runs)


def test_a_state_callback_cannot_call_the_runtime(machine):
    answers = []
    acl.rt.reg_stream_state_callback("nested", lambda s, st, a: answers.append(acl.rt.create_stream()[1]), None)
    acl.rt.set_device(0)
    assert answers == [acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT]


def test_a_state_callback_name_registered_twice_is_107000_and_none_unregisters(machine):
    seen = []
    assert acl.rt.reg_stream_state_callback("a", lambda *args: seen.append(1), None) == 0
    assert acl.rt.reg_stream_state_callback("a", lambda *args: None, None) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.reg_stream_state_callback("a", None, None) == 0
    assert acl.rt.reg_stream_state_callback("never", None, None) == 0
    acl.rt.set_device(0)
    assert seen == []


def test_a_state_callback_name_that_is_not_a_string_is_107000(machine):
    assert acl.rt.reg_stream_state_callback(None, lambda *args: None, None) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.reg_stream_state_callback("x", 3, None) == acl.ACL_ERROR_INVALID_PARAM


def test_state_callbacks_run_in_name_order(machine):
    order = []
    acl.rt.reg_stream_state_callback("b", lambda *args: order.append("b"), None)
    acl.rt.reg_stream_state_callback("a", lambda *args: order.append("a"), None)
    acl.rt.set_device(0)
    assert order == ["a", "b"]


def test_internal_streams_fire_no_state_callback(device0):
    seen = []
    acl.rt.reg_stream_state_callback("probe", lambda *args: seen.append(args), None)
    x = zeroed()  # the blocking memset goes through the runtime's own queue
    assert read_u32(x) == 0 and seen == []
