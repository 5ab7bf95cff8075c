"""aclrtFreeWithDevSync (acl.rt.free_with_dev_sync, beyond pyACL): the device is synchronized, then the
memory freed, so the tasks that still use it finish first; aclrtFree waits for nothing (API reference,
docs/zh/api_ref/11-01_device_memory_malloc_and_free.md; src/runtime/api/api_c_memory.cc:174-183)."""

from __future__ import annotations

import warnings

import pytest

import sandbox
from sandbox import acl
from conftest import dev_alloc

MS = 1_000_000


@sandbox.kernel(ns=2 * MS)
def slow_fill(x: "uint8*"):
    x[0] = 7


def _free_bytes():
    return acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0]


def test_free_with_dev_sync_waits_for_the_tasks_that_use_the_memory_before_freeing_it(device0):
    buf = dev_alloc(4096)
    before = _free_bytes()
    slow_fill[1, device0](buf)
    t0 = sandbox.now()
    with warnings.catch_warnings():
        warnings.simplefilter("error", sandbox.HazardWarning)  # no use after free: the kernel is done
        assert acl.rt.free_with_dev_sync(buf) == 0
    assert sandbox.now() - t0 >= 2 * MS - 100_000  # the host waited for the 2 ms kernel
    assert _free_bytes() > before
    assert acl.rt.stream_query(device0)[0] == acl.ACL_STREAM_STATUS_COMPLETE


def test_free_without_dev_sync_frees_at_once_and_the_queued_kernel_is_a_use_after_free(device0):
    buf = dev_alloc(4096)
    slow_fill[1, device0](buf)
    t0 = sandbox.now()
    with pytest.warns(sandbox.HazardWarning):
        assert acl.rt.free(buf) == 0
    assert sandbox.now() - t0 < MS  # aclrtFree did not wait
    acl.rt.synchronize_stream(device0)


def test_a_failed_free_with_dev_sync_frees_nothing_and_says_why(device0):
    buf = dev_alloc(4096)
    before = _free_bytes()
    assert acl.rt.free_with_dev_sync(0) == acl.ACL_ERROR_INVALID_PARAM  # the acl layer, before any wait
    assert "nullptr" in acl.get_recent_err_msg()
    assert acl.rt.free_with_dev_sync(buf + 64) == acl.ACL_ERROR_RT_MEMORY_FREE  # aclrtFree's code
    assert "aclrtFreeWithDevSync" in acl.get_recent_err_msg()
    host, _ = acl.rt.malloc_host(64)
    assert acl.rt.free_with_dev_sync(host) == acl.ACL_ERROR_INVALID_PARAM
    assert _free_bytes() == before  # nothing was freed
    sandbox.inject_fault("kernel_trap", device=0)
    slow_fill[1, device0](buf)
    ret = acl.rt.free_with_dev_sync(buf)  # the synchronize reports the failed kernel: no free
    assert ret == acl.ACL_ERROR_RT_AICORE_TRAP_EXCEPTION and "injected fault" in acl.get_recent_err_msg()
    assert _free_bytes() == before
    assert acl.rt.free_with_dev_sync(buf) == 0 and _free_bytes() > before


def test_free_with_dev_sync_is_declared_beyond_pyacl():
    from sandbox.acl.beyond_pyacl import MODELLED

    assert MODELLED["rt.free_with_dev_sync"] == "aclrtFreeWithDevSync"
    assert "not in pyACL" in acl.rt.free_with_dev_sync.__doc__
