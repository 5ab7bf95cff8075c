"""Hazard checks where they meet callbacks and ACL Graph replay."""

from __future__ import annotations

import warnings

import pytest

import sandbox
from sandbox import acl
from callback_server import Server


@sandbox.kernel(ns=10_000, writes=("x",))
def bump(x: "uint8*"):
    x[:64] += 1


def test_a_callback_may_read_what_its_stream_copied_before_it(device0):
    dev, _ = acl.rt.malloc(64, 0)
    host, _ = acl.rt.malloc_host(64)
    seen = []
    server = Server()
    acl.rt.subscribe_report(server.thread.ident, device0)
    acl.rt.memset_async(dev, 64, 7, 64, device0)
    acl.rt.memcpy_async(host, 64, dev, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST, device0)
    acl.rt.launch_callback(
        lambda data: seen.append(acl.util.ptr_to_bytes(host, 1)), [], acl.ACL_CALLBACK_BLOCK, device0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", sandbox.HazardWarning)
        acl.rt.synchronize_stream(device0)
        server.join()
    assert seen == [b"\x07"]


def test_replayed_graph_work_is_checked_for_races(device0):
    other, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(64, 0)
    acl.mdl.ri_capture_begin(device0, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
    bump[1, device0](buf)
    ri, ret = acl.mdl.ri_capture_end(device0)
    assert ret == 0
    with pytest.warns(sandbox.HazardWarning, match="no event or synchronize orders the two"):
        acl.mdl.ri_execute_async(ri, device0)
        bump[1, other](buf)
    acl.rt.synchronize_device()
    acl.mdl.ri_destroy(ri)


def test_a_race_with_a_replayed_graphs_side_stream_says_to_order_the_launch_not_a_blocking_copy(device0):
    side, _ = acl.rt.create_stream()
    other, _ = acl.rt.create_stream()
    fork, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    join, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    buf, _ = acl.rt.malloc(64, 0)
    acl.mdl.ri_capture_begin(device0, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
    acl.rt.record_event(fork, device0)
    acl.rt.stream_wait_event(side, fork)  # the side stream joins the capture
    bump[1, side](buf)
    acl.rt.record_event(join, side)
    acl.rt.stream_wait_event(device0, join)
    ri, ret = acl.mdl.ri_capture_end(device0)
    assert ret == 0
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert acl.mdl.ri_execute_async(ri, device0) == 0
        bump[1, other](buf)
    texts = [str(w.message) for w in seen if issubclass(w.category, sandbox.HazardWarning)]
    assert len(texts) == 1 and "model RI" in texts[0], texts
    assert "order the graph's launch and the work on" in texts[0]
    assert "blocking copy" not in texts[0]
    acl.rt.synchronize_device()
    acl.mdl.ri_destroy(ri)
