"""The verdict of a check: ``Grade``, one ✔/✘ line per criterion, the share met, and the graded run.

Its own module so that every kind of check (a run of a solution, grading.py; the answers of a
concept check, concepts.py) returns the same thing."""

from __future__ import annotations

import html
from typing import Iterable

from sandbox import i18n
from sandbox.core import trace as tr
from sandbox.viz.index import build_index
from sandbox.viz.picture import Picture
from sandbox.viz.plot_gantt import gantt_figure
from sandbox.viz.summary import timeline_summary
from sandbox.viz.timeline import LOGICAL

from .checks import FAIL, PASS, Check


# -- the verdict --------------------------------------------------------------------------------
class Grade:
    """The verdict on one check: ``passed``, and one ✔/✘ line per criterion with its hint."""

    def __init__(self, exercise_id: str, title: str, checks: Iterable[Check], note: str = "", log: list | None = None):
        self.exercise_id = exercise_id
        self.title = title
        self.checks = tuple(checks)
        self.note = note
        self.passed = bool(self.checks) and all(c.passed for c in self.checks)
        self.log = log  # the records of the graded run (None when the solution was not run)

    @property
    def marked(self) -> tuple[int, ...]:
        """The tasks the failing criteria name, in order."""
        return tuple(sorted({t for c in self.checks if not c.passed for t in c.tasks}))

    def _named(self, c: Check) -> str:
        """The tasks a failing criterion names, as the timeline labels them ("" if none)."""
        if c.passed or not c.tasks or self.log is None:
            return ""
        names = {r.task: r.name or r.kind for r in self.log if isinstance(r, tr.TaskSubmitted)}
        shown = [f"#{t} {names.get(t, '?')}" for t in c.tasks[:6]]
        more = f" (+{len(c.tasks) - 6})" if len(c.tasks) > 6 else ""
        return i18n.translate(f"tasks {', '.join(shown)}{more}: grade.show() marks them on the graded run")

    def show(self, view: str = LOGICAL, width: float = 10.0) -> Picture:
        """The grader's run of the solution as the notebooks' timeline, with the tasks of the failing
        criteria outlined (the learner's own machine was not used: this is the graded run)."""
        if self.log is None:
            raise ValueError(i18n.translate("this grade has no run to show: the solution was not run"))
        log = tr.TraceLog(self.log)
        ix = build_index(log)
        text = timeline_summary(ix, view)
        if self.marked:
            text += "\n" + i18n.translate(f"marked: tasks {', '.join(f'#{t}' for t in self.marked)}")
        return Picture(gantt_figure(ix, view, width=width, marked=self.marked), text)

    def __bool__(self) -> bool:
        return self.passed

    @property
    def score(self) -> float:
        """The share of criteria met, 0.0 to 1.0 (nbgrader's partial credit when a hidden test ends with it)."""
        return sum(c.passed for c in self.checks) / len(self.checks) if self.checks else 0.0

    @property
    def headline(self) -> str:
        failed = sum(not c.passed for c in self.checks)
        n = len(self.checks)
        verdict = (
            f"passed, all {n} criteria met"
            if self.passed
            else f"not yet: {failed} of {n} {'criterion' if n == 1 else 'criteria'} not met"
        )
        t = i18n.translate
        colon = "：" if i18n.language() == "zh" else ": "
        return f"{PASS if self.passed else FAIL} {self.exercise_id} \u00b7 {t(self.title)}{colon}{t(verdict)}"

    def __str__(self) -> str:
        lines = [self.headline]
        for c in self.checks:
            lines.append("  " + str(c))
            named = self._named(c)
            if named:
                lines.append("      " + named)
        if self.note:
            lines.append("  " + i18n.translate(self.note))
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        t = i18n.translate
        colon = "：" if i18n.language() == "zh" else ": "

        def row(c: Check) -> str:
            colour = "#1a7f37" if c.passed else "#b35900"
            hint = (
                f"<br><span style='color:#555'>{t('hint')}{colon}{html.escape(t(c.hint))}</span>"
                if c.hint and not c.passed
                else ""
            )
            named = self._named(c)
            if named:
                hint += f"<br><span style='color:#555'>{html.escape(named)}</span>"
            return (
                f"<li style='list-style:none'><span style='color:{colour}'>{PASS if c.passed else FAIL}</span> "
                f"<b>{html.escape(t(c.what))}</b>{colon}{html.escape(t(c.detail))}{hint}</li>"
            )

        colour = "#1a7f37" if self.passed else "#b35900"
        note = f"<p style='margin:2px 0'>{html.escape(t(self.note))}</p>" if self.note else ""
        return (
            f"<div><p style='margin:2px 0;color:{colour}'><b>{html.escape(self.headline)}</b></p>"
            f"<ul style='margin:2px 0;padding-left:1em'>{''.join(row(c) for c in self.checks)}</ul>{note}</div>"
        )
