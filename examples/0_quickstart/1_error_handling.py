"""Port of example/0_quickstart/1_error_handling (hicann/runtime).

The official sample makes one call fail on purpose and reads the thread's diagnostics:
aclrtPeekAtLastError, aclrtGetLastError, aclGetRecentErrMsg and aclrtGetErrorVerbose, then reads
them again to show they were consumed.  The C program fails aclrtGetRunMode by passing a null
output pointer; pyACL returns outputs instead of taking pointers, so this port makes the same
kind of mistake with the one argument a learner can get wrong there: aclrtMalloc of 0 bytes,
which is refused with ACL_ERROR_INVALID_PARAM as well.
"""

import sys

from sandbox import acl


def info(message):
    print(f"[INFO]  {message}")


def check(ret, call):
    # the sample's CHECK_ACL_RETURN: report the call and the code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR] {call} failed: ret={ret}")
        sys.exit(1)


def safe_string(message):
    return message if message else "<null>"


def print_verbose_error_info(device_id):
    error_info, verbose_ret = acl.rt.get_error_verbose(device_id)
    if verbose_ret != acl.ACL_SUCCESS:
        print(f"[WARN]  aclrtGetErrorVerbose({device_id}) returned error code {verbose_ret}")
        return
    info(
        f"Verbose error info: errorType={error_info['errorType']}, tryRepair={error_info['tryRepair']}, "
        f"hasDetail={error_info['hasDetail']}"
    )


def main():
    device_id = 0

    # Initialize ACL and bind the current thread to a device.
    check(acl.init(), "aclInit(nullptr)")
    check(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)")
    info("ACL init and set device successfully")

    # Query the run mode before triggering an expected API failure.
    run_mode, ret = acl.rt.get_run_mode()
    check(ret, "aclrtGetRunMode(&runMode)")
    info(f"Current run mode: {'ACL_HOST' if run_mode == acl.ACL_HOST else 'ACL_DEVICE'}")

    # Collect thread-level diagnostics after an invalid-parameter call.
    info("Triggering an expected invalid-parameter error with aclrtMalloc(size 0)")
    _, expected_ret = acl.rt.malloc(0, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    if expected_ret == acl.ACL_SUCCESS:
        print("[WARN]  Expected aclrtMalloc(size 0) to fail, but it succeeded")
    else:
        peek_error = acl.rt.peek_at_last_error(acl.ACL_RT_THREAD_LEVEL)
        last_error = acl.rt.get_last_error(acl.ACL_RT_THREAD_LEVEL)
        recent_err_msg = acl.get_recent_err_msg()
        print(
            f"[ERROR] Diagnostics: ret={expected_ret}, peekErr={peek_error}, lastErr={last_error}, "
            f"recentErrMsg={safe_string(recent_err_msg)}"
        )
        print_verbose_error_info(device_id)

        # Read the diagnostics again to show the consumed state.
        cleared_peek = acl.rt.peek_at_last_error(acl.ACL_RT_THREAD_LEVEL)
        cleared_last = acl.rt.get_last_error(acl.ACL_RT_THREAD_LEVEL)
        cleared_err_msg = acl.get_recent_err_msg()
        info(
            f"After diagnostics are consumed once: peekErr={cleared_peek}, lastErr={cleared_last}, "
            f"recentErrMsg={safe_string(cleared_err_msg)}"
        )

    # Release ACL resources.
    check(acl.rt.reset_device_force(device_id), "aclrtResetDeviceForce(deviceId)")
    check(acl.finalize(), "aclFinalize()")
    info("ACL finalize successfully")


if __name__ == "__main__":
    main()
