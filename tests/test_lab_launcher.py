"""sandbox/lab.py: ``python -m sandbox.lab`` puts the widget-state setting in place, then starts JupyterLab."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import lab

ROOT = Path(__file__).resolve().parent.parent


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
