"""Run a program one step at a time, with the dashboard showing the log after each step.

A program is either a generator function that yields after each step (the yielded
value, if a string, names the step), or a list of callables, one per step.  The
runtime runs each call at once; the dashboard then shows the log as it stands.
"""

from __future__ import annotations

import inspect

import ipywidgets as widgets

from sandbox import i18n

from sandbox.widgets.dashboard import Dashboard


class StepThrough(widgets.VBox):
    """A "next step" button over a program, with a Dashboard that follows it."""

    def __init__(self, program, log_source, width: float = 10.0):
        """``log_source`` is a callable returning the current trace log (for example
        ``sandbox.trace``); it is asked again after every step."""
        self._log_source = log_source
        self._steps = _as_steps(program)
        self.done_steps: list[str] = []
        self.finished = False
        self.error: str | None = None
        self.next_button = widgets.Button(description=i18n.text("next step ▶"))
        self.rest_button = widgets.Button(description=i18n.text("run to end ▶▶"))
        self.status = widgets.Label()
        self.dashboard = Dashboard(log_source(), width=width)
        self.next_button.on_click(lambda _b: self._guarded(self.step))
        self.rest_button.on_click(lambda _b: self._guarded(self.run))
        self._update_status()
        super().__init__([widgets.HBox([self.next_button, self.rest_button, self.status]), self.dashboard])

    def step(self) -> str | None:
        """Run the next step; returns its name, or None when the program has ended."""
        if self.finished:
            return None
        try:
            name = next(self._steps)
        except StopIteration:
            self.finished = True
            ran = None
        else:
            ran = name or f"step {len(self.done_steps) + 1}"
            self.done_steps.append(ran)
        self.dashboard.refresh(self._log_source())
        self._update_status()
        return ran

    def run(self) -> int:
        """Run every remaining step; returns how many ran."""
        n = 0
        while self.step() is not None:
            n += 1
        return n

    def _guarded(self, action) -> None:
        """Button clicks have no cell to raise into: show the error in the status line."""
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - shown to the learner
            self.error = f"{type(exc).__name__}: {exc}"
            self.finished = True
            self._update_status()

    def _update_status(self) -> None:
        done = len(self.done_steps)
        state = i18n.text("finished") if self.finished else i18n.text("{} step{} run", done, "s" if done != 1 else "")
        if self.error:
            state = i18n.text("stopped by {}", self.error)
        self.status.value = i18n.text("{}: {}", state, self.done_steps[-1]) if done else state
        self.next_button.disabled = self.rest_button.disabled = self.finished
        if self.finished:
            why = (
                i18n.text("stopped: the last step raised {}", self.error)
                if self.error
                else i18n.text("the program has run to its end: no step left")
            )
            self.next_button.tooltip = self.rest_button.tooltip = why
        else:
            self.next_button.tooltip = i18n.text("run the next step")
            self.rest_button.tooltip = i18n.text("run every remaining step")

    def __repr__(self) -> str:
        return f"StepThrough({self.status.value}); {self.dashboard!r}"

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs) or {}
        snap = self.dashboard._repr_mimebundle_()
        data["text/plain"] = repr(self)
        data["image/png"] = snap["image/png"]
        return data


def _as_steps(program):
    """An iterator that runs one step per ``next`` and yields the step's name or None."""
    if inspect.isgeneratorfunction(program):
        program = program()
    if inspect.isgenerator(program):
        return (v if isinstance(v, str) else None for v in program)
    steps = list(program)
    if not all(callable(s) for s in steps):
        raise TypeError("a program is a generator (function) or a list of callables")

    def run():
        for s in steps:
            s()
            name = getattr(s, "__name__", "")
            yield None if name == "<lambda>" else (name or None)

    return run()
