"""The seam between the machine and its optional features: every hook, and when it fires.

Graph capture, pools, faults, callbacks, peer links and the grader's recorder plug into a
machine only here (hazards too, but they are always on: ``Machine.hazards``).  A feature registers its functions when it is first used
(``Machine.feature`` makes its state then), so a program that never captures a graph or
injects a fault pays nothing for them: the machine tests a hook list, finds it empty and
goes on.  Each list holds plain functions, called in registration order.

* ``intercept(th, stream, task)`` -- in ``Machine.submit``, before anything else, with the
  task not submitted yet: may refuse the submission (raise through ``fail``) or take it
  (return what stands for the task, e.g. a captured ``Recorded``); None lets it go on.  Graph capture, while a capture
  is active.
* ``submitted(th, stream, task)`` -- in ``Machine.submit``, once the task is in its
  stream's queue, in the trace and has its happens-before clock (hazards are not optional:
  the machine calls ``Checker.task_submitted`` itself).  ``task.access`` still holds the
  bytes it touches.  The grader's recorder.
* ``before_sync(th, sync)`` -- in ``sync.synchronize``, before the wait: may refuse it
  (graph capture: 107041, and the capture is invalidated).
* ``after_sync(th, sync)`` -- in ``sync.synchronize``, after the wait and its cost, before
  device errors are reported.  Pools give memory above their threshold back.
* ``task_fault(task)`` -- in the simulator, when a task completes, before its data effect:
  (code, message) fails the task, the effect does not run.  Injected faults.
* ``task_finished(task, status)`` -- in the simulator, after a task's effect (or its
  failure), before the tasks waiting on it go on.  The grader's recorder.
* ``stream_state(stream, state)`` -- a default or created stream was made (1) or goes (2): core/features/streams.py.
* ``address(ptr)`` -- in ``Machine.buffer``, for an address outside every device's own range:
  the buffer it maps to, or None.  Virtual memory management, once used.
* ``thread_ended(th)`` -- when a host thread has ended (``threads.thread_finished``), joiners
  released.  Simulated processes end with their last thread.
* ``process_ending(th, process)`` -- when a process ends (its last thread ended), before its
  contexts and memory are released.  Pools destroy the process's pools.

``Scheduler.hints`` (core/host_turns.py) is the one hook outside: why a parked thread's wait
can never end (callbacks: BLOCK callbacks nobody runs).
"""
from __future__ import annotations


class Hooks:
    """One machine's registered hook functions (see the module docstring)."""
    intercept: list
    submitted: list
    before_sync: list
    after_sync: list
    task_fault: list
    task_finished: list
    process_ending: list
    stream_state: list
    address: list
    thread_ended: list
    __slots__ = tuple(__annotations__)

    def __init__(self):
        # (each by name: a compiled Hooks, core/native.py, keeps no __slots__ to go through)
        self.intercept, self.submitted, self.before_sync, self.after_sync = [], [], [], []
        self.task_fault, self.task_finished, self.process_ending = [], [], []
        self.stream_state, self.address, self.thread_ended = [], [], []

    def add(self, name: str, fn) -> None:
        getattr(self, name).append(fn)

    def remove(self, name: str, fn) -> None:
        hooks = getattr(self, name)
        if fn in hooks:
            hooks.remove(fn)
