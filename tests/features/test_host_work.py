"""sandbox.host_work: host-side computation that takes virtual time."""

from __future__ import annotations

import sandbox
from sandbox import acl
from sandbox.core import trace as T
from callback_server import Server


def test_host_work_advances_the_thread_and_shows_as_a_call_on_its_row(device0):
    t0 = sandbox.now()
    assert sandbox.host_work(2_000_000, "preprocess") == 0
    assert sandbox.now() - t0 == 2_000_000
    (call,) = [r for r in sandbox.trace() if isinstance(r, T.ApiCall) and r.name == "host work: preprocess"]
    assert call.end - call.start == 2_000_000


def test_device_work_overlaps_host_work(device0):
    @sandbox.kernel(ns=1_000_000, writes=())
    def k(x: "uint8*"):
        pass

    buf, _ = acl.rt.malloc(64, 0)
    k[1, device0](buf)
    t0 = sandbox.now()
    sandbox.host_work(1_000_000)  # the host computes while the kernel runs
    acl.rt.synchronize_stream(device0)
    assert sandbox.now() - t0 < 1_200_000


def test_host_work_inside_a_blocking_callback_holds_the_stream_longer(device0):
    server = Server()
    acl.rt.subscribe_report(server.thread.ident, device0)
    acl.rt.launch_callback(lambda data: sandbox.host_work(3_000_000), [], acl.ACL_CALLBACK_BLOCK, device0)
    t0 = sandbox.now()
    acl.rt.synchronize_stream(device0)
    server.join()
    (run,) = sandbox.trace().of(T.CallbackRun)
    assert run.end - run.start >= 3_000_000 and sandbox.now() - t0 >= 3_000_000


def test_host_work_inside_a_host_function_is_refused_with_a_message(device0):
    rets = []
    acl.rt.launch_host_func(device0, lambda args: rets.append(sandbox.host_work(1000)), None)
    acl.rt.synchronize_stream(device0)
    assert rets == [acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT]


def test_host_work_with_a_bad_duration_returns_invalid_param(device0):
    assert sandbox.host_work(-5) == acl.ACL_ERROR_INVALID_PARAM
    assert sandbox.host_work("long") == acl.ACL_ERROR_INVALID_PARAM
