"""Asynchronous device errors, stream failure modes and injected faults (sandbox/core/features/faults.py)."""

from __future__ import annotations

import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T

from conftest import dev_alloc, pinned, tasks_by_id


@sandbox.kernel(ns=50_000)
def fill(x: "uint8*", v: int):
    x[:] = v


def read(dev, n=1):
    host, view = pinned(64)
    assert acl.rt.memcpy(host, 64, dev, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    return bytes(view[:n])


def test_an_injected_kernel_trap_fails_the_next_kernel_with_507016_at_the_next_synchronize(device0):
    buf = dev_alloc(64)
    sandbox.inject_fault("kernel_trap", device=0)
    assert fill[1, device0](buf, 7) == 0  # the launch itself succeeds
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_AICORE_TRAP_EXCEPTION == 507016
    assert "injected fault" in acl.get_recent_err_msg()
    assert read(buf) == b"\x00"  # its data effect did not happen
    fill[1, device0](buf, 7)  # count=1: the next one is fine
    assert acl.rt.synchronize_stream(device0) == 0 and read(buf) == b"\x07"


def test_after_lets_that_many_matching_tasks_succeed_first(device0):
    buf = dev_alloc(64)
    sandbox.inject_fault("kernel_trap", after=2, code=acl.ACL_ERROR_RT_AICORE_EXCEPTION)
    for v in (1, 2, 3, 4):
        fill[1, device0](buf, v)
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_AICORE_EXCEPTION
    statuses = [t["status"] for t in tasks_by_id().values() if t["kind"] == "kernel"]
    assert statuses == [0, 0, acl.ACL_ERROR_RT_AICORE_EXCEPTION, 0]


def test_a_dma_error_fails_the_next_copy_with_507013(device0):
    buf = dev_alloc(64)
    host, view = pinned(64)
    view[:] = 5
    sandbox.inject_fault("dma_error", device=0)
    assert acl.rt.memcpy_async(buf, 64, host, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0) == 0
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_SYS_DMA == 507013
    assert read(buf) == b"\x00"


def test_a_blocking_copy_returns_the_dma_error_itself(device0):
    buf = dev_alloc(64)
    host, _ = pinned(64)
    sandbox.inject_fault("dma_error")
    assert acl.rt.memcpy(buf, 64, host, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE) == acl.ACL_ERROR_RT_SYS_DMA
    assert acl.rt.memcpy(buf, 64, host, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0


def test_a_link_down_fails_peer_copies_with_507056_until_cleared(device0):
    src = dev_alloc(64)
    acl.rt.device_enable_peer_access(1, 0)
    acl.rt.set_device(1)
    dst = dev_alloc(64)
    acl.rt.set_device(0)
    sandbox.inject_fault("link_down", device=0, peer=1)
    for _ in range(2):
        acl.rt.memcpy_async(dst, 64, src, 64, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, device0)
        assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_LINK_ERROR == 507056
    fill[1, device0](src, 1)  # work on the device itself is unaffected
    assert acl.rt.synchronize_stream(device0) == 0
    sandbox.clear_faults()
    acl.rt.memcpy_async(dst, 64, src, 64, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, device0)
    assert acl.rt.synchronize_stream(device0) == 0


def test_faults_and_their_hits_are_in_the_trace(device0):
    buf = dev_alloc(64)
    number = sandbox.inject_fault("kernel_trap", stream=device0)
    fill[1, device0](buf, 1)
    acl.rt.synchronize_stream(device0)
    (armed,) = sandbox.trace().of(T.FaultInjected)
    (hit,) = sandbox.trace().of(T.FaultTriggered)
    assert armed.fault == hit.fault == number and armed.kind == "kernel_trap" and hit.code == 507016
    kernel = next(t for tid, t in tasks_by_id().items() if t["kind"] == "kernel")
    assert kernel["status"] == 507016


def test_bad_fault_arguments_raise_value_error(machine):
    for kwargs in (
        {"kind": "meteor"},
        {"kind": "kernel_trap", "device": 99},
        {"kind": "dma_error", "count": 0},
        {"kind": "kernel_trap", "code": 12},
        {"kind": "kernel_trap", "peer": 1},
    ):
        with pytest.raises(ValueError):
            sandbox.inject_fault(**kwargs)


def test_continue_on_failure_runs_later_tasks_and_the_sync_reports_the_latest_error(device0):
    buf = dev_alloc(64)
    sandbox.inject_fault("kernel_trap", code=acl.ACL_ERROR_RT_AICORE_EXCEPTION)
    fill[1, device0](buf, 1)
    sandbox.inject_fault("dma_error")
    acl.rt.memset_async(buf, 64, 9, 64, device0)
    fill[1, device0](buf, 3)  # later task still runs
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_SYS_DMA
    assert acl.rt.synchronize_stream(device0) == 0  # reported once
    assert read(buf) == b"\x03"


def test_stop_on_failure_discards_later_tasks_of_every_stream_of_the_context(device0):
    other, _ = acl.rt.create_stream()
    buf = dev_alloc(64)
    buf2 = dev_alloc(64)
    assert acl.rt.set_stream_failure_mode(device0, acl.ACL_STOP_ON_FAILURE) == 0
    sandbox.inject_fault("kernel_trap", stream=device0)
    fill[1, device0](buf, 1)
    fill[1, device0](buf, 2)
    acl.rt.memset_async(buf2, 64, 4, 64, other)  # queued behind a long kernel on the other stream
    fill[1, other](buf2, 5)
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_AICORE_TRAP_EXCEPTION
    assert acl.rt.synchronize_stream(other) == acl.ACL_ERROR_RT_AICORE_TRAP_EXCEPTION
    kernels = [t for t in tasks_by_id().values() if t["kind"] == "kernel"]
    assert [k["status"] for k in kernels] == [507016, 507016, 507016]


def test_after_a_stop_on_failure_the_context_takes_no_new_tasks_until_reset(device0):
    buf = dev_alloc(64)
    acl.rt.set_stream_failure_mode(device0, acl.ACL_STOP_ON_FAILURE)
    sandbox.inject_fault("kernel_trap")
    fill[1, device0](buf, 1)
    acl.rt.synchronize_stream(device0)
    assert fill[1, device0](buf, 2) == acl.ACL_ERROR_RT_AICORE_TRAP_EXCEPTION
    assert "takes no new tasks" in acl.get_recent_err_msg()
    acl.rt.free(buf)
    acl.rt.destroy_stream(device0)
    assert acl.rt.reset_device(0) == 0
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    buf = dev_alloc(64)
    fill[1, s](buf, 2)
    assert acl.rt.synchronize_stream(s) == 0 and read(buf) == b"\x02"


def test_the_failure_mode_may_be_set_only_once_per_stream(device0):
    assert acl.rt.set_stream_failure_mode(device0, acl.ACL_CONTINUE_ON_FAILURE) == 0
    assert acl.rt.set_stream_failure_mode(device0, acl.ACL_STOP_ON_FAILURE) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.set_stream_failure_mode(0, 5) == acl.ACL_ERROR_INVALID_PARAM


def test_a_kernel_that_raises_still_fails_with_507015_at_the_next_synchronize(device0):
    @sandbox.kernel(ns=1000)
    def broken(x: "uint8*"):
        raise RuntimeError("bug")

    buf = dev_alloc(64)
    assert broken[1, device0](buf) == 0
    assert acl.rt.synchronize_device() == acl.ACL_ERROR_RT_AICORE_EXCEPTION == 507015


# -- stream priority (RT-DG 03-02: 0 highest .. 7 lowest, clamped, pending tasks only) -------------------
@sandbox.kernel(ns=100_000, writes=())
def hog(x: "uint8*"):
    pass


def test_priority_never_preempts_a_running_task(device0):
    cores = sandbox.profile().ai_cores
    low, _ = acl.rt.create_stream_with_config(7, 0)
    high, _ = acl.rt.create_stream_with_config(0, 0)
    buf = dev_alloc(64)
    hog[cores, low](buf)  # occupies every core first
    hog[cores, high](buf)
    acl.rt.synchronize_device()
    first, second = [t for t in tasks_by_id().values() if t["kind"] == "kernel"]
    assert second["start"] >= first["end"]


def test_negative_priorities_clamp_to_the_highest(device0):
    s, ret = acl.rt.create_stream_with_config(-3, 0)
    assert ret == 0 and acl.rt.stream_get_priority(s) == (0, 0)
    assert acl.rt.device_get_stream_priority_range() == (7, 0, 0)
