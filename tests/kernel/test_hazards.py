"""Hazard rules (core/hazards.py): found by ordering semantics, whatever the schedule did."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T

from conftest import dev_alloc, pinned

H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST


@sandbox.kernel(ns=50_000)
def scale(x: sandbox.ptr(np.float32, "n"), n):
    x[:n] *= 2


def kinds():
    return [h.kind for h in sandbox.hazards()]


def test_host_read_of_a_pending_async_write_is_a_hazard_even_when_the_copy_already_finished(device0):
    host, view = pinned(4096)
    dev = dev_alloc(4096)
    acl.rt.memcpy_async(host, 4096, dev, 4096, D2H, device0)
    acl.rt.memset(dev_alloc(4096), 4096, 0, 4096)  # a blocking call: the copy is long done by now
    with pytest.warns(sandbox.HazardWarning, match=r"synchronize Stream 1 on device 0"):
        acl.util.ptr_to_numpy(host, (1024,), np.float32)
    (h,) = sandbox.hazards()
    assert h.kind == "host_read" and h.streams == (device0,) and len(h.tasks) == 1
    assert any(isinstance(r, T.Hazard) for r in sandbox.trace())


def test_host_read_after_synchronizing_the_stream_is_no_hazard(device0):
    host, _ = pinned(4096)
    dev = dev_alloc(4096)
    acl.rt.memcpy_async(host, 4096, dev, 4096, D2H, device0)
    acl.rt.synchronize_stream(device0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", sandbox.HazardWarning)
        acl.util.ptr_to_bytes(host, 16)
    assert sandbox.hazards() == []


def test_host_read_after_an_event_synchronize_is_no_hazard(device0):
    host, _ = pinned(4096)
    dev = dev_alloc(4096)
    ev, _ = acl.rt.create_event()
    acl.rt.memcpy_async(host, 4096, dev, 4096, D2H, device0)
    acl.rt.record_event(ev, device0)
    acl.rt.synchronize_event(ev)
    acl.util.ptr_to_bytes(host, 16)
    assert sandbox.hazards() == []


def test_two_streams_writing_the_same_bytes_without_an_event_is_a_race(device0):
    other, _ = acl.rt.create_stream()
    dev = dev_alloc(4096)
    scale[1, device0](dev, 1024)
    acl.rt.synchronize_device()  # ordered: the host saw the first kernel finish
    assert kinds() == []
    scale[1, device0](dev, 1024)
    with pytest.warns(sandbox.HazardWarning, match="aclrtRecordEvent \\+ aclrtStreamWaitEvent"):
        scale[1, other](dev, 1024)
    (h,) = sandbox.hazards()
    assert h.kind == "stream_race" and set(h.streams) == {device0, other}


def test_a_race_is_reported_even_when_the_run_times_do_not_overlap(device0):
    other, _ = acl.rt.create_stream()
    dev = dev_alloc(4096)
    scale[1, device0](dev, 1024)
    acl.rt.memset(dev_alloc(64), 64, 0, 64)  # time passes: the first kernel is done
    with pytest.warns(sandbox.HazardWarning):
        scale[1, other](dev, 1024)
    assert kinds() == ["stream_race"]


def test_an_event_ordered_two_stream_program_has_no_hazard(device0):
    other, _ = acl.rt.create_stream()
    ev, _ = acl.rt.create_event()
    dev = dev_alloc(4096)
    with warnings.catch_warnings():
        warnings.simplefilter("error", sandbox.HazardWarning)
        scale[1, device0](dev, 1024)
        acl.rt.record_event(ev, device0)
        acl.rt.stream_wait_event(other, ev)
        scale[1, other](dev, 1024)
        acl.rt.synchronize_stream(other)
    assert sandbox.hazards() == []


def test_disjoint_chunks_on_two_streams_do_not_race(device0):
    other, _ = acl.rt.create_stream()
    dev = dev_alloc(8192)
    scale[1, device0](dev, 1024)
    scale[1, other](dev + 4096, 1024)
    assert sandbox.hazards() == []


def test_two_readers_on_two_streams_do_not_race(device0):
    other, _ = acl.rt.create_stream()
    dev = dev_alloc(4096)
    h1, _ = pinned(4096)
    h2, _ = pinned(4096)
    acl.rt.memcpy_async(h1, 4096, dev, 4096, D2H, device0)
    acl.rt.memcpy_async(h2, 4096, dev, 4096, D2H, other)
    assert sandbox.hazards() == []


def test_freeing_memory_that_queued_work_uses_is_a_hazard(device0):
    dev = dev_alloc(4096)
    scale[1, device0](dev, 1024)
    with pytest.warns(sandbox.HazardWarning, match="does not wait"):
        assert acl.rt.free(dev) == 0
    assert kinds() == ["free_in_use"]


def test_freeing_after_synchronize_is_no_hazard(device0):
    dev = dev_alloc(4096)
    scale[1, device0](dev, 1024)
    acl.rt.synchronize_stream(device0)
    assert acl.rt.free(dev) == 0
    assert sandbox.hazards() == []


def test_a_peer_copy_without_peer_access_fails_and_is_recorded_as_a_hazard(device0):
    src = dev_alloc(4096)
    acl.rt.set_device(1)
    dst = dev_alloc(4096)
    with pytest.warns(sandbox.HazardWarning, match="aclrtDeviceEnablePeerAccess"):
        ret = acl.rt.memcpy(dst, 4096, src, 4096, acl.ACL_MEMCPY_DEVICE_TO_DEVICE)
    assert ret == acl.ACL_ERROR_RT_PARAM_INVALID
    assert kinds() == ["peer_access"]


def test_a_blocking_copy_of_memory_an_unsynchronized_kernel_writes_is_a_race(device0):
    dev = dev_alloc(4096)
    host, _ = pinned(4096)
    scale[1, device0](dev, 1024)
    with pytest.warns(sandbox.HazardWarning, match="blocking copy"):
        acl.rt.memcpy(host, 4096, dev, 4096, D2H)
    assert kinds() == ["stream_race"]


def test_a_thread_started_after_a_synchronize_knows_what_its_parent_knew(device0):
    import threading

    host, _ = pinned(4096)
    dev = dev_alloc(4096)
    acl.rt.memcpy_async(host, 4096, dev, 4096, D2H, device0)
    acl.rt.synchronize_stream(device0)
    t = threading.Thread(target=lambda: acl.util.ptr_to_bytes(host, 8))
    t.start()
    t.join()
    assert sandbox.hazards() == []


def test_hazard_messages_are_the_same_on_every_run():
    def run():
        sandbox.configure()
        acl.init()
        acl.rt.set_device(0)
        s, _ = acl.rt.create_stream()
        host, _ = acl.rt.malloc_host(4096)
        dev, _ = acl.rt.malloc(4096, 0)
        acl.rt.memcpy_async(host, 4096, dev, 4096, D2H, s)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            acl.util.ptr_to_bytes(host, 8)
        return [str(w.message) for w in caught], [h.message for h in sandbox.hazards()]

    first, second = run(), run()
    assert first == second and len(first[0]) == 1  # shown again on the second run, too


# -- use after a full reset ------------------------------------------------------------------------
def test_device_memory_used_after_its_device_was_fully_reset_is_a_hazard(machine):
    assert acl.rt.set_device(0) == 0
    old = dev_alloc(4096)
    host, _ = pinned(4096)
    assert acl.rt.reset_device(0) == 0
    assert acl.rt.set_device(0) == 0
    with pytest.warns(sandbox.HazardWarning, match=r"allocated before device 0 was fully reset"):
        assert acl.rt.memcpy(host, 4096, old, 4096, D2H) == 0  # undefined on hardware: no code
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert acl.rt.memset(old, 4096, 0, 4096) == 0  # reported once per buffer
    assert kinds() == ["use_after_reset"]


def test_a_kernel_on_device_memory_kept_over_a_force_reset_is_a_hazard(machine):
    assert acl.rt.set_device(0) == 0
    assert acl.rt.set_device(0) == 0
    old = dev_alloc(4096)
    assert acl.rt.reset_device_force(0) == 0
    assert acl.rt.set_device(0) == 0
    stream, _ = acl.rt.create_stream()
    with pytest.warns(sandbox.HazardWarning, match=r"scale.*on Stream .* allocated before device 0"):
        scale[1, stream](old, 1024)
    assert kinds() == ["use_after_reset"]


def test_memory_allocated_after_the_reset_or_kept_over_a_partial_reset_is_no_hazard(machine):
    assert acl.rt.set_device(0) == 0
    assert acl.rt.set_device(0) == 0
    kept = dev_alloc(4096)
    assert acl.rt.reset_device(0) == 0  # one reference left: nothing released
    host, _ = pinned(4096)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert acl.rt.memcpy(host, 4096, kept, 4096, D2H) == 0
        assert acl.rt.reset_device(0) == 0
        assert acl.rt.set_device(0) == 0
        fresh = dev_alloc(4096)
        assert acl.rt.memcpy(host, 4096, fresh, 4096, D2H) == 0
    assert kinds() == []
