"""Device and host memory: the allocator's rules, lazy backing, and pointer lookup.

Device memory follows the runtime's documented rules (RT-API 11-01, memory.cpp):

* a request of ``size`` bytes is padded to ``ALIGN_UP(size, 32) + 32`` (no padding for
  1 GiB-page policies);
* the block is then rounded up to its page size: 2 MiB huge pages, 4 KiB normal pages,
  1 GiB pages; blocks start on a page boundary, so every start is 64-byte aligned;
* HUGE_FIRST takes normal pages for requests up to 1 MiB and huge pages above, falling
  back to normal pages when no huge run is free; HUGE_ONLY / NORMAL_ONLY never fall back;
  an unknown policy value acts as "huge from 2 MiB up, else normal".

Bytes are stored lazily: an allocation gets a numpy buffer only when something writes to
it, so allocating 60 GiB on a simulated device costs no host memory.  Unwritten device
memory reads as zeros.

Host memory budget: the bytes that back device and pinned buffers are real memory of the
host running the sandbox, so one machine may hold at most ``HostBudget.limit`` of them
(``sandbox.configure(host_memory_budget=bytes)``; by default half the host's memory, see
``default_host_budget``).  A write that would take more fails with 207001
ACL_ERROR_RT_MEMORY_ALLOCATION before it changes anything: a task (memset_async,
memcpy_async, a kernel) fails on the device and reports at the next synchronize, a blocking
call (memset, memcpy, acl.util.ptr_to_numpy) returns the code.  aclrtMallocHost of more
than the whole budget (pinned memory is physical memory) is refused at once, with 207001.
The bytes a buffer took come back when it is freed.  (Bytes that a task still in flight
writes into a buffer already freed -- a use after free, which the hazard checks report --
count until the machine is replaced.)
"""
from __future__ import annotations

import bisect
import functools
import numbers
import os

import numpy as np

from . import constants as C
from .errors import ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_RT_PARAM_INVALID, describe, fail

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
NORMAL_PAGE, HUGE_PAGE, HUGE1G_PAGE = 4 * KiB, 2 * MiB, GiB
PAGE_SIZES = {"normal": NORMAL_PAGE, "huge": HUGE_PAGE, "huge1g": HUGE1G_PAGE}

DEVICE_BASE = 0x1000_0000_0000        # device d lives at DEVICE_BASE + d * DEVICE_STRIDE
DEVICE_STRIDE = 0x0100_0000_0000      # 1 TiB of address space per device
PAGEABLE_BASE = 0x5500_0000_0000      # numpy arrays handed over with numpy_to_ptr / bytes_to_ptr
PINNED_BASE = 0x7F00_0000_0000        # aclrtMallocHost
HOST_ADDRESS_END = 1 << 64           # pinned buffers must end inside a 64-bit address space

CHUNK = 2 * MiB          # big buffers are stored as sparse 2 MiB chunks
SPARSE_FROM = 64 * MiB   # buffers from this size on start sparse

BUDGET_FLOOR = 256 * MiB        # the default budget is never less, however small the host looks


@functools.lru_cache(maxsize=1)
def default_host_budget() -> int:
    """Half the host's memory: the lesser of physical memory and the cgroup limit (a container,
    Binder), halved; at least BUDGET_FLOOR.  Not what happens to be free right now: that
    changes from run to run, and the budget shows in messages and traces, which must not."""
    sizes = []
    try:
        sizes.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
            if text.isdigit() and int(text) < 1 << 60:      # "max" or a huge number: no limit
                sizes.append(int(text))
        except OSError:
            pass
    return max(BUDGET_FLOOR, min(sizes, default=2 * BUDGET_FLOOR) // 2)


class HostBudget:
    """How many bytes of host memory one machine's device and pinned buffers may take."""
    __slots__ = ("limit", "used")

    def __init__(self, limit: int | None = None):
        if limit is None:
            limit = default_host_budget()
        elif isinstance(limit, bool) or not isinstance(limit, numbers.Integral):
            raise TypeError(f"host_memory_budget must be an int (bytes) or None, got {describe(limit)}")
        elif limit < 0:
            raise ValueError(f"host_memory_budget must be >= 0 bytes, got {limit}")
        self.limit = int(limit)
        self.used = 0

    def check(self, buf: "Buffer", need: int) -> None:
        """Fail with 207001, changing nothing, if ``need`` more bytes for ``buf`` do not fit."""
        if self.used + need > self.limit:
            fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                 f"the host memory budget is used up: the {buf.size}-byte {buf.kind} buffer at {buf.ptr:#x} "
                 f"needs {need} more bytes of host memory to hold what is written, but the sandbox's host memory "
                 f"budget is {self.limit} bytes and {self.used} are in use (only written bytes take host memory: "
                 "write less at a time, free buffers you are done with, or set "
                 "sandbox.configure(host_memory_budget=bytes))")

    def zeros(self, buf: "Buffer", nbytes: int, need: int | None = None) -> np.ndarray:
        """A zeroed array of ``nbytes`` for ``buf``, charged ``need`` (default ``nbytes``) bytes."""
        need = nbytes if need is None else need
        self.check(buf, need)
        try:
            storage = np.zeros(nbytes, dtype=np.uint8)
        except MemoryError:
            fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                 f"the host running the sandbox has no room for the {nbytes} bytes that back the {buf.size}-byte "
                 f"{buf.kind} buffer at {buf.ptr:#x} (its host memory budget is {self.limit} bytes, {self.used} "
                 "in use): set a smaller sandbox.configure(host_memory_budget=bytes)")
        self.used += need
        buf.charged += need
        return storage

    def give_back(self, buf: "Buffer") -> None:
        """``buf`` was freed: the bytes it took are free again (once)."""
        self.used -= buf.charged
        buf.charged = 0


def check_dense(buffers) -> None:
    """207001, before anything changes, if making every one of ``buffers`` dense (a kernel's
    pointer arguments) would take more host memory than their budget has left."""
    for buf in buffers:
        if buf._storage is None and buf.budget is not None:
            break
    else:
        return                        # the usual case: every argument is dense already
    need, seen, budget, biggest = 0, set(), None, None
    for buf in buffers:
        if buf._storage is None and buf.budget is not None and id(buf) not in seen:
            seen.add(id(buf))
            need += buf.size - buf.charged
            budget = buf.budget
            if biggest is None or buf.size > biggest.size:
                biggest = buf
    if budget is not None:
        budget.check(biggest, need)


def _zeros(buf: "Buffer", nbytes: int, need: int | None = None) -> np.ndarray:
    budget = buf.budget
    if budget is None:                        # outside any machine's accounting (tests of Buffer itself)
        return np.zeros(nbytes, dtype=np.uint8)
    return budget.zeros(buf, nbytes, need)


def align_up(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def padded_size(size: int, page: str, padding: bool = True) -> int:
    """Bytes the runtime reserves before page rounding: ALIGN_UP(size, 32) + 32 (no padding for
    1 GiB pages, nor for aclrtMallocAlign32: memory.cpp:383-387, 293-310)."""
    return align_up(size, 32) + 32 if padding and page != "huge1g" else align_up(size, 32)


def page_kinds(policy: int, size: int) -> tuple[str, ...]:
    """Page kinds to try, in order, for a policy (the P2P variants behave like their base)."""
    base = policy - 3 if policy in (3, 4, 5) else policy
    if base == C.ACL_MEM_MALLOC_HUGE_FIRST:
        return ("normal",) if size <= MiB else ("huge", "normal")
    if base == C.ACL_MEM_MALLOC_HUGE_ONLY:
        return ("huge",)
    if base == C.ACL_MEM_MALLOC_NORMAL_ONLY:
        return ("normal",)
    if policy in (C.ACL_MEM_MALLOC_HUGE1G_ONLY, C.ACL_MEM_MALLOC_HUGE1G_ONLY_P2P):
        return ("huge1g",)
    return ("huge",) if size >= 2 * MiB else ("normal",)


class Buffer:
    """Bytes at an address range: a device allocation, pinned host memory or a numpy array.

    Small buffers get one numpy array on first write.  Big ones keep a sparse dict of 2 MiB
    chunks, so only what is written takes host memory; a kernel that needs the whole
    buffer as one array turns it dense.  Bytes never written read as zeros.  Storage it makes
    is charged to ``budget`` (the machine's HostBudget; None: not counted, e.g. a numpy
    array's own bytes); ``charged`` is what it holds of it.
    """
    __slots__ = ("ptr", "size", "_storage", "_chunks", "budget", "charged", "__weakref__")
    kind = "buffer"
    device = -1
    writable = True              # storage the sandbox makes is; a numpy array's may not be (PageableBuffer)

    def __init__(self, ptr: int, size: int, storage: np.ndarray | None = None):
        self.ptr = ptr
        self.size = size
        self._storage = storage
        self._chunks: dict[int, np.ndarray] | None = {} if storage is None and size >= SPARSE_FROM else None
        self.budget: HostBudget | None = None
        self.charged = 0

    @property
    def end(self) -> int:
        return self.ptr + self.size

    def dense_view(self, offset: int = 0, nbytes: int | None = None) -> np.ndarray:
        """One writable uint8 array over [offset, offset+nbytes): the whole buffer becomes dense
        (207001 if the host memory budget cannot hold it)."""
        if self._storage is None:
            chunks = sum(chunk.size for chunk in (self._chunks or {}).values())
            storage = _zeros(self, self.size, self.size - chunks)      # the chunks go when it is filled
            for index, chunk in (self._chunks or {}).items():
                storage[index * CHUNK:index * CHUNK + chunk.size] = chunk
            self._storage, self._chunks = storage, None
        stop = self.size if nbytes is None else offset + nbytes
        return self._storage[offset:stop]

    def segments(self, offset: int, nbytes: int, create: bool):
        """(position, view or None) pieces covering [offset, offset+nbytes), in order.

        ``create``: make the storage the pieces need; if the host memory budget cannot hold
        all of it, 207001 before the first piece (so a write that fails writes nothing)."""
        if self._chunks is None:
            if self._storage is None and create:
                self._storage = _zeros(self, self.size)
            view = None if self._storage is None else self._storage[offset:offset + nbytes]
            yield 0, view, nbytes
            return
        if create and self.budget is not None:
            self.budget.check(self, self._missing(offset, nbytes))
        pos = 0
        while pos < nbytes:
            index, inner = divmod(offset + pos, CHUNK)
            length = min(CHUNK - inner, nbytes - pos)
            chunk = self._chunks.get(index)
            if chunk is None and create:
                chunk = self._chunks[index] = _zeros(self, min(CHUNK, self.size - index * CHUNK))
            yield pos, None if chunk is None else chunk[inner:inner + length], length
            pos += length

    def _missing(self, offset: int, nbytes: int) -> int:
        """Bytes of the chunks over [offset, offset+nbytes) that have no storage yet (sparse buffers)."""
        chunks, need = self._chunks, 0
        for index in range(offset // CHUNK, (offset + nbytes + CHUNK - 1) // CHUNK):
            if index not in chunks:  # type: ignore[operator]  # called for sparse buffers only
                need += min(CHUNK, self.size - index * CHUNK)
        return need

    def read_into(self, offset: int, out: np.ndarray) -> None:
        """Copy bytes starting at ``offset`` into ``out``; unwritten bytes read as zeros."""
        for pos, view, length in self.segments(offset, out.size, create=False):
            if view is None:
                out[pos:pos + length] = 0
            else:
                np.copyto(out[pos:pos + length], view)

    def copy_from(self, offset: int, src: "Buffer", src_offset: int, nbytes: int) -> None:
        if self._storage is not None and src._storage is not None:      # both dense: one slice copy
            self._storage[offset:offset + nbytes] = src._storage[src_offset:src_offset + nbytes]
            return
        if src._storage is None and not src._chunks:                     # never written: all zeros
            if self._storage is not None or self._chunks:                 # (onto bytes never written: nothing to do)
                self.fill(offset, nbytes, 0)
            return
        for pos, view, _ in self.segments(offset, nbytes, create=True):
            src.read_into(src_offset + pos, view)

    def fill(self, offset: int, nbytes: int, value: int) -> None:
        for _, view, _ in self.segments(offset, nbytes, create=value != 0):
            if view is not None:
                view[...] = value


class Alias:
    """A second address of ``of``'s bytes (an IPC import, a VMM mapping): reads and writes go to ``of``'s storage,
    which takes the host memory they need, and it hashes and compares as ``of``, so the hazard checks, which key accesses by
    buffer, see one buffer.  Put it before the Buffer class it mixes into."""
    __slots__ = ()
    of: Buffer
    _storage = property(lambda v: v.of._storage, lambda v, x: None)   # (Buffer.__init__'s reset is ignored)
    _chunks = property(lambda v: v.of._chunks, lambda v, x: None)

    def segments(self, offset: int, nbytes: int, create: bool):
        return self.of.segments(offset, nbytes, create)

    def dense_view(self, offset: int = 0, nbytes: int | None = None) -> np.ndarray:
        return self.of.dense_view(offset, self.size - offset if nbytes is None else nbytes)  # type: ignore[attr-defined]

    def __hash__(self):
        return hash(self.of)

    def __eq__(self, other):
        return other is self.of or (isinstance(other, Alias) and other.of is self.of)


class DeviceAllocation(Buffer):
    __slots__ = ("device", "reserved", "block", "page", "policy", "pid", "tid", "freed", "resets")
    kind = "device"

    def __init__(self, device, ptr, size, block, reserved, page, policy, pid, tid):
        super().__init__(ptr, size)
        self.device = device
        self.block = block            # start of the reserved block (== ptr)
        self.reserved = reserved
        self.page = page
        self.policy = policy
        self.pid = pid
        self.tid = tid
        self.freed = False
        self.resets = 0               # the owner's full resets of the device before the allocation


class PinnedBuffer(Buffer):
    __slots__ = ("pid", "freed")
    kind = "pinned"

    def __init__(self, ptr, size, pid):
        super().__init__(ptr, size)
        self.pid = pid
        self.freed = False


class PageableBuffer(Buffer):
    """A numpy array's bytes, seen through a sandbox address (pageable host memory).

    The buffer holds a view of the array, so the bytes stay valid for as long as the
    simulated machine lives, even if the learner's array (or a temporary view such as
    ``a[1]`` handed to numpy_to_ptr) goes away; ``sandbox.configure()`` starts afresh.
    """
    __slots__ = ("writable",)
    kind = "pageable"

    def __init__(self, ptr, array: np.ndarray):
        flat = array.reshape(-1).view(np.uint8)
        super().__init__(ptr, flat.size, flat)
        self.writable = flat.flags.writeable         # (a bytes object's are not: copies into it are refused)


class DeviceMemory:
    """One device's address space: first-fit over page-aligned free ranges."""

    def __init__(self, device: int, size: int):
        self.device = device
        self.base = DEVICE_BASE + device * DEVICE_STRIDE
        self.size = size
        self.free_ranges: list[list[int]] = [[self.base, size]]   # sorted [start, length]
        self.allocations: dict[int, DeviceAllocation] = {}
        self._starts: list[int] = []
        self.budget: HostBudget | None = None      # the machine's: what its allocations' bytes may take

    @property
    def used(self) -> int:
        return self.size - sum(length for _, length in self.free_ranges)

    def free_bytes(self, page: str | None = None) -> int:
        """Free bytes usable for a page kind (whole aligned pages only for huge kinds)."""
        if page in (None, "normal"):
            return sum(length for _, length in self.free_ranges)
        unit = PAGE_SIZES[page]
        return sum(max(0, (start + length - align_up(start, unit)) // unit * unit)
                   for start, length in self.free_ranges)

    def _find(self, reserved: int, alignment: int) -> int | None:
        for start, length in self.free_ranges:
            first = align_up(start, alignment)
            if first + reserved <= start + length:
                return first
        return None

    def _take(self, start: int, length: int) -> None:
        for i, (fstart, flen) in enumerate(self.free_ranges):
            if fstart <= start and start + length <= fstart + flen:
                pieces = []
                if start > fstart:
                    pieces.append([fstart, start - fstart])
                if start + length < fstart + flen:
                    pieces.append([start + length, fstart + flen - start - length])
                self.free_ranges[i:i + 1] = pieces
                return
        raise AssertionError("block not inside a free range")

    def take_range(self, length: int, alignment: int) -> int | None:
        """Reserve ``length`` free bytes at an ``alignment`` boundary (no allocation record: a
        pool's segment); the start address, or None if no free range holds them."""
        start = self._find(length, alignment)
        if start is not None:
            self._take(start, length)
        return start

    def give_back(self, start: int, length: int) -> None:
        """Make [start, start+length) free again (a released allocation or pool segment)."""
        i = bisect.bisect_left(self.free_ranges, [start, 0])
        self.free_ranges.insert(i, [start, length])
        if i + 1 < len(self.free_ranges) and start + length == self.free_ranges[i + 1][0]:
            self.free_ranges[i][1] += self.free_ranges.pop(i + 1)[1]
        if i > 0 and self.free_ranges[i - 1][0] + self.free_ranges[i - 1][1] == start:
            self.free_ranges[i - 1][1] += self.free_ranges.pop(i)[1]

    def allocate(self, size: int, policy: int, policy_name: str, pid: int, tid: int,
                 padding: bool = True) -> DeviceAllocation:
        for page in page_kinds(policy, size):
            unit = PAGE_SIZES[page]
            reserved = align_up(padded_size(size, page, padding), unit)
            start = self._find(reserved, unit)
            if start is not None:
                self._take(start, reserved)
                alloc = DeviceAllocation(self.device, start, size, start, reserved, page, policy_name, pid, tid)
                self.map(alloc)
                return alloc
        fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
             f"out of device memory on device {self.device}: {size} bytes requested with "
             f"{policy_name}, {self.free_bytes()} bytes free in {len(self.free_ranges)} pieces "
             f"(largest {max((length for _, length in self.free_ranges), default=0)})")

    def release(self, ptr: int) -> DeviceAllocation:
        alloc = self.allocations.get(ptr)
        if alloc is None:
            inside = self.lookup(ptr)
            hint = (f"it points {ptr - inside.ptr} bytes into the allocation at {inside.ptr:#x}; "
                    "free the start address") if inside else "it was never allocated or is already freed"
            fail(ACL_ERROR_RT_MEMORY_FREE, f"aclrtFree: {ptr:#x} is not the start of a device allocation: {hint}")
        self.unmap(alloc)
        self.give_back(alloc.block, alloc.reserved)
        alloc.freed = True
        return alloc

    def map(self, alloc: DeviceAllocation) -> None:
        """Make ``alloc`` the allocation at its address (a pool block reused before its queued
        free has run takes over the slot of the block it replaces)."""
        if alloc.ptr not in self.allocations:
            bisect.insort(self._starts, alloc.ptr)
        self.allocations[alloc.ptr] = alloc
        alloc.budget = self.budget

    def unmap(self, alloc: DeviceAllocation) -> None:
        """Remove ``alloc`` from the address table, if it is still the one mapped there; the host
        memory its bytes took is free again either way."""
        if alloc.budget is not None:
            alloc.budget.give_back(alloc)
        if self.allocations.get(alloc.ptr) is alloc:
            del self.allocations[alloc.ptr]
            self._starts.pop(bisect.bisect_left(self._starts, alloc.ptr))

    def lookup(self, ptr: int) -> DeviceAllocation | None:
        return _containing(self.allocations, self._starts, ptr)


class HostMemory:
    """Pinned host buffers (malloc_host) and numpy arrays registered by pointer."""

    def __init__(self, budget: HostBudget | None = None):
        self.budget = budget
        self.pinned: dict[int, PinnedBuffer] = {}
        self._pinned_starts: list[int] = []
        self._pinned_next = PINNED_BASE
        self.pageable: dict[int, PageableBuffer] = {}
        self._pageable_starts: list[int] = []
        self._pageable_next = PAGEABLE_BASE
        self._by_data_address: dict[tuple[int, int], int] = {}

    def allocate_pinned(self, size: int, pid: int) -> PinnedBuffer:
        """Pinned memory is physical memory: more than the whole host memory budget, or more than
        the rest of the host address space, is refused (207001)."""
        ptr = self._pinned_next
        if self.budget is not None and size > self.budget.limit:
            fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                 f"aclrtMallocHost of {size} bytes: pinned memory is physical host memory, and the sandbox's host "
                 f"memory budget is {self.budget.limit} bytes (sandbox.configure(host_memory_budget=bytes))")
        if ptr + size > HOST_ADDRESS_END:
            fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                 f"aclrtMallocHost of {size} bytes: the host address space has {HOST_ADDRESS_END - ptr} bytes left")
        self._pinned_next = align_up(ptr + size, 4 * KiB)
        buf = PinnedBuffer(ptr, size, pid)
        buf.budget = self.budget
        self.pinned[ptr] = buf
        bisect.insort(self._pinned_starts, ptr)
        return buf

    def free_pinned(self, ptr: int) -> PinnedBuffer:
        buf = self.pinned.pop(ptr, None)
        if buf is None:
            fail(ACL_ERROR_RT_MEMORY_FREE, f"aclrtFreeHost: {ptr:#x} is not the start of memory from aclrtMallocHost")
        self._pinned_starts.pop(bisect.bisect_left(self._pinned_starts, ptr))
        buf.freed = True
        if buf.budget is not None:
            buf.budget.give_back(buf)
        return buf

    def register_array(self, array: np.ndarray) -> int:
        """Sandbox address of a numpy array's bytes (acl/util.py checks the array); the same array, the same address."""
        key = (array.__array_interface__["data"][0], array.nbytes)
        known = self._by_data_address.get(key)
        if known is not None:
            return known
        ptr = self._pageable_next
        self._pageable_next = align_up(ptr + max(array.nbytes, 1), 4 * KiB)
        self.pageable[ptr] = PageableBuffer(ptr, array)
        bisect.insort(self._pageable_starts, ptr)
        self._by_data_address[key] = ptr
        return ptr

    def lookup(self, ptr: int) -> Buffer | None:
        if ptr >= PINNED_BASE:
            return _containing(self.pinned, self._pinned_starts, ptr)
        return _containing(self.pageable, self._pageable_starts, ptr)


def _containing(table, starts: list[int], ptr: int):
    """The buffer of ``table`` (start -> buffer, ``starts`` its sorted keys) holding ``ptr``, or None."""
    i = bisect.bisect_right(starts, ptr) - 1
    if i >= 0:
        buf = table[starts[i]]
        if ptr < buf.ptr + buf.size:      # (Buffer.end, without the property's call)
            return buf
    return None


def device_of_address(ptr: int) -> int | None:
    """Device id whose address range holds ``ptr`` (None for host addresses)."""
    return (ptr - DEVICE_BASE) // DEVICE_STRIDE if DEVICE_BASE <= ptr < PAGEABLE_BASE else None


def check_span(buf: Buffer | None, ptr: int, nbytes: int, what: str) -> int:
    """Offset of ``ptr`` in ``buf`` after checking that [ptr, ptr+nbytes) lies inside it."""
    if buf is None:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{what} address {ptr:#x} is not inside any allocated memory")
    offset = ptr - buf.ptr
    if offset + nbytes > buf.size:
        fail(ACL_ERROR_RT_PARAM_INVALID,
             f"{what} range of {nbytes} bytes at {ptr:#x} runs {offset + nbytes - buf.size} bytes past the "
             f"end of its {buf.size}-byte {buf.kind} buffer at {buf.ptr:#x}")
    return offset
