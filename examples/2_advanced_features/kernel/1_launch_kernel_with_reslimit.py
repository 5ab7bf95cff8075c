"""Port of example/2_advanced_features/kernel/1_launch_kernel_with_reslimit (hicann/runtime).

The official sample limits the process to 8 cube cores of device 0 (aclrtSetDeviceResLimit),
reads the limit back and launches a kernel with that many blocks, each printing "Hello World".
A sandbox kernel body runs once for all its blocks (with numpy), so the print kernel takes the
block count as an argument and prints once per block.  Kernels launched after the limit take at
most 8 AI cores: the timeline shows the launch on 8 of the device's 24 cores.  The README's
first lines come from the build script, not from the program.
"""

import inspect
import sys

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


# The print kernel: every block prints one line.
@sandbox.kernel(ns=5_000)
def print_kernel(blocks: int):
    for _ in range(blocks):
        print("Hello World")


def print_do(core_dim, stream):
    return print_kernel[core_dim, stream](core_dim)


def update_final_result_on_error(api_name, ret, final_result):
    if ret == acl.ACL_SUCCESS:
        return final_result
    print(f"[ERROR] Operation failed: {api_name} returned error code {ret}")
    return -1


def launch_print_kernel_with_current_res_limit(device_id, res_type, stream):
    # Query the resource limit and use it as the print kernel's block dimension.
    core_dim, ret = acl.rt.get_device_res_limit(device_id, res_type)
    if not check(ret):
        return -1
    info(f"Current device resource limit type {res_type} is {core_dim}.")
    print_do(core_dim, stream)
    if not check(acl.rt.synchronize_stream(stream)):
        return -1
    return 0


def main():
    device_id = 0
    res_limit_type = acl.ACL_RT_DEV_RES_CUBE_CORE
    block_dim = 8
    done = {"init": False, "device": False, "stream": None}

    def run():
        if not check(acl.init()):
            return -1
        done["init"] = True
        info("ACL initialized.")

        if not check(acl.rt.set_device(device_id)):
            return -1
        done["device"] = True
        info(f"Device {device_id} selected.")

        stream, ret = acl.rt.create_stream()
        if not check(ret):
            return -1
        done["stream"] = stream
        info("Stream created.")

        # Set the process-level device resource limit before launching the kernel.
        if not check(acl.rt.set_device_res_limit(device_id, res_limit_type, block_dim)):
            return -1
        info(f"Device resource limit type {res_limit_type} set to {block_dim}.")
        return launch_print_kernel_with_current_res_limit(device_id, res_limit_type, stream)

    final_result = run()
    if done["stream"] is not None:
        final_result = update_final_result_on_error(
            "aclrtDestroyStreamForce(stream)", acl.rt.destroy_stream_force(done["stream"]), final_result
        )
    if done["device"]:
        final_result = update_final_result_on_error(
            "aclrtResetDeviceForce(deviceId)", acl.rt.reset_device_force(device_id), final_result
        )
    if done["init"]:
        final_result = update_final_result_on_error("aclFinalize()", acl.finalize(), final_result)
    if final_result == 0:
        info("Run the launch_kernel_with_reslimit sample successfully.")
    return final_result


if __name__ == "__main__":
    sys.exit(main())
