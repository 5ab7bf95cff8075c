"""Port of example/1_basic_features/memory/5_d2d_sync_memory_copy (hicann/runtime).

A kernel writes a value into one device buffer (WriteDo), a blocking aclrtMemcpy copies it
to a second buffer, and a kernel reads it there (ReadDo).  The port adds one synchronize
the official sample does not have, before the blocking copy.  A blocking aclrtMemcpy is not
ordered with the kernels of a stream (the runtime's MemCopySync in
src/runtime/api/impl/api_impl.cc hands the copy to the driver without waiting for any stream;
sample 3_d2h_sync_memory_copy now waits for the same reason), so the copy may read the buffer
before WriteDo has written it.  Without this synchronize the sandbox reports the race
(HazardWarning on aclrtMemcpy).  The free after aclrtDestroyStreamForce needs none: the forced
destroy returns after the stream's running task (Stream::TearDown,
src/runtime/core/src/stream/stream.cc).

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

    # Not in the official sample: the blocking copy does not wait for the stream
    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
    check(
        acl.rt.memcpy(dev_b, size, dev_a, size, acl.ACL_MEMCPY_DEVICE_TO_DEVICE),
        "aclrtMemcpy(devPtrB, size, devPtrA, size, ACL_MEMCPY_DEVICE_TO_DEVICE)",
    )
    info(f"Copy memory from memory {dev_a:#x} to memory {dev_b:#x}")

    # Read the value at devPtrB
    read_do(block_dim, stream, dev_b)

    acl.rt.destroy_stream_force(stream)
    acl.rt.free(dev_a)
    acl.rt.free(dev_b)
    acl.rt.reset_device_force(device_id)
    acl.finalize()


if __name__ == "__main__":
    main()
