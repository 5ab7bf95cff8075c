"""What each stream's queue holds at time t, and why its waiting tasks are waiting.

A submitted task can start once three things hold: its predecessor in the stream is done,
the event it waits on (if any) has been recorded, and its engine has room.  The first of
these that does not hold at t is the reason shown, naming the task in the way.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.viz.index import build_index
from sandbox.viz.style import copy_direction

PREDECESSOR = "predecessor"
EVENT = "event"
ENGINE = "engine busy"
READY = "ready"


@dataclass(frozen=True, slots=True)
class QueueEntry:
    task: int
    kind: str
    name: str
    engine: str
    reason: str  # "" for a running task
    blocker: int  # the task in the way (0 if none)
    why: str  # the reason in words, e.g. "after task 3"
    direction: str = ""  # a copy's direction in its own words, else ""


@dataclass(frozen=True)
class StreamQueue:
    device: int
    stream: int
    stream_id: int
    priority: int
    running: tuple  # QueueEntry; one, except for tasks that start and end together
    waiting: tuple  # QueueEntry in queue order
    finished: int
    failed: int

    @property
    def label(self) -> str:
        return f"NPU {self.device} Stream {self.stream_id}"


@dataclass(frozen=True)
class Queues:
    t: int
    streams: tuple  # StreamQueue by device, then stream id

    def stream(self, label: str) -> StreamQueue:
        for s in self.streams:
            if s.label == label:
                return s
        raise KeyError(label)


def stream_queues(log, t: int) -> Queues:
    """Every stream alive at ``t``: its waiting tasks with reasons, the running one, and
    how many have finished.  Default and runtime-internal streams appear once a task has
    been submitted to them."""
    ix = build_index(log)
    tasks = ix.tasks
    per_stream: dict[int, list] = {}
    busy: dict[tuple, int] = {}  # (device, engine) -> lowest task running there
    for task in tasks.values():
        if task.submit <= t:
            per_stream.setdefault(task.stream, []).append(task)
        if task.start is not None and task.start <= t and (task.end is None or task.end > t):
            key = (task.device, task.engine)
            busy[key] = min(busy.get(key, task.task), task.task)
    out = []
    for s in sorted(ix.streams.values(), key=lambda s: (s.device, s.stream_id, s.stream)):
        mine = per_stream.get(s.stream, [])
        alive = s.created <= t and (s.destroyed is None or s.destroyed > t)
        if not mine and (not alive or s.is_default or s.label):
            continue  # an untouched default or runtime stream is only noise; a stream
            # the program created is shown empty, since it asked for it
        running, waiting, finished, failed = [], [], 0, 0
        for task in mine:
            if task.end is not None and task.end <= t:
                finished += 1
                failed += task.status != 0
            elif task.start is not None and task.start <= t:
                running.append(
                    QueueEntry(task.task, task.kind, task.name, task.engine, "", 0, "running", _direction(task))
                )
            else:
                reason, blocker, why = _reason(task, t, tasks, ix, busy)
                waiting.append(
                    QueueEntry(task.task, task.kind, task.name, task.engine, reason, blocker, why, _direction(task))
                )
        out.append(
            StreamQueue(s.device, s.stream, s.stream_id, s.priority, tuple(running), tuple(waiting), finished, failed)
        )
    return Queues(t, tuple(out))


def _direction(task) -> str:
    return copy_direction(task.detail) if task.kind == "memcpy" else ""


def _done(task, t) -> bool:
    return task is not None and task.end is not None and task.end <= t


def _reason(task, t, tasks, ix, busy) -> tuple[str, int, str]:
    prev = tasks.get(task.prev_task) if task.prev_task else None
    if prev is not None and not _done(prev, t):
        return PREDECESSOR, prev.task, f"after task {prev.task}"
    if task.waits_on:
        rec = tasks.get(task.waits_on)
        if not _done(rec, t):
            where = f" on {ix.stream_label(rec.stream)}" if rec else ""
            event = task.event or (rec.event if rec else 0)
            return (EVENT, task.waits_on, f"{ix.event_label(event)} recorded by task {task.waits_on}{where}")
    if task.engine:
        first = busy.get((task.device, task.engine))
        if first is not None:
            return ENGINE, first, f"{task.engine} busy with task {first}"
        return ENGINE, 0, f"{task.engine} not yet free"
    return READY, 0, "starting"
