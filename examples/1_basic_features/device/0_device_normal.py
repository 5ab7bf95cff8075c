"""Port of example/1_basic_features/device/0_device_normal (hicann/runtime).

The ordinary life of a device: aclInit, aclrtSetDevice, aclrtCreateStream; device buffers
filled from the host with aclrtMalloc and aclrtMemcpy; one computation queued on the stream;
aclrtSynchronizeStream, the result copied back and printed, aclrtSynchronizeDevice; then
aclrtFree, aclrtDestroyStream, aclrtResetDeviceForce, aclFinalize.  Every runtime call is made
here as the sample makes it, in its order, each checked as its CHECK_ERROR checks it.

Where the port differs: the computation is the operator library's aclnnAdd,
``out = self + alpha * other`` on 4x2 float tensors with alpha = 1.2.  The operator library
(aclnn) is not the runtime, and the sandbox has none (the names refuse with 207000, see
sandbox/acl/_unmodelled.py), so aclCreateTensor (x3), aclCreateScalar,
aclnnAddGetWorkspaceSize and aclnnAdd are replaced by one ``@sandbox.kernel`` function,
``add_kernel``, launched on the stream with the same inputs (the self and other buffers, alpha)
and output (the out buffer); the shape {4, 2} (contiguous) becomes the element count it is
given, and aclDestroyTensor/aclDestroyScalar go with the descriptors.  ``add_kernel`` needs no
workspace and the sample's output does not show one, so the workspace query and its
``if (workspaceSize > 0)`` aclrtMalloc/aclrtFree are dropped.

The README's output starts with lines of the build script (run.sh: compile SoC version, ...);
the port prints what the program prints, from "Start to run device_normal sample." on.
"""

import sys

import numpy as np

import sandbox
from sandbox import acl


def info(text):
    print(f"[INFO]  {text}")


def check(ret, what):
    # the samples' CHECK_ERROR (example/utils.h): name the call and its code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR]  Operation failed: {what} returned error code {ret}")
        sys.exit(1)


# What aclnnAdd computes: out = self + alpha * other, element by element (one block).
@sandbox.kernel(writes=("out",))
def add_kernel(self_: "float32*", other: "float32*", alpha: float, out: "float32*", n: int):
    out[:n] = self_[:n] + np.float32(alpha) * other[:n]


def init(device_id):
    check(acl.init(), "aclInit(nullptr)")
    check(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(stream)")
    return stream


def get_shape_size(shape):
    size = 1
    for dim in shape:
        size *= dim
    return size


def create_device_buffer(host_data, shape):
    # CreateAclTensor without the tensor: the device memory and the copy into it
    size = get_shape_size(shape) * host_data.itemsize
    device_addr, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    check(
        acl.rt.memcpy(device_addr, size, acl.util.numpy_to_ptr(host_data), size, acl.ACL_MEMCPY_HOST_TO_DEVICE),
        "aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE)",
    )
    return device_addr


def get_and_print_result(out_device, out_shape):
    size = get_shape_size(out_shape)
    result = np.zeros(size, dtype=np.float32)
    check(
        acl.rt.memcpy(
            acl.util.numpy_to_ptr(result), result.nbytes, out_device, size * 4, acl.ACL_MEMCPY_DEVICE_TO_HOST
        ),
        "aclrtMemcpy(resultData.data(), ..., outDeviceAddr, ..., ACL_MEMCPY_DEVICE_TO_HOST)",
    )
    for i in range(size):
        info(f"result[{i}] is: {result[i]:f}")


def main():
    info("Start to run device_normal sample.")
    device_id = 0
    stream = init(device_id)

    self_shape, other_shape, out_shape = [4, 2], [4, 2], [4, 2]
    self_host = np.array([0, 1, 2, 3, 4, 5, 6, 7], dtype=np.float32)
    other_host = np.array([1, 1, 1, 2, 2, 2, 3, 3], dtype=np.float32)
    out_host = np.zeros(8, dtype=np.float32)
    alpha = 1.2

    self_device = create_device_buffer(self_host, self_shape)
    other_device = create_device_buffer(other_host, other_shape)
    out_device = create_device_buffer(out_host, out_shape)

    # aclnnAddGetWorkspaceSize + aclnnAdd -> the kernel queued on the stream (no workspace)
    check(
        add_kernel[1, stream](self_device, other_device, alpha, out_device, get_shape_size(out_shape)),
        "add_kernel[1, stream](...)",
    )

    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")

    get_and_print_result(out_device, out_shape)

    check(acl.rt.synchronize_device(), "aclrtSynchronizeDevice()")

    check(acl.rt.free(self_device), "aclrtFree(selfDeviceAddr)")
    check(acl.rt.free(other_device), "aclrtFree(otherDeviceAddr)")
    check(acl.rt.free(out_device), "aclrtFree(outDeviceAddr)")
    check(acl.rt.destroy_stream(stream), "aclrtDestroyStream(stream)")
    check(acl.rt.reset_device_force(device_id), "aclrtResetDeviceForce(deviceId)")
    check(acl.finalize(), "aclFinalize()")
    info("Run the device_normal sample successfully.")


if __name__ == "__main__":
    main()
