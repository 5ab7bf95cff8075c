"""``acl.util``: moving between numpy/bytes and the int pointers the runtime calls take.

``numpy_to_ptr`` hands out a pageable-host address for an array's bytes (copies from it
are pageable copies); ``ptr_to_numpy`` and ``ptr_to_bytes`` read host memory (pinned or
pageable).  Device memory cannot be read from the host: copy it back first.

A caller's mistake fails like a runtime call (``gate.refuse``): the thread's last error and
recent-error message ("acl.util.ptr_to_numpy failed: ..."), an ErrorRaised record, the
exception under ``sandbox.raise_on_error``; the helper returns its pyACL failure value.
Each helper is declared once (``_declare.helper``), as the runtime calls are.
"""

from __future__ import annotations

import ctypes
import math
from typing import TYPE_CHECKING

import numpy as np

from ..core import hazards
from ..core.errors import ACL_ERROR_INVALID_PARAM, describe, fail
from ..core.gate import as_int, as_size
from ._declare import Kind, helper, size

_TYPENUMS: dict[int, np.dtype] = {
    np.dtype(t).num: np.dtype(t)
    for t in (
        np.bool_,
        np.int8,
        np.uint8,
        np.int16,
        np.uint16,
        np.int32,
        np.uint32,
        np.int64,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    )
}


def _host_span(m, ptr: int, nbytes: int, what: str):
    buf = m.buffer(ptr)
    if buf is None:
        fail(ACL_ERROR_INVALID_PARAM, f"{what}: {ptr:#x} is not inside any host buffer")
    if buf.kind == "device":
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"{what}: {ptr:#x} is device memory (device {buf.device}); the host cannot read it directly, "
            "copy it to host memory with aclrtMemcpy first",
        )
    offset = ptr - buf.ptr
    if offset + nbytes > buf.size:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"{what}: {nbytes} bytes at {ptr:#x} run past the end of the {buf.size}-byte buffer at {buf.ptr:#x}",
        )
    return buf, offset


@helper("acl.util.numpy_to_ptr", defaults=(0,))
def numpy_to_ptr(m, th, array) -> int:
    """The address of a (C-contiguous) numpy array's data, as pageable host memory."""
    if not isinstance(array, np.ndarray):
        fail(ACL_ERROR_INVALID_PARAM, f"numpy_to_ptr expects a numpy array, got {describe(array)}")
    if array.dtype.hasobject:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"numpy_to_ptr needs an array of numbers: its dtype {array.dtype} holds "
            "Python objects, whose bytes are references, not data a device could use",
        )
    if not array.flags.c_contiguous:
        fail(ACL_ERROR_INVALID_PARAM, "numpy_to_ptr needs a C-contiguous array (use np.ascontiguousarray)")
    return m.host.register_array(array)


@helper("acl.util.numpy_contiguous_to_ptr", defaults=((0, None),))
def _contiguous(m, th, array):
    contiguous = np.ascontiguousarray(array)
    return numpy_to_ptr(contiguous), contiguous


def numpy_contiguous_to_ptr(array) -> tuple:
    """``(ptr, contiguous)``: the address of a C-contiguous copy of ``array`` (the array itself when
    it already is one), and that array, which the caller keeps alive while the address is used
    (python/pyACL/util/numpy_convert.cpp)."""
    if not isinstance(array, np.ndarray):
        raise ValueError(f"acl.util.numpy_contiguous_to_ptr needs a numpy array, got {describe(array)}")
    return _contiguous(array)


def _bytes_buffer(data: bytes) -> np.ndarray:
    """A writable uint8 view of a bytes object's own buffer, as the binding hands out with
    PyBytes_AsString: a copy into the address writes into the bytes object.  The empty and the
    one-byte bytes objects are interpreter-wide singletons: they stay read-only here."""
    if len(data) <= 1:
        return np.frombuffer(data, dtype=np.uint8)
    address = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0
    view = (ctypes.c_ubyte * len(data)).from_address(address)
    view._owner = data  # type: ignore[attr-defined]  # keeps the bytes object alive with the view
    return np.frombuffer(view, dtype=np.uint8)  # type: ignore[call-overload]  # a ctypes array is a buffer


@helper("acl.util.bytes_to_ptr", defaults=(0,))
def _bytes_to_ptr(m, th, data) -> int:
    return m.host.register_array(_bytes_buffer(data))


def bytes_to_ptr(data) -> int:
    """The address of a bytes object's own buffer, no copy (python/pyACL/util/bytes_convert.cpp):
    copies from it read the bytes, and a copy into it writes into the bytes object, as on a
    board.  Only bytes: a bytearray, memoryview or array raises ValueError, as the binding does."""
    if not isinstance(data, bytes):
        raise ValueError(f"acl.util.bytes_to_ptr needs a bytes object, got {describe(data)}")
    return _bytes_to_ptr(data)


def _dtype(dtype, what: str) -> np.dtype:
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
        if int(dtype) not in _TYPENUMS:
            fail(ACL_ERROR_INVALID_PARAM, f"unknown numpy type number {dtype}")
        return _TYPENUMS[int(dtype)]
    try:
        dt = np.dtype(dtype)
    except (TypeError, ValueError):
        fail(ACL_ERROR_INVALID_PARAM, f"{describe(dtype)} is not a numpy dtype")
    if dt.itemsize == 0 or dt.hasobject:
        fail(ACL_ERROR_INVALID_PARAM, f"{describe(dtype)} is not a dtype of fixed-size numbers")
    return dt


def _dims(shape, what: str) -> tuple:
    if isinstance(shape, (int, np.integer)):
        dims = (shape,)
    elif isinstance(shape, (tuple, list)):
        dims = tuple(shape)
    else:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be an int or a tuple of ints, got {type(shape).__name__}")
    return tuple(as_size(d, what) for d in dims)


if TYPE_CHECKING:  # to a type checker, a kind is the type the body gets
    dtype = np.dtype
    dims = tuple
else:
    dtype = Kind(_dtype)  # a numpy dtype, or its type number
    dims = Kind(_dims)  # an int or a sequence of sizes


@helper("acl.util.ptr_to_numpy", convert=("dtype", "shape", "ptr"))
def ptr_to_numpy(m, th, ptr: int, shape: dims, dtype: dtype):
    """A numpy view of host memory at ``ptr`` (a view: it sees later writes)."""
    count = math.prod(shape)
    buf, offset = _host_span(m, ptr, count * dtype.itemsize, "ptr_to_numpy")
    try:  # numpy's own shape rules (how many dimensions, sizes within intp), before any work
        empty = np.empty(0, dtype).reshape(shape if count == 0 else (0,) * len(shape))
    except (ValueError, TypeError) as exc:
        fail(ACL_ERROR_INVALID_PARAM, f"ptr_to_numpy: numpy cannot make an array of shape {shape}: {exc}")
    hazards.host_access(m, th, buf, offset, count * dtype.itemsize, False, "acl.util.ptr_to_numpy")
    if count == 0:
        return empty  # no elements: nothing of the buffer needs host memory
    return buf.dense_view(offset, count * dtype.itemsize).view(dtype).reshape(shape)


@helper("acl.util.ptr_to_bytes", defaults=(b"",), convert=("size", "ptr"))
def ptr_to_bytes(m, th, ptr: int, size: size) -> bytes:
    """A copy of ``size`` bytes of host memory at ``ptr``."""
    buf, offset = _host_span(m, ptr, size, "ptr_to_bytes")
    hazards.host_access(m, th, buf, offset, size, False, "acl.util.ptr_to_bytes")
    out = np.empty(size, dtype=np.uint8)
    buf.read_into(offset, out)
    return out.tobytes()


# -- threads for callbacks (pyACL acl.util.start_thread / stop_thread) ----------------------------------
@helper("acl.util.start_thread", defaults=(0,), code=True)
def start_thread(m, th, func, args_list):
    """(thread_id, ret): start ``func(args_list)`` on a new host thread that takes part in the sandbox.

    The id is the thread's ``threading.Thread.ident``, so it can be given to
    acl.rt.subscribe_report.  As in the binding (python/pyACL/util/thread.cpp), the thread calls
    ``func(args_list)``, or ``func()`` when args_list is None, and an exception it raises comes back
    from stop_thread as a RuntimeError.  Python threads cannot be cancelled: stop_thread waits for
    the function to return, so let it end (e.g. a flag checked between process_report calls).
    """
    import threading

    if not callable(func):
        fail(ACL_ERROR_INVALID_PARAM, f"start_thread: func must be callable, got {type(func).__name__}")
    raised: list[BaseException] = []

    def body():
        try:
            func() if args_list is None else func(args_list)
        except Exception as exc:  # noqa: BLE001 - handed to stop_thread, as the binding does
            raised.append(exc)

    thread = threading.Thread(target=body, name=f"acl thread ({getattr(func, '__name__', 'func')})")
    thread._sandbox_raised = raised  # type: ignore[attr-defined]
    thread._sandbox_takes_part = True  # type: ignore[attr-defined]  # the sandbox's mark on a Python thread
    thread.start()
    started = m.util_threads
    if started is None:
        started = m.util_threads = {}
    started[thread.ident] = thread
    return thread.ident, 0


@helper("acl.util.stop_thread", defaults=(), code=True)
def _started_thread(m, th, thread_id):
    ident = thread_id if type(thread_id) is int else as_int(thread_id, "stop_thread: thread_id")
    thread = (m.util_threads or {}).pop(ident, None)
    if thread is None:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"stop_thread: {describe(thread_id)} is not a thread started by acl.util.start_thread",
        )
    return thread


def stop_thread(thread_id) -> int:
    """Wait for a thread from start_thread to finish (its function must return); 0 or 100000, or
    the RuntimeError of an exception the thread's function raised."""
    thread = _started_thread(thread_id)
    if type(thread) is int:
        return thread  # the error code
    thread.join()  # outside the machine lock: the thread may still make calls
    raised = thread._sandbox_raised
    if raised:
        raise RuntimeError("; ".join(f"exception={type(exc).__name__},msg={exc}" for exc in raised))
    return 0
