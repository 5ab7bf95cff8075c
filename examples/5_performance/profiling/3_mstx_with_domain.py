"""Port of example/5_performance/profiling/3_mstx_with_domain (hicann/runtime).

mstx marks and ranges in the default domain and in a domain of the program's own.  After device 0, a
context made current and a stream (Init), the sample creates the domain "DoAclAdd_Inner"
(mstxDomainCreateA), opens a range of the default domain ("TestMstxWithDomain", mstxRangeStartA),
sets the context current again, marks "DoAclAdd Start" (mstxMarkA) and computes: two 4x2 float
tensors copied to the device, a mark of the custom domain ("Create alpha aclScalar",
mstxDomainMarkA), the output tensor, ``out = self + alpha * other`` with alpha = 1.2 queued on the
stream, a range of the custom domain ("After aclnnAdd", mstxDomainRangeStartA) around the
synchronize, the copy back, the eight printed results and the frees (mstxDomainRangeEnd).  It ends
the default range (mstxRangeEnd), destroys the domain (mstxDomainDestroy) and tears down (DeInit),
each ACL call checked by ACL_CALL, which prints the failed call and its code and returns it.

The mstx calls are C calls pyACL does not bind: the sandbox offers them under pyACL's naming rule as
``acl.mstx`` (``mstxMarkA`` -> ``acl.mstx.mark_a``; sandbox/acl/mstx.py), so this port runs in the
sandbox and not on a board with ``import acl`` (``sandbox.not_in_pyacl`` lists them).  As on a board,
they record something only while a collection with msproftx runs: run plainly (``bash run.sh``), the
program marks nothing and prints its results.  The README's three msprof commands are, in the sandbox,

    with sandbox.msprof("output", msproftx="on"):                                   # every domain
    with sandbox.msprof("output", msproftx="on", mstx_domain_include="default"):    # the default one only
    with sandbox.msprof("output", msproftx="on", mstx_domain_exclude="default"):    # all but the default
        main()

each writing ``output/PROF_000001_<time>_<pid><letters>/mindstudio_profiler_output/msprof_<time>.json``,
whose timeline shows the kept marks and ranges on the main thread's row with their domain
(tests/features/test_mstx.py runs all three).

Where the port differs: the computation is the operator library's aclnnAdd.  The operator library
(aclnn) is not the runtime, and the sandbox has none (the names refuse with 207000, see
sandbox/acl/_unmodelled.py), so aclCreateTensor (x3), aclCreateScalar, aclnnAddGetWorkspaceSize and
aclnnAdd are replaced by one ``@sandbox.kernel`` function, ``add_kernel``, launched on the stream with
the same inputs (the self and other buffers, alpha) and output (the out buffer); the shape {4, 2}
(contiguous) becomes the element count it is given, and aclDestroyTensor/aclDestroyScalar go with the
descriptors.  ``add_kernel`` needs no workspace: the size is the sandbox kernel's, 0, and the sample's
``if (workspaceSize > 0)`` aclrtMalloc/aclrtFree are kept but not taken.  The README's output starts
with run.sh's "[INFO]: AscendHome is set to ..." line (``echo`` of the CANN install path, which the
sandbox has not) and the build's lines; the port prints what the program prints, the eight results.
"""

import numpy as np

import sandbox
from sandbox import acl


def log_print(text):
    print(text, end="")


def acl_call(ret, call):
    # ACL_CALL (common/util_mstx.h): a failed call prints itself and its code; the caller returns the code
    if ret != acl.ACL_SUCCESS:
        log_print(f"{call} call failed, error code: {ret}\n")
    return ret


# What aclnnAdd computes: out = self + alpha * other, element by element (one block).
@sandbox.kernel(writes=("out",))
def add_kernel(self_: "float32*", other: "float32*", alpha: float, out: "float32*", n: int):
    out[:n] = self_[:n] + np.float32(alpha) * other[:n]


context = stream = domain_range = 0
g_domain_range_name = "DoAclAdd_Inner"


def get_shape_size(shape):
    shape_size = 1
    for i in shape:
        shape_size *= i
    return shape_size


def create_device_buffer(host_data, shape):
    # CreateAclTensor without the tensor: (its code, the device memory it filled from the host)
    size = get_shape_size(shape) * host_data.itemsize
    device_addr, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    if acl_call(ret, "aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST)"):
        return ret, 0
    ret = acl.rt.memcpy(device_addr, size, acl.util.numpy_to_ptr(host_data), size, acl.ACL_MEMCPY_HOST_TO_DEVICE)
    if acl_call(ret, "aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE)"):
        return ret, device_addr
    return 0, device_addr


def do_acl_add(context, stream):
    ret = acl.ACL_SUCCESS
    self_shape, other_shape, out_shape = [4, 2], [4, 2], [4, 2]
    self_host_data = np.array([0, 1, 2, 3, 4, 5, 6, 7], dtype=np.float32)
    other_host_data = np.array([1, 1, 1, 2, 2, 2, 3, 3], dtype=np.float32)
    out_host_data = np.zeros(8, dtype=np.float32)
    alpha_value = 1.2
    code, self_device_addr = create_device_buffer(self_host_data, self_shape)
    if acl_call(code, "CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self)"):
        return code
    code, other_device_addr = create_device_buffer(other_host_data, other_shape)
    if acl_call(code, "CreateAclTensor(otherHostData, otherShape, &otherDeviceAddr, aclDataType::ACL_FLOAT, &other)"):
        return code

    # mark with "DoAclAdd_Inner" domain
    acl.mstx.domain_mark_a(domain_range, "Create alpha aclScalar", stream)

    # aclCreateScalar(&alphaValue, ACL_FLOAT): alpha goes to the kernel as its argument
    code, out_device_addr = create_device_buffer(out_host_data, out_shape)
    if acl_call(code, "CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out)"):
        return code
    workspace_size = 0  # aclnnAddGetWorkspaceSize: add_kernel needs no workspace
    workspace_addr = 0
    if workspace_size > 0:
        workspace_addr, code = acl.rt.malloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        if acl_call(code, "aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST)"):
            return code
    # aclnnAdd(workspaceAddr, workspaceSize, executor, stream) -> the kernel queued on the stream
    n = get_shape_size(out_shape)
    code = add_kernel[1, stream](self_device_addr, other_device_addr, alpha_value, out_device_addr, n)
    if acl_call(code, "aclnnAdd(workspaceAddr, workspaceSize, executor, stream)"):
        return code

    # range with "DoAclAdd_Inner" domain start
    range_id = acl.mstx.domain_range_start_a(domain_range, "After aclnnAdd", stream)

    if code := acl_call(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)"):
        return code
    size = get_shape_size(out_shape)
    result_data = np.zeros(size, dtype=np.float32)
    code = acl.rt.memcpy(
        acl.util.numpy_to_ptr(result_data),
        result_data.nbytes,
        out_device_addr,
        size * 4,
        acl.ACL_MEMCPY_DEVICE_TO_HOST,
    )
    if acl_call(code, "aclrtMemcpy(resultData.data(), ..., outDeviceAddr, ..., ACL_MEMCPY_DEVICE_TO_HOST)"):
        return code
    for i in range(size):
        log_print(f"result[{i}] is: {result_data[i]:f}\n")
    # aclDestroyTensor (x3), aclDestroyScalar: no descriptors here
    acl.rt.free(self_device_addr)
    acl.rt.free(other_device_addr)
    acl.rt.free(out_device_addr)
    if workspace_size > 0:
        acl.rt.free(workspace_addr)

    # range with "DoAclAdd_Inner" domain end
    acl.mstx.domain_range_end(domain_range, range_id)

    return ret


def test_mstx_with_domain():
    # range with "default" domain start
    range_id = acl.mstx.range_start_a("TestMstxWithDomain", stream)
    if code := acl_call(acl.rt.set_context(context), "aclrtSetCurrentContext(context)"):
        return code
    # mark with "default" domain end
    acl.mstx.mark_a("DoAclAdd Start", stream)
    if code := acl_call(do_acl_add(context, stream), "DoAclAdd(context, stream)"):
        return code
    # range with "default" domain end
    acl.mstx.range_end(range_id)
    return acl.ACL_SUCCESS


def mstx_domain_init():
    global domain_range
    domain_range = acl.mstx.domain_create_a(g_domain_range_name)


def mstx_domain_de_init():
    acl.mstx.domain_destroy(domain_range)


def init(device_id):
    # Init (common/util_acl.h): the code, and the context and stream it made
    if code := acl_call(acl.init(), "aclInit(nullptr)"):
        return code, 0, 0
    if code := acl_call(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)"):
        return code, 0, 0
    new_context, code = acl.rt.create_context(device_id)
    if acl_call(code, "aclrtCreateContext(context, deviceId)"):
        return code, 0, 0
    if code := acl_call(acl.rt.set_context(new_context), "aclrtSetCurrentContext(*context)"):
        return code, new_context, 0
    new_stream, code = acl.rt.create_stream()
    if acl_call(code, "aclrtCreateStream(stream)"):
        return code, new_context, 0
    return 0, new_context, new_stream


def de_init(device_id, context, stream):
    if code := acl_call(acl.rt.destroy_stream(stream), "aclrtDestroyStream(*stream)"):
        return code
    if code := acl_call(acl.rt.destroy_context(context), "aclrtDestroyContext(*context)"):
        return code
    if code := acl_call(acl.rt.reset_device(device_id), "aclrtResetDevice(deviceId)"):
        return code
    if code := acl_call(acl.finalize(), "aclFinalize()"):
        return code
    return 0


def main():
    global context, stream
    device_id = 0
    ret, context, stream = init(device_id)
    if ret != acl.ACL_SUCCESS:
        return ret

    mstx_domain_init()
    ret = test_mstx_with_domain()
    mstx_domain_de_init()

    deinit_ret = de_init(device_id, context, stream)
    return ret if ret != acl.ACL_SUCCESS else deinit_ret


if __name__ == "__main__":
    raise SystemExit(main())
