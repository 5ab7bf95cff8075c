"""Put a drawing into an Output widget through its state, never through captured output.

``with out:`` capture is routed by the frontend; nbval has no widget manager and would
see the captured figure as a stray cell output.  Assigning ``out.outputs`` in one step
keeps the picture inside the widget model (and avoids an empty frame between updates).
"""

from __future__ import annotations

import base64
import io

from sandbox.viz.picture import figure_png


def show_png(out, png: bytes, text: str) -> None:
    """Replace what ``out`` shows with one PNG and its text."""
    out.outputs = (
        {
            "output_type": "display_data",
            "data": {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": text},
            "metadata": {},
        },
    )


def show_figure(out, fig, text: str) -> bytes:
    """Render ``fig`` into ``out``; returns the PNG so a caller can reuse it."""
    png = figure_png(fig)
    show_png(out, png, text)
    return png


def stack_png(pngs: list[bytes]) -> bytes:
    """One PNG of several stacked top to bottom (the dashboard's static snapshot)."""
    from PIL import Image  # matplotlib depends on Pillow, so it is always there

    images = [Image.open(io.BytesIO(p)).convert("RGB") for p in pngs]
    width = max(im.width for im in images)
    sheet = Image.new("RGB", (width, sum(im.height for im in images)), "white")
    y = 0
    for im in images:
        sheet.paste(im, (0, y))
        y += im.height
    buf = io.BytesIO()
    sheet.save(buf, format="PNG")
    return buf.getvalue()
