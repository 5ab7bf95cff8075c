"""Device resources: core limits that kernels obey, the current default stream, device status and
utilisation (see sandbox/core/features/device_resources.py)."""

from __future__ import annotations

import sandbox
from sandbox import acl
from sandbox.core import trace as T

CUBE, VECTOR = acl.ACL_RT_DEV_RES_CUBE_CORE, acl.ACL_RT_DEV_RES_VECTOR_CORE


@sandbox.kernel(flops=24e9)
def heavy(x: "uint8*"):
    pass


def _kernel_time_and_cores(buf):
    heavy[24, 0](buf)
    acl.rt.synchronize_device()
    started = list(sandbox.trace().of(T.TaskStarted))[-1]
    finished = next(r for r in sandbox.trace().of(T.TaskFinished) if r.task == started.task)
    return finished.t - started.t, started.cores


def test_a_cube_core_limit_makes_later_kernels_take_fewer_cores_and_more_waves(device0):
    buf, _ = acl.rt.malloc(64, 0)
    free_time, free_cores = _kernel_time_and_cores(buf)
    assert acl.rt.set_device_res_limit(0, CUBE, 8) == 0
    assert acl.rt.get_device_res_limit(0, CUBE) == (8, 0)
    assert acl.rt.get_res_in_current_thread(CUBE) == (8, 0)
    limited_time, limited_cores = _kernel_time_and_cores(buf)
    assert (free_cores, limited_cores) == (24, 8)
    assert limited_time > 2.5 * free_time  # three waves instead of one
    assert acl.rt.reset_device_res_limit(0) == 0
    assert acl.rt.get_device_res_limit(0, CUBE) == (24, 0)
    assert _kernel_time_and_cores(buf)[1] == 24


def test_a_vector_core_limit_scales_to_the_core_pool(device0):
    buf, _ = acl.rt.malloc(64, 0)
    assert acl.rt.set_device_res_limit(0, VECTOR, 1) == 0
    assert acl.rt.get_res_in_current_thread(VECTOR) == (1, 0)
    assert _kernel_time_and_cores(buf)[1] == 1


def test_res_limit_refusals_are_107000_for_type_or_value_and_107001_for_the_device(device0):
    assert acl.rt.set_device_res_limit(0, 2, 1) == acl.ACL_ERROR_RT_PARAM_INVALID == 107000
    assert acl.rt.set_device_res_limit(0, CUBE, 0) == 107000
    assert acl.rt.set_device_res_limit(0, CUBE, 25) == 107000
    assert acl.rt.set_device_res_limit(64, CUBE, 1) == acl.ACL_ERROR_RT_INVALID_DEVICEID == 107001
    assert acl.rt.get_device_res_limit(0, 5) == (0, 107000)
    assert acl.rt.get_res_in_current_thread(-1) == (0, 107000)
    assert acl.rt.reset_device_res_limit(64) == 107001
    assert acl.rt.get_device_res_limit(0, CUBE) == (24, 0)  # the refusals changed nothing


def test_the_current_default_stream_is_a_handle_usable_as_a_stream(device0):
    stream, ret = acl.rt.ctx_get_current_default_stream()
    assert ret == 0 and stream != 0
    assert acl.rt.synchronize_stream(stream) == 0


def test_without_a_context_the_default_stream_and_thread_resources_are_107002(machine):
    acl.init()
    assert acl.rt.ctx_get_current_default_stream() == (0, acl.ACL_ERROR_RT_CONTEXT_NULL) == (0, 107002)
    assert acl.rt.get_res_in_current_thread(CUBE) == (0, 107002)


def test_device_status_is_normal_and_utilisation_counts_the_busy_cores(device0):
    assert acl.rt.query_device_status(0) == (acl.ACL_RT_DEVICE_STATUS_NORMAL, 0)
    assert acl.rt.query_device_status(64) == (0, 107001)
    buf, _ = acl.rt.malloc(64, 0)
    heavy[12, 0](buf)
    sandbox.host_work(ns=20_000)  # the host moves on while the kernel runs
    info, ret = acl.rt.get_device_utilization_rate(0)
    assert ret == 0 and info == {
        "cubeUtilization": 50,
        "vectorUtilization": 50,
        "aicpuUtilization": 0,
        "memoryUtilization": -1,
    }
    acl.rt.synchronize_device()
    assert acl.rt.get_device_utilization_rate(0)[0]["cubeUtilization"] == 0
