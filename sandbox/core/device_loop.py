"""The device side: a discrete-event simulation in integer nanoseconds.

The host threads submit tasks; this loop moves them through ready -> running -> done.
It is advanced only up to a horizon given by the host side (the smallest clock of the
runnable host threads), so a later submission can never change the past; events at the
horizon itself wait until the host side has moved past it.

Most engines fix a task's duration when it starts.  Shared engines (peer links) split
bandwidth among the copies on them, so a task's finish time moves whenever another copy
starts or ends; the moved finish is pushed again with the task's next ``version`` and the
older event is skipped when it comes up.
"""
from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any, cast

from .errors import AclError
from .trace import TraceLog, task_finished_row, task_started_row

if TYPE_CHECKING:
    from .engines import Engine
    from .hooks import Hooks
    from .tasks import Task

ARRIVE, FINISH = 0, 1
# A shared engine (a peer link, or the callbacks' engine: core/features/callbacks.py) also answers begin, due,
# wake and end; the casts to Any below call those as any object's (the engine types declare them only there).


class Simulator:
    def __init__(self, log: TraceLog, hooks: Hooks):
        self.now = 0
        self.log = log
        self.hooks = hooks                # task_fault, task_finished (core/hooks.py)
        self._heap: list[tuple[int, int, int, Task, int]] = []   # (t, seq, action, task, version)
        self._seq = 0
        self.running_tasks = 0

    # -- scheduling ---------------------------------------------------------------------
    def _push(self, t: int, action: int, task: Task, version: int = 0) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, action, task, version))

    def reschedule(self, moves) -> None:
        """New finish times from a shared engine; the task's older FINISH events go stale."""
        for task, t in moves:
            task.version += 1
            self._push(t, FINISH, task, task.version)

    def submit(self, task: Task) -> None:
        """A task joined its stream's queue on the host side (stream.queue already holds it)."""
        if task.stream.queue[0] is task:
            self._push(max(task.submit_t, self.now), ARRIVE, task)

    @property
    def next_time(self) -> int | None:
        return self._heap[0][0] if self._heap else None

    # -- running ------------------------------------------------------------------------
    def step(self) -> None:
        """Process the earliest pending event."""
        heap = self._heap
        self.run_before(heap[0][0] + 1, True)     # (a stop that is always true: exactly one event)

    def run_before(self, horizon: int, stop=None) -> None:
        """Process every event strictly before ``horizon`` (or until ``stop`` becomes true:
        the stop button pressed inside user code that a step ran)."""
        heap = self._heap
        pop = heapq.heappop
        while heap and heap[0][0] < horizon:
            t, _, action, task, version = pop(heap)
            if action == ARRIVE:
                self.now = t
                if self._ready(task, not stop):   # it ends now, and nothing else is due now: no heap round trip
                    self._finish(task)
            elif version == task.version:         # (else superseded by a rescheduled finish: no time passes)
                self.now = t
                engine = task.engine
                if engine is not None and engine.shared and not (link := cast(Any, engine)).due(task, t):
                    self.reschedule(link.wake(task, t))
                else:
                    self._finish(task)
            if stop:
                return
        if self.now < horizon and not heap:
            self.now = horizon

    # -- task life cycle ---------------------------------------------------------------
    def _ready(self, task: Task, direct: bool = False) -> bool:
        """The task is at the head of its stream and submitted (or the record it waits for is
        done): it waits for its event's record, or for its engine, or runs.  ``direct`` (run_before,
        for an arrival): True means that the task takes no time and no other event is due now, so
        its FINISH would be the next event popped; the caller finishes it instead of pushing it."""
        dep: Task | None = task.waits_on  # type: ignore[assignment]  # submitted, so is what it waits on (never a capture's Recorded)
        if dep is not None and not dep.done and not task.status:
            if dep.waiters is None:
                dep.waiters = []
            dep.waiters.append(task)              # (_finish readies it when ``dep`` is done)
            return False
        if task.stream.stopped and not task.status:
            task.stream.held = task               # aclrtStreamStop: waits for an abort or a forced destroy
            return False
        now = task.ready_t = self.now
        if task.status:
            task.engine = None                    # dropped: never runs
        elif task.stream.context.failure and task.stream.error_stop:
            task.engine = None                    # stop-on-failure: discarded without using its engine
        engine = task.engine
        if engine is None:
            self.log.append(task_started_row(now, task.id))
            heap = self._heap
            if direct and (not heap or heap[0][0] > now):
                return True
            self._push(now, FINISH, task)
            return False
        if not engine.waiting and engine.claim_room(task):   # (nothing waits: the uncontended case)
            self._start(task, engine)
            return False
        engine.enqueue(task)
        self._start_waiting(engine)
        return False

    def drop(self, stream, code: int, t: int, stop: bool = False) -> None:
        """aclrtDestroyStreamForce, aclrtStreamAbort (``stop``): the tasks not started never run, each
        ends at once with ``code`` without its effect; a running one runs on unless ``stop`` (not a peer copy)."""
        for task in stream.queue:
            task.status = code
        held, stream.held, stream.stopped = stream.held, None, False
        if held is not None:                      # aclrtStreamStop held the head back: it goes now
            self._ready(held)
        if held is not None or not stream.queue:
            return
        head = stream.queue[0]
        dep = head.waits_on
        if head.ready_t < 0:
            if dep is not None and dep.waiters and head in dep.waiters:   # parked on an event
                dep.waiters.remove(head)
                self._push(t, ARRIVE, head)
            return
        engine = head.engine
        if engine is not None and any(entry[3] is head for entry in engine.waiting):
            engine.waiting = [entry for entry in engine.waiting if entry[3] is not head]
            heapq.heapify(engine.waiting)
            head.engine = None
            self._push(t, FINISH, head)
            self.log.append(task_started_row(t, head.id))
        elif stop and engine is not None and not engine.shared:
            self.reschedule(((head, t),))         # stopped where it is: it ends now
        else:
            head.status = 0                       # it started: it runs to its end

    def stop(self, stream, code: int, t: int) -> None:
        """aclrtStreamStop: the running task (not a peer copy) ends now with ``code``; the next waits for ``drop``."""
        stream.stopped = True
        head = stream.queue[0] if stream.queue else None
        if head is None or head.ready_t < 0 or head.engine is None or head.engine.shared:
            return                                # nothing running (or a peer copy: it runs on)
        if all(entry[3] is not head for entry in head.engine.waiting):
            head.status = code
            self.reschedule(((head, t),))

    def _start_waiting(self, engine: Engine) -> None:
        while (task := engine.start_next()) is not None:
            self._start(task, engine)

    def _start(self, task: Task, engine: Engine) -> None:
        """``task`` got room on ``engine``: it runs from now."""
        now = self.now
        self.running_tasks += 1
        self.log.append(task_started_row(now, task.id, task.cores))
        if engine.shared:                         # bandwidth shared: the engine says when it ends
            self.reschedule(cast(Any, engine).begin(task, now))
            return
        duration = task.duration
        if callable(duration):
            duration = duration(task.cores)
        self._push(now + duration, FINISH, task)

    def _finish(self, task: Task) -> None:
        now = self.now
        task.end_t = now
        stream = task.stream
        status, message = 0, ""
        hooks = self.hooks
        dropped = task.status
        if dropped:
            status = dropped                      # dropped (destroyed by force, aborted) or stopped
        elif stream.context.failure and stream.error_stop:
            status = stream.error_stop            # stop-on-failure: later tasks are discarded
            message = ("discarded: the context stopped on an earlier failure (ACL_STOP_ON_FAILURE): "
                       + stream.context.failure_message)
        elif hooks.task_fault and (fault := _fault(hooks.task_fault, task)):
            status, message = fault               # an injected fault: the data effect does not happen
        elif task.effect is not None:
            try:
                outcome = task.effect()
            except AclError as exc:               # the host memory budget cannot back the bytes: nothing written
                outcome = exc.code, exc.message
            if isinstance(outcome, tuple):
                status, message = outcome
            elif outcome:
                status = outcome
        task.effect = None                        # done with: frees the buffers and views it held
        if hooks.task_finished:
            for finished in hooks.task_finished:
                finished(task, status)
        task.status = status
        task.done = True
        if status and not dropped:
            stream.record_failure(task, status, message)
        engine = task.engine
        if engine is not None:
            self.running_tasks -= 1
            engine.release(task)
            if engine.shared:
                self.reschedule(cast(Any, engine).end(task, now))
        self.log.append(task_finished_row(now, task.id, status))
        queue = stream.queue
        queue.popleft()
        if queue:
            nxt = queue[0]
            if nxt.submit_t <= now:
                self._ready(nxt)
            else:
                self._push(nxt.submit_t, ARRIVE, nxt)
        if task.waiters:
            for waiter in task.waiters:
                self._ready(waiter)
            task.waiters = None
        if engine is not None and engine.waiting:
            self._start_waiting(engine)


def _fault(checks, task):
    """The first (code, message) a ``task_fault`` hook gives ``task``, or None."""
    for check in checks:
        fault = check(task)
        if fault:
            return fault
    return None
