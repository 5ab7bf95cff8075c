"""CANN attributes, SoC architecture compatibility and device capabilities (sandbox/acl/_compat.py)."""

from __future__ import annotations

import pytest

import sandbox
from sandbox import acl
from sandbox.acl import _compat

TASK_UPDATE = acl.ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV
ALL_ATTRS = (acl.ACL_CANN_ATTR_INF_NAN, acl.ACL_CANN_ATTR_BF16, acl.ACL_CANN_ATTR_JIT_COMPILE)


def on(profile):
    sandbox.configure(profile)
    assert acl.init() == 0


# -- aclGetCannAttributeList / aclGetCannAttribute ----------------------------------------------------
def test_a_910b2_has_all_three_cann_attributes_in_enum_order(machine):
    assert acl.get_cann_attribute_list() == (ALL_ATTRS, 3, 0)
    assert [acl.get_cann_attribute(a) for a in ALL_ATTRS] == [(1, 0)] * 3


@pytest.mark.parametrize("profile", ["ascend310p", "ascend310b"])
def test_a_soc_without_bf16_and_inf_nan_in_its_config_has_only_jit_compile(profile):
    on(profile)
    assert acl.get_cann_attribute_list() == ((acl.ACL_CANN_ATTR_JIT_COMPILE,), 1, 0)
    assert acl.get_cann_attribute(acl.ACL_CANN_ATTR_BF16) == (0, 0)
    assert acl.get_cann_attribute(acl.ACL_CANN_ATTR_INF_NAN) == (0, 0)
    assert acl.get_cann_attribute(acl.ACL_CANN_ATTR_JIT_COMPILE) == (1, 0)


def test_a_soc_with_no_platform_config_has_only_the_attributes_that_do_not_depend_on_the_chip():
    sandbox.core.current_machine.configure(sandbox.profiles.ASCEND_910B.with_(soc_name="Unknown1"))
    assert acl.get_cann_attribute_list()[:2] == ((acl.ACL_CANN_ATTR_JIT_COMPILE,), 1)


def test_an_attribute_needs_the_runtime_version_its_feature_list_names(machine, monkeypatch):
    assert _compat.version_value("9.1.0") == 9010 and _compat.version_value("7.1") == 7010
    monkeypatch.setattr(_compat, "RUNTIME_SOURCES_VERSION", "7.0.0")  # below BF16's and INF_NAN's 7.1
    assert acl.get_cann_attribute_list()[:2] == ((acl.ACL_CANN_ATTR_JIT_COMPILE,), 1)
    monkeypatch.setattr(_compat, "RUNTIME_SOURCES_VERSION", "6.3.0")  # below JIT_COMPILE's 6.4
    assert acl.get_cann_attribute_list()[:2] == ((), 0)
    assert acl.get_cann_attribute(acl.ACL_CANN_ATTR_JIT_COMPILE) == (0, 0)


@pytest.mark.parametrize("attr", [acl.ACL_CANN_ATTR_UNDEFINED, 3, 100])
def test_get_cann_attribute_of_a_value_outside_acl_cann_attr_is_100000(machine, attr):
    assert acl.get_cann_attribute(attr) == (0, acl.ACL_ERROR_INVALID_PARAM)
    assert "is not an aclCannAttr" in acl.get_recent_err_msg()


def test_cann_attributes_can_be_read_before_acl_init():
    sandbox.configure("ascend910b")
    assert acl.get_cann_attribute_list()[-1] == 0 and acl.get_cann_attribute(0) == (1, 0)


# -- aclrtCheckArchCompatibility ---------------------------------------------------------------------
def test_a_soc_of_the_devices_architecture_is_compatible(machine):
    for soc in ("Ascend910B2", "Ascend910B3", "Ascend910B4-1", "Ascend910_9392"):
        assert acl.rt.check_arch_compatibility(soc) == (1, 0), soc


def test_a_soc_of_another_architecture_is_not_compatible(machine):
    for soc in ("Ascend310P3", "Ascend310B1", "Ascend950PR_9599", "Ascend910A"):
        assert acl.rt.check_arch_compatibility(soc) == (0, 0), soc


def test_ascend910b_without_a_number_has_the_ascend910_architecture_by_its_config(machine):
    assert acl.rt.check_arch_compatibility("Ascend910B") == (0, 0)
    assert acl.rt.check_arch_compatibility("Ascend910ProB") == (0, 0)


def test_the_answer_follows_the_simulated_soc():
    on("ascend310p")
    assert acl.rt.check_arch_compatibility(acl.get_soc_name()) == (1, 0)
    assert acl.rt.check_arch_compatibility("Ascend310P1") == (1, 0)
    assert acl.rt.check_arch_compatibility("Ascend910B2") == (0, 0)


@pytest.mark.parametrize("name", [None, "", "Ascend999", "ascend910b2"])
def test_a_null_empty_or_unknown_soc_version_is_107000(machine, name):
    assert acl.rt.check_arch_compatibility(name) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


def test_a_soc_version_that_is_not_a_string_is_100000(machine):
    assert acl.rt.check_arch_compatibility(2201) == (0, acl.ACL_ERROR_INVALID_PARAM)


# -- aclrtGetDeviceCapability ------------------------------------------------------------------------
def test_task_update_is_supported_on_a_910b2(machine):
    assert acl.rt.set_device(0) == 0
    assert acl.rt.get_device_capability(0, TASK_UPDATE) == (1, 0)


@pytest.mark.parametrize(("profile", "value"), [("ascend310p", 1), ("ascend310b", 0)])
def test_task_update_follows_the_chip_types_optional_features(profile, value):
    on(profile)
    assert acl.rt.set_device(0) == 0
    assert acl.rt.get_device_capability(0, TASK_UPDATE) == (value, 0)


def test_task_update_without_a_current_context_is_107002(machine):
    assert acl.rt.get_device_capability(0, TASK_UPDATE) == (0, acl.ACL_ERROR_RT_CONTEXT_NULL)


def test_an_invalid_device_id_is_107001(machine):
    assert acl.rt.set_device(0) == 0
    assert acl.rt.get_device_capability(8, TASK_UPDATE) == (0, acl.ACL_ERROR_RT_INVALID_DEVICEID)
    assert acl.rt.get_device_capability(-1, TASK_UPDATE) == (0, acl.ACL_ERROR_RT_INVALID_DEVICEID)


@pytest.mark.parametrize("feature", [-1, 0, 2, 20, 10000, 20002, 99999])
def test_a_feature_type_the_runtime_does_not_know_is_107000(machine, feature):
    assert acl.rt.set_device(0) == 0
    assert acl.rt.get_device_capability(0, feature) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


def test_the_feature_type_is_checked_before_the_device_id(machine):
    assert acl.rt.get_device_capability(99, 5) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


@pytest.mark.parametrize("feature", [acl.ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, 10001, 20001])
def test_a_feature_the_driver_answers_is_207000_without_a_driver(machine, feature):
    assert acl.rt.set_device(0) == 0
    assert acl.rt.get_device_capability(0, feature) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert "driver" in acl.get_recent_err_msg()


def test_the_sample_socs_names_and_figures_come_from_their_platform_configs():
    assert _compat.SOCS["Ascend910B2"] == (2201, 5, True)
    assert _compat.SOCS["Ascend310P3"] == (2002, 4, False)
    assert _compat.SOCS["Ascend310B1"] == (3002, 7, False)
    for profile in sandbox.profiles.PROFILES.values():
        assert _compat.SOCS[profile.soc_name][0] == profile.npu_arch, profile.name
