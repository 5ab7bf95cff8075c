"""Stream-ordered memory pools: aclrtMemPoolCreate / MallocAsync / FreeAsync / TrimTo / attributes.

Rules (RT-API 11-10 "Stream有序内存分配", acl_rt_memory_soma.h, acl memory.cpp):

* Only on A2 (910B) devices; the call is an experimental feature there.  Other chips answer
  207000 ACL_ERROR_RT_FEATURE_NOT_SUPPORT (the profile's ``mem_pool_supported``).
* aclrtMemPoolProps: the acl layer checks its members (100000, acl/_pool_props.py).
* MallocAsync needs a pool and a non-null stream (100000); size 0 succeeds and hands out 0.
* FreeAsync gives the block back to the pool, not to the device.  The pool keeps the
  physical memory; memory above the release threshold (default 0) goes back to the device
  at the next synchronize, and TrimTo(minBytesToKeep) gives back what it can right away.
  TrimTo wins over the threshold.  Memory in use is never given back.
* Reuse: "the free block whose size is closest to the request"; within one stream, blocks
  freed by earlier tasks of that stream; between streams, blocks freed by tasks that an
  event orders before the allocation (FOLLOW_EVENT_DEPENDENCIES), any block whose free has
  finished (ALLOW_OPPORTUNISTIC), or any block with an implicit wait added
  (ALLOW_INTERNAL_DEPENDENCIES).
* RESERVED_MEM_* and USED_MEM_* are read-only, except that a HIGH mark may be set to 0
  (which resets it to the current value).

Choices where the docs are silent (documented, and tested):

* Which stream-to-stream reuse modes are on by default is not documented: we turn on event
  dependencies only, so a program's reuse never depends on timing.  The reuse switches take
  1 (on) and 2 (off) as documented; 0 is also taken as off.
* The pool takes device memory in 2 MiB-page segments (each at least the request, rounded up
  to 2 MiB), cut into blocks of ALIGN_UP(size, 32) + 32 rounded to 64 bytes, so every block
  starts 64-byte aligned as aclrtMalloc memory does.  A segment goes back to the device only
  when nothing in it is in use or waiting for its free.  maxSize caps the segments' total
  (0: no cap).  A request the cap or the device cannot hold is 207001
  ACL_ERROR_RT_MEMORY_ALLOCATION.
* The stream must be on the pool's device (107000 otherwise, like other cross-device calls).
* On a capturing stream MallocAsync and FreeAsync are 207000, refused before anything changes
  (a graph's memory nodes are the driver's, whose code is not in the sources).
* aclrtFree of a pool block is 207002 ACL_ERROR_RT_MEMORY_FREE (use FreeAsync); FreeAsync of
  memory that is not a live pool block start is 207002 too.
* Destroying a pool releases its segments at once, blocks still in use included.
* USED_MEM counts blocks from the allocation task's completion to the free task's
  completion (stream order), RESERVED_MEM the segments the pool holds.

In the trace, segments are MemAllocated/MemFreed records with policy "pool <handle>" (so
the memory map shows the pool's reserved blocks); PoolBlockAllocated / PoolBlockFreed say
which bytes are in use, by which stream, and when a block is pending-free.
"""
from __future__ import annotations

from .. import constants as C, hazards, trace as T
from ..errors import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, ACL_ERROR_RT_MEMORY_ALLOCATION,
                     ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_RT_PARAM_INVALID, describe, fail)
from ..allocator import HUGE_PAGE, DeviceAllocation, align_up
from ..tasks import Task

ON, OFF = 1, 2
REUSE_ATTRS = (C.ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, C.ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC,
               C.ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES)
ATTR_NAMES = {v: k for k, v in vars(C).items() if k.startswith("ACL_RT_MEM_POOL_")}


def block_size(size: int) -> int:
    """Bytes a request takes inside a pool segment: ALIGN_UP(size, 32) + 32, 64-byte multiples."""
    return align_up(align_up(size, 32) + 32, 64)


class Block:
    """A piece of a segment: in use (``alloc`` set) or freed (``free_task`` set)."""
    __slots__ = ("ptr", "size", "stream", "free_task", "alloc")

    def __init__(self, ptr, size, stream=None, free_task=None, alloc=None):
        self.ptr, self.size, self.stream, self.free_task, self.alloc = ptr, size, stream, free_task, alloc


class Pool:
    def __init__(self, handle: int, device: int, pid: int, max_size: int):
        self.handle = handle
        self.device = device
        self.pid = pid
        self.max_size = max_size
        self.label = f"pool {handle:#x}"
        self.threshold = 0
        self.reuse = {C.ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES: ON,
                      C.ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC: OFF,
                      C.ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES: OFF}
        self.segments: dict[int, int] = {}           # start -> length
        self.fresh: list[list[int]] = []             # never handed out: sorted [start, length]
        self.freed: list[Block] = []                 # given back by FreeAsync (pending or done)
        self.live: dict[int, Block] = {}             # ptr -> block in use
        self.reserved = self.reserved_high = 0
        self.used = self.used_high = 0
        self.alive = True


class PoolState:
    """One machine's pools; made with the first pool, when the hooks below start to matter."""

    def __init__(self, m):
        self.pools: dict[int, Pool] = {}
        self.blocks: dict[int, tuple[Pool, Block]] = {}     # live block ptr -> (pool, block)
        m.hooks.add("after_sync", lambda th, sync: sync_point(m, th, sync.device))
        m.hooks.add("process_ending", lambda th, proc: release_process(m, th, proc))


def state(m) -> PoolState:
    return m.feature(PoolState)


def _pool(m, handle) -> Pool:
    pool = state(m).pools.get(handle) if handle else None
    if pool is None or not pool.alive:
        fail(ACL_ERROR_INVALID_PARAM, f"{describe(handle)} is not a live memory pool handle (from aclrtMemPoolCreate)")
    return pool


# -- create / destroy -------------------------------------------------------------------------------
def create(m, th, device_id, max_size: int) -> int:
    """The props, checked by the acl layer (acl/_pool_props.py), give the device and maxSize."""
    device = m.device(device_id).index
    if not m.profile.mem_pool_supported:
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             f"aclrtMemPoolCreate: memory pools are supported on Atlas A2 (910B) only, not on {m.profile.soc_name}")
    pool = Pool(m.new_handle(), device, th.process.pid, max_size)
    state(m).pools[pool.handle] = pool
    m.log.append(T.PoolCreated(th.clock, pool.handle, device, pool.pid, max_size))
    return pool.handle


def destroy(m, th, handle) -> None:
    _destroy(m, th, _pool(m, handle))


def _destroy(m, th, pool: Pool) -> None:
    st = state(m)
    mem = m.devices[pool.device].memory
    for ptr in sorted(pool.live):
        block = pool.live.pop(ptr)
        hazards.freeing(m, th, block.alloc, "aclrtMemPoolDestroy")
        mem.unmap(block.alloc)
        block.alloc.freed = True
        st.blocks.pop(ptr, None)
    for start in sorted(pool.segments):
        _release_segment(m, th, pool, start)
    pool.alive = False
    st.pools.pop(pool.handle, None)
    m.log.append(T.PoolDestroyed(th.clock, pool.handle))


def release_process(m, th, proc) -> None:
    """Process exit: its pools go with it."""
    st = state(m)
    for handle in sorted(h for h, p in st.pools.items() if p.pid == proc.pid):
        _destroy(m, th, st.pools[handle])


# -- segments --------------------------------------------------------------------------------------------
def _grow(m, th, pool: Pool, need: int) -> None:
    """Take a new segment of 2 MiB pages from the device for a request of ``need`` bytes."""
    length = align_up(need, HUGE_PAGE)
    if pool.max_size and pool.reserved + length > pool.max_size:
        fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
             f"{pool.label} on device {pool.device} would exceed its maxSize of {pool.max_size} bytes: it holds "
             f"{pool.reserved} bytes ({pool.used} in use) and needs a {length}-byte segment more; free blocks with "
             "aclrtMemPoolFreeAsync, or trim the pool (aclrtMemPoolTrimTo) so that free segments go back")
    mem = m.devices[pool.device].memory
    start = mem.take_range(length, HUGE_PAGE)
    if start is None:
        fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
             f"out of device memory on device {pool.device}: {pool.label} needs a {length}-byte segment, "
             f"{mem.free_bytes('huge')} bytes are free in whole 2 MiB pages")
    pool.segments[start] = length
    pool.fresh.append([start, length])
    pool.fresh.sort()
    pool.reserved += length
    pool.reserved_high = max(pool.reserved_high, pool.reserved)
    m.log.append(T.MemAllocated(th.clock, pool.device, start, length, length, pool.label, "huge", pool.pid, th.tid,
                                th.call_seq))


def _releasable(pool: Pool, start: int) -> bool:
    end = start + pool.segments[start]
    return (not any(start <= ptr < end for ptr in pool.live)
            and not any(start <= b.ptr < end and not b.free_task.done for b in pool.freed))


def _release_segment(m, th, pool: Pool, start: int) -> None:
    length = pool.segments.pop(start)
    end = start + length
    pool.fresh = [r for r in pool.fresh if not start <= r[0] < end]
    pool.freed = [b for b in pool.freed if not start <= b.ptr < end]
    pool.reserved -= length
    m.devices[pool.device].memory.give_back(start, length)
    m.log.append(T.MemFreed(th.clock, pool.device, start, th.call_seq))


def _shrink_to(m, th, pool: Pool, keep: int) -> None:
    """Give free segments back to the device, highest address first, while more than ``keep`` is held."""
    for start in sorted(pool.segments, reverse=True):
        if pool.reserved <= keep:
            return
        if _releasable(pool, start):
            _release_segment(m, th, pool, start)


def sync_point(m, th, device: int) -> None:
    """A synchronize on ``device``: pools above their release threshold give free memory back."""
    for _, pool in sorted(state(m).pools.items()):
        if pool.device == device and pool.reserved > pool.threshold:
            _shrink_to(m, th, pool, pool.threshold)


def trim_to(m, th, handle, min_bytes_to_keep: int) -> None:
    pool = _pool(m, handle)
    if min_bytes_to_keep < 0:
        fail(ACL_ERROR_INVALID_PARAM, f"minBytesToKeep must be >= 0, got {min_bytes_to_keep}")
    _shrink_to(m, th, pool, min_bytes_to_keep)


# -- malloc / free ---------------------------------------------------------------------------------------------
def _pick(pool: Pool, need: int, stream, vc: dict):
    """(block, implicit wait) of the closest-size freed block this allocation may reuse, or None."""
    follow = pool.reuse[C.ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES] == ON
    opportunistic = pool.reuse[C.ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC] == ON
    internal = pool.reuse[C.ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES] == ON
    best = None
    for b in pool.freed:
        if b.size < need:
            continue
        wait = None
        if not (b.free_task.stream is stream                         # stream order puts the free first
                or (follow and hazards.before(b.free_task, vc))     # an event (or a synchronize) does
                or (opportunistic and b.free_task.done)):
            if not internal:
                continue
            wait = b.free_task                    # the runtime adds the wait itself
        rank = (wait is not None, b.size, b.ptr)
        if best is None or rank < best[0]:
            best = (rank, b, wait)
    return None if best is None else (best[1], best[2])


def _carve(pool: Pool, need: int) -> int | None:
    """Closest-size untouched range that holds ``need`` bytes: its start (the range shrinks)."""
    best = None
    for r in pool.fresh:
        if r[1] >= need and (best is None or (r[1], r[0]) < (best[1], best[0])):
            best = r
    if best is None:
        return None
    start = best[0]
    best[0] += need
    best[1] -= need
    if best[1] == 0:
        pool.fresh.remove(best)
    return start


def malloc_async(m, th, size: int, handle, stream_handle) -> int:
    pool = _pool(m, handle)
    if not stream_handle:
        fail(ACL_ERROR_INVALID_PARAM, "aclrtMemPoolMallocAsync needs a stream (the default stream, 0, is not accepted)")
    stream = m.stream(th, stream_handle, api="aclrtMemPoolMallocAsync")
    _not_in_capture(stream, "aclrtMemPoolMallocAsync")
    if size == 0:
        return 0
    if stream.device != pool.device:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{pool.label} is on device {pool.device}, but stream {stream.stream_id} "
             f"runs on device {stream.device}")
    need = block_size(size)
    picked = _pick(pool, need, stream, hazards.clock_for(m, th, stream))
    wait = None
    if picked is not None:
        block, wait = picked
        pool.freed.remove(block)
        ptr, reused = block.ptr, True
        if block.size > need:               # the rest stays freed, with the same free task
            pool.freed.append(Block(ptr + need, block.size - need, block.stream, block.free_task))
    else:
        ptr = _carve(pool, need)
        if ptr is None:
            _grow(m, th, pool, need)
            ptr = _carve(pool, need)
        reused = False
    alloc = DeviceAllocation(pool.device, ptr, size, ptr, need, "huge", pool.label, th.process.pid, th.tid)
    alloc.resets = th.process.device_resets.get(pool.device, 0)
    m.devices[pool.device].memory.map(alloc)
    block = Block(ptr, need, stream, None, alloc)
    pool.live[ptr] = block
    state(m).blocks[ptr] = (pool, block)

    def in_use():
        pool.used += need
        pool.used_high = max(pool.used_high, pool.used)
    task = m.submit(th, stream, Task.new("mem_pool", "MEM_POOL_MALLOC", effect=in_use, waits_on=wait,
                                         detail=(("pool", pool.handle), ("ptr", ptr), ("size", size))))
    m.log.append(T.PoolBlockAllocated(th.clock, pool.handle, pool.device, ptr, size, need, stream.handle, task.id,
                                      reused))
    return ptr


def _not_in_capture(stream, api: str) -> None:
    """Pool allocations recorded into a graph (memory nodes) are the driver's, not in the sources:
    not modelled, refused before anything changes."""
    if stream.capture is not None:
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"{api} on a capturing stream is not modelled: take the pool's "
             "blocks before aclmdlRICaptureBegin and give them back after aclmdlRICaptureEnd")


def free_async(m, th, ptr: int, stream_handle) -> None:
    st = state(m)
    entry = st.blocks.get(ptr)
    if entry is None:
        inside = m.buffer(ptr)
        hint = ("it points into a pool block; free the start address" if inside is not None
                and getattr(inside, "policy", "").startswith("pool ") else
                "it was not allocated by aclrtMemPoolMallocAsync or was already freed")
        fail(ACL_ERROR_RT_MEMORY_FREE, f"aclrtMemPoolFreeAsync: {ptr:#x} is not a live pool block: {hint}")
    pool, block = entry
    stream = m.stream(th, stream_handle, api="aclrtMemPoolFreeAsync")
    _not_in_capture(stream, "aclrtMemPoolFreeAsync")
    if stream.device != pool.device:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"the block at {ptr:#x} belongs to {pool.label} on device {pool.device}, "
             f"but stream {stream.stream_id} runs on device {stream.device}")
    alloc = block.alloc

    def back_to_pool():
        """Stream-ordered: work queued before the free still sees the block as live memory."""
        pool.used -= block.size
        alloc.freed = True
        m.devices[pool.device].memory.unmap(alloc)
    task = m.submit(th, stream, Task.new("mem_pool", "MEM_POOL_FREE", effect=back_to_pool,
                                         detail=(("pool", pool.handle), ("ptr", ptr))))
    del st.blocks[ptr]
    del pool.live[ptr]
    block.stream, block.free_task, block.alloc = stream, task, None
    if pool.alive:
        pool.freed.append(block)
    m.log.append(T.PoolBlockFreed(th.clock, pool.handle, pool.device, ptr, stream.handle, task.id))
    hazards.freeing_on_stream(m, th, alloc, task)


# -- attributes ---------------------------------------------------------------------------------------------------
def get_attr(m, th, handle, attr: int) -> int:
    pool = _pool(m, handle)
    if attr in REUSE_ATTRS:
        return pool.reuse[attr]
    table = {C.ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD: pool.threshold,
             C.ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT: pool.reserved,
             C.ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH: pool.reserved_high,
             C.ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT: pool.used,
             C.ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH: pool.used_high}
    if attr not in table:
        fail(ACL_ERROR_INVALID_PARAM, f"unknown aclrtMemPoolAttr {attr!r}")
    return table[attr]


def set_attr(m, th, handle, attr: int, value: int) -> None:
    pool = _pool(m, handle)
    name = ATTR_NAMES.get(attr, repr(attr))
    if attr in REUSE_ATTRS:
        if value not in (0, ON, OFF):
            fail(ACL_ERROR_INVALID_PARAM, f"{name} takes 1 (on) or 2 (off), got {value!r}")
        pool.reuse[attr] = ON if value == ON else OFF
    elif attr == C.ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD:
        if value < 0:
            fail(ACL_ERROR_INVALID_PARAM, f"{name} must be >= 0 bytes, got {value}")
        pool.threshold = value
    elif attr in (C.ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH, C.ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH):
        if value != 0:
            fail(ACL_ERROR_INVALID_PARAM, f"{name} can only be set to 0 (to reset the high-water mark), got {value!r}")
        if attr == C.ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH:
            pool.reserved_high = pool.reserved
        else:
            pool.used_high = pool.used
    elif attr in (C.ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT, C.ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT):
        fail(ACL_ERROR_INVALID_PARAM, f"{name} is read-only")
    else:
        fail(ACL_ERROR_INVALID_PARAM, f"unknown aclrtMemPoolAttr {attr!r}")
