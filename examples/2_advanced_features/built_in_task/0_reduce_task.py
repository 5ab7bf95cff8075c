"""Port of example/2_advanced_features/built_in_task/0_reduce_task (hicann/runtime).

The official sample adds one 4-float device buffer into another with the runtime's built-in
reduce task (aclrtReduceAsync, kind ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM): both hold 1, 2, 3, 4,
so the result is 2, 4, 6, 8.  The task runs on the device's DMA engine (the timeline shows it
as a "reduce" on DMA D2D).  The README's last line reads "Sample Run Successfully."; the
program prints "Sample run successfully.", which is what this port prints.
"""

import inspect
import sys

import numpy as np

from sandbox import acl


def check(ret):
    # the sample's CHECK_ERROR: report the line and the code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"Error at line {inspect.currentframe().f_back.f_lineno}, ret = {ret}")
        sys.exit(1)


def main():
    check(acl.init())
    check(acl.rt.set_device(0))

    stream, ret = acl.rt.create_stream()
    check(ret)

    # Host data
    count = 4
    host_input = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    host_output = np.zeros(count, dtype=np.float32)
    size = count * acl.data_type_size(acl.ACL_FLOAT)

    # Device memory
    dev_input, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    dev_output, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)

    # Both buffers get the input
    check(acl.rt.memcpy(dev_input, size, acl.util.numpy_to_ptr(host_input), size, acl.ACL_MEMCPY_HOST_TO_DEVICE))
    check(acl.rt.memcpy(dev_output, size, acl.util.numpy_to_ptr(host_input), size, acl.ACL_MEMCPY_HOST_TO_DEVICE))

    # dev_output += dev_input, on the stream
    ret = acl.rt.reduce_async(
        dev_output,
        dev_input,
        size,
        acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,  # the reduce kind
        acl.ACL_FLOAT,  # the data type
        stream,
        0,  # reserve: the C sample's nullptr
    )
    check(ret)

    check(acl.rt.synchronize_stream(stream))

    check(acl.rt.memcpy(acl.util.numpy_to_ptr(host_output), size, dev_output, size, acl.ACL_MEMCPY_DEVICE_TO_HOST))

    for i in range(count):
        print(f"Reduce SUM result[{i}] = {host_output[i]:f}")

    # Release
    acl.rt.free(dev_input)
    acl.rt.free(dev_output)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device_force(0)
    acl.finalize()
    print("[INFO]  Sample run successfully.")


if __name__ == "__main__":
    main()
