"""Port of example/4_reliability/overflow_detection/0_overflow_detection (hicann/runtime).

The official sample reads the device's floating-point overflow mode (Inf/NaN on an Atlas A2,
the sandbox's default 910B), switches it to saturation, creates a stream (which takes the mode
in force when it is made), turns on the stream's overflow switch and reads it back, then reads
the 64-byte overflow status into device memory twice, before and after aclrtResetOverflowStatus,
each time looking at its first 32-bit word.  At the end it puts the original mode back.

The sample launches no kernel, so nothing overflows and both readings are 0, as its README
shows.  A kernel on that stream whose arithmetic overflowed would set the status to 1 and, in
saturation mode, have its results saturate instead of becoming inf (tests/features/test_overflow.py).
Where a call answers 207000 ACL_ERROR_RT_FEATURE_NOT_SUPPORT, the sample warns and stops after
cleaning up, and so does the port.  On the sandbox's 310P and 310B (saturation only, no stream
switch) every call succeeds: the mode is saturation from the start, the switch is kept nowhere,
and the switch reads 1 on the 310P (no STARS scheduler), 0 on the 310B.
"""

import numpy as np

from sandbox import acl

OVERFLOW_STATUS_BUFFER_SIZE = 64
MODE_NAMES = {
    acl.ACL_RT_OVERFLOW_MODE_SATURATION: "ACL_RT_OVERFLOW_MODE_SATURATION",
    acl.ACL_RT_OVERFLOW_MODE_INFNAN: "ACL_RT_OVERFLOW_MODE_INFNAN",
    acl.ACL_RT_OVERFLOW_MODE_UNDEF: "ACL_RT_OVERFLOW_MODE_UNDEF",
}


def info(text):
    print(f"[INFO]  {text}")


def warn(text):
    print(f"[WARN]  {text}")


def error(text):
    print(f"[ERROR]  {text}")


class Failed(Exception):
    """CHECK_ERROR returned -1 from the sample's lambda."""


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then leave
    if ret != acl.ACL_SUCCESS:
        error(f"Operation failed: {what} returned error code {ret}")
        raise Failed(what)


def overflow_mode_to_string(mode):
    return MODE_NAMES.get(mode, "ACL_RT_OVERFLOW_MODE_UNKNOWN")


def read_overflow_flag(status_host):
    # the first four bytes of the status, as a uint32
    return int(status_host[:4].view(np.uint32)[0])


def handle_optional_overflow_ret(api_name, ret, reason):
    """0: success; 1: the feature is missing here (a warning); -1: any other failure."""
    if ret == acl.ACL_SUCCESS:
        return 0
    if ret == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT:
        warn(f"{api_name} is unavailable in the current environment (ret={ret}): {reason}")
        return 1
    error(f"Operation failed: {api_name} returned error code {ret}")
    return -1


def read_status(state, status_host):
    check(
        acl.rt.get_overflow_status(state["status_device"], OVERFLOW_STATUS_BUFFER_SIZE, state["stream"]),
        "aclrtGetOverflowStatus(statusDevice, kOverflowStatusBufferSize, stream)",
    )
    check(acl.rt.synchronize_stream(state["stream"]), "aclrtSynchronizeStream(stream)")
    check(
        acl.rt.memcpy(
            acl.util.numpy_to_ptr(status_host),
            status_host.nbytes,
            state["status_device"],
            OVERFLOW_STATUS_BUFFER_SIZE,
            acl.ACL_MEMCPY_DEVICE_TO_HOST,
        ),
        "aclrtMemcpy(statusHost, sizeof(statusHost), statusDevice, kOverflowStatusBufferSize, "
        "ACL_MEMCPY_DEVICE_TO_HOST)",
    )
    return read_overflow_flag(status_host)


def run(state, device_id):
    check(acl.init(), "aclInit(nullptr)")
    state["acl_initialized"] = True
    check(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)")
    state["device_set"] = True
    state["context"], ret = acl.rt.create_context(device_id)
    check(ret, "aclrtCreateContext(&context, deviceId)")

    state["original_mode"], ret = acl.rt.get_device_sat_mode()
    status = handle_optional_overflow_ret(
        "aclrtGetDeviceSatMode(&originalMode)", ret, "the current device/runtime does not expose device saturation mode"
    )
    if status < 0:
        return -1
    if status > 0:
        warn("Overflow detection is unavailable in the current environment, sample finished after probing.")
        return 0

    status = handle_optional_overflow_ret(
        "aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION)",
        acl.rt.set_device_sat_mode(acl.ACL_RT_OVERFLOW_MODE_SATURATION),
        "stream overflow detection requires saturation mode and is only supported on specific products/runtime builds",
    )
    if status < 0:
        return -1
    if status > 0:
        warn("Overflow detection is unavailable in the current environment, sample finished after probing.")
        return 0
    state["mode_changed"] = True

    current_mode, ret = acl.rt.get_device_sat_mode()
    check(ret, "aclrtGetDeviceSatMode(&currentMode)")
    info(
        f"Device saturation mode switched from {overflow_mode_to_string(state['original_mode'])} to "
        f"{overflow_mode_to_string(current_mode)}."
    )

    state["stream"], ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream)")

    status = handle_optional_overflow_ret(
        "aclrtSetStreamOverflowSwitch(stream, 1)",
        acl.rt.set_stream_overflow_switch(state["stream"], 1),
        "the current environment does not expose stream-level overflow detection even in saturation mode",
    )
    if status < 0:
        return -1
    if status > 0:
        warn("Stream overflow detection is unavailable in the current environment, sample finished after probing.")
        return 0

    queried_switch, ret = acl.rt.get_stream_overflow_switch(state["stream"])
    check(ret, "aclrtGetStreamOverflowSwitch(stream, &queriedSwitch)")
    info(f"Overflow switch={queried_switch}")

    state["status_device"], ret = acl.rt.malloc(OVERFLOW_STATUS_BUFFER_SIZE, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc(&statusDevice, kOverflowStatusBufferSize, ACL_MEM_MALLOC_HUGE_FIRST)")

    status_host = np.zeros(OVERFLOW_STATUS_BUFFER_SIZE, dtype=np.uint8)
    info(f"Overflow status before reset={read_status(state, status_host)}")

    check(acl.rt.reset_overflow_status(state["stream"]), "aclrtResetOverflowStatus(stream)")
    check(acl.rt.synchronize_stream(state["stream"]), "aclrtSynchronizeStream(stream)")

    status_host[:] = 0
    info(f"Overflow status after reset={read_status(state, status_host)}")
    return 0


def cleanup(state, device_id, result):
    """The sample's releases, each checked, in its order."""
    steps = [
        ("status_device", lambda: acl.rt.free(state["status_device"]), "aclrtFree(statusDevice)"),
        (
            "mode_changed",
            lambda: acl.rt.set_device_sat_mode(state["original_mode"]),
            "aclrtSetDeviceSatMode(originalMode)",
        ),
        ("stream", lambda: acl.rt.destroy_stream(state["stream"]), "aclrtDestroyStream(stream)"),
        ("context", lambda: acl.rt.destroy_context(state["context"]), "aclrtDestroyContext(context)"),
        ("device_set", lambda: acl.rt.reset_device_force(device_id), "aclrtResetDeviceForce(deviceId)"),
        ("acl_initialized", acl.finalize, "aclFinalize()"),
    ]
    for key, release, what in steps:
        if state.get(key):
            ret = release()
            if ret != acl.ACL_SUCCESS:
                error(f"Operation failed: {what} returned error code {ret}")
                result = -1
    return result


def main():
    device_id = 0
    state = {}
    try:
        result = run(state, device_id)
    except Failed:
        result = -1
    result = cleanup(state, device_id, result)
    if result == 0:
        info("Overflow detection sample finished successfully.")
    return result


if __name__ == "__main__":
    raise SystemExit(0 if main() == 0 else 1)
