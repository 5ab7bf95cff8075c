"""The dashboard: Gantt chart, memory map and stream queues under one time scrubber.

Moving the scrubber redraws the memory map and the queues at the new time and moves the
Gantt chart's cursor; the Gantt bars are drawn again only when the view or colouring
changes.  Everything shown comes from the log given at construction (or at ``refresh``).
"""
from __future__ import annotations

import base64
import html
from bisect import bisect_left, bisect_right

import ipywidgets as widgets

from sandbox.viz.index import build_index
from sandbox.viz.plot_gantt import KIND, STREAM, gantt_plot
from sandbox.viz.plot_memory import memory_figure
from sandbox.viz.plot_queues import queues_figure
from sandbox.viz.summary import memory_summary, queues_summary, timeline_summary
from sandbox.viz.timeline import LOGICAL, PHYSICAL, activity
from sandbox.viz.units import fmt_time
from sandbox.widgets.panel import show_figure, stack_png

PLAY_FRAMES = 100
NOTHING_YET = "nothing has run yet"


def change_times(ix) -> list[int]:
    """Moments at which a panel changes: task submitted/started/finished, memory
    allocated/freed.  The step buttons jump between these."""
    times = {0, ix.t_end}
    for t in ix.tasks.values():
        times.add(t.submit)
        if t.start is not None:
            times.add(t.start)
        if t.end is not None:
            times.add(t.end)
    for b in ix.blocks:
        times.add(b.allocated)
        for x in (b.freed, b.free_called):
            if x is not None:
                times.add(x)
    return sorted(times)


class Dashboard(widgets.VBox):
    """Three views of one trace log with a time scrubber (slider, play, step buttons)."""

    def __init__(self, log, t: int | None = None, view: str = LOGICAL,
                 colour_by: str = KIND, width: float = 10.0):
        self._width = width
        self._quiet = False
        self._gantt_fig = None
        self._cursor = None
        self._pngs: dict[str, bytes] = {}
        self.slider = widgets.IntSlider(description="time", readout=False,
                                        continuous_update=False,
                                        layout=widgets.Layout(width="420px"))
        self.play = widgets.Play(interval=300, description="play")
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.back = widgets.Button(description="◀ step", tooltip="previous change",
                                   layout=widgets.Layout(width="80px"))
        self.forward = widgets.Button(description="step ▶", tooltip="next change",
                                      layout=widgets.Layout(width="80px"))
        self.clock = widgets.Label(layout=widgets.Layout(width="260px"))
        self.view = widgets.ToggleButtons(
            options=[("streams", LOGICAL), ("engines", PHYSICAL)], value=view,
            tooltips=["logical view: a row per stream", "physical view: a row per engine"],
            style={"button_width": "90px"})
        self.colour = widgets.ToggleButtons(
            options=[("by kind", KIND), ("by stream", STREAM)], value=colour_by,
            tooltips=["colour by task kind", "colour by stream"],
            style={"button_width": "90px"})
        self.gantt_out = widgets.Output()
        self.memory_out = widgets.Output()
        self.queues_out = widgets.Output()
        self.queues_text = widgets.HTML()
        self._set_log(log, t)
        self.slider.observe(self._on_time, names="value")
        self.view.observe(self._on_style, names="value")
        self.colour.observe(self._on_style, names="value")
        self.back.on_click(lambda _b: self.step(-1))
        self.forward.on_click(lambda _b: self.step(+1))
        controls = widgets.HBox([self.play, self.back, self.slider, self.forward, self.clock])
        toggles = widgets.HBox([self.view, self.colour])
        super().__init__([controls, toggles, self.gantt_out, self.memory_out,
                          self.queues_out, self.queues_text])
        self._draw_gantt()
        self._draw_at_time()

    # -- state -------------------------------------------------------------------------
    @property
    def t(self) -> int:
        return self.slider.value

    @t.setter
    def t(self, value: int) -> None:
        self.slider.value = max(self.slider.min, min(int(value), self.slider.max))

    def refresh(self, log, t: int | None = None) -> None:
        """Show a newer log (e.g. after more runtime calls); ``t`` defaults to its end."""
        self._quiet = True                # the slider moves below; draw once, after
        try:
            self._set_log(log, t)
        finally:
            self._quiet = False
        self._draw_gantt()
        self._draw_at_time()

    def step(self, direction: int) -> int:
        """Move to the next (+1) or previous (-1) moment at which a panel changes."""
        times, t = self._times, self.slider.value
        if direction > 0:
            i = bisect_right(times, t)
            self.t = times[i] if i < len(times) else self.slider.max
        else:
            i = bisect_left(times, t)
            self.t = times[i - 1] if i > 0 else self.slider.min
        return self.slider.value

    def _set_log(self, log, t) -> None:
        self._ix = build_index(log)
        self._times = change_times(self._ix)
        end = max(1, self._ix.t_end)
        start = min(self._ix.t_start, end - 1)
        value = end if t is None else max(start, min(int(t), end))
        if self.slider.max < start:         # keep min <= max while both move
            self.slider.max = end
        self.slider.min = start
        self.slider.max = end
        self.play.max = end
        self.play.min = start
        self.play.step = max(1, (end - start) // PLAY_FRAMES)
        self.slider.value = value

    # -- drawing -------------------------------------------------------------------------
    def _on_time(self, _change=None) -> None:
        if not self._quiet:
            self._draw_at_time()

    def _on_style(self, _change=None) -> None:
        self._draw_gantt()
        self._show_gantt()

    def _draw_gantt(self) -> None:
        self._gantt_fig, self._cursor = gantt_plot(self._ix, self.view.value,
                                                   self.colour.value, t=self.slider.value,
                                                   width=self._width)

    def _show_gantt(self) -> None:
        if self._cursor is not None:
            self._cursor.set_xdata([self.slider.value, self.slider.value])
        text = timeline_summary(self._ix, self.view.value)
        self._pngs["gantt"] = show_figure(self.gantt_out, self._gantt_fig, text)

    def _draw_at_time(self) -> None:
        t = self.slider.value
        self.clock.value = (f"t = {fmt_time(t)} of {fmt_time(self._ix.t_end)}"
                            if self._ix.t_end else NOTHING_YET)
        self._show_gantt()
        self._pngs["memory"] = show_figure(self.memory_out,
                                           memory_figure(self._ix, t, self._width),
                                           memory_summary(self._ix, t))
        queues = queues_summary(self._ix, t)
        self._pngs["queues"] = show_figure(self.queues_out,
                                           queues_figure(self._ix, t, self._width), queues)
        self.queues_text.value = ("<pre class='sandbox-queues' style='font-size:11px'>"
                                  f"{html.escape(queues)}</pre>")

    # -- notebook display ------------------------------------------------------------------
    def snapshot_png(self) -> bytes:
        """The three panels as one PNG, for viewers that cannot run widgets."""
        return stack_png([self._pngs["gantt"], self._pngs["memory"], self._pngs["queues"]])

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = repr(self)
        data["image/png"] = base64.b64encode(self.snapshot_png()).decode("ascii")
        return data

    def __repr__(self) -> str:
        style = f"({self.view.value} view, colour by {self.colour.value})"
        if not self._ix.t_end:              # the slider needs a range of at least 1 ns
            return f"Dashboard: {NOTHING_YET} {style}"
        a = activity(self._ix)
        return (f"Dashboard at {fmt_time(self.slider.value)} of {fmt_time(self._ix.t_end)} "
                f"{style}: "
                f"{len(self._ix.tasks)} task{'' if len(self._ix.tasks) == 1 else 's'}, "
                f"total {fmt_time(a.total)}, "
                f"copy {fmt_time(a.copy)}, compute {fmt_time(a.compute)}, "
                f"overlap {fmt_time(a.overlap)}")

