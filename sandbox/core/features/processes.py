"""Simulated host processes inside one Python process.

``spawn_process(fn, *args)`` runs ``fn`` on a new host thread that belongs to a new
process: its own acl.init, contexts and default contexts, sharing the devices (and so
their cores and DMA engines) with every other process.  It shows up as its own process in
the trace.  When its last thread ends, what it still holds is released, as at exit
(``ProcessEnds``).
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from .. import trace as T
from ..current_machine import current
from .devices import release_process

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import HostThread, Process


class ProcessEnds:
    """A spawned process ends with its last thread (the ``thread_ended`` hook, once one is spawned)."""

    def __init__(self, m: Machine):
        self.m = m
        m.hooks.add("thread_ended", self.thread_ended)

    def thread_ended(self, th: HostThread) -> None:
        m, proc = self.m, th.process
        if proc is not m.main_process and all(t.finished for t in m.scheduler.threads if t.process is proc):
            end_process(m, proc, th)


def end_process(m: Machine, proc: Process, last: HostThread) -> None:
    """Process exit releases what the process still holds (memory, contexts), in no call."""
    last.call_seq = 0                 # (the records of what it releases name no call: api_seq 0)
    release_process(m, last, proc)
    proc.ended = True
    m.log.append(T.ProcessEnded(last.clock, proc.pid))
    m.scheduler.changed()


class SimProcess:
    """Handle of a spawned process (like multiprocessing.Process, already started)."""

    def __init__(self, process, thread: threading.Thread):
        self._process = process
        self._thread = thread

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def name(self) -> str:
        return self._process.name

    def join(self) -> None:
        """Wait for the process to end; the caller's clock moves to its end."""
        self._thread.join()

    def is_alive(self) -> bool:
        return not self._process.ended

    def __repr__(self) -> str:
        return f"<SimProcess pid={self.pid} {self.name!r} {'running' if self.is_alive() else 'ended'}>"


def spawn_process(fn, *args, name: str | None = None) -> SimProcess:
    """Start ``fn(*args)`` as the main thread of a new simulated process."""
    m = current()
    with m.lock:
        parent = m.current_thread()
        m.scheduler.wait_turn(parent)
        m.feature(ProcessEnds)
        proc = m.new_process(name or f"process {len(m.processes) + 1}", parent.clock)
    thread = threading.Thread(target=fn, args=args, name=f"{proc.name}/main")
    thread._sandbox_process = proc  # type: ignore[attr-defined]  # the sandbox's mark on a Python thread
    thread.start()
    return SimProcess(proc, thread)
