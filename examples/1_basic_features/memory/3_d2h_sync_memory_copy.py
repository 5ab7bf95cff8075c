"""Port of example/1_basic_features/memory/3_d2h_sync_memory_copy (hicann/runtime).

A kernel writes a value on the device (WriteDo), aclrtSynchronizeStream waits for it, a
blocking aclrtMemcpy copies it to pinned host memory, and the host reads it.  The
synchronize matters: a blocking aclrtMemcpy is not ordered with the kernels of a stream (the
sample's own comment says so, and the runtime's MemCopySync in
src/runtime/api/impl/api_impl.cc hands the copy to the driver without waiting for any
stream); without it the sandbox reports the race as a HazardWarning, as it does for
5_d2d_sync_memory_copy (tests/samples/test_examples.py).  The kernel's line ("Source data", a
device printf) comes last in the official README, when the runtime flushes the device's
prints; here the kernel prints when it finishes, during the synchronize.
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

    # The blocking copy does not wait for the stream: wait for the kernel first
    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
    check(
        acl.rt.memcpy(host_a, size, dev_b, size, acl.ACL_MEMCPY_DEVICE_TO_HOST),
        "aclrtMemcpy(hostPtrA, size, devPtrB, size, ACL_MEMCPY_DEVICE_TO_HOST)",
    )
    info(f"Copy memory from memory {dev_b:#x} to memory {host_a:#x}")

    # Read the value at hostPtrA
    read_value = int(acl.util.ptr_to_numpy(host_a, (1,), np.int32)[0])
    info(f"Destination data: {read_value}")

    acl.rt.destroy_stream_force(stream)
    acl.rt.free_host(host_a)
    acl.rt.free(dev_b)
    acl.rt.reset_device_force(device_id)
    acl.finalize()


if __name__ == "__main__":
    main()
