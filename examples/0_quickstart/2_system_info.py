"""Port of example/0_quickstart/2_system_info (hicann/runtime).

After aclInit the sample asks for the version of the "runtime" package as a string and as a
number (aclsysGetVersionStr / aclsysGetVersionNum), the run mode, converts 1.625 to an
aclFloat16 and back, and prints three data-type sizes.  The sandbox installs no CANN package:
its "runtime" version is the one the runtime sources it follows declare (9.1.0, see
sandbox/acl/_sysinfo.py), so the version lines differ from the README's "8.x.x"; the number
is made by the runtime's own rule (major * 10,000,000 + minor * 100,000 + patch * 1,000).
The sandbox runs its host code on the host, so the run mode is ACL_HOST, as in the README.
"""

import sys

from sandbox import acl


def info(text):
    print(f"[INFO]  {text}")


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR]  Operation failed: {what} returned error code {ret}")
        sys.exit(1)


def run_mode_to_string(run_mode):
    return "ACL_HOST" if run_mode == acl.ACL_HOST else "ACL_DEVICE"


def print_cann_version_info():
    pkg_name = "runtime"
    version_str, ret = acl.get_version_str(pkg_name)
    if ret != acl.ACL_SUCCESS:
        return ret
    version_num, ret = acl.get_version_num(pkg_name)
    if ret != acl.ACL_SUCCESS:
        return ret
    info(f"CANN package [{pkg_name}] version string: {version_str}")
    info(f"CANN package [{pkg_name}] version number: {version_num}")
    return acl.ACL_SUCCESS


def main():
    check(acl.init(), "aclInit(nullptr)")
    info("ACL init successfully")

    check(print_cann_version_info(), "PrintCannVersionInfo()")

    run_mode, ret = acl.rt.get_run_mode()
    check(ret, "aclrtGetRunMode(&runMode)")
    info(f"Current run mode: {run_mode_to_string(run_mode)}")

    original_value = 1.625
    fp16_value = acl.float_to_float16(original_value)
    restored_value = acl.float16_to_float(fp16_value)
    info(f"Float conversion: {original_value:.6f} -> 0x{fp16_value:04x} -> {restored_value:.6f}")
    info(
        f"Data type size: ACL_FLOAT={acl.data_type_size(acl.ACL_FLOAT)}, "
        f"ACL_FLOAT16={acl.data_type_size(acl.ACL_FLOAT16)}, ACL_INT64={acl.data_type_size(acl.ACL_INT64)}"
    )

    check(acl.finalize(), "aclFinalize()")
    info("ACL finalize successfully")


if __name__ == "__main__":
    main()
