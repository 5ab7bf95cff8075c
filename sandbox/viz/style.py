"""Colours and sizes shared by the drawings, so a kind looks the same in every panel."""
from __future__ import annotations

KIND_COLOURS = {
    "kernel": "#4C72B0",
    "memcpy": "#DD8452",
    "memset": "#C9A227",
    "event_record": "#8172B3",
    "event_wait": "#B07AA1",
    "event_reset": "#937860",
    "callback": "#55A868",
    "graph": "#2F8F8F",
    "api": "#9AA5B1",
    "blocked": "#C44E52",
    "host_callback": "#2CA02C",
}
OTHER_KIND = "#7F7F7F"
KIND_LABELS = {
    "kernel": "kernel (compute)",
    "memcpy": "memcpy (copy)",
    "api": "API call (host)",
    "blocked": "blocked in synchronize",
    "host_callback": "callback run (host)",
}
STREAM_PALETTE = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860",
                  "#DA8BC3", "#8C8C8C", "#CCB974", "#64B5CD")
PAGE_COLOURS = {"huge": "#4C72B0", "normal": "#55A868", "huge1g": "#8172B3",
                "pinned": "#DD8452"}
REASON_COLOURS = {"predecessor": "#CCB974", "event": "#B07AA1", "engine busy": "#C44E52",
                  "ready": "#8C8C8C"}
RUNNING = "#55A868"
FREE = "#ECEFF3"
POOL = "#D6DCE5"
CURSOR = "#D62728"
DPI = 100


def kind_colour(kind: str) -> str:
    return KIND_COLOURS.get(kind, OTHER_KIND)


def stream_colour(rank: int) -> str:
    return STREAM_PALETTE[rank % len(STREAM_PALETTE)]
