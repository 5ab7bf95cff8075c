"""sandbox/lab.py: ``python -m sandbox.lab`` puts the widget-state setting in place, then starts JupyterLab."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import lab

ROOT = Path(__file__).resolve().parents[2]


def test_the_override_turns_on_saving_widget_state():
    assert json.loads(lab.settings_override()) == {"@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True}}


def test_the_override_is_written_once_into_the_app_settings_folder(tmp_path):
    path = lab.ensure_settings(tmp_path)
    assert path == tmp_path / "overrides.d" / lab.NAME and path.read_text() == lab.settings_override()
    stamp = path.stat().st_mtime_ns
    assert lab.ensure_settings(tmp_path) == path and path.stat().st_mtime_ns == stamp


def test_a_folder_that_cannot_be_written_is_said_and_jupyterlab_still_starts(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert lab.ensure_settings(blocker) is None
    assert "Save Widget State Automatically" in capsys.readouterr().err


def test_the_folder_is_the_one_the_arguments_name_else_jupyterlab_s_own():
    assert lab.app_settings_dir(["--LabApp.app_settings_dir=/x/y"]) == Path("/x/y")
    commands = pytest.importorskip("jupyterlab.commands")
    assert lab.app_settings_dir(["notebooks/"]) == Path(commands.get_app_dir()) / "settings"


def test_python_m_sandbox_lab_writes_the_override_and_runs_jupyter_lab(tmp_path):
    pytest.importorskip("jupyterlab")
    done = subprocess.run(
        [sys.executable, "-m", "sandbox.lab", "--version", f"--LabApp.app_settings_dir={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "JUPYTER_PLATFORM_DIRS": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()[0].isdigit()  # JupyterLab's version
    assert (tmp_path / "overrides.d" / lab.NAME).read_text() == lab.settings_override()


@pytest.mark.slow
def test_after_the_readme_s_editable_install_sandbox_lab_puts_the_setting_in_the_environment(tmp_path):
    """A fresh environment, the README's install (pip install -e ".[lab]"): the editable install
    leaves JupyterLab's settings folder without the override, and python -m sandbox.lab writes it
    there before JupyterLab starts (here: --version, which starts nothing)."""
    import shutil

    from test_binder import IGNORED, run, venv_python

    repo = tmp_path / "repo"
    for name in ("sandbox", "pyproject.toml", "README.md", "LICENSE"):
        src = ROOT / name
        shutil.copytree(src, repo / name, ignore=IGNORED) if src.is_dir() else shutil.copy2(src, repo / name)
    python = venv_python(tmp_path / "env")
    run(python, "-m", "pip", "install", "-q", "-e", ".[lab]", cwd=repo)
    prefix = Path(run(python, "-c", "import sys; print(sys.prefix)", cwd=tmp_path).stdout.strip())
    override = prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.d" / lab.NAME
    assert not override.exists()  # what an editable install leaves: the reason for sandbox.lab
    done = run(python, "-m", "sandbox.lab", "--version", cwd=tmp_path)
    assert done.stdout.strip()[0].isdigit()
    assert json.loads(override.read_text()) == json.loads(lab.settings_override())
