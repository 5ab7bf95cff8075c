"""The course a teacher assigns: every notebook states its time and fits one class, the course
map (``notebooks/COURSE.md``, ``notebooks/zh/COURSE.md``) lists every notebook with the time the
notebook states, the teacher's kit (``TEACHING.md``, ``TEACHING.zh-CN.md``) has a section for
every notebook, and nothing cites the source articles as "seeds", which learners do not have.

A core notebook's first markdown cell says ``**Time:** about NN minutes`` and its Chinese twin
``**时间**：约 NN 分钟``; an optional deep dive (``NNx_topic``) says
``Optional deep dive after notebook NN · about MM minutes`` and
``选学深入：notebook NN 之后 · 约 MM 分钟``.  One class is 45 minutes."""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "instructor").glob("[0-9][0-9]*.py"))
STEMS = [p.stem for p in SOURCES]
CLASS_MINUTES = 45

TIME = {
    "en": re.compile(r"\*\*Time:\*\*\s*about (\d+) minutes"),
    "zh": re.compile(r"\*\*时间\*\*：\s*约 ?(\d+) ?分钟"),
}
DEEP_DIVE = {
    "en": re.compile(r"Optional deep dive after notebook (\w+?) · about (\d+) minutes"),
    "zh": re.compile(r"选学深入：\s*notebook (\w+?) 之后 · 约 ?(\d+) ?分钟"),
}
MAP_TIME = {"en": re.compile(r"(?<![\w.])(\d+) min\b"), "zh": re.compile(r"(?<![\w.])(\d+) ?分钟")}
MAPS = {"en": ROOT / "notebooks" / "COURSE.md", "zh": ROOT / "notebooks" / "zh" / "COURSE.md"}
KITS = {"en": ROOT / "TEACHING.md", "zh": ROOT / "TEACHING.zh-CN.md"}
SEED = re.compile(r"\bseeds? ?\d{3}\b|种子|`seeds/`", re.IGNORECASE)


def is_deep_dive(stem: str) -> bool:
    return re.match(r"\d+x_", stem) is not None


def first_markdown(source: Path, lang: str) -> str:
    """The first markdown cell of one edition of a source (a markdown cell without ``lang`` is English)."""
    nb = jupytext.read(source)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.metadata.get("lang", "en") == lang:
            return cell.source
    return ""


def stated_minutes(source: Path, lang: str) -> int | None:
    """The minutes a notebook's first markdown cell states in edition ``lang``, or ``None``."""
    text = first_markdown(source, lang)
    if is_deep_dive(source.stem):
        m = DEEP_DIVE[lang].search(text)
        return int(m.group(2)) if m else None
    m = TIME[lang].search(text)
    return int(m.group(1)) if m else None


def map_rows(lang: str) -> dict[str, list[str]]:
    """The course map's table rows, by the notebook stems each row's first two cells name."""
    rows: dict[str, list[str]] = {}
    for line in MAPS[lang].read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        head = " ".join(cells[:2])
        for stem in STEMS:
            if re.search(rf"(?<![\w]){re.escape(stem)}(?![\w])", head):
                rows.setdefault(stem, cells)
    return rows


@pytest.mark.parametrize("source", SOURCES, ids=STEMS)
def test_every_notebook_states_its_time_in_both_editions_and_fits_one_class(source):
    en, zh = stated_minutes(source, "en"), stated_minutes(source, "zh")
    form = (
        "Optional deep dive after notebook NN · about MM minutes"
        if is_deep_dive(source.stem)
        else ("**Time:** about NN minutes")
    )
    assert en is not None, f"{source.name}: the first markdown cell should say '{form}'"
    assert zh is not None, (
        f"{source.name}: the first Chinese markdown cell should state the time as the English one does"
    )
    assert en == zh, f"{source.name}: {en} minutes in English, {zh} in Chinese"
    assert en <= CLASS_MINUTES, f"{source.name}: {en} minutes is more than one class ({CLASS_MINUTES}): split it"


PREDICT = {"en": "**Predict, then run.**", "zh": "**先预测，再运行。**"}


@pytest.mark.parametrize("source", [s for s in SOURCES if not is_deep_dive(s.stem)], ids=lambda s: s.stem)
def test_every_core_notebook_asks_for_a_prediction_at_least_twice_in_both_editions(source):
    """Before the cells where intuition fails, a prompt to predict the outcome, then the cell shows it."""
    import jupytext

    cells = jupytext.read(source, fmt="py:percent").cells
    for lang, prompt in PREDICT.items():
        asked = [
            c
            for c in cells
            if c.cell_type == "markdown" and (c.metadata.get("lang") or "en") == lang and prompt in c.source
        ]
        assert len(asked) >= 2, f"{source.name} ({lang}): {len(asked)} '{prompt}' prompt(s), at least 2 wanted"


@pytest.mark.parametrize("source", [s for s in SOURCES if is_deep_dive(s.stem)], ids=lambda s: s.stem)
def test_a_deep_dive_names_the_notebook_it_follows(source):
    core = re.match(r"(\d+)x_", source.stem).group(1)
    for lang in ("en", "zh"):
        m = DEEP_DIVE[lang].search(first_markdown(source, lang))
        assert m and m.group(1) == core, f"{source.name} ({lang}): it should say it follows notebook {core}"
    assert any(s.startswith(core + "_") for s in STEMS), f"{source.name}: no core notebook {core}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_course_map_lists_every_notebook_with_the_time_it_states(lang):
    rows = map_rows(lang)
    missing = [s for s in STEMS if s not in rows]
    assert missing == [], f"{MAPS[lang].relative_to(ROOT)} has no row for {missing}"
    wrong = {}
    for source in SOURCES:
        stated = stated_minutes(source, lang)
        times = [int(t) for c in rows[source.stem] for t in MAP_TIME[lang].findall(c)]
        if not times or times[0] != stated:
            wrong[source.stem] = (times[:1], stated)
    assert wrong == {}, f"{MAPS[lang].relative_to(ROOT)}: (map, notebook) minutes differ: {wrong}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_course_map_names_no_notebook_that_does_not_exist(lang):
    named = set(re.findall(r"\[(\d\d\w*?)\]\((\d\d\w*?)\.ipynb\)", MAPS[lang].read_text(encoding="utf-8")))
    unknown = sorted({stem for pair in named for stem in pair if stem not in STEMS})
    assert unknown == [], f"{MAPS[lang].relative_to(ROOT)} links notebooks that do not exist: {unknown}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_teachers_kit_has_a_section_for_every_notebook(lang):
    headings = [line for line in KITS[lang].read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    missing = [s for s in STEMS if not any(re.search(rf"(?<![\w]){re.escape(s)}(?![\w])", h) for h in headings)]
    assert missing == [], f"{KITS[lang].name} has no section (a heading naming the notebook) for {missing}"


def cited_files() -> list[Path]:
    return [
        *SOURCES,
        *ROOT.glob("README*.md"),
        *(ROOT / "notebooks").glob("*.md"),
        *(ROOT / "notebooks" / "zh").glob("*.md"),
        *KITS.values(),
    ]


def test_nothing_cites_the_source_articles_as_seeds():
    found = {
        f"{p.relative_to(ROOT)}:{n}": m.group(0)
        for p in cited_files()
        if p.exists()
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        for m in [SEED.search(line)]
        if m
    }
    assert found == {}, (
        "cite the official document (its name and path in the CANN runtime repository) or say plainly that "
        f"a figure comes from a community article: {dict(list(found.items())[:8])}"
    )


def test_the_rules_catch_what_they_are_for(tmp_path):
    """Each rule's pattern fails on the mistake it stands for."""
    assert TIME["en"].search("**Time:** about 45 minutes · **Required**").group(1) == "45"
    assert TIME["zh"].search("**时间**：约 45 分钟 · **必修**").group(1) == "45"
    assert TIME["en"].search("(About 25 minutes.)") is None
    assert DEEP_DIVE["en"].search("**Optional deep dive after notebook 05 · about 40 minutes**").groups() == (
        "05",
        "40",
    )
    assert DEEP_DIVE["zh"].search("**选学深入：notebook 05 之后 · 约 40 分钟**").groups() == ("05", "40")
    assert MAP_TIME["en"].findall("| [01_quickstart](01_quickstart.ipynb) | required | 45 min |") == ["45"]
    assert MAP_TIME["zh"].findall("| [01_quickstart](01_quickstart.ipynb) | 必修 | 45 分钟 |") == ["45"]
    for cited in ("seed 003", "Seed 000", "SEED003", "种子文章", "`seeds/`"):
        assert SEED.search(cited), cited
    assert SEED.search("the random seed of the run is 7") is None
    assert is_deep_dive("05x_peer_links") and not is_deep_dive("09b_hazards_trace")
