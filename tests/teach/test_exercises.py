"""Every exercise: its reference solution passes, the mistakes learners make fail, correct
variants pass, and the stub the learner's notebook shows gets an honest ✘.

The exercises, their references (from the instructor sources), mistakes and variants are in
tests/teach/exercises/nbNN.py; a case's id names the exercise and the mistake it models."""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path

import pytest

import exercises as book
from sandbox import teach

ROOT = Path(__file__).resolve().parents[2]
MODULES = {
    info.name[2:]: importlib.import_module(f"exercises.{info.name}")
    for info in pkgutil.iter_modules(book.__path__)
    if info.name.startswith("nb")
}


def _cases(table: str):
    for nn, mod in sorted(MODULES.items()):
        for ex_id, cases in sorted(getattr(mod, table, {}).items()):
            for name, source in cases.items():
                yield pytest.param(nn, ex_id, source, id=f"{ex_id}-{name}")


def _check(ex_id, fn):
    grade = teach.check(ex_id, fn)
    return grade


@pytest.mark.parametrize(
    "nn,ex_id", [pytest.param(nn, ex, id=ex) for nn, mod in sorted(MODULES.items()) for ex in sorted(mod.SOLUTIONS)]
)
def test_reference_solution_passes(nn, ex_id):
    fn = MODULES[nn].SOLUTIONS[ex_id]
    for _ in range(2):  # two different sets of inputs
        grade = _check(ex_id, fn)
        assert grade.passed, str(grade)
        assert str(grade).startswith("\u2714")


@pytest.mark.parametrize("nn,ex_id,source", list(_cases("MISTAKES")))
def test_mistake_fails(nn, ex_id, source):
    grade = _check(ex_id, book.variant(nn, source))
    assert not grade.passed, str(grade)
    assert str(grade).startswith("\u2718")
    assert any(not c.passed and c.hint for c in grade.checks), str(grade)


@pytest.mark.parametrize("nn,ex_id,source", list(_cases("VARIANTS")))
def test_correct_variant_passes(nn, ex_id, source):
    grade = _check(ex_id, book.variant(nn, source))
    assert grade.passed, str(grade)


def test_every_exercise_has_a_reference_and_three_mistakes():
    registered = {e.id for e in teach.exercises()}
    referenced = {ex for mod in MODULES.values() for ex in mod.SOLUTIONS}
    assert registered == referenced
    for mod in MODULES.values():
        for ex in mod.SOLUTIONS:
            assert len(mod.MISTAKES.get(ex, {})) >= 3, f"{ex}: fewer than three mistakes"


WALKTHROUGHS = {"11"}  # 11_official_samples walks through the official samples: no exercises


def test_at_least_two_exercises_per_notebook_and_twenty_in_all():
    ids = [e.id for e in teach.exercises()]
    per_notebook = {}
    for i in ids:  # 09 and 09b are one topic split in two parts
        per_notebook.setdefault(i.split(".")[0][:2], []).append(i)
    notebooks = sorted({p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")} - WALKTHROUGHS)
    assert sorted(per_notebook) == notebooks
    assert all(len(v) >= 2 for v in per_notebook.values()), per_notebook
    assert len(ids) >= 20


def _learner_cells(notebook: Path):
    return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


@pytest.mark.parametrize(
    "notebook",
    sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
    + sorted((ROOT / "notebooks" / "zh").glob("[0-9][0-9]*_*.ipynb")),
    ids=lambda p: f"{p.parent.name}/{p.stem}",
)
def test_committed_notebooks_hold_stubs_and_honest_verdicts(notebook):
    """No reference solution in a learner notebook; each check cell shows ✘ on the stub."""
    cells = _learner_cells(notebook)
    text = "\n".join("".join(c["source"]) for c in cells)
    assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text
    checked = []
    for cell in cells:
        src = "".join(cell["source"])
        if cell["cell_type"] == "code" and src.strip().startswith("sandbox.teach.check("):
            ex_id = src.split('"')[1]
            checked.append(ex_id)
            shown = "".join("".join(o.get("data", {}).get("text/plain", "")) for o in cell["outputs"])
            assert shown.startswith("\u2718 " + ex_id), f"{ex_id}: {shown[:200]!r}"
    assert checked == sorted(checked, key=lambda i: int(i.split(".")[1]))
    nn = notebook.name.split("_")[0].removesuffix("x")  # a deep dive (03x) holds exercises of its notebook (03)
    family = [p for p in notebook.parent.glob(f"{nn}*_*.ipynb") if p.name.split("_")[0] in (nn, nn + "x")]
    held = {
        "".join(c["source"]).split('"')[1]
        for p in family
        for c in _learner_cells(p)
        if c["cell_type"] == "code" and "".join(c["source"]).strip().startswith("sandbox.teach.check(")
    }
    assert set(checked) <= held == {e.id for e in teach.exercises() if e.id.split(".")[0] == nn}


def test_the_grader_knows_the_notebooks_kernels_by_their_code():
    """The exercises know the notebooks' kernels by their body's code and declared cost: the copy a
    judge holds must be the notebook's (notebooks 01 and 02 declare `add` with other names)."""
    from sandbox.teach.exercise_sets import nb01, nb03, nb04, nb05, nb06, nb08, nb09, nb10
    from sandbox.teach.provenance import kernel_key

    held = {
        ("03", "long_op"): nb03.long_op,
        ("03", "short_op"): nb03.short_op,
        ("03", "work"): nb03.work,
        ("04", "busy"): nb04.busy,
        ("05", "work"): nb05.work,
        ("05", "busy"): nb05.busy,
        ("05", "compute"): nb05.compute,
        ("09", "scale"): nb09.scale,
        ("09", "gather"): nb09.gather,
        ("09b", "scale"): nb09.scale,
        ("01", "add"): nb01.add,
        ("02", "add"): nb01.add,
        ("06", "square"): nb06.square,
        ("08", "tick"): nb08.tick,
        ("10", "normalize"): nb10.normalize,
        ("10", "layer"): nb10.layer,
        ("10", "pool"): nb10.pool,
    }
    for (nn, name), kernel in held.items():
        assert kernel_key(book.namespace(nn)[name]) == kernel_key(kernel), (nn, name)
    assert kernel_key(nb06.square) != kernel_key(nb01.add)
