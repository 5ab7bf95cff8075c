"""Device kernels written in Python: ``@sandbox.kernel`` and ``k[block_dim, stream](*args)``.

The body runs once per launch, at the launch's simulated completion time, and does the
arithmetic of all its blocks together with numpy.  Parameters annotated as pointers
(``sandbox.ptr(np.float32)`` or the string ``"float32*"``) arrive as typed numpy views that
start at the pointer and end with its allocation; the others arrive as given.

Timing: a launch of block_dim b takes min(b, cores) AI cores and runs ceil(b / cores)
waves; each block's time is the larger of its share of ``flops`` at one core's rate and
its share of ``bytes`` at one core's share of the device bandwidth.  ``ns`` instead fixes
the time.  Left undeclared, ``bytes`` is the size of everything the pointer views cover.
A fault in the body (an exception, a bad pointer) fails the task with 507015
ACL_ERROR_RT_AICORE_EXCEPTION, reported at the next synchronize, as on real hardware.

For the hazard checks (core/hazards.py) a launch reads and writes every pointer view, unless
the kernel declares ``writes=("out",)`` (and optionally ``reads=...``): then only the named
pointer parameters count as written, the others as read.
"""
from __future__ import annotations

import inspect
import math
import numbers

import numpy as np

from .errors import ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_AICORE_EXCEPTION, fail
from .gate import as_int, call
from .machine import Machine
from .objects import HostThread

MAX_BLOCK_DIM = 65535


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


def _pointer_count(annotation, namespace: dict):
    """The declared element count of a ptr(...) annotation (None if undeclared)."""
    if isinstance(annotation, str):
        try:
            annotation = eval(annotation.strip(), namespace)
        except Exception:
            return None
    return getattr(annotation, "count", None) if isinstance(annotation, Pointer) else None


def _pointer_type(annotation, namespace: dict) -> np.dtype | None:
    """The element type of a pointer parameter, or None for a scalar one.

    Accepts ``ptr(np.float32)``, ``"float32*"``, and both as postponed annotations
    (``from __future__ import annotations`` turns them into source strings).
    """
    if isinstance(annotation, str):
        text = annotation.strip()
        if text[:1] in "'\"" and text[-1:] == text[:1]:
            text = text[1:-1].strip()
        if text.endswith("*"):
            return np.dtype(text[:-1].strip())
        try:
            annotation = eval(text, namespace)  # a postponed ptr(...) annotation
        except Exception:
            return None
    if isinstance(annotation, Pointer):
        return annotation.dtype
    return None


class Kernel:
    def __init__(self, fn, name=None, ns=None, bytes=None, flops=None, reads=None, writes=None):
        self.fn = fn
        self.name = name or fn.__name__
        self.ns, self.bytes, self.flops = ns, bytes, flops
        params = list(inspect.signature(fn).parameters.values())
        self.param_names = [p.name for p in params]
        namespace = {**getattr(fn, "__globals__", {}), "ptr": ptr, "Pointer": Pointer}
        self.pointer_types = [_pointer_type(p.annotation, namespace) for p in params]
        for label, names in (("reads", reads), ("writes", writes)):
            unknown = sorted(set(names or ()) - set(self.param_names))
            if unknown:
                raise TypeError(f"kernel {self.name}: {label} names {unknown}, which are not its parameters")
        self.pointer_counts = [_pointer_count(p.annotation, namespace) for p in params]
        for count in self.pointer_counts:
            if isinstance(count, str) and count not in self.param_names:
                raise TypeError(f"kernel {self.name}: ptr count {count!r} is not one of its parameters")
        self.param_index = {name: i for i, name in enumerate(self.param_names)}
        declared = reads is not None or writes is not None
        self.param_writes = [not declared or p in set(writes or ()) for p in self.param_names]

    def __repr__(self) -> str:
        return f"<kernel {self.name}({', '.join(self.param_names)})>"

    def __getitem__(self, config):
        """``k[block_dim]`` (default stream) or ``k[block_dim, stream]``."""
        if isinstance(config, tuple):
            block_dim, stream = (config + (0,))[:2]
        else:
            block_dim, stream = config, 0
        return Launch(self, block_dim, stream)

    def __call__(self, *args):
        raise TypeError(f"launch a kernel with a configuration: {self.name}[block_dim, stream](...)")

    # -- cost ---------------------------------------------------------------------------------
    def _figure(self, what: str, spec, args) -> float:
        """A declared cost figure, checked: a finite number >= 0 (else ACL_ERROR_INVALID_PARAM)."""
        if spec is None:
            return 0.0
        try:
            value = float(spec(*args) if callable(spec) else spec)
        except Exception as exc:
            fail(ACL_ERROR_INVALID_PARAM, f"kernel {self.name}: its {what} figure could not be computed: "
                 f"{type(exc).__name__}: {exc}")
        if not math.isfinite(value) or value < 0:
            fail(ACL_ERROR_INVALID_PARAM, f"kernel {self.name}: its {what} figure must be a finite number >= 0, "
                 f"got {value}")
        return value

    def duration(self, m: Machine, args, block_dim: int, span_bytes: int):
        p = m.profile
        if self.ns is not None:
            return p.kernel_start_ns + int(self._figure("ns", self.ns, args))     # whatever the cores
        total_bytes = self._figure("bytes", self.bytes, args) if self.bytes is not None else span_bytes
        total_flops = self._figure("flops", self.flops, args)
        core_bandwidth = p.hbm_bandwidth / p.ai_cores

        def timing(cores: int) -> int:
            waves = math.ceil(block_dim / cores)
            per_block = max(total_flops / block_dim / p.core_flops, total_bytes / block_dim / core_bandwidth)
            return p.kernel_start_ns + int(waves * per_block * 1e9)
        return timing


class Launch:
    def __init__(self, kernel: Kernel, block_dim, stream):
        self.kernel, self.block_dim, self.stream = kernel, block_dim, stream

    def __call__(self, *args) -> int:
        k = self.kernel
        return call("aclrtLaunchKernel", lambda m, th: launch(m, th, k, self.block_dim, self.stream, args),
                    cost="kernel_launch", args=("kernel", k.name, "block_dim", self.block_dim))


def launch(m: Machine, th: HostThread, k: Kernel, block_dim, stream_handle, args) -> None:
    block_dim = as_int(block_dim, "block_dim")
    if not 1 <= block_dim <= MAX_BLOCK_DIM:
        fail(ACL_ERROR_INVALID_PARAM, f"block_dim must be 1..{MAX_BLOCK_DIM}, got {block_dim}")
    stream = m.stream(th, 0 if stream_handle is None else as_int(stream_handle, "stream"),
                      api=f"launching {k.name}")
    if len(args) != len(k.param_names):
        fail(ACL_ERROR_INVALID_PARAM,
             f"kernel {k.name} takes {len(k.param_names)} arguments ({', '.join(k.param_names)}), got {len(args)}")
    span = 0
    access = []
    for value, dtype, pname, writes, count in zip(args, k.pointer_types, k.param_names, k.param_writes,
                                                  k.pointer_counts):
        if dtype is not None:
            address = value if type(value) is int else as_int(value, f"pointer argument {pname}")
            buf = m.buffer(address)
            if buf is not None:
                extent = buf.ptr + buf.size - address
                span += extent
                if count is not None:
                    n = args[k.param_index[count]] if isinstance(count, str) else count
                    if (type(n) is int or isinstance(n, numbers.Integral)) and n >= 0:
                        extent = min(extent, int(n) * dtype.itemsize)
                access.append((buf, address - buf.ptr, extent, writes))
        elif type(value) not in (int, float) and not isinstance(value, (numbers.Number, np.generic)):
            fail(ACL_ERROR_INVALID_PARAM,
                 f"argument {pname} of kernel {k.name} must be a scalar (or annotate it as a pointer), "
                 f"got {type(value).__name__}")
    device = stream.device
    duration = k.duration(m, args, block_dim, span)
    m.submit(th, stream, "kernel", k.name, m.devices[device].aicore,
             duration=duration, effect=lambda: run_body(m, k, device, args), block_dim=block_dim,
             access=access)


def run_body(m: Machine, k: Kernel, device: int, args):
    """Execute the kernel body on views of device memory; a fault fails the task."""
    values = []
    for value, dtype, pname in zip(args, k.pointer_types, k.param_names):
        if dtype is None:
            values.append(value)
            continue
        buf = m.buffer(int(value))
        if buf is None or buf.kind != "device" or getattr(buf, "freed", False):
            return ACL_ERROR_RT_AICORE_EXCEPTION, (
                f"kernel {k.name}: pointer argument {pname}={int(value):#x} is not live device memory")
        if buf.device != device:
            return ACL_ERROR_RT_AICORE_EXCEPTION, (
                f"kernel {k.name} on device {device}: argument {pname} points into device {buf.device}'s memory")
        offset = int(value) - buf.ptr
        whole = (buf.size - offset) // dtype.itemsize * dtype.itemsize      # whole elements to the end
        try:
            values.append(buf.dense_view(offset, whole).view(dtype))
        except MemoryError:
            return ACL_ERROR_RT_AICORE_EXCEPTION, (
                f"kernel {k.name}: the host running the sandbox has no room for a {buf.size}-byte view")
    try:
        k.fn(*values)
    except Exception as exc:  # a bug in the learner's kernel body is a device fault, not a crash
        return ACL_ERROR_RT_AICORE_EXCEPTION, f"kernel {k.name} raised {type(exc).__name__}: {exc}"
    return 0


def kernel(fn=None, *, name=None, ns=None, bytes=None, flops=None, reads=None, writes=None):
    """Make a Python function a device kernel (usable with or without arguments)."""
    if fn is None:
        return lambda f: Kernel(f, name, ns, bytes, flops, reads, writes)
    return Kernel(fn, name, ns, bytes, flops, reads, writes)
