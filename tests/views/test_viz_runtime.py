"""The views of logs written by the simulated runtime itself: vector add on two streams,
a stream-ordered memory pool, a host function, and a race the hazard checker reports."""

from __future__ import annotations

import json
import warnings

import pytest

import sandbox
from sandbox import acl
from sandbox.export.chrome_trace import trace_json
from sandbox.export.validate import validate_chrome_trace
from sandbox.viz.index import build_index
from sandbox.viz.memory import memory_map
from sandbox.viz.queues import stream_queues
from sandbox.viz.summary import memory_summary, timeline_summary, trace_summary
from sandbox.viz.timeline import activity, timeline

N = 1 << 20
MB4 = 4 * N


@pytest.fixture(scope="module")
def vadd():
    """Copies in on one stream, the kernel and copy-out on another after an event."""
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    copy_s, _ = acl.rt.create_stream()
    comp_s, _ = acl.rt.create_stream()
    a, _ = acl.rt.malloc(MB4, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    b, _ = acl.rt.malloc(MB4, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    c, _ = acl.rt.malloc(MB4, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    h_in, _ = acl.rt.malloc_host(MB4)
    h_out, _ = acl.rt.malloc_host(MB4)
    acl.rt.memcpy_async(a, MB4, h_in, MB4, acl.ACL_MEMCPY_HOST_TO_DEVICE, copy_s)
    acl.rt.memcpy_async(b, MB4, h_in, MB4, acl.ACL_MEMCPY_HOST_TO_DEVICE, copy_s)
    ready, _ = acl.rt.create_event()
    acl.rt.record_event(ready, copy_s)
    acl.rt.stream_wait_event(comp_s, ready)

    @sandbox.kernel
    def vector_add(x: "float32*", y: "float32*", z: "float32*", n):
        z[:n] = x[:n] + y[:n]

    vector_add[8, comp_s](a, b, c, N)
    acl.rt.memcpy_async(h_out, MB4, c, MB4, acl.ACL_MEMCPY_DEVICE_TO_HOST, comp_s)
    acl.rt.synchronize_stream(comp_s)
    return build_index(sandbox.trace())


def test_vector_add_tasks_land_on_their_streams(vadd):
    tl = timeline(vadd)
    assert [b.kind for b in tl.bars_on("NPU 0 Stream 1")] == ["memcpy", "memcpy", "event_record"]
    assert [b.kind for b in tl.bars_on("NPU 0 Stream 2")] == ["event_wait", "kernel", "memcpy"]
    assert [b.name for b in tl.bars_on("NPU 0 Stream 2")][1] == "vector_add"


def test_vector_add_kernel_runs_after_both_copies(vadd):
    copies = [t for t in vadd.tasks.values() if t.kind == "memcpy" and t.engine == "DMA H2D"]
    kernel = next(t for t in vadd.tasks.values() if t.kind == "kernel")
    assert kernel.start >= max(t.end for t in copies)
    assert activity(vadd).overlap == 0


def test_vector_add_event_arrow_joins_the_streams(vadd):
    (arrow,) = timeline(vadd).arrows
    rows = timeline(vadd).rows
    assert (rows[arrow.src_row].label, rows[arrow.dst_row].label) == ("NPU 0 Stream 1", "NPU 0 Stream 2")


def test_vector_add_queue_when_the_event_wait_arrives(vadd):
    wait = next(t for t in vadd.tasks.values() if t.kind == "event_wait")
    q = stream_queues(vadd, wait.submit)
    s1, s2 = q.stream("NPU 0 Stream 1"), q.stream("NPU 0 Stream 2")
    assert [e.name for e in s1.running] == ["MEMCPY_ASYNC"]
    assert [(e.task, e.reason, e.blocker) for e in s2.waiting] == [(wait.task, "event", wait.waits_on)]


def test_vector_add_memory_counts_what_the_allocator_reserved(vadd):
    d = memory_map(vadd, vadd.t_end).device(0)
    assert len(d.blocks) == 3 and all(b.reserved >= b.size == MB4 for b in d.blocks)
    assert d.used == sum(b.reserved for b in d.blocks) and d.free == d.total - d.used
    assert memory_map(vadd, vadd.t_end).host_bytes == 2 * MB4


def test_vector_add_trace_is_valid(vadd):
    assert validate_chrome_trace(json.loads(trace_json(vadd))) == []


def test_pool_block_is_pending_free_until_its_free_task_runs():
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    pool, _ = acl.rt.mem_pool_create({"allocType": 0, "handleType": 0, "location": {"id": 0, "type": 1}, "maxSize": 0})
    p, _ = acl.rt.mem_pool_malloc_async(N, pool, s)
    big, _ = acl.rt.malloc(256 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memset_async(big, 256 * N, 0, 256 * N, s)  # keeps the stream busy
    acl.rt.mem_pool_free_async(p, s)
    t_free = sandbox.now()
    acl.rt.synchronize_stream(s)
    log = sandbox.trace()
    (block,) = [b for b in memory_map(log, t_free).device(0).blocks if b.kind == "pool block"]
    assert (block.label, block.pending_free, block.owner) == ("pool 1 block 1", True, "Stream 1")
    assert "pool 1 segment" in memory_summary(log, t_free)
    after = memory_map(log, build_index(log).t_end).device(0)
    assert not any(b.kind == "pool block" for b in after.blocks)


def test_host_function_runs_on_its_thread_row_and_in_the_export():
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()

    def note(_args):
        return None

    acl.rt.launch_host_func(s, note, None)
    acl.rt.synchronize_stream(s)
    log = sandbox.trace()
    (cb,) = [b for b in timeline(log).bars if b.kind == "host_callback"]
    assert timeline(log).rows[cb.row].key[0] == "host"
    lines = timeline_summary(log).splitlines()
    assert [line.split("  ")[1] for line in lines if line.endswith("1 callback")] == [timeline(log).rows[cb.row].label]
    assert cb.name == "note"
    doc = json.loads(trace_json(log))
    assert validate_chrome_trace(doc) == []
    assert any(e["ph"] == "X" and e["cat"] == "callback" and e["name"] == "note" for e in doc["traceEvents"])


def test_a_race_shows_as_a_hazard_in_the_summary_and_the_export():
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    d, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acl.rt.memset_async(d, N, 1, N, s1)
        acl.rt.memset_async(d, N, 2, N, s2)  # no event between: a race
    acl.rt.synchronize_device()
    log = sandbox.trace()
    assert "1 hazard" in trace_summary(log) and "hazard stream_race" in trace_summary(log)
    doc = json.loads(trace_json(log))
    assert validate_chrome_trace(doc) == []
    assert [e["name"] for e in doc["traceEvents"] if e.get("cat") == "hazard"] == ["hazard: stream_race"]


def test_views_of_a_run_past_int64_nanoseconds_are_exact_in_the_summary_and_drawn():
    """Virtual time has no upper bound: three notify waits that time out after 2**32 - 2 s each
    take the clock past 2**63 ns, and the summary, the Gantt chart, the slider's keys and the
    dashboard's columns still answer (the summary to the ns)."""
    from sandbox.viz.columns import change_times, columns
    from sandbox.viz.plot_gantt import gantt_figure

    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    notify, _ = acl.rt.create_notify(0)
    for _ in range(3):
        assert acl.rt.wait_and_reset_notify(notify, stream, 2**32 - 2) == 0
        assert acl.rt.synchronize_stream(stream) == 107020  # ACL_ERROR_RT_TASK_TIMEOUT
    assert sandbox.now() > 2**63
    log = sandbox.trace()
    waits = [t for t in build_index(log).tasks.values() if t.kind == "notify_wait"]
    assert [t.end - t.start for t in waits] == [(2**32 - 2) * 10**9] * 3
    a = activity(log)
    assert a.total == a.last - a.first and a.last == waits[-1].end and a.last > 2**63
    assert "3 notify_wait" in trace_summary(log)
    assert gantt_figure(log) is not None
    keys = change_times(build_index(log))
    assert keys == sorted(keys) and keys[-1] > 2**63 and all(type(k) is int for k in keys)
    assert columns(log)
