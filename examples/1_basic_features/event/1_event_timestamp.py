"""Port of example/1_basic_features/event/1_event_timestamp (hicann/runtime).

Two events recorded around a short kernel (ShortOP: x *= 2) and then around a long one
(LongOP: x += 1): their timestamps (aclrtEventGetTimestamp, us since the device booted; the
sandbox's device boots at t = 0) and the elapsed time between them.  The official README
prints "Begin a short task." twice; its program prints "Begin a long task." the second time,
and so does this port.  The times are the sandbox's (the kernels' declared durations).
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


# LongOP's kernel: x += 1, slowly (10 ms of device time).
@sandbox.kernel(ns=10_000_000, writes=("x",))
def long_kernel(x: sandbox.ptr(np.uint32, count=1)):
    x[0] += 1


# ShortOP's kernel: x *= 2, quickly (20 us).
@sandbox.kernel(ns=20_000, writes=("x",))
def short_kernel(x: sandbox.ptr(np.uint32, count=1)):
    x[0] *= 2


def long_op(block_dim, stream, x):
    return long_kernel[block_dim, stream](x)


def short_op(block_dim, stream, x):
    return short_kernel[block_dim, stream](x)


def main():
    device_id = 0
    block_dim = 1
    num = np.zeros(1, dtype=np.uint32)  # uint32_t num = 0, on the host
    size = num.nbytes
    check(acl.init(), "aclInit(nullptr)")

    check(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)")
    context, ret = acl.rt.create_context(device_id)
    check(ret, "aclrtCreateContext(&context, deviceId)")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream)")
    check(
        acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE),
        "aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE)",
    )
    start_event, ret = acl.rt.create_event()
    check(ret, "aclrtCreateEvent(&startEvent)")
    end_event, ret = acl.rt.create_event()
    check(ret, "aclrtCreateEvent(&endEvent)")

    # A short task first: a record before it and one after it bracket its time.
    num_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc((void**)&numDevice, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    check(
        acl.rt.memcpy(num_device, size, acl.util.numpy_to_ptr(num), size, acl.ACL_MEMCPY_HOST_TO_DEVICE),
        "aclrtMemcpy(numDevice, size, &num, size, ACL_MEMCPY_HOST_TO_DEVICE)",
    )
    info("Begin a short task.")
    check(acl.rt.record_event(start_event, stream), "aclrtRecordEvent(startEvent, stream)")
    short_op(block_dim, stream, num_device)
    check(acl.rt.record_event(end_event, stream), "aclrtRecordEvent(endEvent, stream)")
    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
    check(
        acl.rt.memcpy(acl.util.numpy_to_ptr(num), size, num_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST),
        "aclrtMemcpy(&num, size, numDevice, size, ACL_MEMCPY_DEVICE_TO_HOST)",
    )
    info(f"After completing the short task, the answer is {num[0]}.")
    info("After synchronize, check the time.")

    # The timestamps and the time between them
    time, ret = acl.rt.event_get_timestamp(start_event)
    check(ret, "aclrtEventGetTimestamp(startEvent, &time)")
    info(f"Start event timestamp: {time}.")
    time, ret = acl.rt.event_get_timestamp(end_event)
    check(ret, "aclrtEventGetTimestamp(endEvent, &time)")
    info(f"End event timestamp: {time}.")
    use_time, ret = acl.rt.event_elapsed_time(start_event, end_event)
    check(ret, "aclrtEventElapsedTime(&useTime, startEvent, endEvent)")
    info(f"The short task consume time {use_time:f} ms.")
    check(acl.rt.free(num_device), "aclrtFree(numDevice)")

    # Then a long task.
    num_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc((void**)&numDevice, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    check(
        acl.rt.memcpy(num_device, size, acl.util.numpy_to_ptr(num), size, acl.ACL_MEMCPY_HOST_TO_DEVICE),
        "aclrtMemcpy(numDevice, size, &num, size, ACL_MEMCPY_HOST_TO_DEVICE)",
    )
    info("Begin a long task.")
    check(acl.rt.record_event(start_event, stream), "aclrtRecordEvent(startEvent, stream)")
    long_op(block_dim, stream, num_device)
    check(acl.rt.record_event(end_event, stream), "aclrtRecordEvent(endEvent, stream)")
    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
    check(
        acl.rt.memcpy(acl.util.numpy_to_ptr(num), size, num_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST),
        "aclrtMemcpy(&num, size, numDevice, size, ACL_MEMCPY_DEVICE_TO_HOST)",
    )
    info(f"After completing the long task, the answer is {num[0]}.")
    info("After synchronize, check the time.")

    time, ret = acl.rt.event_get_timestamp(start_event)
    check(ret, "aclrtEventGetTimestamp(startEvent, &time)")
    info(f"Start event timestamp: {time}.")
    time, ret = acl.rt.event_get_timestamp(end_event)
    check(ret, "aclrtEventGetTimestamp(endEvent, &time)")
    info(f"End event timestamp: {time}.")
    use_time, ret = acl.rt.event_elapsed_time(start_event, end_event)
    check(ret, "aclrtEventElapsedTime(&useTime, startEvent, endEvent)")
    info(f"The short task consume time {use_time:f} ms.")

    # Release everything.
    check(acl.rt.free(num_device), "aclrtFree(numDevice)")
    check(acl.rt.destroy_event(start_event), "aclrtDestroyEvent(startEvent)")
    check(acl.rt.destroy_event(end_event), "aclrtDestroyEvent(endEvent)")
    check(acl.rt.destroy_stream_force(stream), "aclrtDestroyStreamForce(stream)")
    check(acl.rt.destroy_context(context), "aclrtDestroyContext(context)")
    check(acl.rt.reset_device_force(device_id), "aclrtResetDeviceForce(deviceId)")
    acl.finalize()
    info("Resource cleanup completed.")


if __name__ == "__main__":
    main()
