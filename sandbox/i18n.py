"""The language of the sandbox's own teaching texts: English (``"en"``, the default) or
Simplified Chinese (``"zh"``).

    import sandbox
    sandbox.set_language("zh")       # grader verdicts (✔/✘ lines, hints) in Chinese

What follows the language: the grader's verdicts (``sandbox.teach.check``) and the views'
titles, legends, axis labels and summaries (``sandbox.viz``, ``sandbox.widgets``), which read
``language()`` when they are made, so a view stays a function of the trace log and the
language.  What does not: the runtime's own error messages (``acl.get_recent_err_msg()``) and
the C names of calls, constants and codes, which stay as the real runtime prints them.

Chinese in pictures needs a CJK font.  ``set_language("zh")`` registers one with matplotlib:
the first of ``CJK_FONTS`` that is installed on the system (Debian's ``fonts-noto-cjk``:
``binder/apt.txt`` and ``.ci/run``), else the Noto Sans CJK collection that the PyPI package
``noto-cjk-sans-otc`` ships (the ``lab`` and ``test`` extras and ``binder/requirements.txt``
install it), so a fresh machine without Debian's fonts renders titles instead of empty boxes.
Both are the same file (Noto Sans CJK 2.004), so a picture is the same either way.
``cjk_font()`` says which family was found (``None`` if neither is there).

Texts are translated by lookup: ``translate(text)`` gives the Chinese for an English text
the catalogues know (``sandbox/teach/texts_zh.py`` for the graders, ``sandbox/viz/texts_zh.py``
for the views), whole or by pattern, and the text itself otherwise, so an untranslated text is
shown in English rather than lost.  ``text(template, *args)`` is the views' form: a
``str.format`` template with ``{}`` fields, looked up whole and then filled in.  A filled-in
Chinese text keeps the catalogues' spacing rule at its fields too: a space between a Chinese
character and a Latin letter or digit ("在 Host 函数中", "设备 0 的流 1").

The sandbox's own reports are teaching texts as well, and follow the language when they are
shown: the text of a ``HazardWarning`` or ``LeakWarning`` (``str()`` of the warning, which is
what Python prints under a cell and what ``w.message`` prints), the messages of
``sandbox.hazards()``, ``sandbox.leak_report()`` and the hazard lines of the summaries, through
``report_text`` and the reports' catalogue (``REPORTS`` in ``sandbox/teach/texts_zh.py``).  The
core makes them in English and records them so in the trace log; the warning's category and
the English text that warnings filters match stay what they are.
"""

from __future__ import annotations

import importlib
import re
import string
from pathlib import Path

LANGUAGES = ("en", "zh")
# Family names as matplotlib's font manager reports them, best first: Noto Sans CJK SC
# (Debian fonts-noto-cjk), then other packaged CJK fonts if that one is missing.
CJK_FONTS = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Sans SC",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Source Han Sans SC",
    "AR PL UMing CN",
)
_FONT_DIRS = (
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    str(Path.home() / ".fonts"),
    str(Path.home() / ".local/share/fonts"),
)

_language = "en"
_font: str | None = None
_font_searched = False


def set_language(lang: str) -> None:
    """Choose the language of the teaching texts: ``"en"`` or ``"zh"`` (Simplified Chinese)."""
    global _language
    lang = str(lang).lower().replace("_", "-")
    if lang in ("zh-cn", "zh-hans", "cn"):
        lang = "zh"
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {lang!r}")
    _language = lang
    if lang == "zh":
        use_cjk_font()


def language() -> str:
    """The language chosen with ``set_language`` (``"en"`` until then)."""
    return _language


def cjk_font() -> str | None:
    """The family name of the CJK font matplotlib uses, or ``None`` if none is installed."""
    _find_font()
    return _font


def use_cjk_font() -> str | None:
    """Make matplotlib draw with DejaVu Sans and fall back to the CJK font for each glyph
    DejaVu lacks (matplotlib falls back along an explicit family list, not along the list a
    generic name such as "sans-serif" stands for); returns the CJK family's name, or ``None``."""
    family = cjk_font()
    if family is None:
        return None
    import matplotlib

    matplotlib.rcParams["font.family"] = ["DejaVu Sans", family, "sans-serif"]
    matplotlib.rcParams["axes.unicode_minus"] = False
    return family


def _find_font() -> None:
    """Look for an installed CJK font once: in matplotlib's list, then in the usual font folders
    (a font installed after matplotlib built its cache is added to it)."""
    global _font, _font_searched
    if _font_searched:
        return
    _font_searched = True
    from matplotlib import font_manager

    known = {f.name for f in font_manager.fontManager.ttflist}
    for family in CJK_FONTS:
        if family in known:
            _font = family
            return
    for folder in _FONT_DIRS:
        root = Path(folder)
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.suffix.lower() not in (".ttc", ".otf", ".ttf") or "cjk" not in path.name.lower():
                continue
            try:
                font_manager.fontManager.addfont(str(path))
            except (OSError, RuntimeError, ValueError):
                continue
    known = {f.name for f in font_manager.fontManager.ttflist}
    _font = next((family for family in CJK_FONTS if family in known), None)
    if _font is None:
        _font = _packaged_font()


def packaged_font_path() -> Path | None:
    """The Noto Sans CJK collection of the PyPI package ``noto-cjk-sans-otc``, if installed."""
    try:  # an optional package (the lab and test extras): imported by name, so that type
        # checkers without it installed do not need it either
        package = importlib.import_module("noto_cjk_sans_otc")
    except ImportError:
        return None
    path = Path(str(package.FONT_PATH))
    return path if path.is_file() else None


def _packaged_font() -> str | None:
    """Register the packaged collection with matplotlib (each face of the .ttc becomes a family:
    Noto Sans CJK SC among them); the family to use, or ``None`` without the package."""
    path = packaged_font_path()
    if path is None:
        return None
    from matplotlib import font_manager

    try:
        font_manager.fontManager.addfont(str(path))
    except (OSError, RuntimeError, ValueError):
        return None
    known = {f.name for f in font_manager.fontManager.ttflist}
    return next((family for family in CJK_FONTS if family in known), None)


# -- translation ---------------------------------------------------------------------------------
_catalogue: tuple[dict, list] | None = None


def _load() -> tuple[dict, list]:
    global _catalogue
    if _catalogue is None:
        from .teach import texts_zh

        patterns = [(re.compile(p, re.DOTALL), t) for p, t in texts_zh.PATTERNS]
        fields = {p: t for p, t in texts_zh.TEMPLATES.items() if "{}" in p or REPORT in p}
        # the most specific template first: the one with the most text of its own
        ordered = sorted(fields.items(), key=lambda item: -len(item[0].replace("{}", "").replace(REPORT, "")))
        patterns += [(re.compile(_template_regex(p), re.DOTALL), t) for p, t in ordered]
        whole = {p: t for p, t in texts_zh.TEMPLATES.items() if p not in fields}
        _catalogue = ({**texts_zh.TEXTS, **whole}, patterns)
    return _catalogue


_view_catalogue: tuple[dict, list] | None = None


def _load_views() -> tuple[dict, list]:
    """The views' catalogue, apart from the graders' so that a view's short words ("free",
    "{} task") never change a grader's sentence, nor the other way round."""
    global _view_catalogue
    if _view_catalogue is None:
        from .viz import texts_zh as view_texts

        ordered = sorted(view_texts.TEMPLATES.items(), key=lambda item: -len(item[0].replace("{}", "")))
        patterns = [(re.compile(_template_regex(p), re.DOTALL), t) for p, t in ordered]
        _view_catalogue = (view_texts.TEXTS, patterns)
    return _view_catalogue


def _template_regex(template: str) -> str:
    """A ``{}`` template as a regex: each field matches some text, maybe none (the shortest
    that fits: "{} subscription{}" matches "1 subscription"), and not across a "; " unless the
    template has one (graders join sentences with "; ", each matched on its own)."""
    field = "(.*?)" if ";" in template else "((?:(?!; ).)*?)"
    quoted = REPORT.join(field.join(re.escape(p) for p in part.split("{}")) for part in template.split(REPORT))
    return quoted.replace(REPORT, "(?P<report>.*)")


_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z0-9]")
_FORMATTER = string.Formatter()


def _fill(template: str, args) -> str:
    """``template.format(*args)`` for a Chinese template, with a space put in where a field
    meets a Chinese character on one side and a Latin letter or digit on the other (the
    catalogues' own text keeps that rule; a field's text is only known when it is filled in)."""
    out = ""
    auto = 0
    for literal, field, spec, conversion in _FORMATTER.parse(template):
        out = _spaced(out, literal)
        if field is None:
            continue
        if field == "":
            field, auto = str(auto), auto + 1
        out = _spaced(out, _FORMATTER.format_field(_FORMATTER.convert_field(args[int(field)], conversion), spec or ""))
    return out


def _spaced(text: str, piece: str) -> str:
    """``text + piece``, with a space between them if one ends in a Chinese character and the
    other starts with a Latin letter or digit."""
    if text and piece:
        a, b = text[-1], piece[0]
        if (_CJK.match(a) and _LATIN.match(b)) or (_LATIN.match(a) and _CJK.match(b)):
            return text + " " + piece
    return text + piece


def text(template: str, *args: object) -> str:
    """A view's text: ``template.format(*args)``, with the views' Chinese template when the
    language is ``"zh"`` and the catalogue has one (in English, the template's own output)."""
    if _language == "zh":
        return _fill(_load_views()[0].get(template, template), args)
    return template.format(*args)


def browser_texts() -> dict:
    """The views' catalogue for the dashboard's browser side (``sandbox/widgets/views.js``):
    every text, and which of them are label templates; empty in English."""
    if _language != "zh":
        return {"texts": {}, "labels": []}
    from .viz import texts_zh as view_texts

    return {"texts": dict(view_texts.TEXTS), "labels": list(view_texts.TEMPLATES)}


def label(text: str) -> str:
    """A label a view shows that was made elsewhere in English (a row's "NPU 0 Stream 1", a
    block's "pool 1 block 2", a queue's reason): its Chinese when the language is ``"zh"`` and
    the views' catalogue knows it, whole or by a template (each field translated in turn)."""
    if _language != "zh" or not text:
        return text
    return _lookup(text, _load_views())


REPORT = "{report}"  # a template's field that quotes a hazard or leak report: translated as one


def _lookup(text: str, catalogue: tuple[dict, list]) -> str:
    texts, patterns = catalogue
    if text in texts:
        return texts[text]
    for pattern, template in patterns:
        m = pattern.fullmatch(text)
        if m:
            quoted = pattern.groupindex.get("report", 0) - 1  # the field that quotes a report, if any
            return _fill(
                template,
                [
                    "" if g is None else report_text(g, "zh") if i == quoted else _lookup(g, catalogue)
                    for i, g in enumerate(m.groups())
                ],
            )
    return text


def translate(text: str, lang: str | None = None) -> str:
    """``text`` in the chosen language: the catalogue's Chinese when the language is ``"zh"``
    and the catalogue knows it (whole, or by one of its patterns), else ``text`` itself."""
    if (lang or _language) != "zh" or not text:
        return text
    return _lookup(text, _load())


def known(text: str) -> bool:
    """Whether the catalogue translates ``text`` (whole or by a pattern)."""
    return translate(text, "zh") != text


# -- the sandbox's own reports: hazards and leaks -------------------------------------------------
_report_catalogue: tuple[dict, list] | None = None


def _load_reports() -> tuple[dict, list]:
    global _report_catalogue
    if _report_catalogue is None:
        from .teach import texts_zh

        fields = {p: t for p, t in texts_zh.REPORTS.items() if "{}" in p}
        ordered = sorted(fields.items(), key=lambda item: -len(item[0].replace("{}", "")))
        patterns = [(re.compile(_template_regex(p), re.DOTALL), t) for p, t in ordered]
        whole = {p: t for p, t in texts_zh.REPORTS.items() if p not in fields}
        _report_catalogue = (whole, patterns)
    return _report_catalogue


def report_text(text: str, lang: str | None = None) -> str:
    """A hazard message or a leak report (sandbox/core/hazards.py, leaks.py) in the chosen
    language: under ``"zh"`` each line by the reports' catalogue (a line it does not know stays
    English), else ``text`` itself, unchanged."""
    if (lang or _language) != "zh" or not text:
        return text
    catalogue = _load_reports()
    return "\n".join(_lookup(line, catalogue) if line else line for line in text.split("\n"))


def _shown(warning: BaseException) -> str:
    """``str()`` of a HazardWarning or LeakWarning: its text in the chosen language."""
    return report_text(BaseException.__str__(warning))


def install_report_texts() -> None:
    """Make ``str()`` of the sandbox's HazardWarning and LeakWarning follow the language: the
    one place Python's warning display (under a cell, or ``w.message`` of a caught warning)
    reads their text.  The warnings are made by the core with the English text, so the
    filters of ``warnings`` match that text and the category stays the same."""
    from .core.hazards import HazardWarning
    from .core.features.leaks import LeakWarning

    for category in (HazardWarning, LeakWarning):
        category.__str__ = _shown  # type: ignore[method-assign]  # the classes are the core's
