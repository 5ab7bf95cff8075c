"""Exercises: marks in the trace and graders that read it.

    sandbox.teach.exercises()                  # every exercise in the notebooks
    sandbox.teach.check("02.1", solution)      # run a solution on a fresh machine, judge the run
    sandbox.teach.check("02.1", solution, isolated=True)   # the same, in a fresh interpreter
    sandbox.teach.questions("02.concepts")     # a notebook's concept check: questions to answer
    sandbox.teach.check("02.concepts", answers)   # answers() returns {1: "b", 2: "a", ...}
    grade.show()                               # the graded run, the tasks of its ✘ lines outlined
    print(sandbox.teach.BOARD)                 # who opens the device: the grader, for every exercise

    from sandbox import teach
    teach.mark("start")              # a named moment of the calling thread's virtual time
    ...                              # the learner's attempt
    teach.mark("end")
    teach.grade(teach.check_overlap(at_least_fraction=0.8, start="start", end="end"),
                teach.check_syncs(at_most=1))

The graders live in ``checks`` and are pure functions of the trace log; ``mark`` is the
one helper here that writes to the log (a Note record, which every view can show).
"""

from __future__ import annotations

from sandbox.core.machine import current as _current
from sandbox.core.trace import Note

from .checks import *  # noqa: F403
from .checks import Check, Checks, grade  # noqa: F401
from .concepts import Question, Quiz, questions, register_quiz  # noqa: F401
from .grading import BOARD, Exercise, Run, check, exercises, register  # noqa: F401
from .verdict import Grade  # noqa: F401


def mark(text: str) -> int:
    """Put a named mark (a Note record) in the trace at the calling thread's virtual time.

    Graders take marks as the ``start``/``end`` of the stretch they grade.  Returns the time.
    """
    m = _current()
    with m.lock:
        th = m.current_thread()
        m.scheduler.wait_turn(th)
        m.log.append(Note(th.clock, th.tid, str(text)))
        return th.clock
