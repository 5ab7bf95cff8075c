"""Port of example/1_basic_features/event/0_event_status (hicann/runtime).

An event's status after creation, after a record that follows a long kernel (LongOP: adds 1
to a device counter, slowly), and after aclrtSynchronizeEvent: 0 is
ACL_EVENT_RECORDED_STATUS_NOT_READY, 1 ACL_EVENT_RECORDED_STATUS_COMPLETE.
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


# LongOP's kernel: x += 1, taking a long time (here 10 ms of device time).
@sandbox.kernel(ns=10_000_000, writes=("x",))
def long_kernel(x: sandbox.ptr(np.uint32, count=1)):
    x[0] += 1


def long_op(block_dim, stream, x):
    return long_kernel[block_dim, stream](x)


def main():
    device_id = 0
    block_dim = 1
    num = np.zeros(1, dtype=np.uint32)  # uint32_t num = 0, on the host
    size = num.nbytes
    acl.init()

    check(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)")
    context, ret = acl.rt.create_context(device_id)
    check(ret, "aclrtCreateContext(&context, deviceId)")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream)")

    # Continue-on-failure is the default; stop-on-failure skips the tasks after a failed one.
    check(
        acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE),
        "aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE)",
    )
    event, ret = acl.rt.create_event()
    check(ret, "aclrtCreateEvent(&event)")

    # The status right after creation
    event_status, ret = acl.rt.query_event_status(event)
    check(ret, "aclrtQueryEventStatus(event, &eventStatus)")
    info(f"After create event, current event status is {event_status}.")

    # The long task
    num_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc((void**)&numDevice, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    check(
        acl.rt.memcpy(num_device, size, acl.util.numpy_to_ptr(num), size, acl.ACL_MEMCPY_HOST_TO_DEVICE),
        "aclrtMemcpy(numDevice, size, &num, size, ACL_MEMCPY_HOST_TO_DEVICE)",
    )
    info("Applied resource successfully, begin assigning task.")
    info("Begin a long task.")
    long_op(block_dim, stream, num_device)
    check(acl.rt.record_event(event, stream), "aclrtRecordEvent(event, stream)")

    # The status before a synchronize
    event_status, ret = acl.rt.query_event_status(event)
    check(ret, "aclrtQueryEventStatus(event, &eventStatus)")
    info("0 is incompleted, 1 is completed.")
    info(f"After record but before synchronize, current event status is {event_status}.")

    # The status after it
    check(acl.rt.synchronize_event(event), "aclrtSynchronizeEvent(event)")
    event_status, ret = acl.rt.query_event_status(event)
    check(ret, "aclrtQueryEventStatus(event, &eventStatus)")
    info(f"After synchronize, current event status is {event_status}.")
    check(
        acl.rt.memcpy(acl.util.numpy_to_ptr(num), size, num_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST),
        "aclrtMemcpy(&num, size, numDevice, size, ACL_MEMCPY_DEVICE_TO_HOST)",
    )
    info(f"The answer is {num[0]}.")

    # Release everything.
    check(acl.rt.free(num_device), "aclrtFree(numDevice)")
    check(acl.rt.destroy_event(event), "aclrtDestroyEvent(event)")
    check(acl.rt.destroy_stream_force(stream), "aclrtDestroyStreamForce(stream)")
    check(acl.rt.destroy_context(context), "aclrtDestroyContext(context)")
    check(acl.rt.reset_device_force(device_id), "aclrtResetDeviceForce(deviceId)")
    acl.finalize()
    info("Resource cleanup completed.")


if __name__ == "__main__":
    main()
