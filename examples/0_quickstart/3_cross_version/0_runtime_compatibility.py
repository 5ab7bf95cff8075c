"""Port of example/0_quickstart/3_cross_version/0_runtime_compatibility (hicann/runtime).

The checks a program makes before it relies on a feature that depends on the CANN version or
the product: the "runtime" package's version (aclsysGetVersionStr / aclsysGetVersionNum), the
CANN attributes available here (aclGetCannAttributeList, then aclGetCannAttribute for the first
three), whether an operator built for this SoC runs on the device (aclrtCheckArchCompatibility
of the device's own SoC name) and one device capability (aclrtGetDeviceCapability).

The sandbox answers each from the runtime sources' tables for its simulated SoC (see
sandbox/acl/_compat.py).  Where the port differs from the README's output: the version is the
one the runtime sources declare (9.1.0, as in 2_system_info); the SoC is the sandbox's
Ascend910B2, where the README ran on an Ascend910B3 (the same architecture, so the answers are
the same).  The README's last line, "[SUCCESS] ... executed successfully.", is printed by the
sample's run.sh after it finds the program's success line, not by the program: the port stops
at the program's own last line.
"""

from sandbox import acl

DEVICE_ID = 0


def info(text):
    print(f"[INFO]  {text}")


def warn(text):
    print(f"[WARN]  {text}")


def error(text):
    print(f"[ERROR]  {text}")


class Failed(Exception):
    """CHECK_ERROR returned -1 from the function."""


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then leave the function
    if ret != acl.ACL_SUCCESS:
        error(f"Operation failed: {what} returned error code {ret}")
        raise Failed(what)


def cann_attr_to_string(attr):
    return {
        acl.ACL_CANN_ATTR_INF_NAN: "ACL_CANN_ATTR_INF_NAN",
        acl.ACL_CANN_ATTR_BF16: "ACL_CANN_ATTR_BF16",
        acl.ACL_CANN_ATTR_JIT_COMPILE: "ACL_CANN_ATTR_JIT_COMPILE",
    }.get(attr, "ACL_CANN_ATTR_UNKNOWN")


def query_cann_version():
    pkg_name = "runtime"
    version_str, ret = acl.get_version_str(pkg_name)
    check(ret, "aclsysGetVersionStr(pkgName, versionStr)")
    version_num, ret = acl.get_version_num(pkg_name)
    check(ret, "aclsysGetVersionNum(pkgName, &versionNum)")
    info(f"CANN package [{pkg_name}] version string: {version_str}")
    info(f"CANN package [{pkg_name}] version number: {version_num}")


def query_cann_attributes():
    attr_list, attr_count, ret = acl.get_cann_attribute_list()
    check(ret, "aclGetCannAttributeList(&attrList, &attrCount)")
    info(f"CANN attribute count: {attr_count}")
    for attr in attr_list[: min(attr_count, 3)]:
        value, ret = acl.get_cann_attribute(attr)
        check(ret, "aclGetCannAttribute(attrList[i], &value)")
        info(f"CANN attribute {cann_attr_to_string(attr)} support value: {value}")


def query_compatibility_and_capability(device_id):
    soc_name = acl.get_soc_name()
    if not soc_name:
        warn("aclrtGetSocName returned empty soc name. Skip architecture compatibility check.")
    else:
        can_compatible, ret = acl.rt.check_arch_compatibility(soc_name)
        check(ret, "aclrtCheckArchCompatibility(socName, &canCompatible)")
        info(f"Architecture compatibility for {soc_name}: {can_compatible}")

    capability, ret = acl.rt.get_device_capability(device_id, acl.ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV)
    check(ret, "aclrtGetDeviceCapability(deviceId, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &capability)")
    info(f"Device capability ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV: {capability}")


def main():
    check(acl.init(), "aclInit(nullptr)")
    check(acl.rt.set_device(DEVICE_ID), "aclrtSetDevice(deviceId)")

    ret = 0
    try:
        query_cann_version()
        query_cann_attributes()
        query_compatibility_and_capability(DEVICE_ID)
    except Failed:
        ret = -1

    cleanup_ret = acl.rt.reset_device_force(DEVICE_ID)
    if cleanup_ret != acl.ACL_SUCCESS:
        error(f"Operation failed: aclrtResetDeviceForce(deviceId) returned error code {cleanup_ret}")
        ret = -1 if ret == 0 else ret
    cleanup_ret = acl.finalize()
    if cleanup_ret != acl.ACL_SUCCESS:
        error(f"Operation failed: aclFinalize() returned error code {cleanup_ret}")
        ret = -1 if ret == 0 else ret
    if ret == 0:
        info("[SUCCESS] Runtime compatibility sample completed successfully")
    return ret


if __name__ == "__main__":
    raise SystemExit(main())
