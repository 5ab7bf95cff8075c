"""Packaging: the license the metadata names is the file shipped, the package says it is typed,
JupyterLab is an extra rather than a dependency, and the test run collects the project's
notebooks only (not JupyterLab's scratch notebooks or checkpoint copies).

The wheel is built from a copy of the repository in a temporary folder, so the working tree
gets no build/ or egg-info; the build needs PyPI for setuptools (pip's cache makes reruns quick).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".ipynb_checkpoints")
# The md5 of https://www.apache.org/licenses/LICENSE-2.0.txt, the standard text with its appendix.
APACHE_2_0_MD5 = "3b83ef96387f14655fc854ddc3c6bd57"


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def run(*cmd, cwd, timeout=600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def copy_into(dest: Path, *names: str) -> None:
    for name in names:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=IGNORED)
        else:
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel `pip wheel` builds from a copy of the project, and the build's verbose log."""
    tmp = tmp_path_factory.mktemp("wheel")
    copy_into(tmp / "repo", "pyproject.toml", "README.md", "LICENSE", "sandbox")
    done = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", tmp / "dist", ".", cwd=tmp / "repo")
    assert done.returncode == 0, f"pip wheel exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr}"
    (path,) = (tmp / "dist").glob("npu_runtime_sandbox-*.whl")
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        files = {n: zf.read(n) for n in names}
    return dict(names=names, files=files, metadata=files[meta].decode(), log=done.stdout + done.stderr)


def requires_dist(metadata: str) -> list[str]:
    return [ln.split(":", 1)[1].strip() for ln in metadata.splitlines() if ln.startswith("Requires-Dist:")]


# -- the license ------------------------------------------------------------------------------------
def test_license_file_is_the_standard_apache_2_0_text_the_metadata_names():
    project = pyproject()["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_bytes()
    assert hashlib.md5(text, usedforsecurity=False).hexdigest() == APACHE_2_0_MD5, (
        "LICENSE is not the standard Apache License 2.0 text"
    )
    copyright_lines = [ln.strip() for ln in text.decode().splitlines() if ln.strip().startswith("Copyright")]
    assert copyright_lines == ["Copyright [yyyy] [name of copyright owner]"], copyright_lines


def test_wheel_metadata_names_the_license_and_ships_the_file(wheel):
    assert "License-Expression: Apache-2.0" in wheel["metadata"].splitlines()
    assert "License-File: LICENSE" in wheel["metadata"].splitlines()
    shipped = [n for n in wheel["names"] if n.endswith(".dist-info/licenses/LICENSE")]
    assert shipped and wheel["files"][shipped[0]] == (ROOT / "LICENSE").read_bytes()


def test_build_gives_no_setuptools_deprecation_warning(wheel):
    assert pyproject()["build-system"]["requires"] == ["setuptools>=77"]
    assert "SetuptoolsDeprecationWarning" not in wheel["log"], wheel["log"][-3000:]


# -- typing -----------------------------------------------------------------------------------------
def test_wheel_ships_py_typed(wheel):
    assert (ROOT / "sandbox" / "py.typed").is_file()
    assert "sandbox/py.typed" in wheel["names"]


def test_wheel_ships_the_data_the_package_reads(wheel):
    """The binding's facts table (acl/_binding.py) and the JupyterLab setting sandbox.lab writes."""
    assert "sandbox/acl/pyacl_binding.json" in wheel["names"]
    assert "sandbox/widgets/jupyterlab-settings/npu-runtime-sandbox.json" in wheel["names"]


# -- dependencies -----------------------------------------------------------------------------------
def test_jupyterlab_is_the_lab_extra_not_a_base_dependency(wheel):
    reqs = requires_dist(wheel["metadata"])
    base = [r for r in reqs if "extra ==" not in r]
    assert base and not any(re.match(r"jupyterlab\b", r, re.I) for r in base), base
    assert 'jupyterlab>=4.0; extra == "lab"' in reqs, reqs
    assert "Provides-Extra: lab" in wheel["metadata"].splitlines()


def test_the_lab_and_test_extras_bring_a_cjk_font_from_pypi():
    extras = pyproject()["project"]["optional-dependencies"]
    for extra in ("lab", "test"):
        names = [re.split(r"[<>=!~;\s\[]", r, maxsplit=1)[0].lower() for r in extras[extra]]
        assert "noto-cjk-sans-otc" in names, f"the {extra} extra has no CJK font for the Chinese pictures"


def test_test_extra_brings_what_the_notebook_and_browser_tests_run_in():
    test = [
        re.split(r"[<>=!~;\s\[]", r, maxsplit=1)[0].lower()
        for r in pyproject()["project"]["optional-dependencies"]["test"]
    ]
    assert {"pytest", "nbval", "ipykernel", "nbformat", "nbclient", "jupyterlab", "playwright"} <= set(test)


def test_the_teachers_tools_are_their_own_extra_out_of_the_learners_lab_extra():
    extras = pyproject()["project"]["optional-dependencies"]
    names = {k: {re.split(r"[<>=!~;\s\[]", r, maxsplit=1)[0].lower() for r in v} for k, v in extras.items()}
    assert "nbgrader" in names["teach"] and "nbgrader" not in names["lab"]
    assert names["teach"] <= names["test"]  # the tests run the teacher's route


def test_readme_first_commands_install_the_lab_extra_and_the_test_extra():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", readme, re.S).group(1)
    first, second = [ln.split("#")[0].strip() for ln in block.splitlines()[:2]]
    assert first == 'pip install -e ".[lab]" && python -m sandbox.lab notebooks/'
    assert second == 'pip install -e ".[test]" && python -m pytest'
    assert "python -m sandbox.lab --allow-root notebooks/" in readme, "the README should say what root needs"


# -- scratch notebooks ------------------------------------------------------------------------------
def notebook(source: str, outputs: list | None = None) -> str:
    cell = {
        "cell_type": "code",
        "execution_count": 1 if outputs else None,
        "id": "c0",
        "metadata": {},
        "outputs": outputs or [],
        "source": source,
    }
    return json.dumps(
        {
            "cells": [cell],
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        }
    )


SCRATCH = (
    "notebooks/Untitled.ipynb",
    "notebooks/Untitled1.ipynb",
    "notebooks/.ipynb_checkpoints/Untitled-checkpoint.ipynb",
    "notebooks/.ipynb_checkpoints/01_tiny-checkpoint.ipynb",
)


def test_pytest_collects_the_project_notebooks_but_not_scratch_ones_or_checkpoints(tmp_path):
    """The project's pytest configuration, on a copy with one good notebook beside notebooks a
    learner made from the launcher (and their checkpoints), each with a failing cell."""
    copy_into(tmp_path, "pyproject.toml", "tests/sanitize.cfg")
    good = tmp_path / "notebooks" / "01_tiny.ipynb"
    good.parent.mkdir()
    good.write_text(notebook("print(1 + 1)", [{"name": "stdout", "output_type": "stream", "text": "2\n"}]))
    for name in SCRATCH:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(notebook("raise RuntimeError('scratch work, not a test')"))

    collected = run(sys.executable, "-m", "pytest", "--collect-only", "-q", cwd=tmp_path, timeout=120)
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr
    items = [ln for ln in collected.stdout.splitlines() if "::" in ln]
    assert items == ["notebooks/01_tiny.ipynb::Cell 0"], collected.stdout

    ran = run(sys.executable, "-m", "pytest", "-q", cwd=tmp_path, timeout=300)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr
    assert "1 passed" in ran.stdout and "scratch" not in ran.stdout


def test_git_ignores_scratch_notebooks_and_checkpoints_but_not_the_project_notebooks():
    if shutil.which("git") is None or run("git", "rev-parse", "--is-inside-work-tree", cwd=ROOT).returncode:
        pytest.skip("not a git work tree")
    ignored = run("git", "check-ignore", *SCRATCH, cwd=ROOT)
    assert sorted(ignored.stdout.split()) == sorted(SCRATCH), ignored.stdout + ignored.stderr
    kept = run("git", "check-ignore", "notebooks/01_quickstart.ipynb", "instructor/01_quickstart.py", cwd=ROOT)
    assert kept.returncode == 1 and not kept.stdout, kept.stdout


# -- the learner release ------------------------------------------------------------------------------
def test_the_learner_release_holds_the_notebooks_and_the_package_and_no_answer_key(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    from make_release import SOLUTION_MARKERS, make_release

    files = {str(f) for f in make_release(tmp_path / "release")}
    assert {
        "pyproject.toml",
        "sandbox/__init__.py",
        "notebooks/01_quickstart.ipynb",
        "binder/requirements.txt",
    } <= files
    assert "notebooks/zh/01_quickstart.ipynb" in files and "README.md" in files
    assert not [f for f in files if f.startswith(("instructor/", "tests/", "tools/"))]
    for path in (tmp_path / "release").rglob("*"):
        if path.suffix in (".py", ".ipynb"):  # (the READMEs name the markers)
            text = path.read_text(encoding="utf-8")
            assert not any(marker in text for marker in SOLUTION_MARKERS), path


def test_the_learner_release_refuses_a_file_that_holds_a_reference_solution(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    from make_release import make_release

    root = tmp_path / "repo"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "leak.py").write_text("### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n")
    with pytest.raises(ValueError, match="leak.py holds a reference solution"):
        make_release(tmp_path / "release", root)
    assert not (tmp_path / "release").exists()
