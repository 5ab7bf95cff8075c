"""``acl.rt``: the runtime calls, with pyACL's names and return conventions.

Status-only calls return an int (0 = success); calls that produce values return a tuple
with ret last.  Handles and pointers are ints; stream 0 is the current context's default
stream.  Each call's C name is the one the trace and the error messages use.
"""
from __future__ import annotations

from ..core import devices, events, memops, peer, streams
from ..core.errors import ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_PARAM_INVALID, describe, fail
from ..core.gate import as_int, as_ptr, as_size, call


def _handle(value, what: str) -> int:
    """Stream/event/context handles: ints, with None accepted as the null handle."""
    return 0 if value is None else as_int(value, what)


# -- devices and contexts ----------------------------------------------------------------------
def set_device(device_id) -> int:
    return call("aclrtSetDevice", lambda m, th: devices.set_device(m, th, as_int(device_id, "device_id")),
                cost="set_device", args=("device_id", device_id))


def reset_device(device_id) -> int:
    return call("aclrtResetDevice",
                lambda m, th: devices.reset_device(m, th, as_int(device_id, "device_id"), force=False),
                cost="default", args=("device_id", device_id))


def reset_device_force(device_id) -> int:
    return call("aclrtResetDeviceForce",
                lambda m, th: devices.reset_device(m, th, as_int(device_id, "device_id"), force=True),
                cost="default", args=("device_id", device_id))


def get_device():
    return call("aclrtGetDevice", devices.get_device, cost="default", defaults=(-1,))


def get_device_count():
    return call("aclrtGetDeviceCount", lambda m, th: len(m.devices), cost="default", defaults=(0,))


def get_device_info(device_id, attr):
    return call("aclrtGetDeviceInfo",
                lambda m, th: devices.device_info(m, as_int(device_id, "device_id"), as_int(attr, "attr")),
                cost="default", defaults=(0,), args=("device_id", device_id, "attr", attr))


def get_run_mode():
    return call("aclrtGetRunMode", lambda m, th: m.profile.run_mode, cost="default", defaults=(0,))


def synchronize_device() -> int:
    return call("aclrtSynchronizeDevice", devices.synchronize_device, cost="default")


def synchronize_device_with_timeout(timeout) -> int:
    def body(m, th):
        ms = as_int(timeout, "timeout")
        if ms < -1:
            fail(ACL_ERROR_RT_PARAM_INVALID, f"timeout must be -1 (forever) or >= 0 ms, got {ms}")
        with m.deadline(th, ms, "device"):
            devices.synchronize_device(m, th)
    return call("aclrtSynchronizeDeviceWithTimeout", body, cost="default", args=("timeout", timeout))


def create_context(device_id):
    return call("aclrtCreateContext",
                lambda m, th: devices.create_context(m, th, as_int(device_id, "device_id")),
                cost="create_context", defaults=(0,), args=("device_id", device_id))


def destroy_context(context) -> int:
    return call("aclrtDestroyContext", lambda m, th: devices.destroy_context(m, th, _handle(context, "context")),
                cost="default", args=("context", context))


def set_context(context) -> int:
    return call("aclrtSetCurrentContext", lambda m, th: devices.set_context(m, th, _handle(context, "context")),
                cost="default", args=("context", context))


def get_context():
    return call("aclrtGetCurrentContext", devices.get_context, cost="default", defaults=(0,))


# -- streams ---------------------------------------------------------------------------------------
def create_stream():
    return call("aclrtCreateStream", lambda m, th: streams.create(m, th), cost="create_stream",
                defaults=(0,))


def create_stream_with_config(priority, flag):
    return call("aclrtCreateStreamWithConfig",
                lambda m, th: streams.create(m, th, as_int(priority, "priority"), as_int(flag, "flag")),
                cost="create_stream", defaults=(0,), args=("priority", priority, "flag", flag))


def destroy_stream(stream) -> int:
    return call("aclrtDestroyStream", lambda m, th: streams.destroy(m, th, _handle(stream, "stream")),
                cost="destroy_stream", args=("stream", stream))


def synchronize_stream(stream) -> int:
    return call("aclrtSynchronizeStream", lambda m, th: streams.synchronize(m, th, _handle(stream, "stream")),
                cost="default", args=("stream", stream))


def synchronize_stream_with_timeout(stream, timeout) -> int:
    def body(m, th):
        ms = as_int(timeout, "timeout")
        if ms < -1:
            fail(ACL_ERROR_RT_PARAM_INVALID, f"timeout must be -1 (forever) or >= 0 ms, got {ms}")
        with m.deadline(th, ms, "stream"):
            streams.synchronize(m, th, _handle(stream, "stream"))
    return call("aclrtSynchronizeStreamWithTimeout", body, cost="default",
                args=("stream", stream, "timeout", timeout))


def stream_query(stream):
    return call("aclrtStreamQuery", lambda m, th: streams.query(m, th, _handle(stream, "stream")),
                cost="query", defaults=(0,), args=("stream", stream))


def stream_wait_event(stream, event) -> int:
    return call("aclrtStreamWaitEvent",
                lambda m, th: events.stream_wait(m, th, _handle(stream, "stream"), _handle(event, "event")),
                cost="stream_wait_event", args=("stream", stream, "event", event))


def set_stream_failure_mode(stream, mode) -> int:
    return call("aclrtSetStreamFailureMode",
                lambda m, th: streams.set_failure_mode(m, th, _handle(stream, "stream"), as_int(mode, "mode")),
                cost="default", args=("stream", stream, "mode", mode))


def stream_get_priority(stream):
    return call("aclrtStreamGetPriority", lambda m, th: streams.get_priority(m, th, _handle(stream, "stream")),
                cost="default", defaults=(0,), args=("stream", stream))


def device_get_stream_priority_range():
    """(least, greatest, ret): 7 is the lowest priority, 0 the highest."""
    return call("aclrtDeviceGetStreamPriorityRange", lambda m, th: (streams.LOWEST_PRIORITY, 0),
                cost="default", defaults=(0, 0))


# -- events ----------------------------------------------------------------------------------------
def create_event():
    return call("aclrtCreateEvent", lambda m, th: events.create(m, th, None), cost="create_event",
                defaults=(0,))


def create_event_with_flag(flag):
    return call("aclrtCreateEventWithFlag", lambda m, th: events.create(m, th, as_int(flag, "flag")),
                cost="create_event", defaults=(0,), args=("flag", flag))


def record_event(event, stream) -> int:
    return call("aclrtRecordEvent",
                lambda m, th: events.record(m, th, _handle(event, "event"), _handle(stream, "stream")),
                cost="event_record", args=("event", event, "stream", stream))


def reset_event(event, stream) -> int:
    return call("aclrtResetEvent",
                lambda m, th: events.reset(m, th, _handle(event, "event"), _handle(stream, "stream")),
                cost="event_record", args=("event", event, "stream", stream))


def synchronize_event(event) -> int:
    return call("aclrtSynchronizeEvent", lambda m, th: events.synchronize(m, th, _handle(event, "event")),
                cost="default", args=("event", event))


def synchronize_event_with_timeout(event, timeout) -> int:
    def body(m, th):
        ms = as_int(timeout, "timeout")
        if ms < -1:
            fail(ACL_ERROR_RT_PARAM_INVALID, f"timeout must be -1 (forever) or >= 0 ms, got {ms}")
        with m.deadline(th, ms, "event"):
            events.synchronize(m, th, _handle(event, "event"))
    return call("aclrtSynchronizeEventWithTimeout", body, cost="default",
                args=("event", event, "timeout", timeout))


def query_event_status(event):
    return call("aclrtQueryEventStatus", lambda m, th: events.query_status(m, th, _handle(event, "event")),
                cost="query", defaults=(0,), args=("event", event))


def event_elapsed_time(start, end):
    return call("aclrtEventElapsedTime",
                lambda m, th: events.elapsed_time(m, th, _handle(start, "start"), _handle(end, "end")),
                cost="query", defaults=(0.0,), args=("start", start, "end", end))


def destroy_event(event) -> int:
    return call("aclrtDestroyEvent", lambda m, th: events.destroy(m, th, _handle(event, "event")),
                cost="default", args=("event", event))


# -- memory ------------------------------------------------------------------------------------------
def malloc(size, policy):
    return call("aclrtMalloc",
                lambda m, th: memops.malloc(m, th, as_size(size, "size", positive=True), as_int(policy, "policy")),
                cost="malloc", defaults=(0,), args=("size", size, "policy", policy))


def malloc_host(size):
    return call("aclrtMallocHost", lambda m, th: memops.malloc_host(m, th, as_size(size, "size", positive=True)),
                cost="malloc_host", defaults=(0,), args=("size", size))


def free(dev_ptr) -> int:
    return call("aclrtFree", lambda m, th: memops.free(m, th, as_ptr(dev_ptr, "dev_ptr")),
                cost="free", args=("dev_ptr", dev_ptr))


def free_host(host_ptr) -> int:
    return call("aclrtFreeHost", lambda m, th: memops.free_host(m, th, as_ptr(host_ptr, "host_ptr")),
                cost="free_host", args=("host_ptr", host_ptr))


def _copy_args(dst, dest_max, src, count, kind):
    if type(dst) is type(dest_max) is type(src) is type(count) is type(kind) is int and dest_max >= 0 \
            and count >= 0:
        return dst, dest_max, src, count, kind             # the common case: plain ints, sizes >= 0
    return (as_ptr(dst, "dst"), as_size(dest_max, "dest_max"), as_ptr(src, "src"),
            as_size(count, "count"), as_int(kind, "kind"))


def memcpy(dst, dest_max, src, count, kind) -> int:
    return call("aclrtMemcpy", lambda m, th: memops.memcpy(m, th, *_copy_args(dst, dest_max, src, count, kind)),
                cost="default", args=("count", count, "kind", kind))


def memcpy_async(dst, dest_max, src, count, kind, stream) -> int:
    return call("aclrtMemcpyAsync",
                lambda m, th: memops.memcpy_async(m, th, *_copy_args(dst, dest_max, src, count, kind),
                                                  _handle(stream, "stream")),
                cost="memcpy_async", args=("count", count, "kind", kind, "stream", stream))


def _memset_args(dev_ptr, max_count, value, count):
    return (as_ptr(dev_ptr, "dev_ptr"), as_size(max_count, "max_count"), as_int(value, "value"),
            as_size(count, "count"))


def memset(dev_ptr, max_count, value, count) -> int:
    return call("aclrtMemset", lambda m, th: memops.memset(m, th, *_memset_args(dev_ptr, max_count, value, count)),
                cost="default", args=("count", count, "value", value))


def memset_async(dev_ptr, max_count, value, count, stream) -> int:
    return call("aclrtMemsetAsync",
                lambda m, th: memops.memset_async(m, th, *_memset_args(dev_ptr, max_count, value, count),
                                                  _handle(stream, "stream")),
                cost="memset_async", args=("count", count, "value", value, "stream", stream))


def get_mem_info(attr):
    return call("aclrtGetMemInfo", lambda m, th: memops.get_mem_info(m, th, as_int(attr, "attr")),
                cost="default", defaults=(0, 0), args=("attr", attr))


# -- last error -----------------------------------------------------------------------------------------
def _check_level(level) -> None:
    if as_int(level, "level") != 0:
        fail(ACL_ERROR_INVALID_PARAM, f"level must be ACL_RT_THREAD_LEVEL (0), got {describe(level)}")


def get_last_error(level=0) -> int:
    """The thread's last runtime error, which is then cleared."""
    def body(m, th):
        _check_level(level)
        code, th.last_error = th.last_error, 0
        return code
    value, ret = call("aclrtGetLastError", body, cost="query", defaults=(0,))
    return ret or value


def peek_at_last_error(level=0) -> int:
    """The thread's last runtime error, left in place."""
    def body(m, th):
        _check_level(level)
        return th.last_error
    value, ret = call("aclrtPeekAtLastError", body, cost="query", defaults=(0,))
    return ret or value


# -- peer access and topology ---------------------------------------------------------------------------
def device_can_access_peer(device_id, peer_device_id):
    """(can_access_peer, ret): 1 if the two devices can exchange data directly."""
    return call("aclrtDeviceCanAccessPeer",
                lambda m, th: peer.can_access_peer(m, th, as_int(device_id, "device_id"),
                                                   as_int(peer_device_id, "peer_device_id")),
                cost="query", defaults=(0,),
                args=("device_id", device_id, "peer_device_id", peer_device_id))


def device_enable_peer_access(peer_device_id, flags) -> int:
    """Open the direction current device -> peer_device_id (one-directional; flags must be 0)."""
    return call("aclrtDeviceEnablePeerAccess",
                lambda m, th: peer.enable(m, th, as_int(peer_device_id, "peer_device_id"), as_int(flags, "flags")),
                cost="default", args=("peer_device_id", peer_device_id, "flags", flags))


def device_disable_peer_access(peer_device_id) -> int:
    """Close the direction current device -> peer_device_id."""
    return call("aclrtDeviceDisablePeerAccess",
                lambda m, th: peer.disable(m, th, as_int(peer_device_id, "peer_device_id")),
                cost="default", args=("peer_device_id", peer_device_id))


def device_peer_access_status(device_id, peer_device_id):
    """(status, ret): 1 if this process has enabled the direction device_id -> peer_device_id."""
    return call("aclrtDevicePeerAccessStatus",
                lambda m, th: peer.access_status(m, th, as_int(device_id, "device_id"),
                                                 as_int(peer_device_id, "peer_device_id")),
                cost="query", defaults=(0,),
                args=("device_id", device_id, "peer_device_id", peer_device_id))


def get_devices_topo(device_id, other_device_id):
    """(value, ret): ACL_RT_DEVS_TOPOLOGY_* bits of the link between two devices."""
    return call("aclrtGetDevicesTopo",
                lambda m, th: peer.devices_topo(m, th, as_int(device_id, "device_id"),
                                                as_int(other_device_id, "other_device_id")),
                cost="query", defaults=(0,),
                args=("device_id", device_id, "other_device_id", other_device_id))


# -- host callbacks (see core/callbacks.py for the rules and codes) --------------------------------------
def _fn_label(fn) -> str:
    """What the trace shows for a callback argument: its name, or what it is (never a repr)."""
    name = getattr(fn, "__name__", None)
    return name if type(name) is str else describe(fn)


def _callbacks():
    from ..core import callbacks
    return callbacks


def subscribe_report(thread_id, stream) -> int:
    """Bind a host thread (threading.Thread.ident or acl.util.start_thread id) to run the stream's callbacks."""
    return call("aclrtSubscribeReport",
                lambda m, th: _callbacks().subscribe(m, th, thread_id, _handle(stream, "stream")),
                cost="default", args=("thread_id", _callbacks().thread_label(thread_id), "stream", stream))


def unsubscribe_report(thread_id, stream) -> int:
    return call("aclrtUnSubscribeReport",
                lambda m, th: _callbacks().unsubscribe(m, th, thread_id, _handle(stream, "stream")),
                cost="default", args=("thread_id", _callbacks().thread_label(thread_id), "stream", stream))


def launch_callback(fn, user_data, block_type, stream) -> int:
    """Queue fn(user_data) on the stream; the subscribed thread runs it in aclrtProcessReport."""
    return call("aclrtLaunchCallback",
                lambda m, th: _callbacks().launch_callback(m, th, fn, user_data, as_int(block_type, "block_type"),
                                                           _handle(stream, "stream")),
                cost="default",
                args=("fn", _fn_label(fn), "block_type", block_type, "stream", stream))


def process_report(timeout) -> int:
    """Wait up to ``timeout`` ms (-1: forever) for a callback of a subscribed stream and run it."""
    return call("aclrtProcessReport", lambda m, th: _callbacks().process_report(m, th, as_int(timeout, "timeout")),
                cost="default", args=("timeout", timeout))


def launch_host_func(stream, fn, args) -> int:
    """Queue fn(args) on the stream, run by the runtime's own thread; later tasks wait for it."""
    return call("aclrtLaunchHostFunc",
                lambda m, th: _callbacks().launch_host_func(m, th, _handle(stream, "stream"), fn, args),
                cost="default", args=("stream", stream, "fn", _fn_label(fn)))


# -- stream-ordered memory pools (aclrtMemPool*, RT-API 11-10; see core/pools.py) ----------------------
def _pools():
    from ..core import pools
    return pools


def mem_pool_create(pool_props):
    """(pool, ret): a memory pool; pool_props is a dict of the aclrtMemPoolProps members:
    {"allocType": ACL_MEM_ALLOCATION_TYPE_PINNED, "handleType": ACL_MEM_HANDLE_TYPE_NONE,
    "location": {"id": 0, "type": ACL_MEM_LOCATION_TYPE_DEVICE}, "maxSize": bytes}."""
    return call("aclrtMemPoolCreate", lambda m, th: _pools().create(m, th, pool_props),
                cost="malloc", defaults=(0,), args=("pool_props", describe(pool_props, limit=200)))


def mem_pool_destroy(mem_pool) -> int:
    return call("aclrtMemPoolDestroy", lambda m, th: _pools().destroy(m, th, _handle(mem_pool, "mem_pool")),
                cost="free", args=("mem_pool", mem_pool))


def mem_pool_set_attr(mem_pool, attr, value) -> int:
    """Set an aclrtMemPoolAttr (the release threshold, a reuse switch, or a HIGH mark back to 0)."""
    return call("aclrtMemPoolSetAttr",
                lambda m, th: _pools().set_attr(m, th, _handle(mem_pool, "mem_pool"), as_int(attr, "attr"),
                                                as_int(value, "value")),
                cost="query", args=("mem_pool", mem_pool, "attr", attr, "value", value))


def mem_pool_get_attr(mem_pool, attr):
    """(value, ret) of an aclrtMemPoolAttr."""
    return call("aclrtMemPoolGetAttr",
                lambda m, th: _pools().get_attr(m, th, _handle(mem_pool, "mem_pool"), as_int(attr, "attr")),
                cost="query", defaults=(0,), args=("mem_pool", mem_pool, "attr", attr))


def mem_pool_malloc_async(size, mem_pool, stream):
    """(ptr, ret): a block of the pool, usable by work queued on ``stream`` after this call."""
    return call("aclrtMemPoolMallocAsync",
                lambda m, th: _pools().malloc_async(m, th, as_size(size, "size"), _handle(mem_pool, "mem_pool"),
                                                    _handle(stream, "stream")),
                cost="memset_async", defaults=(0,),
                args=("size", size, "mem_pool", mem_pool, "stream", stream))


def mem_pool_free_async(ptr, stream) -> int:
    """Give a pool block back to its pool when the work queued on ``stream`` before it is done."""
    return call("aclrtMemPoolFreeAsync",
                lambda m, th: _pools().free_async(m, th, as_ptr(ptr, "ptr"), _handle(stream, "stream")),
                cost="memset_async", args=("ptr", ptr, "stream", stream))


def mem_pool_trim_to(mem_pool, min_bytes_to_keep) -> int:
    """Give the pool's free memory back to the device, keeping at least min_bytes_to_keep."""
    return call("aclrtMemPoolTrimTo",
                lambda m, th: _pools().trim_to(m, th, _handle(mem_pool, "mem_pool"),
                                               as_int(min_bytes_to_keep, "min_bytes_to_keep")),
                cost="free", args=("mem_pool", mem_pool, "min_bytes_to_keep", min_bytes_to_keep))
