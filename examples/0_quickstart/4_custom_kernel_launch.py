"""Port of example/0_quickstart/4_custom_kernel_launch (hicann/runtime).

The official sample adds two 8-element float vectors with a custom AscendC kernel launched
through the ``<<<blockDim, nullptr, stream>>>`` call operator.  In the sandbox a kernel is a
Python function under ``@sandbox.kernel`` and ``kernel[block_dim, stream](...)`` is the same
launch: it queues the kernel on the stream and returns an aclError.

The C program also prints the "Free ...", "Destroy ...", "Reset ..." and "ACL finalize ..."
lines, which the README's typical output leaves out; this port prints what the program prints.
"""

import inspect
import sys

import numpy as np

import sandbox
from sandbox import acl

ELEMENT_COUNT = 8
TOLERANCE = 1e-5


def check(ret):
    # the sample's CHECK_ERROR: report the line and the code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"Error at line {inspect.currentframe().f_back.f_lineno}, ret = {ret}")
        sys.exit(1)


# The kernel: every element of dst is srcA + alpha * srcB (one block does the whole loop).
@sandbox.kernel(writes=("dst",))
def vector_add_kernel(
    src_a: sandbox.ptr(np.float32, count="element_count"),
    src_b: sandbox.ptr(np.float32, count="element_count"),
    dst: sandbox.ptr(np.float32, count="element_count"),
    alpha: float,
    element_count: int,
):
    dst[:element_count] = src_a[:element_count] + alpha * src_b[:element_count]


def vector_add_do(block_dim, stream, src_a, src_b, dst, alpha, element_count):
    # what VectorAddDo wraps: the <<<>>> launch, whose result is an aclError
    return vector_add_kernel[block_dim, stream](src_a, src_b, dst, alpha, element_count)


def main():
    device_id = 0
    block_dim = 1
    buffer_size = ELEMENT_COUNT * 4  # float32
    alpha = 1.0

    src_a_host = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], dtype=np.float32)
    src_b_host = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0], dtype=np.float32)
    dst_host = np.zeros(ELEMENT_COUNT, dtype=np.float32)

    # Bring up the runtime: init, device, one stream.
    check(acl.init())
    print("ACL init successfully")

    check(acl.rt.set_device(device_id))
    print(f"Set device {device_id} successfully")

    stream, ret = acl.rt.create_stream()
    check(ret)
    print("Create stream successfully")

    # Three device buffers: two inputs and the output.
    src_a_device, ret = acl.rt.malloc(buffer_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    src_b_device, ret = acl.rt.malloc(buffer_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    dst_device, ret = acl.rt.malloc(buffer_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    print("Allocate device buffers successfully")

    # The host vectors are ordinary (pageable) memory, as std::vector is in the C sample.
    check(
        acl.rt.memcpy(
            src_a_device, buffer_size, acl.util.numpy_to_ptr(src_a_host), buffer_size, acl.ACL_MEMCPY_HOST_TO_DEVICE
        )
    )
    check(
        acl.rt.memcpy(
            src_b_device, buffer_size, acl.util.numpy_to_ptr(src_b_host), buffer_size, acl.ACL_MEMCPY_HOST_TO_DEVICE
        )
    )
    print("Copy input vectors to device successfully")

    print("Input vectors:")
    print("  self:   [" + ", ".join(f"{v:.1f}" for v in src_a_host) + "]")
    print("  other:  [" + ", ".join(f"{v:.1f}" for v in src_b_host) + "]")
    print(f"  alpha:  {alpha:.1f}")

    # Queue the kernel on the stream, then wait for it.
    check(vector_add_do(block_dim, stream, src_a_device, src_b_device, dst_device, alpha, ELEMENT_COUNT))
    print("Custom AscendC kernel <<<>>> call successfully")

    check(acl.rt.synchronize_stream(stream))
    print("Synchronize stream successfully")

    # Bring the result back and compare it with the host's own sum.
    check(
        acl.rt.memcpy(
            acl.util.numpy_to_ptr(dst_host), buffer_size, dst_device, buffer_size, acl.ACL_MEMCPY_DEVICE_TO_HOST
        )
    )

    print("\nVector addition result:")
    result_matched = True
    for i in range(ELEMENT_COUNT):
        expected = float(src_a_host[i]) + alpha * float(src_b_host[i])
        print(f"  result[{i}] = {dst_host[i]:.1f} (expected: {expected:.1f})")
        if abs(float(dst_host[i]) - expected) > TOLERANCE:
            result_matched = False

    check(acl.rt.free(src_a_device))
    check(acl.rt.free(src_b_device))
    check(acl.rt.free(dst_device))
    print("Free device memory successfully")

    # Tear down in the reverse order.
    check(acl.rt.destroy_stream(stream))
    print("Destroy stream successfully")

    check(acl.rt.reset_device_force(device_id))
    print("Reset device successfully")

    check(acl.finalize())
    print("ACL finalize successfully")

    if not result_matched:
        print("\nSample run failed: vector addition result mismatched!")
        sys.exit(1)

    print("\nSample run successfully with <<<>>> kernel call!")


if __name__ == "__main__":
    main()
