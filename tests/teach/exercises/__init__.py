"""Reference solutions and the mistakes learners make, for every exercise in the notebooks.

The reference solutions are not written twice: ``solutions("01")`` runs the code cells of
the instructor source ``instructor/01_*.py`` (its check cells excepted) and keeps, after
each nbgrader solution cell ``exNN_k``, the function ``solution`` it defined, as exercise
``"NN.k"``.  A mistake or a correct variant is the source of a ``solution`` function, made
in that notebook's namespace by ``variant``, so it can use the notebook's kernels and helpers.
"""

from __future__ import annotations

import contextlib
import functools
import io
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tools"))
from notebook_sources import SOURCES, instructor_notebook  # noqa: E402


def _sources(nn: str) -> list[Path]:
    """Notebook ``nn``'s instructor source, then its optional deep dives (``NNx_*.py``): an exercise
    that moved to a deep dive keeps its id, and runs in the namespace of the notebook and the dive."""
    (path,) = SOURCES.glob(f"{nn}_*.py")
    return [path, *sorted(SOURCES.glob(f"{nn}x_*.py"))]


def exercise_id(grade_id: str) -> str:
    """nbgrader's grade id of a solution cell ("ex02_1") -> the exercise id ("02.1")."""
    nn, k = grade_id[2:].split("_")[:2]
    return f"{nn}.{k}"


@functools.lru_cache(maxsize=None)
def _run_notebook(nn: str) -> tuple[dict, dict]:
    """The notebook's namespace after its last cell, and its reference solutions."""
    import matplotlib

    matplotlib.use("Agg")
    ns: dict = {"__name__": f"notebook_{nn}"}
    found: dict = {}
    for cell in (c for source in _sources(nn) for c in instructor_notebook(source).cells):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or meta.get("grade"):
            continue  # check cells grade; the tests do that themselves
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            exec(compile(_python(cell.source), f"<notebook {nn}>", "exec"), ns)
        if meta.get("solution") and meta["grade_id"].startswith("ex"):  # not the concept check's answers
            found[exercise_id(meta["grade_id"])] = ns["solution"]
    return ns, found


def _python(source: str) -> str:
    """IPython-only lines (magics, shell escapes) have no meaning outside a kernel."""
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))


def namespace(nn: str) -> dict:
    return _run_notebook(nn)[0]


def solutions(nn: str) -> dict:
    """Exercise id -> the reference solution from the instructor source of notebook ``nn``."""
    return dict(_run_notebook(nn)[1])


def variant(nn: str, source: str, name: str = "solution"):
    """The function ``name`` defined by ``source`` in (a copy of) notebook ``nn``'s namespace."""
    ns = dict(namespace(nn))
    exec(compile(source, f"<variant of notebook {nn}>", "exec"), ns)
    return ns[name]
