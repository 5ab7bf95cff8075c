"""Offline models: a load takes device memory, an execution is one task on the AI Cores.

A model is any object with the stand-in interface (``sandbox/models/model.py``: ``name``,
``described_inputs()``, ``outputs``, ``largest()``, ``time_ns(batch, hw)``, ``run(arrays,
batch, hw)``, ``weight_bytes``, ``work_bytes``, ``dynamic_batch``/``dynamic_hw``); the facade
parses the file, this module runs it.

* **Load** (aclmdlLoadFromFile/FromMem) needs a current context (107002 otherwise, as GE's
  LoadModelOffline asks aclrtGetDevice: hicann/ge runtime/v1/graph/load/model_manager/
  model_manager.cc:1506) and allocates the model's weight and work memory on that device (the
  memory map shows them, named after the model); model ids count from 1 per machine.
* **Unload** of an unknown id, or twice: 145003 ACL_ERROR_GE_EXEC_MODEL_ID_INVALID (model_manager.cc:886-895).
* **Execute** (aclmdlExecute blocks: its task goes on the device's internal queue and the
  host waits for it; aclmdlExecuteAsync queues it on the caller's stream).  Checked at the
  call, in GE's order: an unknown id 145003; a stream of another context 107003 (hicann/runtime
  src/runtime/feature/model/model.cc:1356); a dynamic model whose gear was never set 145013 (the
  sandbox's choice: GE would read whatever the gear input holds); the number of input and output
  buffers, and each buffer at least the tensor's size less 64 bytes (davinci_model.cc:74,
  6562-6604; GE reports both as 500002 ACL_ERROR_GE_FAILURE, model.cpp via ACL_GET_ERRCODE_GE).
  The task reads its inputs and writes its outputs at completion, like a kernel, and the
  hazard checks see those bytes.  A buffer that is not live device memory of the model's
  device, or a model function that raises, fails the task with 507011 ACL_ERROR_RT_MODEL_EXECUTE,
  reported where a kernel's fault is.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import learner_code
from .. import trace as T
from ..errors import (ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, ACL_ERROR_GE_EXEC_MODEL_ID_INVALID,
                      ACL_ERROR_GE_FAILURE, ACL_ERROR_RT_MODEL_EXECUTE, ACL_ERROR_RT_STREAM_CONTEXT, fail)
from ..tasks import Task
from . import device_resources
from .synchronize import report_blocking

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import HostThread, Stream

TOLERANCE = 64  # bytes a buffer may fall short of its tensor (davinci_model.cc:74)


@dataclass
class Loaded:
    id: int
    model: Any             # a stand-in (sandbox/models/model.py)
    device: int
    context: object
    pid: int
    memory: tuple          # the device addresses of its weight and work memory
    batch: int | None = None   # the gear of the last execution (aclmdlGetCurOutputDims)
    hw: tuple | None = None


class Models:
    """One machine's loaded models (``Machine.feature``)."""

    def __init__(self, m):
        self.loaded: dict[int, Loaded] = {}
        self._ids = itertools.count(1)

    def get(self, model_id: int) -> Loaded:
        loaded = self.loaded.get(model_id)
        if loaded is None:
            fail(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID, f"model id {model_id} is not a loaded model")
        return loaded


def models(m) -> Models:
    return m.feature(Models)


def load(m: Machine, th: HostThread, model) -> int:
    """Load ``model`` on the thread's current device; its id."""
    ctx = m.current_context(th)
    mem = m.devices[ctx.device].memory
    taken = []
    for what, size in (("weights", model.weight_bytes), ("work", model.work_bytes)):
        if size:
            name = f"model {what} ({model.name})"
            alloc = mem.allocate(size, 0, name, th.process.pid, th.tid, True)
            m.log.append(T.MemAllocated(th.clock, ctx.device, alloc.ptr, size, alloc.reserved, name, alloc.page,
                                        th.process.pid, th.tid, th.call_seq))
            taken.append(alloc.ptr)
    state = models(m)
    model_id = next(state._ids)
    state.loaded[model_id] = Loaded(model_id, model, ctx.device, ctx, th.process.pid, tuple(taken))
    return model_id


def unload(m: Machine, th: HostThread, model_id: int) -> None:
    state = models(m)
    loaded = state.get(model_id)
    for ptr in loaded.memory:
        m.devices[loaded.device].memory.release(ptr)
        m.log.append(T.MemFreed(th.clock, loaded.device, ptr, th.call_seq))
    del state.loaded[model_id]


def execute(m: Machine, th: HostThread, model_id: int, inputs: list, outputs: list, batch, hw,
            stream: Stream | None) -> None:
    """Run the model on ``inputs`` into ``outputs`` ((address, size) pairs, in the order of its
    description) at the gear ``batch`` / ``hw``; on ``stream``, or blocking when None."""
    loaded = models(m).get(model_id)
    model = loaded.model
    if stream is not None and stream.context is not loaded.context:
        fail(ACL_ERROR_RT_STREAM_CONTEXT, f"stream {stream.stream_id} belongs to another context than model "
             f"{model_id}, loaded on device {loaded.device}")
    if model.dynamic and batch is None and hw is None:
        fail(ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID,
             f"model {model.name} has dynamic gears: set one (aclmdlSetDynamicBatchSize or SetDynamicHWSize) "
             "on the input dataset before executing")
    described = model.described_inputs()
    real = model.inputs                           # without the gear input ATC adds
    for what, given, tensors in (("input", inputs, described), ("output", outputs, model.outputs)):
        if len(given) != len(tensors):
            fail(ACL_ERROR_GE_FAILURE, f"model {model.name} has {len(tensors)} {what}s, the dataset holds "
                 f"{len(given)} buffers")
        for i, ((_, size), t) in enumerate(zip(given, tensors)):
            need = t.size(batch, hw) if t in real or what == "output" else 0
            if size + TOLERANCE < need:
                fail(ACL_ERROR_GE_FAILURE, f"{what} {i} ({t.name}) of model {model.name} needs {need} bytes, its "
                     f"buffer has {size}")
    access = []
    for (address, _), t in zip(inputs, real):
        access.extend(_access(m, address, t.size(batch, hw), False))
    for (address, _), t in zip(outputs, model.outputs):
        access.extend(_access(m, address, t.size(batch, hw), True))
    device = loaded.device
    resolved = [(m.buffer(a), a) for a, _ in inputs[:len(real)]], [(m.buffer(a), a) for a, _ in outputs]

    def effect():
        return _run(m, loaded, resolved, batch, hw)

    ns = model.time_ns(batch, hw)
    task = Task.new("model", model.name, m.devices[device].aicore, duration=m.profile.kernel_start_ns + ns,
                    effect=effect, block_dim=m.profile.ai_cores, access=access,
                    core_limit=device_resources.core_limit(m, th, device),
                    detail=(("model_id", model_id),) + ((("batch", batch),) if batch is not None else ())
                    + ((("hw", f"{hw[0]}x{hw[1]}"),) if hw is not None else ()))
    loaded.batch, loaded.hw = batch, hw
    if stream is not None:
        m.submit(th, stream, task)
        return
    task = m.submit(th, m.sync_stream(device), task)
    m.block_until(th, lambda: task.done, "aclmdlExecute", learns=(task,), on=("task", task.id))
    report_blocking(task)


def _access(m, address: int, nbytes: int, writes: bool) -> list:
    buf = m.buffer(address)
    if buf is None or not nbytes:
        return []
    return [(buf, address - buf.ptr, min(nbytes, buf.ptr + buf.size - address), writes)]


def _run(m, loaded: Loaded, resolved, batch, hw):
    """At completion: the inputs' bytes through the model's function into the outputs."""
    model = loaded.model
    ins, outs = resolved
    arrays = []
    for t, (buf, address) in zip(model.inputs, ins):
        bad = _not_device(buf, loaded.device)
        if bad:
            return ACL_ERROR_RT_MODEL_EXECUTE, f"model {model.name}: input {t.name} at {address:#x} is {bad}"
        nbytes = t.size(batch, hw)
        view = buf.dense_view(address - buf.ptr, nbytes)
        arrays.append(view.view(t.numpy).reshape(t.shape(batch, hw)).copy())
    for t, (buf, address) in zip(model.outputs, outs):
        bad = _not_device(buf, loaded.device)
        if bad:
            return ACL_ERROR_RT_MODEL_EXECUTE, f"model {model.name}: output {t.name} at {address:#x} is {bad}"
    produced: list = []
    error = learner_code.run(m, "model", 0, lambda: produced.extend(model.run(arrays, batch, hw)))
    if error:
        return ACL_ERROR_RT_MODEL_EXECUTE, f"model {model.name} raised {error}"
    for array, (buf, address) in zip(produced, outs):
        raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        buf.dense_view(address - buf.ptr, raw.size)[:] = raw
    return 0


def _not_device(buf, device: int) -> str:
    if buf is None or getattr(buf, "freed", False):
        return "not live memory"
    if buf.kind != "device" or buf.device != device:
        return f"not device {device}'s memory"
    return ""
