"""Build the teaching notebooks from their sources and run them, outputs included.

Each ``notebooks/src/NN_topic.py`` is a notebook in jupytext's percent format and is the
*instructor* source: its exercise cells hold the reference solutions between nbgrader's
``### BEGIN SOLUTION`` / ``### END SOLUTION`` markers, and its check cells may hold
``### BEGIN HIDDEN TESTS`` regions.  This script makes the *learner* notebook from it
exactly as ``nbgrader generate_assignment`` would (each solution region becomes nbgrader's
stub, hidden tests go), executes it top to bottom in a fresh kernel (no timing metadata,
no widget state: the panels carry PNG snapshots), and writes ``notebooks/NN_topic.ipynb``
with stable cell ids, so that a rebuild of unchanged sources gives the same text outputs
that strict nbval then checks.

    python tools/build_notebooks.py            # every notebook
    python tools/build_notebooks.py 02 05      # the ones whose names start with these
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from notebook_sources import OUT, ROOT, SOURCES, learner_notebook


def coalesce_streams(outputs: list) -> list:
    """One output per run of stdout (or stderr) text: how the kernel happened to flush its
    buffer must not change the committed notebook."""
    merged: list = []
    for out in outputs:
        last = merged[-1] if merged else None
        if (out.get("output_type") == "stream" and last is not None and last.get("output_type") == "stream"
                and last.get("name") == out.get("name")):
            last["text"] = "".join(last["text"]) + "".join(out["text"])
        else:
            merged.append(out)
    return merged


def build(source: Path) -> Path:
    nb = learner_notebook(source)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", record_timing=False,
                            store_widget_state=False, resources={"metadata": {"path": str(OUT)}})
    client.execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
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
