"""What the views' data holds for a log whose every time is known (sandbox.viz.samples)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sandbox
from sandbox import acl
from sandbox.core import trace as tr
from sandbox.viz.columns import columns
from sandbox.viz.index import build_index
from sandbox.viz.memory import memory_map
from sandbox.viz.plot_gantt import MERGE_PX, merge_bars
from sandbox.viz.queues import stream_queues
from sandbox.viz.samples import DEV0_BASE, MiB, synthetic_log, two_stream_log
from sandbox.viz.timeline import activity, timeline


@pytest.fixture(scope="module")
def log():
    return two_stream_log()


def spans(bars):
    return [(b.start, b.end, b.kind) for b in bars]


# -- Gantt ------------------------------------------------------------------------------


def test_logical_view_has_a_row_per_host_thread_then_per_stream(log):
    assert [r.label for r in timeline(log).rows] == [
        "Host thread 1 (MainThread)",
        "NPU 0 Stream 0",
        "NPU 0 Stream 1",
        "NPU 0 Stream 2",
    ]


def test_logical_view_puts_each_task_on_its_stream_row(log):
    tl = timeline(log)
    assert spans(tl.bars_on("NPU 0 Stream 1")) == [
        (220000, 420000, "memcpy"),
        (420000, 620000, "memcpy"),
        (620000, 620000, "event_record"),
    ]
    assert spans(tl.bars_on("NPU 0 Stream 2")) == [
        (620000, 620000, "event_wait"),
        (620000, 720000, "kernel"),
        (720000, 920000, "memcpy"),
    ]


def test_host_row_shows_calls_and_the_blocked_part_of_synchronize(log):
    bars = timeline(log).bars_on("Host thread 1 (MainThread)")
    assert len([b for b in bars if b.kind == "api"]) == 19
    assert [(b.start, b.end, b.name) for b in bars if b.kind == "blocked"] == [
        (34000, 920500, "aclrtSynchronizeStream")
    ]


def test_event_arrow_runs_from_record_to_wait(log):
    tl = timeline(log)
    (a,) = tl.arrows
    assert (a.record_task, a.wait_task, a.event) == (4, 5, 1)
    assert tl.rows[a.src_row].label == "NPU 0 Stream 1"
    assert tl.rows[a.dst_row].label == "NPU 0 Stream 2"


def test_physical_view_has_a_row_per_engine_used(log):
    tl = timeline(log, "physical")
    assert [r.label for r in tl.rows] == [
        "Host thread 1 (MainThread)",
        "NPU 0 AI Core",
        "NPU 0 DMA H2D",
        "NPU 0 DMA D2H",
    ]
    assert [b.task for b in tl.bars_on("NPU 0 DMA H2D")] == [1, 2, 3]
    assert tl.arrows == ()


def test_physical_view_gives_overlapping_kernels_separate_lanes():
    log = tr.TraceLog()
    log.append(tr.MachineConfigured(0, "p", "s", 1, 24, 1 << 30, 1.0, ("AI Core",)))
    for n, (start, end) in enumerate([(0, 100), (50, 150), (120, 200)], start=1):
        log.append(tr.TaskSubmitted(0, n, 0, n, "kernel", f"k{n}", "AI Core", 0, 0))
        log.append(tr.TaskStarted(start, n, 4))
        log.append(tr.TaskFinished(end, n))
    tl = timeline(log, "physical")
    assert [r.label for r in tl.rows] == ["NPU 0 AI Core #1", "NPU 0 AI Core #2"]
    assert [b.task for b in tl.bars_on("NPU 0 AI Core #1")] == [1, 3]
    assert [b.task for b in tl.bars_on("NPU 0 AI Core #2")] == [2]


def test_unknown_view_is_refused(log):
    with pytest.raises(ValueError):
        timeline(log, "sideways")


def test_activity_gives_the_seed_figures(log):
    a = activity(log)
    assert (a.copy, a.compute, a.total, a.overlap) == (800000, 100000, 900000, 0)
    assert a.blocked == 920500 - 34000


def test_activity_counts_overlap_of_copy_and_compute():
    log = tr.TraceLog()
    for n, (kind, start, end) in enumerate([("memcpy", 0, 8200), ("kernel", 4700, 8200)], 1):
        log.append(tr.TaskSubmitted(0, n, 0, n, kind, kind, "", 0, 0))
        log.append(tr.TaskStarted(start, n))
        log.append(tr.TaskFinished(end, n))
    a = activity(log)
    assert (a.copy, a.compute, a.total, a.overlap) == (8200, 3500, 8200, 3500)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10_000), st.integers(0, 500)), min_size=1, max_size=60),
    st.integers(0, 300),
)
def test_merged_bars_cover_every_bar_and_only_narrow_bars_within_a_pixel_merge(items, tol):
    row = np.array([r for r, _s, _d in items], dtype=np.int64)
    start = np.array([s for _r, s, _d in items], dtype=np.int64)
    end = start + np.array([d for _r, _s, d in items], dtype=np.int64)
    x0, x1, r = merge_bars(row, start, end, tol)
    for rr, s, e in zip(row, start, end):
        assert any(r[k] == rr and x0[k] <= s and e <= x1[k] for k in range(len(x0)))
    wide = MERGE_PX * tol
    for k in range(1, len(x0)):
        if r[k] == r[k - 1] and x0[k] <= x1[k - 1] + tol:  # apart only because one is wide
            assert x1[k] - x0[k] >= wide or x1[k - 1] - x0[k - 1] >= wide


def test_back_to_back_wide_bars_stay_two_bars():
    row = np.array([0, 0])
    start = np.array([0, 178_000])
    end = np.array([178_000, 356_000])
    x0, x1, _r = merge_bars(row, start, end, 1000)
    assert list(x0) == [0, 178_000] and list(x1) == [178_000, 356_000]


def test_large_trace_merges_into_far_fewer_rectangles():
    tl = timeline(synthetic_log(20_000, streams=2))
    n = len(tl.bars)
    row = np.array([b.row for b in tl.bars])
    start = np.array([b.start for b in tl.bars])
    end = np.array([b.end for b in tl.bars])
    x0, _x1, _r = merge_bars(row, start, end, (tl.t_end - tl.t_start) / 600)
    assert len(x0) < n / 10


# -- memory map -------------------------------------------------------------------------


def test_memory_map_lists_live_blocks_by_address(log):
    d = memory_map(log, 18000).device(0)
    assert [(b.label, b.offset, b.size, b.reserved) for b in d.blocks] == [
        ("block 1", 0, 4 * MiB, 4 * MiB),
        ("block 2", 4 * MiB, 4 * MiB, 4 * MiB),
        ("block 3", 8 * MiB, 1_000_000, 2 * MiB),
        ("block 4", 10 * MiB, 4 * MiB, 4 * MiB),
    ]
    assert d.used == 14 * MiB and d.requested == 12 * MiB + 1_000_000


def test_memory_map_before_any_allocation_is_empty(log):
    d = memory_map(log, 13999).device(0)
    assert d.blocks == () and d.used == 0 and d.free == d.total and d.holes == 1


def test_freed_block_leaves_a_hole_that_counts_as_fragmentation(log):
    d = memory_map(log, 19000).device(0)
    assert [b.label for b in d.blocks] == ["block 1", "block 2", "block 4"]
    assert d.holes == 2
    assert d.largest_free == d.total - 14 * MiB
    assert d.fragmentation == pytest.approx(1 - (d.total - 14 * MiB) / (d.total - 12 * MiB))


def test_used_and_free_are_what_get_mem_info_reports(log):
    d = memory_map(log, 500000).device(0)
    assert d.used == 12 * MiB
    assert d.free == d.total - d.used == 64 * (1 << 30) - 12 * MiB


def test_pinned_host_memory_is_kept_apart_from_devices(log):
    mm = memory_map(log, 500000)
    assert [d.device for d in mm.devices] == [0]  # NPU 1 has an address space but was never used
    assert mm.host_bytes == 4 * MiB and mm.host[0].page == "pinned"


def test_memory_map_shows_the_devices_a_program_used_or_all_when_none_was():
    import sandbox
    from sandbox import acl

    sandbox.configure()  # 8 devices
    assert [d.device for d in memory_map(sandbox.trace(), 0).devices] == list(range(8))
    acl.init()
    acl.rt.set_device(3)
    acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert [d.device for d in memory_map(sandbox.trace(), sandbox.now()).devices] == [3]


def test_block_is_pending_free_between_the_free_call_and_the_release():
    log = tr.TraceLog()
    log.append(tr.DeviceAddressSpace(0, 0, DEV0_BASE, 1 << 30))
    log.append(tr.MemAllocated(10, 0, DEV0_BASE, 100, 4096, "ACL_MEM_MALLOC_NORMAL_ONLY", "normal", 1, 1, 1))
    log.append(tr.MemFreed(90, 0, DEV0_BASE, 2))  # made by call 2, the aclrtFree that started at 50
    log.append(tr.ApiCall(50, 60, 1, 1, "aclrtFree", 0, (("dev_ptr", DEV0_BASE),), seq=2))
    assert [b.pending_free for b in memory_map(log, 40).device(0).blocks] == [False]
    assert [b.pending_free for b in memory_map(log, 70).device(0).blocks] == [True]
    assert memory_map(log, 90).device(0).blocks == ()


def test_a_block_freed_with_device_sync_is_pending_free_from_the_call_s_start():
    """aclrtFreeWithDevSync waits for the device before it frees: the block is on its way out
    from the call's start, as with aclrtFree."""
    sandbox.configure("ascend910b")
    acl.init()
    acl.rt.set_device(0)
    ptr, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    start = sandbox.now()
    assert acl.rt.free_with_dev_sync(ptr) == 0
    (block,) = [b for b in build_index(sandbox.trace()).blocks if b.ptr == ptr]
    assert block.free_called == start


def test_memory_window_is_the_same_at_every_time(log):
    windows = {memory_map(log, t).device(0).window for t in (0, 15000, 19000, 921500)}
    assert windows == {32 * MiB}


# -- stream queues ----------------------------------------------------------------------


def test_queue_shows_the_running_task_and_what_waits_behind_it(log):
    q = stream_queues(log, 100000)
    s0 = q.stream("NPU 0 Stream 0")
    assert [e.task for e in s0.running] == [1] and s0.waiting == () and s0.finished == 0


def test_waiting_copy_names_the_busy_engine(log):
    first = stream_queues(log, 100000).stream("NPU 0 Stream 1").waiting[0]
    assert (first.task, first.reason, first.blocker) == (2, "engine busy", 1)
    assert first.why == "DMA H2D busy with task 1"


def test_tasks_behind_the_head_wait_for_their_predecessor(log):
    waiting = stream_queues(log, 100000).stream("NPU 0 Stream 1").waiting
    assert [(e.task, e.reason, e.blocker) for e in waiting[1:]] == [(3, "predecessor", 2), (4, "predecessor", 3)]


def test_event_wait_waits_for_the_record_task(log):
    head = stream_queues(log, 500000).stream("NPU 0 Stream 2").waiting[0]
    assert (head.task, head.reason, head.blocker) == (5, "event", 4)
    assert head.why == "event 1 on NPU 0 recorded by task 4 on Stream 1"


def test_finished_tasks_are_counted_not_listed(log):
    q = stream_queues(log, 921500)
    assert [(s.label, s.finished, s.running, s.waiting) for s in q.streams] == [
        ("NPU 0 Stream 0", 1, (), ()),
        ("NPU 0 Stream 1", 3, (), ()),
        ("NPU 0 Stream 2", 3, (), ()),
    ]


def test_tasks_not_yet_submitted_are_not_in_the_queue(log):
    assert stream_queues(log, 21000).stream("NPU 0 Stream 1").waiting == ()


def test_failed_tasks_are_counted():
    log = tr.TraceLog()
    log.append(tr.StreamCreated(0, 5, 1, 0, 1, 0, False))
    log.append(tr.TaskSubmitted(0, 1, 0, 5, "kernel", "k", "AI Core", 0, 0))
    log.append(tr.TaskStarted(0, 1))
    log.append(tr.TaskFinished(10, 1, 507015))
    s = stream_queues(log, 10).stream("NPU 0 Stream 1")
    assert (s.finished, s.failed) == (1, 1)


def test_index_passes_through_an_index():
    ix = build_index(two_stream_log())
    assert build_index(ix) is ix
    assert (ix.t_start, ix.t_end) == (14000, 921500)


def test_the_index_of_a_log_is_kept_until_the_log_grows():
    log = two_stream_log()
    ix = build_index(log)
    assert build_index(log) is ix
    log.append(tr.TaskStarted(921500, 99))
    assert build_index(log) is not ix
    records = list(log)
    assert build_index(records) is not build_index(records)  # a plain list keeps nothing


def test_freeing_a_viewed_log_runs_no_python_code():
    """Python drops an exception raised where the collector runs code (a weak reference's callback, a
    finalizer): a view's cache that ran code when a log was freed would swallow a stop
    (KeyboardInterrupt) landing at that moment, and the learner would have to press stop again."""
    log = two_stream_log()
    columns(log)
    ran = []
    sys.setprofile(lambda frame, event, arg: ran.append(frame.f_code.co_name) if event == "call" else None)
    try:
        del log
    finally:
        sys.setprofile(None)
    assert ran == []
