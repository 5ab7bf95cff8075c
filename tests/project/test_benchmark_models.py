"""The API-path benchmark compares the facade with three models of the same workload; a ratio
means something only if those models run the same schedule the sandbox does."""

import importlib.util
import os
import subprocess
import sys

import pytest

import sandbox

BENCH = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks", "bench_runtime.py"
)


def _load(name: str):
    """A benchmark script, imported from benchmarks/ by its file name."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(os.path.dirname(BENCH), f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return _load("bench_runtime")


@pytest.mark.parametrize("model", ["simpy_workload", "simpy_api_workload", "bare_loop_workload"])
def test_benchmark_models_match_the_sandbox_schedule(bench, model):
    pytest.importorskip("simpy")
    rounds = 4
    tasks = bench.facade_workload(rounds)
    end = bench.last_finish()
    assert getattr(bench, model)(bench.host_program(rounds)) == (tasks, end)
    sandbox.configure()


def test_views_benchmark_prints_every_figure_with_its_verdict(capsys, monkeypatch):
    module = _load("bench_views")
    monkeypatch.setattr("sys.argv", ["bench_views.py", "--rounds", "3", "--repeat", "1"])
    assert module.main() == 0
    out = capsys.readouterr().out
    for line in (
        "dashboard (index + columns + widget)",
        "Gantt chart to PNG",
        "summary",
        "Chrome-trace export",
        "one cursor move on the server",
        "bytes per task",
    ):
        assert line in out
    assert out.count("PASS") + out.count("MISS") == 6
    sandbox.configure()


def test_threads_benchmark_prints_both_ratios_with_their_verdicts(capsys, monkeypatch):
    module = _load("bench_threads")
    monkeypatch.setattr("sys.argv", ["bench_threads.py", "--n", "4", "--repeat", "1"])
    assert module.main() == 0
    out = capsys.readouterr().out
    assert out.startswith("host threads: 4 in ") and "\nprocesses: 4 in " in out
    assert out.count("PASS") + out.count("MISS") == 2
    sandbox.configure()


def test_call_budget_prints_each_call_kind_beside_its_host_cost_and_where_the_time_goes(bench, capsys, monkeypatch):
    monkeypatch.setattr(bench, "BUDGET_CALLS", 20)
    worst = bench.bench_call_budget(repeats=1)
    out = capsys.readouterr().out
    hc = sandbox.get_profile("ascend910b").host_costs
    for call, cost in (
        ("aclrtMemcpyAsync 4 KiB", hc.memcpy_async),
        ("aclrtLaunchKernel", hc.kernel_launch),
        ("aclrtRecordEvent", hc.event_record),
        ("aclrtStreamWaitEvent", hc.stream_wait_event),
        ("aclrtSetDevice (open)", hc.set_device),
    ):
        (line,) = [row for row in out.splitlines() if row.strip().startswith(call)]
        assert f"{cost / 1e3:.1f}us" in line and "%" in line  # the profile's figure, and the split
    assert worst > 0
    sandbox.configure()


def test_api_path_prints_the_sandbox_against_simpy_and_each_call_against_its_host_cost(bench, capsys, monkeypatch):
    monkeypatch.setattr(bench, "ROUNDS", 3)
    monkeypatch.setattr(bench, "host_program", lambda rounds=3, f=bench.host_program: f(rounds))
    monkeypatch.setattr(bench, "facade_workload", lambda rounds=3, f=bench.facade_workload: f(rounds))
    like_for_like, per_call = bench.bench_api_path(repeats=1)
    out = capsys.readouterr().out
    hc = sandbox.get_profile("ascend910b").host_costs
    per_round = hc.set_device + bench.STREAMS * (
        2 * hc.memcpy_async + hc.kernel_launch + hc.event_record + hc.stream_wait_event
    )
    host_us = (
        per_round / (1 + 5 * bench.STREAMS) / 1e3
    )  # the mix's host time per call: set device, then 5 calls per stream
    assert f"sandbox / SimPy API path     = {like_for_like:.2f}x" in out
    assert f"the profile's {host_us:.2f} us of host time per call on this mix: {per_call:.2f}x" in out
    assert like_for_like > 0 and per_call > 0
    sandbox.configure()


def test_the_instruction_count_children_run_their_workload_and_the_setup_alone(bench):
    pytest.importorskip("simpy")
    bench.run_child("none", 2)
    assert not [r for r in sandbox.trace() if type(r).__name__ == "TaskSubmitted"]  # the set-up alone: no task
    bench.run_child("sandbox", 2)
    assert (
        len([r for r in sandbox.trace() if type(r).__name__ == "TaskSubmitted"])
        == 2 * bench.DEVICES * bench.STREAMS * 5
    )
    bench.run_child("simpy", 2)
    sandbox.configure()


@pytest.mark.slow
def test_instructions_and_l1_misses_are_counted_per_task_for_both_under_cachegrind(bench, capsys):
    import shutil

    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed")
    pytest.importorskip("simpy")
    ratio = bench.count_instructions(rounds=5)
    out = capsys.readouterr().out
    assert "sandbox facade" in out and "SimPy, API path" in out and "L1 data misses" in out
    assert f"SimPy / sandbox = {ratio:.2f}x in instructions" in out and ratio > 0


def test_bytecodes_are_counted_per_task_for_both_and_the_count_repeats_exactly(bench, capsys):
    pytest.importorskip("simpy")
    ratio = bench.count_bytecodes(rounds=2)
    out = capsys.readouterr().out
    assert "sandbox facade :" in out and "SimPy, API path:" in out
    assert f"SimPy / sandbox = {ratio:.2f}x" in out and ratio > 0
    sandbox.configure()
    runs = [  # a count, not a time: the same in every process
        subprocess.run(
            [sys.executable, bench.__file__, "--bytecodes"], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and "bytecodes per task" in runs[0]
