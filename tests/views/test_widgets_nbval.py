"""A notebook that shows the dashboard, a step-through and each view passes strict nbval
with no ignore markers: executed once, then checked against a fresh run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
CELLS = [
    "import sandbox\nfrom sandbox import acl\nfrom sandbox.widgets import api\n"
    "sandbox.configure('ascend910b', device_count=1)\nacl.init()\nacl.rt.set_device(0)\n"
    "s, _ = acl.rt.create_stream()\nd, _ = acl.rt.malloc(1 << 20, acl.ACL_MEM_MALLOC_HUGE_FIRST)\n"
    "h, _ = acl.rt.malloc_host(1 << 20)\n"
    "acl.rt.memcpy_async(d, 1 << 20, h, 1 << 20, acl.ACL_MEMCPY_HOST_TO_DEVICE, s)\n"
    "acl.rt.synchronize_stream(s)",
    "dash = api.show()\ndash",
    "dash.t = dash.t_range[0]\ndash.clock",
    "api.gantt(view='physical')",
    "api.memory_map()",
    "print(api.queues())",
    "api.summary()",
    "def program():\n    acl.rt.memset_async(d, 1 << 20, 0, 1 << 20, s)\n    yield 'memset'\n"
    "    acl.rt.synchronize_stream(s)\n    yield 'sync'\n\nwalk = api.step_through(program)\nwalk",
    "print(walk.step())\nprint(walk.step())\nwalk.status.value",
]


@pytest.fixture(scope="module")
def notebook(tmp_path_factory):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path_factory.mktemp("nb") / "views.ipynb"
    NotebookClient(
        nb, timeout=120, kernel_name="python3", record_timing=False, resources={"metadata": {"path": str(REPO)}}
    ).execute()
    nbformat.write(nb, path)
    return path, nb


def test_panels_leave_only_their_own_outputs_in_the_cells(notebook):
    _path, nb = notebook
    dash_cell = nb.cells[1]
    (out,) = dash_cell.outputs
    assert out.output_type == "execute_result"
    assert set(out.data) == {"text/plain", "image/png", "application/vnd.jupyter.widget-view+json"}
    assert [o.output_type for o in nb.cells[5].outputs] == ["stream"]


def test_notebook_passes_strict_nbval_without_markers(notebook):
    path, _nb = notebook
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbval",
            "--nbval-current-env",
            f"--nbval-sanitize-with={REPO / 'tests' / 'sanitize.cfg'}",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "-q",
            str(path),
        ],
        cwd=path.parent,
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "PYTHONPATH": str(REPO)},
    )
    assert run.returncode == 0, run.stdout[-3000:]
    assert f"{len(CELLS)} passed" in run.stdout
