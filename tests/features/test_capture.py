"""ACL Graph: capture into a model run instance and replay (RT-DG 04-01/04-02, RT-API 15, RT-FAQ ACLGraph)."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T

from conftest import dev_alloc, overlap, pinned, tasks_by_id

GLOBAL = acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL
THREAD_LOCAL = acl.ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL
RELAXED = acl.ACL_MODEL_RI_CAPTURE_MODE_RELAXED


@sandbox.kernel(ns=1000)
def inc(x: "float32*", n):
    x[:n] += 1


@sandbox.kernel(ns=50_000)
def slow_inc(x: "float32*", n):
    x[:n] += 1


@sandbox.kernel(ns=20_000)
def scale(x: "float32*", n, k):
    x[:n] *= k


def read(ptr, n=4):
    host = np.zeros(n, np.float32)
    assert (
        acl.rt.memcpy(acl.util.numpy_to_ptr(host), host.nbytes, ptr, host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    ), acl.get_recent_err_msg()
    return host


def zeroed(nbytes=4096):
    ptr = dev_alloc(nbytes)
    assert acl.rt.memset(ptr, nbytes, 0, nbytes) == 0
    return ptr


def new_stream():
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    return stream


def sync_event():
    """An event a capture can record and wait on: only Ex events can (see the plain-event test below)."""
    ev, ret = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC | acl.ACL_EVENT_TIME_LINE)
    assert ret == 0
    return ev


def capture(stream, body, mode=GLOBAL):
    assert acl.mdl.ri_capture_begin(stream, mode) == 0, acl.get_recent_err_msg()
    body()
    ri, ret = acl.mdl.ri_capture_end(stream)
    assert ret == 0, acl.get_recent_err_msg()
    return ri


def api_calls():
    return list(sandbox.trace().of(T.ApiCall))


# -- capture and replay ------------------------------------------------------------------------
def test_tasks_issued_during_capture_are_recorded_not_run(device0):
    buf = zeroed()
    submitted = len(list(sandbox.trace().of(T.TaskSubmitted)))
    ri = capture(device0, lambda: [inc[1, device0](buf, 4) for _ in range(3)])
    assert ri != 0
    assert len(list(sandbox.trace().of(T.TaskSubmitted))) == submitted  # nothing reached a queue
    captured = list(sandbox.trace().of(T.TaskCaptured))
    assert [(r.kind, r.name, r.index) for r in captured] == [
        ("kernel", "inc", 0),
        ("kernel", "inc", 1),
        ("kernel", "inc", 2),
    ]
    assert acl.rt.synchronize_stream(device0) == 0
    assert read(buf).tolist() == [0, 0, 0, 0]
    (done,) = sandbox.trace().of(T.GraphCaptured)
    assert done.n_tasks == 3 and done.ri == ri


def test_tasks_issued_before_begin_run_normally(device0):
    buf = zeroed()
    inc[1, device0](buf, 4)
    capture(device0, lambda: inc[1, device0](buf, 4))
    assert acl.rt.synchronize_stream(device0) == 0
    assert read(buf).tolist() == [1, 1, 1, 1]


def test_replay_reruns_every_recorded_task_with_current_data(device0):
    buf = zeroed()
    ri = capture(device0, lambda: (inc[1, device0](buf, 4), scale[1, device0](buf, 4, 3)))
    for _ in range(2):
        assert acl.mdl.ri_execute_async(ri, device0) == 0
    assert acl.rt.synchronize_stream(device0) == 0
    assert read(buf).tolist() == [12, 12, 12, 12]  # ((0 + 1) * 3 + 1) * 3
    assert acl.mdl.ri_destroy(ri) == 0


def test_replayed_tasks_are_task_records_tagged_with_the_instance(device0):
    buf = zeroed()
    ri = capture(device0, lambda: [inc[1, device0](buf, 4) for _ in range(3)])
    assert acl.mdl.ri_execute_async(ri, device0) == 0
    (launch,) = sandbox.trace().of(T.GraphLaunched)
    assert launch.ri == ri and launch.stream == device0 and len(launch.tasks) == 3
    subs = {r.task: r for r in sandbox.trace().of(T.TaskSubmitted)}
    assert all(subs[t].kind == "kernel" and ("graph", ri) in subs[t].detail for t in launch.tasks)
    call = [c for c in api_calls() if c.name == "aclmdlRIExecuteAsync"][0]
    assert call.tasks == launch.tasks  # one host call submitted all of them


def test_capture_replay_needs_fewer_api_calls_and_a_shorter_timeline_than_eager():
    """50 small kernels issued eagerly vs. captured once and replayed once: same data, fewer host calls,
    and the device finishes sooner because no per-kernel launch gap is left between them."""

    def run(graph: bool):
        sandbox.configure("ascend910b")
        acl.init()
        acl.rt.set_device(0)
        stream = new_stream()
        buf = zeroed()
        if graph:
            ri = capture(stream, lambda: [inc[1, stream](buf, 4) for _ in range(50)])
        assert acl.rt.synchronize_stream(stream) == 0
        start, calls_before = sandbox.now(), len(api_calls())
        if graph:
            assert acl.mdl.ri_execute_async(ri, stream) == 0
        else:
            for _ in range(50):
                assert inc[1, stream](buf, 4) == 0
        assert acl.rt.synchronize_stream(stream) == 0
        elapsed, calls = sandbox.now() - start, len(api_calls()) - calls_before
        kernels = [t for t in tasks_by_id().values() if t["kind"] == "kernel"][-50:]
        gaps = [b["start"] - a["end"] for a, b in zip(kernels, kernels[1:])]
        return elapsed, calls, read(buf).tolist(), max(gaps)

    eager_time, eager_calls, eager_data, eager_gap = run(False)
    graph_time, graph_calls, graph_data, graph_gap = run(True)
    assert graph_data == eager_data == [50, 50, 50, 50]
    assert (eager_calls, graph_calls) == (51, 2)
    assert graph_time < eager_time * 0.6
    assert graph_gap == 0 < eager_gap  # replayed kernels run back to back


# -- documented restrictions ---------------------------------------------------------------------
def test_begin_on_the_default_stream_passed_as_null_is_100000_from_the_acl_layer(device0):
    assert acl.mdl.ri_capture_begin(0, GLOBAL) == acl.ACL_ERROR_INVALID_PARAM == 100000
    assert "default stream cannot be captured" in acl.get_recent_err_msg()
    assert acl.mdl.ri_capture_begin(None, GLOBAL) == 100000
    assert acl.mdl.ri_capture_get_info(0)[0] == acl.ACL_MODEL_RI_CAPTURE_STATUS_NONE  # nothing began


def test_begin_on_the_default_stream_s_own_handle_is_207000_from_the_runtime(device0):
    from sandbox.core.features.capture import graphs
    from sandbox.core.machine import current

    m = current()
    th = m.current_thread()
    default = m.stream(th, 0)
    with pytest.raises(sandbox.AclError) as refused:
        graphs(m).begin(th, default, GLOBAL)
    assert refused.value.code == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT == 207000


def test_default_stream_used_during_capture_is_107031(device0):
    buf = zeroed()
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    assert inc[1, 0](buf, 4) == 107031
    assert acl.rt.memset_async(buf, 16, 0, 16, 0) == 107031
    assert acl.mdl.ri_capture_end(device0)[1] == 0
    assert inc[1, 0](buf, 4) == 0  # fine again after the capture


def test_begin_on_a_stream_already_capturing_is_107027(device0):
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == acl.ACL_ERROR_RT_STREAM_CAPTURED == 107027


def test_begin_with_a_mode_outside_the_enum_is_107000(device0):
    assert acl.mdl.ri_capture_begin(device0, 3) == acl.ACL_ERROR_RT_PARAM_INVALID == 107000


def test_end_on_a_stream_that_is_not_capturing_is_107029(device0):
    ri, ret = acl.mdl.ri_capture_end(device0)
    assert (ri, ret) == (0, acl.ACL_ERROR_RT_STREAM_NOT_CAPTURED) == (0, 107029)


def test_end_on_a_side_stream_instead_of_the_origin_is_107036(device0):
    side, ev = new_stream(), sync_event()
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    acl.rt.record_event(ev, device0)
    acl.rt.stream_wait_event(side, ev)
    assert acl.mdl.ri_capture_end(side)[1] == acl.ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED == 107036


@pytest.mark.parametrize(
    "make",
    [lambda: acl.rt.create_event(), lambda: acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC)],
    ids=["create_event", "create_event_with_flag"],
)
def test_a_plain_event_recorded_waited_on_or_reset_on_a_capturing_stream_is_207000_and_the_capture_goes_on(
    device0, make
):
    # api_impl.cc EventRecord (ToBeCaptured, not new mode), StreamWaitEvent, EventReset; RT-DG 04-02
    ev, _ = make()
    side, buf = new_stream(), zeroed()
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    assert acl.rt.record_event(ev, device0) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert "aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)" in acl.get_recent_err_msg()
    assert acl.rt.stream_wait_event(device0, ev) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert acl.rt.reset_event(ev, device0) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert acl.rt.stream_wait_event(side, ev) == 0  # a stream that is not capturing: as ever
    inc[1, device0](buf, 4)
    assert acl.mdl.ri_capture_get_info(device0)[::2] == (acl.ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, 0)
    ri, ret = acl.mdl.ri_capture_end(device0)
    assert ret == 0 and [r.n_tasks for r in sandbox.trace().of(T.GraphCaptured)] == [1]
    assert acl.rt.record_event(ev, device0) == 0  # off the capture the event records as usual


def _end_on_worker(stream):
    out = []

    def worker():
        acl.rt.set_device(0)
        out.append(acl.mdl.ri_capture_end(stream))

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    return out[0]


def test_end_from_another_thread_is_107038_unless_the_capture_is_relaxed(device0):
    for mode in (GLOBAL, THREAD_LOCAL):
        assert acl.mdl.ri_capture_begin(device0, mode) == 0
        assert _end_on_worker(device0)[1] == acl.ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD == 107038
        assert acl.mdl.ri_capture_end(device0)[1] == 0
    assert acl.mdl.ri_capture_begin(device0, RELAXED) == 0
    ri, ret = _end_on_worker(device0)
    assert ret == 0 and ri != 0


def test_stream_synchronize_during_capture_is_107027_and_the_capture_goes_on(device0):
    buf = zeroed()
    assert acl.mdl.ri_capture_begin(device0, RELAXED) == 0  # refused in every mode
    inc[1, device0](buf, 4)
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_STREAM_CAPTURED == 107027
    assert "the capture goes on" in acl.get_recent_err_msg()
    assert acl.mdl.ri_capture_get_info(device0)[0] == acl.ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE
    inc[1, device0](buf, 4)
    ri, ret = acl.mdl.ri_capture_end(device0)
    assert ret == 0 and acl.mdl.ri_execute_async(ri, device0) == 0
    assert acl.rt.synchronize_stream(device0) == 0  # the stream is an ordinary stream again
    assert read(buf).tolist() == [2, 2, 2, 2]  # both captured launches ran once, in the replay


def test_stream_query_during_capture_is_107027(device0):
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    assert acl.rt.stream_query(device0)[1] == 107027
    assert acl.mdl.ri_capture_get_info(device0)[0] == acl.ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE


def test_device_synchronize_during_capture_is_107041_and_invalidates_the_capture(device0):
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    assert acl.rt.synchronize_device() == 107041
    assert acl.mdl.ri_capture_get_info(device0)[0] == acl.ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED


def test_synchronizing_querying_or_timing_a_captured_event_is_107028_and_the_capture_goes_on(device0):
    ev, other = sync_event(), sync_event()
    acl.rt.record_event(other, device0)
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    acl.rt.record_event(ev, device0)
    assert acl.rt.query_event_status(ev)[1] == acl.ACL_ERROR_RT_EVENT_CAPTURED == 107028
    assert acl.rt.event_elapsed_time(other, ev)[1] == 107028
    assert acl.rt.synchronize_event(ev) == 107028
    assert acl.mdl.ri_capture_get_info(device0)[0] == acl.ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE


def test_blocking_memcpy_and_memset_in_a_global_capture_are_refused_unless_the_thread_switches_to_relaxed(device0):
    """RT-FAQ/RT-DG 04-01: unsafe calls are refused; the source maps this refusal to 107030."""
    buf, (host, view) = zeroed(), pinned(16, np.float32)
    view[:] = 5
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    assert (
        acl.rt.memcpy(buf, 16, host, 16, acl.ACL_MEMCPY_HOST_TO_DEVICE)
        == acl.ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT
        == 107030
    )
    assert acl.rt.memset(buf, 16, 0, 16) == 107030
    old, ret = acl.mdl.ri_capture_thread_exchange_mode(RELAXED)
    assert (old, ret) == (GLOBAL, 0)
    assert acl.rt.memcpy(buf, 16, host, 16, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0  # runs once, now
    assert acl.mdl.ri_capture_thread_exchange_mode(old) == (RELAXED, 0)
    inc[1, device0](buf, 4)
    ri, ret = acl.mdl.ri_capture_end(device0)
    assert ret == 0
    assert acl.mdl.ri_execute_async(ri, device0) == 0
    assert acl.rt.synchronize_stream(device0) == 0
    assert read(buf).tolist() == [6, 6, 6, 6]


def test_thread_local_capture_binds_only_the_capturing_thread(device0):
    buf = zeroed()
    assert acl.mdl.ri_capture_begin(device0, THREAD_LOCAL) == 0
    assert acl.rt.memset(buf, 16, 0, 16) == 107030
    assert _on_worker(lambda: acl.rt.memset(buf, 16, 0, 16)) == 0


def test_global_capture_binds_other_threads_until_they_leave_global_mode(device0):
    buf = zeroed()
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    assert _on_worker(lambda: acl.rt.memset(buf, 16, 0, 16)) == 107030

    def switched():
        assert acl.mdl.ri_capture_thread_exchange_mode(THREAD_LOCAL) == (GLOBAL, 0)
        return acl.rt.memset(buf, 16, 0, 16)

    assert _on_worker(switched) == 0


def test_relaxed_capture_binds_nobody(device0):
    buf = zeroed()
    assert acl.mdl.ri_capture_begin(device0, RELAXED) == 0
    assert acl.rt.memset(buf, 16, 0, 16) == 0
    assert _on_worker(lambda: acl.rt.memset(buf, 16, 0, 16)) == 0


def _on_worker(fn):
    out = []

    def worker():
        acl.rt.set_device(0)
        out.append(fn())

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    return out[0]


def test_async_copy_with_pageable_host_memory_onto_a_capturing_stream_is_107000_pinned_is_captured(device0):
    buf = zeroed()
    pageable = np.full(4, 7, np.float32)
    host, view = pinned(16, np.float32)
    view[:] = 2
    assert acl.mdl.ri_capture_begin(device0, RELAXED) == 0
    assert (
        acl.rt.memcpy_async(buf, 16, acl.util.numpy_to_ptr(pageable), 16, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
        == acl.ACL_ERROR_RT_PARAM_INVALID
        == 107000
    )
    assert "aclrtMallocHost" in acl.get_recent_err_msg()
    assert acl.rt.memcpy_async(buf, 16, host, 16, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0) == 0
    ri, ret = acl.mdl.ri_capture_end(device0)
    assert ret == 0
    view[:] = 9  # the replay copies what the buffer holds then
    assert acl.mdl.ri_execute_async(ri, device0) == 0
    assert acl.rt.synchronize_stream(device0) == 0
    assert read(buf).tolist() == [9, 9, 9, 9]


def test_pageable_async_copy_on_another_stream_is_an_unsafe_call_in_a_global_capture(device0):
    other, buf = new_stream(), zeroed()
    pageable = np.ones(4, np.float32)
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    assert (
        acl.rt.memcpy_async(buf, 16, acl.util.numpy_to_ptr(pageable), 16, acl.ACL_MEMCPY_HOST_TO_DEVICE, other)
        == 107041
    )


def test_a_blocking_copy_from_pageable_memory_in_a_global_capture_is_107030_like_a_pinned_one(device0):
    buf = zeroed()
    pageable = np.ones(4, np.float32)
    host, _ = pinned(16, np.float32)
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    assert (
        acl.rt.memcpy(buf, 16, acl.util.numpy_to_ptr(pageable), 16, acl.ACL_MEMCPY_HOST_TO_DEVICE)
        == acl.ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT
        == 107030
    )
    assert acl.rt.memcpy(buf, 16, host, 16, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 107030


# -- cross-stream capture ---------------------------------------------------------------------------------
def _fork_join(origin, side, a, b, e1, e2):
    slow_inc[1, origin](a, 4)
    acl.rt.record_event(e1, origin)
    acl.rt.stream_wait_event(side, e1)  # side joins the capture
    slow_inc[1, side](b, 4)
    slow_inc[1, origin](a, 4)  # runs beside the side stream's kernel
    acl.rt.record_event(e2, side)
    acl.rt.stream_wait_event(origin, e2)  # side rejoins the origin
    scale[1, origin](b, 4, 10)


def test_a_side_stream_joins_by_waiting_on_a_captured_event_and_replays_alongside(device0):
    side, a, b, e1, e2 = new_stream(), zeroed(), zeroed(), sync_event(), sync_event()
    ri = capture(device0, lambda: _fork_join(device0, side, a, b, e1, e2))
    (done,) = sandbox.trace().of(T.GraphCaptured)
    assert done.streams == (device0, side)
    assert acl.mdl.ri_execute_async(ri, device0) == 0
    inc[1, device0](a, 4)  # later work on the launch stream waits for all
    assert acl.rt.synchronize_stream(device0) == 0
    assert read(a).tolist() == [3, 3, 3, 3] and read(b).tolist() == [10, 10, 10, 10]
    tasks = tasks_by_id()
    kernels = [t for t in tasks.values() if t["kind"] == "kernel"]
    first, on_side, second, scaled, after = kernels
    assert on_side["stream"] != device0 and on_side["stream"] != side  # an internal stream of the instance
    assert overlap(on_side, second)
    assert scaled["start"] >= on_side["end"] and after["start"] >= scaled["end"]


def test_a_side_stream_that_never_rejoins_fails_end_with_107025(device0):
    side, buf, e1 = new_stream(), zeroed(), sync_event()
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    acl.rt.record_event(e1, device0)
    acl.rt.stream_wait_event(side, e1)
    inc[1, side](buf, 4)
    assert acl.mdl.ri_capture_end(device0) == (0, acl.ACL_ERROR_RT_STREAM_UNJOINED) == (0, 107025)
    assert "rejoin" in acl.get_recent_err_msg()
    assert acl.mdl.ri_capture_get_info(side)[0] == acl.ACL_MODEL_RI_CAPTURE_STATUS_NONE


def test_a_task_on_a_side_stream_after_it_rejoined_fails_end_with_107025(device0):
    side, a, b, e1, e2 = new_stream(), zeroed(), zeroed(), sync_event(), sync_event()
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    _fork_join(device0, side, a, b, e1, e2)
    inc[1, side](b, 4)  # after the rejoin
    assert acl.mdl.ri_capture_end(device0)[1] == 107025


def test_waiting_inside_one_capture_on_an_event_of_another_is_107032(device0):
    other, ev = new_stream(), sync_event()
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    assert acl.mdl.ri_capture_begin(other, GLOBAL) == 0
    acl.rt.record_event(ev, other)
    assert acl.rt.stream_wait_event(device0, ev) == acl.ACL_ERROR_STREAM_CAPTURE_CONFLICT == 107032


# -- the instance ------------------------------------------------------------------------------------------
def test_get_info_reports_none_then_active_with_the_instance_being_filled(device0):
    assert acl.mdl.ri_capture_get_info(device0) == (acl.ACL_MODEL_RI_CAPTURE_STATUS_NONE, 0, 0)
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    status, filling, ret = acl.mdl.ri_capture_get_info(device0)
    assert (status, ret) == (acl.ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, 0)
    ri, ret = acl.mdl.ri_capture_end(device0)
    assert ret == 0 and ri == filling


def test_executing_an_instance_still_capturing_is_107026(device0):
    other = new_stream()
    assert acl.mdl.ri_capture_begin(device0, GLOBAL) == 0
    _, filling, _ = acl.mdl.ri_capture_get_info(device0)
    assert acl.mdl.ri_execute_async(filling, other) == acl.ACL_ERROR_RT_MODEL_CAPTURED == 107026


def test_destroying_an_instance_while_it_executes_is_107037(device0):
    buf = zeroed()
    ri = capture(device0, lambda: slow_inc[1, device0](buf, 4))
    assert acl.mdl.ri_execute_async(ri, device0) == 0
    assert acl.mdl.ri_destroy(ri) == acl.ACL_ERROR_RT_MODEL_RUNNING == 107037
    assert acl.rt.synchronize_stream(device0) == 0
    assert acl.mdl.ri_destroy(ri) == 0
    assert acl.mdl.ri_execute_async(ri, device0) == acl.ACL_ERROR_INVALID_PARAM


def test_launches_of_one_instance_run_one_after_another_even_on_different_streams(device0):
    other, buf = new_stream(), zeroed()
    ri = capture(device0, lambda: slow_inc[1, device0](buf, 4))
    assert acl.mdl.ri_execute_async(ri, device0) == 0
    assert acl.mdl.ri_execute_async(ri, other) == 0
    assert acl.rt.synchronize_device() == 0
    first, second = [t for t in tasks_by_id().values() if t["kind"] == "kernel"]
    assert second["start"] >= first["end"]
    assert read(buf).tolist() == [2, 2, 2, 2]


def test_execute_blocking_form_does_not_take_captured_instances_207000(device0):
    ri = capture(device0, lambda: None)
    assert acl.mdl.ri_execute(ri, -1) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT == 207000
    assert "aclmdlRIExecuteAsync" in acl.get_recent_err_msg()


@pytest.mark.parametrize("profile, supported", [("ascend910b", True), ("ascend310p", True), ("ascend310b", False)])
def test_capture_is_supported_on_a2_a3_and_310p_not_on_310b_207000(profile, supported):
    sandbox.configure(profile)
    acl.init()
    acl.rt.set_device(0)
    stream = new_stream()
    ret = acl.mdl.ri_capture_begin(stream, GLOBAL)
    assert ret == (0 if supported else acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert (acl.mdl.ri_capture_thread_exchange_mode(RELAXED)[1] == 0) == supported


def test_debug_json_print_lists_the_streams_and_tasks(device0, tmp_path):
    side, a, b, e1, e2 = new_stream(), zeroed(), zeroed(), sync_event(), sync_event()
    ri = capture(device0, lambda: _fork_join(device0, side, a, b, e1, e2))
    path = tmp_path / "modelRI.json"
    assert acl.mdl.ri_debug_json_print(ri, str(path), acl.mdl.ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY) == 0
    doc = json.loads(path.read_text())
    assert len(doc["streams"]) == 2 and len(doc["tasks"]) == 8
    assert [t["task_type"] for t in doc["tasks"][:3]] == ["KERNEL", "EVENT_RECORD", "EVENT_WAIT"]
    assert acl.mdl.ri_debug_json_print(ri, str(tmp_path / "no" / "such" / "dir.json"), 0) == acl.ACL_ERROR_RT_FILE_OPEN


def _on(profile):
    sandbox.configure(profile)
    assert acl.init() == 0 and acl.rt.set_device(0) == 0


def test_a_profile_without_the_acl_graph_flag_refuses_capture_with_207000():
    """Capture needs acl_graph_supported (RT-API 15: not on Atlas 200I/500 A2), whatever the name."""
    _on(sandbox.get_profile("ascend910b").with_(acl_graph_supported=False))
    assert acl.mdl.ri_capture_begin(new_stream(), GLOBAL) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert "aclmdlRICaptureBegin: ACL Graph is not supported on Ascend910B2" in acl.get_recent_err_msg()


def test_a_custom_profile_with_the_acl_graph_flag_captures_and_replays():
    """The flag, not the name, decides: a 310B given acl_graph_supported captures."""
    _on(sandbox.get_profile("ascend310b").with_(acl_graph_supported=True))
    stream, x = new_stream(), zeroed()
    ri = capture(stream, lambda: inc[1, stream](x, 4))
    assert acl.mdl.ri_execute_async(ri, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert read(x).tolist() == [1, 1, 1, 1]


def test_graph_calls_take_the_profiles_host_costs():
    """aclmdlRIExecuteAsync costs host_costs.graph_launch, the capture calls host_costs.capture_call."""
    from sandbox.profiles import HostCosts

    _on(sandbox.get_profile("ascend910b").with_(host_costs=HostCosts(graph_launch=70_000, capture_call=3_000)))
    stream, x = new_stream(), zeroed()
    ri = capture(stream, lambda: inc[1, stream](x, 4))
    assert acl.mdl.ri_execute_async(ri, stream) == 0
    took = {c.name: c.end - c.start for c in api_calls()}
    assert took["aclmdlRIExecuteAsync"] == 70_000
    assert took["aclmdlRICaptureBegin"] == took["aclmdlRICaptureEnd"] == 3_000


def test_graph_host_costs_by_default_are_10us_per_launch_and_2us_per_capture_call(device0):
    """The defaults are the figures the graph module had (assumption): 10 us launch, 2 us other calls."""
    x = zeroed()
    ri = capture(device0, lambda: inc[1, device0](x, 4))
    assert acl.mdl.ri_execute_async(ri, device0) == 0
    took = {c.name: c.end - c.start for c in api_calls()}
    assert (took["aclmdlRIExecuteAsync"], took["aclmdlRICaptureBegin"]) == (10_000, 2_000)
