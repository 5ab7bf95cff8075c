"""Port of example/1_basic_features/stream/2_multi_stream (hicann/runtime).

Three ways to make a short kernel on stream2 (ShortOP: x *= 2) run after a long one on stream1
(LongOP: x += 1), so that x goes 0 -> 1 -> 2: synchronize stream1 on the host; record an event on
stream1 and make stream2 wait for it; record a notify on stream1 and make stream2 wait for it
and reset it.  The stream and event parts then give a second LongOP a 1000 ms timeout, which it
outlasts: aclrtSynchronizeStreamWithTimeout answers 507046, aclrtSynchronizeEventWithTimeout 507047.

After those timeouts the sample frees the counter while the second LongOP still runs (aclrtFree
does not wait for queued work): the sandbox reports that free as a hazard (free_in_use).  The
port keeps the sample's calls and takes that one expected report off stderr
(``free_after_timeout``); it stays in the trace (``sandbox.hazards()``).
"""

import warnings

import numpy as np

import sandbox
from sandbox import acl

WAIT_TIME_MS = 1000
DEVICE_ID = 0
BLOCK_DIM = 1


def info(text):
    print(f"[INFO]  {text}")


def error(text):
    print(f"[ERROR]  {text}")


class Failed(Exception):
    """CHECK_ERROR returned -1 from the function."""


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then leave the function
    if ret != acl.ACL_SUCCESS:
        error(f"Operation failed: {what} returned error code {ret}")
        raise Failed(what)


def check_without_return(ret, what):
    # CHECK_ERROR_WITHOUT_RETURN: name the call and its code, and go on
    if ret != acl.ACL_SUCCESS:
        error(f"Operation failed: {what} returned error code {ret}")


# LongOP's kernel: x += 1 after a long computation (here 2 s of device time, longer than the
# 1000 ms timeout, as the sample's output shows).
@sandbox.kernel(ns=2_000_000_000, writes=("x",))
def long_kernel(x: sandbox.ptr(np.uint32, count=1)):
    x[0] += 1


# ShortOP's kernel: x *= 2.
@sandbox.kernel(ns=2_000)
def short_kernel(x: sandbox.ptr(np.uint32, count=1)):
    x[0] *= 2


def free_after_timeout(num_device):
    """aclrtFree(numDevice) right after the timed-out wait: the one hazard the sample has."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", sandbox.HazardWarning)
        check(acl.rt.free(num_device), "aclrtFree(numDevice)")
    assert len(caught) == 1 and sandbox.hazards()[-1].kind == "free_in_use", caught


def long_op(block_dim, stream, x):
    return long_kernel[block_dim, stream](x)


def short_op(block_dim, stream, x):
    return short_kernel[block_dim, stream](x)


def setup():
    """aclInit, the device, a context, two stop-on-failure streams (the start of each function)."""
    acl.init()
    check(acl.rt.set_device(DEVICE_ID), "aclrtSetDevice(kDeviceId)")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "aclrtCreateContext(&context, kDeviceId)")
    stream1, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream1)")
    stream2, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream2)")
    return context, stream1, stream2


def stop_on_failure(stream1, stream2):
    # Continue-on-failure is the default; stop-on-failure skips the tasks after a failed one.
    check(
        acl.rt.set_stream_failure_mode(stream1, acl.ACL_STOP_ON_FAILURE),
        "aclrtSetStreamFailureMode(stream1, ACL_STOP_ON_FAILURE)",
    )
    check(
        acl.rt.set_stream_failure_mode(stream2, acl.ACL_STOP_ON_FAILURE),
        "aclrtSetStreamFailureMode(stream2, ACL_STOP_ON_FAILURE)",
    )


def start_counter(num, size):
    """Device memory for the counter, set to 0 from the host."""
    num_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc((void**)&numDevice, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    check(
        acl.rt.memcpy(num_device, size, acl.util.numpy_to_ptr(num), size, acl.ACL_MEMCPY_HOST_TO_DEVICE),
        "aclrtMemcpy(numDevice, size, &num, size, ACL_MEMCPY_HOST_TO_DEVICE)",
    )
    info("Applied resource successfully, begin assigning task.")
    return num_device


def read_answer(num, size, num_device):
    check(
        acl.rt.memcpy(acl.util.numpy_to_ptr(num), size, num_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST),
        "aclrtMemcpy(&num, size, numDevice, size, ACL_MEMCPY_DEVICE_TO_HOST)",
    )
    # In order, the answer is (0 + 1) * 2 = 2.
    info(f"The answer is {num[0]}.")


def teardown(context, stream1, stream2):
    check(acl.rt.destroy_stream_force(stream1), "aclrtDestroyStreamForce(stream1)")
    check(acl.rt.destroy_stream_force(stream2), "aclrtDestroyStreamForce(stream2)")
    check(acl.rt.destroy_context(context), "aclrtDestroyContext(context)")
    check(acl.rt.reset_device_force(DEVICE_ID), "aclrtResetDeviceForce(kDeviceId)")
    acl.finalize()
    info("Resource cleanup completed.")


def event_synchronization():
    num = np.zeros(1, dtype=np.uint32)  # uint32_t num = 0
    size = num.nbytes
    context, stream1, stream2 = setup()
    stop_on_failure(stream1, stream2)
    event, ret = acl.rt.create_event()
    check(ret, "aclrtCreateEvent(&event)")
    info("Use event synchronize.")
    num_device = start_counter(num, size)
    info("Begin a long task, num += 1.")
    long_op(BLOCK_DIM, stream1, num_device)
    check(acl.rt.record_event(event, stream1), "aclrtRecordEvent(event, stream1)")
    info("Event synchronize.")
    check(acl.rt.stream_wait_event(stream2, event), "aclrtStreamWaitEvent(stream2, event)")

    # Reset the event on stream2, after the wait, so that it can be recorded again.
    check(acl.rt.reset_event(event, stream2), "aclrtResetEvent(event, stream2)")
    info("Begin a short task, num *= 2.")
    short_op(BLOCK_DIM, stream2, num_device)
    check(acl.rt.record_event(event, stream2), "aclrtRecordEvent(event, stream2)")
    check(acl.rt.synchronize_event(event), "aclrtSynchronizeEvent(event)")
    read_answer(num, size, num_device)

    # A wait with a timeout that the long task outlasts.
    info(f"Simulate timeout, wait {WAIT_TIME_MS}ms, the task will fail.")
    long_op(BLOCK_DIM, stream1, num_device)
    check(acl.rt.record_event(event, stream1), "aclrtRecordEvent(event, stream1)")
    check_without_return(
        acl.rt.synchronize_event_with_timeout(event, WAIT_TIME_MS),
        "aclrtSynchronizeEventWithTimeout(event, kWaitTimeMs)",
    )

    free_after_timeout(num_device)
    check(acl.rt.destroy_event(event), "aclrtDestroyEvent(event)")
    teardown(context, stream1, stream2)
    return 0


def stream_synchronization():
    num = np.zeros(1, dtype=np.uint32)
    size = num.nbytes
    context, stream1, stream2 = setup()
    stop_on_failure(stream1, stream2)
    info("Use stream synchronize.")
    num_device = start_counter(num, size)
    info("Begin a long task, num += 1.")
    long_op(BLOCK_DIM, stream1, num_device)
    info("Stream synchronize.")
    check(acl.rt.synchronize_stream(stream1), "aclrtSynchronizeStream(stream1)")

    info("Begin a short task, num *= 2.")
    short_op(BLOCK_DIM, stream2, num_device)
    check(acl.rt.synchronize_stream(stream2), "aclrtSynchronizeStream(stream2)")
    read_answer(num, size, num_device)

    info(f"Simulate timeout, wait {WAIT_TIME_MS}ms, the task will fail.")
    long_op(BLOCK_DIM, stream1, num_device)
    check_without_return(
        acl.rt.synchronize_stream_with_timeout(stream1, WAIT_TIME_MS),
        "aclrtSynchronizeStreamWithTimeout(stream1, kWaitTimeMs)",
    )

    free_after_timeout(num_device)
    teardown(context, stream1, stream2)
    return 0


def notify_synchronization():
    num = np.zeros(1, dtype=np.uint32)
    size = num.nbytes
    context, stream1, stream2 = setup()
    notify, ret = acl.rt.create_notify(0x00)
    check(ret, "aclrtCreateNotify(&notify, 0x00U)")
    stop_on_failure(stream1, stream2)
    info("Use notify synchronize.")
    num_device = start_counter(num, size)
    info("Begin a long task, num += 1.")
    long_op(BLOCK_DIM, stream1, num_device)
    info("Stream synchronize.")
    check(acl.rt.record_notify(notify, stream1), "aclrtRecordNotify(notify, stream1)")

    # stream2 waits until the notify is recorded, then resets it (timeout 0: wait forever).
    check(acl.rt.wait_and_reset_notify(notify, stream2, 0), "aclrtWaitAndResetNotify(notify, stream2, 0)")
    info("Begin a short task, num *= 2.")
    short_op(BLOCK_DIM, stream2, num_device)
    check(acl.rt.synchronize_stream(stream2), "aclrtSynchronizeStream(stream2)")
    read_answer(num, size, num_device)

    check(acl.rt.free(num_device), "aclrtFree(numDevice)")
    check(acl.rt.destroy_notify(notify), "aclrtDestroyNotify(notify)")
    teardown(context, stream1, stream2)
    return 0


def run(function):
    try:
        return function()
    except Failed:
        return -1


def main():
    # Each function shows one way to synchronize.
    run(stream_synchronization)
    run(event_synchronization)
    run(notify_synchronization)


if __name__ == "__main__":
    main()
