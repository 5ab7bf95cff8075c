"""A stand-in for an offline model: what ``acl.mdl.load_from_file`` loads in the sandbox.

A board runs a compiled ``.om`` file (ATC's output); the sandbox cannot.  It runs a model it
makes itself: a numpy function with the descriptions an ``.om`` carries (each input's and
output's name, dims, data type and format), a cost per execution, and optionally the gears ATC
compiles in for dynamic batch or dynamic image size.  ``model.save(path)`` writes the file
``acl.mdl.load_from_file(path)`` loads; ``to_bytes()`` the bytes ``load_from_mem`` takes.

    import numpy as np
    from sandbox.models import Model, Tensor
    from sandbox import acl

    double = Model(
        "double",
        lambda x: 2 * x,
        inputs=[Tensor("x", (1, 1024), acl.ACL_FLOAT)],
        outputs=[Tensor("y", (1, 1024), acl.ACL_FLOAT)],
        ns=20_000,                 # 20 us per execution: an assumption of the model's author
    )
    double.save("double.om")

The file is the sandbox's own (it starts with ``MAGIC``): a JSON description, then the function
and the cost carried by value with cloudpickle (a zoo model carries only its zoo name).  Loading
a file runs the code it carries, as importing a Python module does: load files you made.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

MAGIC = b"SANDBOX STAND-IN MODEL 1\n"  # the first bytes of a stand-in file
MAX_DIM_CNT = 128  # ACL_MAX_DIM_CNT (hicann/ge inc/external/acl/acl_mdl.h:25)
MAX_TENSOR_NAME_LEN = 128  # ACL_MAX_TENSOR_NAME_LEN (acl_mdl.h:26)
DYNAMIC_TENSOR_NAME = "ascend_mbatch_shape_data"  # ACL_DYNAMIC_TENSOR_NAME (acl_mdl.h:39): the input ATC adds

# aclDataType -> numpy (include/external/acl/acl_base_rt.h:140-169, as sandbox/acl/_types.py)
_NUMPY = {
    0: np.float32,
    1: np.float16,
    2: np.int8,
    3: np.int32,
    4: np.uint8,
    6: np.int16,
    7: np.uint16,
    8: np.uint32,
    9: np.int64,
    10: np.uint64,
    11: np.float64,
    12: np.bool_,
}
# aclFormat (acl_base_rt.h:171-192): the plain layouts a stand-in's tensors use
FORMATS = {"NCHW": 0, "NHWC": 1, "ND": 2}


class ModelError(ValueError):
    """A stand-in described wrongly, or a file that is not one (the facade turns it into a code)."""


@dataclass(frozen=True)
class Tensor:
    """One input or output of a model: its name, dims (-1 where a dynamic gear decides the
    size: the batch of a dynamic-batch model, H and W of a dynamic-image-size one), aclDataType
    and aclFormat, as ``aclmdlGetInputDims``, ``GetInputDataType`` and ``GetInputFormat`` report."""

    name: str
    dims: tuple
    dtype: int = 0  # ACL_FLOAT
    format: int = 2  # ACL_FORMAT_ND

    def __post_init__(self):
        object.__setattr__(self, "dims", tuple(int(d) for d in self.dims))
        if not self.name or len(self.name) >= MAX_TENSOR_NAME_LEN:
            raise ModelError(f"a tensor name has 1 to {MAX_TENSOR_NAME_LEN - 1} characters, got {self.name!r}")
        if len(self.dims) > MAX_DIM_CNT or any(d < -1 or d == 0 for d in self.dims):
            raise ModelError(f"tensor {self.name}: dims are up to {MAX_DIM_CNT} sizes > 0 (or -1), got {self.dims}")
        if self.dtype not in _NUMPY:
            raise ModelError(f"tensor {self.name}: data type {self.dtype} is not one a stand-in supports")

    @property
    def numpy(self) -> np.dtype:
        return np.dtype(_NUMPY[self.dtype])

    def shape(self, batch: int | None = None, hw: tuple[int, int] | None = None) -> tuple:
        """The dims with the dynamic ones filled in: the first -1 by the batch, H and W by ``hw``."""
        dims = list(self.dims)
        if batch is not None and -1 in dims:
            dims[dims.index(-1)] = batch
        if hw is not None:
            spots = [i for i, d in enumerate(dims) if d == -1]
            for spot, value in zip(spots[-2:], hw):
                dims[spot] = value
        return tuple(dims)

    def size(self, batch: int | None = None, hw: tuple[int, int] | None = None) -> int:
        """Bytes of the tensor at that gear (0 while a dimension is still dynamic)."""
        dims = self.shape(batch, hw)
        return 0 if any(d < 0 for d in dims) else math.prod(dims) * self.numpy.itemsize


@dataclass(frozen=True)
class Model:
    """A stand-in model: ``fn(*inputs) -> output or tuple of outputs`` on numpy arrays shaped as
    the descriptions say (the gear filled in), and ``ns``, the time one execution takes on the
    AI Cores: a number, or a function of the batch size (of ``(batch, (h, w))`` for a dynamic
    image size).  ``weight_bytes`` and ``work_bytes`` are the device memory a load takes
    (``aclmdlQuerySize``'s weight and work sizes).  ``dynamic_batch`` lists the batch gears,
    ``dynamic_hw`` the (height, width) gears; such a model has the extra input ATC adds,
    ``ascend_mbatch_shape_data``, last.  ``about`` says where its figures come from."""

    name: str
    fn: Callable
    inputs: Sequence[Tensor]
    outputs: Sequence[Tensor]
    ns: float | Callable = 10_000
    weight_bytes: int = 0
    work_bytes: int = 0
    dynamic_batch: tuple = ()
    dynamic_hw: tuple = ()
    about: str = ""
    zoo: str = field(default="", compare=False)  # the zoo name, for a zoo model: the file carries only that

    def __post_init__(self):
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "outputs", tuple(self.outputs))
        object.__setattr__(self, "dynamic_batch", tuple(int(b) for b in self.dynamic_batch))
        object.__setattr__(self, "dynamic_hw", tuple((int(h), int(w)) for h, w in self.dynamic_hw))
        if not callable(self.fn):
            raise ModelError(f"model {self.name}: fn must be a function of the input arrays")
        if not self.inputs or not self.outputs:
            raise ModelError(f"model {self.name}: a model has at least one input and one output")
        if self.dynamic_batch and self.dynamic_hw:
            raise ModelError(f"model {self.name}: dynamic batch and dynamic image size are exclusive, as in ATC")
        if any(b <= 0 for b in self.dynamic_batch) or any(h <= 0 or w <= 0 for h, w in self.dynamic_hw):
            raise ModelError(f"model {self.name}: gears are sizes > 0")
        dynamic = bool(self.dynamic_batch or self.dynamic_hw)
        for t in self.inputs:
            if (-1 in t.dims) != dynamic:
                raise ModelError(
                    f"model {self.name}: input {t.name} has a -1 dimension exactly when the model has gears"
                )
        if self.weight_bytes < 0 or self.work_bytes < 0:
            raise ModelError(f"model {self.name}: memory sizes are >= 0")

    # -- what the runtime reads ----------------------------------------------------------------
    @property
    def dynamic(self) -> bool:
        return bool(self.dynamic_batch or self.dynamic_hw)

    def described_inputs(self) -> tuple[Tensor, ...]:
        """The inputs as the model's description lists them: a dynamic model ends with the input
        ATC adds to carry the gear (one int64: the sandbox's choice; the runtime writes the gear
        into it, aclmdlSetDynamicBatchSize)."""
        if not self.dynamic:
            return tuple(self.inputs)
        return tuple(self.inputs) + (Tensor(DYNAMIC_TENSOR_NAME, (1,), 9, 2),)

    def largest(self) -> tuple[int | None, tuple[int, int] | None]:
        """The largest gear: the sizes aclmdlGetInputSizeByIndex reports for a dynamic model."""
        batch = max(self.dynamic_batch) if self.dynamic_batch else None
        hw = max(self.dynamic_hw, key=lambda g: g[0] * g[1]) if self.dynamic_hw else None
        return batch, hw

    def time_ns(self, batch: int | None, hw: tuple[int, int] | None) -> int:
        """One execution's time at this gear, in ns."""
        if callable(self.ns):
            value = self.ns(batch, hw) if self.dynamic_hw else self.ns(batch if batch is not None else 1)
        else:
            value = self.ns
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not value >= 0:
            raise ModelError(f"model {self.name}: its cost is a number of ns >= 0, got {value!r}")
        return int(value)

    def run(self, arrays: list[np.ndarray], batch: int | None, hw: tuple[int, int] | None) -> list[np.ndarray]:
        """The outputs for these inputs, each cast and shaped as its description says."""
        result = self.fn(*arrays)
        values = list(result) if isinstance(result, (tuple, list)) else [result]
        if len(values) != len(self.outputs):
            raise ModelError(
                f"model {self.name} returned {len(values)} outputs, its description has {len(self.outputs)}"
            )
        out = []
        for t, v in zip(self.outputs, values):
            shape = t.shape(batch, hw)
            a = np.asarray(v)
            if a.size != math.prod(shape):
                raise ModelError(f"model {self.name}: output {t.name} has {a.size} elements, want {shape}")
            out.append(np.ascontiguousarray(a.reshape(shape), dtype=t.numpy))
        return out

    # -- the file --------------------------------------------------------------------------------
    def describe(self) -> dict:
        def tensor(t: Tensor) -> dict:
            return {"name": t.name, "dims": list(t.dims), "dtype": t.dtype, "format": t.format}

        return {
            "name": self.name,
            "inputs": [tensor(t) for t in self.inputs],
            "outputs": [tensor(t) for t in self.outputs],
            "weight_bytes": self.weight_bytes,
            "work_bytes": self.work_bytes,
            "dynamic_batch": list(self.dynamic_batch),
            "dynamic_hw": [list(g) for g in self.dynamic_hw],
            "about": self.about,
            "zoo": self.zoo,
        }

    def to_bytes(self) -> bytes:
        """The stand-in file's bytes: MAGIC, the description's length and JSON, then the code."""
        head = json.dumps(self.describe(), sort_keys=True).encode()
        if self.zoo:
            code = b""
        else:
            import cloudpickle

            code = cloudpickle.dumps((self.fn, self.ns))
        return MAGIC + f"{len(head)}\n".encode() + head + code

    def save(self, path) -> str:
        """Write the file ``acl.mdl.load_from_file(path)`` loads; returns the path."""
        with open(path, "wb") as f:
            f.write(self.to_bytes())
        return str(path)
