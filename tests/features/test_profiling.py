"""Profiling (core/features/profiling.py, export/msprof.py): init, configs, start/stop and their codes,
msproftx marks and ranges, step timestamps, and the collection a stop writes."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T
from sandbox.core.features import profiling
from sandbox.export import msprof
from sandbox.export.validate import validate_chrome_trace
from sandbox.viz.index import build_index

ROOT = Path(__file__).resolve().parents[2]
INVALID, REPEAT, BAD_FILE = acl.ACL_ERROR_INVALID_PARAM, acl.ACL_ERROR_REPEAT_INITIALIZE, acl.ACL_ERROR_INVALID_FILE
TX_FAILED = -1
TIMELINE = acl.ACL_PROF_ACL_API | acl.ACL_PROF_TASK_TIME | acl.ACL_PROF_MSPROFTX


@sandbox.kernel(ns=20_000, writes=("out",))
def scale(x: "float32*", out: "float32*", n: int):
    out[:n] = 2 * x[:n]


@sandbox.kernel(ns=5_000, writes=("out",))
def shift(x: "float32*", out: "float32*", n: int):
    out[:n] = x[:n] + 1


def config(devices=(0,), data_types=TIMELINE, metrics=acl.ACL_AICORE_ARITHMETIC_UTILIZATION):
    cfg = acl.prof.create_config(list(devices), metrics, 0, data_types)
    assert cfg != 0, acl.get_recent_err_msg()
    return cfg


def launches(stream, *kernels):
    x, _ = acl.rt.malloc(4096, 0)
    out, _ = acl.rt.malloc(4096, 0)
    for k in kernels:
        assert k[1, stream](x, out, 16) == 0
    assert acl.rt.synchronize_stream(stream) == 0


def output_files(root: Path) -> dict[str, Path]:
    """The collection's files by their kind ("msprof", "op_summary", "op_statistic")."""
    (folder,) = [p for p in root.iterdir() if p.name.startswith("PROF_")]
    return {p.name.rsplit("_", 1)[0]: p for p in (folder / "mindstudio_profiler_output").iterdir()}


def csv_rows(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def profiled(tmp_path, stream, data_types=TIMELINE, devices=(0,)):
    """One collection around a scale and a shift, with a kernel before and after it."""
    assert acl.prof.init(str(tmp_path)) == 0
    cfg = config(devices, data_types)
    launches(stream, shift)  # before the start: outside the window
    assert acl.prof.start(cfg) == 0
    launches(stream, scale, shift, scale)
    assert acl.prof.stop(cfg) == 0
    launches(stream, shift)  # after the stop
    return cfg


# -- aclprofInit / aclprofFinalize --------------------------------------------------------------------
def test_init_with_an_empty_path_or_one_of_4096_bytes_is_100000(machine):
    assert acl.prof.init("") == INVALID
    assert "1 to 4095 bytes" in acl.get_recent_err_msg()
    assert acl.prof.init("p" * 4096) == INVALID


def test_init_twice_is_100002(machine, tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.init(str(tmp_path)) == REPEAT
    assert "aclprofFinalize first" in acl.get_recent_err_msg()


def test_init_accepts_a_path_that_does_not_exist_and_start_creates_it(device0, tmp_path):
    path = tmp_path / "not" / "yet"
    assert acl.prof.init(str(path)) == 0
    assert not path.exists()
    assert acl.prof.start(config()) == 0
    assert path.is_dir()


def test_start_where_the_path_cannot_be_created_is_100003(device0, tmp_path):
    (tmp_path / "a_file").write_text("x")
    assert acl.prof.init(str(tmp_path / "a_file" / "out")) == 0
    assert acl.prof.start(config()) == BAD_FILE
    assert "cannot be created" in acl.get_recent_err_msg()
    assert list(sandbox.trace().of(T.ProfilingStarted)) == []


def test_finalize_and_stop_without_init_are_0(machine):
    assert acl.prof.finalize() == 0
    assert acl.prof.stop(12345) == 0  # not even the handle is looked at
    assert acl.prof.stop(0) == 0


def test_finalize_ends_profiling_so_init_works_again(machine, tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.finalize() == 0
    assert acl.prof.init(str(tmp_path)) == 0


def test_start_without_init_initialises_itself_in_the_working_directory(device0, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert acl.prof.start(config()) == 0
    assert acl.prof.init(str(tmp_path)) == REPEAT  # it is initialised now
    assert acl.prof.stop(0) == 0
    assert [p.name[:12] for p in tmp_path.iterdir()] == ["PROF_000001_"]


def test_start_without_init_takes_the_path_set_with_acl_prof_path(device0, tmp_path):
    assert acl.prof.set_config(acl.ACL_PROF_PATH, str(tmp_path / "chosen")) == 0
    assert acl.prof.start(config()) == 0
    assert acl.prof.stop(0) == 0
    assert len(list((tmp_path / "chosen").glob("PROF_*"))) == 1


def test_acl_prof_path_after_init_replaces_the_init_path(device0, tmp_path):
    assert acl.prof.init(str(tmp_path / "first")) == 0
    assert acl.prof.set_config(acl.ACL_PROF_PATH, str(tmp_path / "second")) == 0
    assert acl.prof.start(config()) == 0
    assert acl.prof.stop(0) == 0
    assert not (tmp_path / "first").exists() and len(list((tmp_path / "second").glob("PROF_*"))) == 1


# -- aclprofCreateConfig / aclprofDestroyConfig ---------------------------------------------------------
@pytest.mark.parametrize(
    "devices, why",
    [([8], "not present"), ([-1], "not present"), ([0, 0], "twice"), ([], "empty"), (list(range(9)), "9 devices")],
    ids=["absent", "negative", "twice", "empty", "too_many"],
)
def test_create_config_returns_0_for_a_device_not_present_twice_or_none(machine, devices, why):
    assert acl.prof.create_config(devices, 0, 0, acl.ACL_PROF_TASK_TIME) == 0
    assert why in acl.get_recent_err_msg()


def test_an_empty_device_list_is_accepted_with_msproftx(machine):
    assert acl.prof.create_config([], 0, 0, acl.ACL_PROF_MSPROFTX) != 0


def test_create_config_returns_0_for_aicore_events_not_null(machine):
    assert acl.prof.create_config([0], 0, 64, acl.ACL_PROF_TASK_TIME) == 0
    assert "aicore_events must be 0" in acl.get_recent_err_msg()


def test_a_config_expands_the_task_time_levels_as_the_runtime_does():
    l1, l0, l2, tt = (
        acl.ACL_PROF_TASK_TIME,
        acl.ACL_PROF_TASK_TIME_L0,
        acl.ACL_PROF_TASK_TIME_L2,
        acl.ACL_PROF_TRAINING_TRACE,
    )
    model = profiling.AICPU_MODEL  # the internal bit every config holds
    assert profiling.expand(0) == model
    assert profiling.expand(l1) == l1 | l0 | tt | model
    assert profiling.expand(acl.ACL_PROF_OP_ATTR) == acl.ACL_PROF_OP_ATTR | l0 | l1 | tt | model
    assert profiling.expand(acl.ACL_PROF_TASK_TIME_L3) == acl.ACL_PROF_TASK_TIME_L3 | l0 | l1 | l2 | tt | model
    assert profiling.expand(acl.ACL_PROF_API_STATS | l1) == acl.ACL_PROF_ACL_API | acl.ACL_PROF_API_STATS


def test_destroy_config_of_0_or_of_no_live_config_is_100000(machine):
    cfg = config()
    assert acl.prof.destroy_config(0) == INVALID
    assert acl.prof.destroy_config(cfg) == 0
    assert acl.prof.destroy_config(cfg) == INVALID
    assert "not a live profiling config" in acl.get_recent_err_msg()


# -- aclprofStart / aclprofStop --------------------------------------------------------------------------
def test_start_twice_with_the_same_config_is_0_and_keeps_one_collection(device0, tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    cfg = config()
    assert acl.prof.start(cfg) == 0
    assert acl.prof.start(cfg) == 0
    assert acl.prof.start(config()) == 0  # another config, the same data types
    assert len(list(sandbox.trace().of(T.ProfilingStarted))) == 1


def test_start_with_other_data_types_while_a_collection_runs_is_100010(device0, tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.start(config()) == 0
    assert acl.prof.start(config(data_types=acl.ACL_PROF_ACL_API)) == acl.ACL_ERROR_INVALID_PROFILING_CONFIG
    assert "stop it first" in acl.get_recent_err_msg()


def test_stop_with_other_data_types_than_the_running_ones_is_100010(device0, tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.start(config()) == 0
    assert acl.prof.stop(config(data_types=acl.ACL_PROF_ACL_API)) == acl.ACL_ERROR_INVALID_PROFILING_CONFIG
    assert list(sandbox.trace().of(T.ProfilingStopped)) == []


def test_bits_outside_the_supported_set_are_200007_at_start_and_stop(device0, tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    odd = config(data_types=acl.ACL_PROF_ACL_API | 0x400)  # PROF_TASK_TSFW: not in PROF_SWITCH_SUPPORT
    assert acl.prof.start(odd) == acl.ACL_ERROR_PROF_MODULES_UNSUPPORTED
    assert "0x400" in acl.get_recent_err_msg()
    assert acl.prof.start(config()) == 0
    assert acl.prof.stop(odd) == acl.ACL_ERROR_PROF_MODULES_UNSUPPORTED


def test_a_config_made_with_no_data_types_starts_and_writes_only_the_timeline(device0, tmp_path):
    """The runtime ORs its internal AICPU_MODEL bit into every config (prof_acl_api.cpp:190): the
    100000 aclprofStart gives a zero data type (msprofiler_acl_api.cpp:221-227) cannot be reached."""
    assert acl.prof.init(str(tmp_path)) == 0
    cfg = config(data_types=0)
    assert acl.prof.start(cfg) == 0
    assert acl.prof.stop(cfg) == 0
    assert list(output_files(tmp_path)) == ["msprof"]


def test_aicore_metrics_outside_the_enum_is_100000_at_start(device0, tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.start(config(data_types=acl.ACL_PROF_AICORE_METRICS, metrics=9)) == INVALID
    assert acl.prof.start(config(data_types=acl.ACL_PROF_AICORE_METRICS, metrics=acl.ACL_AICORE_NONE)) == 0


def test_stop_while_initialised_but_not_running_is_0_and_writes_nothing(device0, tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.stop(config()) == 0
    assert list(tmp_path.iterdir()) == []


def test_start_with_0_takes_the_default_config_on_the_devices_set(device0, tmp_path):
    assert acl.rt.set_device(2) == 0
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.start(0) == 0
    (started,) = sandbox.trace().of(T.ProfilingStarted)
    assert started.devices == (0, 2) and started.data_types == profiling.DEFAULT


def test_stop_with_0_stops_the_running_collection(device0, tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.start(config()) == 0
    assert acl.prof.stop(0) == 0
    assert len(list(sandbox.trace().of(T.ProfilingStopped))) == 1


def test_finalize_while_a_collection_runs_writes_it(device0, tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.start(config()) == 0
    launches(device0, scale)
    assert acl.prof.finalize() == 0
    assert len(csv_rows(output_files(tmp_path)["op_summary"])) == 1


def test_a_second_collection_gets_the_next_index(device0, tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    cfg = config()
    for _ in range(2):
        assert acl.prof.start(cfg) == 0
        assert acl.prof.stop(cfg) == 0
    assert sorted(p.name[:11] for p in tmp_path.iterdir()) == ["PROF_000001", "PROF_000002"]


def test_a_stop_whose_files_cannot_be_written_is_500005_and_the_collection_runs_on(device0, tmp_path):
    out = tmp_path / "out"
    assert acl.prof.init(str(out)) == 0
    cfg = config()
    assert acl.prof.start(cfg) == 0
    out.rmdir()
    out.write_text("not a folder any more")
    assert acl.prof.stop(cfg) == acl.ACL_ERROR_PROFILING_FAILURE
    assert list(sandbox.trace().of(T.ProfilingStopped)) == []
    out.unlink()
    out.mkdir()
    assert acl.prof.stop(cfg) == 0


# -- aclprofSetConfig ------------------------------------------------------------------------------------
def test_set_config_with_a_type_outside_the_enum_or_a_value_over_256_bytes_is_100000(machine):
    assert acl.prof.set_config(acl.ACL_PROF_ARGS_MIN, "1") == INVALID
    assert acl.prof.set_config(acl.ACL_PROF_ARGS_MAX, "1") == INVALID
    assert acl.prof.set_config(acl.ACL_PROF_STORAGE_LIMIT, "x" * 257) == INVALID


def test_set_config_with_a_frequency_outside_its_range_or_type_2_is_100010(machine):
    bad = acl.ACL_ERROR_INVALID_PROFILING_CONFIG
    assert acl.prof.set_config(acl.ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15") == 0
    assert acl.prof.set_config(acl.ACL_PROF_SYS_HARDWARE_MEM_FREQ, "101") == bad
    assert acl.prof.set_config(acl.ACL_PROF_SYS_CPU_FREQ, "51") == bad
    assert acl.prof.set_config(acl.ACL_PROF_SYS_IO_FREQ, "ten") == bad
    assert acl.prof.set_config(2, "1") == bad


# -- msproftx -------------------------------------------------------------------------------------------
def test_msproftx_calls_before_a_start_with_msproftx_do_nothing(device0):
    assert acl.prof.create_stamp() == 0
    assert "ACL_PROF_MSPROFTX" in acl.get_recent_err_msg()
    assert acl.prof.mark(12345) == TX_FAILED
    assert acl.prof.mark_ex("x", device0) == TX_FAILED
    assert acl.prof.pop() == TX_FAILED
    assert acl.prof.range_stop(0) == TX_FAILED
    assert [r for r in sandbox.trace().of(T.Note) if r.kind] == []


def test_msproftx_stays_off_after_a_start_without_its_bit(device0, tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.start(config(data_types=acl.ACL_PROF_TASK_TIME)) == 0
    assert acl.prof.create_stamp() == 0


def test_push_and_range_start_with_a_0_stamp_are_100000_before_msproftx_is_asked(device0, tmp_path):
    assert acl.prof.push(0) == INVALID
    assert acl.prof.range_start(0) == (0, INVALID)
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.start(config()) == 0
    assert acl.prof.push(0) == INVALID
    assert acl.prof.mark(0) == TX_FAILED  # aclprofMark's NULL check is the manager's


def test_a_refused_msproftx_call_is_named_profiling_failed_with_code_minus_1(device0):
    assert acl.prof.pop() == TX_FAILED
    (error,) = sandbox.trace().of(T.ErrorRaised)
    assert (error.code, error.name, error.api) == (-1, "PROFILING_FAILED", "aclprofPop")


def tx_on(tmp_path):
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.start(config()) == 0


def stamp(message=""):
    handle = acl.prof.create_stamp()
    assert handle != 0, acl.get_recent_err_msg()
    if message:
        assert acl.prof.set_stamp_trace_message(handle, message, len(message.encode())) == 0
    return handle


def test_a_stamp_message_of_128_bytes_or_more_is_minus_1(device0, tmp_path):
    tx_on(tmp_path)
    handle = stamp()
    assert acl.prof.set_stamp_trace_message(handle, "m" * 128, 128) == TX_FAILED
    assert acl.prof.set_stamp_trace_message(handle, "m" * 127, 127) == 0
    assert acl.prof.set_stamp_trace_message(0, "m", 1) == TX_FAILED


def test_a_stamp_message_is_its_first_msg_len_bytes(device0, tmp_path):
    tx_on(tmp_path)
    handle = stamp()
    assert acl.prof.set_stamp_trace_message(handle, "forward_pass", 7) == 0
    assert acl.prof.mark(handle) == 0
    assert [n.text for n in sandbox.trace().of(T.Note)] == ["forward"]


def test_pop_with_nothing_pushed_and_stop_of_a_range_never_started_are_minus_1(device0, tmp_path):
    tx_on(tmp_path)
    assert acl.prof.pop() == TX_FAILED
    assert acl.prof.range_stop(7) == TX_FAILED
    assert "never started" in acl.get_recent_err_msg()


def test_a_range_id_is_its_stamp_s_slot_in_the_pool_of_100(device0, tmp_path):
    tx_on(tmp_path)
    first, second = stamp(), stamp()
    assert acl.prof.range_start(first) == (0, 0)
    assert acl.prof.range_start(second) == (1, 0)
    assert acl.prof.destroy_stamp(first) is None
    assert acl.prof.range_start(stamp()) == (0, 0)  # the slot freed last is taken first
    more = [acl.prof.create_stamp() for _ in range(98)]
    assert 0 not in more and acl.prof.create_stamp() == 0
    assert "100 stamps" in acl.get_recent_err_msg()


def test_mark_ex_needs_a_live_stream_and_a_message_of_1_to_155_bytes(device0, tmp_path):
    tx_on(tmp_path)
    assert acl.prof.mark_ex("x", 0) == TX_FAILED
    assert acl.prof.mark_ex("", device0) == TX_FAILED
    assert acl.prof.mark_ex("x" * 156, device0) == TX_FAILED
    assert acl.prof.mark_ex("x", 999) == TX_FAILED
    assert acl.prof.mark_ex("x" * 155, device0) == 0


def test_msproftx_stays_on_after_stop_until_finalize(device0, tmp_path):
    tx_on(tmp_path)
    assert acl.prof.stop(0) == 0
    handle = stamp("late")
    assert acl.prof.mark(handle) == 0
    assert acl.prof.finalize() == 0
    assert acl.prof.mark(handle) == TX_FAILED
    assert acl.prof.create_stamp() == 0


def test_marks_and_ranges_are_notes_of_kind_msproftx_on_the_calling_thread(device0, tmp_path):
    tx_on(tmp_path)
    outer, inner, span = stamp("outer"), stamp("inner"), stamp("span")
    assert acl.prof.mark(outer) == 0
    assert acl.prof.push(outer) == 0
    pushed = sandbox.now()
    range_id, ret = acl.prof.range_start(span)
    assert ret == 0
    assert acl.prof.push(inner) == 0
    assert acl.prof.pop() == 0
    assert acl.prof.range_stop(range_id) == 0
    assert acl.prof.pop() == 0
    notes = [(n.text, n.kind, n.began is None) for n in sandbox.trace().of(T.Note)]
    assert notes == [("outer", "msproftx", True), ("inner", "msproftx", False), ("span", "msproftx", False)] + [
        ("outer", "msproftx", False)
    ]
    assert list(sandbox.trace().of(T.Note))[-1].began == pushed


# -- step info ------------------------------------------------------------------------------------------
def test_step_timestamps_refuse_no_info_a_second_start_or_end_with_100000(device0):
    step = acl.prof.create_step_info()
    assert acl.prof.get_step_timestamp(0, acl.ACL_STEP_START, device0) == INVALID
    assert acl.prof.get_step_timestamp(step, acl.ACL_STEP_START, device0) == 0
    assert acl.prof.get_step_timestamp(step, acl.ACL_STEP_START, device0) == INVALID
    assert acl.prof.get_step_timestamp(step, acl.ACL_STEP_END, 0) == 0
    assert acl.prof.get_step_timestamp(step, acl.ACL_STEP_END, device0) == INVALID
    assert [(n.text, n.kind) for n in sandbox.trace().of(T.Note)] == [("step 1 start", "step"), ("step 1 end", "step")]


def test_a_step_timestamp_on_a_stream_the_runtime_refuses_is_500002_and_leaves_the_step_unstarted(device0):
    step = acl.prof.create_step_info()
    assert acl.prof.get_step_timestamp(step, acl.ACL_STEP_START, 999) == acl.ACL_ERROR_GE_FAILURE
    assert acl.prof.get_step_timestamp(step, acl.ACL_STEP_START, device0) == 0


def test_destroy_step_info_of_0_returns_none_and_says_why(machine):
    assert acl.prof.destroy_step_info(0) is None
    assert "no live step info" in acl.get_recent_err_msg()
    assert acl.prof.destroy_step_info(acl.prof.create_step_info()) is None


# -- what a stop writes ----------------------------------------------------------------------------------
def test_stop_writes_a_collection_folder_named_as_msprof_names_it(device0, tmp_path):
    profiled(tmp_path, device0)
    (folder,) = tmp_path.iterdir()
    (started,) = sandbox.trace().of(T.ProfilingStarted)
    assert re.fullmatch(r"PROF_000001_\d{17}_00000001[A-R]{8}", folder.name)
    assert folder.name[12:29] == "19700101000001%03d" % (started.t // 1_000_000 % 1000)  # virtual time from 1970
    (stopped,) = sandbox.trace().of(T.ProfilingStopped)
    stamp_ = msprof.file_stamp(stopped.t)
    assert sorted(p.name for p in (folder / "mindstudio_profiler_output").iterdir()) == [
        f"msprof_{stamp_}.json",
        f"op_statistic_{stamp_}.csv",
        f"op_summary_{stamp_}.csv",
    ]


def test_the_op_summary_has_msprof_s_columns_and_a_row_per_compute_task_of_the_window(device0, tmp_path):
    profiled(tmp_path, device0)
    path = output_files(tmp_path)["op_summary"]
    assert path.read_text().splitlines()[0] == ",".join(msprof.SUMMARY)
    rows = csv_rows(path)
    assert [r["Op Name"] for r in rows] == ["scale", "shift", "scale"]
    first = rows[0]
    assert (first["Device_id"], first["OP Type"], first["Task Type"], first["Block Num"]) == (
        "0",
        "scale",
        "AI_CORE",
        "1",
    )
    assert first["Model ID"] == first["Input Shapes"] == first["Context ID"] == "N/A"
    tasks = {t.task: t for t in build_index(sandbox.trace()).tasks.values()}
    task = tasks[int(first["Task ID"])]
    assert first["Task Start Time(us)"] == msprof.us(task.start)
    assert first["Task Duration(us)"] == msprof.us(task.end - task.start)
    assert first["Task Wait Time(us)"] == msprof.us(task.start - tasks[task.prev_task].end)


def test_the_op_statistic_sums_the_op_summary_per_op_type(device0, tmp_path):
    profiled(tmp_path, device0)
    rows = csv_rows(output_files(tmp_path)["op_statistic"])
    assert list(rows[0]) == list(msprof.STATISTIC)
    assert [(r["OP Type"], r["Count"]) for r in rows] == [("scale", "2"), ("shift", "1")]  # largest total first
    scale_row = rows[0]
    summary = [r for r in csv_rows(output_files(tmp_path)["op_summary"]) if r["OP Type"] == "scale"]
    total = sum(msprof._ns(r["Task Duration(us)"]) for r in summary)
    assert scale_row["Total Time(us)"] == msprof.us(total)
    assert float(rows[0]["Ratio(%)"]) + float(rows[1]["Ratio(%)"]) == pytest.approx(100, abs=0.002)


def test_tasks_outside_start_and_stop_are_not_in_the_files(device0, tmp_path):
    profiled(tmp_path, device0)
    files = output_files(tmp_path)
    (started,) = sandbox.trace().of(T.ProfilingStarted)
    (stopped,) = sandbox.trace().of(T.ProfilingStopped)
    events = json.loads(files["msprof"].read_text())["traceEvents"]
    slices = [e for e in events if e["ph"] == "X" and e.get("cat") == "kernel"]
    assert slices and all(started.t / 1000 <= e["ts"] and e["ts"] + e["dur"] <= stopped.t / 1000 for e in slices)
    assert sorted({e["name"] for e in slices}) == ["scale", "shift"]
    assert len([e for e in slices if e["tid"] < 10_000]) == 3  # the stream row: the window's three, not five
    assert len(csv_rows(files["op_summary"])) == 3


def test_only_the_config_s_devices_are_in_the_files(device0, tmp_path):
    assert acl.rt.set_device(1) == 0
    other, _ = acl.rt.create_stream()
    assert acl.rt.set_device(0) == 0
    assert acl.prof.init(str(tmp_path)) == 0
    cfg = config(devices=(0,))
    assert acl.prof.start(cfg) == 0
    launches(device0, scale)
    assert acl.rt.set_device(1) == 0
    launches(other, shift)
    assert acl.prof.stop(cfg) == 0
    files = output_files(tmp_path)
    assert [r["Op Name"] for r in csv_rows(files["op_summary"])] == ["scale"]
    events = json.loads(files["msprof"].read_text())["traceEvents"]
    labels = [e["args"]["labels"] for e in events if e["name"] == "process_labels"]
    assert "NPU 0" in labels and "NPU 1" not in labels


def test_a_config_without_task_time_writes_no_op_summary(device0, tmp_path):
    profiled(tmp_path, device0, data_types=acl.ACL_PROF_ACL_API | acl.ACL_PROF_MSPROFTX)
    assert list(output_files(tmp_path)) == ["msprof"]


def test_the_marks_and_ranges_are_in_the_json_on_their_thread_s_row(device0, tmp_path):
    tx_on(tmp_path)
    handle = stamp("load")
    assert acl.prof.mark(handle) == 0
    assert acl.prof.push(handle) == 0
    launches(device0, scale)
    assert acl.prof.pop() == 0
    assert acl.prof.stop(0) == 0
    doc = json.loads(output_files(tmp_path)["msprof"].read_text())
    assert validate_chrome_trace(doc) == []
    tx = [e for e in doc["traceEvents"] if e.get("cat") == "msproftx"]
    assert [(e["ph"], e["name"], e["pid"], e["tid"]) for e in tx] == [("i", "load", 1, 1), ("b", "load", 1, 1)] + [
        ("e", "load", 1, 1)
    ]
    assert tx[1]["id"] == tx[2]["id"] and tx[1]["ts"] < tx[2]["ts"]


def test_a_model_execution_is_an_op_summary_row_with_its_model():
    rows = [  # a synthetic log: one model execution on Stream 1 of device 0
        T.ThreadStarted(0, 1, 1, "main"),
        T.StreamCreated(0, 7, 1, 0, 1, 0, False),
        T.TaskSubmitted(10, 1, 0, 7, "model", "resnet50", "AI Core", 0, 0, block_dim=24, detail=(("model_id", 3),)),
        T.TaskStarted(20, 1, 24),
        T.TaskFinished(3020, 1),
    ]
    (row,) = msprof.summary_rows(build_index(rows), (0, 5000), (0,))
    assert row[:4] == (0, "resnet50", 3, 1) and row[6:10] == ("resnet50", "resnet50", "N/A", "MODEL")
    assert row[10:14] == ("0.020", "3.000", "0.000", 24)


PROGRAM = """
import sys
import sandbox
from sandbox import acl

@sandbox.kernel(ns=20_000, writes=("out",))
def scale(x: "float32*", out: "float32*", n: int):
    out[:n] = 2 * x[:n]

acl.init()
acl.rt.set_device(0)
stream, _ = acl.rt.create_stream()
x, _ = acl.rt.malloc(4096, 0)
acl.prof.init(sys.argv[1])
cfg = acl.prof.create_config([0], 0, 0, acl.ACL_PROF_ACL_API | acl.ACL_PROF_TASK_TIME | acl.ACL_PROF_MSPROFTX)
acl.prof.start(cfg)
stamp = acl.prof.create_stamp()
acl.prof.set_stamp_trace_message(stamp, "work", 4)
acl.prof.push(stamp)
for _ in range(3):
    scale[2, stream](x, x, 16)
acl.rt.synchronize_stream(stream)
acl.prof.pop()
acl.prof.stop(cfg)
acl.prof.finalize()
"""


def test_the_same_program_writes_byte_identical_files_in_two_processes(tmp_path):
    runs = []
    for n, seed in enumerate(("0", "123")):
        out = tmp_path / f"run{n}"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(PROGRAM), str(out)], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        runs.append({p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()})
    assert len(runs[0]) == 3 and runs[0] == runs[1]
