"""Lay out an nbgrader course from the notebook sources, for a teacher on a JupyterHub.

    python tools/make_course.py ~/course            # every notebook, one assignment each
    python tools/make_course.py ~/course 01 02      # only these
    python tools/make_course.py ~/course --lang zh  # the Chinese edition (notebooks/zh/)

writes ``nbgrader_config.py`` and ``source/NN_topic/NN_topic.ipynb`` (the instructor
notebooks, reference solutions and hidden tests included), of one edition: English by
default, Chinese with ``--lang zh`` (its first code cell sets the grader's language, so the
verdicts are in Chinese too; a source without a Chinese edition is left out).  Then, in that folder:

    nbgrader generate_assignment 01_quickstart     # release/: exactly the committed stubs
    nbgrader autograde 01_quickstart               # grades submitted/<student>/01_quickstart/

Each exercise's check cell is worth one point; its hidden test asserts that
``sandbox.teach.check`` passes, with inputs other than the ones the learner saw.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from notebook_sources import LANGUAGES, STUBS, editions, instructor_notebook, sources

CONFIG = """\
c = get_config()  # noqa: F821 - nbgrader's config object
c.CourseDirectory.course_id = "npu-runtime-sandbox"
c.CourseDirectory.root = __file__.rsplit("/", 1)[0] or "."
c.Execute.timeout = 300
"""


def config_text(lang: str) -> str:
    """nbgrader's configuration of a course of edition ``lang``: the Chinese course's stubs are Chinese."""
    if lang == "en":
        return CONFIG
    (code, markdown) = STUBS[lang]
    return (
        CONFIG
        + f"c.ClearSolutions.code_stub = {{'python': {chr(10).join(code)!r}}}\nc.ClearSolutions.text_stub = {markdown!r}\n"
    )


def make_course(root: Path, prefixes: list[str] = (), lang: str = "en") -> list[str]:
    """Write the course of edition ``lang``; returns the assignment names."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}")
    root.mkdir(parents=True, exist_ok=True)
    config = root / "nbgrader_config.py"
    if not config.exists():
        config.write_text(config_text(lang), encoding="utf-8")
    names = []
    for source in sources():
        if prefixes and not any(source.name.startswith(p) for p in prefixes):
            continue
        if lang not in editions(source):
            continue
        folder = root / "source" / source.stem
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(instructor_notebook(source, lang), folder / f"{source.stem}.ipynb")
        names.append(source.stem)
    return names


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("course", help="the course folder to write")
    parser.add_argument("prefixes", nargs="*", help="only the notebooks whose names start so (01 02)")
    parser.add_argument("--lang", choices=LANGUAGES, default="en", help="the edition (default: en)")
    args = parser.parse_args()
    for name in make_course(Path(args.course).expanduser(), args.prefixes, args.lang):
        print(f"source/{name}/{name}.ipynb")
