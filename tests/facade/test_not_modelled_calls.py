"""The official samples' calls the sandbox does not model (acl/_unmodelled.py): one clear refusal each."""

from __future__ import annotations

import pytest

import sandbox
from sandbox import acl
from sandbox.acl import _binding, _unmodelled
from sandbox.core import trace as T
from conftest import tasks_by_id

ALL = [c_name for names in _unmodelled.NOT_MODELLED.values() for c_name in names]


def _module(name):
    return getattr(acl, name) if name else acl


@pytest.mark.parametrize("c_name", ALL)
def test_every_listed_call_exists_under_its_pyacl_name_and_refuses_with_207000_saying_why(device0, c_name):
    module, name = _unmodelled.where(c_name)
    fn = getattr(_module(module), name)
    fact = _binding.wrapping(c_name)
    arguments = (0,) * (fact.args[0] if fact is not None else 3)
    answer = fn(*arguments) if fn.__module__ == _unmodelled.__name__ else None
    if answer is None:
        pytest.skip(f"{c_name} is modelled now")
    if fact is None or fact.code is not None:
        code = answer[-1] if isinstance(answer, tuple) else answer
        assert code == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    message = acl.get_recent_err_msg()
    assert f"the sandbox does not model {c_name}:" in message and len(message) > 60


def test_the_pyacl_names_follow_the_rule_of_the_c_names():
    assert _unmodelled.py_name("aclrtCreateLabel") == ("rt", "create_label")
    assert _unmodelled.py_name("aclmdlRIBuildBegin") == ("mdl", "ri_build_begin")
    assert _unmodelled.py_name("aclnnAddGetWorkspaceSize") == ("", "nn_add_get_workspace_size")
    assert _unmodelled.py_name("aclrtMemExportToShareableHandleV2") == ("rt", "mem_export_to_shareable_handle_v2")


def test_a_sample_call_pyacl_lacks_that_hands_back_a_value_refuses_as_value_none_and_the_code(device0):
    assert acl.rt.create_label() == (None, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert acl.mdl.ri_cond_handle_create(0) == (None, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert acl.rt.set_label(1, 2) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT


def test_a_sample_call_the_binding_wraps_refuses_under_the_binding_s_name_and_shape(device0):
    assert _unmodelled.where("aclrtBinaryUnLoad") == ("rt", "binary_unload")
    assert acl.rt.binary_load_from_file("add.o", None) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert "aclrtBinaryLoadFromFile" in acl.get_recent_err_msg()
    assert _unmodelled.where("aclprofStart") == ("prof", "start")


def test_a_refused_unmodelled_call_changes_nothing_but_its_call_and_error_records(device0):
    before = [type(r) for r in sandbox.trace()]
    acl.mdl.ri_build_begin(0)
    after = [type(r) for r in sandbox.trace()][len(before) :]
    assert tasks_by_id() == {}
    assert T.ErrorRaised in after and all(k in (T.ErrorRaised, tuple) or "Api" in k.__name__ for k in after)


def test_the_modelled_calls_are_not_replaced_by_refusals():
    for names in _unmodelled.NOT_MODELLED.values():
        for c_name in names:
            module, name = _unmodelled.where(c_name)
            fn = getattr(_module(module), name)
            if fn.__module__ != _unmodelled.__name__:
                assert fn.__module__.startswith("sandbox.acl")
    assert acl.rt.stream_stop.__module__ == "sandbox.acl.rt"
