"""Port of example/0_quickstart/0_hello_cann (hicann/runtime).

The official sample's smallest closed loop: init, device, stream, three device buffers filled
from the host, ``out = self + alpha * other`` on the stream, synchronize, copy back, free, tear
down.  Every runtime call (aclInit, aclrtSetDevice, aclrtCreateStream, aclrtMalloc,
aclrtMemcpy, aclrtSynchronizeStream, aclrtFree, aclrtDestroyStream, aclrtResetDeviceForce,
aclFinalize) is made here as the sample makes it, in its order.

Where the port differs: the sample computes with the operator library (aclnn), which is not
the runtime and which the sandbox does not have (the names refuse with 207000, see
sandbox/acl/_unmodelled.py).  So:

- aclCreateTensor (x3), aclCreateScalar, aclnnAddGetWorkspaceSize and aclnnAdd are replaced
  by one ``@sandbox.kernel`` function, ``add_kernel``, launched on the stream with the same
  inputs (the self and other buffers, alpha) and output (the out buffer).  The tensors' shape
  ({8}, contiguous) becomes the element count the kernel is given; alpha is passed as a float
  and used at float32, as an ACL_FLOAT scalar is; aclDestroyTensor/aclDestroyScalar go with them.
- The workspace query: ``add_kernel`` needs no scratch memory, so the size the port prints is
  the sandbox kernel's, 0 (the real aclnnAdd reports its own), and the sample's
  ``if (workspaceSize > 0)`` workspace aclrtMalloc/aclrtFree is kept but not taken.
- aclCreateDataBuffer/aclGetDataBufferAddr/aclDestroyDataBuffer wrap the out buffer in a
  descriptor of the operator and model interfaces (also refused by the sandbox); the address
  the buffer hands back is the out buffer's own, so the port prints and reads back from that.
  The "Launch aclnnAdd successfully" line keeps the sample's words: it now reports the launch
  of ``add_kernel``.

The output is the README's, with the sandbox's address for the buffer and 0 for the
workspace size.  The C program also prints the "Free ...", "Destroy ...", "Reset ..." and
"ACL finalize ..." lines, which the README's output leaves out; this port prints what the
program prints.
"""

import inspect
import sys

import numpy as np

import sandbox
from sandbox import acl


def check(ret):
    # the sample's CHECK_ERROR: report the line and the code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"Error at line {inspect.currentframe().f_back.f_lineno}, ret = {ret}")
        sys.exit(1)


def get_shape_size(shape):
    size = 1
    for dim in shape:
        size *= dim
    return size


# What aclnnAdd computes: out = self + alpha * other, element by element (one block).
@sandbox.kernel(writes=("out",))
def add_kernel(self_: "float32*", other: "float32*", alpha: float, out: "float32*", n: int):
    out[:n] = self_[:n] + np.float32(alpha) * other[:n]


def create_device_buffer(host_data):
    # CreateAclTensor without the tensor: the device memory and the copy into it
    size = host_data.nbytes
    device_addr, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    check(acl.rt.memcpy(device_addr, size, acl.util.numpy_to_ptr(host_data), size, acl.ACL_MEMCPY_HOST_TO_DEVICE))
    return device_addr


def main():
    check(acl.init())
    print("ACL init successfully")

    device_id = 0
    check(acl.rt.set_device(device_id))
    print(f"Set device {device_id} successfully")

    stream, ret = acl.rt.create_stream()
    check(ret)
    print("Create stream successfully")

    shape = [8]
    self_host = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], dtype=np.float32)
    other_host = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0], dtype=np.float32)
    out_host = np.zeros(8, dtype=np.float32)
    alpha = 1.0

    print("Input vectors:")
    print("  self:   [" + ", ".join(f"{v:.1f}" for v in self_host) + "]")
    print("  other:  [" + ", ".join(f"{v:.1f}" for v in other_host) + "]")
    print(f"  alpha:  {alpha:.1f}")

    # The input and output buffers (the sample's tensors and alpha scalar describe them).
    self_device = create_device_buffer(self_host)
    other_device = create_device_buffer(other_host)
    out_device = create_device_buffer(out_host)

    # The sample's output aclDataBuffer hands back the out buffer's address.
    out_buffer_addr = out_device
    print(f"Create output aclDataBuffer successfully, buffer addr = {out_buffer_addr:#x}")

    # add_kernel needs no workspace: the sandbox's size is 0.
    workspace_size = 0
    print(f"Get workspace size successfully, workspace size = {workspace_size}")

    workspace_addr = None
    if workspace_size > 0:
        workspace_addr, ret = acl.rt.malloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        check(ret)
        print("Allocate workspace successfully")

    # aclnnAdd(workspace, size, executor, stream) -> the kernel queued on the stream
    n = get_shape_size(shape)
    check(add_kernel[1, stream](self_device, other_device, alpha, out_device, n))
    print("Launch aclnnAdd successfully")

    check(acl.rt.synchronize_stream(stream))
    print("Synchronize stream successfully")

    result = np.zeros(n, dtype=np.float32)
    check(
        acl.rt.memcpy(
            acl.util.numpy_to_ptr(result), result.nbytes, out_buffer_addr, n * 4, acl.ACL_MEMCPY_DEVICE_TO_HOST
        )
    )

    print("\nVector addition result:")
    for i in range(n):
        expected = np.float32(self_host[i] + np.float32(alpha) * other_host[i])
        print(f"  result[{i}] = {result[i]:.1f} (expected: {expected:.1f})")

    # The sample frees without checking the codes; so does the port.
    acl.rt.free(self_device)
    acl.rt.free(other_device)
    acl.rt.free(out_device)
    if workspace_addr is not None:
        acl.rt.free(workspace_addr)
    print("Free device memory successfully")

    acl.rt.destroy_stream(stream)
    print("Destroy stream successfully")

    acl.rt.reset_device_force(device_id)
    print("Reset device successfully")

    acl.finalize()
    print("ACL finalize successfully")

    print("\nSample run successfully!")


if __name__ == "__main__":
    main()
