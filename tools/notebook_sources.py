"""Reading the notebook sources: the instructor notebook, and the learner notebook made from it.

The sources are jupytext percent files (``# %%`` cells; nbgrader's cell metadata written in
the cell marker, ``# %% nbgrader={...}``).  The learner notebook is what
``nbgrader generate_assignment`` makes of the instructor notebook: a solution region becomes
nbgrader's default stub at the region's indentation, and a hidden-test region disappears.
tests/test_nbgrader_course.py checks that the two agree cell for cell.
"""
from __future__ import annotations

import re
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "notebooks" / "src"
OUT = ROOT / "notebooks"
CODE_STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")      # nbgrader's default for Python
MARKDOWN_STUB = "YOUR ANSWER HERE"
_REGION = re.compile(r"^([ \t]*)### BEGIN (SOLUTION|HIDDEN TESTS)[ \t]*\n(.*?)^[ \t]*### END \2[ \t]*(?:\n|\Z)",
                     re.MULTILINE | re.DOTALL)
_KEEP_METADATA = ("nbgrader", "tags")


def instructor_notebook(source: Path) -> nbformat.NotebookNode:
    """The source as a notebook, solutions and hidden tests included, with stable cell ids."""
    nb = jupytext.read(source, fmt="py:percent")
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    for i, cell in enumerate(nb.cells):
        cell.metadata = {k: v for k, v in cell.metadata.items() if k in _KEEP_METADATA}
        cell["id"] = f"{source.stem[:2]}-{i:02d}"
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def strip_regions(text: str, markdown: bool = False) -> str:
    """Solution regions become the stub; hidden-test regions go (nbgrader's rules)."""
    def replace(m: re.Match) -> str:
        indent, kind = m.group(1), m.group(2)
        if kind == "HIDDEN TESTS":
            return ""
        stub = (MARKDOWN_STUB,) if markdown else CODE_STUB
        return "".join(f"{indent}{line}\n" for line in stub)
    return _REGION.sub(replace, text).rstrip("\n")


def learner_notebook(source: Path) -> nbformat.NotebookNode:
    """The notebook a learner gets: every exercise a stub."""
    nb = instructor_notebook(source)
    for cell in nb.cells:
        cell.source = strip_regions(cell.source, cell.cell_type == "markdown")
    return nb


def sources() -> list[Path]:
    return sorted(SOURCES.glob("[0-9]*.py"))
