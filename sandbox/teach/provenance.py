"""Who wrote which bytes: the evidence a grader needs that an answer came from the device.

A value can be right for the wrong reason: computed with numpy on the host beside a token
kernel, or copied to the device and straight back.  During a graded run the machine tells
a ``Recorder`` about every task it submits (with the bytes the task touches) and every task
that finishes; the recorder keeps, for each buffer, which kind of work last wrote each byte
range, and for every device-to-host copy that landed, the bytes it brought and where they
came from.  Effects happen at completion time, so this is exactly what the host could see.

Origins, from weakest to strongest: bytes the host put there (``HOST``), bytes a memset
wrote (``MEMSET``), bytes a kernel computed (``KERNEL``).  Copies carry the origin of their
source along (a device-to-device copy of a kernel's output is still a kernel's output).

Beside the origin, each byte range has its ``Flow``: the data flow that made it, followed from
the grader's own inputs.  A host-to-device copy's bytes are the grader's input ``a`` when they
equal a stretch of the grader's private copy of ``a`` (whatever buffer they were staged in), else
host data; a kernel's output flows from everything it read, and names the kernel by its code
(``code_key``: the notebook's ``add`` and a learner's kernel called ``add`` with another body
differ); copies carry flows along.  A judge asks which kernels computed an answer and from which
inputs (``Flow.sources``): a sum computed on the host and uploaded as ``a`` reaches the answer
as host data, not as the grader's ``a``.
"""

from __future__ import annotations

import dis
import functools
import types
from dataclasses import dataclass

import numpy as np

from sandbox.core.allocator import DeviceAllocation

UNWRITTEN, HOST, MEMSET, KERNEL = 0, 1, 2, 3
ORIGIN_WORDS = {
    UNWRITTEN: "no copy from the device wrote them",
    HOST: "they came from the host, not from a kernel",
    MEMSET: "a memset wrote them, not a kernel",
    KERNEL: "a kernel computed them",
}


# Instructions the same source compiles to differently (a notebook's kernel compiled by IPython, the
# same lines imported from a module): a method call may load the method or the attribute.
_NO_MEANING = frozenset({"PRECALL", "PUSH_NULL", "NOP", "RESUME", "CACHE", "EXTENDED_ARG"})
_SAME_AS = {"LOAD_METHOD": "LOAD_ATTR", "CALL_METHOD": "CALL"}


def code_key(fn) -> tuple | None:
    """What makes two kernel bodies the same function: the instructions they run, with the
    constants and global names they use (not their names, local names, docstring, file or lines)."""
    code = getattr(fn, "__code__", None)

    def key(c: types.CodeType) -> tuple:
        steps = []
        for ins in dis.get_instructions(c):
            if ins.opname in _NO_MEANING:
                continue
            value: object
            if ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs:
                value = None  # (offsets move with the instructions left out)
            elif ins.opcode in dis.hasconst:
                value = key(ins.argval) if isinstance(ins.argval, types.CodeType) else repr(ins.argval)
            elif ins.opcode in dis.haslocal or ins.opcode in dis.hasfree:
                value = ins.arg
            else:
                value = ins.argval
            steps.append((_SAME_AS.get(ins.opname, ins.opname), value))
        return tuple(steps), c.co_argcount

    return key(code) if isinstance(code, types.CodeType) else None


COMPUTES = ("kernel", "model")  # tasks that compute their outputs from what they read (a model like a kernel)


def kernel_key(kernel) -> tuple:
    """What makes a kernel the notebook's: its body's code, its declared costs (the functions' code, or
    the figures) and the kinds and writes of its parameters -- not its name.  A model (a stand-in,
    sandbox/models) is known the same way: a zoo model by its zoo name and description, another by
    its function's code, its cost and its description."""

    def figure(value):
        return code_key(value) if callable(value) else value

    if hasattr(kernel, "described_inputs"):  # a model
        described = (tuple(kernel.inputs), tuple(kernel.outputs), kernel.dynamic_batch, kernel.dynamic_hw)
        if kernel.zoo:
            return ("zoo", kernel.zoo, described)
        return ("model", code_key(kernel.fn), figure(kernel.ns), described)
    return (
        code_key(kernel.fn),
        tuple(figure(v) for v in (kernel.ns, kernel.bytes, kernel.flops)),
        tuple(str(t) for t in kernel.pointer_types),
        tuple(kernel.param_writes),
    )


def kernel_of(task):
    """The Kernel a launch task runs, or the model an execution runs: the one its effect holds, as a
    partial's argument (core/features/kernels.py) or in its closure (models.py)."""
    from sandbox.core.features.kernels import Kernel
    from sandbox.core.features.models import Loaded

    effect = task.effect
    if isinstance(effect, functools.partial):
        held = effect.args
    else:
        held = tuple(cell.cell_contents for cell in getattr(effect, "__closure__", None) or ())
    for value in held:
        if isinstance(value, Kernel):
            return value
        if isinstance(value, Loaded):
            return value.model
    return None


@dataclass(frozen=True)
class Flow:
    """The data flow that made a byte range: ``kind`` "input" (the grader's input ``name``),
    "host" (other host bytes), "memset", "kernel" (the kernel ``name``),
    "other" (another task: a reduce, random numbers ...) or "unwritten".  ``sources`` are the
    leaves it comes from ("input a", "host", "memset", "other", "unwritten"), ``kernels`` the
    (name, code) of every kernel on the way."""

    kind: str
    name: str = ""
    sources: frozenset = frozenset()
    kernels: frozenset = frozenset()

    @staticmethod
    def leaf(kind: str, name: str = "") -> "Flow":
        return Flow(kind, name, frozenset({f"input {name}" if kind == "input" else kind}))


UNWRITTEN_FLOW = Flow.leaf("unwritten")


class Origins:
    """Byte ranges of one buffer and the origin of each: sorted, disjoint [start, end, origin]."""

    __slots__ = ("pieces",)

    def __init__(self):
        self.pieces: list[list[int]] = []

    def get(self, lo: int, hi: int, gap=UNWRITTEN) -> list[tuple[int, int, int]]:
        """(start, end, origin) covering [lo, hi) in order; gaps come back as ``gap``."""
        out, at = [], lo
        for s, e, o in self.pieces:
            if e <= lo or s >= hi:
                continue
            if s > at:
                out.append((at, s, gap))
            out.append((max(s, lo), min(e, hi), o))
            at = min(e, hi)
        if at < hi:
            out.append((at, hi, gap))
        return out

    def set(self, lo: int, hi: int, origin: Writer | int) -> None:
        kept: list[list] = []
        for s, e, o in self.pieces:
            if e <= lo or s >= hi:
                kept.append([s, e, o])
                continue
            if s < lo:
                kept.append([s, lo, o])
            if e > hi:
                kept.append([hi, e, o])
        kept.append([lo, hi, origin])
        kept.sort()
        self.pieces = kept


def origins_of(table: dict, buf) -> Origins:
    """``buf``'s Origins in ``table`` (id(buffer) -> (buffer, Origins)), made on first use; the
    entry keeps the buffer alive, so its id is never another buffer's."""
    entry = table.get(id(buf))
    if entry is None or entry[0] is not buf:
        entry = table[id(buf)] = (buf, Origins())
    return entry[1]


@dataclass(eq=False)
class Writer:
    """The task that last wrote a byte range: its kind, and for a copy the buffer it read
    (the source byte of destination offset ``x`` is ``x + delta``)."""

    kind: str
    task: int
    source: object = None
    delta: int = 0
    t: int = 0

    @property
    def source_device(self):
        return self.source.device if isinstance(self.source, DeviceAllocation) else None


class Writes:
    """Every finished task's writes, byte range by byte range (a later write wins): where a
    copy's bytes came from, for graders that follow data between devices."""

    def __init__(self, sim):
        self.sim = sim
        self.buffers: dict[int, tuple] = {}  # id(buffer) -> (buffer, Origins of Writers)

    def _of(self, buf) -> Origins:
        return origins_of(self.buffers, buf)

    def record(self, task, access) -> None:
        reads = [a for a in access if not a[3]]
        source = reads[0] if task.kind == "memcpy" and len(reads) == 1 else None
        for buf, off, n, writes in access:
            if not writes or n <= 0:
                continue
            if source is not None:
                writer = Writer(task.kind, task.id, source[0], source[1] - off, self.sim.now)
            else:
                writer = Writer(task.kind, task.id, None, 0, self.sim.now)
            self._of(buf).set(off, off + n, writer)

    def pieces(self, buf, offset: int, nbytes: int) -> list:
        """(start, end, Writer or 0 for never written) covering the range, in order."""
        return self._of(buf).get(offset, offset + nbytes)


@dataclass
class Landing:
    """One device-to-host copy that completed: where, what it brought, and its origins."""

    address: int
    data: bytes
    origins: list  # (start, end, origin), offsets relative to ``address``
    task: int
    t: int
    flows: tuple = ()  # (start, end, Flow), offsets relative to ``address``
    buffer: object = None  # the host buffer it landed in


class Recorder:
    """Told of every submitted and finished task on a graded machine, through the machine's
    ``submitted`` and ``task_finished`` hooks (core/hooks.py)."""

    @classmethod
    def attach(cls, m) -> "Recorder":
        """A recorder of machine ``m``'s tasks from now on."""
        recorder = cls(m.sim)
        m.hooks.add("submitted", recorder.task_submitted)
        m.hooks.add("task_finished", recorder.finished)
        return recorder

    def __init__(self, sim):
        self.sim = sim
        self.inputs: dict[str, bytes] = {}  # the grader's private inputs, by name (set before the run)
        self.flows: dict[int, tuple] = {}  # id(buffer) -> (buffer, Origins of Flows)
        self.pending: dict[int, tuple] = {}  # task id -> access tuples
        self.clocks: dict[int, tuple] = {}  # task id -> (stream handle, happens-before clock at submit)
        self.kernels: dict[int, tuple] = {}  # kernel task id -> (name, kernel_key; None: not found)
        self.origins: dict[int, tuple] = {}  # id(buffer) -> (buffer, Origins): the buffer kept alive
        self.landings: list[Landing] = []
        self.kernel_writes = 0  # bytes kernels wrote, in all
        self.writes = Writes(sim)  # ... and which task wrote them, from where

    def _of(self, buf) -> Origins:
        return origins_of(self.origins, buf)

    def task_submitted(self, th, stream, task) -> None:
        self.clocks[task.id] = (stream.handle, dict(task.vc or ()))  # what is ordered before it (hazards.py)
        if task.access:
            self.pending[task.id] = tuple(task.access)
        if task.kind in COMPUTES:  # (now: its effect, which names the kernel, is dropped once it ran)
            kernel = kernel_of(task)
            self.kernels[task.id] = (task.name, kernel_key(kernel) if kernel is not None else None)

    def flow_pieces(self, buf, offset: int, nbytes: int) -> list:
        return origins_of(self.flows, buf).get(offset, offset + nbytes, UNWRITTEN_FLOW)

    def _host_bytes(self, data: bytes) -> list[tuple[int, int, Flow]]:
        """Bytes a copy took from host memory, in pieces: a whole input of the grader's inside them
        (inputs staged side by side in one buffer), a stretch of one (a chunk), or other host data."""
        whole = []
        for name, value in self.inputs.items():
            at = data.find(value) if value else -1
            while at >= 0:
                whole.append((at, at + len(value), name))
                at = data.find(value, at + len(value))
        pieces, at = [], 0
        for s, e, name in sorted(whole):
            if s < at:
                continue  # (overlaps one taken already)
            if s > at:
                pieces.append((at, s, self._stretch(data[at:s])))
            pieces.append((s, e, Flow.leaf("input", name)))
            at = e
        if at < len(data) or not pieces:
            pieces.append((at, len(data), self._stretch(data[at:])))
        return pieces

    def _stretch(self, data: bytes) -> Flow:
        for name, value in self.inputs.items():
            if data and value.find(data) >= 0:
                return Flow.leaf("input", name)
        return Flow.leaf("host")

    def _follow(self, task, access) -> list[tuple]:
        """(buffer, offset, pieces of Flows) each write of the finished ``task`` leaves."""
        writes = [a for a in access if a[3] and a[2] > 0]
        reads = [a for a in access if not a[3]]
        if task.kind == "memcpy" and len(reads) == 1 and len(writes) == 1:
            (src, soff, n, _), (dst, doff, _, _) = reads[0], writes[0]
            if isinstance(src, DeviceAllocation):
                pieces = [(s - soff, e - soff, f) for s, e, f in self.flow_pieces(src, soff, n)]
            else:  # host memory: what it holds now is judged by its value (the host may have changed it)
                data = np.empty(n, np.uint8)
                dst.read_into(doff, data)
                pieces = self._host_bytes(data.tobytes())
            return [(dst, doff, pieces)]
        if task.kind in COMPUTES:
            name, key = self.kernels.get(task.id, (task.name, None))
            sources: set = set()
            kernels: set = {(name, key)}
            for buf, off, n, wrote in access:  # what it read, and what it wrote over (in-place updates)
                for _, _, f in self.flow_pieces(buf, off, n):
                    if not (wrote and f.kind == "unwritten"):
                        sources |= f.sources
                        kernels |= f.kernels
            flow = Flow("kernel", name, frozenset(sources), frozenset(kernels))
        else:
            flow = Flow.leaf("memset" if task.kind == "memset" else "other")
        return [(buf, off, [(0, n, flow)]) for buf, off, n, _ in writes]

    def finished(self, task, status: int) -> None:
        access = self.pending.pop(task.id, None)
        if access is None or status:
            return  # a failed task's effect did not happen
        followed = self._follow(task, access)
        for buf, off, pieces in followed:
            target = origins_of(self.flows, buf)
            for s, e, f in pieces:
                target.set(off + s, off + e, f)
        self.writes.record(task, access)
        writes = [a for a in access if a[3] and a[2] > 0]
        if task.kind in COMPUTES:
            for buf, off, n, _ in writes:
                self._of(buf).set(off, off + n, KERNEL)
                self.kernel_writes += n
        elif task.kind == "memset":
            for buf, off, n, _ in writes:
                self._of(buf).set(off, off + n, MEMSET)
        elif task.kind == "memcpy":
            reads = [a for a in access if not a[3]]
            if len(reads) != 1 or len(writes) != 1:
                return
            src, soff, n, _ = reads[0]
            dst, doff, _, _ = writes[0]
            if isinstance(src, DeviceAllocation):
                pieces = self._of(src).get(soff, soff + n)
            else:
                pieces = [(soff, soff + n, HOST)]
            target = self._of(dst)
            for s, e, o in pieces:
                target.set(doff + s - soff, doff + e - soff, o)
            if not isinstance(dst, DeviceAllocation) and isinstance(src, DeviceAllocation):
                data = np.empty(n, np.uint8)
                dst.read_into(doff, data)
                self.landings.append(
                    Landing(
                        dst.ptr + doff,
                        data.tobytes(),
                        [(s - soff, e - soff, o) for s, e, o in pieces],
                        task.id,
                        self.sim.now,
                        tuple(followed[0][2]),
                        dst,
                    )
                )

    # -- questions a grader asks -----------------------------------------------------------------
    def device_origin(self, buf, offset: int, nbytes: int) -> int:
        """The weakest origin of any byte in the range (KERNEL only if a kernel wrote every byte)."""
        return min((o for _, _, o in self._of(buf).get(offset, offset + nbytes)), default=UNWRITTEN)

    def trace_back(self, data: bytes, until: int | None = None) -> tuple[int, str, Landing | None]:
        """Where the bytes ``data`` came from: (origin, words, the landing it starts at).

        The bytes count as the device's only if device-to-host copies that completed (by
        virtual time ``until``, if given: what a reader at that moment could see) wrote a
        contiguous host range holding exactly these bytes (a later copy over an earlier one
        wins, as in memory); the origin is then the weakest origin of any of its bytes.
        """
        landings = self.landings if until is None else [ld for ld in self.landings if ld.t <= until]
        n = len(data)
        if n == 0:
            return UNWRITTEN, "the answer is empty", None
        best: tuple[int, str, Landing | None] = (UNWRITTEN, "no device-to-host copy brought these bytes back", None)
        tried = set()
        for start in landings:
            a = start.address
            if a in tried or start.data[:1] != data[:1]:
                continue
            tried.add(a)
            image = bytearray(n)
            origin = np.zeros(n, np.uint8)
            for ld in landings:
                lo, hi = max(a, ld.address), min(a + n, ld.address + len(ld.data))
                if lo >= hi:
                    continue
                image[lo - a : hi - a] = ld.data[lo - ld.address : hi - ld.address]
                for s, e, o in ld.origins:
                    s2, e2 = max(lo, ld.address + s), min(hi, ld.address + e)
                    if s2 < e2:
                        origin[s2 - a : e2 - a] = o
            if bytes(image) != data:
                continue
            weakest = int(origin.min())
            if weakest > best[0] or best[2] is None:
                best = (weakest, ORIGIN_WORDS[weakest], start)
            if weakest == KERNEL:
                break
        if best[2] is None and landings:
            best = (
                UNWRITTEN,
                "the device-to-host copies brought back other bytes than the ones returned "
                "(read before they landed, or changed on the host afterwards?)",
                None,
            )
        return best
