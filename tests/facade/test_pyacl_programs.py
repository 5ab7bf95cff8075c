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


@pytest.mark.parametrize("program", [MEMORY, INFERENCE], ids=["memory", "inference"])
def test_a_program_for_a_board_uses_no_name_beyond_pyacl(program):
    assert sandbox.not_in_pyacl(program) == []
