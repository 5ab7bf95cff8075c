"""The vector-add program of seed 003 (H2D, AddKernel, D2H, synchronize), ported to the facade."""

from __future__ import annotations

import numpy as np
import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T


@sandbox.kernel(bytes=lambda a, b, c, size: 12 * size)
def add_kernel(a: "int32*", b: "int32*", c: "int32*", size: int):
    c[:size] = a[:size] + b[:size]


def run_vector_add(size=1024 * 1024):
    byte_size = size * 4
    acl.init()
    acl.rt.set_device(0)
    context, _ = acl.rt.create_context(0)
    stream, _ = acl.rt.create_stream()
    host_a, _ = acl.rt.malloc_host(byte_size)
    host_b, _ = acl.rt.malloc_host(byte_size)
    host_c, _ = acl.rt.malloc_host(byte_size)
    dev_a, _ = acl.rt.malloc(byte_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    dev_b, _ = acl.rt.malloc(byte_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    dev_c, _ = acl.rt.malloc(byte_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    a = acl.util.ptr_to_numpy(host_a, (size,), np.int32)
    b = acl.util.ptr_to_numpy(host_b, (size,), np.int32)
    a[:] = np.arange(size)
    b[:] = size - np.arange(size)
    rets = [
        acl.rt.memcpy_async(dev_a, byte_size, host_a, byte_size, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream),
        acl.rt.memcpy_async(dev_b, byte_size, host_b, byte_size, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream),
        add_kernel[(size + 255) // 256, stream](dev_a, dev_b, dev_c, size),
        acl.rt.memcpy_async(host_c, byte_size, dev_c, byte_size, acl.ACL_MEMCPY_DEVICE_TO_HOST, stream),
        acl.rt.synchronize_stream(stream),
    ]
    c = acl.util.ptr_to_numpy(host_c, (size,), np.int32).copy()
    for ptr in (dev_a, dev_b, dev_c):
        rets.append(acl.rt.free(ptr))
    for ptr in (host_a, host_b, host_c):
        rets.append(acl.rt.free_host(ptr))
    rets += [acl.rt.destroy_stream(stream), acl.rt.destroy_context(context), acl.rt.reset_device(0), acl.finalize()]
    return rets, c


def test_vector_add_gives_the_right_values():
    sandbox.configure()
    rets, c = run_vector_add()
    assert all(r == 0 for r in rets)
    assert (c == 1024 * 1024).all()


def test_vector_add_timeline_is_copy_copy_kernel_copy_in_order_then_sync():
    sandbox.configure()
    run_vector_add()
    log = sandbox.trace()
    tasks = [r for r in log if isinstance(r, T.TaskSubmitted)]
    assert [(t.kind, t.engine) for t in tasks] == [
        ("memcpy", "DMA H2D"),
        ("memcpy", "DMA H2D"),
        ("kernel", "AI Core"),
        ("memcpy", "DMA D2H"),
    ]
    spans = {r.task: [r.t] for r in log if isinstance(r, T.TaskStarted)}
    for r in log:
        if isinstance(r, T.TaskFinished):
            spans[r.task].append(r.t)
    ordered = [spans[t.task] for t in tasks]
    for (_s1, e1), (s2, _e2) in zip(ordered, ordered[1:]):
        assert s2 == e1  # one stream: back to back, no overlap
    sync = [r for r in log if isinstance(r, T.ApiCall) and r.name == "aclrtSynchronizeStream"][0]
    assert sync.blocked_from is not None and sync.end >= ordered[-1][1]
    launches = [r.name for r in log if isinstance(r, T.ApiCall)]
    assert launches.index("aclrtLaunchKernel") < launches.index("aclrtSynchronizeStream")


def test_a_gm_addr_parameter_is_a_byte_pointer_as_in_ascend_c(device0):
    @sandbox.kernel(ns=1000)
    def fill(out: "GM_ADDR", value: int):  # noqa: F821  (a string Ascend C programmers write; ruff reads it as a name)
        out[:4] = value

    buf, _ = acl.rt.malloc(64, 0)
    assert fill[1, device0](buf, 7) == 0
    assert acl.rt.synchronize_stream(device0) == 0  # a blocking copy waits for no stream
    host = np.zeros(4, np.uint8)
    acl.rt.memcpy(acl.util.numpy_to_ptr(host), 4, buf, 4, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    assert host.tolist() == [7, 7, 7, 7]


def test_an_unannotated_parameter_given_a_device_address_is_warned_about_naming_the_fix(device0):
    @sandbox.kernel(ns=1000)
    def add(x, n: int):
        pass

    buf, _ = acl.rt.malloc(64, 0)
    with pytest.warns(UserWarning, match=r'argument x is a live memory address .* x: "GM_ADDR"'):
        assert add[1, device0](buf, 3) == 0


def test_the_same_program_gives_an_identical_trace():
    runs = []
    for _ in range(3):
        sandbox.configure()
        run_vector_add(4096)
        runs.append([repr(r) for r in sandbox.trace()])
    assert runs[0] == runs[1] == runs[2]
