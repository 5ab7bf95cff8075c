"""Port of example/2_advanced_features/built_in_task/1_random_num_task (hicann/runtime).

The official sample fills a device buffer with the runtime's built-in random-number task
(aclrtRandomNumAsync) five times on one stream, sharing one 16-byte counter that starts at zero
and seed 0: 128 normal floats (mean 3, stddev 2), 128 truncated normal BF16 values (mean 1,
stddev 2), 128 uniform FP16 values in [1, 2), 128 uniform INT32 values in [1, 100) and a dropout
bitmask (ratio 0.4), printing the first five of each after a copy back to the host.

The task info is a C struct the sample fills member by member (valueOrAddr, size and isAddr of
each parameter); here it is a dict of the struct's members, as pyACL passes structs, with each
immediate parameter a plain number (sandbox/acl/_random.py).  The sample writes the BF16 and FP16
parameters as their bits (0x3F80 for 1.0); the dict takes the numbers 1.0, 2.0, and the results
are printed as bits, as the sample prints them.

Where the port differs: the values are the sandbox's own (Philox4x32-10 keyed by the seed over
the shared counter, which each task advances: the five draws continue one sequence), not the
device's; the README's output shows "..." for them.  The README leaves out the blank line the
program prints before each later part, the results after the first and the trailing space of
each heading; the port prints the blank lines and the five results, without the trailing space.
"""

import inspect
import sys

import numpy as np

from sandbox import acl


def check(ret):
    # the sample's CHECK_ERROR: report the line and the code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"Error at line {inspect.currentframe().f_back.f_lineno}, ret = {ret}")
        sys.exit(1)


def c_hex(value):
    # printf's %#x: 0x and the hex digits, but a bare 0 for zero
    return f"{int(value):#x}" if value else "0"


def random_num(data_type, func_type, param_info, seed, num, counter_dev_addr, dev_output, stream):
    """One aclrtRandomNumTaskInfo, as the sample's helpers fill it, and the launch."""
    task_info = {
        "dataType": data_type,
        "randomNumFuncParaInfo": {"funcType": func_type, "paramInfo": param_info},
        "randomParaAddr": 0,  # NULL: the runtime's own parameter buffer
        "randomCounterAddr": counter_dev_addr,
        "randomResultAddr": dev_output,
        "randomSeed": seed,  # immediate values (isAddr 0) of 8 bytes
        "randomNum": num,
    }
    return acl.rt.random_num_async(task_info, stream, None)


def normal_float_async(mean, stddev, is_truncated, seed, num, counter_dev_addr, dev_output, stream):
    func = (
        acl.ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS
        if is_truncated
        else acl.ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS
    )
    params = {"normalDisInfo": {"mean": mean, "stddev": stddev}}
    return random_num(acl.ACL_FLOAT, func, params, seed, num, counter_dev_addr, dev_output, stream)


def normal_bf16_async(mean, stddev, is_truncated, seed, num, counter_dev_addr, dev_output, stream):
    func = (
        acl.ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS
        if is_truncated
        else acl.ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS
    )
    params = {"normalDisInfo": {"mean": mean, "stddev": stddev}}
    return random_num(acl.ACL_BF16, func, params, seed, num, counter_dev_addr, dev_output, stream)


def uniform_float16_async(low, high, seed, num, counter_dev_addr, dev_output, stream):
    params = {"uniformDisInfo": {"min": low, "max": high}}
    func = acl.ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS
    return random_num(acl.ACL_FLOAT16, func, params, seed, num, counter_dev_addr, dev_output, stream)


def uniform_int32_async(low, high, seed, num, counter_dev_addr, dev_output, stream):
    params = {"uniformDisInfo": {"min": low, "max": high}}
    func = acl.ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS
    return random_num(acl.ACL_INT32, func, params, seed, num, counter_dev_addr, dev_output, stream)


def dropout_bitmask(ratio, seed, num, counter_dev_addr, dev_output, stream):
    params = {"dropoutBitmaskInfo": {"dropoutRation": ratio}}  # the ratio is a float (dataType ACL_FLOAT)
    func = acl.ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK
    return random_num(acl.ACL_FLOAT, func, params, seed, num, counter_dev_addr, dev_output, stream)


def copy_back(host_output, dev_output, size):
    check(acl.rt.memcpy(acl.util.numpy_to_ptr(host_output), size, dev_output, size, acl.ACL_MEMCPY_DEVICE_TO_HOST))


def main():
    check(acl.init())
    check(acl.rt.set_device(0))

    stream, ret = acl.rt.create_stream()
    check(ret)

    seed = 0
    num = 128
    size = num * 8  # room for 128 values of the largest type (uint64)
    dev_output, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    host_output = np.zeros(size, dtype=np.uint8)

    # the random-number state: a 16-byte counter in device memory, zeroed
    counter_size = 16
    counter_addr, ret = acl.rt.malloc(counter_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    check(acl.rt.memset(counter_addr, counter_size, 0, counter_size))

    print("Gen normal distribution random num, data type: float")
    check(normal_float_async(3.0, 2.0, False, seed, num, counter_addr, dev_output, stream))
    check(acl.rt.synchronize_stream(stream))
    copy_back(host_output, dev_output, size)
    for i, value in enumerate(host_output.view(np.float32)[:5]):
        print(f"Random result[{i}] = {value:f}")

    print("\nGen truncated normal distribution random num, data type: BF16")
    check(normal_bf16_async(1.0, 2.0, True, seed, num, counter_addr, dev_output, stream))  # bf16 1.0 and 2.0
    check(acl.rt.synchronize_stream(stream))
    copy_back(host_output, dev_output, size)
    for i, bits in enumerate(host_output.view(np.uint16)[:5]):
        print(f"Random result[{i}] = {c_hex(bits)}")

    print("\nGen uniform distribution random num, data type: FP16")
    check(uniform_float16_async(1.0, 2.0, seed, num, counter_addr, dev_output, stream))  # fp16 1.0 and 2.0
    check(acl.rt.synchronize_stream(stream))
    copy_back(host_output, dev_output, size)
    for i, bits in enumerate(host_output.view(np.uint16)[:5]):
        print(f"Random result[{i}] = {c_hex(bits)}")

    print("\nGen uniform distribution random num, data type: INT32")
    check(uniform_int32_async(1, 100, seed, num, counter_addr, dev_output, stream))
    check(acl.rt.synchronize_stream(stream))
    copy_back(host_output, dev_output, size)
    for i, value in enumerate(host_output.view(np.int32)[:5]):
        print(f"Random result[{i}] = {value}")

    print("\nGen dropout bitmask, output data type: UINT8")
    check(dropout_bitmask(0.4, seed, num, counter_addr, dev_output, stream))
    check(acl.rt.synchronize_stream(stream))
    copy_back(host_output, dev_output, size)
    for i, value in enumerate(host_output[:5]):
        print(f"Random result[{i}] = {value}")

    # Release
    acl.rt.free(dev_output)
    acl.rt.free(counter_addr)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device_force(0)
    acl.finalize()
    print("Sample Run Successfully.")


if __name__ == "__main__":
    main()
