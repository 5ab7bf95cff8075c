"""The text summaries: exact words for a known log, and the same words on every build."""

from __future__ import annotations

from sandbox.viz.samples import synthetic_log, two_stream_log
from sandbox.viz.summary import memory_summary, queues_summary, timeline_summary, trace_summary


def test_queues_summary_names_each_waiting_task_and_why():
    assert (
        queues_summary(two_stream_log(), 100000)
        == """\
Stream queues at 100.000 µs
NPU 0 Stream 0: running task 1 MEMCPY_ASYNC; 0 waiting; 0 finished
NPU 0 Stream 1: running nothing; 3 waiting; 0 finished
  task 2 MEMCPY_ASYNC waits: engine busy (DMA H2D busy with task 1)
  task 3 MEMCPY_ASYNC waits: predecessor (after task 2)
  task 4 EVENT_RECORD waits: predecessor (after task 3)
NPU 0 Stream 2: running nothing; 3 waiting; 0 finished
  task 5 EVENT_WAIT waits: event (event 1 on NPU 0 recorded by task 4 on Stream 1)
  task 6 vector_add waits: predecessor (after task 5)
  task 7 MEMCPY_ASYNC waits: predecessor (after task 6)"""
    )


def test_memory_summary_gives_mem_info_figures_and_each_block():
    assert (
        memory_summary(two_stream_log(), 19000)
        == """\
Device memory at 19.000 µs
NPU 0: used 12.0 MiB of 64.0 GiB (get_mem_info free 68706893824, total 68719476736), \
3 blocks, largest free 64.0 GiB, 2 free extents, fragmentation 0.0%
  block 1: 4 MiB at +0 B, huge pages, ACL_MEM_MALLOC_HUGE_FIRST
  block 2: 4 MiB at +4 MiB, huge pages, ACL_MEM_MALLOC_HUGE_FIRST
  block 4: 4 MiB at +10 MiB, huge pages, ACL_MEM_MALLOC_HUGE_FIRST
Host pinned: 1 block, 4.0 MiB
  host 1: 4 MiB, pinned pages, pinned"""
    )


def test_timeline_summary_gives_busy_time_per_row_and_the_event_edge():
    assert (
        timeline_summary(two_stream_log())
        == """\
Timeline (logical view): 7 tasks, 19 API calls, ends at 921.500 µs
total 900.000 µs, copy 800.000 µs, compute 100.000 µs, overlap 0 ns, host blocked 886.500 µs
  Host thread 1 (MainThread)    19 calls  busy 921.500 µs
  NPU 0 Stream 0                  1 task  busy 200.000 µs
  NPU 0 Stream 1                 3 tasks  busy 400.000 µs
  NPU 0 Stream 2                 3 tasks  busy 300.000 µs
  event 1 on NPU 0: NPU 0 Stream 1 task 4 -> NPU 0 Stream 2 task 5 at 620.000 µs"""
    )


def test_trace_summary_counts_what_the_log_holds():
    assert (
        trace_summary(two_stream_log())
        == """\
Ascend910B (Ascend910B1), 2 devices, 24 AI cores, 64.0 GiB each
1 host thread, 19 API calls, 3 streams, 1 event
tasks: 1 event_record, 1 event_wait, 1 kernel, 4 memcpy
total 900.000 µs, copy 800.000 µs, compute 100.000 µs, overlap 0 ns, host blocked 886.500 µs
peak device memory 14.0 MiB, 5 allocations
0 errors"""
    )


def test_summaries_are_identical_for_two_builds_of_the_same_log():
    a, b = synthetic_log(3000, seed=7), synthetic_log(3000, seed=7)
    for view in ("logical", "physical"):
        assert timeline_summary(a, view) == timeline_summary(b, view)
    t = (a.records[-1].t if hasattr(a.records[-1], "t") else a.records[-1].end) // 2
    assert queues_summary(a, t) == queues_summary(b, t)
    assert memory_summary(a, t) == memory_summary(b, t)
    assert trace_summary(a) == trace_summary(b)


def test_summaries_hold_no_raw_addresses():
    log = two_stream_log()
    text = "\n".join(
        [memory_summary(log, 500000), queues_summary(log, 500000), timeline_summary(log), trace_summary(log)]
    )
    assert "0x" not in text and "17592186044416" not in text
