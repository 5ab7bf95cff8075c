"""The facade's declarations (sandbox/acl/_declare.py): one signature, converters and trace arguments from it."""

from __future__ import annotations

import inspect

import pytest

import sandbox
from sandbox import acl
from sandbox.acl._declare import api, handle, size
from sandbox.core import trace as T


def _calls(name):
    return [r for r in sandbox.trace().of(T.ApiCall) if r.name == name]


def test_a_status_only_call_is_declared_to_return_the_int_code_whatever_its_body_returns():
    assert inspect.signature(acl.rt.set_device).return_annotation == "int"  # body: -> None
    assert inspect.signature(acl.rt.synchronize_stream).return_annotation == "int"
    assert inspect.signature(acl.init).return_annotation == "int"


def test_a_declared_call_has_the_public_parameters_only_and_takes_them_by_keyword(device0):
    assert list(inspect.signature(acl.rt.memcpy_async).parameters) == [
        "dst",
        "dest_max",
        "src",
        "count",
        "kind",
        "stream",
    ]
    assert str(inspect.signature(acl.rt.get_last_error)) == "(level) -> 'int'"  # required, as in pyACL
    assert acl.rt.memcpy_async.__module__ == "sandbox.acl.rt" and acl.rt.memcpy_async.__doc__ is None
    dev, ret = acl.rt.malloc(size=64, policy=acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(size=64)
    assert (
        ret == 0
        and acl.rt.memcpy_async(
            stream=device0, kind=acl.ACL_MEMCPY_HOST_TO_DEVICE, count=64, src=host, dest_max=64, dst=dev
        )
        == 0
    )
    assert acl.rt.synchronize_stream(stream=device0) == 0


def test_a_wrong_type_is_a_code_and_a_message_naming_the_parameter_as_the_call_checks_it(device0):
    assert acl.rt.malloc(64, "huge") == (0, acl.ACL_ERROR_INVALID_PARAM)
    assert acl.get_recent_err_msg() == "aclrtMalloc failed: policy must be an int, got 'huge'"
    assert acl.rt.memset(0, -1, 0, 8) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.get_recent_err_msg() == "aclrtMemset failed: max_count must be >= 0, got -1"


def test_none_for_a_pointer_or_handle_raises_type_error_before_the_call_as_pyacl_parsing_does(device0):
    before = len(sandbox.trace().records)
    for call in (lambda: acl.rt.synchronize_stream(None), lambda: acl.rt.memset(None, 8, 0, 8)):
        with pytest.raises(TypeError, match=r"^acl\.rt\.\w+ \(aclrt\w+\): \w+ is None"):
            call()
    assert len(sandbox.trace().records) == before  # refused before the call: no record, no error code
    assert acl.get_recent_err_msg() == ""
    assert acl.rt.synchronize_stream_with_timeout("s", -5) == acl.ACL_ERROR_RT_PARAM_INVALID  # timeout first
    assert "timeout must be -1 (forever) or > 0 ms, got -5" in acl.get_recent_err_msg()


def test_the_trace_shows_the_declared_arguments_as_passed_in_the_declared_order(device0):
    dev, _ = acl.rt.malloc(64, 0)
    acl.rt.memset(dev, 64, 7, 64)
    acl.rt.launch_host_func(device0, lambda args: None, None)
    acl.rt.synchronize_stream(device0)
    assert _calls("aclrtMemset")[0].args == (("count", 64), ("value", 7))
    assert _calls("aclrtLaunchHostFunc")[0].args == (("stream", device0), ("fn", "<lambda>"))
    assert _calls("aclrtMalloc")[0].args == (("size", 64), ("policy", 0))


def test_a_declaration_is_checked_when_the_module_is_imported():
    with pytest.raises(TypeError, match="starts with"):
        api("aclrtX")(lambda stream: None)
    with pytest.raises(TypeError, match="convert"):

        @api("aclrtX", convert=("a",))
        def x(m, th, a: handle, b: size):
            pass

    with pytest.raises(TypeError, match="no parameter kind"):

        @api("aclrtX")
        def z(m, th, a: float):
            pass

    with pytest.raises(TypeError, match="not its parameters"):

        @api("aclrtX", trace=("c",))
        def y(m, th, a: handle):
            pass


def test_a_traceback_through_a_declared_call_points_at_its_declaration(device0):
    """The generated wrapper's frame names the C call, and the file and line of its declaration."""
    import traceback
    from pathlib import Path

    source = (Path(sandbox.__file__).parent / "acl" / "rt.py").read_text(encoding="utf-8").splitlines()
    declared = source.index('@api("aclrtMalloc", cost="malloc", defaults=(0,))') + 1
    sandbox.raise_on_error(True)
    try:
        with pytest.raises(sandbox.AclError) as caught:
            acl.rt.malloc(0, 0)
    finally:
        sandbox.raise_on_error(False)
    text = "".join(traceback.format_exception(caught.value))
    assert f'File "<facade aclrtMalloc>", line 2, in malloc (declared at sandbox/acl/rt.py:{declared})' in text
