"""Port of example/2_advanced_features/model_ri/0_simple_model (hicann/runtime).

An ACL Graph made by stream capture: between aclmdlRICaptureBegin (mode GLOBAL) and
aclmdlRICaptureEnd the stream records an aclrtMemcpyAsync from pinned host memory and two
computations, ``outTmp = self + alpha * other`` then ``out = outTmp * other``; in the middle the
thread switches itself to RELAXED with aclmdlRICaptureThreadExchangeMode so that a synchronous
aclrtMemcpy (not allowed in GLOBAL mode) runs at once, outside the graph, and switches back.
The captured model is written out with aclmdlRIDebugJsonPrint and replayed four times with
aclmdlRIExecuteAsync, each replay synchronized and its result copied back and printed:
``(self + 1.1 * 2) * 2``.  Every runtime call (aclInit, aclrtSetDevice, aclrtCreateContext,
aclrtMalloc, aclrtCreateStream, aclrtMallocHost, aclrtMemcpy, the capture, dump, replay and
destroy calls, aclrtDestroyStreamForce, aclrtFree, aclrtDestroyContext, aclrtResetDeviceForce,
aclFinalize) is made here as the sample makes it, in its order.

Where the port differs:

- The two computations are the operator library's aclnnAdd and aclnnMul.  The operator
  library (aclnn) is not the runtime, and the sandbox has none (the names refuse with 207000,
  see sandbox/acl/_unmodelled.py), so each operator with its descriptors and workspace query
  is replaced by one ``@sandbox.kernel`` function with the same inputs and output:
  aclnnAddGetWorkspaceSize + aclnnAdd (self, other, alpha -> outTmp) by ``add_kernel``, and
  aclnnMulGetWorkspaceSize + aclnnMul (outTmp, other -> out) by ``mul_kernel``.  Launched on
  the capturing stream they are recorded into the graph as the aclnn launches are.  The
  tensors' shape {4, 2} becomes the element count the kernels are given; aclCreateTensor,
  aclCreateScalar, aclDestroyTensor and aclDestroyScalar go with the descriptors
  (ModelUtils::CreateAclTensor is left with its aclrtMalloc).  Neither kernel needs a
  workspace and the output shows none, so both workspace queries and their
  ``if (size > 0)`` aclrtMalloc/aclrtFree are dropped.
- The C program never frees ``selfHost``, and the port keeps that: the sandbox reports the
  pinned memory still held at aclFinalize.  The port expects exactly that one leak and keeps its
  LeakWarning off stderr; it stays in the trace (``sandbox.trace().of(...LeakReport)``).
- aclmdlRIDebugJsonPrint writes ``modelRI.json`` into a temporary directory instead of the
  working directory, so running the port leaves no file behind.

The README shows the first and the last replay and "..." between; the program prints all
four, and so does the port.  ModelUtils::PrintArray puts two spaces after every value, the
last one included, and so does the port.
"""

import os
import sys
import tempfile
import warnings

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


# What aclnnMul computes: out = self * other, element by element (one block).
@sandbox.kernel(writes=("out",))
def mul_kernel(self_: "float32*", other: "float32*", out: "float32*", n: int):
    out[:n] = self_[:n] * other[:n]


def get_shape_size(shape):
    size = 1
    for dim in shape:
        size *= dim
    return size


def create_device_buffer(shape):
    # ModelUtils::CreateAclTensor without the tensor: the device memory (its code unchecked)
    device_addr, _ = acl.rt.malloc(get_shape_size(shape) * 4, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    return device_addr


def print_array(data):
    # ModelUtils::PrintArray: fixed, 4 decimals, two spaces after each value
    info("The vector data is: " + "".join(f"{v:.4f}  " for v in data))


def main():
    device_id = 0
    self_host_data = np.array([1, 2, 3, 4, 5, 6, 7, 8], dtype=np.float32)
    other_host_data = np.array([2, 2, 2, 2, 2, 2, 2, 2], dtype=np.float32)
    out_host_data = np.zeros(8, dtype=np.float32)
    shape = [4, 2]
    alpha = 1.1
    loop_count = 4
    n = get_shape_size(shape)
    size = n * 4

    check(acl.init(), "aclInit(NULL)")
    check(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)")
    context, ret = acl.rt.create_context(device_id)
    check(ret, "aclrtCreateContext(&context, deviceId)")

    self_device = create_device_buffer(shape)
    other_device = create_device_buffer(shape)
    out_device = create_device_buffer(shape)
    out_tmp_device = create_device_buffer(shape)

    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream)")
    self_host, ret = acl.rt.malloc_host(size)
    check(ret, "aclrtMallocHost(&selfHost, size)")
    check(
        acl.rt.memcpy(self_host, size, acl.util.numpy_to_ptr(self_host_data), size, acl.ACL_MEMCPY_HOST_TO_HOST),
        "aclrtMemcpy(selfHost, size, selfHostData.data(), size, ACL_MEMCPY_HOST_TO_HOST)",
    )

    # From here to the end of capture the stream's tasks are recorded into the model.
    check(
        acl.mdl.ri_capture_begin(stream, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
        "aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)",
    )
    # an asynchronous copy from pinned memory is safe in GLOBAL mode: it is recorded
    check(
        acl.rt.memcpy_async(self_device, size, self_host, size, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream),
        "aclrtMemcpyAsync(selfDevice, size, selfHost, size, ACL_MEMCPY_HOST_TO_DEVICE, stream)",
    )
    # RELAXED for this thread: the synchronous copy below runs now and is not recorded
    mode, ret = acl.mdl.ri_capture_thread_exchange_mode(acl.ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
    check(ret, "aclmdlRICaptureThreadExchangeMode(&mode)")
    check(
        acl.rt.memcpy(other_device, size, acl.util.numpy_to_ptr(other_host_data), size, acl.ACL_MEMCPY_HOST_TO_DEVICE),
        "aclrtMemcpy(otherDevice, size, otherHostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE)",
    )
    # exchanging again puts back the mode the first exchange replaced
    mode, ret = acl.mdl.ri_capture_thread_exchange_mode(mode)
    check(ret, "aclmdlRICaptureThreadExchangeMode(&mode)")
    # aclnnAdd and aclnnMul (codes unchecked, as in the sample) -> the two kernels, recorded
    add_kernel[1, stream](self_device, other_device, alpha, out_tmp_device, n)
    mul_kernel[1, stream](out_tmp_device, other_device, out_device, n)
    model_ri, ret = acl.mdl.ri_capture_end(stream)
    check(ret, "aclmdlRICaptureEnd(stream, &modelRI)")

    with tempfile.TemporaryDirectory() as json_dir:
        json_path = os.path.join(json_dir, "modelRI.json")
        check(acl.mdl.ri_debug_json_print(model_ri, json_path, 0), "aclmdlRIDebugJsonPrint(modelRI, jsonPath, 0)")

    # Replay the captured model.
    for i in range(loop_count):
        info(f"execute model, loop count: {i + 1}.")
        check(acl.mdl.ri_execute_async(model_ri, stream), "aclmdlRIExecuteAsync(modelRI, stream)")
        check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
        check(
            acl.rt.memcpy(acl.util.numpy_to_ptr(out_host_data), size, out_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST),
            "aclrtMemcpy(outHostData.data(), size, outDevice, size, ACL_MEMCPY_DEVICE_TO_HOST)",
        )
        print_array(out_host_data)

    check(acl.mdl.ri_destroy(model_ri), "aclmdlRIDestroy(modelRI)")
    check(acl.rt.destroy_stream_force(stream), "aclrtDestroyStreamForce(stream)")
    check(acl.rt.free(self_device), "aclrtFree(selfDevice)")
    check(acl.rt.free(other_device), "aclrtFree(otherDevice)")
    check(acl.rt.free(out_device), "aclrtFree(outDevice)")
    check(acl.rt.free(out_tmp_device), "aclrtFree(outTmpDevice)")
    check(acl.rt.destroy_context(context), "aclrtDestroyContext(context)")
    check(acl.rt.reset_device_force(device_id), "aclrtResetDeviceForce(deviceId)")
    with warnings.catch_warnings(record=True) as caught:  # the sample never frees selfHost
        warnings.simplefilter("always", sandbox.LeakWarning)
        check(acl.finalize(), "aclFinalize()")
    leaks = [w.message for w in caught if issubclass(w.category, sandbox.LeakWarning)]
    assert len(leaks) == 1 and "pinned host memory (1;" in str(leaks[0]), [str(w.message) for w in caught]


if __name__ == "__main__":
    main()
