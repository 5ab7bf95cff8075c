"""The language of the sandbox's own teaching texts: English (``"en"``, the default) or
Simplified Chinese (``"zh"``).

    import sandbox
    sandbox.set_language("zh")       # grader verdicts (✔/✘ lines, hints) in Chinese

What follows the language: the grader's verdicts (``sandbox.teach.check``) and, as the views
adopt it, their titles and legends (they read ``sandbox.i18n.language()``).  What does not:
the runtime's own error messages (``acl.get_recent_err_msg()``) and the C names of calls and
codes, which stay as the real runtime prints them.

Chinese in pictures needs a CJK font.  ``set_language("zh")`` registers one with matplotlib:
the first of ``CJK_FONTS`` that is installed (the project installs Debian's
``fonts-noto-cjk``: ``binder/apt.txt`` and ``.ci/run``), so titles render instead of showing
empty boxes.  ``cjk_font()`` says which one was found (``None`` if none is installed).

Texts are translated by lookup: ``translate(text)`` gives the Chinese for an English text
the catalogue knows (``sandbox/teach/texts_zh.py``), whole or by pattern, and the text itself
otherwise, so an untranslated text is shown in English rather than lost.
"""

from __future__ import annotations

import re
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


# -- translation ---------------------------------------------------------------------------------
_catalogue: tuple[dict, list] | None = None


def _load() -> tuple[dict, list]:
    global _catalogue
    if _catalogue is None:
        from .teach import texts_zh

        patterns = [(re.compile(p, re.DOTALL), t) for p, t in texts_zh.PATTERNS]
        _catalogue = (texts_zh.TEXTS, patterns)
    return _catalogue


def translate(text: str, lang: str | None = None) -> str:
    """``text`` in the chosen language: the catalogue's Chinese when the language is ``"zh"``
    and the catalogue knows it (whole, or by one of its patterns), else ``text`` itself."""
    if (lang or _language) != "zh" or not text:
        return text
    texts, patterns = _load()
    if text in texts:
        return texts[text]
    for pattern, template in patterns:
        m = pattern.fullmatch(text)
        if m:
            return template.format(*(translate(g) if g is not None else "" for g in m.groups()))
    return text


def known(text: str) -> bool:
    """Whether the catalogue translates ``text`` (whole or by a pattern)."""
    return translate(text, "zh") != text
