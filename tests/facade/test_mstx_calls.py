"""``acl.mstx`` (sandbox/acl/mstx.py): the mstx C calls beyond pyACL, their names under pyACL's naming rule,
their parameters and their returns (CANN's mstx/ms_tools_ext.h: void, a range id, a domain handle)."""

from __future__ import annotations

import inspect

import pytest

import sandbox
from sandbox import acl
from sandbox.acl import _unmodelled, beyond_pyacl

MSTX = {key: c_name for key, c_name in beyond_pyacl.BEYOND_PYACL.items() if key.startswith("mstx.")}
PARAMETERS = {  # the C parameters, as ms_tools_ext.h names them
    "mark_a": ["message", "stream"],
    "range_start_a": ["message", "stream"],
    "range_end": ["range_id"],
    "domain_create_a": ["name"],
    "domain_destroy": ["domain"],
    "domain_mark_a": ["domain", "message", "stream"],
    "domain_range_start_a": ["domain", "message", "stream"],
    "domain_range_end": ["domain", "range_id"],
}


def test_the_eight_mstx_calls_are_acl_mstx_named_by_pyacl_s_rule_from_their_c_names():
    assert sorted(MSTX.values()) == sorted(
        f"mstx{name}"
        for name in (
            "MarkA",
            "RangeStartA",
            "RangeEnd",
            "DomainCreateA",
            "DomainDestroy",
            "DomainMarkA",
            "DomainRangeStartA",
            "DomainRangeEnd",
        )
    )
    for key, c_name in MSTX.items():
        # the rule pyACL names acl* calls by, the library's prefix as the submodule: mstxMarkA -> acl.mstx.mark_a
        assert key == "mstx." + _unmodelled.py_name("acl" + c_name[len("mstx") :])[1], c_name
        fn = getattr(acl.mstx, key.partition(".")[2])
        assert "not in pyACL" in fn.__doc__ and c_name in fn.__doc__


def test_the_calls_take_the_c_parameters_by_name():
    for name, parameters in PARAMETERS.items():
        assert list(inspect.signature(getattr(acl.mstx, name)).parameters) == parameters, name


def test_the_void_calls_return_none_a_range_start_its_id_and_domain_create_its_handle(device0):
    domain = acl.mstx.domain_create_a("d")
    assert type(domain) is int and domain != 0
    assert acl.mstx.mark_a("m", device0) is None
    assert acl.mstx.domain_mark_a(domain, "m", 0) is None
    range_id = acl.mstx.range_start_a("r", device0)
    assert type(range_id) is int and range_id == 0  # no collection: MSTX_INVALID_RANGE_ID
    assert acl.mstx.domain_range_start_a(domain, "r", 0) == 0
    assert acl.mstx.range_end(range_id) is None
    assert acl.mstx.domain_range_end(domain, range_id) is None
    assert acl.mstx.domain_destroy(domain) is None


def test_no_mstx_call_fails_with_a_code(device0):
    acl.mstx.mark_a("-x", 12345)  # a bad message, a stream that is none: nothing, and no error
    acl.mstx.domain_mark_a(999, "x", 0)
    assert acl.mstx.domain_create_a("default") == 0
    assert [r for r in sandbox.trace() if type(r).__name__ == "ErrorRaised"] == []
    assert acl.get_recent_err_msg() == ""


@pytest.mark.parametrize(
    "call, args",
    [
        ("mark_a", (None, 0)),
        ("mark_a", ("m", None)),
        ("range_start_a", (None, 0)),
        ("domain_create_a", (None,)),
        ("domain_destroy", (None,)),
        ("domain_mark_a", (None, "m", 0)),
        ("domain_range_end", (None, 1)),
    ],
)
def test_none_for_a_message_name_stream_or_domain_raises_type_error(machine, call, args):
    with pytest.raises(TypeError, match=f"acl.mstx.{call}"):
        getattr(acl.mstx, call)(*args)


def test_a_message_or_name_that_is_not_a_str_returns_the_call_s_default_with_100000(machine):
    assert acl.mstx.domain_create_a(b"d") == 0
    assert "name must be a str" in acl.get_recent_err_msg()
    assert acl.mstx.range_start_a(42, 0) == 0
    assert acl.mstx.mark_a(["m"], 0) is None
    assert "message must be a str" in acl.get_recent_err_msg()


def test_not_in_pyacl_names_an_mstx_call_once_and_the_submodule_used_alone():
    program = """
import acl
acl.mstx.mark_a("x", 0)
tx = acl.mstx
"""
    found = [(f.where, f.name) for f in sandbox.not_in_pyacl(program)]
    assert found == [("line 3", "acl.mstx.mark_a"), ("line 4", "acl.mstx")]
    assert "mstxMarkA" in sandbox.not_in_pyacl(program)[0].what
