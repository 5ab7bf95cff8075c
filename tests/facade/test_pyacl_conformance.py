"""The facade is pyACL: every function of the real binding (sandbox/acl/pyacl_binding.json) exists
under its name, takes its arguments and returns its shape; the names beyond it are declared."""

from __future__ import annotations

import inspect
import json
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import sandbox
from sandbox import acl
from sandbox.acl import _binding, _unmodelled, beyond_pyacl

ROOT = Path(__file__).resolve().parents[2]
MODULES = {"": acl, **{name: getattr(acl, name) for name in (*_binding.SUBMODULES, *beyond_pyacl.SUBMODULES)}}
FACTS = list(_binding.FACTS.values())
_PLACEHOLDER = {"s": "x", "z": None, "O": None, "f": 0.0, "d": 0.0, "y": b"x", "H": 0}


def _function(fact):
    return getattr(MODULES[fact.module], fact.name)


def _arguments(fact, count=None):
    """Arguments of the kinds the binding's format asks for: 0 for a number or handle, "x" for a
    string, None for an object (a list, a dict, a callable)."""
    if fact.parse is None:
        return ()
    letters = [c for c in fact.parse.split("|")[0] if c.isalpha()]
    return tuple(_PLACEHOLDER.get(c, 0) for c in letters)[: count if count is not None else len(letters)]


def _facade_functions(module):
    """The functions a learner finds on a facade module: its calls, not the names it imports."""
    found = {}
    for name in dir(module):
        value = getattr(module, name)
        if name.startswith("_") or not callable(value) or isinstance(value, (type, types.ModuleType)):
            continue
        if getattr(value, "__module__", "").startswith("sandbox.acl") and value.__module__ != "sandbox.acl._declare":
            found[name] = value
    return found


def test_the_facts_table_names_its_commit_and_holds_every_module_of_the_binding():
    table = json.loads((ROOT / "sandbox" / "acl" / "pyacl_binding.json").read_text())
    assert len(table["commit"]) == 40
    assert {f["module"] for f in table["functions"]} == {"", *_binding.SUBMODULES}
    assert len(FACTS) == len(table["functions"])  # no name twice in one module


@pytest.mark.parametrize("fact", FACTS, ids=lambda f: f.key)
def test_every_function_of_the_binding_exists_under_its_name(fact):
    assert callable(getattr(MODULES[fact.module], fact.name, None)), f"acl.{fact.key} is missing"


@pytest.mark.parametrize("fact", FACTS, ids=lambda f: f.key)
def test_every_function_takes_the_binding_s_arguments(fact):
    fn = _function(fact)
    params = list(inspect.signature(fn).parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params):  # a refusal made from the table: checked when called
        low, high = fact.args
        if fact.parse is not None and high < 8:
            with pytest.raises(TypeError, match="positional arguments"):
                fn(*([0] * (high + 1)))
        return
    required = sum(1 for p in params if p.default is p.empty)
    if fact.parse is None:  # the wrapper parses nothing: the facade takes nothing
        assert len(params) == 0, f"acl.{fact.key}{inspect.signature(fn)} takes arguments the binding does not"
    else:
        assert (required, len(params)) == fact.args, f"acl.{fact.key}{inspect.signature(fn)} vs format {fact.parse!r}"


@pytest.mark.parametrize("fact", FACTS, ids=lambda f: f.key)
def test_every_function_returns_the_binding_s_shape(fact):
    sandbox.configure()
    acl.init()
    acl.rt.set_device(0)
    host, _ = acl.rt.malloc_host(64)
    arguments = {  # the helpers that take a Python object: one they accept
        "util.numpy_to_ptr": (np.zeros(4),),
        "util.numpy_contiguous_to_ptr": (np.zeros(4),),
        "util.bytes_to_ptr": (b"abcd",),
        "util.ptr_to_numpy": (host, (4,), np.dtype(np.float32).num),
        "util.ptr_to_bytes": (host, 4),
        "util.stop_thread": (1,),
    }.get(fact.key, _arguments(fact))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        answer = _function(fact)(*arguments)
    if fact.shape is None:
        assert answer is None
    elif fact.shape == 1:
        assert not isinstance(answer, tuple), f"acl.{fact.key} returns a tuple; the binding a bare value"
    else:
        assert isinstance(answer, tuple) and len(answer) == fact.shape, (answer, fact.returns)
    if fact.code is not None:
        assert type(answer if fact.shape == 1 else answer[fact.code]) is int  # the error code


def test_a_function_not_modelled_refuses_with_207000_in_the_binding_s_shape_and_says_why(device0):
    assert acl.mdl.get_aipp_type(1, 0) == (0, 0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    message = acl.get_recent_err_msg()
    assert "aclmdlGetAippType" in message and "AIPP" in message
    assert acl.op.create_attr() == 0  # a bare handle, as the binding returns it: null
    assert "aclopCreateAttr" in acl.get_recent_err_msg()
    assert acl.mdl.destroy_aipp(1) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    with pytest.raises(TypeError, match="takes 2 positional arguments"):
        acl.mdl.get_aipp_type()
    with pytest.raises(TypeError, match="no keyword arguments"):
        acl.mdl.get_aipp_type(model_id=1, index=0)


def test_names_that_misspelled_the_binding_s_take_its_names():
    assert hasattr(acl.rt, "binary_unload") and not hasattr(acl.rt, "binary_un_load")
    assert hasattr(acl, "get_version_str") and not hasattr(acl, "sys_get_version_str")
    assert isinstance(acl.prof, types.ModuleType) and not [n for n in dir(acl) if n.startswith("prof_")]
    assert sys.modules["sandbox.acl.prof"] is acl.prof


def test_every_name_beyond_the_binding_is_declared_with_its_c_call():
    offered = {
        (f"{module}.{name}" if module else name) for module, mod in MODULES.items() for name in _facade_functions(mod)
    }
    beyond = offered - set(_binding.FACTS)
    assert beyond == set(beyond_pyacl.BEYOND_PYACL), sorted(beyond ^ set(beyond_pyacl.BEYOND_PYACL))
    for key, c_name in beyond_pyacl.BEYOND_PYACL.items():
        module, _, name = key.rpartition(".")
        fn = getattr(MODULES[module], name)
        assert c_name.startswith(("acl", *beyond_pyacl.SUBMODULES)) and "not in pyACL" in (fn.__doc__ or ""), key


def test_sample_calls_the_binding_lacks_keep_the_naming_rule_and_refuse(device0):
    for names in _unmodelled.NOT_MODELLED.values():
        for c_name in names:
            if _binding.wrapping(c_name) is None:
                module, name = _unmodelled.py_name(c_name)
                assert f"{module}.{name}".lstrip(".") in beyond_pyacl.BEYOND_PYACL, c_name


def _ports():
    """The ports of the official samples (examples/), as source text."""
    return [p.read_text() for p in sorted((ROOT / "examples").rglob("*.py")) if not p.name.startswith("_")]


def test_the_readme_states_the_measured_figures():
    modelled = sum(1 for f in FACTS if _function(f).__module__ != _unmodelled.__name__)
    only_constants = sum(
        1 for text in _ports() if all("constants" in finding.what for finding in sandbox.not_in_pyacl(text))
    )
    ports = len(_ports())
    readme = (ROOT / "README.md").read_text()
    for figure in (f"**{len(FACTS)}**", f"**{modelled}**", f"**{len(FACTS) - modelled}**"):
        assert figure in readme, figure
    assert f"{only_constants} of the {ports} use nothing beyond" in readme
    assert f"the other {ports - only_constants} port C calls" in readme
    zh = (ROOT / "README.zh-CN.md").read_text()
    assert f"{ports} 个中有 {only_constants} 个" in zh and f"**{modelled}**" in zh


def test_not_in_pyacl_names_constants_calls_beyond_and_arguments_pyacl_refuses():
    program = """
import numpy as np
import acl
ACL_MEMCPY_HOST_TO_DEVICE = 1
acl.rt.memcpy(0, 0, 0, 0, ACL_MEMCPY_HOST_TO_DEVICE)
acl.rt.launch_host_func(0, print, None)
acl.util.ptr_to_numpy(0, (4,), np.float32)
x = acl.ACL_SUCCESS
acl.rt.no_such_call()
"""
    found = [(f.where, f.name) for f in sandbox.not_in_pyacl(program)]
    assert found == [
        ("line 6", "acl.rt.launch_host_func"),
        ("line 7", "acl.util.ptr_to_numpy"),
        ("line 8", "acl.ACL_SUCCESS"),
        ("line 9", "acl.rt.no_such_call"),
    ]
    assert "np.dtype(np.float32).num (11)" in sandbox.not_in_pyacl(program)[1].what


def test_not_in_pyacl_reads_the_cells_run_so_far_whether_the_kernel_keeps_history_or_not():
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    try:
        outputs = []

        def run(code: str, history: bool) -> None:
            client.execute(code, store_history=history)
            while True:
                msg = client.get_iopub_msg(timeout=60)
                if msg["msg_type"] == "stream":
                    outputs.append(msg["content"]["text"].strip())
                if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    return

        for history in (False, True):  # nbval's kernel keeps none; Jupyter's does
            run("import sandbox\nfrom sandbox import acl", history)
            run("acl.init()\nx = acl.ACL_SUCCESS\nacl.rt.launch_host_func", history)
            run("print(sorted({f.name for f in sandbox.not_in_pyacl()}))", history)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert outputs == ["['acl.ACL_SUCCESS', 'acl.rt.launch_host_func']"] * 2
