"""Build the teaching notebooks from their sources and run them, outputs included.

Each ``notebooks/src/NN_topic.py`` is a notebook in the percent format: ``# %%`` starts a
code cell, ``# %% [markdown]`` a markdown cell whose lines are comments.  This script
turns each into ``notebooks/NN_topic.ipynb``, executes it top to bottom in a fresh kernel
(no timing metadata, no widget state: the panels carry PNG snapshots), and writes it with
stable cell ids, so that a rebuild of unchanged sources gives the same text outputs that
strict nbval then checks.

    python tools/build_notebooks.py            # every notebook
    python tools/build_notebooks.py 02 05      # the ones whose names start with these
"""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "notebooks" / "src"
OUT = ROOT / "notebooks"
CELL = re.compile(r"^# %%(?: \[(markdown)\])?[^\n]*$", re.MULTILINE)


def parse(text: str) -> list:
    """Cells of a percent-format source (text before the first marker is ignored)."""
    cells = []
    marks = list(CELL.finditer(text))
    for i, mark in enumerate(marks):
        body = text[mark.end():marks[i + 1].start() if i + 1 < len(marks) else len(text)].strip("\n")
        if mark.group(1) == "markdown":
            lines = [re.sub(r"^# ?", "", line) for line in body.splitlines()]
            cells.append(nbformat.v4.new_markdown_cell("\n".join(lines).strip("\n")))
        elif body.strip():
            cells.append(nbformat.v4.new_code_cell(body.rstrip()))
    return cells


def build(source: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    nb.cells = parse(source.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{source.stem[:2]}-{i:02d}"
    client = NotebookClient(nb, timeout=300, kernel_name="python3", record_timing=False,
                            store_widget_state=False, resources={"metadata": {"path": str(OUT)}})
    client.execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    target = OUT / f"{source.stem}.ipynb"
    nbformat.write(nb, target)
    return target


def main(prefixes: list[str]) -> None:
    sources = sorted(SOURCES.glob("[0-9]*.py"))
    if prefixes:
        sources = [s for s in sources if any(s.name.startswith(p) for p in prefixes)]
    for source in sources:
        started = time.perf_counter()
        target = build(source)
        print(f"{target.relative_to(ROOT)}  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main(sys.argv[1:])
