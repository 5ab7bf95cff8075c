"""tools/pyacl_facts.py: the facts table of the binding, regenerated from a checkout of it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import pyacl_facts  # noqa: E402

# A binding of two functions in the layout of python/pyACL/, written for this test.
TOP = """\
namespace {
PyObject* WrapTopCall(PyObject* /* self */, PyObject* args)
{
    int level = 0;
    char* text = nullptr;
    CHECK_NULL(PyArg_ParseTuple(args, "is", &level, &text), "parse failed");
    ACL_APP_LOG(static_cast<aclLogLevel>(level), "%s", text);
    Py_INCREF(Py_None);
    return Py_None;
}

PyMethodDef g_methods[] = {
    {"app_log", WrapTopCall, METH_VARARGS, "log"},
    {nullptr, nullptr, 0, nullptr}};
}
"""
RT_TABLE = """\
PyMethodDef g_rt[] = {
    {"malloc", WrapMalloc, METH_VARARGS, "malloc"},
#ifdef USE_MDL
    {"set_group", WrapSetGroup, METH_VARARGS, "group"},
#endif
    {nullptr, nullptr, 0, nullptr}};
"""
RT_WRAPPERS = """\
PyObject* WrapMalloc(PyObject* /* self */, PyObject* args)
{
    unsigned long size = 0;
    int policy = 0;
    void* devPtr = nullptr;
    CHECK_NULL(PyArg_ParseTuple(args, "k|i", &size, &policy), "parse failed");
    aclError ret = aclrtMalloc(&devPtr, size, static_cast<aclrtMemMallocPolicy>(policy));
    if (ret != ACL_SUCCESS) {
        PyObject* failed = Py_BuildValue("Oi", Py_None, ret);
        return failed;
    }
    return Py_BuildValue("ki", reinterpret_cast<uintptr_t>(devPtr), ret);
}

PyObject* WrapSetGroup(PyObject* /* self */, PyObject* args)
{
    uint32_t group = 0;
    CHECK_NULL(PyArg_ParseTuple(args, "I", &group), "parse failed");
    return Py_BuildValue("i", aclrtSetGroup(group));
}
"""


@pytest.fixture
def checkout(tmp_path):
    root = tmp_path / "python" / "pyACL"
    (root / "rt").mkdir(parents=True)
    (root / "py_init_acl.cpp").write_text(TOP)
    (root / "rt" / "pyrt_methods.cpp").write_text(RT_TABLE)
    (root / "rt" / "rt_memory.cpp").write_text(RT_WRAPPERS)
    return root


def test_each_table_entry_gets_its_wrapper_s_formats_calls_guard_and_places(checkout):
    top, malloc, group = pyacl_facts.extract(checkout)
    assert top == {
        "module": "",
        "name": "app_log",
        "c": ["aclAppLog"],
        "parse": "is",
        "args": [2, 2],
        "returns": ["None"],
        "code": None,
        "guard": None,
        "wrapper": "python/pyACL/py_init_acl.cpp:2",
        "table": "python/pyACL/py_init_acl.cpp:13",
    }
    assert malloc["c"] == ["aclrtMalloc"] and malloc["args"] == [1, 2]
    assert malloc["returns"] == ["Oi", "ki"] and malloc["code"] == 1  # a variable's format, then the last
    assert malloc["table"] == "python/pyACL/rt/pyrt_methods.cpp:2" and malloc["guard"] is None
    assert group["guard"] == "USE_MDL" and group["code"] is None  # the code is no variable named ret


def test_argument_units_count_one_per_format_unit():
    assert pyacl_facts.units("kkOi") == (4, 4)
    assert pyacl_facts.units("|O") == (0, 1)
    assert pyacl_facts.units("s#y*O!|(ii)es:name") == (3, 5)
    assert pyacl_facts.units(None) == (0, 0)


def test_the_table_diffs_line_by_line_and_keeps_the_notes_it_replaces(checkout, tmp_path):
    out = tmp_path / "table.json"
    out.write_text(pyacl_facts.dump([], "0" * 40, {}))
    assert pyacl_facts.main([str(checkout), "--commit", "1" * 40, "--out", str(out)]) == 0
    table = json.loads(out.read_text())
    table["functions"][1]["note"] = "a note of ours"
    out.write_text(pyacl_facts.dump(table["functions"], table["commit"], {"rt.malloc": "a note of ours"}))
    assert pyacl_facts.main([str(checkout), "--commit", "2" * 40, "--out", str(out)]) == 0
    text = out.read_text()
    rows = [line for line in text.splitlines() if line.startswith('  {"module"')]
    assert len(rows) == 3 and json.loads(text)["commit"] == "2" * 40
    assert json.loads(rows[1].rstrip(","))["note"] == "a note of ours"


def test_the_committed_table_agrees_with_itself():
    table = json.loads((ROOT / "sandbox" / "acl" / "pyacl_binding.json").read_text())
    for row in table["functions"]:
        assert row["args"] == list(pyacl_facts.units(row["parse"])), row["name"]
        assert row["wrapper"] and row["table"].startswith("python/pyACL/"), row["name"]
