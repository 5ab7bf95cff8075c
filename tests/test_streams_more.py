"""Stream calls beyond create/destroy/synchronize: forced destroy (RT-API 06)."""
from __future__ import annotations

import pytest

import sandbox
from sandbox import acl
from conftest import dev_alloc, pinned, tasks_by_id


@sandbox.kernel(ns=50_000, writes=())
def work(x: "uint8*"):
    pass


def test_destroy_stream_force_does_not_wait_and_drops_the_tasks_not_started(device0):
    buf = dev_alloc(64)
    host, view = pinned(64)
    view[:] = 7
    work[1, device0](buf)                                  # runs when the stream dies: runs to its end
    acl.rt.memcpy_async(buf, 64, host, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)   # queued: dropped
    assert acl.rt.destroy_stream_force(device0) == 0
    later, _ = acl.rt.create_stream()
    work[1, later](dev_alloc(64))                         # (time passes: the running kernel ends)
    assert acl.rt.synchronize_device() == 0              # the dropped work reports no error
    kernel, copy, _ = tasks_by_id().values()
    assert kernel["status"] == 0 and kernel["end"] > kernel["start"]
    assert copy["status"] == acl.ACL_ERROR_RT_STREAM_ABORT == 107023
    assert copy["start"] == copy["end"]                   # shown as discarded: no engine time
    _, view2 = pinned(64)
    with pytest.warns(sandbox.HazardWarning):              # the host cannot know the copy was dropped
        assert acl.rt.memcpy(_, 64, buf, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert not view2.any()                                # the copy's effect never happened


def test_destroy_stream_force_frees_a_stream_stuck_on_an_event_never_recorded(device0):
    other, _ = acl.rt.create_stream()
    ev, _ = acl.rt.create_event()
    work[1, other](dev_alloc(64))
    acl.rt.record_event(ev, other)
    acl.rt.stream_wait_event(device0, ev)
    work[1, device0](dev_alloc(64))
    assert acl.rt.destroy_stream_force(device0) == 0
    assert acl.rt.synchronize_device() == 0
    statuses = [t["status"] for t in tasks_by_id().values() if t["stream"] == device0]
    assert statuses == [107023, 107023]


def test_destroy_stream_force_of_the_default_stream_is_100000(device0):
    assert acl.rt.destroy_stream_force(0) == acl.ACL_ERROR_INVALID_PARAM == 100000
    assert acl.rt.destroy_stream_force(None) == 100000


def test_destroy_stream_force_of_a_capturing_stream_is_107027(device0):
    assert acl.mdl.ri_capture_begin(device0, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == 0
    assert acl.rt.destroy_stream_force(device0) == acl.ACL_ERROR_RT_STREAM_CAPTURED == 107027
    assert acl.rt.stream_query(device0)[1] != 100000      # still alive: the refusal changed nothing


def test_destroy_stream_force_leaves_the_handle_dead(device0):
    assert acl.rt.destroy_stream_force(device0) == 0
    assert acl.rt.destroy_stream_force(device0) == 100000
    assert acl.rt.synchronize_stream(device0) == 100000
