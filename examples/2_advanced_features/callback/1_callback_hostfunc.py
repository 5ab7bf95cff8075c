"""Port of example/2_advanced_features/callback/1_callback_hostfunc (hicann/runtime).

The official sample queues a kernel that adds 1 to a device word and then a host function on
the same stop-on-failure stream: the runtime's own thread runs the host function when the
stream reaches it (no thread of the program has to wait for it), and the stream goes on once it
has returned.  The timeline shows it on the row "host func (device 0)".
"""
import inspect
import sys

import numpy as np

import sandbox
from sandbox import acl


def info(message):
    print(f"[INFO]  {message}")


def check(ret):
    # the sample's CHECK_ERROR: report the line and the code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"Error at line {inspect.currentframe().f_back.f_lineno}, ret = {ret}")
        sys.exit(1)


# The kernel: x[0] += 1
@sandbox.kernel(ns=10_000)
def easy_op(x: "uint32*"):
    x[0] += 1


def call_back_func(arg):
    info("Hostfunc callback!!!")


def main():
    device_id = 0
    num = np.zeros(1, dtype=np.uint32)
    size = num.nbytes
    block_dim = 1
    check(acl.init())
    check(acl.rt.set_device(device_id))
    context, ret = acl.rt.create_context(device_id)
    check(ret)
    num_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    check(acl.rt.memcpy(num_device, size, acl.util.numpy_to_ptr(num), size, acl.ACL_MEMCPY_HOST_TO_DEVICE))
    stream, ret = acl.rt.create_stream()
    check(ret)
    # stop on failure: after a failed task, the stream's later tasks do not run
    check(acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE))
    easy_op[block_dim, stream](num_device)
    # the runtime makes its own thread to run the host function: no thread to create here
    check(acl.rt.launch_host_func(stream, call_back_func, None))
    check(acl.rt.synchronize_stream(stream))
    check(acl.rt.memcpy(acl.util.numpy_to_ptr(num), size, num_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST))
    info(f"After assigning the task through the created stream, the current result is: {num[0]}.")
    # release
    check(acl.rt.free(num_device))
    check(acl.rt.destroy_stream_force(stream))
    check(acl.rt.destroy_context(context))
    check(acl.rt.reset_device_force(device_id))
    acl.finalize()
    info("Resource cleanup completed.")


if __name__ == "__main__":
    main()
