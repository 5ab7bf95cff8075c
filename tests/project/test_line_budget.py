"""Each folder of the runtime has a line budget, counted with its sub-folders (CONTRIBUTING.md).

The kernel (``sandbox/core`` without ``features/``) is what a newcomer reads in one sitting: every
call goes through it.  It held 4,056 lines when the runtime's areas moved out to
``sandbox/core/features`` (4,475 lines then); its budget is 5,000.  The features are budgeted
apart: 5,500 at first, room for the areas still to come; 6,000 since model subscription
(``subscription.py``, 442 lines: the record writer, a pipe's reader waiting in virtual time and the
readers of msprof's record parser) took them from 5,118 to 5,580 (5,765 with ``mstx.py``).  Before the split
the whole of ``sandbox/core`` had one budget (8,450 at the end: 7,000 at first, raised with each
documented feature)."""

from __future__ import annotations

from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "sandbox" / "core"
FEATURES = CORE / "features"
BUDGETS = {"kernel": 5_000, "features": 6_000}


def lines_of(folder: Path, *, without: Path | None = None) -> int:
    """Lines of the Python files in ``folder`` and its sub-folders (but not ``without``)."""
    return sum(
        len(p.read_text(encoding="utf-8").splitlines())
        for p in folder.rglob("*.py")
        if without is None or without not in p.parents
    )


def test_the_kernel_fits_its_line_budget():
    lines = lines_of(CORE, without=FEATURES)
    assert lines <= BUDGETS["kernel"], f"the kernel (sandbox/core) has {lines} lines, over its {BUDGETS['kernel']}"


def test_the_features_fit_their_line_budget():
    lines = lines_of(FEATURES)
    assert lines <= BUDGETS["features"], f"sandbox/core/features has {lines} lines, over its {BUDGETS['features']}"


def test_a_budget_counts_sub_folders(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub" / "b.py").write_text("y = 2\nz = 3\n")
    assert lines_of(tmp_path) == 3 and lines_of(tmp_path, without=tmp_path / "sub") == 1
