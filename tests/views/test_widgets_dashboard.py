"""The dashboard: columns of the log sent once, a cursor the browser moves, the kernel's
handles on it (t, t_range, step), and a PNG snapshot with stable text for static viewers."""

from __future__ import annotations

import numpy as np
import pytest

from sandbox.viz.samples import two_stream_log
from sandbox.widgets.dashboard import Dashboard, change_times


@pytest.fixture
def dash():
    return Dashboard(two_stream_log(), t=100000)


def test_the_log_goes_to_the_browser_once_as_binary_columns(dash):
    meta, buffers = dash.data["meta"], dash.data["buffers"]
    assert meta["n_tasks"] == 7 and all(isinstance(b, memoryview) for b in buffers.values())
    assert len(buffers["task_start"]) == 7 * 8  # float64 per task
    state = dash.get_state()
    assert state["data"]["meta"]["t_end"] == 921500


def test_moving_the_cursor_sends_only_the_time(dash):
    data = dash.data
    sent = []
    dash.observe(lambda change: sent.append(change["name"]), names=traits(dash))
    dash.t = 500000
    assert sent == ["t"] and dash.data is data


def traits(d):
    return [n for n in d.trait_names() if d.trait_metadata(n, "sync")]


def test_building_and_moving_print_nothing_to_the_cell(capsys):
    d = Dashboard(two_stream_log(), t=100000)
    d.t = 500000
    d.view = "physical"
    assert capsys.readouterr() == ("", "")


def test_the_panels_in_words_follow_the_cursor(dash):
    assert dash.queues_text().startswith("Stream queues at 100.000 µs")
    dash.t = 921500
    assert dash.memory_text().startswith("Device memory at 921.500 µs")
    assert "block 1" not in dash.memory_text() and "running task" not in dash.queues_text()


def test_clock_label_reads_the_time(dash):
    assert dash.clock == "t = 100.000 µs of 921.500 µs"


def test_step_jumps_between_changes(dash):
    assert dash.step(+1) == 220000
    assert dash.step(-1) == 33000


def test_step_stops_at_the_ends(dash):
    dash.t = dash.t_range[1]
    assert dash.step(+1) == dash.t_range[1] and dash.at_end()
    dash.t = dash.t_range[0]
    assert dash.step(-1) == dash.t_range[0]


def test_t_is_kept_inside_t_range(dash):
    assert dash.t_range == (14000, 921500)
    dash.t = 0
    assert dash.t == 14000
    dash.t = 10**12
    assert dash.t == 921500


def test_both_row_layouts_are_sent(dash):
    rows = dash.data["meta"]["rows"]
    assert [r[0] for r in rows["logical"]][1:] == ["NPU 0 Stream 0", "NPU 0 Stream 1", "NPU 0 Stream 2"]
    assert "NPU 0 DMA H2D" in [r[0] for r in rows["physical"]]


def test_view_and_colour_are_checked(dash):
    dash.view = "physical"
    with pytest.raises(ValueError, match="view must be"):
        dash.view = "sideways"
    with pytest.raises(ValueError, match="colour_by must be"):
        dash.colour = "rainbow"


def test_colour_by_stream_changes_the_snapshot(dash):
    png = dash.snapshot_png()
    dash.colour = "stream"
    assert dash.snapshot_png() != png


def test_refresh_shows_a_longer_log_at_its_end():
    log = two_stream_log()
    longer = type(log)(log.records[: len(log.records) // 2])
    d = Dashboard(longer)
    d.refresh(log)
    assert d.t == d.t_range[1] == 921500
    assert d.queues_text().startswith("Stream queues at 921.500 µs")
    assert d.data["meta"]["n_tasks"] == 7


def test_repr_is_stable_text(dash):
    assert repr(dash) == (
        "Dashboard at 100.000 µs of 921.500 µs (logical view, colour by kind): 7 tasks, "
        "total 900.000 µs, copy 800.000 µs, compute 100.000 µs, overlap 0 ns"
    )
    assert repr(Dashboard(two_stream_log(), t=100000)) == repr(dash)


def test_mimebundle_has_text_snapshot_and_widget_view(dash):
    bundle = dash._repr_mimebundle_()
    assert bundle["text/plain"] == repr(dash)
    assert bundle["image/png"].startswith("iVBORw0KGgo")
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_change_times_include_every_task_moment_and_memory_change():
    times = change_times(two_stream_log())
    assert {14000, 19000, 20000, 220000, 620000, 920000, 921500} <= set(times)
    assert times == sorted(set(times))


def test_dashboard_of_an_idle_machine_says_nothing_has_run():
    from sandbox.core import trace as tr

    log = tr.TraceLog()
    log.append(tr.MachineConfigured(0, "Ascend910B", "Ascend910B1", 1, 24, 1 << 36, 1000.0, ()))
    d = Dashboard(log)
    assert repr(d) == "Dashboard: nothing has run yet (logical view, colour by kind)"
    assert d.clock == "nothing has run yet" and d.data["meta"] is None
    d.refresh(two_stream_log(), t=100000)
    assert repr(d).startswith("Dashboard at 100.000 µs of 921.500 µs ")


def test_a_blocking_call_sends_what_it_waited_for_to_the_browser(dash):
    meta, buffers = dash.data["meta"], dash.data["buffers"]
    names = [meta["strings"][n] for n in np.frombuffer(buffers["call_name"], "<i4")]
    waited = np.frombuffer(buffers["call_waited"], "<i4")
    assert [(name, meta["strings"][w]) for name, w in zip(names, waited) if w >= 0] == [
        ("aclrtSynchronizeStream", "NPU 0 Stream 2")
    ]


def test_every_symbol_the_dashboard_writes_is_in_a_common_font():
    """The dashboard's own texts (tx("...") in views.js, and their Chinese) use only symbols that
    DejaVu Sans has (the font matplotlib ships and Debian's default), not ones most fonts lack
    (U+23F8 for pause showed as a box)."""
    import re
    from pathlib import Path

    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    from sandbox.viz.texts_zh import TEXTS

    import sandbox

    source = (Path(sandbox.__file__).parent / "widgets" / "views.js").read_text(encoding="utf-8")
    labels = re.findall(r'tx\("((?:[^"\\]|\\.)*)"', source)
    assert "❚❚ pause" in labels and "▶ play" in labels
    covered = FT2Font(font_manager.findfont("DejaVu Sans")).get_charmap()
    texts = labels + [TEXTS[label] for label in labels if label in TEXTS]
    symbols = {ch for text in texts for ch in text if ord(ch) > 0x2000 and not 0x3000 <= ord(ch) <= 0x9FFF}
    symbols -= {"，", "：", "（", "）", "；", "、", "！", "？"}  # CJK punctuation: the CJK font's
    assert all(ord(ch) in covered for ch in symbols), sorted(ch for ch in symbols if ord(ch) not in covered)
