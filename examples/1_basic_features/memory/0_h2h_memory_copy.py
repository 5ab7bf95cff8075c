"""Port of example/1_basic_features/memory/0_h2h_memory_copy (hicann/runtime).

A blocking aclrtMemcpy from one pinned host buffer to another; the host reads the copy.
"""

import numpy as np

from sandbox import acl
from _common import check, info


def main():
    acl.init()
    device_id = 0
    acl.rt.set_device(device_id)
    stream, _ = acl.rt.create_stream()

    size = 1 * 1024 * 1024
    host_a, ret = acl.rt.malloc_host(size)
    check(ret, "aclrtMallocHost((void**)&hostPtrA, size)")
    info(f"Allocate memory on the host memory {host_a:#x} successfully")
    host_b, ret = acl.rt.malloc_host(size)
    check(ret, "aclrtMallocHost((void**)&hostPtrB, size)")
    info(f"Allocate memory on the host memory {host_b:#x} successfully")

    # *hostPtrA = writeValue
    write_value = 123
    acl.util.ptr_to_numpy(host_a, (1,), np.int32)[0] = write_value
    info(f"Write the data {write_value} to the virtual address {host_a:#x}")
    info(f"Source data: {write_value}")

    check(
        acl.rt.memcpy(host_b, size, host_a, size, acl.ACL_MEMCPY_HOST_TO_HOST),
        "aclrtMemcpy(hostPtrB, size, hostPtrA, size, ACL_MEMCPY_HOST_TO_HOST)",
    )
    info(f"Copy memory from memory {host_a:#x} to memory {host_b:#x}")

    read_value = int(acl.util.ptr_to_numpy(host_b, (1,), np.int32)[0])
    info(f"Destination data: {read_value}")

    acl.rt.destroy_stream_force(stream)
    acl.rt.free_host(host_a)
    acl.rt.free_host(host_b)
    acl.rt.reset_device_force(device_id)
    acl.finalize()


if __name__ == "__main__":
    main()
