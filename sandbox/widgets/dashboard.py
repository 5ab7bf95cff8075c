"""The dashboard: Gantt chart, memory map and stream queues under one time cursor.

The panels are drawn in the browser (views.js, an anywidget module) from the columns of
the log (sandbox/viz/columns.py), sent once per log: zooming, panning, hovering, moving the
cursor, stepping and playing redraw every panel in the same frame, with no round trip to
the kernel.  The cursor's time comes back to the kernel as ``Dashboard.t``, and setting
``Dashboard.t`` here moves it there.

Where no widget can run (nbval, GitHub, a notebook reopened without its widget state), the
display carries a PNG snapshot of the three panels at ``t`` and a line of stable text
beside the widget view; both are drawn only when the dashboard is displayed.
"""

from __future__ import annotations

import base64
from typing import Any
from bisect import bisect_left, bisect_right
from pathlib import Path

import anywidget
import traitlets

from sandbox import i18n
from sandbox.core.errors import describe
from sandbox.viz.columns import change_times, columns
from sandbox.viz.index import build_index
from sandbox.viz.plot_gantt import KIND, STREAM, gantt_figure
from sandbox.viz.plot_memory import memory_figure
from sandbox.viz.plot_queues import queues_figure
from sandbox.viz.summary import memory_summary, queues_summary
from sandbox.viz.picture import figure_png
from sandbox.viz.timeline import LOGICAL, PHYSICAL, activity
from sandbox.viz.units import fmt_time
from sandbox.widgets.panel import stack_png

NOTHING_YET = "nothing has run yet"
HERE = Path(__file__).parent

__all__ = ["Dashboard", "change_times", "NOTHING_YET"]


class Dashboard(anywidget.AnyWidget):
    """Three views of one trace log with a time cursor (slider, play, step buttons).

    ``t`` is the cursor's time (settable; kept inside ``t_range``), ``t_range`` the
    (start, end) it moves over, ``view`` "logical" (rows per stream) or "physical" (rows
    per engine), ``colour`` "kind" or "stream"; ``selected`` is the task number clicked
    in the browser (0: none)."""

    _esm = (HERE / "views.js").read_text(encoding="utf-8")
    _css = (HERE / "views.css").read_text(encoding="utf-8")
    data = traitlets.Dict().tag(sync=True)
    t = traitlets.Int(0).tag(sync=True)
    view = traitlets.Unicode(LOGICAL).tag(sync=True)
    colour = traitlets.Unicode(KIND).tag(sync=True)
    selected = traitlets.Int(0).tag(sync=True)

    def __init__(self, log, t: int | None = None, view: str = LOGICAL, colour_by: str = KIND, width: float = 10.0):
        self._width = width
        self._range = (0, 1)
        self._times: list[int] = [0]
        self._ix = build_index(log)
        super().__init__(view=view, colour=colour_by)
        self._set_log(log, t)

    @traitlets.validate("view")
    def _check_view(self, proposal):
        v = proposal["value"]
        if v not in (LOGICAL, PHYSICAL):
            raise ValueError(f"view must be {LOGICAL!r} or {PHYSICAL!r}, not {describe(v)}")
        return v

    @traitlets.validate("colour")
    def _check_colour(self, proposal):
        v = proposal["value"]
        if v not in (KIND, STREAM):
            raise ValueError(f"colour_by must be {KIND!r} or {STREAM!r}, not {describe(v)}")
        return v

    @traitlets.validate("t")
    def _clamp_t(self, proposal):
        lo, hi = self._range
        return max(lo, min(int(proposal["value"]), hi))

    # -- state -------------------------------------------------------------------------
    @property
    def t_range(self) -> tuple[int, int]:
        """(start, end): the first device activity and the end of the log."""
        return self._range

    @property
    def times(self) -> list[int]:
        """The moments at which a panel changes; the step buttons move between these."""
        return list(self._times)

    @property
    def clock(self) -> str:
        """The clock label: 't = 100.000 µs of 921.500 µs'."""
        if not self._ix.t_end:
            return i18n.text(NOTHING_YET)
        return i18n.text("t = {} of {}", fmt_time(self.t), fmt_time(self._ix.t_end))

    def refresh(self, log, t: int | None = None) -> None:
        """Show a newer log (e.g. after more runtime calls); ``t`` defaults to its end."""
        self._set_log(log, t)

    def step(self, direction: int) -> int:
        """Move to the next (+1) or previous (-1) moment at which a panel changes."""
        times, t = self._times, self.t
        if direction > 0:
            i = bisect_right(times, t)
            self.t = times[i] if i < len(times) else self._range[1]
        else:
            i = bisect_left(times, t)
            self.t = times[i - 1] if i > 0 else self._range[0]
        return self.t

    def at_end(self) -> bool:
        return self.t >= self._range[1]

    def _set_log(self, log, t) -> None:
        self._ix = build_index(log)
        end = max(1, self._ix.t_end)
        start = min(self._ix.t_start, end - 1)
        self._range = (start, end)
        self._times = [x for x in change_times(self._ix) if start <= x <= end]
        meta, buffers = columns(log)
        with self.hold_sync():
            self.data = {
                "meta": meta if self._ix.t_end else None,
                "buffers": {k: memoryview(v) for k, v in buffers.items()},
                **({"texts": i18n.browser_texts()} if i18n.language() != "en" else {}),
            }
            self.t = end if t is None else t

    # -- notebook display ------------------------------------------------------------------
    def snapshot_png(self) -> bytes:
        """The three panels at ``t`` as one PNG, for viewers that cannot run widgets."""
        t = self.t
        return stack_png(
            [
                figure_png(gantt_figure(self._ix, self.view, self.colour, t=t, width=self._width)),
                figure_png(memory_figure(self._ix, t, self._width)),
                figure_png(queues_figure(self._ix, t, self._width)),
            ]
        )

    def queues_text(self) -> str:
        """The stream queues at ``t`` in words (what the browser panel shows)."""
        return queues_summary(self._ix, self.t)

    def memory_text(self) -> str:
        """The device memory at ``t`` in words."""
        return memory_summary(self._ix, self.t)

    def _repr_mimebundle_(self, **kwargs):
        data: Any = super()._repr_mimebundle_(**kwargs) or {}
        if isinstance(data, tuple):
            data = data[0]
        data["text/plain"] = repr(self)
        data["image/png"] = base64.b64encode(self.snapshot_png()).decode("ascii")
        return data

    def __repr__(self) -> str:
        style = i18n.text("({} view, colour by {})", i18n.label(self.view), i18n.label(self.colour))
        if not self._ix.t_end:  # the cursor needs a range of at least 1 ns
            return i18n.text("Dashboard: {} {}", i18n.text(NOTHING_YET), style)
        a = activity(self._ix)
        n = len(self._ix.tasks)
        return i18n.text(
            "Dashboard at {} of {} {}: {} task{}, total {}, copy {}, compute {}, overlap {}",
            fmt_time(self.t),
            fmt_time(self._ix.t_end),
            style,
            n,
            "" if n == 1 else "s",
            fmt_time(a.total),
            fmt_time(a.copy),
            fmt_time(a.compute),
            fmt_time(a.overlap),
        )
