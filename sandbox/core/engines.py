"""Engines: the hardware units tasks compete for.

Each device has an AI Core pool and one DMA engine per direction (H2D, D2H, and on-device
copies/memsets), so copies in the two directions and compute overlap for real.  Ready
tasks wait in order of (stream priority, ready time, submission order); a running task is
never preempted.  A kernel of block_dim b takes min(b, cores) cores and runs in waves.
"""
from __future__ import annotations

import heapq


class Engine:
    """A single-lane engine (one DMA queue): one task at a time."""

    def __init__(self, name: str, device: int):
        self.name = name
        self.device = device
        self.waiting: list = []          # heap of (priority, ready_t, order, task)
        self.busy_until = 0
        self.running = 0

    def capacity_for(self, task) -> int:
        return 1

    def has_room(self, need: int) -> bool:
        return self.running == 0

    def enqueue(self, task) -> None:
        heapq.heappush(self.waiting, (task.priority, task.ready_t, task.order, task))

    def startable(self):
        """Pop and yield tasks that can start now, in priority order (no backfilling)."""
        while self.waiting:
            task = self.waiting[0][3]
            need = self.capacity_for(task)
            if not self.has_room(need):
                return
            heapq.heappop(self.waiting)
            self.running += need
            task.cores = need if need > 1 or self.name == "AI Core" else 0
            yield task

    def release(self, task) -> None:
        self.running -= self.capacity_for(task)


class CorePool(Engine):
    """The AI Cores of one device, shared by concurrent kernels."""

    def __init__(self, name: str, device: int, cores: int):
        super().__init__(name, device)
        self.cores = cores

    def capacity_for(self, task) -> int:
        return max(1, min(task.block_dim, self.cores))

    def has_room(self, need: int) -> bool:
        return self.cores - self.running >= need
