"""Device resources: core limits, the current default stream, device status and utilisation.

Rules (hicann/runtime acl_rt.h; docs/zh/api_ref/03_runtime_configuration.md, 04_device_management.md,
05_context_management.md; src/runtime/api/impl/api_error.cc for the codes):

* ``aclrtSetDeviceResLimit(deviceId, type, value)``: the process's limit on a device's cube (type 0)
  or vector (1) cores; the last call wins, for kernels launched (or captured) afterwards.
  ``aclrtGetDeviceResLimit`` reads it (else the hardware figure), ``aclrtResetDeviceResLimit``
  drops both.  A type outside [0, 2) is 107000, a bad device id 107001; sandbox choice: a value
  of 0 or above the hardware figure is 107000.
* ``aclrtGetResInCurrentThread(type)``: the process's limit on the thread's current device, else
  the hardware figure (stream limits are not modelled); 107002 without a context, 107000 bad type.
* Timing: the kernels run on one pool of AI cores (the cube cores on A2); a launch takes at most
  the cube limit and the vector limit scaled to the pool (value * ai_cores // vector_cores, >= 1).
* ``aclrtCtxGetCurrentDefaultStream()``: the current context's default stream handle (107002).
* ``aclrtQueryDeviceStatus(deviceId)``: NORMAL (the sandbox's devices do not go down); 107001.
* ``aclrtGetDeviceUtilizationRate(deviceId)``: the percentage of the device's AI cores busy at
  the caller's time as cube and vector figures (vector -1 without vector cores); AI CPU 0 (none
  is modelled) and memory -1 (as the docs say of this version).
"""
from __future__ import annotations

from .. import constants as C
from ..errors import ACL_ERROR_RT_PARAM_INVALID, fail

KINDS = {C.ACL_RT_DEV_RES_CUBE_CORE: "cube", C.ACL_RT_DEV_RES_VECTOR_CORE: "vector"}


def _type(res_type) -> int:
    if res_type not in KINDS:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"type must be ACL_RT_DEV_RES_CUBE_CORE (0) or ACL_RT_DEV_RES_VECTOR_CORE "
             f"(1), got {res_type}")
    return res_type


def hardware(m, res_type: int) -> int:
    return m.profile.cube_cores if res_type == C.ACL_RT_DEV_RES_CUBE_CORE else m.profile.vector_cores


class ResLimits:
    """One machine's process limits: (pid, device) -> {type: value}."""

    def __init__(self, m):
        self.by_process: dict[tuple[int, int], dict[int, int]] = {}


def _limits(m) -> dict:
    return m.feature(ResLimits).by_process


def set_limit(m, th, device_id, res_type, value) -> None:
    m.device(device_id)
    _type(res_type)
    top = hardware(m, res_type)
    if not 1 <= value <= top:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"value must be 1..{top} {KINDS[res_type]} cores of a "
             f"{m.profile.soc_name}, got {value}")
    _limits(m).setdefault((th.process.pid, device_id), {})[res_type] = value


def get_limit(m, th, device_id, res_type) -> int:
    m.device(device_id)
    _type(res_type)
    return _limits(m).get((th.process.pid, device_id), {}).get(res_type, hardware(m, res_type))


def reset_limit(m, th, device_id) -> None:
    m.device(device_id)
    _limits(m).pop((th.process.pid, device_id), None)


def in_current_thread(m, th, res_type) -> int:
    return get_limit(m, th, m.current_context(th).device, _type(res_type))


def core_limit(m, th, device: int) -> int:
    """The most AI cores a kernel launched now by ``th`` on ``device`` may take (0: no limit)."""
    limits = m.feature_in_use(ResLimits)
    mine = limits.by_process.get((th.process.pid, device)) if limits is not None else None
    if not mine:
        return 0
    p = m.profile
    cube = mine.get(C.ACL_RT_DEV_RES_CUBE_CORE, p.ai_cores)
    vector = mine.get(C.ACL_RT_DEV_RES_VECTOR_CORE)
    if vector is not None and p.vector_cores:
        cube = min(cube, max(1, vector * p.ai_cores // p.vector_cores))
    return cube


def device_status(m, th, device_id) -> int:
    m.device(device_id)
    return C.ACL_RT_DEVICE_STATUS_NORMAL


def utilization(m, th, device_id) -> dict:
    pool = m.device(device_id).aicore
    busy = pool.running * 100 // pool.cores
    return {"cubeUtilization": busy, "vectorUtilization": busy if m.profile.vector_cores else -1,
            "aicpuUtilization": 0, "memoryUtilization": -1}
