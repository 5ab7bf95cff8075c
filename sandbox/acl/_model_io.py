"""aclmdlDataset and aclmdlDesc: host records of a model's buffers and of its description.

Like aclDataBuffer (``_data_buffer.py``) these never reach the runtime: a dataset lists data
buffers (and, once set, the dynamic gear its model runs at); a description is a copy of a
loaded model's inputs and outputs (hicann/ge api/acl/acl_model/model/model_desc_internal.h:25-57).
What they return out of range, from the sources (hicann/ge api/acl/acl_model/model/model_om2.cpp):
a size 0 (877-894), a name "" (545-558), a format or data type -1 (560-582), a dataset buffer
NULL (938-949), a count 0 for a NULL handle (861-875, 927-936); dims out of range 100000
(model_common.cpp:441-448), an unknown name 100000 (model_om2.cpp:584-600).  Sandbox choice: a
handle that names no live record is refused as a NULL one is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ACL_ERROR_INVALID_PARAM, fail
from ._data_buffer import DataBuffers


@dataclass
class Dataset:
    buffers: list = field(default_factory=list)  # data buffer handles, in order
    batch: int | None = None  # aclmdlSetDynamicBatchSize
    hw: tuple | None = None  # aclmdlSetDynamicHWSize


@dataclass
class Desc:
    model_id: int = 0
    model: Any = None  # the loaded model described (None until aclmdlGetDesc)


class ModelRecords:
    """One machine's datasets and descriptions: handle -> record (``Machine.feature``)."""

    def __init__(self, m):
        self.datasets: dict[int, Dataset] = {}
        self.descs: dict[int, Desc] = {}

    def dataset(self, handle: int) -> Dataset:
        record = self.datasets.get(handle) if handle else None
        if record is None:
            fail(ACL_ERROR_INVALID_PARAM, f"dataset {handle:#x} is {_what(handle, 'aclmdlCreateDataset')}")
        return record

    def desc(self, handle: int) -> Desc:
        record = self.descs.get(handle) if handle else None
        if record is None:
            fail(ACL_ERROR_INVALID_PARAM, f"modelDesc {handle:#x} is {_what(handle, 'aclmdlCreateDesc')}")
        return record

    def described(self, handle: int):
        """The model a description holds (100000 before aclmdlGetDesc filled it)."""
        record = self.desc(handle)
        if record.model is None:
            fail(ACL_ERROR_INVALID_PARAM, f"modelDesc {handle:#x} is empty: fill it with aclmdlGetDesc first")
        return record.model


def _what(handle: int, maker: str) -> str:
    return "null" if not handle else f"not a live record (made by {maker})"


def records(m) -> ModelRecords:
    return m.feature(ModelRecords)


def buffers_of(m, dataset: Dataset) -> list[tuple[int, int]]:
    """(address, size) of each data buffer of the dataset, in order (100000 for a dead one)."""
    live = m.feature(DataBuffers)
    pairs = []
    for i, handle in enumerate(dataset.buffers):
        record = live.live.get(handle)
        if record is None:
            fail(ACL_ERROR_INVALID_PARAM, f"buffer {i} of the dataset is no longer a live aclDataBuffer")
        pairs.append((record[0], record[1]))
    return pairs


def tensor(model, index: int, outputs: bool):
    """The description's input or output ``index`` (100000 out of range)."""
    tensors = model.outputs if outputs else model.described_inputs()
    if not 0 <= index < len(tensors):
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"index {index} is out of range: the model has {len(tensors)} {'outputs' if outputs else 'inputs'}",
        )
    return tensors[index]


def dims(t, batch=None, hw=None) -> dict:
    """aclmdlIODims as pyACL returns it: {"name", "dimCount", "dims"}."""
    shape = list(t.shape(batch, hw))
    return {"name": t.name, "dimCount": len(shape), "dims": shape}
