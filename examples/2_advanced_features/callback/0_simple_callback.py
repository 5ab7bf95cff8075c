"""Port of example/2_advanced_features/callback/0_simple_callback (hicann/runtime).

The official sample starts two threads: one subscribed to the stream's callbacks
(aclrtSubscribeReport, looping on aclrtProcessReport) and one to its host functions
(aclrtSubscribeHostFunc, looping on aclrtProcessHostFunc).  It queues a BLOCK callback, a long
kernel, a host function and five more callbacks: each runs on its thread when the stream reaches
it, and the stream waits for it.  The C program prints thread ids; Python's thread idents change
from run to run, so this port prints the threads' names, which show the same thing: which thread
ran what.
"""

import inspect
import sys
import threading

import numpy as np

import sandbox
from sandbox import acl

DEVICE_ID = 0
context = stream = None


def info(message):
    print(f"[INFO]  {message}")


def check(ret):
    # the sample's CHECK_ERROR: report the line and the code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"Error at line {inspect.currentframe().f_back.f_lineno}, ret = {ret}")
        sys.exit(1)


# The kernel: a long one that adds 1 to x[0].
@sandbox.kernel(ns=2_000_000)
def long_op(x: "uint32*"):
    x[0] += 1


def thread_name():
    return threading.current_thread().name


def init():
    global context, stream
    check(acl.init())
    check(acl.rt.set_device(DEVICE_ID))
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret)
    stream, ret = acl.rt.create_stream()
    check(ret)
    check(acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE))


def thread_func(is_loop):
    wait_time = 100
    ret = acl.rt.set_context(context)
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR] aclrtSetCurrentContext failed in report thread: {ret}")
        return
    while is_loop[0]:
        acl.rt.process_report(wait_time)
    info("Report callback thread exit")


def host_func_thread_func(is_loop):
    wait_time = 100
    ret = acl.rt.set_context(context)
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR] aclrtSetCurrentContext failed in hostfunc thread: {ret}")
        return
    while is_loop[0]:
        acl.rt.process_host_func(wait_time)
    info("Hostfunc processing thread exit")


def call_back_before_launch_func(data):
    info(f"Report callback thread id is {thread_name()}")
    info(f"This callback before task, result: user data is: {data[0]}.")


def call_back_func(data):
    info(f"Report callback thread id is {thread_name()}")
    info(f"This callback after task and loop five times, result: user data is: {data[0]}.")


def host_func(data):
    info(f"Hostfunc callback thread id is {thread_name()}")
    info(f"Hostfunc executed in subscribed thread, user data is: {data[0]}.")


def callback():
    num = np.zeros(1, dtype=np.uint32)
    block_dim = 1
    size = num.nbytes
    count = 5
    num_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    check(acl.rt.memcpy(num_device, size, acl.util.numpy_to_ptr(num), size, acl.ACL_MEMCPY_HOST_TO_DEVICE))

    is_report_loop, is_host_func_loop = [True], [True]
    report_thread = threading.Thread(target=thread_func, args=(is_report_loop,), name="report")
    host_func_thread = threading.Thread(target=host_func_thread_func, args=(is_host_func_loop,), name="hostfunc")
    report_thread.start()
    host_func_thread.start()

    info(f"The main thread id is {thread_name()}")
    info(f"The created report thread id is {report_thread.name}")
    info(f"The created hostfunc thread id is {host_func_thread.name}")

    user_data = [520]
    check(acl.rt.subscribe_report(report_thread.ident, stream))
    check(acl.rt.subscribe_host_func(host_func_thread.ident, stream))

    check(acl.rt.launch_callback(call_back_before_launch_func, user_data, acl.ACL_CALLBACK_BLOCK, stream))
    long_op[block_dim, stream](num_device)
    check(acl.rt.launch_host_func(stream, host_func, user_data))
    info("After begin a task, launch one hostfunc and five callbacks.")
    for _ in range(count):
        check(acl.rt.launch_callback(call_back_func, user_data, acl.ACL_CALLBACK_BLOCK, stream))

    check(acl.rt.synchronize_stream(stream))
    check(acl.rt.memcpy(acl.util.numpy_to_ptr(num), size, num_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST))
    info(f"After assigning the task, the current int is: {num[0]}.")

    is_report_loop[0] = False
    is_host_func_loop[0] = False
    report_thread.join()
    host_func_thread.join()
    check(acl.rt.unsubscribe_report(report_thread.ident, stream))
    check(acl.rt.unsubscribe_host_func(host_func_thread.ident, stream))
    check(acl.rt.free(num_device))


def destroy():
    check(acl.rt.destroy_stream_force(stream))
    check(acl.rt.destroy_context(context))
    check(acl.rt.reset_device_force(DEVICE_ID))
    check(acl.finalize())


if __name__ == "__main__":
    init()
    callback()
    destroy()
