"""The views speak the language chosen with ``sandbox.set_language``: under ``"zh"`` every text a
picture or a summary shows is Chinese except what the runtime itself names (calls, codes,
engines, task and kernel names, thread names) and units; each Chinese text comes from the
views' catalogue; and a view reads the language when it is made, so the same log gives the
English view again afterwards."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
from matplotlib.text import Text

import sandbox
from sandbox import i18n
from sandbox.viz import summary
from sandbox.viz.index import build_index
from sandbox.viz.plot_gantt import gantt_figure
from sandbox.viz.plot_memory import memory_figure
from sandbox.viz.plot_queues import queues_figure
from sandbox.viz.samples import synthetic_log, two_stream_log
from sandbox.viz.texts_zh import TEXTS

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")
# What stays as the runtime (or the program) names it, and units.
# the runtime's terms the official Chinese docs keep in English (notebooks/GLOSSARY.md), and names
RUNTIME_WORDS = {"NPU", "Host", "Stream", "Event", "Context", "Device", "API", "AI", "Core", "DMA", "MainThread"}
RUNTIME_WORDS |= {"get_mem_info", "free", "total"}
UNITS = {"B", "KiB", "MiB", "GiB", "ns", "ms", "s"}


@pytest.fixture
def zh():
    sandbox.set_language("zh")
    yield
    sandbox.set_language("en")


def logs():
    return {"two streams": two_stream_log(), "three streams, two devices": synthetic_log(60, streams=3, devices=2)}


def runtime_names(log) -> set[str]:
    """Every name the log itself carries: calls, task kinds and names, engines, machine, threads."""
    ix = build_index(log)
    names = set(RUNTIME_WORDS) | UNITS
    for t in ix.tasks.values():
        names.update((t.kind, t.name, *t.engine.split()))
    names.update(c.name for c in ix.calls)
    names.update(th.name for th in ix.threads.values() if th.name)
    if ix.machine:
        names.update((ix.machine.profile, ix.machine.soc_name))
    return names


def english_words(text: str, allowed: set[str]) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text) if w not in allowed and not w.isupper()]


def figure_texts(fig) -> list[str]:
    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(Text) if t.get_text().strip()]


def pictures(log):
    for view in ("logical", "physical"):
        for colour_by in ("kind", "stream"):
            yield f"gantt {view} {colour_by}", gantt_figure(log, view, colour_by, t=300_000)
    for t in (20_000, 300_000, 10**9):
        yield f"memory at {t}", memory_figure(log, t)
        yield f"queues at {t}", queues_figure(log, t)
    yield "queues at 21000", queues_figure(log, 21_000)


@pytest.mark.parametrize("name", list(logs()))
def test_a_chinese_picture_shows_no_english_word_but_runtime_names_and_units(zh, name):
    log = logs()[name]
    allowed = runtime_names(log)
    found = {}
    for what, fig in pictures(log):
        texts = figure_texts(fig)
        assert any(CJK.search(t) for t in texts), f"{what}: no Chinese at all"
        for text in texts:
            words = english_words(text, allowed)
            if words:
                found[text] = (what, words)
    assert not found, found


@pytest.mark.parametrize("name", list(logs()))
def test_a_chinese_summary_shows_no_english_word_but_runtime_names_and_units(zh, name):
    log = logs()[name]
    allowed = runtime_names(log)
    texts = [
        summary.timeline_summary(log),
        summary.timeline_summary(log, "physical"),
        summary.memory_summary(log, 300_000),
        summary.queues_summary(log, 21_000),
        summary.queues_summary(log, 300_000),
        summary.trace_summary(log),
    ]
    found = {line: english_words(line, allowed) for text in texts for line in text.splitlines()}
    assert {line: w for line, w in found.items() if w} == {}


def test_a_view_reads_the_language_when_it_is_made_not_when_its_log_was_indexed():
    log = two_stream_log()
    ix = build_index(log)
    english = gantt_figure(ix).axes[0].get_title(loc="left")
    try:
        sandbox.set_language("zh")
        chinese = gantt_figure(ix).axes[0].get_title(loc="left")
        chinese_summary = summary.timeline_summary(ix)
    finally:
        sandbox.set_language("en")
    assert CJK.search(chinese) and CJK.search(chinese_summary)
    assert gantt_figure(ix).axes[0].get_title(loc="left") == english
    assert english.startswith("Task timeline (logical view)") and not CJK.search(summary.timeline_summary(ix))


def _view_sources() -> list[Path]:
    return sorted((ROOT / "sandbox" / "viz").glob("*.py")) + sorted((ROOT / "sandbox" / "widgets").glob("*.py"))


def test_every_text_a_view_asks_for_has_a_chinese_entry():
    """Each template a view passes to ``i18n.text`` (and each word counted with ``_plural``)
    is in sandbox/viz/texts_zh.py, with as many fields as the English."""
    asked: set[str] = set()
    for path in _view_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            first = node.args[0]
            if name in ("text", "_") and isinstance(first, ast.Constant) and isinstance(first.value, str):
                asked.add(first.value)
            if name == "_plural" and isinstance(node.args[1], ast.Constant):
                asked.add("{} " + node.args[1].value)
    assert len(asked) > 40
    assert sorted(asked - TEXTS.keys()) == []
    for english in asked:
        chinese = TEXTS[english]
        n = english.count("{}")
        chinese.format(*range(n))  # no missing field, no mix of "{}" and "{0}"
        assert chinese != english or english in ("{} · {}",), english


def test_every_text_the_browser_side_asks_for_has_a_chinese_entry():
    """views.js fills its texts with tx("template", ...) from the catalogue the dashboard sends
    under zh (``i18n.browser_texts``); each literal template is there."""
    js = (ROOT / "sandbox" / "widgets" / "views.js").read_text(encoding="utf-8")
    asked = set(re.findall(r'tx\("((?:[^"\\]|\\.)*)"(?!\s*\+)', js))
    assert len(asked) > 30
    assert sorted(asked - TEXTS.keys()) == []
    try:
        sandbox.set_language("zh")
        sent = i18n.browser_texts()
    finally:
        sandbox.set_language("en")
    assert sent["texts"] == TEXTS and set(sent["labels"]) <= TEXTS.keys()
    assert i18n.browser_texts() == {"texts": {}, "labels": []}


def test_the_dashboard_sends_the_catalogue_only_under_zh():
    from sandbox.widgets.dashboard import Dashboard

    log = two_stream_log()
    assert "texts" not in Dashboard(log).data  # English: the data as before
    try:
        sandbox.set_language("zh")
        dash = Dashboard(log)
        assert dash.data["texts"]["labels"] and CJK.search(dash.data["meta"]["title"])
        assert dash.clock.startswith("t = ") and " / " in dash.clock and CJK.search(repr(dash))
    finally:
        sandbox.set_language("en")


def test_every_label_shape_the_views_translate_matches_its_own_template():
    assert i18n.label("NPU 0 Stream 1") == "NPU 0 Stream 1"  # English: unchanged
    try:
        sandbox.set_language("zh")
        # Stream stays in English in Chinese text, as the official Chinese documentation writes it
        assert i18n.label("NPU 0 Stream 1") == "NPU 0 Stream 1"
        assert i18n.label("NPU 1 Stream 3 · python") == "NPU 1 Stream 3 · python"
        assert i18n.label("NPU 0 Peer link #1") == "NPU 0 Device 间链路 #1"
        assert i18n.label("pool 1 block 2") == "内存池 1 块 2"
        assert (
            i18n.label("event 2 on NPU 0 recorded by task 4 on Stream 2")
            == "NPU 0 上的 Event 2，由 Stream 2 上的任务 4 记录"
        )
        assert i18n.label("a name the catalogue does not know") == "a name the catalogue does not know"
    finally:
        sandbox.set_language("en")
