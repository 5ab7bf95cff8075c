"""The host memory budget of the lazy backing (core/allocator.py HostBudget).

Simulated memory takes host memory only for bytes that are written; a machine's written
bytes may take at most its budget.  A write past it fails with 207001
ACL_ERROR_RT_MEMORY_ALLOCATION instead of a MemoryError or the OOM killer.
"""

from __future__ import annotations

import numpy as np
import pytest

import sandbox
from sandbox import acl
from sandbox.core.errors import AclError
from sandbox.core.machine import current
from sandbox.core.allocator import BUDGET_FLOOR, default_host_budget

MiB, GiB = 1 << 20, 1 << 30
OOM = acl.ACL_ERROR_RT_MEMORY_ALLOCATION
BUDGET = 64 * MiB


@pytest.fixture
def small():
    """A one-device machine whose written bytes may take 64 MiB of host memory."""
    sandbox.configure("ascend910b", device_count=1, host_memory_budget=BUDGET)
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    yield stream
    sandbox.raise_on_error(False)


def used() -> int:
    return current().host_budget.used


def names_the_budget(message: str) -> bool:
    return "host memory budget" in message and str(BUDGET) in message


def test_a_memset_async_past_the_budget_fails_its_task_at_the_next_synchronize_with_207001(small):
    ptr, ret = acl.rt.malloc(20 * GiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    assert acl.rt.memset_async(ptr, 20 * GiB, 1, 20 * GiB, small) == 0  # queued: no error yet
    assert acl.rt.synchronize_stream(small) == OOM == 207001
    assert names_the_budget(acl.get_recent_err_msg())
    assert used() == 0  # nothing was written


def test_a_memcpy_async_past_the_budget_fails_its_task_and_writes_nothing(small):
    host, _ = acl.rt.malloc_host(48 * MiB)
    acl.util.ptr_to_numpy(host, (48 * MiB,), np.uint8)[:] = 7  # 48 MiB of the budget
    dev, _ = acl.rt.malloc(48 * MiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert acl.rt.memcpy_async(dev, 48 * MiB, host, 48 * MiB, acl.ACL_MEMCPY_HOST_TO_DEVICE, small) == 0
    assert acl.rt.synchronize_stream(small) == OOM
    assert names_the_budget(acl.get_recent_err_msg())
    assert used() == 48 * MiB
    back, _ = acl.rt.malloc_host(MiB)
    assert acl.rt.memcpy(back, MiB, dev, MiB, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert not acl.util.ptr_to_numpy(back, (MiB,), np.uint8).any()  # the device bytes are still zeros


def test_a_kernel_whose_pointer_arguments_do_not_fit_the_budget_fails_with_207001_before_any_view(small):
    @sandbox.kernel(ns=1000)
    def fill(a: sandbox.ptr(np.uint8), b: sandbox.ptr(np.uint8)):
        a[:] = 1
        b[:] = 1

    a, _ = acl.rt.malloc(40 * MiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    b, _ = acl.rt.malloc(40 * MiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert fill[1, small](a, b) == 0
    assert acl.rt.synchronize_stream(small) == OOM
    message = acl.get_recent_err_msg()
    assert "kernel fill" in message and names_the_budget(message)
    assert used() == 0  # not even the first argument was backed


def test_blocking_calls_past_the_budget_return_207001_and_change_nothing(small):
    big, _ = acl.rt.malloc_host(60 * MiB)
    acl.util.ptr_to_numpy(big, (60 * MiB,), np.uint8)[:] = 3
    other, _ = acl.rt.malloc_host(8 * MiB)
    dev, _ = acl.rt.malloc(8 * MiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    t0 = sandbox.now()
    assert acl.rt.memset(other, 8 * MiB, 1, 8 * MiB) == OOM  # host-side memset
    assert names_the_budget(acl.get_recent_err_msg())
    assert sandbox.now() - t0 < 100_000  # no copy time was charged
    assert acl.rt.memcpy(other, 8 * MiB, big, 8 * MiB, acl.ACL_MEMCPY_HOST_TO_HOST) == OOM
    assert acl.rt.memset(dev, 8 * MiB, 1, 8 * MiB) == OOM  # device memset (blocking)
    assert acl.rt.memcpy(dev, 8 * MiB, big, 8 * MiB, acl.ACL_MEMCPY_HOST_TO_DEVICE) == OOM
    assert used() == 60 * MiB
    assert acl.util.ptr_to_bytes(other, 16) == bytes(16)


def test_ptr_to_numpy_of_a_pinned_buffer_the_budget_cannot_hold_fails_with_207001(small):
    a, _ = acl.rt.malloc_host(40 * MiB)
    b, _ = acl.rt.malloc_host(40 * MiB)
    assert acl.util.ptr_to_numpy(a, (4,), np.float32) is not None  # backs all of a: 40 MiB
    assert acl.util.ptr_to_numpy(b, (4,), np.float32) is None
    assert names_the_budget(acl.get_recent_err_msg())
    sandbox.raise_on_error(True)
    with pytest.raises(AclError) as caught:
        acl.util.ptr_to_numpy(b, (4,), np.float32)
    assert caught.value.code == OOM


def test_malloc_host_beyond_the_budget_or_the_address_space_is_refused_with_207001(small):
    for size in (2**80, 2**64, BUDGET + 1):
        ptr, ret = acl.rt.malloc_host(size)
        assert (ptr, ret) == (0, OOM), size
        assert names_the_budget(acl.get_recent_err_msg())
    sandbox.configure(host_memory_budget=2**70)  # even a huge budget: the address space ends
    acl.init()
    assert acl.rt.malloc_host(2**64) == (0, OOM)
    assert "address space" in acl.get_recent_err_msg()
    ptr, ret = acl.rt.malloc_host(GiB)
    assert ret == 0 and ptr + GiB < 2**64


def test_freed_buffers_give_their_bytes_back_to_the_budget(small):
    ptr, _ = acl.rt.malloc(48 * MiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert acl.rt.memset(ptr, 48 * MiB, 1, 48 * MiB) == 0 and used() == 48 * MiB
    assert acl.rt.free(ptr) == 0 and used() == 0
    host, _ = acl.rt.malloc_host(48 * MiB)
    assert acl.rt.memset(host, 48 * MiB, 1, 48 * MiB) == 0 and used() == 48 * MiB
    assert acl.rt.free_host(host) == 0 and used() == 0
    pool, ret = acl.rt.mem_pool_create(
        {
            "allocType": acl.ACL_MEM_ALLOCATION_TYPE_PINNED,
            "handleType": 0,
            "location": {"id": 0, "type": acl.ACL_MEM_LOCATION_TYPE_DEVICE},
            "maxSize": 0,
        }
    )
    assert ret == 0
    block, _ = acl.rt.mem_pool_malloc_async(48 * MiB, pool, small)
    assert acl.rt.memset_async(block, 48 * MiB, 1, 48 * MiB, small) == 0
    assert acl.rt.mem_pool_free_async(block, small) == 0
    assert acl.rt.synchronize_stream(small) == 0 and used() == 0


def test_the_machine_goes_on_working_after_a_write_past_the_budget(small):
    huge, _ = acl.rt.malloc(20 * GiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert acl.rt.memset_async(huge, 20 * GiB, 1, 20 * GiB, small) == 0
    assert acl.rt.synchronize_stream(small) == OOM
    assert acl.rt.memset_async(huge, 20 * GiB, 5, 4 * MiB, small) == 0  # a part that fits
    host, _ = acl.rt.malloc_host(4 * MiB)
    assert acl.rt.memcpy_async(host, 4 * MiB, huge, 4 * MiB, acl.ACL_MEMCPY_DEVICE_TO_HOST, small) == 0
    assert acl.rt.synchronize_stream(small) == 0
    assert (acl.util.ptr_to_numpy(host, (4 * MiB,), np.uint8) == 5).all()
    assert acl.rt.free(huge) == 0 and acl.rt.free_host(host) == 0 and used() == 0


def test_the_default_budget_is_half_the_host_memory_with_a_floor_and_configure_sets_it():
    sandbox.configure()
    limit = current().host_budget.limit
    assert limit == default_host_budget() >= BUDGET_FLOOR
    with open("/proc/meminfo") as f:
        total = int(f.readline().split()[1]) * 1024  # MemTotal
    assert limit <= max(BUDGET_FLOOR, total // 2)
    sandbox.configure(host_memory_budget=np.int64(5 * MiB))
    assert current().host_budget.limit == 5 * MiB
    for bad, error in (("1GB", TypeError), (1.5e9, TypeError), (True, TypeError), (-1, ValueError)):
        with pytest.raises(error, match="host_memory_budget"):
            sandbox.configure(host_memory_budget=bad)
