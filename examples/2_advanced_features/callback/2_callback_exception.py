"""Port of example/2_advanced_features/callback/2_callback_exception (hicann/runtime).

The official sample registers an exception-info callback, launches a kernel that works and one
that fails on a stop-on-failure stream, and reads the failing task's ids in the callback.  The
runtime calls the callback from its own thread when the failure happens on the device (the
timeline shows it on the row "exception callback (device 0)"), before the synchronize that
returns the code.  The error kernel here raises inside its body, which the sandbox reports as an
AI Core exception (507015).  Ids are the sandbox's: task and thread ids are those of its trace.
The C callback also calls aclrtGetArgsFromExceptionInfo and aclrtGetFuncHandleFromExceptionInfo;
the sandbox's kernels have no device argument block or function handle, so the port leaves them
out (the README's output does not show them either).

The README's sample output stops at "Thread exit" and a last line printed by the run script; the
program also prints the diagnostics after the failed synchronize and the failed copy back (the
context stopped on the failure), which this port prints as the program does.
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


def error(message):
    print(f"[ERROR]  {message}")


def check(ret):
    # the sample's CHECK_ERROR: report the line and the code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"Error at line {inspect.currentframe().f_back.f_lineno}, ret = {ret}")
        sys.exit(1)


# The kernels: easy_op adds 1 to x[0]; error_op fails on the device.
@sandbox.kernel(ns=10_000)
def easy_op(x: "uint32*"):
    x[0] += 1


@sandbox.kernel(ns=10_000)
def error_op():
    raise RuntimeError("error_op: illegal instruction")


def log_runtime_error_state(device_id, stage):
    error_info, verbose_ret = acl.rt.get_error_verbose(device_id)
    if verbose_ret == acl.ACL_SUCCESS:
        info(
            f"{stage} verbose error info: errorType={error_info['errorType']}, "
            f"tryRepair={error_info['tryRepair']}, hasDetail={error_info['hasDetail']}"
        )
    else:
        print(f"[WARN]  {stage} aclrtGetErrorVerbose failed with error code {verbose_ret}")
    peek_error = acl.rt.peek_at_last_error(acl.ACL_RT_THREAD_LEVEL)
    last_error = acl.rt.get_last_error(acl.ACL_RT_THREAD_LEVEL)
    recent_err_msg = acl.get_recent_err_msg()
    error(
        f"{stage} runtime diagnostics: peekErr={peek_error}, lastErr={last_error}, "
        f"recentErrMsg={recent_err_msg or '<null>'}"
    )


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
    acl.rt.set_context(context)
    while is_loop[0]:
        acl.rt.process_report(wait_time)
    info("Thread exit")


def call_back_func(data):
    info(f"After error still callback, the userdata is: {data[0]}.")


def exception_call_back_func(exception_info):
    info("Exception occurred, callback function.")
    info(f"The error task id is {acl.rt.get_task_id_from_exception_info(exception_info)}.")
    info(f"The error stream id is {acl.rt.get_stream_id_from_exception_info(exception_info)}.")
    info(f"The error thread id is {acl.rt.get_thread_id_from_exception_info(exception_info)}.")
    info(f"The error device id is {acl.rt.get_device_id_from_exception_info(exception_info)}.")
    info(f"The error code id is {acl.rt.get_error_code_from_exception_info(exception_info)}.")


def callback():
    num = np.zeros(1, dtype=np.uint32)
    block_dim = 1
    size = num.nbytes
    num_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    check(acl.rt.memcpy(num_device, size, acl.util.numpy_to_ptr(num), size, acl.ACL_MEMCPY_HOST_TO_DEVICE))

    is_loop = [True]
    td = threading.Thread(target=thread_func, args=(is_loop,))
    td.start()
    user_data = [520]
    check(acl.rt.subscribe_report(td.ident, stream))
    check(acl.rt.set_exception_info_callback(exception_call_back_func))
    info("Begin an easy task and an error task. The error task will trigger the exception callback.")

    easy_op[block_dim, stream](num_device)
    error_op[block_dim, stream]()
    task_id, ret = acl.rt.get_thread_last_task_id()
    check(ret)
    info(f"The last task id is: {task_id}.")
    check(acl.rt.launch_callback(call_back_func, user_data, acl.ACL_CALLBACK_BLOCK, stream))

    sync_ret = acl.rt.synchronize_stream(stream)
    if sync_ret != acl.ACL_SUCCESS:
        error(f"aclrtSynchronizeStream(stream_) returned error code {sync_ret}")
        log_runtime_error_state(DEVICE_ID, "Post synchronize diagnostics")

    memcpy_ret = acl.rt.memcpy(acl.util.numpy_to_ptr(num), size, num_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    if memcpy_ret == acl.ACL_SUCCESS:
        info(f"After assigning the task, the current num is: {num[0]}.")
    else:
        error(f"aclrtMemcpy after error returned error code {memcpy_ret}")

    is_loop[0] = False
    td.join()
    check(acl.rt.unsubscribe_report(td.ident, stream))
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
