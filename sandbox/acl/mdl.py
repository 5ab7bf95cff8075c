"""``acl.mdl``: ACL Graph (stream capture into a model run instance, aclmdlRI).

No pyACL binding of these calls is published; the names follow pyACL's rule (the C name
without ``aclmdl``, CamelCase to snake_case) and its return convention (status-only calls
return the int, value calls a tuple with ret last).  A model run instance is an int handle.

    acl.mdl.ri_capture_begin(stream, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
    ... kernels, memcpy_async with pinned memory, record/wait ...
    ri, ret = acl.mdl.ri_capture_end(stream)
    acl.mdl.ri_execute_async(ri, stream)      # all recorded tasks, one host call
    acl.rt.synchronize_stream(stream)
    acl.mdl.ri_destroy(ri)

The rules and their codes are in ``sandbox.core.graph``.
"""
from __future__ import annotations

from ..core.gate import as_int, call
from ..core.graph import CAPTURE_CALL_NS, GRAPH_LAUNCH_NS

ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY = 0x0
ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE = 0x1


def _handle(value, what: str) -> int:
    return 0 if value is None else as_int(value, what)


def ri_capture_begin(stream, mode) -> int:
    """aclmdlRICaptureBegin: tasks issued to ``stream`` from now on are recorded, not run."""
    def body(m, th):
        m.graphs.check_supported("aclmdlRICaptureBegin")
        m.graphs.begin(th, m.stream(th, _handle(stream, "stream"), api="aclmdlRICaptureBegin"), as_int(mode, "mode"))
    return call("aclmdlRICaptureBegin", body, cost=CAPTURE_CALL_NS, args=("stream", stream, "mode", mode))


def ri_capture_get_info(stream):
    """aclmdlRICaptureGetInfo: (status, ri, ret); status is ACL_MODEL_RI_CAPTURE_STATUS_*."""
    def body(m, th):
        m.graphs.check_supported("aclmdlRICaptureGetInfo")
        return m.graphs.info(m.stream(th, _handle(stream, "stream"), check_context=False))
    return call("aclmdlRICaptureGetInfo", body, cost=CAPTURE_CALL_NS, defaults=(0, 0), args=("stream", stream))


def ri_capture_thread_exchange_mode(mode):
    """aclmdlRICaptureThreadExchangeMode: (old_mode, ret); sets the calling thread's capture mode."""
    def body(m, th):
        return m.graphs.exchange_mode(th, as_int(mode, "mode"))
    return call("aclmdlRICaptureThreadExchangeMode", body, cost=CAPTURE_CALL_NS, defaults=(mode,),
                args=("mode", mode))


def ri_capture_end(stream):
    """aclmdlRICaptureEnd: (ri, ret); the recorded tasks become a model run instance."""
    def body(m, th):
        m.graphs.check_supported("aclmdlRICaptureEnd")
        return m.graphs.end(th, m.stream(th, _handle(stream, "stream"), api="aclmdlRICaptureEnd")).handle
    return call("aclmdlRICaptureEnd", body, cost=CAPTURE_CALL_NS, defaults=(0,), args=("stream", stream))


def ri_execute_async(ri, stream) -> int:
    """aclmdlRIExecuteAsync: submit every recorded task onto ``stream`` for one host call."""
    def body(m, th):
        m.graphs.check_supported("aclmdlRIExecuteAsync")
        model = m.graphs.ri(as_int(ri, "ri"))
        m.graphs.execute_async(th, model, m.stream(th, _handle(stream, "stream"), api="aclmdlRIExecuteAsync"))
    return call("aclmdlRIExecuteAsync", body, cost=GRAPH_LAUNCH_NS, args=("ri", ri, "stream", stream))


def ri_execute(ri, timeout) -> int:
    """aclmdlRIExecute: the blocking form, documented as unusable with captured instances."""
    def body(m, th):
        m.graphs.execute(th, m.graphs.ri(as_int(ri, "ri")), as_int(timeout, "timeout"))
    return call("aclmdlRIExecute", body, cost=CAPTURE_CALL_NS, args=("ri", ri, "timeout", timeout))


def ri_destroy(ri) -> int:
    """aclmdlRIDestroy: free the instance (107037 while a launch of it is still running)."""
    def body(m, th):
        m.graphs.destroy(th, m.graphs.ri(as_int(ri, "ri")))
    return call("aclmdlRIDestroy", body, cost=CAPTURE_CALL_NS, args=("ri", ri))


def ri_debug_json_print(ri, path, flags=ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY) -> int:
    """aclmdlRIDebugJsonPrint: write the instance's streams and tasks to ``path`` as JSON."""
    def body(m, th):
        m.graphs.debug_json(m.graphs.ri(as_int(ri, "ri")), path, as_int(flags, "flags"))
    return call("aclmdlRIDebugJsonPrint", body, cost=CAPTURE_CALL_NS,
                args=("ri", ri, "path", path, "flags", flags))
