"""``acl.rt``: the runtime calls, with pyACL's names and return conventions.

Status-only calls return an int (0 = success); calls that produce values return a tuple
with ret last.  Handles and pointers are ints; stream 0 is the current context's default
stream.  Each call's C name is the one the trace and the error messages use.  Each call is
declared once (``_declare.api``): its signature, the kinds of its parameters, one core call.

The sections follow the runtime's areas (sandbox/core/features/): devices and contexts;
streams, then their stop, abort and state callbacks; events, then events with flags; memory,
virtual memory, custom allocators and pools; the last error and task exceptions; peer access;
callbacks; notifies and value waits; IPC memory, notifies and events; device resources;
built-in tasks; floating-point overflow; cross-version checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.features import (
    builtin_tasks,
    callbacks,
    device_resources,
    devices,
    events,
    ipc,
    memory_calls,
    notifies,
    overflow,
    peer,
    pools,
    streams,
    sysparams,
    vmm,
)
from ..core import constants as C
from ..core.errors import ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, describe, fail
from ..core.gate import as_int
from . import _allocator, _compat, _pool_props, _random, _stream_config, _types, _vmm_props
from ._declare import Kind, api, handle, helper, positive_size, ptr, size, timeout


def _fn_label(fn) -> str:
    """What the trace shows for a callback argument: its name, or what it is (never a repr)."""
    name = getattr(fn, "__name__", None)
    return name if type(name) is str else describe(fn)


def _thread_level(value, what: str) -> int:
    if as_int(value, what) != 0:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be ACL_RT_THREAD_LEVEL (0), got {describe(value)}")
    return 0


if TYPE_CHECKING:  # to a type checker, a kind is the type the body gets
    callback = Any
    thread_id = Any
    pool_props = Any
    vmm_prop = Any
    thread_level = int
else:
    callback = Kind(show=_fn_label)  # a Python function, shown by its name
    thread_id = Kind(show=lambda value: callbacks.thread_label(value))  # shown as the sandbox thread
    pool_props = Kind(show=lambda value: describe(value, limit=200))
    vmm_prop = Kind(show=lambda value: describe(value, limit=200))
    thread_level = Kind(_thread_level)


# -- devices and contexts ----------------------------------------------------------------------
@api("aclrtSetDevice", cost="set_device")
def set_device(m, th, device_id: int) -> None:
    return devices.set_device(m, th, device_id)


@api("aclrtResetDevice")
def reset_device(m, th, device_id: int) -> None:
    return devices.reset_device(m, th, device_id, force=False)


@api("aclrtResetDeviceForce")
def reset_device_force(m, th, device_id: int) -> None:
    return devices.reset_device(m, th, device_id, force=True)


@api("aclrtGetDevice", defaults=(-1,))
def get_device(m, th):
    return devices.get_device(m, th)


@api("aclrtGetDeviceCount", defaults=(0,))
def get_device_count(m, th):
    return len(m.devices)


@api("aclrtGetDeviceInfo", defaults=(0,))
def get_device_info(m, th, device_id: int, attr: int):
    return devices.device_info(m, device_id, attr)


@api("aclrtGetRunMode", defaults=(0,))
def get_run_mode(m, th):
    return m.profile.run_mode


@api("aclrtSynchronizeDevice")
def synchronize_device(m, th) -> None:
    return devices.synchronize_device(m, th)


@api("aclrtSynchronizeDeviceWithTimeout")
def synchronize_device_with_timeout(m, th, timeout: timeout) -> None:
    with m.deadline(th, timeout, "device"):
        devices.synchronize_device(m, th)


@api("aclrtCreateContext", cost="create_context", defaults=(0,))
def create_context(m, th, device_id: int):
    return devices.create_context(m, th, device_id)


@api("aclrtDestroyContext")
def destroy_context(m, th, context: handle) -> None:
    return devices.destroy_context(m, th, context)


@api("aclrtSetCurrentContext")
def set_context(m, th, context: handle) -> None:
    return devices.set_context(m, th, context)


@api("aclrtGetCurrentContext", defaults=(0,))
def get_context(m, th):
    return devices.get_context(m, th)


@api("aclrtGetPrimaryCtxState", cost="query", defaults=(0, 0))
def get_primary_ctx_state(m, th, device_id: int):
    """(active, flags, ret): whether this process holds the device's default context; flags are 0."""
    return devices.primary_context_active(m, th, device_id), 0


@api("aclrtGetLogicDevIdByPhyDevId", cost="query", defaults=(0,))
def get_logic_dev_id_by_phy_dev_id(m, th, phy_dev_id: int):
    """(logic_dev_id, ret): the same id here (no container remapping: core/features/devices.py)."""
    return devices.same_device_id(m, th, phy_dev_id)


@api("aclrtGetPhyDevIdByLogicDevId", cost="query", defaults=(0,))
def get_phy_dev_id_by_logic_dev_id(m, th, logic_dev_id: int):
    return devices.same_device_id(m, th, logic_dev_id)


@api("aclrtGetLogicDevIdByUserDevId", cost="query", defaults=(0,))
def get_logic_dev_id_by_user_dev_id(m, th, user_dev_id: int):
    return devices.same_device_id(m, th, user_dev_id)


@api("aclrtGetUserDevIdByLogicDevId", cost="query", defaults=(0,))
def get_user_dev_id_by_logic_dev_id(m, th, logic_dev_id: int):
    return devices.same_device_id(m, th, logic_dev_id)


@api("aclrtDeviceGetUuid", cost="query", defaults=({"bytes": [0] * 16},))
def device_get_uuid(m, th, device_id: int):
    """({"bytes": [16 ints]}, ret): the device's UUID (core/features/devices.py says how the sandbox makes it)."""
    return {"bytes": devices.uuid_bytes(m, device_id)}


@api("aclrtSetSysParamOpt", cost="query")
def set_sys_param_opt(m, th, opt: int, value: int) -> None:
    """Set a process-wide system option (ACL_OPT_DETERMINISTIC, ...: core/features/sysparams.py)."""
    return sysparams.set_opt(m, th, opt, value, context=False)


@api("aclrtGetSysParamOpt", cost="query", defaults=(0,))
def get_sys_param_opt(m, th, opt: int):
    return sysparams.get_opt(m, th, opt, context=False)


@api("aclrtCtxSetSysParamOpt", cost="query")
def ctx_set_sys_param_opt(m, th, opt: int, value: int) -> None:
    """Set a system option of the current context (core/features/sysparams.py)."""
    return sysparams.set_opt(m, th, opt, value, context=True)


@api("aclrtCtxGetSysParamOpt", cost="query", defaults=(0,))
def ctx_get_sys_param_opt(m, th, opt: int):
    """(value, ret); 107021 for an option the context never set."""
    return sysparams.get_opt(m, th, opt, context=True)


# -- streams ---------------------------------------------------------------------------------------
@api("aclrtCreateStream", cost="create_stream", defaults=(0,))
def create_stream(m, th):
    return streams.create(m, th)


@api("aclrtCreateStreamWithConfig", cost="create_stream", defaults=(0,))
def create_stream_with_config(m, th, priority: int, flag: int):
    return streams.create(m, th, priority, flag)


@api("aclrtDestroyStream", cost="destroy_stream")
def destroy_stream(m, th, stream: handle) -> None:
    if stream == 0:  # the acl layer (src/acl/aclrt_impl/stream.cpp:100)
        fail(ACL_ERROR_INVALID_PARAM, "the default stream cannot be destroyed; it goes with aclrtResetDevice")
    return streams.destroy(m, th, stream)


@api("aclrtDestroyStreamForce", cost="destroy_stream")
def destroy_stream_force(m, th, stream: handle) -> None:
    if stream == 0:  # the acl layer (stream.cpp:113)
        fail(
            ACL_ERROR_INVALID_PARAM,
            "aclrtDestroyStreamForce: the stream must not be null (the default "
            "stream cannot be destroyed; it goes with aclrtResetDevice)",
        )
    return streams.destroy_force(m, th, stream)


@api("aclrtSynchronizeStream")
def synchronize_stream(m, th, stream: handle) -> None:
    return streams.synchronize(m, th, stream)


@api("aclrtSynchronizeStreamWithTimeout", convert=("timeout", "stream"))
def synchronize_stream_with_timeout(m, th, stream: handle, timeout: timeout) -> None:
    with m.deadline(th, timeout, "stream"):
        streams.synchronize(m, th, stream)


@api("aclrtStreamQuery", cost="query", defaults=(0,))
def stream_query(m, th, stream: handle):
    return streams.query(m, th, stream)


@api("aclrtStreamWaitEvent", cost="stream_wait_event")
def stream_wait_event(m, th, stream: handle, event: handle) -> None:
    return events.stream_wait(m, th, stream, event)


@api("aclrtSetStreamFailureMode")
def set_stream_failure_mode(m, th, stream: handle, mode: int) -> None:
    return streams.set_failure_mode(m, th, stream, mode)


@api("aclrtStreamGetPriority", defaults=(0,))
def stream_get_priority(m, th, stream: handle):
    return streams.get_priority(m, th, stream)


@api("aclrtStreamGetId", cost="query", defaults=(0,))
def stream_get_id(m, th, stream: handle):
    return streams.get_id(m, th, stream)


@api("aclrtStreamGetFlags", cost="query", defaults=(0,))
def stream_get_flags(m, th, stream: handle):
    return streams.get_flags(m, th, stream)


@api("aclrtGetStreamAvailableNum", cost="query", defaults=(0,))
def get_stream_available_num(m, th):
    """(count, ret): how many more streams the current device takes."""
    return streams.available(m, th)


@api("aclrtCreateStreamConfigHandle", defaults=(0,))
def create_stream_config_handle(m, th):
    return _stream_config.create_config(m, th)


@api("aclrtDestroyStreamConfigHandle")
def destroy_stream_config_handle(m, th, handle: handle) -> None:
    return _stream_config.destroy_config(m, th, handle)


@api("aclrtSetStreamConfigOpt")
def set_stream_config_opt(m, th, handle: handle, attr: int, attr_value: int, value_size: size) -> None:
    return _stream_config.set_config_opt(m, th, handle, attr, attr_value, value_size)


@api("aclrtCreateStreamV2", cost="create_stream", defaults=(0,))
def create_stream_v2(m, th, handle: handle):
    return _stream_config.create_v2(m, th, handle)


@api("aclrtDeviceGetStreamPriorityRange", defaults=(0, 0))
def device_get_stream_priority_range(m, th):
    """(least, greatest, ret): 7 is the lowest priority, 0 the highest."""
    return streams.LOWEST_PRIORITY, 0


# -- stream stop, abort and state callbacks ----------------------------------------------------------------
@api("aclrtStreamStop")
def stream_stop(m, th, stream: handle) -> None:
    """Stop the stream's running task; the tasks after it wait (see core/features/streams.py ``stop``)."""
    return streams.stop(m, th, stream)


@api("aclrtStreamAbort")
def stream_abort(m, th, stream: handle) -> None:
    """Stop the running task and discard the stream's other tasks; the stream stays usable."""
    return streams.abort(m, th, stream)


@api("aclrtRegStreamStateCallback", trace=("reg_name", "callback"))
def reg_stream_state_callback(m, th, reg_name, callback: callback, args=None) -> None:
    """Call ``callback(stream, state, args)`` as each stream is made (1) and before it goes (2); None unregisters."""
    return streams.reg_state_callback(m, th, reg_name, callback, args)


# -- events ----------------------------------------------------------------------------------------
@api("aclrtCreateEvent", cost="create_event", defaults=(0,))
def create_event(m, th):
    return events.create(m, th, None)


@api("aclrtQueryEvent", cost="query", defaults=(0,))
def query_event(m, th, event: handle):
    """(status, ret): ACL_EVENT_STATUS_NOT_READY (1) while its last record has not run, else COMPLETE (0)."""
    return events.query(m, th, event)


@api("aclrtQueryEventWaitStatus", cost="query", defaults=(0,))
def query_event_wait_status(m, th, event: handle):
    """(status, ret): ACL_EVENT_WAIT_STATUS_COMPLETE (0) once every wait for the event has run."""
    return events.query_wait_status(m, th, event)


@api("aclrtGetEventId", cost="query", defaults=(0,))
def get_event_id(m, th, event: handle):
    """(event_id, ret): the runtime's id of an event with a wait task (507000 for one without)."""
    return events.event_id(m, th, event)


@api("aclrtGetEventAvailNum", cost="query", defaults=(0,))
def get_event_avail_num(m, th):
    """(count, ret): how many more events the current device takes."""
    return events.available(m, th)


@api("aclrtCreateEventWithFlag", cost="create_event", defaults=(0,))
def create_event_with_flag(m, th, flag: int):
    return events.create(m, th, flag)


@api("aclrtRecordEvent", cost="event_record")
def record_event(m, th, event: handle, stream: handle) -> None:
    return events.record(m, th, event, stream)


@api("aclrtResetEvent", cost="event_record")
def reset_event(m, th, event: handle, stream: handle) -> None:
    return events.reset(m, th, event, stream)


@api("aclrtSynchronizeEvent")
def synchronize_event(m, th, event: handle) -> None:
    return events.synchronize(m, th, event)


@api("aclrtSynchronizeEventWithTimeout", convert=("timeout", "event"))
def synchronize_event_with_timeout(m, th, event: handle, timeout: timeout) -> None:
    with m.deadline(th, timeout, "event"):
        events.synchronize(m, th, event)


@api("aclrtQueryEventStatus", cost="query", defaults=(0,))
def query_event_status(m, th, event: handle):
    return events.query_status(m, th, event)


@api("aclrtEventGetTimestamp", cost="query", defaults=(0,))
def event_get_timestamp(m, th, event: handle):
    return events.get_timestamp(m, th, event)


@api("aclrtEventElapsedTime", cost="query", defaults=(0.0,))
def event_elapsed_time(m, th, start: handle, end: handle):
    return events.elapsed_time(m, th, start, end)


@api("aclrtDestroyEvent")
def destroy_event(m, th, event: handle) -> None:
    return events.destroy(m, th, event)


# -- events with flags (Ex events; EXTERNAL record/wait across a capture) ----------------------------------
def _event_flag(value, what: str) -> bool:
    """The acl layer's check (src/acl/aclrt_impl/event.cpp:100-102, stream.cpp:244-246): DEFAULT (0) or
    EXTERNAL (1), else 100000; True for EXTERNAL."""
    flag = as_int(value, what)
    if flag not in (0, 1):
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be 0 (DEFAULT) or 1 (EXTERNAL), got {flag}")
    return flag == 1


if TYPE_CHECKING:
    event_flag = bool
else:
    event_flag = Kind(_event_flag)


@api("aclrtCreateEventExWithFlag", cost="create_event", defaults=(0,))
def create_event_ex_with_flag(m, th, flag: int):
    return events.create(m, th, flag, ex=True)


@api("aclrtRecordEventWithFlag", cost="event_record")
def record_event_with_flag(m, th, event: handle, stream: handle, flag: event_flag) -> None:
    """ACL_EVENT_RECORD_EXTERNAL: a record captured into a graph that each replay makes on the event itself."""
    return events.record(m, th, event, stream, flag)


@api("aclrtStreamWaitEventWithFlag", cost="stream_wait_event", convert=("flag", "timeout", "stream", "event"))
def stream_wait_event_with_flag(m, th, stream: handle, event: handle, timeout: int, flag: event_flag) -> None:
    """ACL_EVENT_WAIT_EXTERNAL (timeout 0): a wait captured into a graph for the event's record at each replay.
    With DEFAULT the timeout is accepted: the sandbox's device-side waits never time out."""
    if flag and timeout != 0:  # the acl layer (stream.cpp:247-250)
        fail(ACL_ERROR_INVALID_PARAM, f"timeout must be 0 with ACL_EVENT_WAIT_EXTERNAL, got {timeout}")
    return events.stream_wait(m, th, stream, event, flag)


# -- memory ------------------------------------------------------------------------------------------
@api("aclrtMalloc", cost="malloc", defaults=(0,))
def malloc(m, th, size: positive_size, policy: int):
    return memory_calls.malloc(m, th, size, policy)


@api("aclrtMallocHost", cost="malloc_host", defaults=(0,))
def malloc_host(m, th, size: positive_size):
    return memory_calls.malloc_host(m, th, size)


@api("aclrtFree", cost="free")
def free(m, th, dev_ptr: ptr) -> None:
    if dev_ptr == 0:  # the acl layer (src/acl/aclrt_impl/memory.cpp:570)
        fail(ACL_ERROR_INVALID_PARAM, "aclrtFree(nullptr)")
    return memory_calls.free(m, th, dev_ptr)


@api("aclrtFreeWithDevSync", cost="free")
def free_with_dev_sync(m, th, dev_ptr: ptr) -> None:
    """Free device memory after waiting for the current device: the tasks still using it finish first.

    rtFreeWithDevSync is rtDeviceSynchronize, then rtFree (src/runtime/api/api_c_memory.cc:174-183);
    the acl layer refuses a null pointer before either (src/acl/aclrt_impl/memory.cpp:632) with 100000.
    A failed call frees nothing (core/features/memory_calls.py ``free_with_dev_sync``)."""
    if dev_ptr == 0:  # the acl layer (src/acl/aclrt_impl/memory.cpp:632)
        fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeWithDevSync(nullptr)")
    return memory_calls.free_with_dev_sync(m, th, dev_ptr)


@api("aclrtFreeHost", cost="free_host")
def free_host(m, th, host_ptr: ptr) -> None:
    if host_ptr == 0:  # the acl layer (memory.cpp:621)
        fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost(nullptr)")
    return memory_calls.free_host(m, th, host_ptr)


@api("aclrtMemcpy", trace=("count", "kind"))
def memcpy(m, th, dst: ptr, dest_max: size, src: ptr, count: size, kind: int) -> None:
    return memory_calls.memcpy(m, th, dst, dest_max, src, count, kind)


@api("aclrtMemcpyAsync", cost="memcpy_async", trace=("count", "kind", "stream"))
def memcpy_async(m, th, dst: ptr, dest_max: size, src: ptr, count: size, kind: int, stream: handle) -> None:
    return memory_calls.memcpy_async(m, th, dst, dest_max, src, count, kind, stream)


@api("aclrtMemset", trace=("count", "value"))
def memset(m, th, dev_ptr: ptr, max_count: size, value: int, count: size) -> None:
    return memory_calls.memset(m, th, dev_ptr, max_count, value, count)


@api("aclrtMemcpy2d", trace=("width", "height", "kind"))
def memcpy2d(m, th, dst: ptr, dpitch: size, src: ptr, spitch: size, width: size, height: size, kind: int) -> None:
    """Blocking copy of ``height`` rows of ``width`` bytes, ``spitch``/``dpitch`` bytes apart (core/features/memory_calls.py)."""
    return memory_calls.memcpy2d(m, th, dst, dpitch, src, spitch, width, height, kind)


@api("aclrtMemcpy2dAsync", cost="memcpy_async", trace=("width", "height", "kind", "stream"))
def memcpy2d_async(
    m, th, dst: ptr, dpitch: size, src: ptr, spitch: size, width: size, height: size, kind: int, stream: handle
) -> None:
    return memory_calls.memcpy2d_async(m, th, dst, dpitch, src, spitch, width, height, kind, stream)


@api("aclrtMemcpyAsyncWithCondition", cost="memcpy_async", trace=("count", "kind", "stream"))
def memcpy_async_with_condition(
    m, th, dst: ptr, dest_max: size, src: ptr, count: size, kind: int, stream: handle
) -> None:
    """Deprecated for aclrtMemcpyAsync, whose checks it makes (memory.cpp:706-735): the same copy."""
    return memory_calls.memcpy_async(m, th, dst, dest_max, src, count, kind, stream)


@api("aclrtMallocAlign32", cost="malloc", defaults=(0,))
def malloc_align32(m, th, size: positive_size, policy: int):
    """(dev_ptr, ret): as aclrtMalloc, without its 32 bytes of padding: ALIGN_UP(size, 32)."""
    return memory_calls.malloc(m, th, size, policy, padding=False)


@api("aclrtMallocCached", cost="malloc", defaults=(0,))
def malloc_cached(m, th, size: positive_size, policy: int):
    """(dev_ptr, ret): device memory the AI CPU reads through its cache (memory.cpp:389-420); the
    sandbox models no device caches, so it behaves as aclrtMalloc's."""
    return memory_calls.malloc(m, th, size, policy)


def _cache_range(dev_ptr: int, size: int) -> None:
    """aclrtMemFlush / aclrtMemInvalidate: the acl layer's checks (memory.cpp:543-563); the sandbox
    models no device caches, so there is nothing else to do."""
    if dev_ptr == 0:
        fail(ACL_ERROR_INVALID_PARAM, "devPtr is a null pointer")
    if size == 0:
        fail(ACL_ERROR_INVALID_PARAM, "size must be > 0")


@api("aclrtMemFlush", cost="query")
def mem_flush(m, th, dev_ptr: ptr, size: size) -> None:
    """Write back the cached lines of [dev_ptr, dev_ptr + size)."""
    return _cache_range(dev_ptr, size)


@api("aclrtMemInvalidate", cost="query")
def mem_invalidate(m, th, dev_ptr: ptr, size: size) -> None:
    """Drop the cached lines of [dev_ptr, dev_ptr + size)."""
    return _cache_range(dev_ptr, size)


@api(
    "aclrtPointerGetAttributes",
    cost="query",
    defaults=({"location": {"id": 0, "type": 0}, "page_size": 0, "rsv": [0, 0, 0, 0]},),
)
def pointer_get_attributes(m, th, ptr: ptr):
    """({"location": {"id", "type"}, "page_size", "rsv"}, ret): where the memory at ``ptr`` lives
    (type ACL_MEM_LOCATION_TYPE_HOST 0, DEVICE 1, UNREGISTERED 2) and its page size."""
    return memory_calls.pointer_attributes(m, th, ptr)


@api("aclrtMemsetAsync", cost="memset_async", trace=("count", "value", "stream"))
def memset_async(m, th, dev_ptr: ptr, max_count: size, value: int, count: size, stream: handle) -> None:
    return memory_calls.memset_async(m, th, dev_ptr, max_count, value, count, stream)


@api("aclrtGetMemInfo", defaults=(0, 0))
def get_mem_info(m, th, attr: int):
    return memory_calls.get_mem_info(m, th, attr)


@api("aclrtDeviceGetBareTgid", cost="query", defaults=(0,))
def device_get_bare_tgid(m, th):
    """(pid, ret): the calling process's id as the driver knows it, which IPC pid allow-lists take
    (aclrtIpcMemSetImportPid, aclrtNotifySetImportPid, aclrtMemSetPidToShareableHandle).  The
    sandbox's processes are numbered 1, 2, ... in the order they start, as the trace shows them
    (src/acl/aclrt_impl/memory.cpp aclrtDeviceGetBareTgidImpl: only the null check, then the driver)."""
    return th.process.pid


# -- virtual memory management (aclrtMallocPhysical ... aclrtMemImportFromShareableHandle, RT-API 11-04; see
# core/features/vmm.py for the runtime's rules and acl/_vmm_props.py for the acl layer's checks of the structs) ---------
def _not_null(value: int, what: str) -> None:
    """ACL_REQUIRES_NOT_NULL_WITH_INPUT_REPORT (src/acl/aclrt_impl/memory.cpp, each VMM call): 100000."""
    if value == 0:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must not be null (0)")


def _zero(value: int, what: str) -> None:
    """A reserved flags parameter the acl layer requires to be 0 (memory.cpp 1083, 1169): 100000."""
    if value != 0:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} is reserved and must be 0, got {value}")


@api("aclrtMemGetAllocationGranularity", cost="query", defaults=(0,))
def mem_get_allocation_granularity(m, th, prop: vmm_prop, option: int):
    """(granularity, ret): the size unit of physical allocations with these properties, in bytes."""
    return vmm.granularity(m, th, *_vmm_props.physical_prop(prop, allocating=False), option)


@api("aclrtMallocPhysical", cost="malloc", defaults=(0,))
def malloc_physical(m, th, size: positive_size, prop: vmm_prop, flags: int):
    """(handle, ret): device memory with no address, for aclrtMapMem (memory.cpp 1073-1146)."""
    _zero(flags, "flags")
    return vmm.malloc_physical(m, th, size, *_vmm_props.physical_prop(prop, allocating=True))


@api("aclrtFreePhysical", cost="free")
def free_physical(m, th, handle: handle) -> None:
    _not_null(handle, "handle")
    return vmm.free_physical(m, th, handle)


@api("aclrtReserveMemAddress", defaults=(0,))
def reserve_mem_address(m, th, size: positive_size, alignment: size, expect_ptr: ptr, flags: int):
    """(vir_ptr, ret): a range of addresses with nothing behind them (flags 0 or 1, memory.cpp 1053)."""
    if flags not in (0, 1):
        fail(ACL_ERROR_INVALID_PARAM, f"flags must be 0 (1 is kept for older programs), got {flags}")
    if expect_ptr:  # a limit of the sandbox, not a rule of the runtime: hence here, and 207000
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "expectPtr (choosing the address, experimental) is not modelled: pass 0")
    return vmm.reserve(m, th, size, alignment)


@api("aclrtReleaseMemAddress")
def release_mem_address(m, th, vir_ptr: ptr) -> None:
    _not_null(vir_ptr, "virPtr")
    return vmm.release(m, th, vir_ptr)


@api("aclrtMapMem")
def map_mem(m, th, vir_ptr: ptr, size: positive_size, offset: size, handle: handle, flags: int) -> None:
    _not_null(vir_ptr, "virPtr")
    _not_null(handle, "handle")
    _zero(flags, "flags")
    return vmm.map_mem(m, th, vir_ptr, size, offset, handle)


@api("aclrtUnmapMem")
def unmap_mem(m, th, vir_ptr: ptr) -> None:
    _not_null(vir_ptr, "virPtr")
    return vmm.unmap(m, th, vir_ptr)


@api("aclrtMemSetAccess")
def mem_set_access(m, th, vir_ptr: ptr, size: size, desc: vmm_prop, count: int) -> None:
    """desc: an aclrtMemAccessDesc dict {'flags': ..., 'location': {'id': device, 'type': ...}}, or a list."""
    return vmm.set_access(m, th, vir_ptr, size, _vmm_props.access_devices(desc, count))


@api("aclrtMemExportToShareableHandle", defaults=(0,))
def mem_export_to_shareable_handle(m, th, handle: handle, handle_type: int, flags: int):
    """(shareable_handle, ret): a uint64 another process imports (memory.cpp 1215-1229)."""
    _not_null(handle, "handle")
    if handle_type != C.ACL_MEM_HANDLE_TYPE_NONE:
        fail(ACL_ERROR_INVALID_PARAM, f"handleType must be ACL_MEM_HANDLE_TYPE_NONE, got {handle_type}")
    return vmm.export(m, th, handle, flags)


@api("aclrtMemSetPidToShareableHandle")
def mem_set_pid_to_shareable_handle(m, th, shareable_handle: int, pid: vmm_prop) -> None:
    """pid: the list of process ids (acl.rt.device_get_bare_tgid) that may import the handle (pyACL
    passes the list, and its length as the C call's pidNum)."""
    pids = pid if isinstance(pid, (list, tuple)) else [pid]
    return vmm.set_pids(m, th, shareable_handle, _vmm_props.pid_list(pid, len(pids)))


@api("aclrtMemImportFromShareableHandle", defaults=(0,))
def mem_import_from_shareable_handle(m, th, shareable_handle: int, device_id: int):
    """(handle, ret): this process's handle of another process's physical memory."""
    return vmm.import_(m, th, shareable_handle, device_id)


# -- custom allocators: the acl library's own records (acl/_allocator.py) --------------------------------
if TYPE_CHECKING:
    allocator_obj = Any
else:
    allocator_obj = Kind(show=describe)  # the learner's object, named by its kind (never a repr)


@api("aclrtAllocatorCreateDesc", defaults=(0,), bare=True)
def allocator_create_desc(m, th):
    """An empty allocator descriptor (a handle; 0 if none could be made): set its object and
    functions, then register it.  pyACL returns the handle alone (rt_allocator.cpp)."""
    return _allocator.create_desc(m, th)


@api("aclrtAllocatorDestroyDesc")
def allocator_destroy_desc(m, th, allocator_desc: handle) -> None:
    """Destroy a descriptor; a registration made from it stays (it is a copy)."""
    return _allocator.destroy_desc(m, th, allocator_desc)


@api("aclrtAllocatorSetObjToDesc")
def allocator_set_obj_to_desc(m, th, allocator_desc: handle, allocator: allocator_obj) -> None:
    """The allocator object each function gets first (any value but None)."""
    return _allocator.set_obj(m, th, allocator_desc, allocator)


@api("aclrtAllocatorSetAllocFuncToDesc")
def allocator_set_alloc_func_to_desc(m, th, allocator_desc: handle, func: callback) -> None:
    """``func(allocator, size)`` -> a block."""
    return _allocator.set_func(m, th, allocator_desc, "alloc", func)


@api("aclrtAllocatorSetFreeFuncToDesc")
def allocator_set_free_func_to_desc(m, th, allocator_desc: handle, func: callback) -> None:
    """``func(allocator, block)``."""
    return _allocator.set_func(m, th, allocator_desc, "free", func)


@api("aclrtAllocatorSetAllocAdviseFuncToDesc")
def allocator_set_alloc_advise_func_to_desc(m, th, allocator_desc: handle, func: callback) -> None:
    """``func(allocator, size, addr)`` -> a block (optional: register does not require it)."""
    return _allocator.set_func(m, th, allocator_desc, "alloc_advise", func)


@api("aclrtAllocatorSetGetAddrFromBlockFuncToDesc")
def allocator_set_get_addr_from_block_func_to_desc(m, th, allocator_desc: handle, func: callback) -> None:
    """``func(block)`` -> the block's memory."""
    return _allocator.set_func(m, th, allocator_desc, "get_addr_from_block", func)


@api("aclrtAllocatorRegister")
def allocator_register(m, th, stream: handle, allocator_desc: handle) -> None:
    """Save a copy of the descriptor under a created stream (again: replaces it)."""
    return _allocator.register(m, th, stream, allocator_desc)


@api("aclrtAllocatorGetByStream", defaults=(0, None, None, None, None, None))
def allocator_get_by_stream(m, th, stream: handle):
    """``(desc, allocator, alloc_func, free_func, alloc_advise_func, get_addr_from_block_func, ret)``."""
    return _allocator.get_by_stream(m, th, stream)


@api("aclrtAllocatorUnregister")
def allocator_unregister(m, th, stream: handle) -> None:
    """Drop the stream's registration (none: nothing to do, still 0)."""
    return _allocator.unregister(m, th, stream)


# -- stream-ordered memory pools (aclrtMemPool*, RT-API 11-10; see core/features/pools.py) ----------------------
@api("aclrtMemPoolCreate", cost="malloc", defaults=(0,))
def mem_pool_create(m, th, pool_props: pool_props):
    """(pool, ret): a memory pool; pool_props is a dict of the aclrtMemPoolProps members:
    {"allocType": ACL_MEM_ALLOCATION_TYPE_PINNED, "handleType": ACL_MEM_HANDLE_TYPE_NONE,
    "location": {"id": 0, "type": ACL_MEM_LOCATION_TYPE_DEVICE}, "maxSize": bytes}."""
    device_id, max_size = _pool_props.check(pool_props)
    return pools.create(m, th, device_id, max_size)


@api("aclrtMemPoolDestroy", cost="free")
def mem_pool_destroy(m, th, mem_pool: handle) -> None:
    return pools.destroy(m, th, mem_pool)


@api("aclrtMemPoolSetAttr", cost="query")
def mem_pool_set_attr(m, th, mem_pool: handle, attr: int, value: int) -> None:
    """Set an aclrtMemPoolAttr (the release threshold, a reuse switch, or a HIGH mark back to 0)."""
    return pools.set_attr(m, th, mem_pool, attr, value)


@api("aclrtMemPoolGetAttr", cost="query", defaults=(0,))
def mem_pool_get_attr(m, th, mem_pool: handle, attr: int):
    """(value, ret) of an aclrtMemPoolAttr."""
    return pools.get_attr(m, th, mem_pool, attr)


@api("aclrtMemPoolMallocAsync", cost="memset_async", defaults=(0,))
def mem_pool_malloc_async(m, th, size: size, mem_pool: handle, stream: handle):
    """(ptr, ret): a block of the pool, usable by work queued on ``stream`` after this call."""
    return pools.malloc_async(m, th, size, mem_pool, stream)


@api("aclrtMemPoolFreeAsync", cost="memset_async")
def mem_pool_free_async(m, th, ptr: ptr, stream: handle) -> None:
    """Give a pool block back to its pool when the work queued on ``stream`` before it is done."""
    if ptr == 0:  # the acl layer (memory.cpp:2159)
        fail(ACL_ERROR_INVALID_PARAM, "aclrtMemPoolFreeAsync(nullptr)")
    return pools.free_async(m, th, ptr, stream)


@api("aclrtMemPoolTrimTo", cost="free")
def mem_pool_trim_to(m, th, mem_pool: handle, min_bytes_to_keep: int) -> None:
    """Give the pool's free memory back to the device, keeping at least min_bytes_to_keep."""
    return pools.trim_to(m, th, mem_pool, min_bytes_to_keep)


# -- last error -----------------------------------------------------------------------------------------
@api("aclrtGetLastError", cost="query", defaults=(0,), trace=())
def _get_last_error(m, th, level: thread_level):
    code, th.last_error = th.last_error, 0
    return code


@api("aclrtPeekAtLastError", cost="query", defaults=(0,), trace=())
def _peek_at_last_error(m, th, level: thread_level):
    return th.last_error


def get_last_error(level) -> int:
    """The thread's last runtime error, which is then cleared."""
    value, ret = _get_last_error(level)
    return ret or value


def peek_at_last_error(level) -> int:
    """The thread's last runtime error, left in place."""
    value, ret = _peek_at_last_error(level)
    return ret or value


# -- task exceptions (see core/features/task_exceptions.py for the rules and codes) ------------------------------------
def _exceptions():
    from ..core.features import task_exceptions

    return task_exceptions


@api("aclrtSetExceptionInfoCallback")
def set_exception_info_callback(m, th, callback: callback = None) -> int:
    """Register fn(info), run by the runtime when a task of this process fails on the device;
    None, or no argument, removes it (pyACL's ``|O``: python/pyACL/rt/rt_synchronize.cpp)."""
    return _exceptions().set_callback(m, th, callback)


@api("aclrtGetThreadLastTaskId", cost="query", defaults=(0,))
def get_thread_last_task_id(m, th):
    """(task_id, ret): the last task this thread submitted to a created stream."""
    return th.last_task_id


@api("aclrtGetErrorVerbose", cost="query", defaults=(None,))
def get_error_verbose(m, th, device_id: int):
    """(info, ret): {"errorType", "tryRepair", "hasDetail"} of the device's held error."""
    return _exceptions().error_verbose(m, th, device_id)


def _reader(c_name: str, field: str):
    @helper(c_name, defaults=(0xFFFFFFFF,))
    def read(m, th, info):
        """The acl layer reads the struct's field (src/acl/aclrt_impl/callback.cpp:76-100)."""
        st = m.feature_in_use(_exceptions().ExceptionState)
        found = None if st is None or type(info) is not int else st.infos.get(info)
        if found is None:
            fail(
                ACL_ERROR_INVALID_PARAM,
                f"{describe(info)} is no exception info: read the one the exception callback "
                "gets, inside the callback (it is gone once the callback returns)",
            )
        return getattr(found, field)

    read.__name__ = read.__qualname__ = c_name
    read.__doc__ = f"The {field.replace('_', ' ')} of the exception info the callback got (0xFFFFFFFF: no info)."
    return read


get_task_id_from_exception_info = _reader("aclrtGetTaskIdFromExceptionInfo", "task_id")
get_stream_id_from_exception_info = _reader("aclrtGetStreamIdFromExceptionInfo", "stream_id")
get_thread_id_from_exception_info = _reader("aclrtGetThreadIdFromExceptionInfo", "thread_id")
get_device_id_from_exception_info = _reader("aclrtGetDeviceIdFromExceptionInfo", "device_id")
get_error_code_from_exception_info = _reader("aclrtGetErrorCodeFromExceptionInfo", "error_code")


# -- peer access and topology ---------------------------------------------------------------------------
@api("aclrtDeviceCanAccessPeer", cost="query", defaults=(0,))
def device_can_access_peer(m, th, device_id: int, peer_device_id: int):
    """(can_access_peer, ret): 1 if the two devices can exchange data directly."""
    return peer.can_access_peer(m, th, device_id, peer_device_id)


@api("aclrtDeviceEnablePeerAccess")
def device_enable_peer_access(m, th, peer_device_id: int, flags: int) -> None:
    """Open the direction current device -> peer_device_id (one-directional; flags must be 0)."""
    return peer.enable(m, th, peer_device_id, flags)


@api("aclrtDeviceDisablePeerAccess")
def device_disable_peer_access(m, th, peer_device_id: int) -> None:
    """Close the direction current device -> peer_device_id."""
    return peer.disable(m, th, peer_device_id)


@api("aclrtDevicePeerAccessStatus", cost="query", defaults=(0,))
def device_peer_access_status(m, th, device_id: int, peer_device_id: int):
    """(status, ret): 1 if this process has enabled the direction device_id -> peer_device_id."""
    return peer.access_status(m, th, device_id, peer_device_id)


@api("aclrtGetDevicesTopo", cost="query", defaults=(0,))
def get_devices_topo(m, th, device_id: int, other_device_id: int):
    """(value, ret): ACL_RT_DEVS_TOPOLOGY_* bits of the link between two devices."""
    return peer.devices_topo(m, th, device_id, other_device_id)


# -- host callbacks (see core/features/callbacks.py for the rules and codes) --------------------------------------
@api("aclrtSubscribeReport")
def subscribe_report(m, th, thread_id: thread_id, stream: handle) -> None:
    """Bind a host thread (threading.Thread.ident or acl.util.start_thread id) to run the stream's callbacks."""
    return callbacks.subscribe(m, th, thread_id, stream)


@api("aclrtUnSubscribeReport")
def unsubscribe_report(m, th, thread_id: thread_id, stream: handle) -> None:
    return callbacks.unsubscribe(m, th, thread_id, stream)


def _callable(fn) -> None:
    """pyACL's check of the function argument (the C call takes a function pointer)."""
    if not callable(fn):
        fail(ACL_ERROR_INVALID_PARAM, f"fn must be callable, got {describe(fn)}")


def _report_timeout(timeout: int) -> None:
    """The acl layer's check (src/acl/aclrt_impl/callback.cpp:189-192): -1 or > 0 ms, else 100000."""
    if timeout != -1 and timeout <= 0:
        fail(ACL_ERROR_INVALID_PARAM, f"timeout must be -1 (wait forever) or > 0 ms, got {timeout}")


@api("aclrtLaunchCallback", trace=("fn", "block_type", "stream"))
def launch_callback(m, th, fn: callback, user_data, block_type: int, stream: handle) -> None:
    """Queue fn(user_data) on the stream; the subscribed thread runs it in aclrtProcessReport."""
    _callable(fn)
    if block_type not in (C.ACL_CALLBACK_NO_BLOCK, C.ACL_CALLBACK_BLOCK):  # the acl layer (callback.cpp:163-166)
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"block_type must be ACL_CALLBACK_NO_BLOCK (0) or ACL_CALLBACK_BLOCK (1), got {block_type!r}",
        )
    return callbacks.launch_callback(m, th, fn, user_data, block_type, stream)


@api("aclrtProcessReport")
def process_report(m, th, timeout: int) -> None:
    """Wait up to ``timeout`` ms (-1: forever) for a callback of a subscribed stream and run it."""
    _report_timeout(timeout)
    return callbacks.process_report(m, th, timeout)


@api("aclrtLaunchHostFunc", trace=("stream", "fn"))
def launch_host_func(m, th, stream: handle, fn: callback, args) -> None:
    """Queue fn(args) on the stream, run by the runtime's own thread; later tasks wait for it."""
    _callable(fn)
    return callbacks.launch_host_func(m, th, stream, fn, args)


@api("aclrtSubscribeHostFunc")
def subscribe_host_func(m, th, host_func_thread_id: thread_id, exe_stream: handle) -> None:
    """Bind a host thread to run the host functions launched on ``exe_stream`` (in aclrtProcessHostFunc)."""
    return callbacks.subscribe(m, th, host_func_thread_id, exe_stream, host=True)


@api("aclrtUnSubscribeHostFunc")
def unsubscribe_host_func(m, th, host_func_thread_id: thread_id, exe_stream: handle) -> None:
    return callbacks.unsubscribe(m, th, host_func_thread_id, exe_stream, host=True)


@api("aclrtProcessHostFunc")
def process_host_func(m, th, timeout: int) -> None:
    """Wait up to ``timeout`` ms (-1: forever) for a host function of a subscribed stream and run it."""
    _report_timeout(timeout)
    return callbacks.process_report(m, th, timeout, host=True)


# -- notifies and value waits (core/features/notifies.py) ----------------------------------------------------------
@api("aclrtCreateNotify", cost="create_event", defaults=(0,))
def create_notify(m, th, flag: int):
    return notifies.create(m, th, flag)


@api("aclrtRecordNotify", cost="event_record")
def record_notify(m, th, notify: handle, stream: handle) -> None:
    return notifies.record(m, th, notify, stream)


@api("aclrtWaitAndResetNotify", cost="stream_wait_event")
def wait_and_reset_notify(m, th, notify: handle, stream: handle, timeout: int) -> None:
    """``timeout`` in seconds, 0: wait forever (docs 08)."""
    return notifies.wait_and_reset(m, th, notify, stream, timeout)


@api("aclrtDestroyNotify", cost="create_event")
def destroy_notify(m, th, notify: handle) -> None:
    if notify == 0:  # the acl layer (src/acl/aclrt_impl/notify.cpp:41), before the runtime's context check
        fail(ACL_ERROR_INVALID_PARAM, "notify is a null handle")
    return notifies.destroy(m, th, notify)


# -- IPC memory and notifies (core/features/ipc.py) --------------------------------------------------------------
def _key(key) -> str:
    """The acl layer's null check of a key (src/acl/aclrt_impl/memory.cpp:1781, 1790, 1800, 1864;
    notify.cpp:99, 112); a key is the string an export returned."""
    if key is None:
        fail(ACL_ERROR_INVALID_PARAM, "key is a null pointer")
    if type(key) is not str:
        fail(ACL_ERROR_INVALID_PARAM, f"key must be the str an export returned, got {describe(key)}")
    return key


def _pids(pid) -> list[int]:
    """The pids of the list (C: an int32_t array and its length); null 100000 (memory.cpp:1865,
    notify.cpp:125); an empty list is the runtime's to refuse (num 0)."""
    if pid is None:
        fail(ACL_ERROR_INVALID_PARAM, "pid is a null pointer")
    if not isinstance(pid, (list, tuple)):
        fail(ACL_ERROR_INVALID_PARAM, f"pid must be a list of process ids, got {describe(pid)}")
    return [as_int(p, "pid") for p in pid]


@api("aclrtIpcMemGetExportKey", defaults=("",))
def ipc_mem_get_export_key(m, th, dev_ptr: ptr, size: size, len: size, flags: int):
    """(key, ret): a key naming ``size`` bytes at ``dev_ptr`` for other processes; flags 1 =
    ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION (no allow-list)."""
    if dev_ptr == 0:  # the acl layer (src/acl/aclrt_impl/memory.cpp:1780)
        fail(ACL_ERROR_INVALID_PARAM, "devPtr is a null pointer")
    return ipc.export(m, th, dev_ptr, size, len, flags)


@api("aclrtIpcMemSetImportPid")
def ipc_mem_set_import_pid(m, th, key, pid) -> None:
    """Let the processes of the list ``pid`` (from aclrtDeviceGetBareTgid) import ``key`` (pyACL passes
    the list's length as the C call's num)."""
    return ipc.set_pids(m, th, _key(key), "mem", _pids(pid))


@api("aclrtIpcMemImportByKey", defaults=(0,))
def ipc_mem_import_by_key(m, th, key, flags: int):
    """(dev_ptr, ret): this process's address of the memory another process exported as ``key``."""
    return ipc.import_key(m, th, _key(key), "mem", flags)


@api("aclrtIpcMemClose")
def ipc_mem_close(m, th, key) -> None:
    """Close ``key``: the importer's first import of it, or the exporter's key."""
    return ipc.mem_close(m, th, _key(key))


@api("aclrtNotifyGetExportKey", defaults=("",))
def notify_get_export_key(m, th, notify: handle, len: size, flags: int):
    """(key, ret); flags 2 = ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION (no allow-list)."""
    if notify == 0:  # the acl layer (src/acl/aclrt_impl/notify.cpp:98)
        fail(ACL_ERROR_INVALID_PARAM, "notify is a null handle")
    return ipc.export(m, th, notify, None, len, flags)


@api("aclrtNotifySetImportPid")
def notify_set_import_pid(m, th, notify: handle, pid) -> None:
    """Let the processes of the list ``pid`` import the notify (pyACL passes the list's length as num)."""
    if notify == 0:  # the acl layer (src/acl/aclrt_impl/notify.cpp:124)
        fail(ACL_ERROR_INVALID_PARAM, "notify is a null handle")
    return ipc.set_pids(m, th, notify, "notify", _pids(pid))


@api("aclrtNotifyImportByKey", defaults=(0,))
def notify_import_by_key(m, th, key, flags: int):
    """(notify, ret): a handle, in this process, of the notify another process exported as ``key``."""
    return ipc.import_key(m, th, _key(key), "notify", flags)


def _value_word(api: str, dev_addr: int, value: int) -> None:
    """The acl layer's checks: value is a uint64_t, devAddr not null (src/acl/aclrt_impl/memory.cpp:1445, 1455)."""
    if not 0 <= value < 2**64:
        fail(ACL_ERROR_INVALID_PARAM, f"{api}: value {value} is not a uint64")
    if dev_addr == 0:
        fail(ACL_ERROR_INVALID_PARAM, f"{api}: devAddr is a null pointer")


@api("aclrtValueWrite", cost="event_record")
def value_write(m, th, dev_addr: ptr, value: int, flag: int, stream: handle) -> None:
    _value_word("aclrtValueWrite", dev_addr, value)
    return notifies.value_write(m, th, dev_addr, value, flag, stream)


@api("aclrtValueWait", cost="stream_wait_event")
def value_wait(m, th, dev_addr: ptr, value: int, flag: int, stream: handle) -> None:
    _value_word("aclrtValueWait", dev_addr, value)
    return notifies.value_wait(m, th, dev_addr, value, flag, stream)


# -- IPC events (shared between processes) -------------------------------------------------------------------
def _ipc_event_handle(value, what: str) -> int:
    """An aclrtIpcEventHandle: the 64 bytes aclrtIpcGetEventHandle returned (acl_rt.h:1011-1013, passed by value,
    so no null check: event.cpp:468-477); the body gets the key of its first 8 bytes (ipc_event.cc:219)."""
    if type(value) not in (bytes, bytearray) or len(value) != C.ACL_IPC_EVENT_HANDLE_SIZE:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"{what} must be the {C.ACL_IPC_EVENT_HANDLE_SIZE} bytes "
            f"aclrtIpcGetEventHandle returned, got {describe(value)}",
        )
    return int.from_bytes(value[:8], "little")


def _show_ipc_handle(value) -> str:
    """The trace shows a handle's first 8 bytes in hex (the rest are zero), anything else as describe does."""
    return bytes(value[:8]).hex() if type(value) in (bytes, bytearray) else describe(value)


if TYPE_CHECKING:
    ipc_event_handle = int
else:
    ipc_event_handle = Kind(_ipc_event_handle, show=_show_ipc_handle)


@api("aclrtIpcGetEventHandle", cost="query", defaults=(None,))
def ipc_get_event_handle(m, th, event: handle):
    """(handle, ret): the event's IPC handle, 64 bytes, for another process's aclrtIpcOpenEventHandle."""
    return events.ipc_get_handle(m, th, event)


@api("aclrtIpcOpenEventHandle", cost="create_event", defaults=(0,))
def ipc_open_event_handle(m, th, handle: ipc_event_handle):
    """(event, ret): an event of the current context that is the exported one (core/features/events.py)."""
    return events.ipc_open_handle(m, th, handle)


# -- device resources (see core/features/device_resources.py) ----------------------------------------------------------------
@api("aclrtCtxGetCurrentDefaultStream", cost="query", defaults=(0,))
def ctx_get_current_default_stream(m, th):
    """(stream, ret): the handle of the current context's default stream."""
    return m.current_context(th).default_stream.handle


@api("aclrtGetResInCurrentThread", cost="query", defaults=(0,))
def get_res_in_current_thread(m, th, res_type: int):
    """(value, ret): the cube or vector cores this thread may use on its current device."""
    return device_resources.in_current_thread(m, th, res_type)


@api("aclrtSetDeviceResLimit", cost="query")
def set_device_res_limit(m, th, device_id: int, res_type: int, value: int) -> None:
    """Limit the process's kernels on a device to ``value`` cube or vector cores."""
    return device_resources.set_limit(m, th, device_id, res_type, value)


@api("aclrtGetDeviceResLimit", cost="query", defaults=(0,))
def get_device_res_limit(m, th, device_id: int, res_type: int):
    """(value, ret): the process's limit, or the hardware figure."""
    return device_resources.get_limit(m, th, device_id, res_type)


@api("aclrtResetDeviceResLimit", cost="query")
def reset_device_res_limit(m, th, device_id: int) -> None:
    return device_resources.reset_limit(m, th, device_id)


@api("aclrtQueryDeviceStatus", cost="query", defaults=(0,))
def query_device_status(m, th, device_id: int):
    """(status, ret): ACL_RT_DEVICE_STATUS_NORMAL (0) or ..._ABNORMAL (1)."""
    return device_resources.device_status(m, th, device_id)


@api("aclrtGetDeviceUtilizationRate", cost="query", defaults=(None,))
def get_device_utilization_rate(m, th, device_id: int):
    """(info, ret): {"cubeUtilization", "vectorUtilization", "aicpuUtilization", "memoryUtilization"} in %."""
    return device_resources.utilization(m, th, device_id)


# -- built-in tasks ----------------------------------------------------------------------------------------
def _reserve(value, what: str):
    if not (type(value) is int and value == 0):
        fail(ACL_ERROR_INVALID_PARAM, f"{what} is a reserved pointer and must be 0 (null), got {describe(value)}")
    return None


if TYPE_CHECKING:
    reduce_type = Any
    reserved = Any
    random_task_info = dict
else:
    reduce_type = Kind(_types.reduce_dtype, show=lambda value: value)
    reserved = Kind(_reserve, no_none=True)  # pyACL parses it as an int ("k"): 0, not None
    random_task_info = Kind(_random.task_info, show=_random.show)


@api(
    "aclrtReduceAsync",
    cost="memcpy_async",
    trace=("count", "kind", "data_type", "stream"),
    convert=("dst", "src", "reserve", "data_type", "count", "kind", "stream"),
)
def reduce_async(
    m, th, dst: ptr, src: ptr, count: size, kind: int, data_type: reduce_type, stream: handle, reserve: reserved
) -> None:
    """Queue dst[i] += src[i] over ``count`` bytes of ``data_type`` elements (C: ``type``; kind SUM)."""
    if dst == 0 or src == 0:
        fail(ACL_ERROR_INVALID_PARAM, f"{'dst' if dst == 0 else 'src'} must not be a null pointer")
    return builtin_tasks.reduce_async(m, th, dst, src, count, kind, data_type, stream)


@api("aclrtRandomNumAsync", cost="memcpy_async", trace=("task_info", "stream"))
def random_num_async(m, th, task_info: random_task_info, stream: handle, reserve=None) -> None:
    """Queue a random-number task (C: aclrtRandomNumAsync): ``task_info`` is the aclrtRandomNumTaskInfo
    struct as a dict of its members (sandbox/acl/_random.py: the dict, the checks and their codes, the
    numbers).  Not NULL, ``reserve`` is refused by the runtime (107000), after the acl layer's checks."""
    reserve = None if reserve is None or (type(reserve) is int and reserve == 0) else reserve
    return builtin_tasks.random_num(m, th, stream, reserve, lambda: _random.decode(task_info))


# -- floating-point overflow (core/features/overflow.py) -------------------------------------------------------
# The modes: ACL_RT_OVERFLOW_MODE_SATURATION (0, a result too large becomes the largest finite value) and
# ACL_RT_OVERFLOW_MODE_INFNAN (1, it becomes inf or nan); which a chip has and its default come from
# src/runtime/config/<chip>/dev_info_reg.cc (supportOverflowMode; RT_FEATURE_OVERFLOW_MODE sets Inf/NaN
# first, runtime.cc:1506-1508): the 910B has both, Inf/NaN by default; the 310P and the 310B saturation only.
@api("aclrtGetDeviceSatMode", cost="query", defaults=(0,))
def get_device_sat_mode(m, th):
    """(mode, ret): the process's mode (ApiImpl::GetDeviceSatMode, src/runtime/api/impl/api_impl.cc:6940-6944)."""
    return overflow.get_mode(m, th)


@api("aclrtSetDeviceSatMode", cost="query")
def set_device_sat_mode(m, th, mode: int) -> None:
    """The process's mode, for streams created afterwards (docs/zh/api_ref/04_device_management.md: streams
    made before keep theirs; src/runtime/core/src/stream/stream.cc:705).  A mode the chip lacks is 207000
    ACL_ERROR_RT_FEATURE_NOT_SUPPORT (src/runtime/api/api_c.cc:3149-3159: on a saturation-only chip
    SATURATION succeeds and changes nothing), then a mode outside [0, 2) 107000 (api_error.cc:5994-5997)."""
    return overflow.set_mode(m, th, mode)


def _overflow_flag(value, what: str) -> int:
    flag = as_int(value, what)
    if flag not in (0, 1):  # the acl layer: src/acl/aclrt_impl/stream.cpp:279
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be 0 (off) or 1 (on), got {describe(value)}")
    return flag


if TYPE_CHECKING:
    overflow_flag = int
else:
    overflow_flag = Kind(_overflow_flag)


@api("aclrtSetStreamOverflowSwitch", cost="query")
def set_stream_overflow_switch(m, th, stream: handle, flag: overflow_flag) -> None:
    """Turn overflow detection of ``stream``'s kernels on (1) or off (0); kernels launched afterwards
    follow it.  A flag other than 0 or 1 is 100000 (the acl layer, stream.cpp:279).  A chip without
    RT_FEATURE_STREAM_ATTR_OVERFLOW_CHECK (the 310P, the 310B) returns success and keeps nothing
    (src/runtime/api/api_c_stream.cc:555-561); else a capturing stream is 107027 (api_error.cc:6023-6026)
    and a stream of another context 107003 (api_impl.cc:6960-6969).  The runtime sends the switch as a
    task; the sandbox keeps it at once (assumption: the host-side record of stream.cc's SetOverflowSwitch)."""
    return overflow.set_switch(m, th, stream, flag)


@api("aclrtGetStreamOverflowSwitch", cost="query", defaults=(0,))
def get_stream_overflow_switch(m, th, stream: handle):
    """(flag, ret): the stream's switch on a chip with the STARS scheduler (the 910B, the 310B), else 1
    (ApiImpl::GetStreamOverflowSwitch, api_impl.cc:6972-6983); a stream of another context 107003."""
    return overflow.get_switch(m, th, stream)


@api("aclrtGetOverflowStatus", cost="memcpy_async", trace=("output_size", "stream"))
def get_overflow_status(m, th, output_addr: ptr, output_size: size, stream: handle) -> None:
    """Queue a copy of the overflow status into ``output_addr`` (64 bytes: a uint32, 1 once a kernel on a
    stream whose switch is on overflowed since the last reset, then zeros), at the task's completion.
    The status is the process's, on the stream's device (docs 04_device_management.md: process level on
    A2/A3).  A null output_addr is 100000 (the acl layer, src/acl/aclrt_impl/device.cpp:255); then
    outputSize other than 64 is 107000 (api_error.cc:6197-6199), a capturing stream 107027 (6200-6203), a
    stream of another context 107003 (api_impl.cc:7112-7114); memory outside device memory of the
    stream's device 107000 (sandbox choice, as for copies)."""
    if output_addr == 0:
        fail(ACL_ERROR_INVALID_PARAM, "outputAddr must not be a null pointer")
    return overflow.status_task(m, th, stream, output_addr, output_size)


@api("aclrtResetOverflowStatus", cost="memset_async")
def reset_overflow_status(m, th, stream: handle) -> None:
    """Queue a task that clears the overflow status (rtCleanDeviceSatStatus, api_c.cc:3557-3578); a
    capturing stream is 107027 (api_error.cc:6207-6213), a stream of another context 107003."""
    return overflow.status_task(m, th, stream)


# -- cross-version checks (acl/_compat.py) -------------------------------------------------------------
@api("aclrtCheckArchCompatibility", defaults=(0,))
def check_arch_compatibility(m, th, soc_version: _compat.soc_version):
    """``(can_compatible, ret)``: 1 when the SoC's architecture (NpuArch) is the device's, else 0."""
    return _compat.check_arch_compatibility(m, th, soc_version)


@api("aclrtGetDeviceCapability", defaults=(0,))
def get_device_capability(m, th, device_id: int, dev_feature_type: int):
    """``(value, ret)`` of one aclrtDevFeatureType (1: a task update of AI Core/Vector kernels, 0/1)."""
    return _compat.device_capability(m, th, device_id, dev_feature_type)
