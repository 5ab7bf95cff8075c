"""A drawn view paired with its text summary, for notebooks and for plain terminals.

A notebook shows the PNG; nbval compares only the text/plain beside it (PNGs are not
compared), so the summary is what CI checks.  The PNG is rendered here, explicitly,
rather than left to the inline backend, which registers its Figure formatter only once
pyplot has been imported.
"""

from __future__ import annotations

import base64
import io

from matplotlib.figure import Figure


def figure_png(fig: Figure) -> bytes:
    """PNG bytes of ``fig`` without the 'Software' tag, so equal figures give equal bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi, metadata={"Software": None})
    return buf.getvalue()


class Picture:
    """A figure and its deterministic text; ``picture.figure`` is the matplotlib Figure."""

    def __init__(self, figure: Figure, text: str):
        self.figure = figure
        self.text = text

    def png(self) -> bytes:
        return figure_png(self.figure)

    def savefig(self, path, **kwargs) -> None:
        self.figure.savefig(path, **kwargs)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"image/png": base64.b64encode(self.png()).decode("ascii"), "text/plain": self.text}

    def __repr__(self) -> str:
        return self.text


class Text(str):
    """A summary that a notebook shows as plain lines, not as a quoted string."""

    def __repr__(self) -> str:
        return str(self)
