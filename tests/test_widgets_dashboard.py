"""The dashboard: panels drawn through widget state, a scrubber that moves them, toggles."""
from __future__ import annotations

import pytest

from sandbox.viz.samples import two_stream_log
from sandbox.widgets.dashboard import Dashboard, change_times


@pytest.fixture
def dash():
    return Dashboard(two_stream_log(), t=100000)


def shown(out):
    """The single display_data an Output widget holds: (text/plain, PNG base64)."""
    (item,) = out.outputs
    assert item["output_type"] == "display_data"
    return item["data"]["text/plain"], item["data"]["image/png"]


def test_each_panel_holds_one_png_with_its_summary_in_widget_state(dash):
    for out in (dash.gantt_out, dash.memory_out, dash.queues_out):
        text, png = shown(out)
        assert text and png.startswith("iVBORw0KGgo")         # base64 of the PNG magic
    assert shown(dash.queues_out)[0].startswith("Stream queues at 100.000 µs")


def test_building_and_scrubbing_print_nothing_to_the_cell(capsys):
    d = Dashboard(two_stream_log(), t=100000)
    d.t = 500000
    d.view.value = "physical"
    assert capsys.readouterr() == ("", "")


def test_moving_the_scrubber_redraws_memory_and_queues(dash):
    before = shown(dash.memory_out)[0], shown(dash.queues_out)[0]
    dash.t = 921500
    after = shown(dash.memory_out)[0], shown(dash.queues_out)[0]
    assert after[0].startswith("Device memory at 921.500 µs") and "block 1" not in after[0]
    assert "running task" not in after[1] and before != after


def test_gantt_cursor_follows_the_scrubber(dash):
    png_before = shown(dash.gantt_out)[1]
    dash.t = 500000
    assert list(dash._cursor.get_xdata()) == [500000, 500000]
    assert shown(dash.gantt_out)[1] != png_before


def test_queue_text_panel_follows_the_scrubber(dash):
    assert "Stream queues at 100.000 µs" in dash.queues_text.value
    dash.t = 500000
    assert "Stream queues at 500.000 µs" in dash.queues_text.value


def test_clock_label_reads_the_time(dash):
    assert dash.clock.value == "t = 100.000 µs of 921.500 µs"


def test_step_buttons_jump_between_changes(dash):
    dash.forward.click()
    assert dash.t == 220000
    dash.back.click()
    assert dash.t == 33000


def test_step_stops_at_the_ends(dash):
    dash.t = dash.slider.max
    assert dash.step(+1) == dash.slider.max
    dash.t = dash.slider.min
    assert dash.step(-1) == dash.slider.min


def test_scrubber_spans_the_device_activity(dash):
    assert (dash.slider.min, dash.slider.max) == (14000, 921500)
    assert (dash.play.min, dash.play.max) == (14000, 921500)


def test_view_toggle_switches_the_gantt_rows(dash):
    dash.view.value = "physical"
    assert shown(dash.gantt_out)[0].startswith("Timeline (physical view)")
    assert "NPU 0 DMA H2D" in shown(dash.gantt_out)[0]


def test_colour_toggle_redraws_the_gantt(dash):
    png = shown(dash.gantt_out)[1]
    dash.colour.value = "stream"
    assert shown(dash.gantt_out)[1] != png


def test_refresh_shows_a_longer_log_at_its_end(dash):
    log = two_stream_log()
    longer = type(log)(log.records[: len(log.records) // 2])
    d = Dashboard(longer)
    d.refresh(log)
    assert d.t == d.slider.max == 921500
    assert shown(d.queues_out)[0].startswith("Stream queues at 921.500 µs")


def test_repr_is_stable_text(dash):
    assert repr(dash) == (
        "Dashboard at 100.000 µs of 921.500 µs (logical view, colour by kind): 7 tasks, "
        "total 900.000 µs, copy 800.000 µs, compute 100.000 µs, overlap 0 ns")
    assert repr(Dashboard(two_stream_log(), t=100000)) == repr(dash)


def test_mimebundle_has_text_snapshot_and_widget_view(dash):
    bundle = dash._repr_mimebundle_()
    assert bundle["text/plain"] == repr(dash)
    assert bundle["image/png"].startswith("iVBORw0KGgo")
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_change_times_include_every_task_moment_and_memory_change():
    times = change_times(Dashboard(two_stream_log())._ix)
    assert {14000, 19000, 20000, 220000, 620000, 920000, 921500} <= set(times)
    assert times == sorted(set(times))


def test_dashboard_of_an_idle_machine_says_nothing_has_run():
    from sandbox.core import trace as tr
    log = tr.TraceLog()
    log.append(tr.MachineConfigured(0, "Ascend910B", "Ascend910B1", 1, 24, 1 << 36, 1000.0, ()))
    d = Dashboard(log)
    assert repr(d) == "Dashboard: nothing has run yet (logical view, colour by kind)"
    assert d.clock.value == "nothing has run yet"
    d.refresh(two_stream_log(), t=100000)
    assert repr(d).startswith("Dashboard at 100.000 µs of 921.500 µs ")
