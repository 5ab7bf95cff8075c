"""The optional compiled build (tools/build_compiled.py): the tests run the build the checkout holds.

CI runs every test twice, in plain Python and then with the modules compiled in place
(SANDBOX_EXPECT_COMPILED=1); these tests make sure each run tests what it says it does.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from importlib.machinery import ExtensionFileLoader
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build_tool():
    spec = importlib.util.spec_from_file_location("build_compiled", ROOT / "tools" / "build_compiled.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compiled(path: str) -> bool:
    """Is the module at ``path`` (sandbox/...py) imported from its compiled file?"""
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    return isinstance(module.__spec__.loader, ExtensionFileLoader)


def test_the_modules_imported_are_the_build_the_checkout_holds_and_none_is_stale():
    tool = build_tool()
    built = tool.built()
    imported = {path: compiled(path) for path in tool.MODULES}
    assert set(imported.values()) == {bool(built)}, (built, imported)
    assert not tool.stale(), "a compiled module is older than its source: run python tools/build_compiled.py again"
    if os.environ.get("SANDBOX_EXPECT_COMPILED") == "1":
        assert all(imported.values()), "this run was asked to test the compiled build, but imports plain Python"


def test_the_check_names_a_module_edited_after_the_build(tmp_path, monkeypatch):
    tool = build_tool()
    core = tmp_path / "sandbox" / "core"
    core.mkdir(parents=True)
    (core / "gate.py").write_text("x = 1\n")
    so = core / f"gate.cpython-{sys.version_info[0]}{sys.version_info[1]}-x86_64-linux-gnu.so"
    so.write_bytes(b"")
    monkeypatch.setattr(tool, "ROOT", str(tmp_path))
    os.utime(so, (1_000_000, 1_000_000))
    os.utime(core / "gate.py", (2_000_000, 2_000_000))
    assert tool.built() == [str(so.relative_to(tmp_path))]
    assert tool.stale() == ["sandbox/core/gate.py"]
    os.utime(so, (3_000_000, 3_000_000))
    assert tool.stale() == []


def test_kernels_pickle_and_the_views_keep_what_they_derive_on_the_log_in_either_build():
    """What the compiled build must keep working: an isolated check carries an exercise's kernels to a
    fresh interpreter (core/native.py: native classes that pickle), and the views keep an index on the
    log they read (viz.index.kept); both are native classes in the compiled build."""
    import cloudpickle
    import numpy as np

    import sandbox
    from sandbox.viz.index import build_index
    from sandbox.viz.samples import two_stream_log

    @sandbox.kernel(ns=1000)
    def scale(x: sandbox.ptr(np.float32, count="n"), n: int):
        x[:n] *= 2

    copy = cloudpickle.loads(cloudpickle.dumps(scale))
    assert (copy.name, copy.param_names, copy.ns) == ("scale", ["x", "n"], 1000)
    log = two_stream_log()
    assert build_index(log) is build_index(log)
