"""Exercises and their grader: ``check(exercise_id, solution)`` runs the learner's solution.

A check never trusts what the learner's own program did before: it builds a fresh simulated
machine as the exercise says (profile, devices), generates the inputs (seeded: the n-th check
of an exercise in a process always gets the same inputs, and the next check other ones, so a
remembered answer fails while a notebook still re-runs the same), and calls ``solution`` on a
host thread of that machine.  Then it judges the whole run from the trace and the buffers:

* the run itself: the solution returned (a solution that raises, times out, calls
  ``sandbox.configure`` or leaves threads running gets a ✘ saying so, never a traceback);
* the rules every program keeps: no failed runtime call, no hazard;
* what the exercise states: where the answer came from (see provenance.py), the structure
  (streams, events, kernels, devices), and the numbers (time, overlap, bytes, memory).

The learner's own machine is never touched: the solution's thread, and every thread it
starts, is bound to the grader's machine (``core.machine.bound``).
"""

from __future__ import annotations

import threading
import time
import traceback
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from sandbox import i18n
from sandbox.core import current_machine
from sandbox.core import trace as tr
from sandbox.core.errors import RunAborted
from sandbox.core.hazards import HazardWarning
from sandbox.core.machine import Machine, bound
from sandbox.core.python_threads import _original_join
from sandbox.core.host_turns import thread_finished


from . import concepts as _concepts
from .checks import Check, check_no_errors, check_no_hazards
from .provenance import KERNEL, ORIGIN_WORDS, Recorder, kernel_key
from .seal import Seal
from .verdict import Grade

START, END = "solution start", "solution end"  # the grader's marks around the run

BOARD = (
    "The grader opens the board before it calls your function: acl.init() has run and device 0 is "
    "set on your thread. Your function creates and releases what it uses (streams, events, memory, "
    "other devices). An exercise whose subject is the whole program says so, and there your "
    "function opens and closes the board itself."
)

BOARD_OPENED = "the grader has already called acl.init() and set device 0: leave both out of your function"


def open_board() -> None:
    """The grader's part of every exercise (``BOARD``): aclInit, and device 0 current."""
    from sandbox import acl

    acl.init()
    acl.rt.set_device(0)


@dataclass(frozen=True)
class Exercise:
    """One exercise: what the learner practises and how a run of a solution is judged.

    ``inputs(rng)`` makes the keyword arguments of ``solution``; ``prepare(inputs)`` runs on
    the grader's machine before the solution (for example ``acl.init``) and may add
    arguments; ``judge(run)`` returns the exercise's own checks.
    """

    id: str
    title: str
    practises: str
    inputs: Callable[[np.random.Generator], dict]
    judge: Callable[["Run"], Iterable[Check]]
    profile: str = "ascend910b"
    devices: int | None = None
    prepare: Callable[[dict], dict | None] | None = None
    signature: str = "solution()"
    allow_errors: bool | str = False  # the exercise is about a failing call (a str: why)
    time_limit_s: float = 30.0
    kernels: tuple = ()  # the notebook's kernels the solution launches (Kernel objects): known by their code
    whole_program: bool = False  # the solution opens and closes the board itself (see BOARD)

    @property
    def notebook(self) -> str:
        return self.id.split(".")[0]


_REGISTRY: dict[str, Exercise] = {}


def register(exercise: Exercise) -> Exercise:
    """Add an exercise (the exercise modules in sandbox/teach/exercise_sets call this)."""
    _REGISTRY[exercise.id] = exercise
    return exercise


def _load() -> dict[str, Exercise]:
    from . import exercise_sets as _modules  # noqa: F401  (importing registers them)

    return _REGISTRY


def _key(exercise_id: str) -> tuple:
    """Sort key of an exercise id: by notebook number, then its letter ("09", "09b"), then number."""
    notebook, _, rest = exercise_id.partition(".")
    digits = notebook.rstrip("abcdefghijklmnopqrstuvwxyz")
    head = (int(digits), notebook[len(digits) :]) if digits.isdigit() else (1 << 30, notebook)
    return head + tuple(int(p) if p.isdigit() else p for p in rest.split(".") if p)


@dataclass(frozen=True)
class ExerciseInfo:
    id: str
    title: str
    practises: str
    signature: str

    def __str__(self) -> str:
        colon = "：" if i18n.language() == "zh" else ": "
        return f"{self.id}  {self.title}{colon}{self.practises}"


class ExerciseList(list):
    """The exercises, one line each when printed."""

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self)

    __repr__ = __str__


def exercises() -> ExerciseList:
    """Every exercise in the notebooks, in order: id (``"02.1"``), title, what it practises,
    in the language of ``sandbox.set_language`` (the signature is code and stays as it is)."""
    reg = _load()
    t = i18n.translate
    return ExerciseList(
        ExerciseInfo(e.id, t(e.title), t(e.practises), e.signature)
        for e in sorted(reg.values(), key=lambda e: _key(e.id))
    )


# -- a run, as the judges see it ---------------------------------------------------------------------
@dataclass
class Run:
    """What a judge reads: the inputs, what the solution returned, and the graded machine."""

    exercise: Exercise
    inputs: dict
    machine: Machine
    recorder: Recorder
    result: object = None
    start: int = 0
    end: int = 0
    knows: dict = field(default_factory=dict)  # what the solution's thread knew was done, as it returned
    _index: object = field(default=None, repr=False)

    @property
    def log(self):
        return self.machine.log

    @property
    def span(self) -> int:
        """Virtual time from the solution's call to the end of its last device task, in ns."""
        return self.end - self.start

    @property
    def index(self):
        if self._index is None:
            from sandbox.viz.index import build_index

            self._index = build_index(self.log)
        return self._index

    def records(self, kind):
        return [r for r in self.log if isinstance(r, kind)]

    def calls(self, *names: str) -> list:
        """The runtime calls the run made (of these C names), in order."""
        return [c for c in self.records(tr.ApiCall) if not names or c.name in names]

    def tasks(self, *kinds: str) -> list:
        """Submitted device tasks (of these kinds: "kernel", "memcpy", ...), in order."""
        return [t for t in self.records(tr.TaskSubmitted) if not kinds or t.kind in kinds]

    # -- the answer ------------------------------------------------------------------------------
    def answer(self, shape, dtype, what: str = "the returned array") -> tuple[Check, np.ndarray | None]:
        """The result as an array of ``shape``/``dtype``, or a ✘ saying what came back instead."""
        r = self.result
        want = f"a numpy array of shape {tuple(shape)} and dtype {np.dtype(dtype).name}"
        if not isinstance(r, np.ndarray):
            got = "None (did the function end without a return?)" if r is None else f"a {type(r).__name__}"
            return Check("what came back", False, f"{got}, want {want}", "return the array you copied back"), None
        if r.shape != tuple(shape) or r.dtype != np.dtype(dtype):
            return Check(
                "what came back",
                False,
                f"shape {r.shape} {r.dtype.name}, want {want}",
                "view the host buffer with acl.util.ptr_to_numpy(ptr, shape, dtype) and copy it",
            ), None
        return Check("what came back", True, f"{what}: {want}"), r

    def waits_for(self, waiting: set, recording: set) -> list:
        """The event waits queued on a stream of ``waiting`` for an event recorded on a stream of
        ``recording`` (the device ordering them, not the host)."""
        ix = self.index
        return [
            t
            for t in ix.tasks.values()
            if t.kind == "event_wait"
            and t.stream in waiting
            and t.waits_on in ix.tasks
            and ix.tasks[t.waits_on].stream in recording
        ]

    def knew(self, task_ids) -> bool:
        """Had the solution's thread learnt, by waits the trace shows cover them (a synchronize of
        their stream, event or device, a query that answered "complete", a join of a thread that
        did), that all these tasks were done, by the time it returned?  (Order: a sleep, or a wait on
        something else that happened to end later, teaches the host nothing.)"""
        clocks = self.recorder.clocks
        return all(t in clocks and self.knows.get(clocks[t][0], 0) >= t for t in task_ids)

    def ordered(self, first: int, then: int) -> bool:
        """Does task ``first`` happen before task ``then`` by the rules the runtime guarantees (stream
        order, events, a host that waited before it submitted ``then``)?"""
        clocks = self.recorder.clocks
        return first in clocks and then in clocks and clocks[then][1].get(clocks[first][0], 0) >= first

    def check_kernels(self, kernels: dict) -> Check:
        """Every launch of a kernel named like one of the notebook's ``kernels`` (name -> Kernel) runs
        that kernel: the same body and declared costs (a kernel of one's own with the notebook's name
        is not the notebook's)."""
        wanted = {name: kernel_key(k) for name, k in kernels.items()}
        other = sorted({name for name, key in self.recorder.kernels.values() if name in wanted and key != wanted[name]})
        tasks = tuple(t for t, (name, _) in sorted(self.recorder.kernels.items()) if name in other)
        return Check(
            "the notebook's kernels",
            not other,
            f"kernel {other[0]!r} is not the notebook's {other[0]}: its body or declared cost differs"
            if other
            else f"every launch of {', '.join(repr(n) for n in sorted(wanted))} ran the notebook's kernel",
            "launch the notebook's kernels as they are: a kernel of your own under their name is not what "
            "the exercise measures",
            tasks=tasks,
        )

    def computed(
        self, array: np.ndarray, *, kernels: dict, inputs: tuple[str, ...], what: str = "the answer"
    ) -> Iterable[Check]:
        """The bytes of ``array`` came back from the device by a copy the host waited for (order),
        and were computed by the exercise's ``kernels`` (name -> the notebook's function, compared by
        code) from the grader's ``inputs`` only, through copies of them."""
        origin, words, landing = self.recorder.trace_back(np.ascontiguousarray(array).tobytes())
        if landing is None:
            yield Check(
                "the answer came from the device",
                False,
                f"{what} did not come from the device: {words}",
                "compute it with a kernel on the device, copy it back with a device-to-host copy, and "
                "synchronise before you read the host buffer",
            )
            return
        knew = self.knew([landing.task])
        yield Check(
            "the host waited for the copy back",
            knew,
            f"a wait of the host covers the copy that brought {what} back (task {landing.task})"
            if knew
            else f"no synchronize, query or event wait of the host covers the copy that brought {what} "
            f"back (task {landing.task}): the bytes were there by chance of timing, not by the order "
            "the runtime guarantees",
            "wait for the stream (or an event recorded after the copy, or the device) before you read "
            "the host buffer: a wait on another stream, or a sleep, does not order the copy",
            tasks=(landing.task,),
        )
        flows = [f for _, _, f in landing.flows]
        problems = []
        leaves = frozenset().union(*(f.sources for f in flows)) if flows else frozenset()
        not_computed = sorted({f.kind for f in flows if f.kind != "kernel"})
        if not_computed:
            problems.append(f"some bytes were not computed by a kernel ({', '.join(not_computed)})")
        wanted = {name: kernel_key(k) for name, k in kernels.items()}
        ran = {pair for f in flows for pair in f.kernels}
        foreign = {pair for pair in ran if wanted.get(pair[0]) != pair[1]}
        for name, _ in sorted(foreign, key=lambda p: p[0]):
            problems.append(
                f"kernel {name!r} that computed them is not the notebook's {name}: its body or declared cost differs"
                if name in wanted
                else f"kernel {name!r} computed them, not {' or '.join(sorted(wanted))}"
            )
        missing = [n for n in inputs if f"input {n}" not in leaves]
        if missing:
            problems.append(f"not from the grader's {', '.join(missing)}")
        if "host" in leaves or "other" in leaves:
            problems.append("from data the host made, not the grader's inputs")
        ok = not problems
        names = ", ".join(repr(n) for n in sorted(wanted)) or "a kernel"
        yield Check(
            "computed on the device from the inputs",
            ok,
            f"{what} was computed by {names} from {', '.join(inputs)}, through copies of them"
            if ok
            else f"{what} was not computed by {names} from {', '.join(inputs)} alone: " + "; ".join(problems),
            f"copy {', '.join(inputs)} as given to the device and let {names} compute {what} there: "
            "work done on the host (or by a kernel of your own) before the upload is not the device's",
            tasks=tuple(t for t, pair in sorted(self.recorder.kernels.items()) if pair in foreign) or (landing.task,),
        )

    def from_device(self, array: np.ndarray, *, computed: bool = True, what: str = "the answer") -> Check:
        """The bytes of ``array`` are what device-to-host copies brought back (and, if
        ``computed``, what kernels computed on the device), landed before they were read."""
        origin, words, landing = self.recorder.trace_back(np.ascontiguousarray(array).tobytes())
        need = KERNEL if computed else 1
        ok = landing is not None and origin >= need and self.knew([landing.task])
        if ok:
            detail = f"{what} is what the device-to-host copies brought back; {ORIGIN_WORDS[origin]}"
        elif landing is not None and origin >= need:
            detail = (
                f"{what} came back by a copy (task {landing.task}) that no synchronize, query or event wait "
                "of the host covers: read before the host knew it had landed"
            )
        else:
            detail = f"{what} did not come from the device: {words}"
        hint = (
            "compute it with a kernel on the device, copy it back with a device-to-host copy, and "
            "synchronise before you read the host buffer"
            if computed
            else "copy it back from the device and synchronise before you read it"
        )
        tasks = (landing.task,) if landing is not None and not ok else ()
        return Check("the answer came from the device", ok, detail, hint, origin, tasks)


# -- running a solution --------------------------------------------------------------------------
_calls: dict[str, int] = {}


def _rng(exercise_id: str) -> np.random.Generator:
    n = _calls.get(exercise_id, 0)
    _calls[exercise_id] = n + 1
    return np.random.default_rng([zlib.crc32(exercise_id.encode()), n])


def _where(exc: BaseException) -> str:
    """The learner's line that raised (the last frame outside the sandbox package)."""
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if "/sandbox/" not in f.filename.replace("\\", "/") and f.filename != threading.__file__
    ]
    if not frames:
        return ""
    f = frames[-1]
    return f" (in {f.name}, line {f.lineno}: {f.line.strip()})" if f.line else f" (in {f.name}, line {f.lineno})"


def _abort(m: Machine, reason: str) -> None:
    """Make the run unwind at its next runtime call, and wake whoever waits for a turn."""
    m.aborted = reason
    if m.lock.acquire(timeout=0.5):
        try:
            m.scheduler.changed()
        finally:
            m.lock.release()


class _Outcome:
    def __init__(self):
        self.result = None
        self.error: BaseException | None = None
        self.aborted = False
        self.start = self.end = 0
        self.tid = 0
        self.unjoined: list[str] = []
        self.finished = False
        self.knows: dict = {}


def _run(m: Machine, exercise: Exercise, solution, inputs: dict, outcome: _Outcome) -> None:
    """The body of the solution's host thread, on the grader's machine."""
    with bound(m):
        try:
            if not exercise.whole_program:
                open_board()
            if exercise.prepare is not None:
                inputs.update(exercise.prepare(inputs) or {})
            with m.lock:
                th = m.current_thread()
                outcome.start, outcome.tid = th.clock, th.tid
                m.log.append(tr.Note(th.clock, th.tid, START))
            outcome.result = solution(**inputs)
        except RunAborted:
            outcome.aborted = True
        except BaseException as exc:  # noqa: BLE001 - SystemExit and all: a ✘, not a dead notebook
            outcome.error = exc
        finally:
            try:
                with m.lock:
                    th = m.current_thread()
                    outcome.end = th.clock
                    outcome.unjoined = [t.name for t in m.scheduler.threads if not t.finished and t is not th]
                    outcome.knows = dict(m.hazards.host_vc.get(th.tid, {}))
                    thread_finished(m, th)  # the device side runs to the end of what was queued
            except BaseException:  # noqa: BLE001 - the run was aborted mid-way
                pass
            outcome.finished = True


def check(exercise_id: str, solution, isolated: bool = False) -> Grade:
    """Run ``solution`` on a fresh machine the exercise configures, with inputs the grader
    generates, and judge the run.  The learner's machine and its trace are untouched.

    ``isolated=True`` runs the check in a fresh interpreter (isolated.py): what the notebook
    did to its own process, such as replacing a judge, cannot change the grade.  It costs a
    process start; the nbgrader hidden tests use it, the notebooks' own checks do not."""
    quiz = _concepts.quizzes().get(exercise_id)
    if quiz is not None:  # a concept check: answers, not a program (concepts.py)
        if isolated:
            return _in_fresh_interpreter(quiz, quiz.heading(), solution, 0)
        return _concepts.grade_answers(quiz, solution)
    reg = _load()
    exercise = reg.get(exercise_id)
    if exercise is None:
        known = ", ".join(sorted(reg, key=_key))
        return Grade(
            str(exercise_id),
            "unknown exercise",
            [Check("exercise", False, f"no exercise {exercise_id!r}", f"the exercises are {known}")],
        )
    if not callable(solution):
        return Grade(
            exercise.id,
            exercise.title,
            [
                Check(
                    "the solution ran",
                    False,
                    f"got a {type(solution).__name__}, not a function",
                    f"pass the function itself: sandbox.teach.check({exercise.id!r}, solution)",
                )
            ],
        )
    if isolated:
        call = _calls.get(exercise.id, 0)
        _calls[exercise.id] = call + 1
        return _in_fresh_interpreter(exercise, exercise.title, solution, call)
    private = exercise.inputs(_rng(exercise.id))  # the grader's: what the learner does to theirs changes nothing
    inputs = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in private.items()}
    given = {k: v for k, v in inputs.items() if isinstance(v, np.ndarray)}
    m = Machine(exercise.profile, exercise.devices)
    recorder = Recorder.attach(m)
    recorder.inputs = {k: np.ascontiguousarray(v).tobytes() for k, v in private.items() if isinstance(v, np.ndarray)}
    learner_machine = current_machine._current
    outcome = _Outcome()
    worker = threading.Thread(target=_run, args=(m, exercise, solution, inputs, outcome), name="main", daemon=True)
    worker._sandbox_grading = True  # type: ignore[attr-defined]  # its threads take part in the turn order (core/host_turns.py)
    crashed: list[tuple[str, BaseException]] = []  # threads of the run that raised: graded, not printed
    learner_hook = threading.excepthook

    def hook(args):
        entry = getattr(args.thread, "_sandbox_thread", None)
        if entry is not None and entry[0] is m:
            crashed.append((entry[1].name, args.exc_value))
        else:
            learner_hook(args)

    threading.excepthook = hook
    seal = Seal()
    with warnings.catch_warnings(record=True) as warned:  # hazards are graded below, not printed
        warnings.simplefilter("always")
        try:
            worker.start()
            deadline = time.monotonic() + exercise.time_limit_s
            while worker.is_alive() and time.monotonic() < deadline:
                _original_join(worker, 0.05)
            timed_out = worker.is_alive()
            if timed_out:
                _abort(m, "the grader's time limit")
                _original_join(worker, 1.0)
            if not timed_out:
                _wait_for_threads(m)
        except KeyboardInterrupt:  # the stop button: stop the run, give the cell back
            _abort(m, "interrupted")
            _original_join(worker, 1.0)
            raise
        finally:
            threading.excepthook = learner_hook
            configured = current_machine._current is not learner_machine
            current_machine._current = learner_machine
    run = Run(
        exercise,
        {**inputs, **private},  # what prepare added, and the grader's own inputs
        m,
        recorder,
        outcome.result,
        outcome.start,
        max(outcome.end, m.sim.now) if outcome.finished else m.sim.now,
        outcome.knows,
    )
    with m.lock:
        m.log.append(tr.Note(run.end, outcome.tid, END))
    records = list(run.log.records)
    tampered = _tampered(seal, warned, records)
    if tampered:
        return Grade(exercise.id, exercise.title, tampered, "Nothing else is judged: the grader's means were changed.")
    lines = _run_lines(exercise, outcome, timed_out, configured, outcome.unjoined, crashed)
    lines += _aliases(outcome.result, given, recorder)
    if not all(lines):
        return Grade(
            exercise.id,
            exercise.title,
            lines,
            "The other criteria are judged once the solution runs to its end.",
            records,
        )
    lines += [_errors(run), _hazards(run)]
    try:
        lines += list(exercise.judge(run))
        if exercise.kernels:
            lines.append(run.check_kernels({k.name: k for k in exercise.kernels}))
    except Exception as exc:  # noqa: BLE001 - a judge tripping on odd output
        lines.append(
            Check(
                "the answer",
                False,
                f"could not be judged: {type(exc).__name__}: {exc}",
                "return what the exercise asks for",
            )
        )
    return Grade(exercise.id, exercise.title, lines, log=records)


def _in_fresh_interpreter(checked, title: str, solution, call: int) -> Grade:
    """``check(..., isolated=True)``: the grade isolated.py reads back, or its ✘ line as a grade."""
    from . import isolated as _isolated

    graded = _isolated.run(checked, solution, call)
    return graded if isinstance(graded, Grade) else Grade(checked.id, title, [graded])


def _tampered(seal: Seal, warned: list, records: list) -> list[Check]:
    """A ✘ for a run that rewrote the sandbox's code (put back at once) or took hazard reports
    out of the graded trace (each was also warned, and the grader kept the warnings)."""
    lines = []
    changed = seal.broken()
    if changed:
        more = f" (+{len(changed) - 3})" if len(changed) > 3 else ""
        lines.append(
            Check(
                "the grader's code",
                False,
                f"the solution replaced {', '.join(changed[:3])}{more} (put back now)",
                "a solution computes its answer with the runtime; it leaves the sandbox's own code as it is",
            )
        )
    reports = sum(issubclass(w.category, HazardWarning) for w in warned)
    kept = sum(isinstance(r, tr.Hazard) for r in records)
    if reports > kept:
        lines.append(
            Check(
                "the graded trace",
                False,
                f"{reports - kept} of the run's {reports} hazard reports were taken out of the trace",
                "the trace is the grader's record of the run: fix the hazard instead (sandbox.hazards() names it)",
            )
        )
    return lines


def _wait_for_threads(m: Machine, seconds: float = 2.0) -> None:
    """Threads the solution started and did not join get a little real time to end; then
    the run is stopped, so that nothing of it goes on behind the learner's back."""
    deadline = time.monotonic() + seconds
    while True:
        with m.lock:
            left = [t.name for t in m.scheduler.threads if not t.finished]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    if left:
        _abort(m, "threads left running")


def _run_lines(
    exercise: Exercise,
    outcome: _Outcome,
    timed_out: bool,
    configured: bool,
    leftover: list[str],
    crashed: list | tuple = (),
) -> list[Check]:
    lines = []
    err = outcome.error
    if timed_out or outcome.aborted:
        lines.append(
            Check(
                "the solution ran",
                False,
                f"it did not return within {exercise.time_limit_s:.0f} s of real time",
                "is it waiting for something that never happens (a threading.Event, a queue, "
                "a join of a thread that waits for you)?",
            )
        )
    elif isinstance(err, NotImplementedError):
        lines.append(
            Check(
                "the solution ran",
                False,
                "it raised NotImplementedError: there is no solution yet",
                "replace the lines '# YOUR CODE HERE' and 'raise NotImplementedError()' with your code",
            )
        )
    elif err is not None:
        lines.append(
            Check(
                "the solution ran",
                False,
                f"it raised {type(err).__name__}: {err}{_where(err)}",
                "fix the line named; every runtime call returns a code you can check, and "
                "acl.get_recent_err_msg() says why a call failed",
            )
        )
    else:
        lines.append(Check("the solution ran", True, f"it returned {_kind(outcome.result)}"))
    for name, exc in crashed[:1]:
        more = f" (and {len(crashed) - 1} more thread(s))" if len(crashed) > 1 else ""
        lines.append(
            Check(
                "the threads ran",
                False,
                f"thread {name!r} raised {type(exc).__name__}: {exc}{_where(exc)}{more}",
                "an exception ends its own thread only, so that thread's work is missing: fix what the message names",
            )
        )
    if configured:
        lines.append(
            Check(
                "the grader's machine",
                False,
                "the solution called sandbox.configure()",
                "leave the machine to the grader: it builds a fresh one for every check",
            )
        )
    if leftover:
        lines.append(
            Check(
                "threads joined",
                False,
                f"still running when the solution returned: {', '.join(repr(n) for n in leftover)}",
                "join every thread you start before the function returns",
            )
        )
    return lines


def _aliases(result, given: dict, recorder: Recorder) -> list[Check]:
    """A returned array must be the solution's own: not (a view of) an input the grader gave, nor a
    view of host memory freed before it returned (its bytes are no longer the program's)."""
    if not isinstance(result, np.ndarray):
        return []
    for name, array in given.items():
        if np.shares_memory(result, array):
            return [
                Check(
                    "what came back",
                    False,
                    f"the returned array is the input {name} (or a view of it), not a result",
                    "return the array you copied back from the device",
                )
            ]
    for buf, _ in recorder.flows.values():
        storage = getattr(buf, "_storage", None)
        if getattr(buf, "freed", False) and storage is not None and np.shares_memory(result, storage):
            return [
                Check(
                    "what came back",
                    False,
                    "the returned array is a view of host memory freed before the function returned",
                    "copy the result out of the host buffer (.copy()) before you free it",
                )
            ]
    return []


def _kind(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} {value.dtype.name}"
    return f"a {type(value).__name__}"


def _hazards(run: Run) -> Check:
    """No hazard in the graded run; a ✘ quotes the run's first report (the learner's own
    ``sandbox.hazards()`` is of another machine) and names its tasks."""
    found = [r for r in run.log if isinstance(r, tr.Hazard)]
    if not found:
        return check_no_hazards(run.log)
    return check_no_hazards(run.log, hint=f"the graded run reported {len(found)}; the first: {found[0].message}")


def _errors(run: Run) -> Check:
    if run.exercise.allow_errors:
        why = run.exercise.allow_errors
        why = why if isinstance(why, str) else "this exercise is about a failing call"
        return Check("runtime errors", True, f"judged below: {why}")
    first = next((r for r in run.log if isinstance(r, tr.ErrorRaised)), None)
    if first is not None and first.api == "aclInit" and not run.exercise.whole_program:
        return check_no_errors(run.log, hint=BOARD_OPENED)
    return check_no_errors(run.log)
