"""``acl.mdl``: offline models (stand-ins: load, describe, datasets, execute) and ACL Graph
(stream capture into a model run instance, aclmdlRI).

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
from ._data_buffer import DataBuffers as _DataBuffers
from ._declare import Kind, api, handle, ptr, size
from ._model_io import Dataset as _Dataset
from ._model_io import Desc as _Desc
from ._model_io import buffers_of as _buffers_of
from ._model_io import dims as _dims
from ._model_io import records as _records
from ._model_io import tensor as _tensor

ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY = 0x0
ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE = 0x1


def _not_null_stream(m, th, value, what: str, c_name: str):
    """A stream the call needs given explicitly: null (0, None) is 100000 (ACL_REQUIRES_NOT_NULL)."""
    from ..core.errors import ACL_ERROR_INVALID_PARAM, fail

    ptr = as_ptr(value, what)
    if ptr == 0:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"{what} is null: the default stream cannot be captured; capture a stream made by aclrtCreateStream",
        )
    return m.stream(th, ptr, api=c_name)


if TYPE_CHECKING:  # to a type checker, a kind is the type the body gets: the object looked up
    from ..core.features.capture import ModelRI as model
    from ..core.objects import Stream as any_stream
    from ..core.objects import Stream as stream_here
    from ..core.objects import Stream as capture_stream
else:
    model = Kind(lambda m, th, value, what, c_name: graphs(m).ri(as_int(value, what)), resolve=True)
    stream_here = Kind(lambda m, th, value, what, c_name: m.stream(th, as_ptr(value, what), api=c_name), resolve=True)
    capture_stream = Kind(_not_null_stream, resolve=True)
    any_stream = Kind(
        lambda m, th, value, what, c_name: m.stream(th, as_ptr(value, what), check_context=False), resolve=True
    )  # of any context


def _supported(m, th, c_name: text) -> None:
    graphs(m).check_supported(c_name)


@api("aclmdlRICaptureBegin", cost="capture_call", before=_supported)
def ri_capture_begin(m, th, stream: capture_stream, mode: int) -> None:
    """aclmdlRICaptureBegin: tasks issued to ``stream`` from now on are recorded, not run.

    A null stream (0: the default stream) is 100000: the acl layer requires a stream before the
    runtime sees the call (aclmdlRICaptureBeginImpl, src/acl/aclrt_impl/model_ri.cpp:53)."""
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


# -- offline models: stand-ins (sandbox/models), loaded and executed ------------------------------
# Names, arguments and return shapes: the binding's rows (sandbox/acl/pyacl_binding.json, module
# "mdl"; python/pyACL/mdl/mdl_wrap.cpp).  Codes: hicann/ge, as sandbox/core/features/models.py and
# _model_io.py cite them.  A file that is not a stand-in (a real .om, any other file) is refused
# with 207000 saying how to make one: the sandbox has no model compiler to run an .om.
ACL_DYNAMIC_TENSOR_NAME = "ascend_mbatch_shape_data"  # hicann/ge inc/external/acl/acl_mdl.h:39
ACL_DYNAMIC_AIPP_NAME = "ascend_dynamic_aipp_data"  # acl_mdl.h:40
ACL_MAX_DIM_CNT = 128  # acl_mdl.h:25
ACL_MAX_TENSOR_NAME_LEN = 128  # acl_mdl.h:26
ACL_MAX_BATCH_NUM = 128  # acl_mdl.h:27
ACL_MAX_HW_NUM = 128  # acl_mdl.h:28
ACL_FORMAT_UNDEFINED, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND = -1, 0, 1, 2  # acl_base_rt.h:171-192
ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_FRACTAL_NZ = 3, 4, 29


def _text(m, th, value, what: str, c_name: str) -> str:
    """A str argument ("s" in the binding's formats): anything else is PyArg_ParseTuple's TypeError."""
    if not isinstance(value, str):
        raise TypeError(f"acl.mdl ({c_name}): {what} must be str, not {type(value).__name__}")
    return value


if TYPE_CHECKING:
    text = str
else:
    text = Kind(_text, resolve=True)

HOW_TO_STAND_IN = (
    "the sandbox runs stand-in models, not compiled .om files: make one with sandbox.models.Model(...) "
    "(or take sandbox.models.zoo('resnet50')) and save it to this path with model.save(path)"
)


def _stand_in(data: bytes, where: str):
    """The stand-in a file's bytes hold, or the runtime's refusal."""
    from ..core.errors import ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, fail
    from ..models.files import from_bytes
    from ..models.model import MAGIC, ModelError

    if len(data) < 4:  # too short for any model header (hicann/ge runtime/om2/om2_model_executor.cc:1738-1746)
        fail(ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID, f"{where} holds {len(data)} bytes: no model is that small")
    if not data.startswith(MAGIC):
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"{where} is not a stand-in model: {HOW_TO_STAND_IN}")
    try:
        return from_bytes(data)
    except ModelError as exc:
        from ..core.errors import ACL_ERROR_GE_PARAM_INVALID

        fail(ACL_ERROR_GE_PARAM_INVALID, f"{where}: {exc}")


def _read_file(m, path: str) -> bytes:
    """The file's bytes: 145002 for an empty path or a file that cannot be opened
    (hicann/ge runtime/om2/om2_model_executor.cc:1713-1733)."""
    from ..core.errors import ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID, fail

    try:
        with open(path, "rb") as f:
            return f.read()
    except (OSError, ValueError) as exc:
        fail(ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID, f"model path {path!r} cannot be read: {exc.__class__.__name__}")


def _host_bytes(m, address: int, size: int, what: str) -> bytes:
    """``size`` bytes of host memory at ``address`` (a model in memory): 100000 for NULL or 0
    (hicann/ge api/acl/acl_model/model/acl_model_router.cpp:52-56)."""
    from ..core.errors import ACL_ERROR_INVALID_PARAM, fail

    import numpy as np

    from .util import _host_span

    if not address or not size:
        fail(ACL_ERROR_INVALID_PARAM, f"{what}: the model's address and size must not be 0")
    buf, offset = _host_span(m, address, size, what)
    out = np.empty(size, np.uint8)
    buf.read_into(offset, out)
    return out.tobytes()


def _load(m, th, model) -> int:
    """Load after aclInit (145001 before: hicann/ge runtime/v1/executor/ge_executor.cc:988-992);
    the weights cross the host link at the pinned rate (an assumption of the sandbox)."""
    from ..core.errors import ACL_ERROR_GE_EXEC_NOT_INIT, fail
    from ..core.features import models

    if not th.process.initialized:
        fail(ACL_ERROR_GE_EXEC_NOT_INIT, "aclmdlLoad before aclInit: the model executor is not initialised")
    model_id = models.load(m, th, model)
    th.clock += int(model.weight_bytes / m.profile.h2d_pinned * 1e9)
    return model_id


@api("aclmdlLoadFromFile", cost="model_load", defaults=(0,))
def load_from_file(m, th, model_path: text):
    """aclmdlLoadFromFile: (model_id, ret) for a stand-in file (``sandbox.models``)."""
    return _load(m, th, _stand_in(_read_file(m, model_path), f"model file {model_path!r}"))


@api("aclmdlLoadFromMem", cost="model_load", defaults=(0,))
def load_from_mem(m, th, model: ptr, model_size: size):
    """aclmdlLoadFromMem: (model_id, ret) for a stand-in's bytes in host memory."""
    return _load(m, th, _stand_in(_host_bytes(m, model, model_size, "aclmdlLoadFromMem"), "the model in memory"))


def _sizes(model) -> tuple[int, int]:
    return model.work_bytes, model.weight_bytes


@api("aclmdlQuerySize", cost="query", defaults=(0, 0))
def query_size(m, th, file_name: text):
    """aclmdlQuerySize: (work_size, weight_size, ret) of a stand-in file."""
    return _sizes(_stand_in(_read_file(m, file_name), f"model file {file_name!r}"))


@api("aclmdlQuerySizeFromMem", cost="query", defaults=(0, 0))
def query_size_from_mem(m, th, model: ptr, model_size: size):
    """aclmdlQuerySizeFromMem: (work_size, weight_size, ret)."""
    return _sizes(_stand_in(_host_bytes(m, model, model_size, "aclmdlQuerySizeFromMem"), "the model in memory"))


@api("aclmdlUnload", cost="model_unload")
def unload(m, th, model_id: int) -> None:
    """aclmdlUnload: frees its memory; an unknown id, or a second unload, 145003."""
    from ..core.features import models

    models.unload(m, th, model_id)


# -- descriptions -------------------------------------------------------------------------------------
@api("aclmdlCreateDesc", cost="query", defaults=(0,), bare=True)
def create_desc(m, th):
    handle = m.new_handle()
    _records(m).descs[handle] = _Desc()
    return handle


@api("aclmdlDestroyDesc", cost="query")
def destroy_desc(m, th, model_desc: handle) -> None:
    _records(m).desc(model_desc)
    del _records(m).descs[model_desc]


@api("aclmdlGetDesc", cost="query")
def get_desc(m, th, model_desc: handle, model_id: int) -> None:
    """aclmdlGetDesc: fill the description from a loaded model (145003 for an unknown id)."""
    from ..core.features import models

    record = _records(m).desc(model_desc)
    record.model_id, record.model = model_id, models.models(m).get(model_id).model


@api("aclmdlGetDescFromFile", cost="query")
def get_desc_from_file(m, th, model_desc: handle, model_path: text) -> None:
    record = _records(m).desc(model_desc)
    record.model_id, record.model = 0, _stand_in(_read_file(m, model_path), f"model file {model_path!r}")


@api("aclmdlGetDescFromMem", cost="query")
def get_desc_from_mem(m, th, model_desc: handle, model: ptr, model_size: size) -> None:
    record = _records(m).desc(model_desc)
    data = _host_bytes(m, model, model_size, "aclmdlGetDescFromMem")
    record.model_id, record.model = 0, _stand_in(data, "the model in memory")


def _count(m, model_desc: int, outputs: bool) -> int:
    record = _records(m).descs.get(model_desc) if model_desc else None
    if record is None or record.model is None:
        return 0  # a NULL description counts 0 (model_om2.cpp:861-875)
    return len(record.model.outputs if outputs else record.model.described_inputs())


@api("aclmdlGetNumInputs", cost=0, defaults=(0,), bare=True)
def get_num_inputs(m, th, model_desc: handle):
    return _count(m, model_desc, False)


@api("aclmdlGetNumOutputs", cost=0, defaults=(0,), bare=True)
def get_num_outputs(m, th, model_desc: handle):
    return _count(m, model_desc, True)


def _io_size(m, model_desc: int, index: int, outputs: bool) -> int:
    """Bytes of the tensor; a dynamic one at its largest gear (aclmdlGetInputSizeByIndex's docs)."""
    model = _records(m).described(model_desc)
    batch, hw = model.largest()
    return _tensor(model, index, outputs).size(batch, hw)


@api("aclmdlGetInputSizeByIndex", cost=0, defaults=(0,), bare=True)
def get_input_size_by_index(m, th, model_desc: handle, index: int):
    return _io_size(m, model_desc, index, False)


@api("aclmdlGetOutputSizeByIndex", cost=0, defaults=(0,), bare=True)
def get_output_size_by_index(m, th, model_desc: handle, index: int):
    return _io_size(m, model_desc, index, True)


@api("aclmdlGetInputDims", cost=0, defaults=({},))
def get_input_dims(m, th, model_desc: handle, index: int):
    """aclmdlGetInputDims: ({"name", "dimCount", "dims"}, ret); -1 where a gear decides."""
    return _dims(_tensor(_records(m).described(model_desc), index, False))


@api("aclmdlGetInputDimsV2", cost=0, defaults=({},))
def get_input_dims_v2(m, th, model_desc: handle, index: int):
    return _dims(_tensor(_records(m).described(model_desc), index, False))


@api("aclmdlGetOutputDims", cost=0, defaults=({},))
def get_output_dims(m, th, model_desc: handle, index: int):
    return _dims(_tensor(_records(m).described(model_desc), index, True))


@api("aclmdlGetCurOutputDims", cost=0, defaults=({},))
def get_cur_output_dims(m, th, model_desc: handle, index: int):
    """The output's dims at the gear of the model's last execution (its static dims before one)."""
    from ..core.features import models

    record = _records(m).desc(model_desc)
    model = _records(m).described(model_desc)
    loaded = models.models(m).loaded.get(record.model_id)
    batch, hw = (loaded.batch, loaded.hw) if loaded is not None else (None, None)
    return _dims(_tensor(model, index, True), batch, hw)


def _name(m, model_desc: int, index: int, outputs: bool) -> str:
    return _tensor(_records(m).described(model_desc), index, outputs).name


@api("aclmdlGetInputNameByIndex", cost=0, defaults=("",), bare=True)
def get_input_name_by_index(m, th, model_desc: handle, index: int):
    return _name(m, model_desc, index, False)


@api("aclmdlGetOutputNameByIndex", cost=0, defaults=("",), bare=True)
def get_output_name_by_index(m, th, model_desc: handle, index: int):
    return _name(m, model_desc, index, True)


@api("aclmdlGetInputFormat", cost=0, defaults=(ACL_FORMAT_UNDEFINED,), bare=True)
def get_input_format(m, th, model_desc: handle, index: int):
    return _tensor(_records(m).described(model_desc), index, False).format


@api("aclmdlGetOutputFormat", cost=0, defaults=(ACL_FORMAT_UNDEFINED,), bare=True)
def get_output_format(m, th, model_desc: handle, index: int):
    return _tensor(_records(m).described(model_desc), index, True).format


@api("aclmdlGetInputDataType", cost=0, defaults=(-1,), bare=True)
def get_input_data_type(m, th, model_desc: handle, index: int):
    return _tensor(_records(m).described(model_desc), index, False).dtype


@api("aclmdlGetOutputDataType", cost=0, defaults=(-1,), bare=True)
def get_output_data_type(m, th, model_desc: handle, index: int):
    return _tensor(_records(m).described(model_desc), index, True).dtype


def _index(m, model_desc: int, name: str, outputs: bool) -> int:
    from ..core.errors import ACL_ERROR_INVALID_PARAM, fail

    model = _records(m).described(model_desc)
    tensors = model.outputs if outputs else model.described_inputs()
    for i, t in enumerate(tensors):
        if t.name == name:
            return i
    fail(ACL_ERROR_INVALID_PARAM, f"the model has no {'output' if outputs else 'input'} named {name!r}")


@api("aclmdlGetInputIndexByName", cost=0, defaults=(0,))
def get_input_index_by_name(m, th, model_desc: handle, name: text):
    """(index, ret); 100000 for a name the model does not have (ACL_DYNAMIC_TENSOR_NAME of a static model)."""
    return _index(m, model_desc, name, False)


@api("aclmdlGetOutputIndexByName", cost=0, defaults=(0,))
def get_output_index_by_name(m, th, model_desc: handle, name: text):
    return _index(m, model_desc, name, True)


@api("aclmdlGetDynamicBatch", cost=0, defaults=({},))
def get_dynamic_batch(m, th, model_desc: handle):
    """({"batchCount", "batch"}, ret): batchCount 0 for a model without gears (model_om2.cpp:1786-1815)."""
    gears = list(_records(m).described(model_desc).dynamic_batch)
    return {"batchCount": len(gears), "batch": gears}


@api("aclmdlGetDynamicHW", cost=0, defaults=({},))
def get_dynamic_hw(m, th, model_desc: handle, index: int):
    """({"hwCount", "hw"}, ret); ``index`` is not read (model_om2.cpp:1817-1844)."""
    gears = [list(g) for g in _records(m).described(model_desc).dynamic_hw]
    return {"hwCount": len(gears), "hw": gears}


# -- datasets -------------------------------------------------------------------------------------------
@api("aclmdlCreateDataset", cost="query", defaults=(0,), bare=True)
def create_dataset(m, th):
    handle = m.new_handle()
    _records(m).datasets[handle] = _Dataset()
    return handle


@api("aclmdlDestroyDataset", cost="query")
def destroy_dataset(m, th, dataset: handle) -> None:
    """The data buffers it lists stay (model_om2.cpp:910-917): destroy them yourself."""
    _records(m).dataset(dataset)
    del _records(m).datasets[dataset]


@api("aclmdlAddDatasetBuffer", cost="query", defaults=(0,))
def add_dataset_buffer(m, th, dataset: handle, data_buffer: handle):
    """(dataset, ret): the dataset echoed back, as the binding returns it."""
    from ..core.errors import ACL_ERROR_INVALID_PARAM, fail

    record = _records(m).dataset(dataset)
    if not data_buffer:
        fail(ACL_ERROR_INVALID_PARAM, "dataBuffer is null")
    m.feature(_DataBuffers).get(data_buffer)
    record.buffers.append(data_buffer)
    return dataset


@api("aclmdlGetDatasetNumBuffers", cost=0, defaults=(0,), bare=True)
def get_dataset_num_buffers(m, th, dataset: handle):
    record = _records(m).datasets.get(dataset) if dataset else None
    return 0 if record is None else len(record.buffers)


@api("aclmdlGetDatasetBuffer", cost=0, defaults=(0,), bare=True)
def get_dataset_buffer(m, th, dataset: handle, index: int):
    """The data buffer at ``index``; 0 (NULL) out of range."""
    from ..core.errors import ACL_ERROR_INVALID_PARAM, fail

    record = _records(m).dataset(dataset)
    if not 0 <= index < len(record.buffers):
        fail(ACL_ERROR_INVALID_PARAM, f"index {index} is out of range: the dataset has {len(record.buffers)} buffers")
    return record.buffers[index]


def _gear_buffer(m, dataset: _Dataset, index: int, least: int) -> tuple[int, int]:
    """The buffer at ``index`` that the gear is written into (hicann/ge model.cpp:1850-1860,
    ge_executor.cc:384-395): 100000 if there is none or it is NULL, 145012 if it is too small."""
    from ..core.errors import ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID, ACL_ERROR_INVALID_PARAM, fail

    pairs = _buffers_of(m, dataset)
    if not 0 <= index < len(pairs):
        fail(ACL_ERROR_INVALID_PARAM, f"the dataset has no buffer at index {index}")
    address, size = pairs[index]
    if not address:
        fail(ACL_ERROR_INVALID_PARAM, f"the dataset's buffer {index} has a null address")
    if size < least:
        fail(
            ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID,
            f"the dataset's buffer {index} holds {size} bytes, the gear needs {least}",
        )
    return address, size


def _write_gear(m, address: int, size: int, values: list[int]) -> None:
    """The gear, written into the gear input's buffer as the runtime copies it there: as int64s
    where they fit (the sandbox's gear input is one int64), else as int32s."""
    import numpy as np

    buf = m.buffer(address)
    if buf is None:
        return
    raw = np.asarray(values, np.int64 if size >= 8 * len(values) else np.int32).view(np.uint8)
    room = min(raw.size, buf.ptr + buf.size - address)
    buf.dense_view(address - buf.ptr, room)[:] = raw[:room]


@api("aclmdlSetDynamicBatchSize", cost="query")
def set_dynamic_batch_size(m, th, model_id: int, dataset: handle, index: int, batch_size: int) -> None:
    """aclmdlSetDynamicBatchSize: the batch the next execution with this input dataset runs at.
    0 -> 100000; not one of the model's gears (or a model without them) -> 145013
    (ge_executor.cc:138-159, 411-415); ``index`` is not checked to be the gear input, as in GE."""
    from ..core.errors import ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, ACL_ERROR_INVALID_PARAM, fail
    from ..core.features import models

    record = _records(m).dataset(dataset)
    if batch_size <= 0:
        fail(ACL_ERROR_INVALID_PARAM, f"batchSize must be > 0, got {batch_size}")
    address, size = _gear_buffer(m, record, index, 4)
    model = models.models(m).get(model_id).model
    if batch_size not in model.dynamic_batch:
        gears = ", ".join(map(str, model.dynamic_batch)) or "none: it was compiled without dynamic batch"
        fail(
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID,
            f"batch {batch_size} is not a gear of model {model_id} (its gears: {gears})",
        )
    _write_gear(m, address, size, [batch_size])
    record.batch, record.hw = batch_size, None


@api("aclmdlSetDynamicHWSize", cost="query")
def set_dynamic_hw_size(m, th, model_id: int, dataset: handle, index: int, height: int, width: int) -> None:
    """aclmdlSetDynamicHWSize: the image size of the next execution (0 -> 100000; a size the model
    was not compiled for -> 145013, ge_executor.cc:434-476)."""
    from ..core.errors import ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, ACL_ERROR_INVALID_PARAM, fail
    from ..core.features import models

    record = _records(m).dataset(dataset)
    if height <= 0 or width <= 0:
        fail(ACL_ERROR_INVALID_PARAM, f"height and width must be > 0, got {height} x {width}")
    address, size = _gear_buffer(m, record, index, 8)
    model = models.models(m).get(model_id).model
    if (height, width) not in model.dynamic_hw:
        gears = ", ".join(f"{h}x{w}" for h, w in model.dynamic_hw) or "none: it was compiled without dynamic image size"
        fail(
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID,
            f"{height}x{width} is not a gear of model {model_id} (its gears: {gears})",
        )
    _write_gear(m, address, size, [height, width])
    record.hw, record.batch = (height, width), None


# -- execution ---------------------------------------------------------------------------------------------
def _execute(m, th, model_id: int, inputs: int, outputs: int, stream) -> None:
    """Both executes: NULL datasets 100000 before the model is looked up (model.cpp:718-719)."""
    from ..core.errors import ACL_ERROR_INVALID_PARAM, fail
    from ..core.features import models

    if not inputs or not outputs:
        fail(ACL_ERROR_INVALID_PARAM, "the input and output datasets must not be null")
    given, taken = _records(m).dataset(inputs), _records(m).dataset(outputs)
    models.execute(m, th, model_id, _buffers_of(m, given), _buffers_of(m, taken), given.batch, given.hw, stream)


@api("aclmdlExecute", cost="model_execute")
def execute(m, th, model_id: int, input: handle, output: handle) -> None:
    """aclmdlExecute: run the model and wait for it (the task goes on the device's internal queue)."""
    _execute(m, th, model_id, input, output, None)


@api("aclmdlExecuteAsync", cost="model_execute")
def execute_async(m, th, model_id: int, input: handle, output: handle, stream: stream_here) -> None:
    """aclmdlExecuteAsync: queue one execution on ``stream``; its outputs land when it completes."""
    _execute(m, th, model_id, input, output, stream)
