"""Device kernels written in Python: ``@sandbox.kernel`` and ``k[block_dim, stream](*args)``.

The body runs once per launch, at the launch's simulated completion time, and does the
arithmetic of all its blocks together with numpy.  Parameters annotated as pointers
(``sandbox.ptr(np.float32)``, the string ``"float32*"``, or Ascend C's ``"GM_ADDR"``, a byte
pointer) arrive as typed numpy views that start at the pointer and end with its allocation; the
others arrive as given.  An unannotated parameter given a live memory address is warned about at
launch (it would arrive as an int and fail later inside numpy), naming the annotation to add;
it is not guessed to be a pointer, since its type and the bytes it touches would be a guess.

Timing: a launch of block_dim b takes min(b, cores) AI cores and runs ceil(b / cores)
waves; each block's time is the larger of its share of ``flops`` at one core's rate and
its share of ``bytes`` at one core's share of the device bandwidth.  ``ns`` instead fixes
the time.  Left undeclared, ``bytes`` is the size of everything the pointer views cover.
A fault in the body (an exception, a bad pointer) fails the task with 507015
ACL_ERROR_RT_AICORE_EXCEPTION, reported at the next synchronize, as on real hardware.
If the host memory budget cannot hold the pointer arguments' bytes, the task fails with
207001 ACL_ERROR_RT_MEMORY_ALLOCATION instead (core/allocator.py).

Checked figures and configurations: ``ns``, ``bytes`` and ``flops`` are numbers >= 0 (not
bools, not strings) or functions of the launch arguments returning one; a figure that is not
(a constant or a computed one alike) fails the launch with 100000 ACL_ERROR_INVALID_PARAM, so
a program sees the code as for any other bad argument.  A launch whose time would exceed
``MAX_KERNEL_NS`` fails the same way (see its comment).  ``k[block_dim]`` and ``k[block_dim, stream]`` are the only
launch forms; any other configuration fails the launch with 100000.  A block_dim of 0 or above
65535 fails with the runtime's 107000 ACL_ERROR_RT_PARAM_INVALID: the acl layer passes it on
unchecked and the runtime refuses it (hicann/runtime src/runtime/api/impl/api_error.cc,
ApiErrorDecorator::KernelLaunch, the route of ``<<<>>>``: "coreDim is defined uint16_t by sqe").

For the hazard checks (core/hazards.py) a launch reads and writes every pointer view, unless
the kernel declares ``writes=("out",)`` (and optionally ``reads=...``): then only the named
pointer parameters count as written, the others as read.
"""
from __future__ import annotations

import inspect
import math
import numbers
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from ..errors import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_AICORE_EXCEPTION, ACL_ERROR_RT_PARAM_INVALID, AclError,
                     describe, fail)
from .. import hazards, learner_code
from ..native import mypyc_attr
from . import device_resources, overflow
from ..gate import as_int, call
from ..allocator import check_dense
from ..tasks import Task

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import HostThread

MAX_BLOCK_DIM = 65535
# The longest a single kernel launch may take: one hour of virtual time.  Real kernels take
# microseconds to seconds; a launch declared to take an hour or more is a slip in the figures
# (ns for us, the flops of a whole training run, 1e300 typed for a big number).  Left
# unbounded, such a launch pushes the virtual clock to integers with hundreds of digits, which
# every later duration, event time and timeline axis then carries (floats overflow, Chrome
# trace microseconds lose all precision).  An hour is far above anything a teaching program
# needs and still an ordinary int, so the bound refuses only mistakes.
MAX_KERNEL_NS = 3600 * 10 ** 9


@mypyc_attr(native_class=False)   # (core/native.py)
class Pointer:
    """Annotation for a kernel parameter that is a device pointer to ``dtype`` elements.

    ``count`` (an int, or the name of the scalar parameter holding it) says how many elements
    a launch touches from the pointer on; the hazard checks then look at those bytes only
    instead of the whole view.
    """

    def __init__(self, dtype, count=None):
        self.dtype = np.dtype(dtype)
        self.count = count

    def __repr__(self) -> str:
        return f"ptr({self.dtype.name})"


def ptr(dtype, count=None) -> Pointer:
    return Pointer(dtype, count)


def _pointer(annotation, namespace: dict) -> Pointer | None:
    """The pointer a parameter's annotation declares (its dtype and count), or None for a scalar one.

    Accepts ``ptr(np.float32)``, ``"float32*"``, and both as postponed annotations
    (``from __future__ import annotations`` turns them into source strings).
    """
    if isinstance(annotation, str):
        text = annotation.strip()
        if text[:1] in "'\"" and text[-1:] == text[:1]:
            text = text[1:-1].strip()
        if text.endswith("*") or text == "GM_ADDR":             # Ascend C's GM_ADDR: __gm__ uint8_t*
            return Pointer(text[:-1].strip() if text.endswith("*") else np.uint8)
        try:
            annotation = eval(text, namespace)  # a postponed ptr(...) annotation
        except Exception:
            return None
    return annotation if isinstance(annotation, Pointer) else None


@mypyc_attr(serializable=True)    # (core/native.py: native, and it pickles)
class Kernel:
    def __init__(self, fn, name=None, ns=None, bytes=None, flops=None, reads=None, writes=None):
        self.fn = fn
        self.name = name or fn.__name__
        self.launching = f"launching {self.name}"                  # what a refused launch's message calls it
        self.ns, self.bytes, self.flops = ns, bytes, flops        # checked at each launch (_figure)
        params = list(inspect.signature(fn).parameters.values())
        self.param_names = [p.name for p in params]
        namespace = {**getattr(fn, "__globals__", {}), "ptr": ptr, "Pointer": Pointer}
        pointers = [_pointer(p.annotation, namespace) for p in params]
        self.pointer_types = [p.dtype if p else None for p in pointers]
        for label, names in (("reads", reads), ("writes", writes)):
            unknown = sorted(set(names or ()) - set(self.param_names))
            if unknown:
                raise TypeError(f"kernel {self.name}: {label} names {unknown}, which are not its parameters")
        self.pointer_counts = [p.count if p else None for p in pointers]
        for count in self.pointer_counts:
            if isinstance(count, str) and count not in self.param_names:
                raise TypeError(f"kernel {self.name}: ptr count {count!r} is not one of its parameters")
        self.param_index = {name: i for i, name in enumerate(self.param_names)}
        declared = reads is not None or writes is not None
        self.param_writes = [not declared or p in set(writes or ()) for p in self.param_names]
        # each pointer parameter as (index, dtype, name): what a body's views are made from (run_body)
        self.pointers = [(i, dtype, name) for i, (dtype, name) in enumerate(zip(self.pointer_types, self.param_names))
                         if dtype is not None]

    def __repr__(self) -> str:
        return f"<kernel {self.name}({', '.join(self.param_names)})>"

    def __getitem__(self, config):
        """``k[block_dim]`` (default stream) or ``k[block_dim, stream]``; another form (``k[()]``,
        ``k[1, s, 5]``) gives a launch that fails with ACL_ERROR_INVALID_PARAM."""
        if not isinstance(config, tuple):
            return Launch(self, config, 0)
        if len(config) == 2:
            return Launch(self, config[0], config[1])
        if len(config) == 1:
            return Launch(self, config[0], 0)
        shown = ", ".join(describe(c) for c in config) if config else "()"
        return Launch(self, None, 0, error=f"kernel {self.name}: a launch is {self.name}[block_dim] or "
                                           f"{self.name}[block_dim, stream], got {self.name}[{shown}]")

    def __call__(self, *args):
        raise TypeError(f"launch a kernel with a configuration: {self.name}[block_dim, stream](...)")

    # -- cost ---------------------------------------------------------------------------------
    def _figure(self, what: str, spec, args) -> float:
        """A declared cost figure, checked: a finite number >= 0 (else ACL_ERROR_INVALID_PARAM)."""
        if spec is None:
            return 0.0
        if (type(spec) is int and 0 <= spec < 1 << 63) or (type(spec) is float and 0 <= spec < math.inf):
            return float(spec)                # a plain figure (most kernels): nothing to compute or check
        try:
            raw = spec(*args) if callable(spec) else spec
        except Exception as exc:
            fail(ACL_ERROR_INVALID_PARAM, f"kernel {self.name}: its {what} figure could not be computed: "
                 f"{type(exc).__name__}: {exc}")
        if isinstance(raw, bool) or not isinstance(raw, numbers.Real):
            fail(ACL_ERROR_INVALID_PARAM, f"kernel {self.name}: its {what} figure must be a number, "
                 f"got {describe(raw)}")
        try:
            value = float(raw)
        except (OverflowError, ValueError, TypeError):
            value = math.inf
        if not math.isfinite(value) or value < 0:
            fail(ACL_ERROR_INVALID_PARAM, f"kernel {self.name}: its {what} figure must be a finite number >= 0, "
                 f"got {describe(raw)}")
        return value

    def _too_long(self, ns: float) -> None:
        if not ns <= MAX_KERNEL_NS:
            fail(ACL_ERROR_INVALID_PARAM,
                 f"kernel {self.name}: this launch would take {ns:.3g} ns, more than the {MAX_KERNEL_NS} ns (one "
                 "hour of virtual time) a launch may take; check its ns/bytes/flops figures")

    def duration(self, m: Machine, args, block_dim: int, span_bytes: int):
        p = m.profile
        if type(self.ns) is int and 0 <= self.ns <= MAX_KERNEL_NS:
            return p.kernel_start_ns + self.ns     # a plain figure (most kernels): what _figure and _too_long give it
        if self.ns is not None:
            ns = self._figure("ns", self.ns, args)
            self._too_long(ns)
            return p.kernel_start_ns + int(ns)     # whatever the cores
        total_bytes = self._figure("bytes", self.bytes, args) if self.bytes is not None else span_bytes
        total_flops = self._figure("flops", self.flops, args)
        core_bandwidth = p.hbm_bandwidth / p.ai_cores
        per_block = max(total_flops / block_dim / p.core_flops, total_bytes / block_dim / core_bandwidth)
        self._too_long(math.ceil(block_dim / max(1, min(block_dim, p.ai_cores))) * per_block * 1e9)
        return partial(_timing, p.kernel_start_ns, block_dim, per_block)


def _timing(start_ns: int, block_dim: int, per_block: float, cores: int) -> int:
    """A kernel's duration on the ``cores`` it got: its blocks run in waves (Kernel.duration's figure)."""
    t = math.ceil(block_dim / cores) * per_block * 1e9
    return start_ns + (int(t) if t < MAX_KERNEL_NS else MAX_KERNEL_NS)


class Launch:
    def __init__(self, kernel: Kernel, block_dim, stream, error: str = ""):
        self.kernel, self.block_dim, self.stream = kernel, block_dim, stream
        self.error = error            # a configuration that is no launch form: the launch fails with it

    def __call__(self, *args) -> int:
        k = self.kernel
        if self.error:
            return call("aclrtLaunchKernel", lambda m, th: fail(ACL_ERROR_INVALID_PARAM, self.error),
                        cost="kernel_launch", args=("kernel", k.name))
        return call("aclrtLaunchKernel", launch, (k, self.block_dim, self.stream, args),
                    cost="kernel_launch", args=("kernel", k.name, "block_dim", self.block_dim))


def launch(m: Machine, th: HostThread, k: Kernel, block_dim, stream_handle, args) -> None:
    if type(block_dim) is not int:
        block_dim = as_int(block_dim, "block_dim")
    if not 1 <= block_dim <= MAX_BLOCK_DIM:         # the runtime's check, not the acl layer's: 107000
        fail(ACL_ERROR_RT_PARAM_INVALID, f"block_dim must be 1..{MAX_BLOCK_DIM} (the task's core count is a "
             f"uint16), got {block_dim}")
    if type(stream_handle) is not int:
        stream_handle = 0 if stream_handle is None else as_int(stream_handle, "stream")
    stream = m.stream(th, stream_handle, api=k.launching)
    if len(args) != len(k.param_names):
        fail(ACL_ERROR_INVALID_PARAM,
             f"kernel {k.name} takes {len(k.param_names)} arguments ({', '.join(k.param_names)}), got {len(args)}")
    span = 0
    access = []
    resolved = []              # each pointer's buffer, found now: the address may name another later
    for value, dtype, pname, writes, count in zip(args, k.pointer_types, k.param_names, k.param_writes,
                                                  k.pointer_counts):
        if dtype is not None:
            address = value if type(value) is int else as_int(value, f"pointer argument {pname}")
            buf = m.buffer(address)
            resolved.append(buf)
            if buf is not None:
                extent = buf.ptr + buf.size - address
                span += extent
                if count is not None:
                    n = args[k.param_index[count]] if isinstance(count, str) else count
                    if (type(n) is int or isinstance(n, numbers.Integral)) and n >= 0:  # type: ignore[operator]  # an Integral compares with ints
                        extent = min(extent, int(n) * dtype.itemsize)
                access.append((buf, address - buf.ptr, extent, writes))
        elif type(value) is int and value > 0xFFFFFFFF and m.buffer(value) is not None:
            hazards.emit(f"kernel {k.name}: argument {pname} is a live memory address {value:#x} but the parameter has "
                         f'no pointer annotation, so the body gets a plain int; write {pname}: "GM_ADDR" (bytes) or '
                         f'{pname}: "float32*" (a typed view)', UserWarning)
        elif type(value) not in (int, float) and not isinstance(value, (numbers.Number, np.generic)):
            fail(ACL_ERROR_INVALID_PARAM,
                 f"argument {pname} of kernel {k.name} must be a scalar (or annotate it as a pointer), "
                 f"got {type(value).__name__}")
    device = stream.device
    duration = k.duration(m, args, block_dim, span)
    watch = overflow.watch(m, stream, k)           # saturation mode or the overflow switch (core/features/overflow.py)
    m.submit(th, stream, Task.new("kernel", k.name, m.devices[device].aicore, duration=duration,
                                  effect=partial(run_body, m, k, device, args, resolved, watch), block_dim=block_dim,
                                  access=access, core_limit=device_resources.core_limit(m, th, device)))


_BYTES = np.dtype(np.uint8)


def run_body(m: Machine, k: Kernel, device: int, args, resolved=None, watch=None):
    """Execute the kernel body on views of device memory; a fault fails the task, and so does
    a host memory budget that cannot hold the arguments' bytes (207001, before any view).

    ``resolved`` holds the buffers the pointers named at launch: a stream-ordered pool may
    hand the same address to a new block before this kernel runs, and the kernel works on
    the block it was launched on, as on hardware."""
    pointers = resolved if resolved is not None else [m.buffer(int(args[i])) for i, _, _ in k.pointers]
    for (i, _, pname), buf in zip(k.pointers, pointers):
        if buf is None or buf.kind != "device" or getattr(buf, "freed", False):
            return ACL_ERROR_RT_AICORE_EXCEPTION, (
                f"kernel {k.name}: pointer argument {pname}={int(args[i]):#x} is not live device memory")
        if buf.device != device:
            return ACL_ERROR_RT_AICORE_EXCEPTION, (
                f"kernel {k.name} on device {device}: argument {pname} points into device {buf.device}'s memory")
    try:
        check_dense(pointers)
    except AclError as exc:
        return exc.code, f"kernel {k.name}: {exc.message}"
    values = list(args)        # scalars as they are; each pointer becomes a view of its buffer
    for (i, dtype, pname), buf in zip(k.pointers, pointers):
        offset = int(args[i]) - buf.ptr
        whole = (buf.size - offset) // dtype.itemsize * dtype.itemsize      # whole elements to the end
        storage = buf._storage
        if storage is not None:            # dense already (Buffer.dense_view's first case, inline)
            view = storage[offset:offset + whole]
        else:
            try:
                view = buf.dense_view(offset, whole)
            except AclError as exc:        # the host itself had no room (MemoryError), under the budget
                return exc.code, f"kernel {k.name}: argument {pname}: {exc.message}"
        values[i] = view if dtype is _BYTES else view.view(dtype)     # (storage is uint8 already)
    error = (watch or learner_code.run)(m, "kernel", 0, k.fn, *values)   # a bug in the body: a device fault, not a crash
    if error:
        return ACL_ERROR_RT_AICORE_EXCEPTION, f"kernel {k.name} raised {error}"
    return 0


def kernel(fn=None, *, name=None, ns=None, bytes=None, flops=None, reads=None, writes=None):
    """Make a Python function a device kernel (usable with or without arguments)."""
    if fn is None:
        return lambda f: Kernel(f, name, ns, bytes, flops, reads, writes)
    return Kernel(fn, name, ns, bytes, flops, reads, writes)
