"""Offline models (core/features/models.py, acl/mdl.py, acl/_model_io.py, sandbox/models): stand-ins
load, describe themselves, run as one AI Core task each, with the graph engine's codes."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T
from sandbox.models import Model, Tensor, zoo
from sandbox.models.zoo import RESNET50_310P3_FPS, resnet50_ns

from conftest import dev_alloc, pinned

H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
GE_ID, GE_FAILURE, GE_GEAR = 145003, 500002, 145013


def _load(model: Model, tmp_path, name="m.om") -> tuple[int, int]:
    """Load ``model`` from a file; (model id, description handle)."""
    model_id, ret = acl.mdl.load_from_file(model.save(tmp_path / name))
    assert ret == 0, acl.get_recent_err_msg()
    desc = acl.mdl.create_desc()
    assert acl.mdl.get_desc(desc, model_id) == 0
    return model_id, desc


def _dataset(*pairs) -> int:
    """A dataset of data buffers over (address, size) pairs."""
    ds = acl.mdl.create_dataset()
    for address, size in pairs:
        _, ret = acl.mdl.add_dataset_buffer(ds, acl.create_data_buffer(address, size))
        assert ret == 0
    return ds


def _io(desc: int) -> tuple[list, list]:
    """Device buffers sized as the description says, for every input and output."""
    ins = [
        (dev_alloc(n), n)
        for n in map(lambda i: acl.mdl.get_input_size_by_index(desc, i), range(acl.mdl.get_num_inputs(desc)))
    ]
    outs = [
        (dev_alloc(n), n)
        for n in map(lambda i: acl.mdl.get_output_size_by_index(desc, i), range(acl.mdl.get_num_outputs(desc)))
    ]
    return ins, outs


def _upload(address: int, array: np.ndarray) -> None:
    host, view = pinned(array.nbytes)
    view[:] = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
    assert acl.rt.memcpy(address, array.nbytes, host, array.nbytes, H2D) == 0


def _download(address: int, shape, dtype) -> np.ndarray:
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    host, _ = pinned(nbytes)
    assert acl.rt.memcpy(host, nbytes, address, nbytes, D2H) == 0
    return acl.util.ptr_to_numpy(host, shape, dtype).copy()


MLP = zoo("tiny_mlp")


def test_a_stand_in_file_loads_and_its_description_is_what_the_model_says(device0, tmp_path):
    model_id, desc = _load(zoo("resnet50"), tmp_path)
    assert model_id == 1 and (acl.mdl.get_num_inputs(desc), acl.mdl.get_num_outputs(desc)) == (1, 1)
    assert acl.mdl.get_input_dims(desc, 0) == ({"name": "data", "dimCount": 4, "dims": [1, 3, 224, 224]}, 0)
    assert acl.mdl.get_output_dims(desc, 0) == ({"name": "prob", "dimCount": 2, "dims": [1, 1000]}, 0)
    assert acl.mdl.get_input_size_by_index(desc, 0) == 3 * 224 * 224 * 2  # float16
    assert (acl.mdl.get_input_data_type(desc, 0), acl.mdl.get_input_format(desc, 0)) == (acl.ACL_FLOAT16, 0)
    assert (acl.mdl.get_output_data_type(desc, 0), acl.mdl.get_output_name_by_index(desc, 0)) == (acl.ACL_FLOAT, "prob")
    assert acl.mdl.get_input_index_by_name(desc, "data") == (0, 0)
    assert acl.mdl.query_size(str(tmp_path / "m.om")) == (4 * 64 * 112 * 112 * 2, 25_557_032 * 2, 0)


def test_out_of_range_queries_return_what_the_runtime_returns_and_set_the_message(device0, tmp_path):
    _, desc = _load(MLP, tmp_path)
    assert acl.mdl.get_input_size_by_index(desc, 5) == 0 and "out of range" in acl.get_recent_err_msg()
    assert acl.mdl.get_input_name_by_index(desc, 5) == ""
    assert acl.mdl.get_input_format(desc, 5) == -1 and acl.mdl.get_output_data_type(desc, 5) == -1
    assert acl.mdl.get_input_dims(desc, 5) == ({}, 100000)
    assert acl.mdl.get_input_index_by_name(desc, acl.mdl.ACL_DYNAMIC_TENSOR_NAME) == (0, 100000)  # a static model
    assert acl.mdl.get_dynamic_batch(desc) == ({"batchCount": 0, "batch": []}, 0)
    assert acl.mdl.get_num_inputs(0) == 0 and acl.mdl.destroy_desc(0) == 100000
    assert acl.mdl.get_dataset_num_buffers(0) == 0 and acl.mdl.get_dataset_buffer(acl.mdl.create_dataset(), 0) == 0


def test_load_needs_acl_init_and_a_current_context_and_a_readable_stand_in(tmp_path):
    sandbox.configure("ascend910b")
    path = MLP.save(tmp_path / "mlp.om")
    assert acl.mdl.load_from_file(path) == (0, 145001)  # ACL_ERROR_GE_EXEC_NOT_INIT
    acl.init()
    assert acl.mdl.load_from_file(path) == (0, acl.ACL_ERROR_RT_CONTEXT_NULL)
    acl.rt.set_device(0)
    assert acl.mdl.load_from_file(str(tmp_path / "none.om")) == (0, 145002)
    (tmp_path / "tiny.om").write_bytes(b"ab")
    assert acl.mdl.load_from_file(str(tmp_path / "tiny.om")) == (0, 145006)
    (tmp_path / "real.om").write_bytes(bytes(512))
    assert acl.mdl.load_from_file(str(tmp_path / "real.om")) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert "sandbox.models" in acl.get_recent_err_msg()
    assert acl.mdl.load_from_file(path) == (1, 0)  # nothing before changed anything


def test_load_from_mem_reads_the_stand_in_from_host_memory(device0):
    data = MLP.to_bytes()
    assert acl.mdl.load_from_mem(acl.util.bytes_to_ptr(data), len(data)) == (1, 0)
    assert acl.mdl.load_from_mem(0, len(data)) == (0, 100000)
    assert acl.mdl.query_size_from_mem(acl.util.bytes_to_ptr(data), len(data)) == (0, MLP.weight_bytes, 0)


def test_a_load_takes_the_models_device_memory_and_unload_gives_it_back(device0, tmp_path):
    free_before, _, _ = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    model_id, _ = _load(zoo("resnet50"), tmp_path)
    free_loaded, _, _ = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    assert free_before - free_loaded >= 25_557_032 * 2
    names = [r.policy for r in sandbox.trace().records if isinstance(r, T.MemAllocated)]
    assert "model weights (resnet50)" in names and "model work (resnet50)" in names
    assert acl.mdl.unload(model_id) == 0
    assert acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] == free_before
    assert acl.mdl.unload(model_id) == GE_ID and acl.mdl.unload(99) == GE_ID


def test_execute_blocks_until_the_outputs_hold_the_models_function_of_the_inputs(device0, tmp_path):
    model_id, desc = _load(MLP, tmp_path)
    (xin, xn), (yout, yn) = (p for pairs in _io(desc) for p in pairs)
    x = np.random.default_rng(3).standard_normal((1, 16)).astype(np.float32)
    _upload(xin, x)
    t0 = sandbox.now()
    assert acl.mdl.execute(model_id, _dataset((xin, xn)), _dataset((yout, yn))) == 0
    assert sandbox.now() - t0 >= 12_250  # the host waited for the model's time
    assert np.allclose(_download(yout, (1, 4), np.float32), MLP.fn(x))
    (task,) = [r for r in sandbox.trace().records if isinstance(r, T.TaskSubmitted) and r.kind == "model"]
    assert task.name == "tiny_mlp" and task.engine == "AI Core"


def test_execute_async_lands_the_outputs_when_its_task_completes_and_an_early_read_is_a_hazard(device0, tmp_path):
    model_id, desc = _load(MLP, tmp_path)
    (xin, xn), (yout, yn) = (p for pairs in _io(desc) for p in pairs)
    _upload(xin, np.ones((1, 16), np.float32))
    host, _ = pinned(yn)
    assert acl.mdl.execute_async(model_id, _dataset((xin, xn)), _dataset((yout, yn)), device0) == 0
    assert acl.rt.memcpy_async(host, yn, yout, yn, D2H, device0) == 0
    with pytest.warns(sandbox.HazardWarning):
        early = acl.util.ptr_to_numpy(host, (1, 4), np.float32).copy()  # before the stream is synchronised
    assert not early.any()
    assert acl.rt.synchronize_stream(device0) == 0
    assert np.allclose(acl.util.ptr_to_numpy(host, (1, 4), np.float32), MLP.fn(np.ones((1, 16), np.float32)))


def test_a_model_reading_what_another_stream_writes_without_an_event_is_a_stream_race(device0, tmp_path):
    model_id, desc = _load(MLP, tmp_path)
    (xin, xn), (yout, yn) = (p for pairs in _io(desc) for p in pairs)
    other, _ = acl.rt.create_stream()
    acl.rt.memset_async(xin, xn, 0, xn, other)
    with pytest.warns(sandbox.HazardWarning):
        acl.mdl.execute_async(model_id, _dataset((xin, xn)), _dataset((yout, yn)), device0)
    assert [h.kind for h in sandbox.hazards()] == ["stream_race"]


def test_an_execution_takes_the_published_time_of_its_batch():
    assert resnet50_ns(1) == round(1 / RESNET50_310P3_FPS[1] * 1e9) == 664_929
    assert resnet50_ns(64) == round(64 / 3940.45 * 1e9)
    assert resnet50_ns(3) == round((2 / 2272.42 + 4 / 3163.26) / 2 * 1e9)  # between the published batches
    assert resnet50_ns(128) == round(128 / 3940.45 * 1e9)
    per_image = [resnet50_ns(b) / b for b in sorted(RESNET50_310P3_FPS)]
    assert per_image == sorted(per_image, reverse=True)  # batching buys throughput


def test_execute_checks_the_datasets_then_the_model_then_the_buffers(device0, tmp_path):
    wide = Model("wide", lambda x: x, [Tensor("x", (1, 64))], [Tensor("y", (1, 64))], ns=1_000)
    model_id, desc = _load(wide, tmp_path)
    (xin, xn), (yout, yn) = (p for pairs in _io(desc) for p in pairs)
    good_in, good_out = _dataset((xin, xn)), _dataset((yout, yn))
    assert acl.mdl.execute(99, 0, good_out) == 100000  # a null dataset before the id
    assert acl.mdl.execute(99, good_in, good_out) == GE_ID
    assert acl.mdl.execute(model_id, _dataset((xin, xn), (xin, xn)), good_out) == GE_FAILURE  # two inputs
    assert acl.mdl.execute(model_id, _dataset((xin, xn - 65)), good_out) == GE_FAILURE
    assert acl.mdl.execute(model_id, _dataset((xin, xn - 64)), good_out) == 0  # 64 bytes short are tolerated
    other = acl.rt.create_context(0)[0]
    s_other, _ = acl.rt.create_stream()
    assert acl.mdl.execute_async(model_id, good_in, good_out, s_other) == acl.ACL_ERROR_RT_STREAM_CONTEXT
    assert other


def test_a_model_function_that_raises_fails_its_task_with_model_execute(device0, tmp_path):
    def broken(x):
        raise ValueError("no")

    bad = Model("broken", broken, [Tensor("x", (1, 4))], [Tensor("y", (1, 4))], ns=1_000)
    model_id, desc = _load(bad, tmp_path)
    (xin, xn), (yout, yn) = (p for pairs in _io(desc) for p in pairs)
    assert acl.mdl.execute(model_id, _dataset((xin, xn)), _dataset((yout, yn))) == acl.ACL_ERROR_RT_MODEL_EXECUTE
    assert "broken raised ValueError: no" in acl.get_recent_err_msg()


def test_a_dynamic_batch_model_runs_at_the_gear_set_on_its_input_dataset(device0, tmp_path):
    model_id, desc = _load(zoo("tiny_mlp", dynamic_batch=(1, 4, 8)), tmp_path)
    assert acl.mdl.get_dynamic_batch(desc) == ({"batchCount": 3, "batch": [1, 4, 8]}, 0)
    gear, ret = acl.mdl.get_input_index_by_name(desc, acl.mdl.ACL_DYNAMIC_TENSOR_NAME)
    assert (gear, ret) == (1, 0) and acl.mdl.get_num_inputs(desc) == 2
    assert acl.mdl.get_input_dims(desc, 0)[0]["dims"] == [-1, 16]
    assert acl.mdl.get_input_size_by_index(desc, 0) == 8 * 16 * 4  # the largest gear
    ins, outs = _io(desc)
    x = np.arange(4 * 16, dtype=np.float32).reshape(4, 16) / 64
    _upload(ins[0][0], x)
    given, taken = _dataset(*ins), _dataset(*outs)
    assert acl.mdl.execute(model_id, given, taken) == GE_GEAR  # no gear set yet
    assert acl.mdl.set_dynamic_batch_size(model_id, given, gear, 0) == 100000
    assert acl.mdl.set_dynamic_batch_size(model_id, given, gear, 3) == GE_GEAR
    assert acl.mdl.set_dynamic_batch_size(model_id, given, 7, 4) == 100000
    assert acl.mdl.set_dynamic_batch_size(model_id, given, gear, 4) == 0
    t0 = sandbox.now()
    assert acl.mdl.execute(model_id, given, taken) == 0
    assert sandbox.now() - t0 >= 12_000 + 250 * 4
    assert np.allclose(_download(outs[0][0], (4, 4), np.float32), MLP.fn(x))
    assert acl.mdl.get_cur_output_dims(desc, 0) == ({"name": "y", "dimCount": 2, "dims": [4, 4]}, 0)
    (task,) = [r for r in sandbox.trace().records if isinstance(r, T.TaskSubmitted) and r.kind == "model"]
    assert dict(task.detail)["batch"] == 4


def test_a_static_model_refuses_a_dynamic_batch_and_a_small_gear_buffer_is_145012(device0, tmp_path):
    model_id, desc = _load(MLP, tmp_path)
    ((xin, xn),), _ = _io(desc)
    assert acl.mdl.set_dynamic_batch_size(model_id, _dataset((xin, xn)), 0, 1) == GE_GEAR
    dyn_id, dyn_desc = _load(zoo("tiny_mlp", dynamic_batch=(1, 2)), tmp_path, "dyn.om")
    small = dev_alloc(2)
    assert acl.mdl.set_dynamic_batch_size(dyn_id, _dataset((xin, xn), (small, 2)), 1, 1) == 145012


def test_a_dynamic_image_size_model_runs_at_its_hw_gear(device0, tmp_path):
    model = Model(
        "pool",
        lambda img: img.mean(axis=(2, 3)),
        [Tensor("img", (1, 3, -1, -1), acl.ACL_FLOAT, 0)],
        [Tensor("mean", (1, 3))],
        ns=5_000,
        dynamic_hw=((8, 8), (16, 32)),
    )
    model_id, desc = _load(model, tmp_path)
    assert acl.mdl.get_dynamic_hw(desc, 0) == ({"hwCount": 2, "hw": [[8, 8], [16, 32]]}, 0)
    ins, outs = _io(desc)
    img = np.arange(3 * 16 * 32, dtype=np.float32).reshape(1, 3, 16, 32)
    _upload(ins[0][0], img)
    given = _dataset(*ins)
    assert acl.mdl.set_dynamic_hw_size(model_id, given, 1, 16, 16) == GE_GEAR
    assert acl.mdl.set_dynamic_hw_size(model_id, given, 1, 16, 32) == 0
    assert acl.mdl.execute(model_id, given, _dataset(*outs)) == 0
    assert np.allclose(_download(outs[0][0], (1, 3), np.float32), img.mean(axis=(2, 3)))


def test_a_model_of_ones_own_carries_its_code_into_a_fresh_process(tmp_path):
    scale = 3.0
    model = Model("triple", lambda x: scale * x, [Tensor("x", (2, 2))], [Tensor("y", (2, 2))], ns=2_000)
    path = model.save(tmp_path / "triple.om")
    program = f"""
import numpy as np, sandbox
from sandbox import acl
from sandbox.models import from_bytes
m = from_bytes(open({str(path)!r}, "rb").read())
print(m.name, m.run([np.ones((2, 2), np.float32)], None, None)[0].tolist(), m.time_ns(None, None))
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "triple [[3.0, 3.0], [3.0, 3.0]] 2000", done.stderr


def test_the_zoo_has_resnet50_and_tiny_mlp_and_a_zoo_file_carries_no_code(tmp_path):
    assert {"resnet50", "tiny_mlp"} <= set(sandbox.models.ZOO)
    for name in ("resnet50", "tiny_mlp"):
        data = zoo(name).to_bytes()
        assert len(data) < 2_000 and b"cloudpickle" not in data
        assert sandbox.models.from_bytes(data).describe() == zoo(name).describe()
    assert sandbox.models.from_bytes(zoo("resnet50", batch=8).to_bytes()).inputs[0].dims == (8, 3, 224, 224)
    with pytest.raises(sandbox.models.ModelError, match="no zoo model"):
        zoo("vgg")


def test_the_same_inference_program_gives_the_same_trace_in_two_processes(tmp_path):
    zoo("resnet50").save(tmp_path / "r.om")
    program = f"""
import numpy as np, sandbox
from sandbox import acl
acl.init(); acl.rt.set_device(0)
mid, _ = acl.mdl.load_from_file({str(tmp_path / "r.om")!r})
desc = acl.mdl.create_desc(); acl.mdl.get_desc(desc, mid)
n_in, n_out = acl.mdl.get_input_size_by_index(desc, 0), acl.mdl.get_output_size_by_index(desc, 0)
din, _ = acl.rt.malloc(n_in, 0); dout, _ = acl.rt.malloc(n_out, 0)
ds_in = acl.mdl.create_dataset(); acl.mdl.add_dataset_buffer(ds_in, acl.create_data_buffer(din, n_in))
ds_out = acl.mdl.create_dataset(); acl.mdl.add_dataset_buffer(ds_out, acl.create_data_buffer(dout, n_out))
s, _ = acl.rt.create_stream()
for _ in range(3):
    acl.mdl.execute_async(mid, ds_in, ds_out, s)
acl.rt.synchronize_stream(s)
print(sandbox.summary())
print(len(sandbox.trace()), sandbox.now())
"""
    runs = [
        subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, env=env)
        for env in ({"PYTHONHASHSEED": "1"}, {"PYTHONHASHSEED": "2"})
    ]
    assert runs[0].returncode == 0, runs[0].stderr
    assert runs[0].stdout == runs[1].stdout and "3 model" in runs[0].stdout
