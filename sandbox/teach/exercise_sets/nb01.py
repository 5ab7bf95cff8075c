"""Notebook 01 · the five steps: reading a result at the right time, then the whole program."""

from __future__ import annotations

import numpy as np

import sandbox

from sandbox.teach.checks import check_bytes, check_equal, check_no_leaks, check_syncs
from sandbox.teach.grading import Exercise, register

N = 1024 * 1024  # the notebook's vector length (int32)
NBYTES = 4 * N


def vectors(rng: np.random.Generator) -> dict:
    """Two fresh int32 vectors: their sum fits in int32, and no two checks see the same ones."""
    return {
        "a": rng.integers(-(2**30), 2**30, N, dtype=np.int32),
        "b": rng.integers(-(2**30), 2**30, N, dtype=np.int32),
    }


# The notebook's kernel (instructor/01_quickstart.py's ``add``), as the notebook declares it: the grader
# knows a kernel by its code and declared cost, not by its name (tests/teach/test_exercises.py holds
# the two to the same).
@sandbox.kernel(ns=lambda a, b, c, size: 3_500_000 * size // N)
def add(a: "int32*", b: "int32*", c: "int32*", size: int):  # type: ignore[valid-type]  # pyACL type strings
    c[:size] = a[:size] + b[:size]


def _vector_sum(run):
    shape, array = run.answer((N,), np.int32)
    yield shape
    if array is None:
        return
    yield check_equal(
        array,
        run.inputs["a"] + run.inputs["b"],
        what="the vector sum",
        hint="copy a and b in, launch add on all N elements, copy c back, and synchronise before reading it",
    )
    yield from run.computed(array, kernels={"add": add}, inputs=("a", "b"), what="the vector sum")


def judge_correct(run):
    yield from _vector_sum(run)  # the host waited: any wait that covers the copy back (a synchronize, polling)


def judge_five_steps(run):
    yield from _vector_sum(run)
    yield check_bytes(run.log, "H2D", exactly=2 * NBYTES)
    yield check_bytes(run.log, "D2H", exactly=NBYTES)
    yield check_syncs(
        run.log,
        at_most=1,
        hint="queue the copies, the launch and the copy back, then wait once: blocking "
        "copies (aclrtMemcpy) and extra synchronizes each stop the host",
    )
    blocking = run.calls("aclrtMemcpy")
    from sandbox.teach.checks import Check

    yield Check(
        "asynchronous copies",
        not blocking,
        "every copy went on the stream"
        if not blocking
        else f"{len(blocking)} blocking aclrtMemcpy call(s): each one waits for the device",
        "use acl.rt.memcpy_async(..., stream) for the copies in and out",
        len(blocking),
    )
    yield check_no_leaks(run.log)


register(
    Exercise(
        id="01.1",
        title="make it correct",
        practises="reading a result only after the host has learnt the copy finished",
        signature="solution(a, b) -> np.ndarray",
        profile="ascend310b",
        inputs=vectors,
        judge=judge_correct,
    )
)

register(
    Exercise(
        id="01.2",
        title="the five steps, waiting once",
        practises="a whole runtime program: initialise, device and stream, memory and copies, launch, "
        "one synchronize, clean-up in reverse order",
        signature="solution(a, b) -> np.ndarray",
        profile="ascend310b",
        inputs=vectors,
        judge=judge_five_steps,
        whole_program=True,
    )
)
