"""Programs written for pyACL on a board run unchanged on the sandbox installed as ``acl``.

Each program below is written as the official pyACL samples are: it imports ``acl``, defines the
constants it uses (pyACL defines none), checks every return code, reads results through
``acl.util.bytes_to_ptr``.  It runs in a fresh interpreter with ``sys.modules["acl"]`` set to
the sandbox's facade, nothing else changed, and must end as it would on a board: to completion,
or at its first call the sandbox does not model, which returns 207000 in pyACL's shape.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import sandbox

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AS_ACL = "import sys, sandbox.acl; sys.modules['acl'] = sandbox.acl\n"

MEMORY = """
import numpy as np
import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_DEVICE, ACL_HOST = 0, 1


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError(f"{what} failed, ret={ret}")


run_mode, ret = acl.rt.get_run_mode()  # a helper library asks at import time, before acl.init
check(ret, "get_run_mode")
print("run mode:", "host" if run_mode == ACL_HOST else "device")
check(acl.init(), "init")
check(acl.rt.set_device(0), "set_device")
context, ret = acl.rt.create_context(0)
check(ret, "create_context")
stream, ret = acl.rt.create_stream()
check(ret, "create_stream")

data = np.arange(256, dtype=np.int32)
size = data.nbytes
host_in = data.tobytes()
dev, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
check(ret, "malloc")
check(acl.rt.memcpy(dev, size, acl.util.bytes_to_ptr(host_in), size, ACL_MEMCPY_HOST_TO_DEVICE), "memcpy in")
host_out = bytes(size)
check(acl.rt.memcpy(acl.util.bytes_to_ptr(host_out), size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST), "memcpy out")
back = np.frombuffer(host_out, dtype=np.int32)
print("round trip equal:", bool((back == data).all()), back[:4].tolist())

buf = acl.create_data_buffer(dev, size)
print("data buffer:", acl.get_data_buffer_addr(buf) == dev, acl.get_data_buffer_size_v2(buf) == size)
check(acl.destroy_data_buffer(buf), "destroy_data_buffer")
acl.app_log(3, "memory sample done")

check(acl.rt.free(dev), "free")
check(acl.rt.destroy_stream(stream), "destroy_stream")
check(acl.rt.destroy_context(context), "destroy_context")
check(acl.rt.reset_device(0), "reset_device")
check(acl.finalize(), "finalize")
print("done")
"""

INFERENCE = """
import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0


class Model:
    def __init__(self, path):
        self.model_id, ret = acl.mdl.load_from_file(path)
        if ret != ACL_SUCCESS:
            print("load_from_file failed, ret =", ret, "id =", self.model_id)
            self.desc = None
            return
        self.desc = acl.mdl.create_desc()
        ret = acl.mdl.get_desc(self.desc, self.model_id)
        print("model", self.model_id, "desc", ret, "inputs", acl.mdl.get_num_inputs(self.desc),
              "outputs", acl.mdl.get_num_outputs(self.desc))
        dims, ret = acl.mdl.get_input_dims(self.desc, 0)
        print(acl.mdl.get_input_name_by_index(self.desc, 0), dims["dims"], acl.mdl.get_input_size_by_index(self.desc, 0))


acl.init()
acl.rt.set_device(0)
model = Model("./model/resnet50.om")
if model.desc is None:
    print("message:", acl.get_recent_err_msg().splitlines()[0][:60])
dvpp, ret = acl.media.dvpp_malloc(1 << 20)
print("dvpp_malloc:", ret, dvpp != 0)
print("dvpp_free:", acl.media.dvpp_free(dvpp))
channel = acl.media.dvpp_create_channel_desc()
print("dvpp channel desc:", channel)
acl.rt.reset_device(0)
acl.finalize()
"""
DVPP = ["dvpp_malloc: 0 True", "dvpp_free: 0", "dvpp channel desc: 0"]

# the flow of the public asynchronous ResNet-50 sample, in our words: a pool of input and output
# datasets, a report thread started with acl.util.start_thread, execute_async and a callback per
# batch that reads the outputs back, then the release in reverse order
CLASSIFY_ASYNC = """
import numpy as np
import acl

ACL_SUCCESS, ACL_MEM_MALLOC_HUGE_FIRST, ACL_CALLBACK_BLOCK = 0, 0, 1
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
POOL, RUNS = 4, 8


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError(f"{what} failed, ret={ret}")


check(acl.init(), "init")
check(acl.rt.set_device(0), "set_device")
context, ret = acl.rt.create_context(0)
check(ret, "create_context")
stream, ret = acl.rt.create_stream()
check(ret, "create_stream")
model_id, ret = acl.mdl.load_from_file("./model/resnet50.om")
check(ret, "load_from_file")
desc = acl.mdl.create_desc()
check(acl.mdl.get_desc(desc, model_id), "get_desc")
in_size = acl.mdl.get_input_size_by_index(desc, 0)
out_size = acl.mdl.get_output_size_by_index(desc, 0)

pool = []
rng = np.random.default_rng(7)
for i in range(POOL):
    image = rng.random((1, 3, 224, 224)).astype(np.float16).tobytes()
    dev_in, ret = acl.rt.malloc(in_size, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "malloc")
    check(acl.rt.memcpy(dev_in, in_size, acl.util.bytes_to_ptr(image), in_size, ACL_MEMCPY_HOST_TO_DEVICE), "memcpy")
    dev_out, ret = acl.rt.malloc(out_size, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "malloc")
    datasets = []
    for ptr, size in ((dev_in, in_size), (dev_out, out_size)):
        dataset = acl.mdl.create_dataset()
        _, ret = acl.mdl.add_dataset_buffer(dataset, acl.create_data_buffer(ptr, size))
        check(ret, "add_dataset_buffer")
        datasets.append(dataset)
    pool.append(datasets)

done = []
stop = [False]


def report_loop(args):
    ctx, timeout = args
    acl.rt.set_context(ctx)
    while not stop[0]:
        acl.rt.process_report(timeout)


def on_result(output_dataset):
    buffer = acl.mdl.get_dataset_buffer(output_dataset, 0)
    ptr, size = acl.get_data_buffer_addr(buffer), acl.get_data_buffer_size_v2(buffer)
    host, ret = acl.rt.malloc_host(size)
    check(ret, "malloc_host")
    check(acl.rt.memcpy(host, size, ptr, size, ACL_MEMCPY_DEVICE_TO_HOST), "memcpy back")
    dims, ret = acl.mdl.get_cur_output_dims(desc, 0)
    prob = np.frombuffer(acl.util.ptr_to_bytes(host, size), dtype=np.float32).reshape(dims["dims"])
    done.append((int(prob.argmax()), round(float(prob.sum()), 3)))
    acl.rt.free_host(host)


tid, ret = acl.util.start_thread(report_loop, [context, 50])
check(ret, "start_thread")
check(acl.rt.subscribe_report(tid, stream), "subscribe_report")
for run in range(RUNS):
    inputs, outputs = pool[run % POOL]
    check(acl.mdl.execute_async(model_id, inputs, outputs, stream), "execute_async")
    check(acl.rt.launch_callback(on_result, outputs, ACL_CALLBACK_BLOCK, stream), "launch_callback")
check(acl.rt.synchronize_stream(stream), "synchronize_stream")
stop[0] = True
check(acl.rt.unsubscribe_report(tid, stream), "unsubscribe_report")
check(acl.util.stop_thread(tid), "stop_thread")
print("results:", len(done), "sums:", sorted({s for _, s in done}), "same per input:", done[:POOL] == done[POOL:])
check(acl.mdl.unload(model_id), "unload")
check(acl.mdl.destroy_desc(desc), "destroy_desc")
for inputs, outputs in pool:
    for dataset in (inputs, outputs):
        buffer = acl.mdl.get_dataset_buffer(dataset, 0)
        check(acl.rt.free(acl.get_data_buffer_addr(buffer)), "free")
        check(acl.destroy_data_buffer(buffer), "destroy_data_buffer")
        check(acl.mdl.destroy_dataset(dataset), "destroy_dataset")
check(acl.rt.destroy_stream(stream), "destroy_stream")
check(acl.rt.destroy_context(context), "destroy_context")
check(acl.rt.reset_device(0), "reset_device")
check(acl.finalize(), "finalize")
print("released")
"""


def _run(program: str, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", AS_ACL + textwrap.dedent(program)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_a_memory_program_for_a_board_runs_unchanged_and_reads_its_results_through_bytes_to_ptr():
    done = _run(MEMORY)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "run mode: host",
        "round trip equal: True [0, 1, 2, 3]",
        "data buffer: True True",
        "done",
    ]
    assert "memory sample done" in done.stderr and "Traceback" not in done.stderr  # the app log's line


def test_an_inference_program_finds_no_model_file_as_on_a_board_and_goes_on_to_its_first_call_not_modelled(tmp_path):
    done = _run(INFERENCE, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "load_from_file failed, ret = 145002 id = 0",  # ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID
        "message: aclmdlLoadFromFile failed: model path './model/resnet50.om' ",
        *DVPP,
    ]
    assert done.stderr == ""


def test_an_inference_program_given_a_compiled_om_is_told_how_to_make_a_stand_in(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "resnet50.om").write_bytes(bytes(range(256)) * 4)  # not a stand-in
    done = _run(INFERENCE, tmp_path)
    assert done.stdout.splitlines()[0] == "load_from_file failed, ret = 207000 id = 0"
    assert done.stdout.splitlines()[1:] == [
        "message: aclmdlLoadFromFile failed: model file './model/resnet50.om' ",
        *DVPP,
    ]


def test_an_inference_program_runs_a_stand_in_at_its_model_path_to_its_first_call_not_modelled(tmp_path):
    from sandbox.models import zoo

    (tmp_path / "model").mkdir()
    zoo("resnet50").save(tmp_path / "model" / "resnet50.om")
    done = _run(INFERENCE, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "model 1 desc 0 inputs 1 outputs 1",
        "data [1, 3, 224, 224] 301056",  # the pyACL ResNet-50 sample's input: float16 NCHW
        *DVPP,
    ]


def test_an_asynchronous_classifier_runs_a_stand_in_with_callbacks_to_its_release(tmp_path):
    from sandbox.models import zoo

    (tmp_path / "model").mkdir()
    zoo("resnet50").save(tmp_path / "model" / "resnet50.om")
    done = _run(CLASSIFY_ASYNC, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["results: 8 sums: [1.0] same per input: True", "released"]


@pytest.mark.parametrize("program", [MEMORY, INFERENCE, CLASSIFY_ASYNC], ids=["memory", "inference", "classify"])
def test_a_program_for_a_board_uses_no_name_beyond_pyacl(program):
    assert sandbox.not_in_pyacl(program) == []
