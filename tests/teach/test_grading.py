"""The grader's own rules: it runs the solution on a machine of its own, with inputs of its
own, owns the timing window, and turns every way a solution can go wrong into a ✘ line."""

from __future__ import annotations

import _thread
import dataclasses
import subprocess
import sys
import threading

import numpy as np
import pytest

import sandbox
from sandbox import acl, teach
from sandbox.core import python_threads
from sandbox.core import trace as tr
from sandbox.teach import grading
from sandbox.teach.checks import Check, check_equal

N = 1024


@sandbox.kernel(ns=10_000)
def double(x: "int32*", y: "int32*", n: int):
    y[:n] = 2 * x[:n]


def _judge(run):
    shape, arr = run.answer((N,), np.int32)
    yield shape
    if arr is not None:
        yield check_equal(arr, 2 * run.inputs["x"])
        yield run.from_device(arr)


@pytest.fixture
def exercise():
    """A small exercise of the tests' own: y = 2 x on device 0 of a 310B."""
    ex = teach.register(
        teach.Exercise(
            id="99.1",
            title="double it",
            practises="the tests",
            profile="ascend310b",
            inputs=lambda rng: {"x": rng.integers(-1000, 1000, N, dtype=np.int32)},
            judge=_judge,
            time_limit_s=3.0,
        )
    )
    yield ex
    grading._REGISTRY.pop(ex.id, None)
    grading._calls.pop(ex.id, None)


def doubled(x, kernel=None, wait=None):
    """The reference solution (``kernel``: another kernel to launch; ``wait(stream)``: another wait).
    The grader has opened the board (grading.BOARD)."""
    s, _ = acl.rt.create_stream()
    h, _ = acl.rt.malloc_host(4 * N)
    d, _ = acl.rt.malloc(8 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(h, (N,), np.int32)[:] = x
    acl.rt.memcpy_async(d, 4 * N, h, 4 * N, acl.ACL_MEMCPY_HOST_TO_DEVICE, s)
    (kernel or double)[1, s](d, d + 4 * N, N)
    acl.rt.memcpy_async(h, 4 * N, d + 4 * N, 4 * N, acl.ACL_MEMCPY_DEVICE_TO_HOST, s)
    (wait or acl.rt.synchronize_stream)(s)
    return acl.util.ptr_to_numpy(h, (N,), np.int32).copy()


def _learner_program():
    sandbox.configure("ascend910b", device_count=2)
    acl.init()
    acl.rt.set_device(1)
    teach.mark("mine")
    return sandbox.trace(), len(sandbox.trace())


def test_a_correct_solution_passes_and_the_text_starts_with_a_tick(exercise):
    grade = teach.check("99.1", doubled)
    assert grade.passed and bool(grade)
    assert str(grade).startswith("\u2714 99.1 \u00b7 double it")
    assert all(str(c).startswith("\u2714") for c in grade.checks)
    assert "<div>" in grade._repr_html_() and "double it" in grade._repr_html_()


def test_check_leaves_the_learners_machine_and_trace_untouched(exercise):
    log, n = _learner_program()
    machine = grading.current_machine._current
    teach.check("99.1", doubled)
    assert grading.current_machine._current is machine and sandbox.trace() is log and len(log) == n
    assert acl.rt.get_device() == (1, 0)  # the learner's thread still has its device


def test_inputs_vary_from_one_check_to_the_next(exercise):
    seen = []
    remember = lambda x: (seen.append(x.copy()), doubled(x))[1]  # noqa: E731
    teach.check("99.1", remember)
    teach.check("99.1", remember)
    assert not np.array_equal(seen[0], seen[1])


def test_inputs_repeat_in_a_fresh_process_so_notebooks_rerun_the_same():
    code = (
        "import numpy as np\nfrom sandbox.teach import grading\n"
        "print([int(grading._rng('01.1').integers(1 << 30)) for _ in range(2)])"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outs) == 1


def test_a_remembered_answer_fails_on_the_next_inputs(exercise):
    first = {}

    def remember(x):
        if "y" not in first:
            first["y"] = doubled(x)
        else:
            doubled(x)
        return first["y"]

    assert teach.check("99.1", remember).passed
    assert not teach.check("99.1", remember).passed


def test_a_stub_gets_a_cross_saying_there_is_no_solution_yet(exercise):
    def stub(x):
        raise NotImplementedError()

    grade = teach.check("99.1", stub)
    assert str(grade).startswith("\u2718") and "NotImplementedError" in str(grade)
    assert len(grade.checks) == 1


def test_a_solution_that_raises_gets_a_cross_naming_its_line(exercise):
    def broken(x):
        return x / 0 if x.sum() > 1e30 else [][1]  # noqa: PLE0643 - the IndexError is the point

    grade = teach.check("99.1", broken)
    assert not grade.passed and "IndexError" in str(grade) and "line" in str(grade)


def test_system_exit_in_a_solution_is_a_cross_not_an_exit(exercise):
    def leaves(x):
        sys.exit(3)

    assert "SystemExit" in str(teach.check("99.1", leaves))


def test_the_wrong_type_or_shape_is_a_cross(exercise):
    assert "want a numpy array" in str(teach.check("99.1", lambda x: list(doubled(x))))
    assert "shape (512,)" in str(teach.check("99.1", lambda x: doubled(x)[:512]))
    assert "None" in str(teach.check("99.1", lambda x: None))


def test_calling_configure_is_a_cross_and_the_learners_machine_comes_back(exercise):
    log, _ = _learner_program()

    def reconfigures(x):
        sandbox.configure("ascend310b")
        return doubled(x)

    grade = teach.check("99.1", reconfigures)
    assert not grade.passed and "sandbox.configure" in str(grade)
    assert sandbox.trace() is log


def test_a_thread_left_running_is_a_cross(exercise):
    def leaves_a_thread(x):
        threading.Thread(target=lambda: (sandbox.host_work(10**11, "later"), acl.rt.get_device())).start()
        return doubled(x)

    grade = teach.check("99.1", leaves_a_thread)
    assert not grade.passed and "still running when the solution returned" in str(grade)


def test_threads_the_solution_starts_and_joins_run_on_the_graders_machine(exercise):
    log, n = _learner_program()

    def with_a_thread(x):
        out = {}
        t = threading.Thread(target=lambda: acl.rt.set_device(0) or out.setdefault("y", doubled(x)))
        t.start()
        t.join()
        return out["y"]

    grade = teach.check("99.1", with_a_thread)
    assert grade.passed, str(grade)
    assert len(sandbox.trace()) == n


def test_a_solution_that_never_returns_is_stopped_by_the_time_limit(exercise):
    log, n = _learner_program()
    never = threading.Event()

    def hangs(x):
        acl.rt.get_device()
        never.wait()
        acl.rt.set_device(0)  # the grader gave up: this call unwinds the run

    grade = teach.check("99.1", hangs)
    assert not never.is_set()  # stopped by the grader's limit while the solution still hung
    assert not grade.passed and "did not return" in str(grade)
    never.set()
    assert acl.rt.get_device() == (1, 0) and len(sandbox.trace()) > n  # the learner's machine works


def test_a_wait_that_can_never_end_is_a_cross_not_a_hang(exercise):
    def waits_for_a_callback_nobody_processes(x):
        s, _ = acl.rt.create_stream()
        acl.rt.launch_callback(lambda data: None, None, acl.ACL_CALLBACK_BLOCK, s)
        acl.rt.synchronize_stream(s)
        return doubled(x)

    grade = teach.check("99.1", waits_for_a_callback_nobody_processes)
    assert not grade.passed and "runtime errors" in str(grade)


def test_the_stop_button_during_a_check_interrupts_the_cell_and_the_machine_stays_usable(exercise, monkeypatch):
    # the sandbox's hook, as a notebook has it (pytest puts its own around each test): a stop that
    # lands in a finalizer the collector runs meanwhile is sent again, not dropped
    monkeypatch.setattr(sys, "unraisablehook", python_threads._keeping_stops(sys.unraisablehook))
    log, n = _learner_program()
    release, woke = threading.Event(), []

    def slow(x):
        acl.rt.get_device()
        woke.append(release.wait(30))  # False: it waited the whole 30 s, the stop did not come through
        acl.rt.set_device(0)

    threading.Timer(0.3, _thread.interrupt_main).start()
    with pytest.raises(KeyboardInterrupt):
        teach.check("99.1", slow)
    assert woke == []  # the stop came while the learner's program was still waiting
    release.set()
    assert sandbox.trace() is log and acl.rt.get_device() == (1, 0)


def test_the_grader_owns_the_window_from_the_call_to_the_last_task(exercise):
    spans = []
    ex = exercise

    def judge(run):
        spans.append((run.span, run.tasks("kernel")))
        return [Check("x", True, "")]

    grading._REGISTRY["99.1"] = grading.Exercise(**{**ex.__dict__, "judge": judge})
    teach.check("99.1", lambda x: None)
    teach.check("99.1", doubled)
    assert spans[0][0] == 0 and not spans[0][1]
    assert spans[1][0] > 10_000 and len(spans[1][1]) == 1


def test_an_unknown_exercise_and_a_non_function_are_crosses(exercise):
    assert "no exercise '42.7'" in str(teach.check("42.7", doubled))
    assert "not a function" in str(teach.check("99.1", 42))


def test_the_exercise_list_names_every_notebook_exercise():
    listed = teach.exercises()
    assert [e.id for e in listed][:2] == ["01.1", "01.2"]
    assert "01.1  make it correct" in str(listed)


# -- the grader follows the data, the order, and keeps what it owns (issue 25) ---------------------------
def _computed_judge(run):
    shape, arr = run.answer((N,), np.int32)
    yield shape
    if arr is not None:
        yield check_equal(arr, 2 * run.inputs["x"])
        yield from run.computed(arr, kernels={"double": double}, inputs=("x",))


def _with_judge(ex, judge):
    grading._REGISTRY[ex.id] = grading.Exercise(**{**ex.__dict__, "judge": judge})


def _failed(grade) -> list[str]:
    return [c.what for c in grade.checks if not c.passed]


def test_a_kernel_is_known_by_its_code_not_its_name(exercise):
    _with_judge(exercise, _computed_judge)
    assert teach.check("99.1", doubled).passed

    @sandbox.kernel(ns=10_000)
    def double(x: "int32*", y: "int32*", n: int):  # the same name and signature, another body
        y[:n] = x[:n] + x[:n]

    def own_kernel(x):
        return doubled(x, kernel=double)

    grade = teach.check("99.1", own_kernel)
    assert _failed(grade) == ["computed on the device from the inputs"]
    assert "is not the notebook's double: its body or declared cost differs" in str(grade)


def test_a_wait_that_does_not_cover_the_copy_fails_however_late_it_returns(exercise):
    _with_judge(exercise, _computed_judge)

    def late_enough(s):
        other, _ = acl.rt.create_stream()
        sandbox.host_work(10_000_000)
        acl.rt.synchronize_stream(other)  # late enough, but it orders nothing of s

    def sleeps(x):
        return doubled(x, wait=late_enough)

    grade = teach.check("99.1", sleeps)
    assert "the host waited for the copy back" in _failed(grade)


def test_the_grader_keeps_its_own_inputs_and_a_returned_input_is_a_cross(exercise):
    _with_judge(exercise, _computed_judge)

    def zeroes_the_input(x):
        x[:] = 0  # the grader's expected values come from its own copy
        return doubled(x)

    failed = _failed(teach.check("99.1", zeroes_the_input))
    assert "computed on the device from the inputs" in failed and len(failed) == 2  # and the values differ

    grade = teach.check("99.1", lambda x: x)
    assert "the returned array is the input x" in str(grade) and not grade.passed


def test_a_learners_mark_named_like_the_graders_does_not_end_the_window(exercise):
    from sandbox.teach.checks import window

    spans = []

    def judge(run):
        spans.append(window(run.log, grading.START, grading.END))
        return [Check("x", True, "")]

    _with_judge(exercise, judge)

    def marks_early(x):
        teach.mark(grading.END)  # ends nothing: the window is the grader's
        return doubled(x)

    teach.check("99.1", marks_early)
    teach.check("99.1", doubled)
    assert spans[0][1] - spans[0][0] == spans[1][1] - spans[1][0] > 10_000  # the whole run, both times


def test_the_grader_opens_the_board_so_a_second_acl_init_is_a_cross_naming_the_convention(exercise):
    def opens_it_again(x):
        acl.init()  # 100002: the grader has already called it
        return doubled(x)

    grade = teach.check("99.1", opens_it_again)
    assert _failed(grade) == ["runtime errors"]
    assert "ACL_ERROR_REPEAT_INITIALIZE (100002)" in str(grade) and grading.BOARD_OPENED in str(grade)


def test_a_whole_program_exercise_leaves_the_board_to_the_solution(exercise):
    whole = teach.register(dataclasses.replace(exercise, id="99.2", whole_program=True))
    try:

        def whole_program(x):
            acl.init()
            acl.rt.set_device(0)
            y = doubled(x)
            acl.rt.reset_device(0)
            acl.finalize()
            return y

        assert teach.check(whole.id, whole_program).passed
        assert "ACL_ERROR_RT_CONTEXT_NULL" in str(teach.check(whole.id, doubled))  # nothing opened for it
    finally:
        grading._REGISTRY.pop(whole.id, None)
        grading._calls.pop(whole.id, None)


def test_a_failing_criterion_names_its_tasks_and_the_grades_picture_marks_them(exercise):
    import matplotlib.colors as mcolors
    from matplotlib.collections import PolyCollection

    from sandbox.viz import style

    teach.register(dataclasses.replace(exercise, kernels=(double,)))

    @sandbox.kernel(name="double", ns=1_000)  # the notebook's name, ten times cheaper
    def cheaper(x: "int32*", y: "int32*", n: int):
        y[:n] = 2 * x[:n]

    grade = teach.check("99.1", lambda x: doubled(x, kernel=cheaper))
    (launch,) = [r.task for r in grade.log if isinstance(r, tr.TaskSubmitted) and r.kind == "kernel"]
    assert _failed(grade) == ["the notebook's kernels"] and grade.marked == (launch,)
    assert f"tasks #{launch} double: grade.show() marks them" in str(grade)
    picture = grade.show()
    assert f"marked: tasks #{launch}" in picture.text
    outlines = [
        c
        for c in picture.figure.axes[0].collections
        if isinstance(c, PolyCollection)
        and len(c.get_edgecolor())
        and mcolors.same_color(c.get_edgecolor()[0], style.MARKED)
    ]
    assert len(outlines) == 1 and len(outlines[0].get_paths()) == 1
    assert not teach.check("99.1", doubled).marked  # a pass marks nothing


def test_the_hazard_hint_quotes_the_graded_runs_own_report(exercise):
    grade = teach.check("99.1", lambda x: doubled(x, wait=lambda s: None))  # reads before the copy lands
    (hazards,) = [c for c in grade.checks if c.what == "hazards"]
    first = next(r for r in grade.log if isinstance(r, tr.Hazard))
    assert not hazards.passed and hazards.hint.endswith(first.message) and "sandbox.hazards()" not in hazards.hint
    assert set(first.tasks) <= set(grade.marked)
    sandbox.set_language("zh")
    try:
        text = str(grade)
    finally:
        sandbox.set_language("en")
    assert "评分运行报告了" in text and first.message not in text  # the report itself in Chinese too


def test_a_solution_that_replaces_a_judge_gets_a_cross_and_the_judge_is_put_back(exercise):
    from sandbox.teach import checks

    original = grading.check_no_hazards

    def always_passes(*args, **kwargs):
        return Check("hazards", True, "none")

    def rewrites_the_grader(x):
        grading.check_no_hazards = checks.check_no_hazards = always_passes
        return doubled(x, wait=lambda s: None)  # a race the real judge reports

    grade = teach.check("99.1", rewrites_the_grader)
    assert _failed(grade) == ["the grader's code"] and "sandbox.teach.grading.check_no_hazards" in str(grade)
    assert grading.check_no_hazards is original and checks.check_no_hazards is original
    assert teach.check("99.1", doubled).passed


def test_a_solution_that_takes_its_hazard_reports_out_of_the_trace_gets_a_cross(exercise):
    def hides_its_race(x):
        y = doubled(x, wait=lambda s: None)
        records = sandbox.trace().records  # the list itself
        records[:] = [r for r in records if not isinstance(r, tr.Hazard)]
        return y

    grade = teach.check("99.1", hides_its_race)
    assert _failed(grade) == ["the graded trace"] and "1 of the run's 1 hazard reports" in str(grade)


def test_an_isolated_check_judges_in_a_fresh_interpreter_that_the_notebooks_changes_do_not_reach(exercise, monkeypatch):
    racy = _Racy()  # a module-level function of the tests: carried over by reference
    call = grading._calls.get("99.1", 0)
    same = teach.check("99.1", doubled)
    grading._calls["99.1"] = call
    isolated = teach.check("99.1", doubled, isolated=True)
    assert isolated.passed and str(isolated) == str(same)  # the same inputs, the same verdict
    assert isolated.log is not None and isolated.show().text == same.show().text

    monkeypatch.setattr(grading, "check_no_hazards", lambda *a, **k: Check("hazards", True, "none"))
    assert "hazards" not in _failed(teach.check("99.1", racy))  # the notebook's process was changed ...
    assert "hazards" in _failed(teach.check("99.1", racy, isolated=True))  # ... a fresh one was not


class _Racy:
    def __call__(self, x):
        return doubled(x, wait=lambda s: None)
