"""Init, devices and contexts: SetDevice reference counting, default contexts, resets.

Rules (RT-API 04/05, RT-DG 05):
* aclInit twice is 100002; aclFinalize releases what the process holds, aclInit or not before it,
  and a second one with no aclInit between is 100037 (src/acl/aclrt_impl/acl.cpp:382-392, 630-645).
* SetDevice selects the device for the calling thread only, creating or re-using the
  process's default context of that device (with its default stream) and making it current.
* Every SetDevice adds one reference; ResetDevice drops one and releases the default
  context, its streams and events when the count reaches zero; ResetDeviceForce releases
  at once whatever the count.  Both wait for the device's pending work first.  A reset of a
  device that is not set (or already released) fails with 507007.
* CreateContext makes an explicit context current; only explicit contexts can be destroyed.
"""
from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from .. import constants as C, hazards, trace as T
from . import events, leaks, notifies
from ..errors import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_REPEAT_FINALIZE, ACL_ERROR_REPEAT_INITIALIZE,
                     ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, ACL_ERROR_RT_PARAM_INVALID, fail)
from ..objects import Context
from .synchronize import Sync, synchronize as synchronize_on

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import HostThread, Process


# -- init / finalize -------------------------------------------------------------------------
def init(m: Machine, th: HostThread) -> None:
    proc = th.process
    if proc.initialized:
        fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit was already called in this process (safe to ignore)")
    proc.initialized = True
    proc.finalized = False


def finalize(m: Machine, th: HostThread) -> None:
    proc = th.process
    charged: set[int] = set()
    while True:          # every wait (and refusal) before the first release: a failed finalize changes nothing
        if proc.finalized:      # a finalize without aclInit before it finalizes (acl.cpp:630-645)
            fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize was already called, and aclInit not since")
        waited = False
        for device in sorted(proc.default_contexts):
            waited |= _wait_idle(m, th, proc.default_contexts[device], f"resetting device {device}")
            if device not in charged:       # each device's reset cost once, right after its wait
                charged.add(device)
                th.clock += m.profile.host_costs.reset_device
        if not waited:   # no other thread ran since the checks: they still hold
            break
    leaks.at_exit(m, th, proc, "aclFinalize")      # before the releases below hide what was left
    for device in sorted(proc.default_contexts):
        _release_device(m, th, proc, device, charge=device not in charged)
    for ctx in sorted(list(proc.contexts.values()), key=lambda c: c.handle):
        _release_context(m, th, ctx)
    proc.initialized = False
    proc.finalized = True
    th.context = None


# -- devices -----------------------------------------------------------------------------------
def set_device(m: Machine, th: HostThread, device_id: int) -> None:
    m.device(device_id)
    proc = th.process
    _open_device(m, th, device_id)
    ctx = proc.default_contexts.get(device_id)
    if ctx is None:
        ctx = proc.default_contexts[device_id] = new_context(m, th, device_id, is_default=True)
    proc.device_refs[device_id] = proc.device_refs.get(device_id, 0) + 1
    th.context = ctx


def _open_device(m: Machine, th: HostThread, device_id: int) -> None:
    """The first use of a device in a process costs time; the process's first one costs seconds.

    The slow first open sets up the whole process (RT-FAQ: operator packages, the device-side
    scheduler), so other threads opening devices meanwhile wait for it to finish.
    """
    proc = th.process
    if device_id in proc.opened_devices:
        return
    costs = m.profile.host_costs
    if not proc.opened_devices:
        th.clock += costs.first_set_device
        proc.runtime_ready_at = th.clock
    else:
        th.clock = max(th.clock, proc.runtime_ready_at) + costs.open_device
    proc.opened_devices.add(device_id)


def reset_device(m: Machine, th: HostThread, device_id: int, force: bool) -> None:
    m.device(device_id)
    proc = th.process
    while True:          # the checks, then the wait, then (checks still holding) the release
        refs = proc.device_refs.get(device_id, 0)
        if refs <= 0:
            fail(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                 f"device {device_id} has not been set in this process or has already been reset")
        if not force and refs > 1:
            proc.device_refs[device_id] = refs - 1
            return
        if not _wait_idle(m, th, proc.default_contexts[device_id], f"resetting device {device_id}"):
            break        # a wait that fails (it can never end, a timeout) has released nothing
    _release_device(m, th, proc, device_id)


def _wait_idle(m: Machine, th: HostThread, ctx: Context, what: str) -> bool:
    """Wait until every stream of ``ctx`` is idle; True if the thread had to park.

    A release waits *before* it changes anything, so that a wait that fails leaves the
    process as it was.  While the thread is parked other threads run and may change what
    the caller checked: after a park the caller checks again.
    """
    streams = [ctx.default_stream, *ctx.streams.values()]
    parks = not all(s.idle for s in streams)
    m.block_until(th, lambda: all(s.idle for s in streams), what, learns=streams, on=("device", ctx.device))
    return parks


def _release_device(m: Machine, th: HostThread, proc: Process, device_id: int, charge: bool = True) -> None:
    """Free the default context (idle by now: the callers waited) with its streams and events."""
    ctx = proc.default_contexts.pop(device_id)
    proc.device_refs.pop(device_id, None)
    proc.device_resets[device_id] = proc.device_resets.get(device_id, 0) + 1    # older memory is stale
    hazards.device_reset(m)
    if charge:
        th.clock += m.profile.host_costs.reset_device
    _release_context(m, th, ctx)
    for other in m.threads.values():
        if other.process is proc and other.context is ctx:
            other.context = None


def new_context(m: Machine, th: HostThread, device_id: int, is_default: bool) -> Context:
    ctx = Context(m.new_handle(), device_id, th.process, is_default)
    ctx.default_stream = m.create_stream(ctx, 0, is_default=True, t=th.clock)
    th.process.contexts[ctx.handle] = ctx
    m.contexts[ctx.handle] = ctx
    m.log.append(T.ContextCreated(th.clock, ctx.handle, device_id, th.process.pid, is_default))
    return ctx


def _release_context(m: Machine, th: HostThread, ctx: Context) -> None:
    for ev in sorted(ctx.events.values(), key=lambda e: e.handle):
        events.destroy(m, th, ev.handle)            # (each leaves ctx.events, each stream ctx.streams)
    for stream in [*sorted(ctx.streams.values(), key=lambda s: s.handle), ctx.default_stream]:
        m.retire_stream(stream, th.clock)
    notifies.release_context(m, ctx)
    ctx.alive = False
    ctx.process.contexts.pop(ctx.handle, None)
    m.contexts.pop(ctx.handle, None)
    m.log.append(T.ContextDestroyed(th.clock, ctx.handle))


def release_process(m: Machine, th: HostThread, proc: Process) -> None:
    """What a process still holds when it exits: its contexts, device memory and pinned memory."""
    if not proc.finalized:
        leaks.at_exit(m, th, proc, "process end")
    for hook in m.hooks.process_ending:
        hook(th, proc)
    for device in sorted(proc.default_contexts):
        _release_context(m, th, proc.default_contexts.pop(device))
    proc.device_refs.clear()
    for ctx in sorted(list(proc.contexts.values()), key=lambda c: c.handle):
        _release_context(m, th, ctx)
    for dev in m.devices:
        for ptr in sorted(p for p, a in dev.memory.allocations.items() if a.pid == proc.pid):
            dev.memory.release(ptr)
            m.log.append(T.MemFreed(th.clock, dev.index, ptr, th.call_seq))
    for ptr in sorted(p for p, b in m.host.pinned.items() if b.pid == proc.pid):
        m.host.free_pinned(ptr)
        m.log.append(T.MemFreed(th.clock, -1, ptr, th.call_seq))
    proc.initialized = False


def get_device(m: Machine, th: HostThread) -> int:
    return m.current_context(th).device


def synchronize_device(m: Machine, th: HostThread, api: str = "aclrtSynchronizeDevice") -> None:
    """Wait for every stream of the current context, then report the first device error (``api``: the
    call that waits, aclrtFreeWithDevSync's own synchronize included)."""
    ctx = m.current_context(th)
    streams = [ctx.default_stream, *ctx.streams.values()]
    sync = Sync(api, f"synchronizing device {ctx.device}", ctx.device, context=ctx)
    synchronize_on(m, th, sync, lambda: all(s.idle for s in streams), learns=streams,
                   report=sorted(streams, key=lambda s: s.stream_id))


# -- contexts -------------------------------------------------------------------------------------
def create_context(m: Machine, th: HostThread, device_id: int) -> int:
    m.device(device_id)
    _open_device(m, th, device_id)
    ctx = new_context(m, th, device_id, is_default=False)
    th.context = ctx
    return ctx.handle


def _context(m: Machine, handle) -> Context:
    ctx = m.contexts.get(handle)
    if ctx is None or not ctx.alive:
        fail(ACL_ERROR_INVALID_PARAM, f"{handle!r} is not a live context handle")
    return ctx


def destroy_context(m: Machine, th: HostThread, handle) -> None:
    while True:          # checked again after a wait: another thread may have destroyed it meanwhile
        ctx = _context(m, handle)
        if ctx.is_default:
            fail(ACL_ERROR_INVALID_PARAM,
                 "a device's default context cannot be destroyed; it goes with aclrtResetDevice")
        if not _wait_idle(m, th, ctx, "destroying a context"):
            break
    _release_context(m, th, ctx)
    for other in m.threads.values():
        if other.context is ctx:
            other.context = None


def set_context(m: Machine, th: HostThread, handle) -> None:
    ctx = _context(m, handle)
    if ctx.process is not th.process:
        fail(ACL_ERROR_INVALID_PARAM, "that context belongs to another process")
    th.context = ctx


def get_context(m: Machine, th: HostThread) -> int:
    return m.current_context(th).handle


# -- device information ----------------------------------------------------------------------------
def device_info(m: Machine, device_id: int, attr: int) -> int:
    m.device(device_id)
    p = m.profile
    table = {C.ACL_DEV_ATTR_AICPU_CORE_NUM: p.aicpu_cores, C.ACL_DEV_ATTR_AICORE_CORE_NUM: p.ai_cores,
             C.ACL_DEV_ATTR_CUBE_CORE_NUM: p.cube_cores, C.ACL_DEV_ATTR_VECTOR_CORE_NUM: p.vector_cores,
             C.ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: p.memory_bytes, C.ACL_DEV_ATTR_L2_CACHE_SIZE: p.l2_bytes,
             C.ACL_DEV_ATTR_SMP_ID: 0, C.ACL_DEV_ATTR_PHY_CHIP_ID: device_id, C.ACL_DEV_ATTR_IS_VIRTUAL: 0,
             C.ACL_DEV_ATTR_NPU_ARCH: p.npu_arch, C.ACL_DEV_ATTR_HD_CONNECT_TYPE: 0}
    known_zero = set(range(202, 213)) | {403, 404, 405, 406, 407, 409}   # 950-only or pod-only figures
    if attr in table:
        return table[attr]
    if attr in known_zero:
        return 0
    fail(ACL_ERROR_INVALID_PARAM, f"unknown device attribute {attr!r} (see aclrtDevAttr)")


def device_capability(m: Machine, device_id: int, info: int) -> int:
    m.device(device_id)
    p = m.profile
    table = {C.ACL_DEVICE_INFO_AI_CORE_NUM: p.ai_cores, C.ACL_DEVICE_INFO_VECTOR_CORE_NUM: p.vector_cores,
             C.ACL_DEVICE_INFO_L2_SIZE: p.l2_bytes}
    if info not in table:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"unknown aclDeviceInfo value {info!r}")
    return table[info]


def primary_context_active(m: Machine, th: HostThread, device_id: int) -> int:
    """aclrtGetPrimaryCtxState: 1 while the process holds the device's default context (SetDevice
    not yet reset), else 0; flags are reserved (context.cpp:218-232: pyACL returns 0 for them)."""
    m.device(device_id)
    return 1 if th.process.device_refs.get(device_id, 0) > 0 else 0


def same_device_id(m: Machine, th: HostThread, device_id: int) -> int:
    """The logical, physical and user ids of a device are the same id here: the sandbox's devices
    are numbered as the machine has them, with no container remapping (ASCEND_RT_VISIBLE_DEVICES)."""
    m.device(device_id)
    return device_id


def uuid_bytes(m: Machine, device_id: int) -> list[int]:
    """aclrtDeviceGetUuid's 16 bytes.  Sandbox choice: a name-based UUID (RFC 4122 version 3) of the
    profile's chip and the device's index, the same in every run and process."""
    m.device(device_id)
    return list(uuid.uuid3(uuid.NAMESPACE_URL, f"npu-sandbox:{m.profile.soc_name}/{device_id}").bytes)

