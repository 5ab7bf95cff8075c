"""Build the teaching notebooks from their sources and run them, outputs included.

Each ``instructor/NN_topic.py`` is a notebook in jupytext's percent format and is the
*instructor* source: its exercise cells hold the reference solutions between nbgrader's
``### BEGIN SOLUTION`` / ``### END SOLUTION`` markers, and its check cells may hold
``### BEGIN HIDDEN TESTS`` regions.  This script makes the *learner* notebook from it
exactly as ``nbgrader generate_assignment`` would (each solution region becomes nbgrader's
stub, hidden tests go), executes it top to bottom in a fresh kernel (no timing metadata,
no widget state: the panels carry PNG snapshots), and writes ``notebooks/NN_topic.ipynb``
with stable cell ids, so that a rebuild of unchanged sources gives the same text outputs
that strict nbval then checks.  A source with Chinese cells makes a second edition,
``notebooks/zh/NN_topic.ipynb`` (see notebook_sources.py).

    python tools/build_notebooks.py            # every notebook, each edition
    python tools/build_notebooks.py 02 05      # the ones whose names start with these
    python tools/build_notebooks.py --lang zh 02   # only the Chinese edition
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from notebook_sources import ROOT, SOURCES, editions, learner_notebook, target


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def coalesce_streams(outputs: list) -> list:
    """One output per run of stdout (or stderr) text: how the kernel happened to flush its
    buffer must not change the committed notebook."""
    merged: list = []
    for out in outputs:
        last = merged[-1] if merged else None
        if (
            out.get("output_type") == "stream"
            and last is not None
            and last.get("output_type") == "stream"
            and last.get("name") == out.get("name")
        ):
            last["text"] = "".join(last["text"]) + "".join(out["text"])
        else:
            merged.append(out)
    return merged


def stable_widget_ids(nb, name: str) -> None:
    """Widget views name their model by a random id; number them per notebook instead, so a
    rebuild of unchanged sources writes the same file (no widget state is saved, so the id
    refers to nothing once the kernel is gone and the PNG snapshot shows)."""
    ids: dict[str, str] = {}
    for cell in nb.cells:
        for out in cell.get("outputs", ()):
            view = out.get("data", {}).get(WIDGET_VIEW)
            if view and "model_id" in view:
                view["model_id"] = ids.setdefault(view["model_id"], f"{name}-widget-{len(ids) + 1}")


def build(source: Path, lang: str = "en") -> Path:
    nb = learner_notebook(source, lang)
    out = target(source, lang)
    out.parent.mkdir(parents=True, exist_ok=True)
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        record_timing=False,
        store_widget_state=False,
        resources={"metadata": {"path": str(out.parent)}},
    )
    client.execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
    stable_widget_ids(nb, f"{lang}-{out.stem}")
    nbformat.write(nb, out)
    return out


def main(args: list[str]) -> None:
    langs = None
    if "--lang" in args:
        i = args.index("--lang")
        langs, args = [args[i + 1]], args[:i] + args[i + 2 :]
    sources = sorted(SOURCES.glob("[0-9]*.py"))
    if args:
        sources = [s for s in sources if any(s.name.startswith(p) for p in args)]
    for source in sources:
        for lang in editions(source):
            if langs and lang not in langs:
                continue
            started = time.perf_counter()
            built = build(source, lang)
            print(f"{built.relative_to(ROOT)}  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main(sys.argv[1:])
