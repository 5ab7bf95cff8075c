"""Port of example/1_basic_features/memory/6_d2d_async_memory_copy (hicann/runtime).

A kernel writes a value into one device buffer (WriteDo), aclrtMemcpyAsync on the same
stream copies it to a second buffer, aclrtSynchronizeStream waits, and a kernel reads the
value there (ReadDo).  The stream orders the copy after WriteDo, so, unlike
5_d2d_sync_memory_copy, the port needs no synchronize the official sample lacks; nor does
the free after aclrtDestroyStreamForce, which returns after the stream's running task
(Stream::TearDown, src/runtime/core/src/stream/stream.cc).

The kernels print when they finish, as in the official README's last two lines.
"""

from sandbox import acl
from _common import check, info
from _kernel_ops import read_do, write_do


def main():
    acl.init()
    device_id = 0
    acl.rt.set_device(device_id)
    stream, _ = acl.rt.create_stream()

    size = 1 * 1024 * 1024
    dev_a, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc((void**)&devPtrA, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    info(f"Allocate memory on the device memory {dev_a:#x} successfully")
    dev_b, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc((void**)&devPtrB, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    info(f"Allocate memory on the device memory {dev_b:#x} successfully")

    # Write the value on the device
    block_dim = 1
    write_value = 123
    write_do(block_dim, stream, dev_a, write_value)
    info(f"Write the data {write_value} to the virtual memory {dev_a:#x}")

    check(
        acl.rt.memcpy_async(dev_b, size, dev_a, size, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
        "aclrtMemcpyAsync(devPtrB, size, devPtrA, size, ACL_MEMCPY_DEVICE_TO_DEVICE, stream)",
    )
    info(f"Copy memory from memory {dev_a:#x} to memory {dev_b:#x}")

    # Read the value at devPtrB
    acl.rt.synchronize_stream(stream)
    read_do(block_dim, stream, dev_b)

    acl.rt.destroy_stream_force(stream)
    acl.rt.free(dev_a)
    acl.rt.free(dev_b)
    acl.rt.reset_device_force(device_id)
    acl.finalize()


if __name__ == "__main__":
    main()
