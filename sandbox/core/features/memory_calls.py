"""Memory calls: malloc/free, pinned host memory, copies, memsets, get_mem_info.

Copies (RT-API 11-03, RT-DG 02-01):
* ``kind`` must be 0..7 (else 100000).  For aclrtMemcpyAsync it must agree with where the pointers
  live (107000); ACL_MEMCPY_DEFAULT infers the direction.  For the blocking aclrtMemcpy the kind is a
  reserved parameter: the direction always comes from the pointers (API reference, "aclrtMemcpy",
  docs/zh/api_ref/11-03_memory_copy_and_set.md:68).  count > destMax is 107000.
* count 0 succeeds before any other check, null pointers and stream included (acl layer:
  src/acl/aclrt_impl/memory.cpp:653-656, 687-690).
* Every copy and memset is bounds-checked against the buffers it touches (107000).
* H2D, D2H and on-device copies run on separate DMA engines of the device.
* memcpy_async with pinned host memory returns at once; with pageable memory (a numpy
  array's pointer) it returns only when the copy is done, and the link is slower.
* Blocking memcpy/memset go through the runtime's own queue, not through any user stream.
* A device-to-device copy between two devices runs on the peer link between them and needs
  peer access in the direction source -> destination (see core/features/peer.py for the rules and
  codes).  Its async form must go on a stream of the source's or the destination's device;
  the blocking form uses the runtime queue of the current device when that is one of the
  two, else the source's.  Peer copies need no 64-byte alignment (only on-chip ones do).
* The data moves at the simulated completion time of the copy.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import functools

from .. import constants as C, hazards, trace as T
from . import peer
from .synchronize import report_blocking
from ..errors import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_ADDR_UNALIGNED, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_RT_PARAM_INVALID, describe, fail)
from ..allocator import PAGE_SIZES, check_span
from ..tasks import Task

if TYPE_CHECKING:
    from ..machine import Machine
    from ..allocator import Buffer
    from ..objects import HostThread

KIND_DIRECTIONS = {
    C.ACL_MEMCPY_HOST_TO_HOST: "H2H", C.ACL_MEMCPY_HOST_TO_DEVICE: "H2D",
    C.ACL_MEMCPY_DEVICE_TO_HOST: "D2H", C.ACL_MEMCPY_DEVICE_TO_DEVICE: "D2D",
    C.ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: "H2D", C.ACL_MEMCPY_INNER_DEVICE_TO_DEVICE: "D2D",
    C.ACL_MEMCPY_INTER_DEVICE_TO_DEVICE: "D2D",
}
DIRECTION_WORDS = {"H2D": "host to device", "D2H": "device to host", "D2D": "device to device", "H2H": "host to host"}


# -- allocation --------------------------------------------------------------------------------
def malloc(m: Machine, th: HostThread, size: int, policy: int, padding: bool = True) -> int:
    ctx = m.current_context(th)
    mem = m.devices[ctx.device].memory
    name = C.MALLOC_POLICY_NAMES.get(policy, f"policy {policy}")
    if policy in C.MALLOC_P2P_POLICIES and not m.profile.p2p_supported:
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"{name} is not supported on {m.profile.soc_name}")
    if policy in C.MALLOC_HUGE1G_POLICIES and not m.profile.huge1g_pages_supported:
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"1 GiB pages are not supported on {m.profile.soc_name}")
    alloc = mem.allocate(size, policy, name, th.process.pid, th.tid, padding)
    alloc.resets = th.process.device_resets.get(ctx.device, 0)
    m.log.append(T.MemAllocated(th.clock, ctx.device, alloc.ptr, size, alloc.reserved, name, alloc.page,
                                th.process.pid, th.tid, th.call_seq))
    return alloc.ptr


def free(m: Machine, th: HostThread, ptr: int, api: str = "aclrtFree") -> None:
    buf = m.buffer(ptr)
    if buf is None or buf.kind != "device":
        fail(ACL_ERROR_INVALID_PARAM, f"{api}: {ptr:#x} is not device memory from aclrtMalloc"
             + (" (use aclrtFreeHost for aclrtMallocHost memory)" if buf is not None and buf.kind == "pinned" else ""))
    why = ("a memory pool (aclrtMemPoolMallocAsync); give it back with aclrtMemPoolFreeAsync"
           if buf.policy.startswith("pool ") else "aclrtMapMem: aclrtUnmapMem it" if buf.policy == "aclrtMapMem"
           else "aclrtIpcMemImportByKey: aclrtIpcMemClose it" if buf.policy.startswith("IPC import") else "")
    if why:
        fail(ACL_ERROR_RT_MEMORY_FREE, f"{api}: {ptr:#x} comes from {why}")
    if buf.ptr == ptr:
        hazards.freeing(m, th, buf, api)
    alloc = m.devices[buf.device].memory.release(ptr)
    m.log.append(T.MemFreed(th.clock, alloc.device, ptr, th.call_seq))


def free_with_dev_sync(m: Machine, th: HostThread, ptr: int) -> None:
    """aclrtFreeWithDevSync: wait for the current device, then free as aclrtFree does.

    The runtime's rtFreeWithDevSync is exactly that, rtDeviceSynchronize and then rtFree
    (src/runtime/api/api_c_memory.cc:174-183); the API reference says the call synchronizes the
    device implicitly and waits for the tasks that use the memory, where aclrtFree frees at once
    and waits for nothing (docs/zh/api_ref/11-01_device_memory_malloc_and_free.md, "aclrtFree",
    "aclrtFreeWithDevSync").  A failed synchronize (a task that failed on the device) returns its
    code and frees nothing; a pointer aclrtFree refuses is refused after the wait, with
    aclrtFree's code, and nothing is freed either."""
    from .devices import synchronize_device  # devices imports the event and leak modules, not this one

    synchronize_device(m, th, "aclrtFreeWithDevSync")
    free(m, th, ptr, "aclrtFreeWithDevSync")


def malloc_host(m: Machine, th: HostThread, size: int) -> int:
    buf = m.host.allocate_pinned(size, th.process.pid)
    m.log.append(T.MemAllocated(th.clock, -1, buf.ptr, size, size, "pinned", "pinned", buf.pid, th.tid, th.call_seq))
    return buf.ptr


def free_host(m: Machine, th: HostThread, ptr: int) -> None:
    buf = m.host.free_pinned(ptr)
    hazards.freeing(m, th, buf, "aclrtFreeHost")
    m.log.append(T.MemFreed(th.clock, -1, ptr, th.call_seq))


# -- copies -------------------------------------------------------------------------------------
class CopyPlan:
    """Where a copy reads and writes, which engine moves it and how long it takes."""
    dst: Buffer
    src: Buffer
    doff: int
    soff: int
    count: int
    direction: str
    device: int | None
    engine: Any
    pageable: bool
    bandwidth: float
    peer: bool
    rows: Any
    __slots__ = tuple(__annotations__)


def plan_copy(m: Machine, dst: int, dest_max: int, src: int, count: int, kind: int,
              th: HostThread | None = None, *, kind_decides: bool = True, src_count: int | None = None) -> CopyPlan:
    """How a copy runs; ``kind_decides=False`` (the blocking aclrtMemcpy) takes the direction from
    the pointers whatever ``kind`` says; ``src_count``: the source's span when it differs (2-D copies)."""
    if kind not in C.MEMCPY_KIND_NAMES:
        fail(ACL_ERROR_INVALID_PARAM, f"memcpy kind {describe(kind)} is not an aclrtMemcpyKind (0..7)")
    if count > dest_max:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"count ({count}) is larger than destMax ({dest_max})")
    if dst == 0 or src == 0:
        fail(ACL_ERROR_INVALID_PARAM, "a copy needs non-null source and destination pointers")
    plan = CopyPlan()
    plan.count = count
    plan.dst, plan.src = m.buffer(dst), m.buffer(src)
    plan.doff = check_span(plan.dst, dst, count, "destination")
    if not plan.dst.writable:
        fail(ACL_ERROR_RT_PARAM_INVALID, "the destination is read-only memory (a bytes object): use a bytearray")
    plan.soff = check_span(plan.src, src, count if src_count is None else src_count, "source")
    actual = ("D" if plan.src.kind == "device" else "H") + "2" + ("D" if plan.dst.kind == "device" else "H")
    wanted = KIND_DIRECTIONS.get(kind, actual) if kind_decides else actual
    if wanted != actual:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{C.MEMCPY_KIND_NAMES[kind]} does not match the pointers: the source is "
             f"{plan.src.kind} memory and the destination is {plan.dst.kind} memory ({actual})")
    if actual == "D2D" and kind_decides:
        same = plan.src.device == plan.dst.device
        if kind == C.ACL_MEMCPY_INNER_DEVICE_TO_DEVICE and not same:
            fail(ACL_ERROR_RT_PARAM_INVALID, "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE needs both buffers on one device")
        if kind == C.ACL_MEMCPY_INTER_DEVICE_TO_DEVICE and same:
            fail(ACL_ERROR_RT_PARAM_INVALID, "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE needs buffers on two devices")
    plan.direction = actual
    plan.peer = plan.pageable = False
    p = m.profile
    if actual == "H2D":
        plan.device = plan.dst.device
        plan.engine = m.devices[plan.device].h2d
        plan.pageable = plan.src.kind == "pageable"
        plan.bandwidth = p.h2d_pageable if plan.pageable else p.h2d_pinned
    elif actual == "D2H":
        plan.device = plan.src.device
        plan.engine = m.devices[plan.device].d2h
        plan.pageable = plan.dst.kind == "pageable"
        plan.bandwidth = p.d2h_pageable if plan.pageable else p.d2h_pinned
    elif actual == "D2D":
        plan.device = plan.src.device
        if plan.src.device != plan.dst.device:
            plan.peer = True
            plan.engine = peer.copy_path(m, th if th is not None else m.current_thread(),
                                         plan.src.device, plan.dst.device)
            plan.bandwidth = p.peer_bandwidth
        else:
            plan.engine = m.devices[plan.device].d2d
            plan.bandwidth = p.hbm_bandwidth / 2          # read and write both cross HBM
    else:
        plan.device = plan.engine = None
        plan.bandwidth = p.host_memcpy_bandwidth
    return plan


def copy_duration(m: Machine, plan: CopyPlan) -> int:
    """Time of the copy alone (a peer link shares bandwidth, so its copies may take longer)."""
    latency = m.profile.peer_latency_ns if plan.peer else m.profile.dma_latency_ns
    return latency + int(plan.count * 1e9 / plan.bandwidth)


def copy_effect(plan: CopyPlan):
    """The data movement, run at the copy's completion (a host memory budget that cannot back the
    destination raises 207001: the task fails and nothing is written, core/device_loop.py)."""
    return functools.partial(plan.dst.copy_from, plan.doff, plan.src, plan.soff, plan.count)   # (one object, not a closure's five)


def _copy_task(m: Machine, plan: CopyPlan, name: str, kind: int) -> Task:
    """The copy as a device task; its access (for the hazard checks): source read, destination written."""
    return Task.new("memcpy", name, plan.engine, duration=copy_duration(m, plan), effect=copy_effect(plan),
                    nbytes=plan.count, detail=_copy_detail(plan, kind),
                    access=((plan.src, plan.soff, plan.count, False), (plan.dst, plan.doff, plan.count, True)))


@functools.lru_cache(maxsize=64)
def _detail(direction: str, kind: int, pageable: bool) -> tuple:
    return (("direction", DIRECTION_WORDS[direction]), ("kind", C.MEMCPY_KIND_NAMES[kind]), ("pageable", pageable))


def _copy_detail(plan: CopyPlan, kind: int):
    detail = _detail(plan.direction, kind, plan.pageable)    # the same few tuples, made once
    if plan.peer:
        p2p = all(buf.policy.endswith("_P2P") for buf in (plan.src, plan.dst))  # type: ignore[attr-defined]  # a peer copy is between DeviceAllocations
        detail += (("src_device", plan.src.device), ("dst_device", plan.dst.device), ("p2p_buffers", p2p))
    return detail


def _peer_queue_device(plan: CopyPlan, device: int | None) -> int:
    """The device whose queue a peer copy goes through: ``device`` if it is one of the ends."""
    return device if device in (plan.src.device, plan.dst.device) else plan.src.device


def memcpy(m: Machine, th: HostThread, dst, dest_max, src, count, kind) -> None:
    """Blocking copy: the calling thread waits until the bytes have arrived."""
    if count == 0:
        return
    plan = plan_copy(m, dst, dest_max, src, count, kind, th, kind_decides=False)
    if plan.direction == "H2H":
        copy_effect(plan)()                   # first: if the bytes cannot be backed, nothing happened
        th.clock += int(count * 1e9 / plan.bandwidth)
        hazards.host_access(m, th, plan.src, plan.soff, count, False, "aclrtMemcpy (host to host)")
        hazards.host_access(m, th, plan.dst, plan.doff, count, True, "aclrtMemcpy (host to host)")
        return
    ctx = m.current_context(th)
    if plan.peer:
        plan.device = _peer_queue_device(plan, ctx.device)
    th.clock += m.profile.host_costs.memcpy_sync_setup
    task = m.submit(th, m.sync_stream(plan.device), _copy_task(m, plan, "MEMCPY", kind))  # type: ignore[arg-type]
    m.block_until(th, lambda: task.done, "aclrtMemcpy", learns=(task,), on=("task", task.id))
    report_blocking(task)


def memcpy_async(m: Machine, th: HostThread, dst, dest_max, src, count, kind, stream_handle) -> None:
    if count == 0:
        return
    stream = m.stream(th, stream_handle, api="aclrtMemcpyAsync")
    plan = plan_copy(m, dst, dest_max, src, count, kind, th)
    if plan.peer:
        if stream.device not in (plan.src.device, plan.dst.device):
            fail(ACL_ERROR_RT_PARAM_INVALID,
                 f"a copy from device {plan.src.device} to device {plan.dst.device} must go on a stream of one "
                 f"of those devices, but stream {stream.stream_id} runs on device {stream.device}")
        plan.device = stream.device
    if plan.direction == "H2H":
        if m.profile.run_mode == C.ACL_HOST:
            fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                 "an asynchronous host-to-host copy is not supported when the program runs on the host "
                 "(ACL_HOST run mode); use aclrtMemcpy or a plain host copy")
        plan.device, plan.engine, plan.bandwidth = stream.device, m.devices[stream.device].d2d, m.profile.hbm_bandwidth
    _check_stream_device(plan, stream)
    if plan.direction == "D2D" and not plan.peer and (dst % 64 or src % 64):
        fail(ACL_ERROR_RT_ADDR_UNALIGNED,
             "an on-device asynchronous copy needs 64-byte aligned source and destination addresses")
    task = m.submit(th, stream, _copy_task(m, plan, "MEMCPY_ASYNC", kind))
    if plan.pageable:
        m.block_until(th, lambda: task.done, "aclrtMemcpyAsync from pageable memory", learns=(task,),
                      on=("task", task.id))


def _check_stream_device(plan: CopyPlan, stream) -> None:
    if plan.device != stream.device:
        fail(ACL_ERROR_RT_PARAM_INVALID,
             f"the device memory of this copy is on device {plan.device}, but stream {stream.stream_id} "
             f"runs on device {stream.device}")


# -- 2-D copies ------------------------------------------------------------------------------------
MAX_2D_HEIGHT, MAX_2D_WIDTH = 5 * 1024 * 1024, 5_000_000          # internal_error_define.hpp:27-28
_2D_KINDS = (C.ACL_MEMCPY_HOST_TO_DEVICE, C.ACL_MEMCPY_DEVICE_TO_HOST, C.ACL_MEMCPY_DEVICE_TO_DEVICE,
             C.ACL_MEMCPY_DEFAULT)


def plan_copy2d(m: Machine, th: HostThread, dst, dpitch, src, spitch, width, height, kind) -> CopyPlan | None:
    """aclrtMemcpy2d(Async): ``height`` rows of ``width`` bytes, ``spitch`` and ``dpitch`` apart.

    The acl layer (memory.cpp:211-245, CheckMemcpy2dParam): a width or height of 0 copies nothing
    (None); null pointers, a width wider than a pitch, a kind other than host-to-device,
    device-to-host, device-to-device or default: 100000.  The runtime (api_error.cc:2973-3011): a
    pitch of 0, more than 5242880 rows or a width above 5000000: 107000.  The direction comes from
    the pointers (MemcpyKindAutoCorrect)."""
    if width == 0 or height == 0:
        return None
    if dst == 0 or src == 0:
        fail(ACL_ERROR_INVALID_PARAM, "a 2-D copy needs non-null source and destination pointers")
    if width > spitch or width > dpitch:
        fail(ACL_ERROR_INVALID_PARAM, f"width ({width}) must not exceed spitch ({spitch}) nor dpitch ({dpitch})")
    if kind not in _2D_KINDS:
        fail(ACL_ERROR_INVALID_PARAM, f"a 2-D copy takes ACL_MEMCPY_HOST_TO_DEVICE, _DEVICE_TO_HOST, "
             f"_DEVICE_TO_DEVICE or _DEFAULT, got {C.MEMCPY_KIND_NAMES.get(kind, kind)}")
    if height > MAX_2D_HEIGHT or width > MAX_2D_WIDTH:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"a 2-D copy takes at most {MAX_2D_HEIGHT} rows of at most {MAX_2D_WIDTH} "
             f"bytes, got {height} rows of {width}")
    dst_span, src_span = (height - 1) * dpitch + width, (height - 1) * spitch + width
    plan = plan_copy(m, dst, dst_span, src, dst_span, C.ACL_MEMCPY_DEFAULT, th, src_count=src_span)
    plan.count = width * height                       # the bytes that move: the duration's
    rows = [(plan.doff + r * dpitch, plan.soff + r * spitch) for r in range(height)] if height > 1 else None
    plan.rows = (rows, width, dst_span, src_span)
    return plan


def _copy2d_effect(plan: CopyPlan):
    rows, width, _, _ = plan.rows
    dst, src = plan.dst, plan.src
    if rows is None:
        return lambda: dst.copy_from(plan.doff, src, plan.soff, width)

    def effect():
        for doff, soff in rows:
            dst.copy_from(doff, src, soff, width)
    return effect


def _copy2d_task(m: Machine, plan: CopyPlan, name: str) -> Task:
    _, _, dst_span, src_span = plan.rows
    return Task.new("memcpy", name, plan.engine, duration=copy_duration(m, plan), effect=_copy2d_effect(plan),
                    nbytes=plan.count, detail=_copy_detail(plan, C.ACL_MEMCPY_DEFAULT),
                    access=((plan.src, plan.soff, src_span, False), (plan.dst, plan.doff, dst_span, True)))


def memcpy2d(m: Machine, th: HostThread, dst, dpitch, src, spitch, width, height, kind) -> None:
    """Blocking 2-D copy: host-to-device or device-to-host only (else 107000, api_error.cc:3020-3043;
    device-to-device asked for by its kind: 207000, 3022-3025)."""
    if kind == C.ACL_MEMCPY_DEVICE_TO_DEVICE and width and height:
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the blocking aclrtMemcpy2d copies host-to-device or device-to-host "
             "only; use aclrtMemcpy2dAsync for a device-to-device 2-D copy")
    plan = plan_copy2d(m, th, dst, dpitch, src, spitch, width, height, kind)
    if plan is None:
        return
    if plan.direction not in ("H2D", "D2H"):
        fail(ACL_ERROR_RT_PARAM_INVALID, f"the blocking aclrtMemcpy2d copies host-to-device or device-to-host only; "
             f"these pointers make it {DIRECTION_WORDS[plan.direction]}")
    th.clock += m.profile.host_costs.memcpy_sync_setup
    task = m.submit(th, m.sync_stream(plan.device), _copy2d_task(m, plan, "MEMCPY2D"))  # type: ignore[arg-type]
    m.block_until(th, lambda: task.done, "aclrtMemcpy2d", learns=(task,), on=("task", task.id))
    report_blocking(task)


def memcpy2d_async(m: Machine, th: HostThread, dst, dpitch, src, spitch, width, height, kind, stream_handle) -> None:
    """Queued 2-D copy: host-to-device, device-to-host or device-to-device on one device (else 107000,
    api_error.cc:3071-3086); with pageable host memory it waits for the stream, then copies (3090-3097)."""
    stream = m.stream(th, stream_handle, api="aclrtMemcpy2dAsync")
    plan = plan_copy2d(m, th, dst, dpitch, src, spitch, width, height, kind)
    if plan is None:
        return
    if plan.direction == "H2H" or plan.peer:
        fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtMemcpy2dAsync copies host-to-device, device-to-host or within one "
             f"device; these pointers make it {DIRECTION_WORDS[plan.direction]}")
    _check_stream_device(plan, stream)
    task = m.submit(th, stream, _copy2d_task(m, plan, "MEMCPY2D_ASYNC"))
    if plan.pageable:
        m.block_until(th, lambda: task.done, "aclrtMemcpy2dAsync from pageable memory", learns=(task,),
                      on=("task", task.id))


# -- pointer attributes ---------------------------------------------------------------------------
def pointer_attributes(m: Machine, th: HostThread, ptr: int) -> dict:
    """aclrtPointerGetAttributes (npu_driver_mem.cc:2040-2086): device memory is
    ACL_MEM_LOCATION_TYPE_DEVICE with its device's id and its page size; aclrtMallocHost memory is
    HOST, id 0; any other host address (a numpy array's, from numpy_to_ptr) is UNREGISTERED, id 0.
    Sandbox choice: host pages are 4 KiB.  Null: the acl layer's 100000 (memory.cpp:446-454)."""
    if ptr == 0:
        fail(ACL_ERROR_INVALID_PARAM, "ptr is a null pointer")
    buf = m.buffer(ptr)
    if buf is not None and buf.kind == "device":
        location, device = 1, buf.device              # ACL_MEM_LOCATION_TYPE_DEVICE
        page = PAGE_SIZES[getattr(buf, "page", "normal")]
    else:
        location, device, page = (0 if buf is not None and buf.kind == "pinned" else 2), 0, PAGE_SIZES["normal"]
    return {"location": {"id": device, "type": location}, "page_size": page, "rsv": [0, 0, 0, 0]}


# -- memset ---------------------------------------------------------------------------------------
def _plan_memset(m: Machine, ptr, max_count, value, count):
    if ptr == 0:
        fail(ACL_ERROR_INVALID_PARAM, "memset of a null pointer")
    if count > max_count:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"count ({count}) is larger than maxCount ({max_count})")
    buf = m.buffer(ptr)
    offset = check_span(buf, ptr, count, "memset")
    if buf.kind == "pageable":
        fail(ACL_ERROR_RT_PARAM_INVALID, "host memory for aclrtMemset must come from aclrtMallocHost")
    byte = value & 0xFF

    def fill():
        buf.fill(offset, count, byte)     # the host memory budget may refuse the bytes (core/device_loop.py)
    return buf, (buf.device if buf.kind == "device" else None), fill


def memset(m: Machine, th: HostThread, ptr, max_count, value, count) -> None:
    buf, device, fill = _plan_memset(m, ptr, max_count, value, count)
    if count == 0:
        return
    if device is None:
        failed = fill()
        if failed:
            fail(*failed)
        th.clock += int(count * 1e9 / m.profile.host_memcpy_bandwidth)
        hazards.host_access(m, th, buf, ptr - buf.ptr, count, True, "aclrtMemset (host memory)")
        return
    m.current_context(th)
    th.clock += m.profile.host_costs.memcpy_sync_setup
    task = m.submit(th, m.sync_stream(device), _memset_task(m, "MEMSET", device, buf, ptr, count, fill))
    m.block_until(th, lambda: task.done, "aclrtMemset", learns=(task,), on=("task", task.id))
    report_blocking(task)


def memset_async(m: Machine, th: HostThread, ptr, max_count, value, count, stream_handle) -> None:
    stream = m.stream(th, stream_handle, api="aclrtMemsetAsync")
    buf, device, fill = _plan_memset(m, ptr, max_count, value, count)
    if count == 0:
        return
    if device is not None and device != stream.device:
        fail(ACL_ERROR_RT_PARAM_INVALID,
             f"the memory is on device {device}, but stream {stream.stream_id} runs on device {stream.device}")
    m.submit(th, stream, _memset_task(m, "MEMSET_ASYNC", stream.device, buf, ptr, count, fill))


def _memset_task(m: Machine, name: str, device: int, buf, ptr: int, count: int, fill) -> Task:
    return Task.new("memset", name, m.devices[device].d2d, effect=fill, nbytes=count,
                    duration=m.profile.dma_latency_ns + int(count * 1e9 / m.profile.hbm_bandwidth),
                    access=((buf, ptr - buf.ptr, count, True),))


# -- get_mem_info ------------------------------------------------------------------------------------
_ATTR_PAGES = {
    C.ACL_DDR_MEM: ("DDR", None), C.ACL_HBM_MEM: ("HBM", None),
    C.ACL_DDR_MEM_HUGE: ("DDR", "huge"), C.ACL_DDR_MEM_NORMAL: ("DDR", "normal"),
    C.ACL_HBM_MEM_HUGE: ("HBM", "huge"), C.ACL_HBM_MEM_NORMAL: ("HBM", "normal"),
    C.ACL_DDR_MEM_P2P_HUGE: ("DDR", "huge"), C.ACL_DDR_MEM_P2P_NORMAL: ("DDR", "normal"),
    C.ACL_HBM_MEM_P2P_HUGE: ("HBM", "huge"), C.ACL_HBM_MEM_P2P_NORMAL: ("HBM", "normal"),
    C.ACL_HBM_MEM_HUGE1G: ("HBM", "huge1g"), C.ACL_HBM_MEM_P2P_HUGE1G: ("HBM", "huge1g"),
    C.ACL_MEM_NORMAL: ("ANY", "normal"), C.ACL_MEM_HUGE: ("ANY", "huge"), C.ACL_MEM_HUGE1G: ("ANY", "huge1g"),
    C.ACL_MEM_P2P_NORMAL: ("ANY", "normal"), C.ACL_MEM_P2P_HUGE: ("ANY", "huge"),
    C.ACL_MEM_P2P_HUGE1G: ("ANY", "huge1g"),
}


def get_mem_info(m: Machine, th: HostThread, attr: int) -> tuple[int, int]:
    """(free, total) of the current device; an attribute the hardware lacks answers 0/0,
    except that HBM queries fall back to DDR on DDR devices (RT-API 11-01)."""
    ctx = m.current_context(th)
    if attr not in _ATTR_PAGES:
        fail(ACL_ERROR_INVALID_PARAM, f"unknown aclrtMemAttr {describe(attr)}")
    family, page = _ATTR_PAGES[attr]
    p = m.profile
    if (family == "DDR" and p.memory_kind == "HBM") or (page == "huge1g" and not p.huge1g_pages_supported):
        return 0, 0
    mem = m.devices[ctx.device].memory
    return mem.free_bytes(page), mem.size
