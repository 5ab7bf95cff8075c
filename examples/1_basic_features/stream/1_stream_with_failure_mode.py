"""Port of example/1_basic_features/stream/1_stream_with_failure_mode (hicann/runtime).

Three kernels on one stream (add 1, trap, add 1), first in the default continue-on-failure mode
(both additions happen: 2), then after aclrtSetStreamFailureMode(ACL_STOP_ON_FAILURE) (the task
after the trap is discarded: 1).  On A2/A3 stop-on-failure covers the whole context, which stays
stopped: every later synchronize of its streams returns the failure's code, and new tasks are
refused.  Then aclrtStreamStop on a device-use-only stream and aclrtStreamAbort on a plain one,
each after a long kernel (which the stopped context refuses, as on the device).

The AscendC ErrorOP executes a trap instruction on a vector core, which the A2 device reports as
507035 ACL_ERROR_RT_VECTOR_CORE_EXCEPTION; the port's error kernel arms an injected
``kernel_trap`` fault with that code for itself (a Python kernel that raises would be 507015).
The stream state callback prints the stream's handle where the C program prints its pointer.

The README's sample output leaves out the lines the program prints in the stop/abort
demonstrations ("Launching a long task ...", the results of aclrtFree and
aclrtDestroyStreamForce) and the stream state callback's lines (one per stream made or
destroyed: the default streams of aclrtSetDevice and aclrtCreateContext, and each created
stream); this port prints what the program prints.
"""

import sys

import numpy as np

import sandbox
from sandbox import acl


def info(text):
    print(f"[INFO]  {text}")


def warn(text):
    print(f"[WARN]  {text}")


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR]  Operation failed: {what} returned error code {ret}")
        sys.exit(1)


def check_without_return(ret, what):
    # CHECK_ERROR_WITHOUT_RETURN: name the call and its code, go on
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR]  Operation failed: {what} returned error code {ret}")


# The kernels of kernel_func/: EasyOP adds 1, LongOP adds 1 slowly, ErrorOP traps.
@sandbox.kernel(ns=2_000, writes=("x",))
def easy_kernel(x: sandbox.ptr(np.uint32, count=1)):
    x[0] += 1


@sandbox.kernel(ns=10_000_000, writes=("x",))
def long_kernel(x: sandbox.ptr(np.uint32, count=1)):
    x[0] += 1


@sandbox.kernel(ns=2_000)
def error_kernel():
    pass  # the trap itself is the fault armed by error_op


def easy_op(block_dim, stream, x):
    easy_kernel[block_dim, stream](x)


def long_op(block_dim, stream, x):
    long_kernel[block_dim, stream](x)


def error_op(block_dim, stream):
    sandbox.inject_fault("kernel_trap", stream=stream, code=acl.ACL_ERROR_RT_VECTOR_CORE_EXCEPTION)
    error_kernel[block_dim, stream]()


def stream_state_callback(stream, state, args):
    sample_name = "stream_failure_mode" if args is None else args
    info(f"Stream state callback from {sample_name}: stream={stream:#x} state={state}")


def log_optional_result(api_name, ret):
    if ret == acl.ACL_SUCCESS:
        info(f"{api_name} returned {ret}.")
    else:
        warn(f"{api_name} returned {ret}.")


def log_abort_sync_result(ret):
    if ret == acl.ACL_SUCCESS:
        info(f"aclrtSynchronizeStream(after abort) returned {ret}.")
    else:
        info(f"aclrtSynchronizeStream(after abort) returned {ret} after stream abort, which is expected.")


def free_optional_buffer(buffer, name):
    if buffer:
        log_optional_result(name, acl.rt.free(buffer))


def destroy_optional_stream(stream, name):
    if stream:
        log_optional_result(name, acl.rt.destroy_stream_force(stream))


def prepare_scratch_buffer(size, demo_name):
    scratch, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    if ret != acl.ACL_SUCCESS:
        warn(f"Skip {demo_name} demo: aclrtMalloc returned {ret}.")
        return None
    zero = np.zeros(1, dtype=np.uint32)
    ret = acl.rt.memcpy(scratch, size, acl.util.numpy_to_ptr(zero), size, acl.ACL_MEMCPY_HOST_TO_DEVICE)
    if ret != acl.ACL_SUCCESS:
        warn(f"Skip {demo_name} demo: aclrtMemcpy returned {ret}.")
        log_optional_result("aclrtFree(scratch)", acl.rt.free(scratch))
        return None
    return scratch


def demonstrate_stream_stop():
    scratch_size = 4  # sizeof(uint32_t)
    block_dim = 1
    stop_stream, ret = acl.rt.create_stream_with_config(0, acl.ACL_STREAM_DEVICE_USE_ONLY)
    if ret != acl.ACL_SUCCESS:
        warn(f"Skip aclrtStreamStop demo: aclrtCreateStreamWithConfig returned {ret}.")
        return
    stop_scratch = prepare_scratch_buffer(scratch_size, "aclrtStreamStop")
    if stop_scratch is None:
        destroy_optional_stream(stop_stream, "aclrtDestroyStreamForce(stopStream)")
        return

    info("Launching a long task on the device-use-only stream before aclrtStreamStop.")
    long_op(block_dim, stop_stream, stop_scratch)
    log_optional_result("aclrtStreamStop", acl.rt.stream_stop(stop_stream))
    log_optional_result("aclrtSynchronizeStream(after stop)", acl.rt.synchronize_stream(stop_stream))

    free_optional_buffer(stop_scratch, "aclrtFree(stopScratch)")
    destroy_optional_stream(stop_stream, "aclrtDestroyStreamForce(stopStream)")


def demonstrate_stream_abort():
    scratch_size = 4
    block_dim = 1
    abort_stream, ret = acl.rt.create_stream()
    if ret != acl.ACL_SUCCESS:
        warn(f"Skip aclrtStreamAbort demo: aclrtCreateStream returned {ret}.")
        return
    abort_scratch = prepare_scratch_buffer(scratch_size, "aclrtStreamAbort")
    if abort_scratch is None:
        destroy_optional_stream(abort_stream, "aclrtDestroyStreamForce(abortStream)")
        return

    info("Launching a long task on the regular stream before aclrtStreamAbort.")
    long_op(block_dim, abort_stream, abort_scratch)
    log_optional_result("aclrtStreamAbort", acl.rt.stream_abort(abort_stream))
    log_abort_sync_result(acl.rt.synchronize_stream(abort_stream))

    free_optional_buffer(abort_scratch, "aclrtFree(abortScratch)")
    destroy_optional_stream(abort_stream, "aclrtDestroyStreamForce(abortStream)")


def demonstrate_stop_and_abort():
    demonstrate_stream_stop()
    demonstrate_stream_abort()
    return 0


def main():
    device_id = 0
    block_dim = 1
    num = np.zeros(1, dtype=np.uint32)
    size = num.nbytes
    callback_tag = "stream_failure_mode_sample"

    check(acl.init(), "aclInit(nullptr)")
    check(
        acl.rt.reg_stream_state_callback("stream_failure_mode_sample", stream_state_callback, callback_tag),
        "aclrtRegStreamStateCallback(...)",
    )
    check(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)")
    context, ret = acl.rt.create_context(device_id)
    check(ret, "aclrtCreateContext(&context, deviceId)")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream)")
    num_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc(...)")
    num_ptr = acl.util.numpy_to_ptr(num)
    check(acl.rt.memcpy(num_device, size, num_ptr, size, acl.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy(...)")

    info("Assigning task without failure mode.")
    easy_op(block_dim, stream, num_device)
    error_op(block_dim, stream)
    easy_op(block_dim, stream, num_device)
    check_without_return(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
    check(acl.rt.memcpy(num_ptr, size, num_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy(...)")
    info(f"Without failure mode, the result is {num[0]}.")

    num[0] = 0
    check(acl.rt.memcpy(num_device, size, num_ptr, size, acl.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy(...)")
    check(acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE), "aclrtSetStreamFailureMode(...)")
    info("Assigning task with failure mode.")
    easy_op(block_dim, stream, num_device)
    error_op(block_dim, stream)
    easy_op(block_dim, stream, num_device)
    check_without_return(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
    check(acl.rt.memcpy(num_ptr, size, num_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy(...)")
    info(f"After set failure mode, the current result is: {num[0]}.")

    check(demonstrate_stop_and_abort(), "DemonstrateStopAndAbort()")

    check(acl.rt.free(num_device), "aclrtFree(numDevice)")
    check(acl.rt.destroy_stream_force(stream), "aclrtDestroyStreamForce(stream)")
    check(acl.rt.destroy_context(context), "aclrtDestroyContext(context)")
    check(
        acl.rt.reg_stream_state_callback("stream_failure_mode_sample", None, None), "aclrtRegStreamStateCallback(...)"
    )
    check(acl.rt.reset_device_force(device_id), "aclrtResetDeviceForce(deviceId)")
    acl.finalize()
    info("Resource cleanup completed.")
    info("Run the stream_with_failure_mode sample successfully.")


if __name__ == "__main__":
    main()
