"""Engines: the hardware units tasks compete for.

Each device has an AI Core pool and one DMA engine per direction (H2D, D2H, and on-device
copies/memsets), so copies in the two directions and compute overlap for real.  Ready
tasks wait in order of (stream priority, ready time, submission order); a running task is
never preempted.  A kernel of block_dim b takes min(b, cores) cores and runs in waves.

Peer links between devices are different: copies on them do not queue but share the
bandwidth (SharedLink over a LinkFabric, max-min fair), so their finish times move as
other copies come and go.
"""
from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING

from .native import mypyc_attr

if TYPE_CHECKING:
    from .tasks import Task


@mypyc_attr(allow_interpreted_subclasses=True)   # (the compiled build: core/features/callbacks.py subclasses it)
class Engine:
    """A single-lane engine (one DMA queue): one task at a time.  ``shared`` engines (peer links,
    callbacks) never queue: their tasks share them.  (A field, not a class attribute: a compiled
    Engine reads its own field, which a subclass's class attribute would not change.)"""

    def __init__(self, name: str, device: int, shared: bool = False):
        self.name = name
        self.device = device
        self.shared = shared             # True: tasks share bandwidth instead of queueing
        self.waiting: list = []          # heap of (priority, ready_t, task id, task)
        self.running = 0

    def enqueue(self, task: Task) -> None:
        heapq.heappush(self.waiting, (task.priority, task.ready_t, task.id, task))

    def start_next(self):
        """Pop the task that can start now, or None: priority order, no backfilling."""
        if not self.waiting or not self.claim_room(self.waiting[0][3]):
            return None
        return heapq.heappop(self.waiting)[3]

    def claim_room(self, task: Task) -> bool:
        """Room for ``task`` now (the device loop asks first whether anything waits: then it queues):
        one lane has room when idle; an engine that shares its bandwidth (``shared``) always has."""
        if self.running and not self.shared:
            return False
        self.running += 1
        task.cores = 0
        return True

    def release(self, task: Task) -> None:
        self.running -= 1


class CorePool(Engine):
    """The AI Cores of one device, shared by concurrent kernels."""

    def __init__(self, name: str, device: int, cores: int):
        super().__init__(name, device)
        self.cores = cores

    def claim_room(self, task: Task) -> bool:
        """Room for ``task``'s cores now: min(block_dim, cores, its limit), at least one."""
        cores = self.cores
        need = max(1, min(task.block_dim, cores, task.core_limit or cores))   # limit: aclrtSetDeviceResLimit
        if cores - self.running < need:                                          # (core/features/device_resources.py)
            return False
        self.running += need
        task.cores = need
        return True

    def release(self, task: Task) -> None:
        self.running -= task.cores           # the cores it was given when it started


class Link:
    """One direction of one physical link (or port): a bandwidth that copies share."""
    __slots__ = ("name", "capacity")

    def __init__(self, name: str, bandwidth: float):
        self.name = name
        self.capacity = bandwidth / 1e9          # bytes per ns

    def __repr__(self) -> str:
        return f"<Link {self.name}>"


class _Flow:
    __slots__ = ("task", "links", "remaining", "rate", "prev_rate", "active_from", "next_t", "waking")

    def __init__(self, task, links, nbytes: int, active_from: int):
        self.task = task
        self.links = links
        self.remaining = float(nbytes)
        self.rate = 0.0
        self.prev_rate = 0.0
        self.active_from = active_from
        self.next_t: int | None = None
        self.waking = False


class LinkFabric:
    """Processor sharing over a set of links, with max-min fair bandwidth shares.

    A copy first spends its fixed start-up latency (using no bandwidth), then drains its
    bytes.  Every draining copy gets its max-min fair share of the links it crosses: the
    most contended link is split equally among its copies, those copies are fixed at that
    rate, and the rest of the capacity is shared again among the others.  Whenever a copy
    starts draining or finishes, the shares are recomputed and the finish times of the
    copies whose rate changed move; ``begin``/``wake``/``end`` return those moves as
    (task, time) pairs for the simulator to reschedule.  Times are integer ns; flows are
    kept in start order, so ties are broken by that order.
    """

    def __init__(self):
        self.flows: list[_Flow] = []
        self._by_task: dict[int, _Flow] = {}
        self._last = 0

    def begin(self, task, links, nbytes: int, latency_ns: int, now: int) -> list:
        self._advance(now)
        flow = _Flow(task, tuple(links), nbytes, now + latency_ns)
        self.flows.append(flow)
        self._by_task[task.id] = flow
        return self._plan(now)

    def due(self, task, now: int) -> bool:
        """True if ``task``'s current event is its finish (not the end of its start-up)."""
        return not self._by_task[task.id].waking

    def wake(self, task, now: int) -> list:
        """``task``'s start-up latency is over: it starts draining bytes."""
        self._advance(now)
        return self._plan(now)

    def end(self, task, now: int) -> list:
        self._advance(now)
        flow = self._by_task.pop(task.id)
        self.flows.remove(flow)
        return self._plan(now)

    def rate_of(self, task) -> float:
        """Current bytes/ns of a running copy (0 during its start-up)."""
        flow = self._by_task.get(task.id)
        return 0.0 if flow is None else flow.rate

    # -- internals ------------------------------------------------------------------------
    def _advance(self, now: int) -> None:
        elapsed = now - self._last
        if elapsed > 0:
            for flow in self.flows:
                if flow.rate:
                    flow.remaining = max(0.0, flow.remaining - flow.rate * elapsed)
        self._last = now

    def _share(self, now: int) -> None:
        """Max-min fair rates of the draining flows (progressive filling)."""
        pending = [f for f in self.flows if f.active_from <= now]
        for flow in self.flows:
            flow.prev_rate, flow.rate = flow.rate, 0.0
        capacity: dict[Link, float] = {}
        for flow in pending:
            for link in flow.links:
                capacity.setdefault(link, link.capacity)
        while pending:
            bottleneck, share = None, 0.0
            for link, left in capacity.items():          # insertion order: deterministic
                users = sum(1 for f in pending if link in f.links)
                if users and (bottleneck is None or left / users < share):
                    bottleneck, share = link, left / users
            share = max(share, 1e-9)
            fixed = [f for f in pending if bottleneck in f.links]
            for flow in fixed:
                flow.rate = share
                for link in flow.links:
                    capacity[link] = max(0.0, capacity[link] - share)
            pending = [f for f in pending if bottleneck not in f.links]

    def _plan(self, now: int) -> list:
        self._share(now)
        moves = []
        for flow in self.flows:
            if now < flow.active_from:
                when, waking = flow.active_from, True
            elif flow.next_t is not None and not flow.waking and flow.rate == flow.prev_rate:
                continue                                 # same rate: its finish stays put
            else:
                when, waking = now + math.ceil(flow.remaining / flow.rate), False
            if when != flow.next_t or waking != flow.waking:
                flow.next_t, flow.waking = when, waking
                moves.append((flow.task, when))
        return moves


class SharedLink(Engine):
    """The path of peer copies from one device to another over a LinkFabric.

    Copies never queue here: each starts at once and shares the bandwidth of the links it
    crosses with every other copy on them (processor sharing).
    """
    def __init__(self, name: str, device: int, fabric: LinkFabric, links, latency_ns: int):
        super().__init__(name, device, shared=True)
        self.fabric = fabric
        self.links = tuple(links)
        self.latency_ns = latency_ns

    def begin(self, task, now: int) -> list:
        return self.fabric.begin(task, self.links, task.nbytes, self.latency_ns, now)

    def due(self, task, now: int) -> bool:
        return self.fabric.due(task, now)

    def wake(self, task, now: int) -> list:
        return self.fabric.wake(task, now)

    def end(self, task, now: int) -> list:
        return self.fabric.end(task, now)
