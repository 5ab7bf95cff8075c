"""The public entry points: each takes an optional log and otherwise uses the current
machine's log (``sandbox.trace()``).

This is the one module that reaches up to the package top, so every other view module
stays a pure function of the log it is given.
"""

from __future__ import annotations

from sandbox.core.current_machine import current
from sandbox.export.chrome_trace import export_trace as _export
from sandbox.viz.index import build_index
from sandbox.viz.picture import Picture, Text
from sandbox.viz.plot_gantt import KIND, gantt_figure
from sandbox.viz.plot_memory import memory_figure
from sandbox.viz.plot_queues import queues_figure
from sandbox.viz.summary import memory_summary, queues_summary, timeline_summary, trace_summary
from sandbox.viz.timeline import LOGICAL
from sandbox.widgets.dashboard import Dashboard
from sandbox.widgets.stepper import StepThrough


def current_log():
    """The trace log of the machine the learner's calls run on."""
    return current().log


def _log(log):
    return current_log() if log is None else log


def _at(ix, t):
    return ix.t_end if t is None else int(t)


def show(log=None, t: int | None = None, view: str = LOGICAL, colour_by: str = KIND) -> Dashboard:
    """The dashboard (Gantt, memory map, queues, time scrubber) of the current machine."""
    return Dashboard(_log(log), t=t, view=view, colour_by=colour_by)


def step_through(program, log_source=None) -> StepThrough:
    """Run ``program`` (a generator function yielding after each step, or a list of
    callables) one step per click or per ``.step()``, the dashboard following."""
    return StepThrough(program, log_source or current_log)


def gantt(
    log=None,
    view: str = LOGICAL,
    colour_by: str = KIND,
    t: int | None = None,
    window: tuple[int, int] | None = None,
    min_bar_px: float | None = None,
) -> Picture:
    """The Gantt chart; shows as a PNG with the timeline summary as its text.
    ``window=(t0, t1)`` (ns) draws only that stretch of time; ``min_bar_px`` widens the
    narrowest bars (short callbacks) so they show."""
    ix = build_index(_log(log))
    return Picture(
        gantt_figure(ix, view, colour_by, t, window=window, min_bar_px=min_bar_px), timeline_summary(ix, view)
    )


def memory_map(t: int | None = None, log=None, min_block_px: float | None = None) -> Picture:
    """The device memory map at ``t`` (default: the end of the log); ``min_block_px``
    widens the narrowest blocks (an 8 KiB block beside MiB ones) so they show with a label."""
    ix = build_index(_log(log))
    t = _at(ix, t)
    return Picture(memory_figure(ix, t, min_block_px=min_block_px), memory_summary(ix, t))


def queues(t: int | None = None, log=None) -> Picture:
    """The stream queues at ``t`` (default: the end of the log)."""
    ix = build_index(_log(log))
    t = _at(ix, t)
    return Picture(queues_figure(ix, t), queues_summary(ix, t))


def summary(log=None) -> Text:
    """What happened, in a few stable lines: machine, calls, tasks, copy/compute, memory."""
    return Text(trace_summary(_log(log)))


def export_trace(path, log=None) -> str:
    """Write a Chrome-trace JSON (msprof layout) for Perfetto or chrome://tracing."""
    return _export(_log(log), path)
