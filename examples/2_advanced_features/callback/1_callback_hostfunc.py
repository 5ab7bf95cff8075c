"""Port of example/2_advanced_features/callback/1_callback_hostfunc (hicann/runtime).

A kernel (EasyOP: x += 1) and then a host function on the same stream: aclrtLaunchHostFunc
runs it on the runtime's own thread once the kernel is done; no subscription is needed.
"""

import sys

import numpy as np

import sandbox
from sandbox import acl


def info(text):
    print(f"[INFO]  {text}")


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR]  Operation failed: {what} returned error code {ret}")
        sys.exit(1)


# EasyOP's kernel: x += 1 (one block).
@sandbox.kernel(ns=2_000, writes=("x",))
def easy_kernel(x: sandbox.ptr(np.uint32, count=1)):
    x[0] += 1


def easy_op(block_dim, stream, x):
    return easy_kernel[block_dim, stream](x)


def call_back_func(arg):
    info("Hostfunc callback!!!")


def main():
    device_id = 0
    num = np.zeros(1, dtype=np.uint32)  # uint32_t num = 0, on the host
    size = num.nbytes
    block_dim = 1
    check(acl.init(), "aclInit(nullptr)")
    check(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)")
    context, ret = acl.rt.create_context(device_id)
    check(ret, "aclrtCreateContext(&context, deviceId)")
    num_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc((void**)&numDevice, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    check(
        acl.rt.memcpy(num_device, size, acl.util.numpy_to_ptr(num), size, acl.ACL_MEMCPY_HOST_TO_DEVICE),
        "aclrtMemcpy(numDevice, size, &num, size, ACL_MEMCPY_HOST_TO_DEVICE)",
    )
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream)")
    # Continue-on-failure is the default; stop-on-failure skips the tasks after a failed one.
    check(
        acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE),
        "aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE)",
    )
    easy_op(block_dim, stream, num_device)
    # The runtime makes the thread that runs the host function: nothing to subscribe.
    check(acl.rt.launch_host_func(stream, call_back_func, None), "aclrtLaunchHostFunc(stream, CallBackFunc, nullptr)")
    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
    check(
        acl.rt.memcpy(acl.util.numpy_to_ptr(num), size, num_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST),
        "aclrtMemcpy(&num, size, numDevice, size, ACL_MEMCPY_DEVICE_TO_HOST)",
    )
    info(f"After assigning the task through the created stream, the current result is: {num[0]}.")
    # Release everything.
    check(acl.rt.free(num_device), "aclrtFree(numDevice)")
    check(acl.rt.destroy_stream_force(stream), "aclrtDestroyStreamForce(stream)")
    check(acl.rt.destroy_context(context), "aclrtDestroyContext(context)")
    check(acl.rt.reset_device_force(device_id), "aclrtResetDeviceForce(deviceId)")
    acl.finalize()
    info("Resource cleanup completed.")


if __name__ == "__main__":
    main()
