"""Check a Chrome trace against the rules both Perfetto and chrome://tracing rely on.

Perfetto moves an X slice that overlaps another on its row to an overflow track, and
catapult drops a flow whose ends are not inside a slice; neither says so loudly.  This
checker says so: it returns every broken rule as one line of text.
"""

from __future__ import annotations

import bisect
from typing import TypeGuard

PHASES = set("XBEiICbnestfMPO")
METADATA = {
    "process_name": "name",
    "thread_name": "name",
    "process_labels": "labels",
    "process_sort_index": "sort_index",
    "thread_sort_index": "sort_index",
}
EPS = 1e-6  # µs; timestamps carry 3 decimals, so this is far below a nanosecond


def validate_chrome_trace(doc) -> list[str]:
    """Problems found in ``doc`` (a parsed trace); an empty list means it follows the rules:
    integer pid/tid, X slices that never overlap on a row, every row and process named by
    M events, flows s -> f(bp "e") paired by id and each inside a slice, numeric counters,
    events after the metadata in time order."""
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["the trace must be an object with a 'traceEvents' list"]
    problems: list[str] = []
    if doc.get("displayTimeUnit", "ns") not in ("ms", "ns"):
        problems.append(f"displayTimeUnit {doc['displayTimeUnit']!r} is not 'ms' or 'ns'")
    events = doc["traceEvents"]
    named_pids, named_rows = set(), set()
    slices: dict[tuple, list] = {}
    flows: dict[tuple, dict] = {}
    used_pids, used_rows = set(), set()
    last_ts, seen_non_meta = None, False
    for i, e in enumerate(events):
        where = f"event {i}"
        if not isinstance(e, dict) or e.get("ph") not in PHASES:
            problems.append(f"{where}: not an event with a known 'ph'")
            continue
        ph = e["ph"]
        pid, tid = e.get("pid"), e.get("tid")
        if not _is_int(pid) or not _is_int(tid):
            problems.append(f"{where}: pid and tid must be integers, got {pid!r}, {tid!r}")
            continue
        if ph == "M":
            if seen_non_meta:
                problems.append(f"{where}: metadata after timed events")
            name = e.get("name")
            key = METADATA.get(name) if isinstance(name, str) else None  # a list name is no key: report it
            if key is None or not isinstance(e.get("args"), dict) or key not in e["args"]:
                problems.append(f"{where}: unknown metadata {e.get('name')!r} or missing args.{key}")
                continue
            if e["name"] == "process_name":
                named_pids.add(pid)
            elif e["name"] == "thread_name":
                named_rows.add((pid, tid))
            continue
        seen_non_meta = True
        ts = e.get("ts")
        if not _is_num(ts) or ts < 0:
            problems.append(f"{where}: ts must be a non-negative number, got {ts!r}")
            continue
        if last_ts is not None and ts < last_ts - EPS:
            problems.append(f"{where}: ts {ts} before the previous event's {last_ts}")
        last_ts = ts
        if not isinstance(e.get("name"), str):
            problems.append(f"{where}: missing name")
        used_pids.add(pid)
        if ph == "X":
            dur = e.get("dur")
            if not _is_num(dur) or dur < 0:
                problems.append(f"{where}: X needs a non-negative dur, got {dur!r}")
                continue
            slices.setdefault((pid, tid), []).append((ts, ts + dur, i))
            used_rows.add((pid, tid))
        elif ph in "sf":
            problems += _flow_fields(e, where)
            flow = (e.get("id"), e.get("cat"), e.get("name"))
            if ph in flows.setdefault(flow, {}):
                problems.append(f"{where}: second flow '{ph}' with id {e.get('id')!r}")
            flows[flow][ph] = e
            used_rows.add((pid, tid))
        elif ph in "iI" and e.get("s", "t") == "t":
            used_rows.add((pid, tid))
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(_is_num(v) for v in args.values()):
                problems.append(f"{where}: counter args must be numbers")
    for pid in sorted(used_pids - named_pids):
        problems.append(f"pid {pid} has no process_name")
    for row in sorted(used_rows - named_rows):
        problems.append(f"row pid {row[0]} tid {row[1]} has no thread_name")
    for row, xs in sorted(slices.items()):
        xs.sort(key=lambda x: (x[0], -x[1]))
        open_: list = []  # the events enclosing the current one: a row's X events nest or follow
        for s1, e1, i1 in xs:
            while open_ and open_[-1][1] <= s1 + EPS:
                open_.pop()
            if open_ and e1 > open_[-1][1] + EPS:
                s0, e0, i0 = open_[-1]
                problems.append(
                    f"row pid {row[0]} tid {row[1]}: X event {i1} starts at {s1} inside event {i0} ({s0}..{e0}) "
                    "and ends after it"
                )
            open_.append((s1, e1, i1))
    spans = {row: _span_index(xs) for row, xs in slices.items()}
    for flow, pair in sorted(flows.items(), key=lambda kv: str(kv[0])):
        problems += _flow_pair(flow, pair, spans)
    return problems


def _span_index(xs: list) -> tuple[list, list]:
    """A row's sorted slices as (starts, the largest end so far): a point lies inside some slice
    when the largest end among the slices starting before it reaches it (one bisection)."""
    starts, reach, top = [], [], float("-inf")
    for s, e, _i in xs:
        top = max(top, e)
        starts.append(s)
        reach.append(top)
    return starts, reach


def _flow_fields(e, where) -> list[str]:
    out = []
    if not _is_int(e.get("id")):
        out.append(f"{where}: flow id must be an integer, got {e.get('id')!r}")
    if not e.get("cat"):
        out.append(f"{where}: flow needs a cat")
    if e["ph"] == "f" and e.get("bp") != "e":
        out.append(f"{where}: flow end needs bp 'e'")
    return out


def _flow_pair(key, pair, spans) -> list[str]:
    if set(pair) != {"s", "f"}:
        return [f"flow id {key[0]!r}: has {''.join(sorted(pair))} but needs one s and one f"]
    out = []
    for ph in "sf":
        e = pair[ph]
        starts, reach = spans.get((e["pid"], e["tid"]), ([], []))
        k = bisect.bisect_right(starts, e["ts"] + EPS) - 1
        if k < 0 or reach[k] < e["ts"] - EPS:
            out.append(f"flow id {key[0]!r}: '{ph}' at {e['ts']} is inside no X slice on pid {e['pid']} tid {e['tid']}")
    if pair["s"]["ts"] > pair["f"]["ts"] + EPS:
        out.append(f"flow id {key[0]!r}: ends before it starts")
    return out


def _is_int(v) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)
