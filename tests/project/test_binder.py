"""Binder: the environment ``binder/`` describes installs cleanly, runs a notebook, and is
what repo2docker (the tool mybinder.org builds images with) would install.

Both checks work on a copy of the repository in a temporary folder, each with its own
fresh virtual environment, so the project's environment and working tree stay untouched.
They need PyPI (pip's cache makes reruns quick) but no Docker: ``repo2docker --no-build``
only writes the Dockerfile it would build.
"""

from __future__ import annotations

import os
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # fresh environments and repo2docker

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("sandbox", "notebooks", "binder", "pyproject.toml", "README.md", "LICENSE", "tests/sanitize.cfg")
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".ipynb_checkpoints")


def run(*cmd, cwd, timeout=600):
    """Run a command; fail the test with its output if it does not exit with 0."""
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def venv_python(where: Path) -> Path:
    run(sys.executable, "-m", "venv", where, cwd=where.parent)
    return where / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory) -> Path:
    """The files a Binder build sees, copied away from the working tree."""
    dest = tmp_path_factory.mktemp("binder") / "repo"
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=IGNORED)
        else:
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def test_binder_config_names_python_3_11_and_installs_the_project():
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"
    lines = [
        ln.strip()
        for ln in (ROOT / "binder" / "requirements.txt").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    assert lines[0] == "."  # a wheel: it installs the JupyterLab settings override (sandbox/lab.py)
    for line in lines[1:]:
        assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[0-9][A-Za-z0-9.]*", line), f"not pinned: {line}"
    assert {ln.split("==")[0] for ln in lines[1:]} >= {"numpy", "matplotlib", "ipywidgets", "jupyterlab"}


def test_readme_says_how_to_open_jupyterlab_on_binder_at_the_first_notebook():
    """Until the repository is published there is no real owner to link to: the README gives the
    launch URL's pattern, and no link to a guessed repository."""
    readme = (ROOT / "README.md").read_text()
    urls = re.findall(r"https://mybinder\.org/v2/gh/[^\s)`]+", readme)
    assert urls, "README does not say how to launch the repository on Binder"
    for url in urls:
        assert re.fullmatch(r"https://mybinder\.org/v2/gh/<owner>/<repo>/HEAD\?urlpath=lab/tree/(\S+\.ipynb)", url), (
            f"{url}: not the documented pattern (a guessed owner?)"
        )
    target = urls[0].split("lab/tree/")[1]
    assert re.fullmatch(r"notebooks/01_\w+\.ipynb", target), "the link should open the first notebook"
    built = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "notebooks").glob("[0-9]*.ipynb"))
    if not (ROOT / target).exists():
        pytest.skip(f"{target} is not built yet")
    assert target == built[0]


def test_binder_installs_the_cjk_font_the_lab_extra_brings():
    """The Chinese notebooks' pictures need a CJK font; Binder installs the lab extra's own
    (binder/apt.txt's Debian package is the same file, and pip's is there without apt)."""
    lines = (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    assert "noto-cjk-sans-otc==0.0.1" in lines
    import tomllib

    lab = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["lab"]
    assert "noto-cjk-sans-otc==0.0.1" in lab, "binder/requirements.txt and the lab extra name different fonts"


def test_binder_environment_installs_cleanly_and_runs_the_first_notebook(repo_copy, tmp_path):
    python = venv_python(tmp_path / "env")
    run(python, "-m", "pip", "install", "-q", "-r", "binder/requirements.txt", cwd=repo_copy)
    run(python, "-m", "pip", "check", cwd=repo_copy)
    probe = run(
        python,
        "-c",
        "import sandbox, sys; from sandbox import acl; print(sys.prefix); print(acl.init())",
        cwd=tmp_path,
    )
    prefix, ret = probe.stdout.split()
    assert ret == "0"
    # installed as a wheel: JupyterLab's settings override (saving widget state) is in the environment
    override = Path(prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.d" / "npu-runtime-sandbox.json"
    assert json.loads(override.read_text()) == {"@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True}}
    run(python, "-m", "pip", "install", "-q", "nbval==0.11.0", "pytest", cwd=repo_copy)
    first = sorted((repo_copy / "notebooks").glob("[0-9]*.ipynb"))[0]
    run(
        python,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        "--nbval",
        "--nbval-current-env",
        "--nbval-sanitize-with",
        "tests/sanitize.cfg",
        first.relative_to(repo_copy),
        cwd=repo_copy,
    )


def test_repo2docker_builds_its_dockerfile_from_binder_requirements(repo_copy, tmp_path):
    python = venv_python(tmp_path / "r2d")
    run(python, "-m", "pip", "install", "-q", "jupyter-repo2docker", cwd=tmp_path)
    repo2docker = python.parent / "repo2docker"
    done = run(repo2docker, "--no-build", "--debug", repo_copy, cwd=tmp_path)
    dockerfile = done.stdout + done.stderr
    assert re.search(r'pip install [^\n]*-r "?binder/requirements\.txt', dockerfile), dockerfile[-3000:]
    assert re.search(r"python[=-]?3\.11", dockerfile), "runtime.txt's Python 3.11 was not picked"
