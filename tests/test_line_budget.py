"""The kernel stays readable in one sitting: sandbox/core has a line budget."""

from __future__ import annotations

from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "sandbox" / "core"
LINE_BUDGET = 7_000


def test_the_kernel_fits_its_line_budget():
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in CORE.glob("*.py"))
    assert lines <= LINE_BUDGET, f"sandbox/core has {lines} lines, over its budget of {LINE_BUDGET}"
