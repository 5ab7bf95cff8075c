"""Stream calls beyond create/destroy/synchronize: forced destroy (RT-API 06)."""

from __future__ import annotations

import warnings

import pytest

import sandbox
from sandbox import acl
from conftest import dev_alloc, pinned, tasks_by_id


@sandbox.kernel(ns=50_000, writes=())
def work(x: "uint8*"):
    pass


@sandbox.kernel(ns=10_000_000, writes=())
def slow(x: "uint8*"):
    pass


def test_destroy_stream_force_drops_the_tasks_not_started_and_returns_after_the_running_one(device0):
    buf = dev_alloc(64)
    host, view = pinned(64)
    view[:] = 7
    slow[1, device0](buf)  # running when the stream dies: runs to its end
    acl.rt.memcpy_async(buf, 64, host, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)  # queued: dropped
    assert acl.rt.destroy_stream_force(device0) == 0
    kernel, copy = tasks_by_id().values()
    assert kernel["status"] == 0 and kernel["start"] < kernel["end"] <= sandbox.now()  # it returned after the kernel
    assert copy["status"] == acl.ACL_ERROR_RT_STREAM_ABORT == 107023
    assert copy["start"] == copy["end"]  # shown as discarded: no engine time
    _, view2 = pinned(64)
    with warnings.catch_warnings():
        warnings.simplefilter("error", sandbox.HazardWarning)  # the destroy waited: the host knows the stream is done
        assert acl.rt.memcpy(_, 64, buf, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert acl.rt.free(buf) == 0
    assert not view2.any()  # the copy's effect never happened, and the kernel wrote no data


def test_destroy_stream_force_releases_the_tasks_parked_on_an_event(device0):
    other, _ = acl.rt.create_stream()
    ev, _ = acl.rt.create_event()
    slow[1, other](dev_alloc(64))
    acl.rt.record_event(ev, other)
    acl.rt.stream_wait_event(device0, ev)
    work[1, device0](dev_alloc(64))
    assert acl.rt.destroy_stream_force(device0) == 0
    assert acl.rt.synchronize_device() == 0
    statuses = [t["status"] for t in tasks_by_id().values() if t["stream"] == device0]
    assert statuses == [107023, 107023]


def test_destroy_stream_force_of_the_default_stream_is_100000(device0):
    assert acl.rt.destroy_stream_force(0) == acl.ACL_ERROR_INVALID_PARAM == 100000
    with pytest.raises(TypeError):  # None is no handle to pyACL's argument parsing
        acl.rt.destroy_stream_force(None)


def test_destroy_stream_force_of_a_capturing_stream_is_107027(device0):
    assert acl.mdl.ri_capture_begin(device0, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == 0
    assert acl.rt.destroy_stream_force(device0) == acl.ACL_ERROR_RT_STREAM_CAPTURED == 107027
    assert acl.rt.stream_query(device0)[1] != 100000  # still alive: the refusal changed nothing


def test_destroy_stream_force_leaves_the_handle_dead(device0):
    assert acl.rt.destroy_stream_force(device0) == 0
    assert acl.rt.destroy_stream_force(device0) == 100000
    assert acl.rt.synchronize_stream(device0) == 100000


def test_stream_get_id_gives_the_device_stream_id_and_0_for_the_default_stream(device0):
    assert acl.rt.stream_get_id(0) == (0, 0)
    assert acl.rt.stream_get_id(device0) == (1, 0)
    assert acl.rt.stream_get_id(12345)[1] == 100000


def test_stream_get_flags_gives_the_flags_the_stream_was_created_with(device0):
    assert acl.rt.stream_get_flags(device0) == (0, 0)
    fast, _ = acl.rt.create_stream_with_config(3, acl.ACL_STREAM_FAST_LAUNCH | acl.ACL_STREAM_FAST_SYNC)
    assert acl.rt.stream_get_flags(fast) == (3, 0)
    assert acl.rt.stream_get_flags(0) == (0, 0)


def test_create_stream_v2_takes_the_flag_and_priority_of_its_config_handle(device0):
    config, ret = acl.rt.create_stream_config_handle()
    assert ret == 0 and config
    assert acl.rt.set_stream_config_opt(config, acl.ACL_RT_STREAM_FLAG, acl.ACL_STREAM_FAST_LAUNCH, 8) == 0
    assert acl.rt.set_stream_config_opt(config, acl.ACL_RT_STREAM_PRIORITY, 5, 4) == 0
    stream, ret = acl.rt.create_stream_v2(config)
    assert ret == 0
    assert acl.rt.stream_get_flags(stream) == (acl.ACL_STREAM_FAST_LAUNCH, 0)
    assert acl.rt.stream_get_priority(stream) == (5, 0)
    assert acl.rt.destroy_stream_config_handle(config) == 0
    assert acl.rt.destroy_stream_config_handle(config) == 100000
    plain, ret = acl.rt.create_stream_v2(0)  # a null config: flag 0, priority 0
    assert ret == 0 and acl.rt.stream_get_priority(plain) == (0, 0)


def test_set_stream_config_opt_refuses_a_wrong_attr_size_or_priority_with_100000(device0):
    config, _ = acl.rt.create_stream_config_handle()
    assert acl.rt.set_stream_config_opt(config, 4, 0, 8) == 100000  # no such attr
    assert acl.rt.set_stream_config_opt(config, acl.ACL_RT_STREAM_FLAG, 0, 2) == 100000  # uint32_t or size_t wanted
    assert acl.rt.set_stream_config_opt(config, acl.ACL_RT_STREAM_PRIORITY, 0, 8) == 100000  # uint32_t wanted
    assert acl.rt.set_stream_config_opt(config, acl.ACL_RT_STREAM_PRIORITY, 8, 4) == 100000  # above 7
    assert acl.rt.set_stream_config_opt(0, acl.ACL_RT_STREAM_PRIORITY, 1, 4) == 100000
    assert acl.rt.set_stream_config_opt(config, acl.ACL_RT_STREAM_PRIORITY, None, 4) == 100000


def test_tasks_dropped_by_a_forced_destroy_show_in_the_export_with_their_code(device0):
    from sandbox.export.chrome_trace import to_chrome_trace
    from sandbox.export.validate import validate_chrome_trace

    buf = dev_alloc(64)
    slow[1, device0](buf)
    work[1, device0](buf)  # queued behind the running kernel: dropped
    assert acl.rt.destroy_stream_force(device0) == 0
    later, _ = acl.rt.create_stream()
    slow[1, later](dev_alloc(64))
    assert acl.rt.synchronize_stream(later) == 0
    doc = to_chrome_trace(sandbox.trace())
    assert validate_chrome_trace(doc) == []
    dropped = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("args", {}).get("status") == 107023]
    assert [e["name"] for e in dropped] == ["work"]
