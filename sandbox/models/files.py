"""Reading a stand-in file back: the description, then the zoo's model or the code it carries."""

from __future__ import annotations

import json
import pickle

from .model import MAGIC, Model, ModelError, Tensor
from .zoo import zoo


def from_bytes(data: bytes) -> Model:
    """The model a stand-in file holds (ModelError: not a stand-in, or damaged)."""
    if not data.startswith(MAGIC):
        raise ModelError("not a stand-in model file")
    rest = data[len(MAGIC) :]
    length, _, rest = rest.partition(b"\n")
    try:
        n = int(length)
        spec = json.loads(rest[:n])
    except ValueError as exc:
        raise ModelError(f"a damaged stand-in file: {exc}") from None
    code = rest[n:]
    if spec.get("zoo"):  # the zoo's, compiled at the batch or gears the description records
        first = spec["inputs"][0]["dims"][0]
        return zoo(spec["zoo"], batch=1 if first == -1 else first, dynamic_batch=tuple(spec["dynamic_batch"]))
    try:
        fn, ns = pickle.loads(code)
    except Exception as exc:  # noqa: BLE001 - whatever the file's code raises is the file's fault
        raise ModelError(f"the stand-in's code could not be read: {type(exc).__name__}: {exc}") from None

    def tensors(rows) -> list[Tensor]:
        return [Tensor(r["name"], tuple(r["dims"]), r["dtype"], r["format"]) for r in rows]

    return Model(
        spec["name"],
        fn,
        tensors(spec["inputs"]),
        tensors(spec["outputs"]),
        ns=ns,
        weight_bytes=spec["weight_bytes"],
        work_bytes=spec["work_bytes"],
        dynamic_batch=tuple(spec["dynamic_batch"]),
        dynamic_hw=tuple(tuple(g) for g in spec["dynamic_hw"]),
        about=spec.get("about", ""),
    )
