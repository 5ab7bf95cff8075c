"""Host callbacks: subscribe_report / launch_callback / process_report / unsubscribe_report and
launch_host_func, with the rules of RT-API 12 and RT-DG 03-02 (see sandbox/core/features/callbacks.py)."""

from __future__ import annotations

import threading
import warnings

import pytest

import sandbox
from sandbox import acl
from callback_server import Server
from sandbox.core import trace as T

from conftest import dev_alloc, pinned, tasks_by_id

D2H = acl.ACL_MEMCPY_DEVICE_TO_HOST


@sandbox.kernel(ns=100_000)
def busy(x: "uint8*"):
    x[0] = x[0] + 1


def runs():
    return list(sandbox.trace().of(T.CallbackRun))


def me():
    return threading.get_ident()


def tid_of(name):
    return next(r.tid for r in sandbox.trace().of(T.ThreadStarted) if r.name == name)


def test_launch_callback_on_a_stream_without_a_subscribed_thread_fails_with_107015(device0):
    assert (
        acl.rt.launch_callback(lambda d: None, [], acl.ACL_CALLBACK_BLOCK, device0)
        == acl.ACL_ERROR_RT_STREAM_NO_CB_REG
        == 107015
    )
    assert "aclrtSubscribeReport" in acl.get_recent_err_msg()


def test_the_callback_runs_on_the_subscribed_thread_after_the_preceding_tasks(device0):
    buf, _ = acl.rt.malloc(64, 0)
    seen = []
    server = Server()
    assert acl.rt.subscribe_report(server.thread.ident, device0) == 0
    busy[1, device0](buf)
    assert (
        acl.rt.launch_callback(
            lambda data: seen.append((data, threading.current_thread().name)),
            ["hello"],
            acl.ACL_CALLBACK_BLOCK,
            device0,
        )
        == 0
    )
    assert acl.rt.synchronize_stream(device0) == 0
    server.join()
    assert seen == [(["hello"], "cb-server")]
    (run,) = runs()
    assert run.tid == tid_of("cb-server") and run.kind == "callback" and run.fn_name == "<lambda>"
    kernel = next(t for t in tasks_by_id().values() if t["kind"] == "kernel")
    assert run.start >= kernel["end"]
    assert acl.rt.unsubscribe_report(server.thread.ident, device0) == 0


def test_a_blocking_callback_holds_later_tasks_of_the_stream_until_it_returns(device0):
    buf, _ = acl.rt.malloc(64, 0)
    server = Server()
    acl.rt.subscribe_report(server.thread.ident, device0)
    acl.rt.launch_callback(lambda d: None, None, acl.ACL_CALLBACK_BLOCK, device0)
    busy[1, device0](buf)
    acl.rt.synchronize_stream(device0)
    server.join()
    (run,) = runs()
    kernel = next(t for t in tasks_by_id().values() if t["kind"] == "kernel")
    callback = next(t for t in tasks_by_id().values() if t["kind"] == "callback")
    assert kernel["start"] >= run.end and callback["end"] == run.end


def test_a_non_blocking_callback_lets_the_stream_go_on_before_it_has_run(device0):
    buf, _ = acl.rt.malloc(64, 0)
    assert acl.rt.subscribe_report(me(), device0) == 0  # this thread serves its own stream
    acl.rt.launch_callback(lambda d: None, None, acl.ACL_CALLBACK_NO_BLOCK, device0)
    busy[1, device0](buf)
    assert acl.rt.synchronize_stream(device0) == 0  # no deadlock: NO_BLOCK does not hold it
    assert runs() == []
    assert acl.rt.process_report(100) == 0  # delivered long ago: runs now
    (run,) = runs()
    kernel = next(t for t in tasks_by_id().values() if t["kind"] == "kernel")
    assert kernel["end"] <= run.start


def test_process_report_returns_507012_when_nothing_arrives_within_the_timeout(device0):
    acl.rt.subscribe_report(me(), device0)
    before = sandbox.now()
    assert acl.rt.process_report(5) == acl.ACL_ERROR_RT_REPORT_TIMEOUT == 507012
    assert sandbox.now() - before >= 5_000_000


def test_process_report_on_a_thread_that_serves_no_stream_fails_with_107012(device0):
    assert acl.rt.process_report(10) == acl.ACL_ERROR_RT_THREAD_SUBSCRIBE == 107012


def test_process_report_timeout_must_be_minus_one_or_positive(device0):
    acl.rt.subscribe_report(me(), device0)
    assert acl.rt.process_report(0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.process_report(-2) == acl.ACL_ERROR_INVALID_PARAM


def test_one_stream_may_not_have_two_threads_107011(device0):
    server = Server()
    assert acl.rt.subscribe_report(me(), device0) == 0
    assert acl.rt.subscribe_report(server.thread.ident, device0) == acl.ACL_ERROR_RT_STREAM_SUBSCRIBE == 107011
    assert acl.rt.subscribe_report(me(), device0) == acl.ACL_ERROR_RT_STREAM_SUBSCRIBE  # not twice either
    server.join()


def test_one_thread_may_serve_several_streams_of_one_device(device0):
    other, _ = acl.rt.create_stream()
    assert acl.rt.subscribe_report(me(), device0) == 0
    assert acl.rt.subscribe_report(me(), other) == 0
    assert acl.rt.subscribe_report(me(), 0) == 0  # the default stream too
    for s in (device0, other, 0):
        acl.rt.launch_callback(lambda d: None, None, acl.ACL_CALLBACK_NO_BLOCK, s)
    acl.rt.synchronize_device()
    assert [acl.rt.process_report(10) for _ in range(3)] == [0, 0, 0]
    assert len(runs()) == 3


def test_a_thread_id_may_not_serve_streams_of_two_devices_107012(device0):
    acl.rt.subscribe_report(me(), device0)
    acl.rt.set_device(1)
    s1, _ = acl.rt.create_stream()
    assert acl.rt.subscribe_report(me(), s1) == acl.ACL_ERROR_RT_THREAD_SUBSCRIBE
    acl.rt.set_device(0)
    assert acl.rt.unsubscribe_report(me(), device0) == 0
    acl.rt.set_device(1)
    assert acl.rt.subscribe_report(me(), s1) == 0  # free again once it serves no device-0 stream


def test_unsubscribe_needs_the_subscribed_thread(device0):
    server = Server()
    assert acl.rt.unsubscribe_report(me(), device0) == acl.ACL_ERROR_RT_STREAM_SUBSCRIBE
    acl.rt.subscribe_report(server.thread.ident, device0)
    assert acl.rt.unsubscribe_report(me(), device0) == acl.ACL_ERROR_RT_THREAD_SUBSCRIBE
    server.join()
    assert acl.rt.unsubscribe_report(server.thread.ident, device0) == 0  # after join, as in pyACL tests


def test_a_callback_reached_after_unsubscribe_fails_on_the_device_with_107015(device0):
    acl.rt.subscribe_report(me(), device0)
    buf, _ = acl.rt.malloc(64, 0)
    busy[1, device0](buf)
    acl.rt.launch_callback(lambda d: None, None, acl.ACL_CALLBACK_BLOCK, device0)
    acl.rt.unsubscribe_report(me(), device0)  # before the kernel has finished
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_STREAM_NO_CB_REG


def test_unknown_thread_ids_are_invalid_param(device0):
    assert acl.rt.subscribe_report(123456789, device0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.subscribe_report("main", device0) == acl.ACL_ERROR_INVALID_PARAM


def test_block_type_must_be_0_or_1(device0):
    acl.rt.subscribe_report(me(), device0)
    assert acl.rt.launch_callback(lambda d: None, None, 2, device0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.launch_callback("fn", None, 1, device0) == acl.ACL_ERROR_INVALID_PARAM


def test_launch_host_func_runs_on_the_runtimes_thread_after_preceding_tasks_and_holds_later_ones(device0):
    buf, _ = acl.rt.malloc(64, 0)
    seen = []
    busy[1, device0](buf)
    assert acl.rt.launch_host_func(device0, lambda args: seen.append(args), {"k": 1}) == 0
    busy[1, device0](buf)
    assert acl.rt.synchronize_stream(device0) == 0
    assert seen == [{"k": 1}]
    (run,) = runs()
    assert run.kind == "host_func" and run.tid == tid_of("host func (device 0)")
    k1, k2 = [t for t in tasks_by_id().values() if t["kind"] == "kernel"]
    assert k1["end"] <= run.start and run.end <= k2["start"]


def test_launch_callback_and_launch_host_func_do_not_mix_on_one_stream(device0):
    other, _ = acl.rt.create_stream()
    acl.rt.subscribe_report(me(), device0)
    assert acl.rt.launch_host_func(device0, lambda a: None, None) == acl.ACL_ERROR_RT_STREAM_SUBSCRIBE
    assert acl.rt.launch_host_func(other, lambda a: None, None) == 0
    assert acl.rt.subscribe_report(me(), other) == acl.ACL_ERROR_RT_STREAM_SUBSCRIBE
    assert acl.rt.launch_callback(lambda d: None, None, 1, other) == acl.ACL_ERROR_RT_STREAM_NO_CB_REG
    acl.rt.synchronize_stream(other)


def test_runtime_calls_from_a_host_function_fail_with_207000(device0):
    got = []
    acl.rt.launch_host_func(0, lambda a: got.append((acl.rt.create_stream(), acl.rt.synchronize_device())), None)
    acl.rt.synchronize_device()
    assert got == [((0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT), acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)]
    assert "must not call runtime APIs" in acl.get_recent_err_msg()


def test_runtime_calls_from_a_callback_work_as_on_a_board_and_each_is_reported_once_as_the_docs_forbid_them(device0):
    got = []

    def greedy(data):
        ptr, ret = acl.rt.malloc(64, 0)
        got.append((ret, acl.rt.memset(ptr, 64, 1, 64), acl.rt.free(ptr), acl.rt.malloc(64, 0)[1]))

    acl.rt.subscribe_report(me(), device0)
    acl.rt.launch_callback(greedy, None, acl.ACL_CALLBACK_BLOCK, device0)
    with pytest.warns(sandbox.HazardWarning, match="aclrtMalloc was called from inside a callback"):
        assert acl.rt.process_report(10) == 0
    assert got == [(0, 0, 0, 0)]
    assert sorted(h.message.split()[0] for h in sandbox.hazards()) == ["aclrtFree", "aclrtMalloc", "aclrtMemset"]
    assert {h.kind for h in sandbox.hazards()} == {"callback_call"}


def test_a_blocking_copy_inside_a_block_callback_is_ordered_before_the_streams_later_tasks(device0):
    src, dst = dev_alloc(256), dev_alloc(256)
    host, _ = pinned(256)
    acl.rt.subscribe_report(me(), device0)
    acl.rt.launch_callback(lambda d: acl.rt.memcpy(host, 256, dst, 256, D2H), None, acl.ACL_CALLBACK_BLOCK, device0)
    acl.rt.memcpy_async(dst, 256, src, 256, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, device0)  # after the callback
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert acl.rt.process_report(10) == 0
    assert [h.kind for h in sandbox.hazards()] == ["callback_call"]  # no race: the stream waited for the callback


def test_what_a_callback_raises_is_reported_not_raised(device0):
    def broken(data):
        raise KeyError("oops")

    acl.rt.subscribe_report(me(), device0)
    acl.rt.launch_callback(broken, None, acl.ACL_CALLBACK_BLOCK, device0)
    assert acl.rt.process_report(-1) == 0
    assert acl.rt.synchronize_stream(device0) == 0
    assert "KeyError" in runs()[0].error and "KeyError" in acl.get_recent_err_msg()


def test_a_blocking_callback_nobody_processes_turns_a_synchronize_into_a_clear_error(device0):
    acl.rt.subscribe_report(me(), device0)  # ...but this thread never calls process_report
    acl.rt.launch_callback(lambda d: None, None, acl.ACL_CALLBACK_BLOCK, device0)
    ret = acl.rt.synchronize_stream(device0)
    assert ret != 0
    message = acl.get_recent_err_msg()
    assert "can never finish" in message and "aclrtProcessReport" in message


def test_process_report_forever_with_nothing_that_can_arrive_returns_507012_instead_of_hanging(device0):
    acl.rt.subscribe_report(me(), device0)
    assert acl.rt.process_report(-1) == acl.ACL_ERROR_RT_REPORT_TIMEOUT


def test_acl_util_start_thread_ids_work_with_subscribe_report(device0):
    """The pyACL unit-test flow: start_thread, subscribe, two BLOCK callbacks, sync, stop."""
    state = {"run": True}
    seen = []

    def serve(args_list):
        acl.rt.set_device(0)
        while state["run"]:
            acl.rt.process_report(args_list[1])

    tid, ret = acl.util.start_thread(serve, [True, 1000])
    assert ret == 0
    assert acl.rt.subscribe_report(tid, device0) == 0
    acl.rt.launch_callback(lambda d: seen.append(1), ["a"], 1, device0)
    acl.rt.launch_callback(lambda d: seen.append(2), ["b"], 1, device0)
    assert acl.rt.synchronize_stream(device0) == 0
    assert seen == [1, 2]
    state["run"] = False
    assert acl.rt.unsubscribe_report(tid, device0) == 0
    assert acl.util.stop_thread(tid) == 0
    assert acl.util.stop_thread(tid) == acl.ACL_ERROR_INVALID_PARAM


def test_callback_runs_are_deterministic():
    def program():
        sandbox.configure()
        acl.init()
        acl.rt.set_device(0)
        s, _ = acl.rt.create_stream()
        server = Server(timeout=1)
        acl.rt.subscribe_report(server.thread.ident, s)
        for i in range(5):
            acl.rt.launch_callback(lambda d: None, [i], i % 2, s)
        acl.rt.synchronize_stream(s)
        server.join()
        return [repr(r) for r in sandbox.trace()]

    assert program() == program()


def test_a_host_function_may_read_host_memory_through_acl_util(device0):
    dev, _ = acl.rt.malloc(64, 0)
    host, _ = acl.rt.malloc_host(64)
    got = []
    acl.rt.memset_async(dev, 64, 5, 64, device0)
    acl.rt.memcpy_async(host, 64, dev, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST, device0)
    acl.rt.launch_host_func(device0, lambda args: got.append(acl.util.ptr_to_bytes(host, 2)), None)
    assert acl.rt.synchronize_stream(device0) == 0
    assert got == [b"\x05\x05"] and not sandbox.hazards()


def test_a_synchronize_that_can_never_finish_returns_the_sync_timeout_code(device0):
    acl.rt.subscribe_report(me(), device0)  # this thread serves the stream but never processes
    acl.rt.launch_callback(lambda d: None, [], acl.ACL_CALLBACK_BLOCK, device0)
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT


def test_callbacks_cannot_be_captured_into_a_graph_and_the_capture_goes_on(device0):
    acl.rt.subscribe_report(me(), device0)
    assert acl.mdl.ri_capture_begin(device0, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == 0
    assert (
        acl.rt.launch_callback(lambda d: None, [], acl.ACL_CALLBACK_NO_BLOCK, device0)
        == acl.ACL_ERROR_RT_STREAM_CAPTURED
    )
    ri, ret = acl.mdl.ri_capture_end(device0)
    assert ret == 0 and acl.mdl.ri_destroy(ri) == 0
    other, _ = acl.rt.create_stream()
    assert acl.mdl.ri_capture_begin(other, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == 0
    assert acl.rt.launch_host_func(other, lambda d: None, None) == acl.ACL_ERROR_RT_STREAM_CAPTURED
    ri, ret = acl.mdl.ri_capture_end(other)
    assert ret == 0 and acl.mdl.ri_destroy(ri) == 0


class HostFuncServer(Server):
    """A host thread that loops on process_host_func(timeout) until told to stop."""

    def loop(self, timeout):
        acl.rt.set_device(0)
        while not self.stop:
            self.results.append(acl.rt.process_host_func(timeout))


def test_a_host_func_on_a_stream_with_a_subscribed_thread_runs_in_its_process_host_func(device0):
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(64, 0)
    seen = []
    server = HostFuncServer()
    assert acl.rt.subscribe_host_func(server.thread.ident, stream) == 0
    busy[1, stream](buf)
    assert acl.rt.launch_host_func(stream, lambda data: seen.append((data, threading.current_thread().name)), 7) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert seen == [(7, "cb-server")]
    assert acl.rt.unsubscribe_host_func(server.thread.ident, stream) == 0
    server.join()
    (run,) = [r for r in runs() if r.kind == "host_func"]
    assert run.tid == tid_of("cb-server")
    assert 0 in server.results


def test_host_func_subscription_refusals_follow_the_report_rules(device0):
    stream, _ = acl.rt.create_stream()
    assert acl.rt.subscribe_host_func(me(), 0) == acl.ACL_ERROR_RT_PARAM_INVALID == 107000
    assert acl.rt.unsubscribe_host_func(me(), 0) == 107000
    assert acl.rt.process_host_func(10) == acl.ACL_ERROR_RT_THREAD_SUBSCRIBE == 107012
    assert acl.rt.process_host_func(0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.subscribe_host_func(me(), stream) == 0
    assert acl.rt.subscribe_host_func(me(), stream) == acl.ACL_ERROR_RT_STREAM_SUBSCRIBE == 107011
    assert acl.rt.process_host_func(1) == acl.ACL_ERROR_RT_REPORT_TIMEOUT
    assert acl.rt.subscribe_report(me(), stream) == 0  # the report registry is another one
    assert acl.rt.unsubscribe_host_func(me(), stream) == 0
    assert acl.rt.unsubscribe_host_func(me(), stream) == 107011


def test_a_stream_with_both_subscriptions_takes_callbacks_and_host_funcs(device0):
    stream, _ = acl.rt.create_stream()
    reports, host_funcs = Server(), HostFuncServer()
    ran = []
    assert acl.rt.subscribe_report(reports.thread.ident, stream) == 0
    assert acl.rt.subscribe_host_func(host_funcs.thread.ident, stream) == 0
    assert acl.rt.launch_callback(lambda d: ran.append("callback"), None, acl.ACL_CALLBACK_BLOCK, stream) == 0
    assert acl.rt.launch_host_func(stream, lambda d: ran.append("host_func"), None) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    reports.join()
    host_funcs.join()
    assert ran == ["callback", "host_func"]


def test_start_thread_calls_func_without_an_argument_for_none_and_stop_thread_raises_what_it_raised(device0):
    got = []
    tid, ret = acl.util.start_thread(lambda *args: got.append(args), None)
    assert ret == 0 and acl.util.stop_thread(tid) == 0 and got == [()]

    def fails(args):
        raise ValueError("bad batch")

    tid, _ = acl.util.start_thread(fails, [1])
    with pytest.raises(RuntimeError, match="exception=ValueError,msg=bad batch"):
        acl.util.stop_thread(tid)


def test_a_block_callback_that_synchronizes_its_own_stream_gets_the_sync_timeout_at_once_instead_of_hanging(device0):
    got = []

    def waits_for_itself(data):
        got.append(acl.rt.synchronize_stream(device0))
        got.append(acl.rt.synchronize_device())

    acl.rt.subscribe_report(me(), device0)
    acl.rt.launch_callback(waits_for_itself, None, acl.ACL_CALLBACK_BLOCK, device0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert acl.rt.process_report(10) == 0
    assert got == [acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT] * 2
    assert "holds stream" in acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(device0) == 0  # the stream went on once the callback returned
