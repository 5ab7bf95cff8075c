"""Cross-version checks: CANN attributes, SoC architecture compatibility, device capabilities.

Each answer comes from the tables the runtime sources give (snapshot 681ef76 of hicann/runtime,
line numbers of that snapshot), applied to the simulated SoC (``profile.soc_name``,
``profile.npu_arch``); the SoC tables below are the platform configs' own figures
(``src/platform/platform_config/*/<SoC>.ini``: ``[version] NpuArch`` and ``Chip_type``,
``[SoCInfo] support_bf16`` / ``support_inf_nan``).

**aclGetCannAttributeList / aclGetCannAttribute** (``src/acl/aclrt_impl/acl.cpp:1330-1353``,
``src/acl/utils/cann_info_utils.cpp``).  The three attributes (85-89) are INF_NAN and BF16,
which need the SoC's ``[SoCInfo] support_inf_nan`` / ``support_bf16`` to read "1" (242-260: a
missing key is "not available"), and JIT_COMPILE, which does not depend on the chip.  Each also
needs the installed runtime to be at least the version ``src/acl/config/swFeatureList.json``
names (INF_NAN 7.1, BF16 7.1, JIT_COMPILE 6.4), compared as 1000 * major + 10 * minor (219-231).
The runtime package's version is the sandbox's one package, the version of the sources
(acl/_sysinfo.py: 9.1.0 -> 9010), so every version condition holds; whether the answer is 1
is the chip's.  The list holds the available attributes in enum order (262-273: the map is
ordered by aclCannAttr); aclGetCannAttribute answers 1 or 0 for each of the three, and 100000
for any other value (111-115).  On an Ascend910B2 all three are available; on an Ascend310P3
or Ascend310B1 only JIT_COMPILE (their configs have no support_bf16 / support_inf_nan).

**aclrtCheckArchCompatibility** (``src/acl/aclrt_impl/device.cpp:591-598``; the runtime's
``api_error.cc:5049-5063`` and ``api_impl.cc:6245-6269``, ``core/src/common/soc_info.cc:58-75``):
1 when the named SoC's NpuArch is the device's, else 0.  A null or empty name, or a name with
no platform config, is 107000 ACL_ERROR_RT_PARAM_INVALID (RT_ERROR_INVALID_VALUE).  The device's
NpuArch is the profile's (2201 on an Ascend910B2).  By the configs, "Ascend910B" (without a
number) has NpuArch 1001, the Ascend910 family's, so it is not compatible with an Ascend910B2.

**aclrtGetDeviceCapability** (``src/acl/aclrt_impl/device.cpp:322-332``; the runtime's
``api/api_c_device.cc:512-557``, ``impl/api_error.cc:4895-4921``, ``impl/api_impl.cc:5887-5925``
and ``6336-6357``).  A feature type outside [0, RT_DEV_FEATURE_MAX) or not one the runtime
knows is 107000; an invalid device id 107001 (the decorator's ChgUserDevIdToDeviceId).

* ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV (1): needs a current context (else 107002
  ACL_ERROR_RT_CONTEXT_NULL), whose device's chip type must have the optional feature
  RT_FEATURE_KERNEL_TILING_KEY_SINK (``src/runtime/config/{dc,910_B_93,950,350}/dev_info_reg.cc``:
  chip types 4, 5, 15, 19) and whose TS firmware must report TS_FEATURE_TILING_KEY_SINK.  The
  firmware is a package the sandbox does not have; the sources' own simulation scene
  (``RawDevice::SetTschVersionForCmodel``, ``core/src/device/raw_device.hpp:230-234``) takes
  TS_VERSION_LATEST, which has the feature (``core/src/utils/capability.cc:105-152``), and so does
  the sandbox: 1 on an Ascend910B2 (as the official sample's README shows on an Ascend910B3)
  and an Ascend310P3, 0 on an Ascend310B1 (chip type 7).
* ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV (21) asks the installed driver's API version
  (``src/runtime/driver/npu_driver_queue.cc:881-897``); the sandbox has no driver package, so it
  answers as a driver without the query does: 207000 ACL_ERROR_RT_FEATURE_NOT_SUPPORT.  So do
  the runtime's two internal types outside aclrtDevFeatureType (10001 AICPU schedule type, 20001
  task-id bit width), which ask the AI CPU firmware and the driver.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import (
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
    ACL_ERROR_RT_PARAM_INVALID,
    describe,
    fail,
)
from ._declare import Kind, api
from ._sysinfo import RUNTIME_SOURCES_VERSION

# aclCannAttr (include/external/acl/acl_base_rt.h:211-216)
ACL_CANN_ATTR_UNDEFINED = -1
ACL_CANN_ATTR_INF_NAN = 0
ACL_CANN_ATTR_BF16 = 1
ACL_CANN_ATTR_JIT_COMPILE = 2

# aclrtDevFeatureType (include/external/acl/acl_rt.h:703-706)
ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV = 1
ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV = 21
_RT_INTERNAL_FEATURES = (10001, 20001)  # pkg_inc/runtime/rt_external_device.h:381-387
_RT_DEV_FEATURE_MAX = 20002

# Each platform config: NpuArch, Chip_type, whether [SoCInfo] has support_bf16=1 and
# support_inf_nan=1 (True: both; False: neither key), and the SoCs of that row.
_SOC_ROWS: tuple[tuple[int, int, bool, str], ...] = (
    (1001, 1, False, "Ascend910A Ascend910B Ascend910PremiumA Ascend910ProA Ascend910ProB"),
    (2002, 4, False, "Ascend310P1 Ascend310P3 Ascend310P5 Ascend310P7"),
    (
        2201,
        5,
        True,
        "Ascend910B1 Ascend910B2 Ascend910B2C Ascend910B3 Ascend910B4 Ascend910B4-1 Ascend910_9362 "
        "Ascend910_9363 Ascend910_9372 Ascend910_9381 Ascend910_9382 Ascend910_9391 Ascend910_9392",
    ),
    (3002, 7, False, "Ascend310B1 Ascend310B2 Ascend310B3 Ascend310B4"),
    (3004, 8, False, "Ascend031"),
    (3505, 9, False, "Ascend035 Ascend035A Ascend035B"),
    (3510, 19, True, "Ascend350_354f Ascend350_355e"),
    (
        3510,
        15,
        True,
        "Ascend950DT_950x Ascend950DT_950y Ascend950DT_9571 Ascend950DT_9572 Ascend950DT_9573 "
        "Ascend950DT_9574 Ascend950DT_9575 Ascend950DT_9576 Ascend950DT_9577 Ascend950DT_9578 "
        "Ascend950DT_9581 Ascend950DT_9581x Ascend950DT_9582 Ascend950DT_9582x Ascend950DT_9583 "
        "Ascend950DT_9584 Ascend950DT_9585 Ascend950DT_9586 Ascend950DT_9587 Ascend950DT_9588 "
        "Ascend950DT_9591 Ascend950DT_9592 Ascend950DT_9595 Ascend950DT_9596 Ascend950DT_95A1 "
        "Ascend950DT_95A2 Ascend950PR_950z Ascend950PR_9579 Ascend950PR_957b Ascend950PR_957bx "
        "Ascend950PR_957c Ascend950PR_957d Ascend950PR_9589 Ascend950PR_958b Ascend950PR_9599",
    ),
    (3003, 200, False, "KirinX90"),
    (3113, 201, False, "Kirin9030"),
    (5101, 202, False, "KirinDev0000"),
    (5161, 203, False, "KirinDev0001"),
    (5165, 204, False, "KirinDev0002"),
    (5163, 205, False, "KirinDev0003"),
)
SOCS: dict[str, tuple[int, int, bool]] = {
    name: (arch, chip, bf16_inf_nan) for arch, chip, bf16_inf_nan, names in _SOC_ROWS for name in names.split()
}
TILING_KEY_SINK_CHIPS = frozenset({4, 5, 15, 19})  # CHIP_DC, CHIP_910_B_93, CHIP_DAVID, CHIP_ASCEND_350

# aclCannAttr -> (name, whether it needs the SoC's support_* key, minimum runtime version)
CANN_ATTRS = {
    ACL_CANN_ATTR_INF_NAN: ("INF_NAN", True, "7.1"),
    ACL_CANN_ATTR_BF16: ("BF16", True, "7.1"),
    ACL_CANN_ATTR_JIT_COMPILE: ("JIT_COMPILE", False, "6.4"),
}


def version_value(text: str) -> int:
    """cann_info_utils.cpp ParseVersionValue of "major.minor[...]": 1000 * major + 10 * minor."""
    major, minor = text.split(".")[:2]
    return 1000 * int(major) + 10 * int(minor)


def available_attrs(soc_name: str) -> tuple[int, ...]:
    """The attributes the runtime finds available on this SoC, in enum order."""
    runtime = version_value(RUNTIME_SOURCES_VERSION)
    chip_has_them = SOCS.get(soc_name, (0, 0, False))[2]  # an unknown SoC: no platform info, not available
    return tuple(
        attr
        for attr, (_, needs_soc, minimum) in sorted(CANN_ATTRS.items())
        if runtime >= version_value(minimum) and (chip_has_them or not needs_soc)
    )


def _soc_version(value, what: str) -> str:
    if value is not None and not isinstance(value, str):
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be a SoC version (a str), got {describe(value)}")
    if not value:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{what} is null or empty: pass a SoC version such as 'Ascend910B2'")
    return value


if TYPE_CHECKING:  # to a type checker, a kind is the type the body gets
    soc_version = str
else:
    soc_version = Kind(_soc_version)


@api("aclGetCannAttributeList", defaults=((), 0))
def get_cann_attribute_list(m, th):
    """aclGetCannAttributeList: ``(attr_list, num, ret)``, the available aclCannAttr values (module docstring)."""
    attrs = available_attrs(m.profile.soc_name)
    return attrs, len(attrs)


@api("aclGetCannAttribute", defaults=(0,))
def get_cann_attribute(m, th, cann_attr: int):
    """aclGetCannAttribute: ``(value, ret)``, 1 when the attribute is available here, else 0."""
    if cann_attr not in CANN_ATTRS:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"cannAttr {cann_attr} is not an aclCannAttr: ACL_CANN_ATTR_INF_NAN (0), ACL_CANN_ATTR_BF16 (1) "
            "or ACL_CANN_ATTR_JIT_COMPILE (2)",
        )
    return int(cann_attr in available_attrs(m.profile.soc_name))


def check_arch_compatibility(m, th, soc_version: str) -> int:
    """aclrtCheckArchCompatibility: 1 when ``soc_version``'s NpuArch is the device's, else 0."""
    if soc_version not in SOCS:
        fail(
            ACL_ERROR_RT_PARAM_INVALID,
            f"SoC version {describe(soc_version)} is invalid: no platform config has that name",
        )
    return int(SOCS[soc_version][0] == m.profile.npu_arch)


def device_capability(m, th, device_id: int, feature: int) -> int:
    """aclrtGetDeviceCapability: the value of one aclrtDevFeatureType (module docstring)."""
    known = (ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV)
    if not 0 <= feature < _RT_DEV_FEATURE_MAX or feature not in known + _RT_INTERNAL_FEATURES:
        fail(
            ACL_ERROR_RT_PARAM_INVALID,
            f"devFeatureType {feature} is invalid: ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV (1) or "
            "ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV (21)",
        )
    m.device(device_id)  # 107001 for an invalid id
    if feature != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV:
        fail(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            f"devFeatureType {feature} asks the installed driver or AI CPU firmware, which the sandbox does not "
            "have (it models the runtime, not the driver packages)",
        )
    m.current_context(th)  # 107002 without one
    chip = SOCS.get(m.profile.soc_name, (0, -1, False))[1]
    return int(chip in TILING_KEY_SINK_CHIPS)
