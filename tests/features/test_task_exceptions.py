"""Task exceptions: aclrtSetExceptionInfoCallback and its readers, aclrtGetThreadLastTaskId,
aclrtGetErrorVerbose (see sandbox/core/features/task_exceptions.py)."""

from __future__ import annotations

import sandbox
from sandbox import acl
from sandbox.core import trace as T

INVALID_INFO = 0xFFFFFFFF


@sandbox.kernel(ns=10_000)
def fine(x: "uint8*"):
    x[0] = 1


@sandbox.kernel(ns=10_000)
def broken(x: "uint8*"):
    raise ValueError("out of bounds")


READERS = (
    "get_task_id_from_exception_info",
    "get_stream_id_from_exception_info",
    "get_thread_id_from_exception_info",
    "get_device_id_from_exception_info",
    "get_error_code_from_exception_info",
)


def _stream_and_buffer():
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(64, 0)
    return stream, buf


def test_a_failed_task_runs_the_exception_callback_with_its_ids_on_the_runtime_thread(device0):
    stream, buf = _stream_and_buffer()
    seen = []
    assert (
        acl.rt.set_exception_info_callback(lambda info: seen.append([getattr(acl.rt, r)(info) for r in READERS])) == 0
    )
    assert fine[1, stream](buf) == 0
    assert broken[1, stream](buf) == 0
    task_id, ret = acl.rt.get_thread_last_task_id()
    assert ret == 0
    assert seen == []  # the device has not reached the failure yet
    assert acl.rt.synchronize_stream(stream) == acl.ACL_ERROR_RT_AICORE_EXCEPTION
    me = next(r.tid for r in sandbox.trace().of(T.TaskSubmitted) if r.task == task_id)
    stream_id = next(r.stream_id for r in sandbox.trace().of(T.StreamCreated) if r.stream == stream)
    assert seen == [[task_id, stream_id, me, 0, acl.ACL_ERROR_RT_AICORE_EXCEPTION]]
    run = next(r for r in sandbox.trace().of(T.CallbackRun) if r.kind == "exception")
    runtime = next(r for r in sandbox.trace().of(T.ThreadStarted) if r.tid == run.tid)
    assert run.task == task_id and runtime.name == "exception callback (device 0)"


def test_the_thread_last_task_id_is_the_last_task_on_a_created_stream(device0):
    assert acl.rt.get_thread_last_task_id() == (0, 0)
    stream, buf = _stream_and_buffer()
    fine[1, stream](buf)
    last, _ = acl.rt.get_thread_last_task_id()
    acl.rt.synchronize_stream(stream)
    fine[1, 0](buf)  # the default stream does not count
    assert acl.rt.get_thread_last_task_id() == (last, 0)
    assert last == max(r.task for r in sandbox.trace().of(T.TaskSubmitted) if r.stream == stream)


def test_an_exception_callback_that_raises_or_calls_the_runtime_leaves_the_machine_usable(device0):
    stream, buf = _stream_and_buffer()
    codes = []

    def callback(info):
        codes.append(acl.rt.malloc(64, 0)[1])
        raise RuntimeError("bug in the callback")

    acl.rt.set_exception_info_callback(callback)
    broken[1, stream](buf)
    assert acl.rt.synchronize_stream(stream) == acl.ACL_ERROR_RT_AICORE_EXCEPTION
    assert codes == [acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT]
    run = next(r for r in sandbox.trace().of(T.CallbackRun) if r.kind == "exception")
    assert "bug in the callback" in run.error
    assert fine[1, stream](buf) == 0 and acl.rt.synchronize_stream(stream) == 0


def test_tasks_discarded_by_a_stopped_context_raise_no_exception_callback(device0):
    stream, buf = _stream_and_buffer()
    acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE)
    seen = []
    acl.rt.set_exception_info_callback(lambda info: seen.append(acl.rt.get_task_id_from_exception_info(info)))
    broken[1, stream](buf)
    fine[1, stream](buf)
    acl.rt.synchronize_stream(stream)
    assert len(seen) == 1


def test_the_readers_give_0xffffffff_for_no_info_or_an_info_read_after_its_callback(device0):
    kept = []
    stream, buf = _stream_and_buffer()
    acl.rt.set_exception_info_callback(kept.append)
    broken[1, stream](buf)
    acl.rt.synchronize_stream(stream)
    for reader in READERS:
        assert getattr(acl.rt, reader)(None) == INVALID_INFO
        assert getattr(acl.rt, reader)(kept[0]) == INVALID_INFO
    assert "exception callback" in acl.get_recent_err_msg()


def test_set_exception_info_callback_with_no_function_is_100000_and_none_removes_it(device0):
    assert acl.rt.set_exception_info_callback(5) == acl.ACL_ERROR_INVALID_PARAM
    seen = []
    acl.rt.set_exception_info_callback(seen.append)
    assert acl.rt.set_exception_info_callback(None) == 0
    stream, buf = _stream_and_buffer()
    broken[1, stream](buf)
    acl.rt.synchronize_stream(stream)
    assert seen == []


def test_get_error_verbose_is_no_error_until_a_held_device_error_and_107001_for_a_bad_device(device0):
    assert acl.rt.get_error_verbose(0) == ({"errorType": 0, "tryRepair": 0, "hasDetail": 0}, 0)
    assert acl.rt.get_error_verbose(64) == (None, acl.ACL_ERROR_RT_INVALID_DEVICEID)
    stream, buf = _stream_and_buffer()
    acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE)
    broken[1, stream](buf)
    acl.rt.synchronize_stream(stream)
    assert acl.rt.get_error_verbose(0)[0]["errorType"] == 0xFFFF
