"""Port of example/1_basic_features/memory/4_d2h_async_memory_copy (hicann/runtime).

A kernel writes a value on the device (WriteDo), aclrtMemcpyAsync on the same stream copies
it to pinned host memory, aclrtSynchronizeStream, and the host reads it.  The kernel's line
("Source data", a device printf) comes last in the official README, when the runtime
flushes the device's prints; here the kernel prints when it finishes, during the synchronize.
"""

import numpy as np

from sandbox import acl
from _common import check, info
from _kernel_ops import write_do


def main():
    acl.init()
    device_id = 0
    acl.rt.set_device(device_id)
    stream, _ = acl.rt.create_stream()

    size = 1 * 1024 * 1024
    host_a, ret = acl.rt.malloc_host(size)
    check(ret, "aclrtMallocHost((void**)&hostPtrA, size)")
    info(f"Allocate memory on the host memory {host_a:#x} successfully")
    dev_b, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc((void**)&devPtrB, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    info(f"Allocate memory on the device memory {dev_b:#x} successfully")

    # Write the value on the device
    block_dim = 1
    write_value = 123
    write_do(block_dim, stream, dev_b, write_value)
    info(f"Write the data {write_value} to the virtual memory {dev_b:#x}")

    check(
        acl.rt.memcpy_async(host_a, size, dev_b, size, acl.ACL_MEMCPY_DEVICE_TO_HOST, stream),
        "aclrtMemcpyAsync(hostPtrA, size, devPtrB, size, ACL_MEMCPY_DEVICE_TO_HOST, stream)",
    )
    info(f"Copy memory from memory {dev_b:#x} to memory {host_a:#x}")

    # Read the value at hostPtrA
    acl.rt.synchronize_stream(stream)
    read_value = int(acl.util.ptr_to_numpy(host_a, (1,), np.int32)[0])
    info(f"Destination data: {read_value}")

    acl.rt.destroy_stream_force(stream)
    acl.rt.free_host(host_a)
    acl.rt.free(dev_b)
    acl.rt.reset_device_force(device_id)
    acl.finalize()


if __name__ == "__main__":
    main()
