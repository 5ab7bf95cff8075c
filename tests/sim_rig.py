"""A bare device side for the kernel's own tests: a Simulator, streams and tasks, no acl.

``Rig`` builds the objects the simulator reads (a context, streams, tasks) the way
``Machine.submit`` does, without a machine; ``FakeMachine`` is the little a Scheduler
touches (its lock, its simulator, the hazard checker it reports joins to).
"""

from __future__ import annotations

import itertools
import threading

from sandbox.core.hazards import Checker
from sandbox.core.hooks import Hooks
from sandbox.core.objects import Context, HostThread, Process, Stream
from sandbox.core.device_loop import Simulator
from sandbox.core.tasks import Task
from sandbox.core.host_turns import Scheduler
from sandbox.core.trace import TaskFinished, TaskStarted, TraceLog

FAR = 10**15  # a horizon past every scenario's end


class Rig:
    def __init__(self):
        self.log = TraceLog()
        self.hooks = Hooks()
        self.sim = Simulator(self.log, self.hooks)
        self.process = Process(1, "main")
        self.context = Context(0x100, 0, self.process, True)
        self._handles = itertools.count(0x1000)
        self._ids = itertools.count(1)

    def stream(self, priority: int = 0) -> Stream:
        handle = next(self._handles)
        return Stream(handle, handle - 0x1000, self.context, priority, False)

    def submit(
        self,
        stream: Stream,
        engine=None,
        at: int = 0,
        duration=0,
        *,
        name: str = "t",
        effect=None,
        waits_on=None,
        nbytes: int = 0,
        block_dim: int = 0,
    ) -> Task:
        """Queue a task on ``stream`` as the host does at time ``at`` (Machine.submit's steps)."""
        task = Task.new("kernel" if block_dim else "copy", name, engine, duration, effect, waits_on, nbytes, block_dim)
        task.id = next(self._ids)
        task.stream, task.device, task.priority, task.submit_t = stream, stream.device, stream.priority, at
        stream.queue.append(task)
        stream.last_task = task
        self.sim.submit(task)
        return task

    def run(self, horizon: int = FAR) -> None:
        self.sim.run_before(horizon)

    def start(self, task) -> int:
        """When ``task`` started (its one TaskStarted record)."""
        (t,) = self.started(task)
        return t

    def started(self, task) -> list[int]:
        return [r.t for r in self.log.of(TaskStarted) if r.task == task.id]

    def finished(self, task) -> list[int]:
        return [r.t for r in self.log.of(TaskFinished) if r.task == task.id]


class FakeMachine:
    """What Scheduler uses of a Machine, and nothing else."""

    def __init__(self):
        self.rig = Rig()
        self.sim = self.rig.sim
        self.lock = threading.RLock()
        self.lock.acquire()  # held by the test's thread, as gate.call holds it for a call:
        # the Scheduler notifies its Condition, which needs the lock
        self.aborted = ""
        self.pending_interrupts: dict = {}
        self.hazards = Checker(self)  # hazards.thread_joined keeps its clocks here
        self.scheduler = Scheduler(self)
        self._tids = itertools.count(1)

    def thread(self, name: str, clock: int = 0) -> HostThread:
        th = HostThread(next(self._tids), name, self.rig.process, clock, None)
        self.scheduler.add(th)
        return th
