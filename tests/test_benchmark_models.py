"""The API-path benchmark compares the facade with three models of the same workload; a ratio
means something only if those models run the same schedule the sandbox does."""
import importlib.util
import os

import pytest

import sandbox

BENCH = os.path.join(os.path.dirname(os.path.dirname(__file__)), "benchmarks", "bench_runtime.py")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_runtime", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("model", ["simpy_workload", "simpy_api_workload", "bare_loop_workload"])
def test_benchmark_models_match_the_sandbox_schedule(bench, model):
    pytest.importorskip("simpy")
    rounds = 4
    tasks = bench.facade_workload(rounds)
    end = bench.last_finish()
    assert getattr(bench, model)(bench.host_program(rounds)) == (tasks, end)
    sandbox.configure()
