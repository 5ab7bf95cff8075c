"""The two editions of the notebooks come from one source and cannot drift apart: in a source
with a Chinese edition every English markdown cell is followed by its Chinese twin, the code
cells are shared (only cells marked ``lang=`` differ), both built editions are committed, and
the grader speaks the chosen language."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from notebook_sources import (  # noqa: E402
    cell_language,
    code_strings,
    editions,
    instructor_notebook,
    is_code_strings,
    learner_notebook,
    sources,
    target,
    translate_code,
)

CJK = re.compile(r"[\u4e00-\u9fff]")
# Sources without a Chinese edition yet: this list may only shrink.
NOT_YET_TRANSLATED: set = set()
BILINGUAL = [s for s in sources() if "zh" in editions(s)]


def test_every_source_not_listed_as_untranslated_has_a_chinese_edition():
    missing = {s.stem for s in sources() if "zh" not in editions(s)}
    assert missing == NOT_YET_TRANSLATED & {s.stem for s in sources()}, (
        "a source gained or lost its Chinese edition: update NOT_YET_TRANSLATED"
    )


@pytest.mark.parametrize("source", BILINGUAL, ids=lambda s: s.stem)
def test_every_markdown_cell_is_followed_by_its_chinese_twin(source):
    cells = jupytext.read(source, fmt="py:percent").cells
    markdown = [(i, c) for i, c in enumerate(cells) if c.cell_type == "markdown" and not is_code_strings(c)]
    for i, cell in markdown:
        lang = cell_language(cell)
        assert lang in ("en", "zh"), f"{source.name} cell {i}: lang must be en or zh"
        if lang == "en":
            twin = cells[i + 1] if i + 1 < len(cells) else None
            assert twin is not None and twin.cell_type == "markdown" and cell_language(twin) == "zh", (
                f"{source.name} cell {i} has no Chinese twin after it: {cell.source[:80]!r}"
            )
            assert CJK.search(twin.source), f"{source.name} cell {i + 1} is marked zh but has no Chinese"
        else:
            before = cells[i - 1] if i else None
            assert before is not None and before.cell_type == "markdown" and cell_language(before) == "en", (
                f"{source.name} cell {i}: a Chinese cell with no English cell before it"
            )


@pytest.mark.parametrize("source", BILINGUAL, ids=lambda s: s.stem)
def test_the_editions_share_their_code_and_the_chinese_one_sets_the_language_first(source):
    en, zh = instructor_notebook(source, "en"), instructor_notebook(source, "zh")
    code_en = [c.source for c in en.cells if c.cell_type == "code"]
    code_zh = [c.source for c in zh.cells if c.cell_type == "code"]
    assert code_zh[0].strip().endswith('sandbox.set_language("zh")          # 中文版：评分反馈使用中文')
    pairs, _ = code_strings(jupytext.read(source, fmt="py:percent"))
    assert code_zh[1:] == [translate_code(c, pairs) for c in code_en], (
        "the editions' code cells differ beyond the first one and the texts of the code strings"
    )
    assert sum(c.cell_type == "markdown" for c in en.cells) == sum(c.cell_type == "markdown" for c in zh.cells)


def test_the_chinese_edition_s_stubs_are_the_chinese_course_s():
    """The learner's stub in the Chinese edition is what tools/make_course.py configures nbgrader
    to write for the Chinese course (test_nbgrader_course checks that nbgrader writes it)."""
    zh = learner_notebook(ROOT / "instructor" / "01_quickstart.py", "zh")
    text = "\n".join(c.source for c in zh.cells)
    assert "# 在此处编写你的代码\n    raise NotImplementedError()" in text and "YOUR CODE HERE" not in text


@pytest.mark.parametrize("source", BILINGUAL, ids=lambda s: s.stem)
def test_every_code_string_of_a_source_is_used_by_its_code_cells(source):
    nb = jupytext.read(source, fmt="py:percent")
    pairs, keep = code_strings(nb)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code" and cell_language(c) is None)
    for english, _ in pairs:
        assert english in code, f"{source.name}: the code string {english!r} is in no code cell"
        code = code.replace(english, "")
    for english in keep:
        assert english in code, f"{source.name}: the kept text {english!r} is in no code cell"


_WORD = re.compile(r"\b[A-Za-z][a-z]{2,}\b")
_NOT_PROSE = re.compile(r"noqa|type: ignore|YOUR CODE HERE|### (BEGIN|END)|https?://|^\s*[%!]")


def english_prose(code: str, keep: list[str]) -> list[str]:
    """The comments and string texts of a code cell that are English prose (three English words
    or more and no Chinese), but for the source's ``keep:`` texts."""
    import io
    import tokenize

    found = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return found
    fstring_parts = {getattr(tokenize, "FSTRING_MIDDLE", -1)}
    for tok in tokens:
        if tok.type == tokenize.COMMENT or tok.type == tokenize.STRING or tok.type in fstring_parts:
            text = tok.string
            if CJK.search(text) or _NOT_PROSE.search(text) or any(k in text for k in keep):
                continue
            plain = re.sub(r"\{[^{}]*\}", " ", text)  # an f-string's fields are code
            plain = re.sub(r"`[^`]*`|\b\w+\(\S*?\)|\b\w*_\w*\b|\b\w+(?:\.\w+)+", " ", plain)
            if len(_WORD.findall(plain)) >= 3:
                found.append(text.strip()[:70])
    return found


def test_the_english_prose_finder_finds_comments_and_labels_and_lets_code_through():
    assert english_prose("x = 1  # int32 elements per vector", []) == ["# int32 elements per vector"]
    assert english_prose('print(f"copies took {t} ms in all")', []) != []
    assert english_prose("x = 1  # 每个向量的元素个数 per vector", []) == []
    assert english_prose("acl.rt.memcpy(d, n, h, n, H2D)  # noqa: E501 long line here", []) == []
    assert english_prose('print(f"{p.soc_name}: {p.ai_cores}")', []) == []
    assert english_prose('print("ACL_ERROR_RT_STREAM_NO_CB_REG for this stream")', ["for this stream"]) == []


@pytest.mark.parametrize("source", BILINGUAL, ids=lambda s: s.stem)
def test_no_english_prose_is_left_in_the_chinese_edition_s_code(source):
    _, keep = code_strings(jupytext.read(source, fmt="py:percent"))
    zh = learner_notebook(source, "zh")
    left = [(i, p) for i, c in enumerate(zh.cells) if c.cell_type == "code" for p in english_prose(c.source, keep)]
    assert not left, f"{source.name}: English in the Chinese edition's code (add a code string): {left[:8]}"


@pytest.mark.parametrize("source", BILINGUAL, ids=lambda s: s.stem)
def test_both_editions_are_committed_as_built_from_the_source(source):
    for lang in ("en", "zh"):
        path = target(source, lang)
        assert path.exists(), f"{path.relative_to(ROOT)} is missing: python tools/build_notebooks.py {source.stem[:2]}"
        committed = ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]]
        assert committed == [c.source for c in learner_notebook(source, lang).cells], (
            f"{path.relative_to(ROOT)} is not what its source makes: rebuild it"
        )


def test_nbval_collects_the_chinese_notebooks():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "notebooks" in config["testpaths"]
    assert not any("zh" in d for d in config["norecursedirs"])
    assert all(target(s, "zh").parent == ROOT / "notebooks" / "zh" for s in BILINGUAL)


def test_grader_feedback_follows_the_language():
    import sandbox
    from sandbox import teach

    def solution(a, b):
        raise NotImplementedError()

    try:
        sandbox.set_language("zh")
        zh = str(teach.check("01.1", solution))
    finally:
        sandbox.set_language("en")
    en = str(teach.check("01.1", solution))
    assert "让它正确" in zh and "提示" in zh and "NotImplementedError" in zh
    assert en.startswith("✘ 01.1 · make it correct: not yet") and not CJK.search(en)


def test_every_exercise_title_and_generic_criterion_has_a_chinese_text():
    from sandbox import i18n
    from sandbox.teach import exercises
    from sandbox.teach.texts_zh import WHAT

    assert [e.title for e in exercises() if not i18n.known(e.title)] == []
    assert all(CJK.search(t) for t in WHAT.values())


def test_the_exercise_list_follows_the_language():
    import sandbox
    from sandbox import i18n
    from sandbox.teach import exercises

    english = exercises()
    assert [e.practises for e in english if not i18n.known(e.practises)] == []
    try:
        sandbox.set_language("zh")
        chinese = exercises()
        text = str(chinese)
    finally:
        sandbox.set_language("en")
    assert [e.id for e in chinese] == [e.id for e in english]
    assert all(CJK.search(e.title) and CJK.search(e.practises) for e in chinese)
    assert [e.signature for e in chinese] == [e.signature for e in english]
    assert text.splitlines()[0].startswith("01.1  让它正确：")
    assert not CJK.search(str(exercises()))


def test_the_language_is_stored_where_the_views_can_read_it():
    import sandbox
    from sandbox import i18n

    try:
        sandbox.set_language("zh")
        assert i18n.language() == "zh"
    finally:
        sandbox.set_language("en")
    assert i18n.language() == "en"
    with pytest.raises(ValueError):
        sandbox.set_language("fr")


def test_a_chinese_title_renders_with_a_cjk_font():
    pytest.importorskip("matplotlib")
    from sandbox import i18n

    if i18n.cjk_font() is None:
        pytest.skip("no CJK font installed (Debian: apt-get install fonts-noto-cjk)")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import font_manager

    try:
        i18n.set_language("zh")
        fonts = font_manager.fontManager._find_fonts_by_props(
            font_manager.FontProperties(family=matplotlib.rcParams["font.family"])
        )
        assert any("CJK" in str(f) or "cjk" in str(f).lower() for f in fonts)
        fig, ax = plt.subplots()
        ax.set_title("流与事件")
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "Glyph ... missing from font(s)" would be raised
            fig.canvas.draw()
        plt.close(fig)
    finally:
        i18n.set_language("en")


@pytest.fixture
def only_the_packaged_font(monkeypatch):
    """matplotlib as on a fresh machine without Debian's fonts: its font list holds only the
    fonts matplotlib ships (DejaVu), i18n searches no system folder and has found nothing yet."""
    pytest.importorskip("noto_cjk_sans_otc")
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import font_manager

    from sandbox import i18n

    fm = font_manager.fontManager
    own = str(Path(matplotlib.get_data_path()))
    monkeypatch.setattr(fm, "ttflist", [f for f in fm.ttflist if f.fname.startswith(own)])
    monkeypatch.setattr(i18n, "_FONT_DIRS", ())
    monkeypatch.setattr(i18n, "_font", None)
    monkeypatch.setattr(i18n, "_font_searched", False)
    monkeypatch.setattr(font_manager, "findSystemFonts", lambda *a, **k: [])
    fm._findfont_cached.cache_clear()
    saved = dict(matplotlib.rcParams)
    yield i18n
    matplotlib.rcParams.update(saved)
    i18n.set_language("en")
    fm._findfont_cached.cache_clear()


def test_without_system_fonts_the_packaged_cjk_font_draws_a_chinese_picture(only_the_packaged_font):
    import warnings

    import matplotlib
    from matplotlib import font_manager

    from sandbox.viz.plot_gantt import gantt_figure
    from sandbox.viz.plot_memory import memory_figure
    from sandbox.viz.plot_queues import queues_figure
    from sandbox.viz.samples import two_stream_log

    i18n = only_the_packaged_font
    assert not any("CJK" in f.name for f in font_manager.fontManager.ttflist)
    i18n.set_language("zh")
    assert i18n.cjk_font() == "Noto Sans CJK SC"
    used = font_manager.fontManager._find_fonts_by_props(
        font_manager.FontProperties(family=matplotlib.rcParams["font.family"])
    )
    assert str(i18n.packaged_font_path()) in map(str, used)
    log = two_stream_log()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph ... missing from font(s)" would be raised here
        for fig in (gantt_figure(log, t=300000), memory_figure(log, 300000), queues_figure(log, 21000)):
            fig.canvas.draw()


SKIP_KEYWORDS = ("practises", "signature")  # teach.exercises(): tested below, and code


def _grader_texts() -> list[str]:
    """Every fixed text a grader can print: hints, criterion names and fixed details, as
    literal strings in the exercise sets and the grader's modules."""
    import ast

    files = sorted((ROOT / "sandbox" / "teach" / "exercise_sets").glob("nb*.py"))
    files += [ROOT / "sandbox" / "teach" / name for name in ("checks.py", "grading.py", "verdict.py")]
    found: list[str] = []

    def keep(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip() not in ("", "x"):
            found.append(node.value)

    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                if getattr(node.func, "id", getattr(node.func, "attr", "")) in ("Question", "Quiz"):
                    continue  # a concept check's texts carry their Chinese with them (sandbox/teach/concepts.py)
                for kw in node.keywords:
                    if kw.arg in ("hint", "what"):
                        keep(kw.value)
                if "exercise_sets" in path.parts:  # hints handed to helpers positionally too
                    for arg in list(node.args) + [k.value for k in node.keywords if k.arg not in SKIP_KEYWORDS]:
                        if (
                            isinstance(arg, ast.Constant)
                            and isinstance(arg.value, str)
                            and len(arg.value) >= 20
                            and " " in arg.value
                        ):
                            keep(arg)
                if getattr(node.func, "id", getattr(node.func, "attr", "")) == "Check":
                    for arg in node.args[2:4]:
                        keep(arg)
            elif isinstance(node, ast.FunctionDef):
                for a, d in list(zip(node.args.args[::-1], node.args.defaults[::-1])) + list(
                    zip(node.args.kwonlyargs, node.args.kw_defaults)
                ):
                    if a.arg == "hint" and d is not None:
                        keep(d)
    return found


def test_every_fixed_grader_text_has_a_chinese_text():
    from sandbox import i18n

    missing = sorted({t for t in _grader_texts() if not i18n.known(t)})
    assert missing == [], f"add these to sandbox/teach/texts_zh.py: {missing[:5]}"


# -- every grader verdict in Chinese: run the cases of tests/teach/exercises under zh -------------------
# What may stay English in a Chinese verdict: code (calls, names with _ or ., quoted values,
# C names and codes), the runtime's own error messages, Python's exception text, and the
# glossary's bracketed English ("数据竞争（hazard）").
_CODE = re.compile(
    r"`[^`]*`|'[^']*'|\"[^\"]*\""
    r"|(?:返回|returned) ACL_\w+[ （(]\d+[)）][：:].*$"  # the runtime's message after its code
    r"|\b\w+(?:Error|Exception|Warning)\b[：:]?.*$"  # Python's exception text
    r"|[\w.]+[(\[][^()\[\]]*[)\]]"  # a call or an index, with its arguments
    r"|\b(?:acl|ACL_)\w*|\w+(?:\.\w+)+\S*|\b\w*_\w*\b|\b\w+(?=[(\[])|\(\S*?\)"
    r"|\b(?:AI Cores?|peer access)\b"
    r"|任务 \d+（[^）]*）"  # a report's task label: its number, kind and name, as the trace has them
)
_PHRASE = re.compile(r"[A-Za-z]{3,}[ ,:;]+[A-Za-z]{3,}")  # two English words in a row


def untranslated(line: str) -> str | None:
    """The first English phrase of a Chinese verdict's line that is not code or a runtime text."""
    m = _PHRASE.search(_CODE.sub(" ", line))
    return m.group(0) if m else None


def test_the_untranslated_phrase_finder_finds_english_and_lets_code_through():
    assert untranslated("✘ 流：the kernels ran on 2 stream(s)") == "the kernels"
    assert untranslated("✔ 核函数：add[1, stream](da, db) 下发了 8 次") is None
    assert untranslated("提示：使用 acl.rt.memcpy_async(dst, n, src, n, kind, stream)") is None
    assert (
        untranslated(
            "✘ 错误：8 个，第一个：aclrtLaunchCallback 返回 ACL_ERROR_RT_STREAM_NO_CB_REG（107015）：stream 1 has no"
        )
        is None
    )
    assert untranslated("✘ 解答运行：抛出了 TypeError：'int' object is not subscriptable") is None


def _exercise_modules():
    import importlib
    import pkgutil

    sys.path.insert(0, str(ROOT / "tests" / "teach"))
    import exercises as book

    return book, {
        info.name[2:]: importlib.import_module(f"exercises.{info.name}")
        for info in pkgutil.iter_modules(book.__path__)
        if info.name.startswith("nb")
    }


@pytest.mark.parametrize("nn", sorted(p.stem[2:] for p in (ROOT / "tests" / "teach" / "exercises").glob("nb*.py")))
def test_every_grader_verdict_of_the_exercise_cases_is_in_chinese_under_zh(nn):
    """The reference solutions, the stub and every mistake of tests/teach/exercises, graded under zh:
    no line of a verdict carries an English sentence (a hint, detail or criterion the
    catalogue does not know shows up here, figures and all)."""
    import sandbox
    from sandbox import teach

    book, modules = _exercise_modules()
    mod = modules[nn]

    def stub(*args, **kwargs):
        raise NotImplementedError()

    found = {}
    try:
        sandbox.set_language("zh")
        for ex, fn in sorted(mod.SOLUTIONS.items()):
            cases = {"reference": fn, "stub": stub}
            cases.update({name: book.variant(nn, src) for name, src in mod.MISTAKES.get(ex, {}).items()})
            for name, solution in cases.items():
                for line in str(teach.check(ex, solution)).splitlines():
                    phrase = untranslated(line)
                    if phrase:
                        found.setdefault(line.strip(), f"{ex} {name}: {phrase!r}")
    finally:
        sandbox.set_language("en")
    assert not found, "add these to sandbox/teach/texts_zh.py:\n" + "\n".join(
        f"{where}\n    {line}" for line, where in list(found.items())[:8]
    )


def test_every_grader_template_fills_every_field_it_is_given():
    from sandbox.teach.texts_zh import TEMPLATES

    from sandbox.i18n import REPORT

    for english, chinese in TEMPLATES.items():
        fields = [f"<{i}>" for i in range(english.count("{}") + english.count(REPORT))]
        chinese.format(*fields)  # a mix of "{}" and "{0}" or a missing field raises here
