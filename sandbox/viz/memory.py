"""What the device memory map shows at time t, as data: blocks, holes and the free figures.

Used and free count reserved bytes (what the allocator took, page rounding included),
which is what aclrtGetMemInfo reports; the requested sizes are kept beside them so a
learner can see what rounding to huge pages cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sandbox.viz.index import build_index, pool_handle

MiB = 1 << 20


@dataclass(frozen=True, slots=True)
class MemBlock:
    ptr: int
    offset: int  # from the start of the device's address space
    size: int  # requested
    reserved: int  # taken
    policy: str
    page: str
    label: str
    pool: int
    stream: int  # owner stream of a stream-ordered allocation, else 0
    pending_free: bool  # the host asked to free it; queued work still holds it
    allocated: int
    kind: str = "block"  # "block", "pool segment" (memory a pool holds) or "pool block"
    owner: str = ""  # the owner stream's label, for pool blocks


@dataclass(frozen=True)
class DeviceMemory:
    device: int
    base: int
    total: int
    blocks: tuple  # MemBlock, by address (pool blocks after their segment)
    used: int  # reserved bytes in live blocks and pool segments
    requested: int  # requested bytes in live blocks
    free: int
    largest_free: int
    holes: int  # free extents between and around blocks
    window: int  # bytes from base shown by the map (same for every t)

    @property
    def fragmentation(self) -> float:
        """1 - largest free extent / free bytes: 0 when all free space is one piece."""
        return 0.0 if self.free == 0 else 1.0 - self.largest_free / self.free


@dataclass(frozen=True)
class MemoryMap:
    t: int
    devices: tuple  # DeviceMemory, by device id
    host: tuple  # pinned host MemBlocks (offset is 0)

    @property
    def host_bytes(self) -> int:
        return sum(b.reserved for b in self.host)

    def device(self, n: int) -> DeviceMemory:
        for d in self.devices:
            if d.device == n:
                return d
        raise KeyError(n)


@dataclass(frozen=True, slots=True)
class Lifetime:
    """One block's life with the names the map gives it (the same at every t)."""

    block: Any  # index.Block or a pool's block
    offset: int
    kind: str
    pool: int
    policy: str
    label: str
    owner: str


def lifetimes(log) -> list[Lifetime]:
    """Every block, pool segment and pool block of the log, named and placed, in
    allocation order (device blocks first, then pool blocks)."""
    ix = build_index(log)
    ordinal: dict[int, int] = {}
    pool_ordinal: dict[int, int] = {}
    out = []
    tagged = [(b, False) for b in ix.blocks] + [(b, True) for b in ix.pool_blocks]
    for b, from_pool in tagged:
        pool = 0
        policy = b.policy
        if from_pool:
            kind = "pool block"
            pool = ix.pools.get(b.pool, 0)
            n = pool_ordinal[b.pool] = pool_ordinal.get(b.pool, 0) + 1
            default = f"pool {pool} block {n}"
        else:
            kind = "pool segment" if b.policy.startswith("pool ") else "block"
            n = ordinal[b.device] = ordinal.get(b.device, 0) + 1
            if kind == "pool segment":
                pool = ix.pools.get(pool_handle(b.policy), 0)
                policy = ix.pool_label(pool_handle(b.policy))  # the number, not the handle
            default = (
                f"host {n}" if b.device < 0 else f"pool {pool} segment" if kind == "pool segment" else f"block {n}"
            )
        space = ix.spaces.get(b.device)
        base = space.base if space else 0
        out.append(
            Lifetime(
                b, b.ptr - base, kind, pool, policy, b.label or default, ix.stream_label(b.stream) if b.stream else ""
            )
        )
    return out


def memory_map(log, t: int) -> MemoryMap:
    """Live allocations of every device (and pinned host memory) at time ``t``."""
    ix = build_index(log)
    live: dict[int, list[MemBlock]] = {}
    reach: dict[int, int] = {}
    for life in lifetimes(ix):
        b = life.block
        reach[b.device] = max(reach.get(b.device, 0), life.offset + b.reserved)
        if not (b.allocated <= t and (b.freed is None or b.freed > t)):
            continue
        pending = b.free_called is not None and b.free_called <= t
        live.setdefault(b.device, []).append(
            MemBlock(
                b.ptr,
                life.offset if b.device >= 0 else 0,
                b.size,
                b.reserved,
                life.policy,
                b.page,
                life.label,
                life.pool,
                b.stream,
                pending,
                b.allocated,
                life.kind,
                life.owner,
            )
        )
    devices = []
    for d in opened_devices(ix):
        space = ix.spaces.get(d)
        total = space.size if space else (ix.machine.memory_bytes if ix.machine else 0)
        base = space.base if space else 0
        blocks = tuple(sorted(live.get(d, []), key=lambda m: (m.ptr, m.kind == "pool block")))
        devices.append(_figures(d, base, total, blocks, reach.get(d, 0)))
    host = tuple(sorted(live.get(-1, []), key=lambda m: m.ptr))
    return MemoryMap(t, tuple(devices), host)


def _figures(device, base, total, blocks, reach) -> DeviceMemory:
    """Pool blocks sit inside their segment, which already counts as used."""
    held = [b for b in blocks if b.kind != "pool block"]
    used = sum(b.reserved for b in held)
    gaps, cursor = [], 0
    for b in held:
        if b.offset > cursor:
            gaps.append(b.offset - cursor)
        cursor = max(cursor, b.offset + b.reserved)
    if total > cursor:
        gaps.append(total - cursor)
    return DeviceMemory(
        device,
        base,
        total,
        blocks,
        used,
        sum(b.size for b in held),
        max(0, total - used),
        max(gaps, default=0),
        len(gaps),
        window(reach, total),
    )


def window(reach: int, total: int) -> int:
    """The address range worth drawing: everything ever allocated plus room, in whole MiB
    rounded to a power of two, so small programs are not a sliver of a 64 GiB bar."""
    if reach <= 0:
        return total
    w = 4 * MiB
    while w < reach * 5 // 4:
        w *= 2
    return min(w, total) if total else w


def peak_reserved(log, device: int | None = None) -> int:
    """The most device bytes reserved at one moment (all devices together, or one)."""
    steps = []
    for b in build_index(log).blocks:
        if b.device < 0 or (device is not None and b.device != device):
            continue
        steps.append((b.allocated, 1, b.reserved))
        if b.freed is not None:
            steps.append((b.freed, 0, -b.reserved))
    level = peak = 0
    for _t, _order, delta in sorted(steps):
        level += delta
        peak = max(peak, level)
    return peak


def opened_devices(ix) -> list[int]:
    """Devices the program has used (a stream, a task or memory): an 8-device server where one
    device ran shows one bar, not seven empty ones.  With nothing used yet, every device."""
    used = {s.device for s in ix.streams.values() if not s.label}
    used.update(t.device for t in ix.tasks.values())
    used.update(b.device for b in ix.blocks if b.device >= 0)
    return sorted(used) if used else ix.devices
