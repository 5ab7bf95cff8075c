"""Port of example/1_basic_features/memory/1_h2d_sync_memory_copy (hicann/runtime).

The host writes a value into pinned host memory, a blocking aclrtMemcpy copies it to the
device, and a kernel reads it there (ReadDo).  The blocking copy has finished when it
returns, so ReadDo, launched after it, finds the value; the free after
aclrtDestroyStreamForce needs no synchronize: the forced destroy returns after the stream's
running task (Stream::TearDown, src/runtime/core/src/stream/stream.cc).

The kernel prints when it finishes, as in the official README's last line.
"""

import numpy as np

from sandbox import acl
from _common import check, info
from _kernel_ops import read_do


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

    # *hostPtrA = writeValue
    write_value = 123
    acl.util.ptr_to_numpy(host_a, (1,), np.int32)[0] = write_value
    info(f"Write the data {write_value} to the virtual memory {host_a:#x}")
    info(f"Source data: {write_value}")

    check(
        acl.rt.memcpy(dev_b, size, host_a, size, acl.ACL_MEMCPY_HOST_TO_DEVICE),
        "aclrtMemcpy(devPtrB, size, hostPtrA, size, ACL_MEMCPY_HOST_TO_DEVICE)",
    )
    info(f"Copy memory from memory {host_a:#x} to memory {dev_b:#x}")

    # Read the value at devPtrB
    block_dim = 1
    read_do(block_dim, stream, dev_b)

    acl.rt.destroy_stream_force(stream)
    acl.rt.free_host(host_a)
    acl.rt.free(dev_b)
    acl.rt.reset_device_force(device_id)
    acl.finalize()


if __name__ == "__main__":
    main()
