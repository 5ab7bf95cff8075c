"""Port of example/1_basic_features/device/1_device_multi_thread (hicann/runtime).

The official sample limits device 0 to one vector core in the main thread, then a second thread
queries the device (SoC name, count, status, run mode, utilisation, stream priority range,
vector core count), reads the limit back and launches a vector-add kernel with that many blocks.
The kernel is a Python function under @sandbox.kernel; it obeys the limit (one core of the
pool).  The SoC name and device count are the sandbox's Ascend910B2 server, not the README's
machine; utilisation is the share of AI cores busy when the thread asks (none yet: 0).
"""

import inspect
import sys
import threading

import numpy as np

import sandbox
from sandbox import acl


def info(message):
    print(f"[INFO]  {message}")


def check(ret):
    # the sample's CHECK_ERROR: report the line and the code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"Error at line {inspect.currentframe().f_back.f_lineno}, ret = {ret}")
        return False
    return True


# The kernel: dst = a + b over total_size floats (all blocks together).
@sandbox.kernel(writes=("dst",))
def kernel_add(a: "float32*", b: "float32*", dst: "float32*", total_size: int):
    dst[:total_size] = a[:total_size] + b[:total_size]


def add_do(block_dim, stream, a, b, dst, total_size):
    return kernel_add[block_dim, stream](a, b, dst, total_size)


def init():
    if not check(acl.rt.set_device(0)):
        return None
    stream, ret = acl.rt.create_stream()
    return stream if check(ret) else None


def device_info_query():
    info(f"Current Ascend chipset platform is: {acl.get_soc_name()}.")

    device_count, ret = acl.rt.get_device_count()
    if not check(ret):
        return -1
    info(f"Get device count success. deviceCount: {device_count}.")

    device_status, ret = acl.rt.query_device_status(0)
    if not check(ret):
        return -1
    info(f"Query device status success. deviceStatus: {device_status}.")

    run_mode, ret = acl.rt.get_run_mode()
    if not check(ret):
        return -1
    info({0: "RunMode is ACL_DEVICE.", 1: "RunMode is ACL_HOST."}.get(run_mode, "RunMode is invalid."))

    rate, ret = acl.rt.get_device_utilization_rate(0)
    if not check(ret):
        return -1
    info(
        f"Get device utilizationRate success. cubeUtilization {rate['cubeUtilization']}, vectorUtilization "
        f"{rate['vectorUtilization']}, aicpuUtilization {rate['aicpuUtilization']},"
        f"memoryUtilization {rate['memoryUtilization']}."
    )

    least_priority, greatest_priority, ret = acl.rt.device_get_stream_priority_range()
    if not check(ret):
        return -1
    info(f"Get stream priorityRange success. leastPriority {least_priority}, greatestPriority {greatest_priority}.")

    vector_core_num, ret = acl.rt.get_device_info(0, acl.ACL_DEV_ATTR_VECTOR_CORE_NUM)
    if not check(ret):
        return -1
    info(f"Get device info success. vectorCoreNum {vector_core_num}.")
    return 0


def run_thread():
    stream = init()
    if stream is None or device_info_query() != 0:
        return

    total_size = 1024
    data_size = total_size * 4  # float32

    # host memory (pinned) and numpy views of it
    host_src_a, _ = acl.rt.malloc_host(data_size)
    host_src_b, _ = acl.rt.malloc_host(data_size)
    host_dst, _ = acl.rt.malloc_host(data_size)
    a, b = (
        acl.util.ptr_to_numpy(host_src_a, (total_size,), np.float32),
        acl.util.ptr_to_numpy(host_src_b, (total_size,), np.float32),
    )
    dst = acl.util.ptr_to_numpy(host_dst, (total_size,), np.float32)

    dev_src_a, _ = acl.rt.malloc(data_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    dev_src_b, _ = acl.rt.malloc(data_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    dev_dst, _ = acl.rt.malloc(data_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)

    a[:] = np.arange(total_size, dtype=np.float32)
    b[:] = np.arange(total_size, dtype=np.float32)

    acl.rt.memcpy(dev_src_a, data_size, host_src_a, data_size, acl.ACL_MEMCPY_HOST_TO_DEVICE)
    acl.rt.memcpy(dev_src_b, data_size, host_src_b, data_size, acl.ACL_MEMCPY_HOST_TO_DEVICE)

    res_limit_value, _ = acl.rt.get_device_res_limit(0, acl.ACL_RT_DEV_RES_VECTOR_CORE)
    info(f"Get device resLimit success. VECTOR_CORE {res_limit_value}.")
    add_do(res_limit_value, stream, dev_src_a, dev_src_b, dev_dst, total_size)
    acl.rt.synchronize_stream(stream)
    acl.rt.memcpy(host_dst, data_size, dev_dst, data_size, acl.ACL_MEMCPY_DEVICE_TO_HOST)

    info("The results (first 10 elements) of the kernel function:")
    for i in range(10):
        info(f"Result: hostDst[{i}]: {dst[i]:f} Expected value: {a[i] + b[i]:f}")

    acl.rt.reset_device_res_limit(0)

    acl.rt.free(dev_src_a)
    acl.rt.free(dev_src_b)
    acl.rt.free(dev_dst)
    acl.rt.free_host(host_src_a)
    acl.rt.free_host(host_src_b)
    acl.rt.free_host(host_dst)

    acl.rt.destroy_stream(stream)
    acl.rt.reset_device_force(0)


def main():
    info("Start to run device_multi_thread sample.")
    if not (
        check(acl.init())
        and check(acl.rt.set_device(0))
        and check(acl.rt.set_device_res_limit(0, acl.ACL_RT_DEV_RES_VECTOR_CORE, 1))
    ):
        return 1

    t1 = threading.Thread(target=run_thread)
    t1.start()
    t1.join()

    if not check(acl.finalize()):
        return 1
    info("Run the device_multi_thread sample successfully.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
