"""What an aclprofStart .. aclprofStop collection writes, in msprof's layout: a pure function of the log.

``write_collection(log, started, t)`` writes, under ``started.path`` (the aclprofInit path)::

    PROF_000001_19700101000001234_00000001ABCDEFGH/      (core/features/profiling.py, collection_name)
        mindstudio_profiler_output/
            msprof_<stamp>.json          the timeline of the window [started.t, t]
            op_summary_<stamp>.csv       one row per compute task of the window
            op_statistic_<stamp>.csv     one row per op type

as msprof lays out its parsed output (kali20gakki/msprof docs/en/user_guide/
profile_data_file_references.md:12-30, a copy of the tool's documentation).  ``<stamp>`` is the virtual
time of the stop, ``YYYYMMDDhhmmss`` from the sandbox's epoch: virtual time 0 is 1970-01-01 00:00:00
(``profiling.EPOCH``), so a time in these files, in µs, is the virtual time in ns divided by 1000, as in
``sandbox.export_trace``.  msprof's raw data (``host/``, ``device_<n>/``) and its database are not written.

* **The JSON** is ``sandbox.export_trace``'s Chrome trace (sandbox/export/chrome_trace.py, the msprof
  timeline's layout) of the window, on the collection's devices: tasks that started and ended in it, API
  calls made in it, msproftx marks (instants) and ranges (async pairs) on their host thread's row, the mstx
  calls' with their domain (``args.domain``, core/features/mstx.py).  It is the object form
  (``{"traceEvents": [...]}``), where msprof writes a bare array; both tools read both.
* **op_summary** has msprof's columns (docs :277-296, without HF32 Eligible and Mix Block Num, which
  describe hardware the sandbox has not).  A row per compute task (a kernel, a model's execution, any
  task on an AI Core engine) of the window on the collection's devices, by start time.  The sandbox fills
  Device_id, Task ID, Stream ID (the "Stream N" number), Op Name and OP Type (the kernel's or model's
  name), Task Type (AI_CORE, AI_VECTOR_CORE, MODEL, ...), Task Start Time(us), Task Duration(us), Task
  Wait Time(us) (from the end of the task before it on its stream, 0 for the first), Block Num, and for
  a task whose detail names them Model ID ("model_id", or "graph": a captured graph's instance) and Model
  Name (a model task's name); every other column is "N/A" (Infer ID, OP State, the shapes, data types and
  formats of inputs and outputs, Context ID: the sandbox's kernels have no tensor descriptions).
* **op_statistic** groups those rows by device, op type and core type: Count, Total/Min/Avg/Max
  Time(us) and Ratio(%) of the device's total, the largest total first.
* Both CSVs are written only when the collection holds task time (ACL_PROF_TASK_TIME_L0, which every
  task-time level implies): without it msprof has no task data to sum.

Every figure is made from integer ns (times as µs with three decimals), rows are sorted, and the
lines end in "\\n": the same program writes the same bytes on every run.
"""

from __future__ import annotations

import csv
import os
from datetime import timedelta

from sandbox.core.constants import ACL_PROF_TASK_TIME_L0
from sandbox.core.features.profiling import EPOCH
from sandbox.export.chrome_trace import _task_type, export_trace, windowed
from sandbox.viz.index import build_index

OUTPUT = "mindstudio_profiler_output"
SUMMARY = (
    "Device_id",
    "Model Name",
    "Model ID",
    "Task ID",
    "Stream ID",
    "Infer ID",
    "Op Name",
    "OP Type",
    "OP State",
    "Task Type",
    "Task Start Time(us)",
    "Task Duration(us)",
    "Task Wait Time(us)",
    "Block Num",
    "Input Shapes",
    "Input Data Types",
    "Input Formats",
    "Output Shapes",
    "Output Data Types",
    "Output Formats",
    "Context ID",
)
STATISTIC = (
    "Device_id",
    "OP Type",
    "Core Type",
    "Count",
    "Total Time(us)",
    "Min Time(us)",
    "Avg Time(us)",
    "Max Time(us)",
    "Ratio(%)",
)
COMPUTE_KINDS = ("kernel", "model")
NA = "N/A"


def us(ns: int) -> str:
    """Integer ns as µs with three decimals, exactly."""
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return f"{sign}{ns // 1000}.{ns % 1000:03d}"


def file_stamp(t: int) -> str:
    """``YYYYMMDDhhmmss`` of virtual time ``t`` (ns) from the epoch."""
    return f"{EPOCH + timedelta(microseconds=t // 1000):%Y%m%d%H%M%S}"


def is_compute(task) -> bool:
    return task.kind in COMPUTE_KINDS or task.engine.startswith("AI ")


def summary_rows(ix, window: tuple[int, int], devices) -> list[tuple]:
    """op_summary's rows for the window (see the module docstring)."""
    part = windowed(ix, window, devices)
    rows = []
    for t in sorted(part.tasks.values(), key=lambda t: (t.start, t.task)):
        if not is_compute(t):
            continue
        detail = dict(t.detail)
        model_id = detail.get("model_id", detail.get("graph", NA))
        prev = ix.tasks.get(t.prev_task)
        wait = t.start - prev.end if prev is not None and prev.end is not None and prev.end <= t.start else 0
        rows.append(
            (t.device, t.name if t.kind == "model" else NA, model_id, t.task, ix.streams[t.stream].stream_id, NA)
            + (t.name, t.name, NA, _task_type(t), us(t.start), us(t.end - t.start), us(wait), t.block_dim)
            + (NA,) * 7
        )
    return rows


def statistic_rows(rows: list[tuple]) -> list[tuple]:
    """op_statistic's rows from op_summary's: per (device, op type, core type)."""
    groups: dict[tuple, list[int]] = {}
    totals: dict[int, int] = {}
    for row in rows:
        ns = _ns(row[11])
        groups.setdefault((row[0], row[7], row[9]), []).append(ns)
        totals[row[0]] = totals.get(row[0], 0) + ns
    out = []
    for (device, op_type, core), times in groups.items():
        total, n, whole = sum(times), len(times), totals[device]
        avg = (2 * total + n) // (2 * n)
        ratio = (2 * 100_000 * total + whole) // (2 * whole) if whole else 0  # thousandths of a percent
        out.append((device, op_type, core, n, us(total), us(min(times)), us(avg), us(max(times)), us(ratio), total))
    out.sort(key=lambda r: (r[0], -r[-1], r[1], r[2]))
    return [r[:-1] for r in out]


def _ns(text: str) -> int:
    whole, _, part = text.partition(".")
    return int(whole) * 1000 + int(part)


def _csv(path: str, header: tuple, rows: list[tuple]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(header)
        out.writerows(rows)


def write_collection(log, started, t: int) -> str:
    """Write the collection ``started`` (a trace.ProfilingStarted) that ends at ``t``; returns its folder."""
    folder = os.path.join(started.path, started.collection)
    out = os.path.join(folder, OUTPUT)
    os.makedirs(out, exist_ok=True)
    stamp = file_stamp(t)
    ix = build_index(log)
    window = (started.t, t)
    export_trace(ix, os.path.join(out, f"msprof_{stamp}.json"), window=window, devices=started.devices)
    if started.data_types & ACL_PROF_TASK_TIME_L0:
        rows = summary_rows(ix, window, started.devices)
        _csv(os.path.join(out, f"op_summary_{stamp}.csv"), SUMMARY, rows)
        _csv(os.path.join(out, f"op_statistic_{stamp}.csv"), STATISTIC, statistic_rows(rows))
    return folder
