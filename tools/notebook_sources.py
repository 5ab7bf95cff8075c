"""Reading the notebook sources: the instructor notebook, and the learner notebook made from it.

The sources are jupytext percent files (``# %%`` cells; nbgrader's cell metadata written in
the cell marker, ``# %% nbgrader={...}``).  The learner notebook is what
``nbgrader generate_assignment`` makes of the instructor notebook: a solution region becomes
nbgrader's stub at the region's indentation (nbgrader's default in English; the Chinese course's
own, ``STUBS``, which tools/make_course.py configures), and a hidden-test region disappears.
tests/teach/test_nbgrader_course.py checks that the two agree cell for cell.

**Two editions from one source**: English and Simplified Chinese.  Every markdown cell is
followed by its Chinese twin, marked ``# %% [markdown] lang="zh"`` (jupytext keeps the
option as the cell's metadata); code cells are shared, except the few marked
``lang="zh"`` or ``lang="en"`` that belong to one edition only (the Chinese edition's first
code cell calls ``sandbox.set_language("zh")``).  A markdown cell without ``lang`` is English.
The English notebook goes to ``notebooks/NN_topic.ipynb``, the Chinese one to
``notebooks/zh/NN_topic.ipynb``; a source has a Chinese edition once it has a ``zh`` cell,
and then tests/language/test_translations.py requires every markdown cell to have its twin.

**Code cells in Chinese, from the same code.**  Comments, docstrings, the exercises' hints and
the labels a cell prints are text, not code: the Chinese edition shows them in Chinese while
the code stays one.  A source ends with one cell of *code strings*,
``# %% [markdown] lang="zh" translates="code"``, whose lines pair an English text with its
Chinese (``en: # int32 elements per vector`` then ``zh: # 每个向量的 int32 元素个数``); the
Chinese edition's shared code cells get each pair replaced, in order, and the cell itself is
not shown.  A ``keep:`` line names an English text that stays English (a name the runtime
prints, say).  tests/language/test_translations.py requires every pair to be used and no
English prose left in a Chinese code cell.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "instructor"
OUT = ROOT / "notebooks"
LANGUAGES = ("en", "zh")
OUTS = {"en": OUT, "zh": OUT / "zh"}
CODE_STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")  # nbgrader's default for Python
MARKDOWN_STUB = "YOUR ANSWER HERE"
# The Chinese course's stubs (tools/make_course.py configures nbgrader's ClearSolutions with them)
STUBS = {
    "en": (CODE_STUB, MARKDOWN_STUB),
    "zh": (("# 在此处编写你的代码", "raise NotImplementedError()"), "在此处作答"),
}
_REGION = re.compile(
    r"^([ \t]*)### BEGIN (SOLUTION|HIDDEN TESTS)[ \t]*\n(.*?)^[ \t]*### END \2[ \t]*(?:\n|\Z)", re.MULTILINE | re.DOTALL
)
_KEEP_METADATA = ("nbgrader", "tags")


def cell_language(cell) -> str | None:
    """The edition a cell belongs to: ``"en"``/``"zh"``, or ``None`` for a shared code cell."""
    lang = cell.metadata.get("lang")
    if lang is None and cell.cell_type == "markdown":
        return "en"
    return lang


def is_code_strings(cell) -> bool:
    """The cell that holds the Chinese of the code cells' texts (not shown in either edition)."""
    return cell.metadata.get("translates") == "code"


def code_strings(nb) -> tuple[list[tuple[str, str]], list[str]]:
    """The (English, Chinese) pairs of a source's code-strings cells, and its ``keep:`` texts."""
    pairs: list[tuple[str, str]] = []
    keep: list[str] = []
    english: str | None = None
    for cell in nb.cells:
        if not is_code_strings(cell):
            continue
        for number, line in enumerate(cell.source.splitlines(), 1):
            head, sep, text = line.partition(": ")
            if not line.strip():
                continue
            if not sep and line.rstrip(":") in ("en", "zh", "keep"):
                head, text = line.rstrip(":"), ""
            if head == "en" and english is None:
                english = text
            elif head == "zh" and english is not None:
                pairs.append((english, text))
                english = None
            elif head == "keep" and english is None:
                keep.append(text)
            else:
                raise ValueError(f"code strings, line {number}: expected 'en: ', then 'zh: ' (or 'keep: '): {line!r}")
    if english is not None:
        raise ValueError(f"code strings: {english!r} has no 'zh: ' line")
    return pairs, keep


def translate_code(text: str, pairs: list[tuple[str, str]]) -> str:
    """A shared code cell's text in the Chinese edition."""
    for english, chinese in pairs:
        text = text.replace(english, chinese)
    return text


def editions(source: Path) -> list[str]:
    """The editions a source makes: English, and Chinese once it has a ``zh`` cell."""
    nb = jupytext.read(source, fmt="py:percent")
    return ["en"] + (["zh"] if any(c.metadata.get("lang") == "zh" for c in nb.cells) else [])


def target(source: Path, lang: str = "en") -> Path:
    """Where the built notebook of an edition goes."""
    return OUTS[lang] / f"{source.stem}.ipynb"


def instructor_notebook(source: Path, lang: str = "en") -> nbformat.NotebookNode:
    """The source as a notebook of one edition, solutions and hidden tests included, with
    stable cell ids."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}")
    nb = jupytext.read(source, fmt="py:percent")
    pairs, _ = code_strings(nb)
    nb.cells = [c for c in nb.cells if cell_language(c) in (None, lang) and not is_code_strings(c)]
    if lang == "zh":
        for cell in nb.cells:
            if cell.cell_type == "code" and cell_language(cell) is None:
                cell.source = translate_code(cell.source, pairs)
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


def strip_regions(text: str, markdown: bool = False, lang: str = "en") -> str:
    """Solution regions become the edition's stub; hidden-test regions go (nbgrader's rules)."""
    code_stub, markdown_stub = STUBS[lang]

    def replace(m: re.Match) -> str:
        indent, kind = m.group(1), m.group(2)
        if kind == "HIDDEN TESTS":
            return ""
        stub = (markdown_stub,) if markdown else code_stub
        return "".join(f"{indent}{line}\n" for line in stub)

    return _REGION.sub(replace, text).rstrip("\n")


def learner_notebook(source: Path, lang: str = "en") -> nbformat.NotebookNode:
    """The notebook a learner gets: every exercise a stub."""
    nb = instructor_notebook(source, lang)
    for cell in nb.cells:
        cell.source = strip_regions(cell.source, cell.cell_type == "markdown", lang)
    return nb


def sources() -> list[Path]:
    return sorted(SOURCES.glob("[0-9]*.py"))
