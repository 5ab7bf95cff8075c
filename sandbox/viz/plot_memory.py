"""Draw a MemoryMap: one bar per device over its address space, allocations as blocks.

The solid part of a block is what was asked for; the pale tail is what the allocator
added (page rounding).  Huge pages are plain sky blue, normal pages cross-hatched; black
diagonal hatching marks a block whose free is still pending.  A block is never drawn
narrower than ``style.MIN_BLOCK_PX`` (or ``min_block_px``, for a picture whose point is a
small block: it is then wide enough for its label), so an 8 KiB block in a 4 MiB window still
shows.  Blocks at one address (a pool's block reused in stream order, each free still pending)
get one label that says how many there are, not labels drawn over each other.
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter

from sandbox import i18n
from sandbox.viz import style
from sandbox.viz.memory import MemoryMap, memory_map
from sandbox.viz.units import fmt_bytes, fmt_percent, fmt_size, fmt_time

ROW_IN = 1.05


def memory_figure(log, t: int, width: float = 10.0, min_block_px: float | None = None) -> Figure:
    """The memory map of ``log`` at time ``t``."""
    return draw_memory(memory_map(log, t), width, min_block_px)


def draw_memory(mm: MemoryMap, width: float = 10.0, min_block_px: float | None = None) -> Figure:
    n = max(1, len(mm.devices))
    height = 0.75 + ROW_IN * n
    fig = Figure(figsize=(width, height), dpi=style.DPI)
    fig.text(0.01, 1 - 0.22 / height, i18n.text("Device memory at {}", fmt_time(mm.t)), fontsize=9, va="center")
    for i, d in enumerate(mm.devices):
        bottom = (height - 0.45 - ROW_IN * (i + 1) + 0.45) / height
        ax = fig.add_axes((0.06, bottom, 0.74, 0.3 / height))
        _device(ax, d, width * 0.74 * style.DPI, min_block_px)
    n_host = len(mm.host)
    host = i18n.text("Host pinned memory: {} block{}, {}", n_host, "s" if n_host != 1 else "", fmt_bytes(mm.host_bytes))
    fig.text(0.01, 0.12 / height, host, fontsize=8, va="center")
    handles = [
        Patch(facecolor=style.PAGE_COLOURS["huge"], label=i18n.text("huge pages (2 MiB)")),
        Patch(
            facecolor=style.PAGE_COLOURS["normal"],
            edgecolor="white",
            hatch=style.PAGE_HATCH["normal"],
            label=i18n.text("normal pages (4 KiB)"),
        ),
        Patch(facecolor=style.PAGE_COLOURS["huge"], alpha=0.35, label=i18n.text("rounding")),
        Patch(facecolor="white", edgecolor=style.BLACK, hatch=style.PENDING_HATCH, label=i18n.text("free pending")),
        Patch(facecolor=style.POOL, edgecolor="#777777", hatch="..", label=i18n.text("pool (held, not in use)")),
        Patch(facecolor=style.FREE, edgecolor="#999999", label=i18n.text("free")),
    ]
    fig.legend(handles=handles, loc="upper right", bbox_to_anchor=(0.995, 1 - 0.3 / height), fontsize=7, frameon=False)
    return fig


def _device(ax, d, axis_px: float, min_block_px: float | None = None) -> None:
    window = max(1, d.window)
    per_px = window / axis_px
    least = (style.MIN_BLOCK_PX if min_block_px is None else max(style.MIN_BLOCK_PX, float(min_block_px))) * per_px
    at_offset: dict[int, list] = {}
    for b in d.blocks:
        if b.kind != "pool segment":
            at_offset.setdefault(b.offset, []).append(b)
    ax.add_patch(Rectangle((0, 0), window, 1, facecolor=style.FREE, edgecolor="#999999", lw=0.6))
    for b in d.blocks:
        if b.offset >= window:
            continue
        if b.kind == "pool segment":
            ax.add_patch(
                Rectangle(
                    (b.offset, 0),
                    max(b.reserved, least),
                    1,
                    facecolor=style.POOL,
                    edgecolor="#777777",
                    lw=0.6,
                    hatch="..",
                )
            )
            continue
        colour = style.PAGE_COLOURS.get(b.page, style.OTHER_KIND)
        floor = least if b.reserved < least else style.MIN_BLOCK_PX * per_px
        solid = max(b.size, floor)  # a block widened to the minimum is widened whole
        inner = (0.18, 0.64) if b.kind == "pool block" else (0, 1)
        ax.add_patch(
            Rectangle(
                (b.offset, inner[0]),
                solid,
                inner[1],
                facecolor=colour,
                edgecolor="white",
                lw=0,
                hatch=style.PAGE_HATCH.get(b.page),
            )
        )
        if b.reserved > solid:
            ax.add_patch(Rectangle((b.offset + solid, 0), b.reserved - solid, 1, facecolor=colour, alpha=0.35, lw=0))
        edge = style.BLACK if b.pending_free else "#1F4E79"
        ax.add_patch(
            Rectangle(
                (b.offset, 0),
                max(b.reserved, least),
                1,
                facecolor="none",
                edgecolor=edge,
                lw=0.8,
                hatch=style.PENDING_HATCH if b.pending_free else None,
            )
        )
        same = at_offset[b.offset]
        if b is not same[0]:
            continue  # one label per address
        size = fmt_size(b.size)
        name = i18n.label(b.label) if len(same) == 1 else i18n.text("{} blocks at one address", len(same))
        label = f"{name}\n{size}" if len(same) == 1 else i18n.text("{}\n{} each", name, size)
        shown = max(b.reserved, least)
        if shown / per_px >= 6 * max(len(name), len(size) + 5 * (len(same) > 1), 8) + 6:
            ax.text(
                b.offset + shown / 2,
                0.5,
                label,
                ha="center",
                va="center",
                fontsize=7,
                color="black",
                clip_on=True,
                linespacing=1.0,
                bbox=dict(facecolor="white", alpha=0.75, lw=0, pad=1.0)
                if len(same) > 1 or b.pending_free or style.PAGE_HATCH.get(b.page)
                else None,
            )
    ax.set_xlim(0, window)
    ax.set_ylim(0, 1)
    ax.set_yticks([])
    step = 1024
    while window / step > 8:
        step *= 2
    ax.set_xticks(range(0, window + 1, step))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: fmt_bytes(int(x))))
    ax.tick_params(axis="x", labelsize=7)
    shown = "" if window >= d.total else i18n.text(" (first {} shown)", fmt_bytes(window))
    ax.set_title(
        i18n.text(
            "NPU {}: used {} of {}, free {}, largest free {}, {} free extent{}, fragmentation {}{}",
            d.device,
            fmt_bytes(d.used),
            fmt_bytes(d.total),
            fmt_bytes(d.free),
            fmt_bytes(d.largest_free),
            d.holes,
            "s" if d.holes != 1 else "",
            fmt_percent(d.fragmentation),
            shown,
        ),
        fontsize=8,
        loc="left",
    )
