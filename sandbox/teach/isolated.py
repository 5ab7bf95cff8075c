"""``check(..., isolated=True)``: the solution judged in a fresh interpreter.

A check in the notebook's own process trusts that process: a cell that replaced
``sandbox.teach.check`` or one of its judges, or patched the runtime, changes every grade
after it.  An isolated check carries the solution over to a new Python process (cloudpickle
pickles the function by value, with what it uses from the notebook: its kernels, helpers and
constants; modules are imported afresh there), runs ``check`` in that process, and reads the
grade back (its criteria and the graded run's records, for ``Grade.show()``).  Nothing the
notebook did to its own process reaches the judge.

What the solution does during its own run is watched in both modes (grading.py): a solution
that rebinds the grader's or the runtime's code, or removes hazard records from the graded
trace, gets a ✘ for it.

The cost is a process start and the imports: about 0.55 s more per check (benchmarks/
bench_grading.py: the 27 reference solutions took 21.8 s isolated against 4.6 s in-process, the
same verdicts), so the notebooks' interactive checks stay in-process and the nbgrader hidden
tests, which decide a mark, run isolated.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile

from .checks import Check

_CHILD = "sandbox.teach.isolated_child"
_START_S = 30.0  # real time a fresh interpreter may take to import the sandbox, beyond the exercise's limit


def run(exercise, solution, call: int):
    """The grade of ``solution`` for ``exercise``, judged in a fresh interpreter as the
    ``call``-th check of that exercise (so the inputs are the ones an in-process check gets);
    a run that gave no grade is the ✘ line saying why (a ``Check``)."""
    from sandbox import i18n

    def cross(detail: str, hint: str) -> Check:
        return Check("the solution ran", False, detail, hint)

    try:
        import cloudpickle

        own = _package_exercise(exercise)  # the notebooks' exercises by id; a teacher's own by value
        payload = cloudpickle.dumps((exercise.id if own else exercise, solution, call, i18n.language()))
    except Exception as exc:  # noqa: BLE001 - what cannot be carried over is the learner's to change
        return cross(
            f"it could not be carried to a fresh interpreter: {type(exc).__name__}: {exc}",
            "an isolated check copies the function and what it uses from the notebook; open files, "
            "threads and locks cannot be copied: make them inside the function",
        )
    with tempfile.TemporaryDirectory(prefix="sandbox-check-") as tmp:
        out = os.path.join(tmp, "grade.pickle")
        child = subprocess.Popen(
            [sys.executable, "-m", _CHILD, out],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={
                **os.environ,
                "PYTHONHASHSEED": "0",
                "MPLBACKEND": "Agg",
                "PYTHONPATH": os.pathsep.join(p or os.getcwd() for p in sys.path),  # the notebook's imports
            },
        )
        try:
            printed, _ = child.communicate(payload, timeout=exercise.time_limit_s + _START_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            return cross(
                f"the fresh interpreter did not answer within {exercise.time_limit_s + _START_S:.0f} s",
                "is the solution waiting for something that never happens?",
            )
        except BaseException:  # the stop button: the child goes with the cell
            child.kill()
            child.communicate()
            raise
        if printed:
            sys.stdout.write(printed.decode("utf-8", "replace"))
        try:
            with open(out, "rb") as f:
                return pickle.load(f)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError) as exc:
            return cross(
                f"the fresh interpreter ended (code {child.returncode}) without a grade: {type(exc).__name__}",
                "did the solution end the process (os._exit, a signal)? a solution returns its result",
            )


def _package_exercise(exercise) -> bool:
    """Is ``exercise`` one of the package's own (a fresh interpreter knows it by its id)?"""
    from .concepts import Quiz

    if isinstance(exercise, Quiz):
        return True  # the package's concept checks are known by id in every interpreter
    module = getattr(exercise.judge, "__module__", "") or ""
    return module.startswith("sandbox.teach.exercise_sets.")
