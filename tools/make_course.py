"""Lay out an nbgrader course from the notebook sources, for a teacher on a JupyterHub.

    python tools/make_course.py ~/course            # every notebook, one assignment each
    python tools/make_course.py ~/course 01 02      # only these

writes ``nbgrader_config.py`` and ``source/NN_topic/NN_topic.ipynb`` (the instructor
notebooks, reference solutions and hidden tests included).  Then, in that folder:

    nbgrader generate_assignment 01_quickstart     # release/: exactly the committed stubs
    nbgrader autograde 01_quickstart               # grades submitted/<student>/01_quickstart/

Each exercise's check cell is worth one point; its hidden test asserts that
``sandbox.teach.check`` passes, with inputs other than the ones the learner saw.
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from notebook_sources import instructor_notebook, sources

CONFIG = '''\
c = get_config()  # noqa: F821 - nbgrader's config object
c.CourseDirectory.course_id = "npu-runtime-sandbox"
c.CourseDirectory.root = __file__.rsplit("/", 1)[0] or "."
c.Execute.timeout = 300
'''


def make_course(root: Path, prefixes: list[str] = ()) -> list[str]:
    """Write the course; returns the assignment names."""
    root.mkdir(parents=True, exist_ok=True)
    config = root / "nbgrader_config.py"
    if not config.exists():
        config.write_text(CONFIG, encoding="utf-8")
    names = []
    for source in sources():
        if prefixes and not any(source.name.startswith(p) for p in prefixes):
            continue
        folder = root / "source" / source.stem
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(instructor_notebook(source), folder / f"{source.stem}.ipynb")
        names.append(source.stem)
    return names


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for name in make_course(Path(sys.argv[1]).expanduser(), sys.argv[2:]):
        print(f"source/{name}/{name}.ipynb")
