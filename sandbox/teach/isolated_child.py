"""The fresh interpreter of an isolated check (isolated.py): read the solution, check it, write the grade."""

from __future__ import annotations

import pickle
import sys


def _main(out: str) -> None:
    """The child: read the solution from stdin, check it, write the grade to ``out``."""
    exercise, solution, call, language = pickle.loads(sys.stdin.buffer.read())
    import sandbox
    from sandbox.teach import grading

    sandbox.set_language(language)
    if not isinstance(exercise, str):  # an exercise of the teacher's own, carried over
        exercise = grading.register(exercise).id
    grading._calls[exercise] = call
    grade = grading.check(exercise, solution)
    with open(out, "wb") as f:
        pickle.dump(grade, f)


if __name__ == "__main__":
    _main(sys.argv[1])
