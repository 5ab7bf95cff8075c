"""Colours and sizes shared by the drawings, so a kind looks the same in every panel.

One meaning per colour, from the Okabe-Ito palette (Okabe & Ito, "Color Universal Design",
2008), whose eight colours stay distinct for red/green colour-blind readers:

* a task's colour says what it does (kernel, host-to-device copy, device-to-host copy, ...)
  in the Gantt chart, in the stream queues and in the browser timeline alike;
* states (blocked, waiting, free pending) are told apart by shape, outline and hatching,
  never by a second colour, so no hue means two things;
* memory blocks are sky blue (solid: huge pages, hatched: normal pages), a hue no task uses.

The browser timeline receives these tables with its data (``palette()``), so the PNG
renderers and the widget cannot drift apart.
"""

from __future__ import annotations

# Okabe-Ito
ORANGE = "#E69F00"
SKY_BLUE = "#56B4E9"
GREEN = "#009E73"  # bluish green
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"  # reddish purple
BLACK = "#000000"

KIND_COLOURS = {
    "kernel": BLUE,
    "memcpy_h2d": ORANGE,
    "memcpy_d2h": PURPLE,
    "memcpy_d2d": VERMILLION,
    "memcpy": VERMILLION,  # a copy whose direction the log does not say
    "memset": YELLOW,
    "reduce": SKY_BLUE,
    "random_num": "#882255",  # wine (Tol): not a callback's green
    "event_record": "#8C8C8C",
    "event_wait": "#8C8C8C",
    "event_reset": "#8C8C8C",
    "notify_record": "#8C8C8C",
    "notify_wait": "#8C8C8C",
    "value_write": "#8C8C8C",
    "value_wait": "#8C8C8C",
    "callback": GREEN,
    "graph": "#332288",
    "model": "#117733",  # green (Tol): an offline model's execution, compute like a kernel
    "api": "#C8C8C8",
    "blocked": BLACK,
    "host_callback": GREEN,
}
OTHER_KIND = "#6E6E6E"
MARKED = "#CC3311"  # the outline of a task a grade's failing criterion names (Tol's red, thick: a shape too)
FAILED = BLACK  # the hatching over a task that ended with an error or was discarded: a shape, not a colour
KIND_LABELS = {
    "kernel": "kernel (compute)",
    "model": "model execution (compute)",
    "memcpy_h2d": "copy host → device",
    "memcpy_d2h": "copy device → host",
    "memcpy_d2d": "copy device → device",
    "memcpy": "copy",
    "memset": "memset",
    "reduce": "reduce (src added into dst)",
    "random_num": "random numbers",
    "event_record": "event record / wait",
    "event_wait": "event record / wait",
    "event_reset": "event record / wait",
    "notify_record": "event record / wait",
    "notify_wait": "event record / wait",
    "value_write": "event record / wait",
    "value_wait": "event record / wait",
    "callback": "callback",
    "api": "API call (host)",
    "blocked": "host waits for device",
    "host_callback": "callback",
}
STREAM_PALETTE = (BLUE, ORANGE, GREEN, PURPLE, SKY_BLUE, VERMILLION, YELLOW, "#6E6E6E")
DIRECTIONS = {
    "DMA H2D": "h2d",
    "DMA D2H": "d2h",
    "DMA D2D": "d2d",
    "host to device": "h2d",
    "device to host": "d2h",
    "device to device": "d2d",
    "ACL_MEMCPY_HOST_TO_DEVICE": "h2d",
    "ACL_MEMCPY_DEVICE_TO_HOST": "d2h",
    "ACL_MEMCPY_DEVICE_TO_DEVICE": "d2d",
}
SHORT = {"h2d": "H2D", "d2h": "D2H", "d2d": "D2D"}

PAGE_COLOURS = {"huge": SKY_BLUE, "normal": SKY_BLUE, "huge1g": SKY_BLUE, "pinned": SKY_BLUE}
PAGE_HATCH = {"huge": None, "normal": "xxx", "huge1g": "...", "pinned": None}
PENDING_HATCH = "///"  # black hatching: free asked for, queued work still holds it
POOL_HATCH = ".."
REASON_STYLES = {
    "predecessor": "dashed",
    "event": "dotted",
    "engine busy": "solid",
    "ready": "solid",
}  # the outline of a waiting box; its fill is the task's kind
RUNNING = BLUE  # kept for older callers: a running box takes its kind's colour
FREE = "#F2F2F2"
POOL = "#E0E0E0"
CURSOR = BLACK
DPI = 100
MIN_BAR_PX = 2.0  # the narrowest task bar drawn (a 2 µs task in a 17 ms run)
GAP_PX = 1.0  # white gap cut from the end of each bar wider than 3 px
MIN_BLOCK_PX = 3.0  # the narrowest memory block drawn


def kind_colour(kind: str) -> str:
    return KIND_COLOURS.get(kind, OTHER_KIND)


def stream_colour(rank: int) -> str:
    return STREAM_PALETTE[rank % len(STREAM_PALETTE)]


def colour_kind(kind: str, engine: str, direction: str = "") -> str:
    """The key a task is coloured by: its kind, with a copy's direction ("memcpy_h2d",
    "memcpy_d2h", "memcpy_d2d") from the task's own words (its detail's "direction") or
    else from its engine (one engine per direction on the 910B; a peer link copies device
    to device; the 310B's one "DMA H2D/D2H" engine says nothing)."""
    if kind != "memcpy":
        return kind
    d = DIRECTIONS.get(direction) or DIRECTIONS.get(engine)
    if d is None and engine.startswith("Peer"):
        d = "d2d"
    return f"memcpy_{d}" if d else kind


def copy_direction(detail) -> str:
    """The "direction" (or else the "kind") a copy task's detail names, "" if none."""
    found = ""
    for k, v in detail:
        if k == "direction":
            return str(v)
        if k == "kind":
            found = str(v)
    return found


def bar_label(kind: str, name: str, engine: str, direction: str = "") -> str:
    """What a bar says: its name, and for a copy its direction ('MEMCPY_ASYNC H2D')."""
    ck = colour_kind(kind, engine, direction)
    if ck.startswith("memcpy_"):
        return f"{name} {SHORT[ck[7:]]}"
    return name


def palette() -> dict:
    """The tables above as plain data, for the browser timeline."""
    return {
        "kinds": KIND_COLOURS,
        "labels": KIND_LABELS,
        "other": OTHER_KIND,
        "streams": list(STREAM_PALETTE),
        "page": PAGE_COLOURS["huge"],
        "free": FREE,
        "pool": POOL,
        "cursor": CURSOR,
        "min_bar_px": MIN_BAR_PX,
        "gap_px": GAP_PX,
        "min_block_px": MIN_BLOCK_PX,
        "reason_styles": REASON_STYLES,
    }
