"""Port of example/1_basic_features/memory/9_multistream_sync_memory (hicann/runtime).

Thread A queues aclrtValueWait on stream A: the stream may not go on until the 64-bit word at
devPtrA equals 100.  One second later thread B writes a flag file, then queues aclrtValueWrite of
100 to that word on stream B.  Stream A's synchronize returns only after B's write has reached
the word, so A reads the flag B wrote (123): the wait really held stream A.

The sample prints the device address with %p; the sandbox's addresses are fixed, so the
expected output holds them as they are.  The flag file goes into a temporary directory (the
sample's run.sh makes ``file/`` beside the program).
"""

import os
import sys
import tempfile
import threading

import numpy as np

import sandbox
from sandbox import acl


def info(text):
    print(f"[INFO]  {text}")


def error(text):
    print(f"[ERROR]  {text}")


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then stop
    if ret != acl.ACL_SUCCESS:
        error(f"Operation failed: {what} returned error code {ret}")
        sys.exit(1)


def write_file_ex(path, data):
    # memory::WriteFileEx
    info(f"Start writing to {path}")
    with open(path, "wb") as f:
        f.write(data.tobytes())


def read_file_ex(path, data):
    # memory::ReadFileEx
    info(f"Start reading from {path}")
    with open(path, "rb") as f:
        raw = f.read(data.nbytes)
    if len(raw) != data.nbytes:
        error("Partial read")
        return
    data[:] = np.frombuffer(raw, dtype=data.dtype)
    info("Read data successfully")


def thread_wait(stream, device_id, dev_ptr, value_compare, file_path):
    # Wait until the data at devPtr meets the condition
    acl.rt.set_device(device_id)

    check(
        acl.rt.value_wait(dev_ptr, value_compare, acl.ACL_STREAM_WAIT_VALUE_EQ, stream),
        "aclrtValueWait(devPtr, valueCompare, ACL_STREAM_WAIT_VALUE_EQ, stream)",
    )
    info(f"Stream A: wait for data at virtual memory = {dev_ptr:#x} to meet the condition")

    # Block until every task of the stream is done
    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
    info("Stream A: the data in the specified memory has met the condition, all tasks are complete")

    # If the wait really blocked, the flag is the one the writing thread wrote
    wait_flag = np.zeros(1, dtype=np.int32)
    read_file_ex(file_path, wait_flag)
    info(f"Flag value read by the waiting thread: {wait_flag[0]}")


def thread_write(stream, device_id, dev_ptr, value_write, file_path):
    # The writing thread writes a flag first: the waiting thread must read this one
    write_flag = np.array([123], dtype=np.int32)
    write_file_ex(file_path, write_flag)
    info(f"Flag value after the writing thread starts: {write_flag[0]}")

    # Write the value to the word at devPtr
    acl.rt.set_device(device_id)
    check(acl.rt.value_write(dev_ptr, value_write, 0, stream), "aclrtValueWrite(devPtr, valueWrite, 0, stream)")
    info(f"Stream B: write data at virtual memory = {dev_ptr:#x}")

    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
    info("Stream B: the data in the specified memory has met the condition, all tasks are complete")


def main():
    acl.init()
    device_id = 0
    acl.rt.set_device(device_id)

    # Device memory
    size = 1 * 1024 * 1024
    dev_ptr_a, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc(&devPtrA, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    info("Allocate memory on the device successfully")

    # Two streams
    stream_a, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&streamA)")
    info("Create Stream A successfully")

    stream_b, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&streamB)")
    info("Create Stream B successfully")

    with tempfile.TemporaryDirectory() as folder:
        os.mkdir(os.path.join(folder, "file"))
        os.chdir(folder)
        file_path = "file/flag.txt"

        # The waiting thread waits for the word at devPtrA to equal 100
        value_compare = 100
        wait_time_ns = 1_000_000 * 1000  # usleep(1000000): one second
        thread_a = threading.Thread(
            target=thread_wait, args=(stream_a, device_id, dev_ptr_a, value_compare, file_path), name="A"
        )
        thread_a.start()
        sandbox.host_work(wait_time_ns, "usleep")

        # The writing thread writes 100 there
        value_write = 100
        thread_b = threading.Thread(
            target=thread_write, args=(stream_b, device_id, dev_ptr_a, value_write, file_path), name="B"
        )
        thread_b.start()

        thread_b.join()
        thread_a.join()
        os.chdir(os.path.dirname(os.path.abspath(__file__)))

    acl.rt.destroy_stream_force(stream_a)
    acl.rt.destroy_stream_force(stream_b)
    acl.rt.free(dev_ptr_a)

    acl.rt.reset_device_force(device_id)
    acl.finalize()


if __name__ == "__main__":
    main()
