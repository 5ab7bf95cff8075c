"""The Chrome-trace export: msprof layout, the rules Perfetto and catapult rely on, and
byte-identical output for the same program."""

from __future__ import annotations

import copy
import json
import threading

import pytest

import sandbox
from sandbox import acl
from sandbox.export.chrome_trace import export_trace, to_chrome_trace, trace_json
from sandbox.export.validate import validate_chrome_trace
from sandbox.viz.index import build_index
from sandbox.viz.samples import synthetic_log, two_stream_log


def rich_program():
    """Two host threads, two devices, two streams ordered by events both ways, copies in
    both directions, memset, kernels, a free and a failing call; no hazards."""
    sandbox.configure("ascend910b", device_count=2)
    acl.init()
    acl.rt.set_device(0)
    copy_s, _ = acl.rt.create_stream()
    comp_s, _ = acl.rt.create_stream()
    n = 1 << 18
    nbytes = n * 4
    a, _ = acl.rt.malloc(nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    b, _ = acl.rt.malloc(nbytes, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    c, _ = acl.rt.malloc(nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    h_in, _ = acl.rt.malloc_host(nbytes)
    h_out, _ = acl.rt.malloc_host(nbytes)
    loaded, _ = acl.rt.create_event()
    consumed, _ = acl.rt.create_event()

    @sandbox.kernel
    def scale(x: "float32*", y: "float32*", n):
        y[:n] = 2 * x[:n]

    for i in range(3):
        if i:
            acl.rt.stream_wait_event(copy_s, consumed)  # a is free to overwrite
        acl.rt.memcpy_async(a, nbytes, h_in, nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE, copy_s)
        acl.rt.memset_async(b, nbytes, 0, nbytes, copy_s)
        acl.rt.record_event(loaded, copy_s)
        acl.rt.stream_wait_event(comp_s, loaded)
        scale[32, comp_s](a, c, n)
        acl.rt.record_event(consumed, comp_s)
        acl.rt.memcpy_async(h_out, nbytes, c, nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST, comp_s)
    acl.rt.synchronize_stream(copy_s)
    acl.rt.free(b)
    acl.rt.malloc(1 << 50, acl.ACL_MEM_MALLOC_HUGE_ONLY)  # out of memory: an error

    def worker():
        acl.rt.set_device(1)
        s, _ = acl.rt.create_stream()
        d, _ = acl.rt.malloc(nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.rt.memcpy_async(d, nbytes, h_in, nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE, s)
        acl.rt.synchronize_stream(s)

    th = threading.Thread(target=worker, name="worker")  # Python's default name counts up
    th.start()
    th.join()
    acl.rt.synchronize_stream(comp_s)
    return sandbox.trace()


@pytest.fixture(scope="module")
def rich_log():
    return rich_program()


@pytest.fixture(scope="module")
def doc(rich_log):
    return json.loads(trace_json(rich_log))


def meta(doc, name):
    return {(e["pid"], e["tid"]): e["args"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == name}


# -- the rules ----------------------------------------------------------------------------


def test_rich_program_trace_follows_every_rule(doc):
    assert validate_chrome_trace(doc) == []


def test_sample_and_large_traces_follow_every_rule():
    assert validate_chrome_trace(to_chrome_trace(two_stream_log())) == []
    assert validate_chrome_trace(json.loads(trace_json(synthetic_log(5000, streams=3, devices=2)))) == []


def test_same_program_gives_the_same_bytes(rich_log):
    assert trace_json(rich_program()) == trace_json(rich_log)


def test_export_writes_the_json_text(tmp_path, rich_log):
    path = export_trace(rich_log, tmp_path / "trace.json")
    assert (tmp_path / "trace.json").read_text() == trace_json(rich_log)
    assert path == str(tmp_path / "trace.json")


# -- the msprof layout --------------------------------------------------------------------


def test_host_process_has_a_row_per_host_thread(doc):
    names = meta(doc, "process_name")
    assert names[(1, 0)]["name"].startswith("Host (CANN API)")
    assert meta(doc, "process_labels")[(1, 0)]["labels"] == "CPU"
    threads = {k: v["name"] for k, v in meta(doc, "thread_name").items() if k[0] == 1}
    assert threads == {(1, 1): "Thread 1 (main)", (1, 2): "Thread 2 (worker)"}


def test_each_device_is_an_ascend_hardware_process_with_stream_rows(doc):
    names, labels = meta(doc, "process_name"), meta(doc, "process_labels")
    assert names[(100, 0)]["name"] == names[(101, 0)]["name"] == "Ascend Hardware"
    assert (labels[(100, 0)]["labels"], labels[(101, 0)]["labels"]) == ("NPU 0", "NPU 1")
    assert meta(doc, "process_sort_index")[(100, 0)]["sort_index"] == 14
    rows = {v["name"] for k, v in meta(doc, "thread_name").items() if k[0] == 100}
    assert {"Stream 1", "Stream 2"} <= rows and "Stream 0" not in rows  # the default stream ran nothing


def test_api_calls_are_slices_on_their_thread_row(doc, rich_log):
    calls = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] == "api"]
    assert len(calls) == len(build_index(rich_log).calls)
    assert {e["tid"] for e in calls} == {1, 2}


def test_tasks_are_slices_on_their_stream_row_in_microseconds(doc, rich_log):
    ix = build_index(rich_log)
    kernel = next(t for t in ix.tasks.values() if t.kind == "kernel")
    stream_id = ix.streams[kernel.stream].stream_id
    (x,) = [
        e
        for e in doc["traceEvents"]
        if e["ph"] == "X" and e["cat"] == "kernel" and e["args"]["Task Id"] == kernel.task and e["tid"] == 1 + stream_id
    ]
    assert (x["pid"], x["name"]) == (100 + kernel.device, "scale")
    assert x["ts"] == kernel.start / 1000 and x["dur"] == (kernel.end - kernel.start) / 1000
    assert x["args"]["Task Type"] == "AI_CORE" and x["args"]["Block Dim"] == 32


def test_every_submitted_task_gets_a_flow_from_its_api_call(doc, rich_log):
    ix = build_index(rich_log)
    submitted = {n for c in ix.calls for n in c.tasks}
    starts = {e["id"] for e in doc["traceEvents"] if e["ph"] == "s"}
    ends = {e["id"] for e in doc["traceEvents"] if e["ph"] == "f" and e["bp"] == "e"}
    assert starts == ends == submitted


def test_memory_counters_follow_allocations(doc):
    counters = [e for e in doc["traceEvents"] if e["ph"] == "C" and e["pid"] == 100]
    assert counters[0]["args"] == {"allocated": 0, "reserved": 0}
    assert max(e["args"]["allocated"] for e in counters) == 3 * (1 << 20)
    assert counters[-1]["args"]["allocated"] == 2 * (1 << 20)  # b was freed


def test_failed_call_is_an_instant_on_its_thread(doc):
    (err,) = [e for e in doc["traceEvents"] if e["ph"] == "i" and e["cat"] == "error"]
    assert (err["pid"], err["tid"], err["name"]) == (1, 1, "ACL_ERROR_RT_MEMORY_ALLOCATION")


def test_engine_lanes_follow_the_streams(doc):
    rows = {v["name"] for k, v in meta(doc, "thread_name").items() if k[0] == 100}
    assert {"Engine: AI Core", "Engine: DMA H2D", "Engine: DMA D2H"} <= rows


# -- the validator can fail ---------------------------------------------------------------


@pytest.fixture
def good():
    return to_chrome_trace(two_stream_log())


def first(doc, **match):
    return next(e for e in doc["traceEvents"] if all(e.get(k) == v for k, v in match.items()))


def test_validator_reports_slices_on_one_row_that_overlap_without_nesting_and_lets_nested_ones_be():
    meta = [
        {"ph": "M", "pid": 1, "tid": 1, "name": "process_name", "args": {"name": "p"}},
        {"ph": "M", "pid": 1, "tid": 1, "name": "thread_name", "args": {"name": "t"}},
    ]

    def problems(*spans):
        xs = [{"ph": "X", "pid": 1, "tid": 1, "ts": s, "dur": d, "name": f"x{i}"} for i, (s, d) in enumerate(spans)]
        return [p for p in validate_chrome_trace({"traceEvents": meta + xs}) if "inside event" in p]

    assert problems((0.0, 10.0), (5.0, 10.0))  # the second starts inside the first and ends after it
    assert not problems((0.0, 10.0), (2.0, 3.0), (6.0, 4.0))  # calls a callback made inside aclrtProcessReport
    assert not problems((0.0, 10.0), (10.0, 5.0))  # one after the other


def test_validator_reports_string_pids(good):
    bad = copy.deepcopy(good)
    first(bad, ph="X", cat="api")["pid"] = "1"
    assert any("must be integers" in p for p in validate_chrome_trace(bad))


def test_validator_reports_a_metadata_event_whose_name_is_not_a_string(good):
    bad = copy.deepcopy(good)
    first(bad, ph="M")["name"] = ["thread_name"]  # unhashable: once a TypeError, now a problem
    assert any("unknown metadata ['thread_name']" in p for p in validate_chrome_trace(bad))


def test_validator_reports_unnamed_rows(good):
    bad = copy.deepcopy(good)
    bad["traceEvents"] = [
        e for e in bad["traceEvents"] if not (e["ph"] == "M" and e["name"] == "thread_name" and e["tid"] == 2)
    ]
    assert "row pid 100 tid 2 has no thread_name" in validate_chrome_trace(bad)


def test_validator_reports_flow_ends_without_binding_point(good):
    bad = copy.deepcopy(good)
    del first(bad, ph="f")["bp"]
    assert any("needs bp 'e'" in p for p in validate_chrome_trace(bad))


def test_validator_reports_unpaired_flows(good):
    bad = copy.deepcopy(good)
    f = first(bad, ph="f")
    bad["traceEvents"].remove(f)
    assert any("needs one s and one f" in p for p in validate_chrome_trace(bad))


def test_validator_reports_flow_ends_outside_any_slice(good):
    bad = copy.deepcopy(good)
    first(bad, ph="f")["ts"] = 5000.0
    assert any("inside no X slice" in p for p in validate_chrome_trace(bad))


def test_validator_reports_unsorted_events(good):
    bad = copy.deepcopy(good)
    timed = [i for i, e in enumerate(bad["traceEvents"]) if e["ph"] != "M"]
    bad["traceEvents"][timed[-1]]["ts"] = 0.0
    assert any("before the previous" in p for p in validate_chrome_trace(bad))


def test_streams_that_never_ran_a_task_get_no_row():
    import sandbox
    from sandbox import acl
    from sandbox.export.chrome_trace import to_chrome_trace

    sandbox.configure()
    acl.init()
    acl.rt.set_device(0)
    used, _ = acl.rt.create_stream()
    acl.rt.create_stream()  # never used
    dev, _ = acl.rt.malloc(64, 0)
    acl.rt.memset_async(dev, 64, 1, 64, used)
    acl.rt.synchronize_stream(used)
    rows = [
        e["args"]["name"]
        for e in to_chrome_trace(sandbox.trace())["traceEvents"]
        if e["ph"] == "M" and e["name"] == "thread_name" and e["args"]["name"].startswith("Stream")
    ]
    assert rows == ["Stream 1"]


# -- every export is strict JSON and follows the rules ------------------------------------


def _two_host_funcs_at_one_instant():
    """Two streams wait on one event, then each runs a host function: the device's runtime
    thread runs both at the instant the event completes."""
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    s0, _ = acl.rt.create_stream()
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    ev, _ = acl.rt.create_event()
    buf, _ = acl.rt.malloc(64, 0)

    @sandbox.kernel(ns=100_000)
    def busy(x: "uint8*"):
        x[:1] = 1

    busy[1, s0](buf)
    acl.rt.record_event(ev, s0)
    acl.rt.stream_wait_event(s1, ev)
    acl.rt.stream_wait_event(s2, ev)

    def first(data):
        pass

    def second(data):
        pass

    assert acl.rt.launch_host_func(s1, first, None) == 0
    assert acl.rt.launch_host_func(s2, second, None) == 0
    assert acl.rt.synchronize_device() == 0
    return sandbox.trace()


def test_simultaneous_host_functions_get_lane_rows_not_overlapping_slices():
    log = _two_host_funcs_at_one_instant()
    doc = json.loads(trace_json(log))
    assert validate_chrome_trace(doc) == []
    runs = [
        e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] == "callback" and e["name"] in ("first", "second")
    ]
    assert len(runs) == 2 and runs[0]["ts"] == runs[1]["ts"]  # the times stay the simulated ones
    assert runs[0]["tid"] != runs[1]["tid"]
    names = meta(doc, "thread_name")
    labels = sorted(names[(r["pid"], r["tid"])]["name"] for r in runs)
    assert labels[0].endswith("callbacks #1") and labels[1].endswith("callbacks #2")
    tasks = {
        e["args"]["Task Id"]: e
        for e in doc["traceEvents"]
        if e["ph"] == "X" and e.get("args", {}).get("Task Type") == "HOST_FUNC"
    }
    for r in runs:  # each lines up with its stream task
        assert tasks[r["args"]["task"]]["ts"] == r["ts"]


def test_export_is_strict_json_even_with_nan_and_odd_arguments(tmp_path):
    import numpy as np

    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    assert acl.rt.synchronize_stream_with_timeout(s, float("nan")) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.synchronize_stream_with_timeout(s, float("-inf")) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.synchronize_stream_with_timeout(s, np.int64(5)) == 0
    acl.rt.malloc(2**70, 0)
    acl.rt.set_device(object())
    acl.rt.destroy_stream([s, [s, [s, [s, [s]]]]])
    doc = to_chrome_trace(sandbox.trace())
    json.dumps(doc, allow_nan=False)  # raises on NaN / Infinity / non-JSON values
    text = trace_json(sandbox.trace())
    strict = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    assert validate_chrome_trace(strict) == []
    args = [
        e["args"]
        for e in strict["traceEvents"]
        if e.get("cat") == "api" and e["name"] == "aclrtSynchronizeStreamWithTimeout"
    ]
    assert [a["timeout"] for a in args] == ["nan", "-inf", 5]
    size = next(e["args"]["size"] for e in strict["traceEvents"] if e.get("name") == "aclrtMalloc")
    assert size == str(2**70)  # beyond 2**53: a string, not a rounded number
    assert (
        next(
            e["args"]["device_id"]
            for e in strict["traceEvents"]
            if e.get("name") == "aclrtSetDevice" and e["args"]["ret"]
        )
        == "object"
    )


def test_trace_json_written_from_templates_is_the_dict_dump_byte_for_byte(rich_log):
    """The fast writer (templates, one sort on precomputed keys) and the plain dump of
    to_chrome_trace give the same text, odd arguments and details included."""
    from sandbox.core import trace as tr
    from sandbox.export.chrome_trace import dict_json

    assert trace_json(rich_log) == dict_json(rich_log)
    log = tr.TraceLog(rich_log.records)
    log.append(tr.ApiCall(10, 20, 1, 1, "aclrtOdd", 0, (("ret", 5), ("x", float("nan")), ("x", 2**60))))
    log.append(
        tr.ApiCall(
            10,
            20,
            1,
            1,
            "aclrtOdd2",
            0,
            (("big", 2**60), ("t", (1, "a", None)), ("f", 1.5), ("b", True), ("o", object())),
        )
    )
    log.append(
        tr.TaskSubmitted(
            30, 99_999, 0, 0, "kernel", "odd", "AI Core", 0, 0, detail=(("size", 1), ("x", float("inf")), ("x", 2))
        )
    )
    log.append(tr.TaskStarted(31, 99_999, 1))
    assert trace_json(log) == dict_json(log)


def test_flow_arrows_at_times_numpy_cannot_hold_exactly_are_the_dict_dump_byte_for_byte(rich_log):
    """Arrow times are worked out in numpy columns only while every time fits 53 bits; a
    call and its task later than that (2**60 ns) go through the plain loop, same text."""
    from sandbox.core import trace as tr
    from sandbox.export.chrome_trace import dict_json

    late = 2**60 + 7
    log = tr.TraceLog(rich_log.records)
    log.append(tr.TaskSubmitted(late, 99_999, 0, 0, "kernel", "late", "AI Core", 0, 0))
    log.append(tr.TaskStarted(late + 3, 99_999, 1))
    log.append(tr.TaskFinished(late + 1001, 99_999))
    log.append(tr.ApiCall(late, late + 2001, 1, 1, "aclrtLaunchKernel", 0, (), tasks=(99_999,)))
    text = trace_json(log)
    assert '"id":99999' in text
    assert text == dict_json(log)


def test_a_flow_end_inside_a_slice_that_an_earlier_longer_slice_covers_is_found_in_one_bisection():
    """The flow check bisects each row's slices by start and keeps the largest end so far: a point
    inside a long slice that later, shorter slices nest in is still inside a slice, and a point past
    every end is not."""
    meta = [
        {"ph": "M", "pid": 1, "tid": 1, "name": "process_name", "args": {"name": "p"}},
        {"ph": "M", "pid": 1, "tid": 1, "name": "thread_name", "args": {"name": "t"}},
    ]
    x = [
        {"ph": "X", "pid": 1, "tid": 1, "ts": 0.0, "dur": 100.0, "name": "long"},
        {"ph": "X", "pid": 1, "tid": 1, "ts": 10.0, "dur": 1.0, "name": "short"},
    ]

    def flow(ts_end):
        return [
            {"ph": "s", "pid": 1, "tid": 1, "ts": 5.0, "id": 1, "cat": "c", "name": "f"},
            {"ph": "f", "pid": 1, "tid": 1, "ts": ts_end, "id": 1, "cat": "c", "name": "f", "bp": "e"},
        ]

    inside = validate_chrome_trace({"traceEvents": meta + x[:1] + flow(50.0)[:1] + x[1:] + flow(50.0)[1:]})
    assert not [p for p in inside if "inside no X slice" in p]
    assert not [p for p in inside if "inside event" in p]  # a slice wholly inside another nests in it
    past = validate_chrome_trace({"traceEvents": meta + x[:1] + flow(150.0)[:1] + x[1:] + flow(150.0)[1:]})
    assert [p for p in past if "'f' at 150.0 is inside no X slice" in p]


# -- a window of the trace (what an aclprofStart .. aclprofStop collection writes) ----------------


def _events(text):
    return [e for e in json.loads(text)["traceEvents"] if e["ph"] != "M"]


def test_a_window_keeps_only_the_tasks_and_calls_that_lie_wholly_inside_it(rich_log):
    ix = build_index(rich_log)
    tasks = sorted((t for t in ix.tasks.values() if t.start is not None), key=lambda t: t.start)
    t0, t1 = tasks[3].start, tasks[-4].end
    events = _events(trace_json(rich_log, window=(t0, t1)))
    assert events and all(t0 / 1000 <= e["ts"] for e in events)
    assert all(e["ts"] + e["dur"] <= t1 / 1000 for e in events if e["ph"] == "X")
    inside = {t.task for t in tasks if t0 <= t.start and t.end <= t1}
    shown = {e["args"]["Task Id"] for e in events if e["ph"] == "X" and e["cat"] != "api"}
    assert shown == inside and len(inside) < len(tasks)
    assert validate_chrome_trace(json.loads(trace_json(rich_log, window=(t0, t1)))) == []


def test_a_window_s_memory_counters_start_at_its_start_with_what_was_allocated_before(rich_log):
    ix = build_index(rich_log)
    t0 = max(b.allocated for b in ix.blocks if b.device == 0) + 1
    counters = [e for e in _events(trace_json(rich_log, window=(t0, ix.t_end))) if e["ph"] == "C"]
    first = next(e for e in counters if e["name"] == "Device memory" and e["pid"] == 100)
    assert first["ts"] == t0 / 1000 and first["args"]["allocated"] > 0


def test_a_window_on_some_devices_leaves_the_other_devices_out(rich_log):
    ix = build_index(rich_log)
    events = json.loads(trace_json(rich_log, window=(0, ix.t_end), devices=(1,)))["traceEvents"]
    labels = {e["args"]["labels"] for e in events if e["name"] == "process_labels"}
    assert labels == {"CPU", "NPU 1"}


def test_without_a_window_the_export_is_the_whole_log_as_before(rich_log):
    assert trace_json(rich_log, window=None, devices=None) == trace_json(rich_log)


def test_profiling_notes_are_instants_of_their_kind_and_msproftx_ranges_async_pairs():
    from sandbox.core import trace as T
    from sandbox.export.chrome_trace import dict_json

    log = two_stream_log()
    log.append(T.Note(1000, 1, "mark", "msproftx"))
    log.append(T.Note(5000, 1, "range", "msproftx", began=2000))
    log.append(T.Note(6000, 1, "step 1 start", "step"))
    doc = json.loads(trace_json(log))
    assert validate_chrome_trace(doc) == []
    mine = [(e["ph"], e["name"], e["cat"], e["ts"]) for e in doc["traceEvents"] if e.get("cat") in ("msproftx", "step")]
    assert mine == [
        ("i", "mark", "msproftx", 1.0),
        ("b", "range", "msproftx", 2.0),
        ("e", "range", "msproftx", 5.0),
        ("i", "step 1 start", "step", 6.0),
    ]
    assert dict_json(log) == trace_json(log)


def test_an_mstx_mark_or_range_names_its_domain_in_args_and_other_notes_name_none():
    from sandbox.core import trace as T
    from sandbox.export.chrome_trace import dict_json

    log = two_stream_log()
    log.append(T.Note(1000, 1, "mark", "msproftx", domain="default"))
    log.append(T.Note(5000, 1, "range", "msproftx", began=2000, domain="DoAclAdd_Inner"))
    log.append(T.Note(6000, 1, "aclprofMark", "msproftx"))
    doc = json.loads(trace_json(log))
    assert validate_chrome_trace(doc) == []
    mine = [(e["ph"], e["name"], e.get("args")) for e in doc["traceEvents"] if e.get("cat") == "msproftx"]
    assert mine == [
        ("i", "mark", {"domain": "default"}),
        ("b", "range", {"domain": "DoAclAdd_Inner"}),
        ("e", "range", {"domain": "DoAclAdd_Inner"}),
        ("i", "aclprofMark", None),
    ]
    assert dict_json(log) == trace_json(log)
