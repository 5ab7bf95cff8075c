"""The API-path benchmark compares the facade with three models of the same workload; a ratio
means something only if those models run the same schedule the sandbox does."""

import importlib.util
import os

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
