"""Device tasks: what a stream holds, and what an engine runs.

A task is ready when (1) the host has submitted it (``submit_t`` reached), (2) every task
before it in its stream is done, and (3) the event snapshot it waits on (``waits_on``) is
done.  Then it queues for its engine.  Its data effect runs at its completion time.
"""
from __future__ import annotations

from typing import Callable


class Task:
    __slots__ = ("id", "kind", "name", "stream", "device", "engine", "submit_t", "waits_on",
                 "priority", "ready_t", "start_t", "end_t", "done", "status", "waiters",
                 "duration", "effect", "cores", "block_dim", "nbytes", "event", "order", "version", "vc")

    def __init__(self, tid: int, kind: str, name: str, stream, engine, submit_t: int,
                 duration: Callable[[int], int] | int = 0, effect: Callable[[], int | None] | None = None,
                 waits_on: "Task | None" = None, nbytes: int = 0, block_dim: int = 0, event=None):
        self.id = tid
        self.kind = kind
        self.name = name
        self.stream = stream
        self.device = stream.device
        self.engine = engine
        self.submit_t = submit_t
        self.waits_on = waits_on
        self.priority = stream.priority
        self.ready_t = -1
        self.start_t = -1
        self.end_t = -1
        self.done = False
        self.status = 0
        self.waiters: list[Task] = []
        self.duration = duration      # ns, or a function of the cores the task got
        self.effect = effect          # runs at completion; may return an error code
        self.cores = 0
        self.block_dim = block_dim
        self.nbytes = nbytes
        self.event = event
        self.order = tid
        self.version = 0              # bumped when a shared engine moves the task's finish time
        self.vc = None                # happens-before clock (core/hazards.py)

    def __repr__(self) -> str:
        return f"<Task {self.id} {self.kind} {self.name!r} {'done' if self.done else 'pending'}>"
