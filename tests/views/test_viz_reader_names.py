"""What a reader sees in the views of a log the runtime wrote: rows only for streams that
ran something, small stable names instead of handles, exact block sizes, labels that fit."""

from __future__ import annotations

import threading

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

import sandbox
from sandbox import acl
from sandbox.viz.index import build_index
from sandbox.viz.memory import memory_map
from sandbox.viz.plot_gantt import TICK_CHARS, gantt_plot, tick_label
from sandbox.viz.queues import stream_queues
from sandbox.viz.summary import memory_summary, queues_summary, timeline_summary
from sandbox.viz.timeline import PHYSICAL, timeline
from sandbox.viz.units import fmt_size

KiB, MiB = 1 << 10, 1 << 20
POOL_PROPS = {"allocType": 0, "handleType": 0, "location": {"id": 0, "type": 1}, "maxSize": 0}
WORKER = "worker (thread_program)"


@pytest.fixture(scope="module")
def run():
    """Two devices; copies on Stream 1 signal Stream 2 through the second event of NPU 0;
    Stream 3 is created and never used; the second of two pools serves a block; a worker
    thread with a long name synchronizes."""
    sandbox.configure("ascend910b", device_count=2)
    acl.init()
    acl.rt.set_device(0)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    acl.rt.create_stream()  # Stream 3: nothing runs on it
    first, _ = acl.rt.create_event()  # event 1 on NPU 0, never used
    acl.rt.set_device(1)
    other, _ = acl.rt.create_event()  # event 1 on NPU 1
    acl.rt.set_device(0)
    ready, _ = acl.rt.create_event()  # event 2 on NPU 0
    acl.rt.mem_pool_create(POOL_PROPS)  # pool 1, never used
    pool, _ = acl.rt.mem_pool_create(POOL_PROPS)  # pool 2
    dev, _ = acl.rt.malloc(MiB + 4 * KiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(MiB)
    acl.rt.memcpy_async(dev, MiB, host, MiB, acl.ACL_MEMCPY_HOST_TO_DEVICE, s1)
    acl.rt.record_event(ready, s1)
    acl.rt.stream_wait_event(s2, ready)
    block, ret = acl.rt.mem_pool_malloc_async(3000, pool, s2)
    assert ret == 0, acl.get_recent_err_msg()

    def worker():
        acl.rt.set_device(0)
        acl.rt.synchronize_stream(s2)

    th = threading.Thread(target=worker, name=WORKER)
    th.start()
    th.join()
    acl.rt.synchronize_stream(s1)
    handles = dict(first=first, other=other, ready=ready, pool=pool)
    return build_index(sandbox.trace()), handles


# -- empty default streams ----------------------------------------------------------------


def test_gantt_hides_stream_rows_that_never_had_a_task(run):
    ix, _ = run
    for view_rows in (timeline(ix).rows, timeline(ix, PHYSICAL).rows):
        labels = [r.label for r in view_rows]
        assert not any("Stream 0" in x or "Stream 3" in x for x in labels), labels
    assert [r.label for r in timeline(ix).rows] == [
        "Host thread 1 (main)",
        f"Host thread 2 ({WORKER})",
        "NPU 0 Stream 1",
        "NPU 0 Stream 2",
    ]
    assert " 0 tasks" not in timeline_summary(ix)


def test_gantt_legend_lists_only_streams_that_had_a_task(run):
    ix, _ = run
    assert [label for _h, label in timeline(ix).streams] == ["NPU 0 Stream 1", "NPU 0 Stream 2"]


def test_queues_leave_out_untouched_default_streams_but_keep_created_ones(run):
    ix, _ = run
    labels = [s.label for s in stream_queues(ix, ix.t_end).streams]
    assert labels == ["NPU 0 Stream 1", "NPU 0 Stream 2", "NPU 0 Stream 3"]
    assert "Stream 0" not in queues_summary(ix, ix.t_end)


# -- names instead of handles -------------------------------------------------------------


def test_events_are_numbered_per_device_in_creation_order(run):
    ix, h = run
    assert [ix.event_label(h[k]) for k in ("first", "other", "ready")] == [
        "event 1 on NPU 0",
        "event 1 on NPU 1",
        "event 2 on NPU 0",
    ]


def test_gantt_summary_names_the_event_not_its_handle(run):
    ix, h = run
    text = timeline_summary(ix)
    assert "  event 2 on NPU 0: NPU 0 Stream 1 task " in text
    assert str(h["ready"]) not in text


def test_queue_reason_names_the_event_not_its_handle(run):
    ix, h = run
    wait = next(t for t in ix.tasks.values() if t.kind == "event_wait")
    (entry,) = [e for s in stream_queues(ix, wait.submit).streams for e in s.waiting if e.task == wait.task]
    if entry.reason == "event":
        assert entry.why.startswith("event 2 on NPU 0 recorded by task ")
    assert str(h["ready"]) not in queues_summary(ix, wait.submit)


def test_pools_are_numbered_in_creation_order_not_by_handle(run):
    ix, h = run
    d = memory_map(ix, ix.t_end).device(0)
    segment = next(b for b in d.blocks if b.kind == "pool segment")
    block = next(b for b in d.blocks if b.kind == "pool block")
    assert (segment.label, segment.policy, segment.pool) == ("pool 2 segment", "pool 2", 2)
    assert (block.label, block.policy) == ("pool 2 block 1", "pool 2")
    text = memory_summary(ix, ix.t_end)
    assert "0x" not in text and str(h["pool"]) not in text and f"{h['pool']:#x}" not in text


# -- exact sizes ------------------------------------------------------------------------------


def test_block_sizes_are_exact_when_not_round(run):
    ix, _ = run
    lines = memory_summary(ix, ix.t_end).splitlines()
    assert ("  block 1: 1 MiB + 4 KiB at +0 B, huge pages, ACL_MEM_MALLOC_HUGE_FIRST, reserved 2 MiB") in lines
    assert any(x.startswith("  pool 2 block 1: 3,000 B at +") for x in lines)
    assert "  host 1: 1 MiB, pinned pages, pinned" in lines


@pytest.mark.parametrize(
    "n, text",
    [
        (0, "0 B"),
        (1023, "1,023 B"),
        (3 * KiB, "3 KiB"),
        (2 * MiB, "2 MiB"),
        (64 << 30, "64 GiB"),
        (MiB + 4 * KiB, "1 MiB + 4 KiB"),
        (MiB + 1, "1,048,577 B"),
        (1_000_000, "1,000,000 B"),
    ],
)
def test_sizes_are_short_when_round_and_exact_otherwise(n, text):
    assert fmt_size(n) == text


# -- labels that fit ----------------------------------------------------------------------------


def test_long_host_thread_labels_are_shortened_with_an_ellipsis(run):
    ix, _ = run
    rows = timeline(ix).rows
    assert tick_label(rows[0]) == "thread 1 · main"
    worker = tick_label(rows[1])
    assert len(worker) == TICK_CHARS and worker.startswith("thread 2 · worker (")
    assert worker.endswith("\u2026")
    assert tick_label(rows[2]) == "NPU 0 Stream 1"


@pytest.mark.parametrize("width", [6.0, 10.0])
def test_gantt_row_labels_stay_inside_the_figure(run, width):
    ix, _ = run
    fig, _cursor = gantt_plot(ix, width=width)
    canvas = FigureCanvasAgg(fig)  # the canvas savefig uses for a PNG
    canvas.draw()
    renderer = canvas.get_renderer()
    ax = fig.axes[0]
    boxes = [lab.get_window_extent(renderer) for lab in ax.get_yticklabels()]
    assert [lab.get_text() for lab in ax.get_yticklabels()][1].endswith("\u2026")
    assert min(b.x0 for b in boxes) >= 0
    assert max(b.x1 for b in boxes) <= ax.get_window_extent(renderer).x0
