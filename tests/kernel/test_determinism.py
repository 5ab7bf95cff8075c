"""The same program gives an identical trace, run after run."""

from __future__ import annotations

import sandbox
from test_vector_add import run_vector_add


def test_the_same_program_gives_an_identical_trace():
    runs = []
    for _ in range(3):
        sandbox.configure()
        run_vector_add(4096)
        runs.append([repr(r) for r in sandbox.trace()])
    assert runs[0] == runs[1] == runs[2]
