"""Port of example/1_basic_features/context/0_context_query (hicann/runtime).

The official sample creates a context, makes it current, checks it is the current one, reads
its default stream and what the thread may use of the device's cube and vector cores (no limit
is set, so the hardware figures: 24 and 48 on the sandbox's Ascend910B2), and destroys it.  The
stream is printed as its handle (the C program prints a pointer).  The README's last line
("... executed successfully.") is printed by the sample's run script, not by the program.
"""

import inspect
import sys

from sandbox import acl

DEVICE_ID = 0


def info(message):
    print(f"[INFO]  {message}")


def check(ret):
    # the sample's CHECK_ERROR: report the line and the code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"Error at line {inspect.currentframe().f_back.f_lineno}, ret = {ret}")
        sys.exit(1)


def run_context_query_sample():
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret)
    try:  # the C sample's ContextGuard
        check(acl.rt.set_context(context))

        current_context, ret = acl.rt.get_context()
        check(ret)
        if current_context != context:
            print("[ERROR] Current context is different from the created context.")
            return -1
        info("Get current context successfully")

        default_stream, ret = acl.rt.ctx_get_current_default_stream()
        check(ret)
        info(f"Get current default stream successfully, stream={default_stream:#x}")

        cube_core_limit, ret = acl.rt.get_res_in_current_thread(acl.ACL_RT_DEV_RES_CUBE_CORE)
        check(ret)
        info(f"Get current thread cube core limit: {cube_core_limit}")

        vector_core_limit, ret = acl.rt.get_res_in_current_thread(acl.ACL_RT_DEV_RES_VECTOR_CORE)
        check(ret)
        info(f"Get current thread vector core limit: {vector_core_limit}")

        check(acl.rt.destroy_context(context))
        context = None
        info("[SUCCESS] Context query sample completed successfully")
        return 0
    finally:
        if context is not None:
            acl.rt.destroy_context(context)


def main():
    check(acl.init())
    check(acl.rt.set_device(DEVICE_ID))

    ret = run_context_query_sample()

    check(acl.rt.reset_device_force(DEVICE_ID))
    check(acl.finalize())
    return ret


if __name__ == "__main__":
    sys.exit(main())
