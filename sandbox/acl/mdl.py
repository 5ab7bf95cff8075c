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

The rules and their codes are in ``sandbox.core.features.capture``.  Handles are looked up as they are
converted (kinds ``model``, ``stream_here``, ``any_stream``), in signature order, after the
profile's support for graphs (``before=_supported``) where the call checks it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.gate import as_int, as_ptr
from ..core.features.capture import graphs
from ._declare import Kind, api

ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY = 0x0
ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE = 0x1

if TYPE_CHECKING:  # to a type checker, a kind is the type the body gets: the object looked up
    from ..core.features.capture import ModelRI as model
    from ..core.objects import Stream as any_stream
    from ..core.objects import Stream as stream_here
else:
    model = Kind(lambda m, th, value, what, c_name: graphs(m).ri(as_int(value, what)), resolve=True)
    stream_here = Kind(lambda m, th, value, what, c_name: m.stream(th, as_ptr(value, what), api=c_name), resolve=True)
    any_stream = Kind(
        lambda m, th, value, what, c_name: m.stream(th, as_ptr(value, what), check_context=False), resolve=True
    )  # of any context


def _supported(m, th, c_name: str) -> None:
    graphs(m).check_supported(c_name)


@api("aclmdlRICaptureBegin", cost="capture_call", before=_supported)
def ri_capture_begin(m, th, stream: stream_here, mode: int) -> None:
    """aclmdlRICaptureBegin: tasks issued to ``stream`` from now on are recorded, not run."""
    graphs(m).begin(th, stream, mode)


@api("aclmdlRICaptureGetInfo", cost="capture_call", defaults=(0, 0), before=_supported)
def ri_capture_get_info(m, th, stream: any_stream):
    """aclmdlRICaptureGetInfo: (status, ri, ret); status is ACL_MODEL_RI_CAPTURE_STATUS_*."""
    return graphs(m).info(stream)


@api("aclmdlRICaptureThreadExchangeMode", cost="capture_call", defaults=(None,))
def _exchange_mode(m, th, mode: int):
    return graphs(m).exchange_mode(th, mode)


def ri_capture_thread_exchange_mode(mode):
    """aclmdlRICaptureThreadExchangeMode: (old_mode, ret); sets the calling thread's capture mode."""
    old, ret = _exchange_mode(mode)
    return (mode if ret else old), ret  # a refused call hands the mode back


@api("aclmdlRICaptureEnd", cost="capture_call", defaults=(0,), before=_supported)
def ri_capture_end(m, th, stream: stream_here):
    """aclmdlRICaptureEnd: (ri, ret); the recorded tasks become a model run instance."""
    return graphs(m).end(th, stream).handle


@api("aclmdlRIExecuteAsync", cost="graph_launch", before=_supported)
def ri_execute_async(m, th, ri: model, stream: stream_here) -> None:
    """aclmdlRIExecuteAsync: submit every recorded task onto ``stream`` for one host call."""
    graphs(m).execute_async(th, ri, stream)


@api("aclmdlRIExecute", cost="capture_call")
def ri_execute(m, th, ri: model, timeout: int) -> None:
    """aclmdlRIExecute: the blocking form, documented as unusable with captured instances."""
    graphs(m).execute(th, ri, timeout)


@api("aclmdlRIDestroy", cost="capture_call")
def ri_destroy(m, th, ri: model) -> None:
    """aclmdlRIDestroy: free the instance (107037 while a launch of it is still running)."""
    graphs(m).destroy(th, ri)


@api("aclmdlRIDebugJsonPrint", cost="capture_call")
def ri_debug_json_print(m, th, ri: model, path, flags: int = ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY) -> None:
    """aclmdlRIDebugJsonPrint: write the instance's streams and tasks to ``path`` as JSON."""
    graphs(m).debug_json(ri, path, flags)
