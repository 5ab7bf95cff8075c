"""A class on nbgrader: the instructor sources make an nbgrader course whose released
assignments are exactly the committed learner notebooks, and autograding a submission runs
``sandbox.teach.check`` (the reference scores full marks, a stub or a wrong answer does not)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("nbgrader")
from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from make_course import make_course  # noqa: E402
from notebook_sources import editions, sources, target  # noqa: E402


def _api(course: Path) -> NbGraderAPI:
    """nbgrader's API as ``nbgrader`` run in the course folder sees it: with the course's own config."""
    config = Config()
    if (course / "nbgrader_config.py").exists():
        config.merge(PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config())
    config.CourseDirectory.root = str(course)
    config.CourseDirectory.course_id = "npu-runtime-sandbox"
    return NbGraderAPI(config=config)


def _sources(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_generate_assignment_yields_exactly_the_committed_notebooks(tmp_path, lang):
    names = make_course(tmp_path, lang=lang)
    assert names == [s.stem for s in sources() if lang in editions(s)]
    api = _api(tmp_path)
    for name in names:
        result = api.generate_assignment(name, force=True)
        assert result["success"], result.get("error")
        released = _sources(tmp_path / "release" / name / f"{name}.ipynb")
        assert released == _sources(target(ROOT / "instructor" / f"{name}.py", lang)), name


def _submit(course: Path, name: str, student: str, fill) -> None:
    """A student's notebook: the released one with its solution cells filled in by ``fill``."""
    released = json.loads((course / "release" / name / f"{name}.ipynb").read_text(encoding="utf-8"))
    instructor = json.loads((course / "source" / name / f"{name}.ipynb").read_text(encoding="utf-8"))
    for cell, original in zip(released["cells"], instructor["cells"]):
        if cell["metadata"].get("nbgrader", {}).get("solution"):
            cell["source"] = fill(cell["metadata"]["nbgrader"]["grade_id"], cell["source"], original["source"])
    folder = course / "submitted" / student / name
    folder.mkdir(parents=True)
    (folder / f"{name}.ipynb").write_text(json.dumps(released), encoding="utf-8")


HOST_COMPUTED = """def solution(a, b):
    s, host_c, dev_c = start_vector_add(a, b)
    acl.rt.synchronize_stream(s)
    return a + b
"""

# the lazy answer, and a notebook-level patch that makes every judge of the notebook's process pass:
# the hidden tests check in a fresh interpreter (isolated=True), which the patch does not reach
TAMPERED = (
    HOST_COMPUTED
    + """
import sandbox.teach.grading as _g
from sandbox.teach.checks import Check as _Check
_g.Run.computed = lambda self, *a, **k: iter([_Check("computed on the device from the inputs", True, "")])
_g.Run.from_device = lambda self, *a, **k: _Check("the answer came from the device", True, "")
"""
)


# two of notebook 01's four concept questions right (the key is {1: "b", 2: "c", 3: "a", 4: "b"})
HALF_RIGHT_CONCEPTS = """def concepts():
    return {1: "b", 2: "c", 3: "b", 4: "a"}
"""


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_autograde_gives_the_reference_full_marks_and_wrong_work_none(tmp_path, lang):
    name = "01_quickstart"
    make_course(tmp_path, ["01"], lang)
    api = _api(tmp_path)
    assert api.generate_assignment(name, force=True)["success"]
    _submit(tmp_path, name, "reference", lambda gid, mine, ref: ref)
    _submit(tmp_path, name, "stub", lambda gid, mine, ref: mine)
    _submit(tmp_path, name, "lazy", lambda gid, mine, ref: HOST_COMPUTED if gid == "ex01_1" else ref)
    _submit(tmp_path, name, "tampered", lambda gid, mine, ref: TAMPERED if gid == "ex01_1" else ref)
    _submit(tmp_path, name, "half", lambda gid, mine, ref: HALF_RIGHT_CONCEPTS if gid == "concepts" else ref)
    done = subprocess.run(  # the README's route: files in submitted/, autograde (it adds the students)
        [sys.executable, "-m", "nbgrader", "autograde", name, "--force"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gb:
        students = ("reference", "stub", "lazy", "tampered", "half")
        scores = {s: gb.find_submission(name, s).score for s in students}
        full = gb.find_submission(name, "reference").max_score
    assert full == 6  # two exercises of 1 point, and 4 for the concept check's four questions
    # the concept check's hidden test ends with `.score * 4`: two right answers of four are 2 points
    assert scores == {"reference": 6, "stub": 0, "lazy": 5, "tampered": 5, "half": 4}
    feedback = subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_feedback", name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert feedback.returncode == 0, feedback.stderr[-3000:]
    lazy = (tmp_path / "feedback" / "lazy" / name / f"{name}.html").read_text(encoding="utf-8")
    assert "✘" in lazy and "✔" in lazy  # the grader's lines, as the learner sees them
    shutil.rmtree(tmp_path / "autograded", ignore_errors=True)
