"""Model subscription (core/features/subscription.py, acl/prof.py): a subscribed model's executions write a record
per operator into the program's pipe, read back with the aclprofGetOp* calls; the codes of hicann/runtime's msprof."""

from __future__ import annotations

import errno
import os
import struct
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T
from sandbox.core.features import subscription
from sandbox.models import zoo

from conftest import dev_alloc, pinned

ROOT = Path(__file__).resolve().parents[2]
INVALID, MODEL_ID, REPEAT, CONFLICT = 100000, 100011, 148046, 148047
SIZE = 80  # the runtime's ProfOpDesc


@pytest.fixture
def pipe():
    r, w = os.pipe()
    yield r, w
    for fd in (r, w):
        try:
            os.close(fd)
        except OSError:
            pass  # closed by the runtime's unsubscribe, or the test


def load(tmp_path, name="tiny_mlp") -> tuple[int, int, int]:
    """Load tiny_mlp; (model id, input dataset, output dataset) over device buffers."""
    model_id, ret = acl.mdl.load_from_file(zoo("tiny_mlp").save(tmp_path / f"{name}.om"))
    assert ret == 0, acl.get_recent_err_msg()
    desc = acl.mdl.create_desc()
    assert acl.mdl.get_desc(desc, model_id) == 0
    datasets = []
    for sizes in (
        [acl.mdl.get_input_size_by_index(desc, i) for i in range(acl.mdl.get_num_inputs(desc))],
        [acl.mdl.get_output_size_by_index(desc, i) for i in range(acl.mdl.get_num_outputs(desc))],
    ):
        ds = acl.mdl.create_dataset()
        for size in sizes:
            acl.mdl.add_dataset_buffer(ds, acl.create_data_buffer(dev_alloc(size), size))
        datasets.append(ds)
    return model_id, datasets[0], datasets[1]


def subscribe(model_id: int, w: int, time_info: int = 1, metrics: int = acl.ACL_AICORE_NONE) -> int:
    config = acl.prof.create_subscribe_config(time_info, metrics, w)
    assert config != 0
    assert acl.prof.model_subscribe(model_id, config) == 0, acl.get_recent_err_msg()
    return config


def read_all(r: int) -> bytes:
    """Everything the pipe holds until its write end is closed."""
    out = b""
    while data := os.read(r, 4096):
        out += data
    return out


def pending(r: int) -> bytes:
    """What the pipe holds now, without waiting."""
    os.set_blocking(r, False)
    try:
        return os.read(r, 1 << 20)
    except BlockingIOError:
        return b""
    finally:
        os.set_blocking(r, True)


def fields(data: bytes, i: int = 0) -> tuple:
    """(model id, op type, op name, start, end, duration) of record ``i`` through the readers."""
    ptr, n = acl.util.bytes_to_ptr(data), len(data)
    op_type, ret1 = acl.prof.get_op_type_v2(ptr, n, i)
    op_name, ret2 = acl.prof.get_op_name_v2(ptr, n, i)
    assert ret1 == ret2 == 0, acl.get_recent_err_msg()
    return (
        acl.prof.get_model_id(ptr, n, i),
        op_type,
        op_name,
        acl.prof.get_op_start(ptr, n, i),
        acl.prof.get_op_end(ptr, n, i),
        acl.prof.get_op_duration(ptr, n, i),
    )


def model_tasks() -> list[tuple[int, int]]:
    """(start, end) of each model task, from the trace."""
    log = sandbox.trace()
    started = {r.task: r.t for r in log.of(T.TaskStarted)}
    models = {r.task for r in log.of(T.TaskSubmitted) if r.kind == "model"}
    return [(started[r.task], r.t) for r in log.of(T.TaskFinished) if r.task in models]


# -- the records ---------------------------------------------------------------------------------------
def test_each_execution_of_a_subscribed_model_writes_one_record_with_its_times_at_its_end(device0, tmp_path, pipe):
    r, w = pipe
    model_id, ins, outs = load(tmp_path)
    subscribe(model_id, w)
    for _ in range(3):
        assert acl.mdl.execute(model_id, ins, outs) == 0
        assert len(pending(r)) == SIZE  # written by the time the blocking execute returns
    assert acl.mdl.execute_async(model_id, ins, outs, device0) == 0
    assert pending(r) == b""  # not before the execution's end
    assert acl.rt.synchronize_stream(device0) == 0
    data = pending(r)
    times = model_tasks()
    assert len(data) == SIZE and len(times) == 4
    start, end = times[-1]
    assert fields(data) == (model_id, "tiny_mlp", "tiny_mlp", start, end, end - start)


def test_a_record_is_the_runtime_s_80_byte_prof_op_desc_with_its_signature(device0, tmp_path, pipe):
    r, w = pipe
    assert acl.prof.get_op_desc_size() == (SIZE, 0)
    model_id, ins, outs = load(tmp_path)
    subscribe(model_id, w)
    assert acl.mdl.execute(model_id, ins, outs) == 0
    data = pending(r)
    sig, mid, flag, tid, index, duration, start, end, aicore, cube, vector, device = subscription.RECORD.unpack(data)
    assert sig == subscription.signature(data[4:]) and struct.calcsize("<IIIIQQQQQQQI4x") == SIZE
    ((task_start, task_end),) = model_tasks()
    assert (mid, flag, index, device, cube, vector) == (model_id, acl.ACL_SUBSCRIBE_OP, 1, 0, 0, 0)
    assert (start, end, duration, aicore) == (task_start, task_end, task_end - task_start, task_end - task_start)
    assert tid == next(c.tid for c in sandbox.trace().of(T.ApiCall) if c.name == "aclmdlExecute")


def test_with_time_info_off_the_records_carry_no_times(device0, tmp_path, pipe):
    r, w = pipe
    model_id, ins, outs = load(tmp_path)
    subscribe(model_id, w, time_info=0, metrics=acl.ACL_AICORE_PIPE_UTILIZATION)
    assert acl.mdl.execute(model_id, ins, outs) == 0
    assert fields(pending(r))[3:] == (0, 0, 0)


def test_a_failed_execution_writes_no_record(device0, tmp_path, pipe):
    r, w = pipe
    model_id, _, outs = load(tmp_path)
    host, _ = pinned(64)  # not device memory: the execution fails at its end with 507011
    ins = acl.mdl.create_dataset()
    acl.mdl.add_dataset_buffer(ins, acl.create_data_buffer(host, 64))
    subscribe(model_id, w)
    assert acl.mdl.execute(model_id, ins, outs) == acl.ACL_ERROR_RT_MODEL_EXECUTE
    assert pending(r) == b""


def test_only_the_subscribed_model_s_executions_write(device0, tmp_path, pipe):
    r, w = pipe
    a, ins, outs = load(tmp_path, "a")
    b, _, _ = load(tmp_path, "b")
    subscribe(b, w)
    assert acl.mdl.execute(a, ins, outs) == 0
    assert pending(r) == b""
    assert acl.mdl.execute(b, ins, outs) == 0
    assert fields(pending(r))[0] == b


# -- unsubscribe ---------------------------------------------------------------------------------------
def test_unsubscribe_stops_the_records_and_closes_the_fd_so_the_reader_reads_to_the_end(device0, tmp_path, pipe):
    r, w = pipe
    model_id, ins, outs = load(tmp_path)
    subscribe(model_id, w)
    assert acl.mdl.execute(model_id, ins, outs) == 0
    assert acl.prof.model_unsubscribe(model_id) == 0
    assert acl.mdl.execute(model_id, ins, outs) == 0
    assert len(read_all(r)) == SIZE  # one record, then the end of the pipe
    with pytest.raises(OSError):
        os.fstat(w)  # the runtime closed the write end (prof_acl_mgr.cpp:2759-2818)


def test_the_fd_stays_open_while_another_subscription_writes_into_it(device0, tmp_path, pipe):
    r, w = pipe
    a, ins, outs = load(tmp_path, "a")
    b, _, _ = load(tmp_path, "b")
    config = subscribe(a, w)
    assert acl.prof.model_subscribe(b, config) == 0
    assert acl.prof.model_un_subscribe(a) == 0  # the binding's older spelling
    os.fstat(w)
    assert acl.mdl.execute(b, ins, outs) == 0
    assert acl.prof.model_unsubscribe(b) == 0
    assert [fields(read_all(r))[0]] == [b]


def test_a_model_subscribed_again_after_unsubscribe_writes_again(device0, tmp_path):
    model_id, ins, outs = load(tmp_path)
    for _ in range(2):
        r, w = os.pipe()
        subscribe(model_id, w)
        assert acl.mdl.execute(model_id, ins, outs) == 0
        assert acl.prof.model_unsubscribe(model_id) == 0
        assert len(read_all(r)) == SIZE
        os.close(r)


# -- the codes -----------------------------------------------------------------------------------------
def test_a_model_not_loaded_is_100011_for_subscribe_and_unsubscribe(device0, pipe):
    config = acl.prof.create_subscribe_config(1, acl.ACL_AICORE_NONE, pipe[1])
    assert acl.prof.model_subscribe(7, config) == MODEL_ID
    assert "not a model this process has loaded" in acl.get_recent_err_msg()
    assert acl.prof.model_unsubscribe(7) == MODEL_ID


def test_a_model_of_another_process_is_100011(device0, tmp_path, pipe):
    model_id, _, _ = load(tmp_path)
    config = acl.prof.create_subscribe_config(1, acl.ACL_AICORE_NONE, pipe[1])
    codes = []

    def other():
        acl.init()
        codes.append(acl.prof.model_subscribe(model_id, acl.prof.create_subscribe_config(1, 0xFF, pipe[1])))

    sandbox.spawn_process(other).join()
    assert codes == [MODEL_ID]
    assert acl.prof.model_subscribe(model_id, config) == 0


def test_a_second_subscription_of_a_model_is_148046(device0, tmp_path, pipe):
    model_id, _, _ = load(tmp_path)
    config = subscribe(model_id, pipe[1])
    assert acl.prof.model_subscribe(model_id, config) == REPEAT


def test_unsubscribe_of_a_model_not_subscribed_is_100011(device0, tmp_path):
    model_id, _, _ = load(tmp_path)
    assert acl.prof.model_unsubscribe(model_id) == MODEL_ID
    assert "is not subscribed" in acl.get_recent_err_msg()


def test_after_unload_unsubscribe_is_100011_and_the_fd_stays_open(device0, tmp_path, pipe):
    model_id, _, _ = load(tmp_path)
    subscribe(model_id, pipe[1])
    assert acl.mdl.unload(model_id) == 0
    assert acl.prof.model_unsubscribe(model_id) == MODEL_ID
    assert "unsubscribe before aclmdlUnload" in acl.get_recent_err_msg()
    os.fstat(pipe[1])


def test_a_config_that_collects_nothing_is_100000(device0, tmp_path, pipe):
    model_id, _, _ = load(tmp_path)
    config = acl.prof.create_subscribe_config(0, acl.ACL_AICORE_NONE, pipe[1])
    assert config != 0
    assert acl.prof.model_subscribe(model_id, config) == INVALID
    assert "time_info_switch" in acl.get_recent_err_msg()


@pytest.mark.parametrize("switch", [2, -1, 255])
def test_a_time_info_switch_other_than_0_or_1_gives_no_config(machine, switch):
    assert acl.prof.create_subscribe_config(switch, acl.ACL_AICORE_NONE, 1) == 0


def test_a_null_or_destroyed_subscribe_config_is_100000(device0, tmp_path, pipe):
    model_id, _, _ = load(tmp_path)
    config = acl.prof.create_subscribe_config(1, acl.ACL_AICORE_NONE, pipe[1])
    assert acl.prof.model_subscribe(model_id, 0) == INVALID
    assert acl.prof.destroy_subscribe_config(config) == 0
    assert acl.prof.destroy_subscribe_config(config) == INVALID
    assert acl.prof.destroy_subscribe_config(0) == INVALID
    assert acl.prof.model_subscribe(model_id, config) == INVALID


def test_a_subscription_keeps_its_fd_when_its_config_is_destroyed(device0, tmp_path, pipe):
    r, w = pipe
    model_id, ins, outs = load(tmp_path)
    assert acl.prof.destroy_subscribe_config(subscribe(model_id, w)) == 0
    assert acl.mdl.execute(model_id, ins, outs) == 0
    assert len(pending(r)) == SIZE


def test_the_subscriptions_of_a_process_take_one_config_else_100010(device0, tmp_path, pipe):
    a, _, _ = load(tmp_path, "a")
    b, _, _ = load(tmp_path, "b")
    subscribe(a, pipe[1])
    other = acl.prof.create_subscribe_config(1, acl.ACL_AICORE_PIPE_UTILIZATION, pipe[1])
    assert acl.prof.model_subscribe(b, other) == acl.ACL_ERROR_INVALID_PROFILING_CONFIG
    assert acl.prof.model_subscribe(b, acl.prof.create_subscribe_config(1, acl.ACL_AICORE_NONE, pipe[1])) == 0


def test_subscription_and_aclprof_init_exclude_each_other_with_148047(device0, tmp_path, pipe):
    model_id, _, _ = load(tmp_path)
    cfg = acl.prof.create_config([0], acl.ACL_AICORE_NONE, 0, acl.ACL_PROF_TASK_TIME)
    subscribe(model_id, pipe[1])
    out = str(tmp_path / "out")
    assert acl.prof.init(out) == CONFLICT
    assert acl.prof.start(cfg) == CONFLICT
    assert acl.prof.stop(cfg) == CONFLICT
    assert acl.prof.stop(0) == 0  # no config: nothing to stop
    assert acl.prof.finalize() == CONFLICT
    assert acl.prof.model_unsubscribe(model_id) == 0
    assert acl.prof.init(out) == 0
    config = acl.prof.create_subscribe_config(1, acl.ACL_AICORE_NONE, os.dup(pipe[0]))
    assert acl.prof.model_subscribe(model_id, config) == CONFLICT
    assert "aclprofFinalize first" in acl.get_recent_err_msg()
    assert acl.prof.finalize() == 0
    assert acl.prof.model_subscribe(model_id, config) == 0


# -- the readers ---------------------------------------------------------------------------------------
@pytest.fixture
def one_record(device0, tmp_path, pipe) -> bytes:
    r, w = pipe
    model_id, ins, outs = load(tmp_path)
    subscribe(model_id, w)
    assert acl.mdl.execute(model_id, ins, outs) == 0
    return pending(r)


def test_the_readers_refuse_null_a_length_not_a_whole_record_and_a_bad_signature_with_100000(one_record):
    data = one_record
    ptr = acl.util.bytes_to_ptr(data)
    assert acl.prof.get_op_num(ptr, SIZE) == (1, 0)
    assert acl.prof.get_op_num(0, SIZE) == (0, INVALID)
    assert acl.prof.get_op_num(ptr, SIZE - 1) == (0, INVALID)
    assert acl.prof.get_op_num(ptr, 0) == (0, 0)
    bad = data[:20] + bytes([data[20] ^ 1]) + data[21:]
    assert acl.prof.get_op_num(acl.util.bytes_to_ptr(bad), SIZE) == (0, INVALID)
    assert "signature" in acl.get_recent_err_msg()


def test_an_index_past_the_records_is_100000_the_times_0_and_the_model_id_the_code(one_record):
    ptr = acl.util.bytes_to_ptr(one_record)
    assert acl.prof.get_op_type_len(ptr, SIZE, 1) == (0, INVALID)
    assert (acl.prof.get_op_start(ptr, SIZE, 1), acl.prof.get_op_end(ptr, SIZE, 1)) == (0, 0)
    assert acl.prof.get_op_duration(ptr, SIZE, 1) == 0
    assert acl.prof.get_model_id(ptr, SIZE, 1) == INVALID  # the code in place of the id (msprofiler_acl_api.cpp:700)
    assert acl.prof.get_model_id(ptr, SIZE, 0) == 1


def test_an_op_type_and_an_op_name_are_handed_over_once(one_record):
    ptr = acl.util.bytes_to_ptr(one_record)
    assert acl.prof.get_op_type_len(ptr, SIZE, 0) == (len("tiny_mlp") + 1, 0)
    assert acl.prof.get_op_type(ptr, SIZE, 0, 9) == ("tiny_mlp", 0)
    assert acl.prof.get_op_type(ptr, SIZE, 0, 9) == ("", INVALID)
    assert "handed over already" in acl.get_recent_err_msg()
    assert acl.prof.get_op_type_len(ptr, SIZE, 0) == (0, INVALID)
    assert acl.prof.get_op_type_v2(ptr, SIZE, 0) == (None, INVALID)
    assert acl.prof.get_op_name_v2(ptr, SIZE, 0) == ("tiny_mlp", 0)  # the name is apart
    assert acl.prof.get_op_name(ptr, SIZE, 0, 9) == ("", INVALID)


def test_a_length_below_the_name_is_100000_and_one_without_room_for_the_nul_cuts_the_last_byte(one_record):
    ptr = acl.util.bytes_to_ptr(one_record)
    assert acl.prof.get_op_type(ptr, SIZE, 0, 0) == ("", INVALID)
    assert acl.prof.get_op_type(ptr, SIZE, 0, 7) == ("", INVALID)
    assert acl.prof.get_op_type(ptr, SIZE, 0, 8) == ("tiny_ml", 0)
    assert acl.prof.get_op_name(ptr, SIZE, 0, 4096) == ("tiny_mlp", 0)


def test_a_name_length_over_4096_is_refused_by_pyacl_before_the_runtime(one_record):
    ptr = acl.util.bytes_to_ptr(one_record)
    assert acl.prof.get_op_name(ptr, SIZE, 0, 4097) == ("", INVALID)
    assert acl.prof.get_op_name(ptr, SIZE, 0, 9) == ("tiny_mlp", 0)  # not handed over by the refused call


def test_an_address_that_is_no_host_memory_is_100000(one_record):
    assert acl.prof.get_op_num(0x1234, SIZE) == (0, INVALID)
    assert "not host memory" in acl.get_recent_err_msg()


# -- the reader's thread and the pipe ------------------------------------------------------------------
def test_a_reader_waits_in_virtual_time_and_wakes_at_each_execution_s_end(device0, tmp_path, pipe):
    r, w = pipe
    model_id, ins, outs = load(tmp_path)
    subscribe(model_id, w)
    got = []

    def reader():
        while data := os.read(r, SIZE):
            got.append((sandbox.now(), fields(data)[3:5]))

    thread = threading.Thread(target=reader)
    thread.start()
    for _ in range(3):
        assert acl.mdl.execute(model_id, ins, outs) == 0
    assert acl.prof.model_unsubscribe(model_id) == 0
    thread.join()
    ends = [end for _, end in model_tasks()]
    assert [end for _, (_, end) in got] == ends
    reads = [c for c in sandbox.trace().of(T.ApiCall) if c.name == "os.read (subscription pipe)"]
    assert [c.end for c in reads[:3]] == ends  # each read returned at the end of the execution it reports
    assert all(t >= end for (t, (_, end)) in got)


def test_a_full_pipe_never_blocks_the_run_and_its_records_come_in_order_as_they_are_read(device0, tmp_path, pipe):
    r, w = pipe
    model_id, ins, outs = load(tmp_path)
    subscribe(model_id, w)
    runs = 2000  # 160,000 bytes: more than a pipe holds (64 KiB on Linux)
    for _ in range(runs):
        assert acl.mdl.execute_async(model_id, ins, outs, device0) == 0
    assert acl.rt.synchronize_stream(device0) == 0
    assert acl.prof.model_unsubscribe(model_id) == 0
    data = read_all(r)
    assert len(data) == runs * SIZE
    indices = [subscription.RECORD.unpack_from(data, i)[4] for i in range(0, len(data), SIZE)]
    assert indices == list(range(1, runs + 1))


def test_records_beyond_the_uploader_s_capacity_are_dropped_with_a_note(device0, tmp_path, pipe, monkeypatch):
    r, w = pipe
    monkeypatch.setattr(subscription, "CAPACITY", 2)
    model_id, ins, outs = load(tmp_path)
    subscribe(model_id, w)
    fill = os.write(w, b"x" * (1 << 16))  # the pipe is full already
    os.set_blocking(w, False)
    with pytest.raises(BlockingIOError):
        os.write(w, b"x" * 4096)
    os.set_blocking(w, True)
    for _ in range(4):
        assert acl.mdl.execute(model_id, ins, outs) == 0
    notes = [n.text for n in sandbox.trace().of(T.Note) if "model subscription" in n.text]
    assert len(notes) == 1 and "dropped" in notes[0]
    assert acl.prof.model_unsubscribe(model_id) == 0
    assert len(read_all(r)) == fill + 2 * SIZE


def test_a_write_into_a_closed_fd_drops_the_records_with_a_note(device0, tmp_path):
    r, w = os.pipe()
    os.close(r)
    model_id, ins, outs = load(tmp_path)
    subscribe(model_id, w)
    assert acl.mdl.execute(model_id, ins, outs) == 0
    assert acl.mdl.execute(model_id, ins, outs) == 0
    notes = [n.text for n in sandbox.trace().of(T.Note) if "model subscription" in n.text]
    assert len(notes) == 1 and "failed" in notes[0]
    assert acl.prof.model_unsubscribe(model_id) == 0


def test_a_read_that_nothing_can_ever_answer_raises_oserror_edeadlk_instead_of_hanging(device0, tmp_path, pipe):
    r, w = pipe
    model_id, _, _ = load(tmp_path)
    subscribe(model_id, w)
    raised = []

    def reader():
        try:
            os.read(r, SIZE)
        except OSError as exc:
            raised.append(exc)

    thread = threading.Thread(target=reader)
    thread.start()
    thread.join()  # never unsubscribed: no record and no end can come
    (exc,) = raised
    assert exc.errno == errno.EDEADLK and "aclprofModelUnSubscribe" in str(exc)


def test_reads_of_other_fds_are_os_read_s_own(device0, tmp_path, pipe):
    model_id, _, _ = load(tmp_path)
    subscribe(model_id, pipe[1])
    other_r, other_w = os.pipe()
    os.write(other_w, b"abc")
    assert os.read(other_r, 10) == b"abc"
    assert not [c for c in sandbox.trace().of(T.ApiCall) if c.name.startswith("os.read")]
    os.close(other_r)
    os.close(other_w)


PROGRAM = """
import os, sys, tempfile
from sandbox import acl
from sandbox.models import zoo
acl.init(); acl.rt.set_device(0)
path = zoo("tiny_mlp").save(os.path.join(tempfile.mkdtemp(), "m.om"))
model_id, _ = acl.mdl.load_from_file(path)
desc = acl.mdl.create_desc(); acl.mdl.get_desc(desc, model_id)
sets = []
for size in (acl.mdl.get_input_size_by_index(desc, 0), acl.mdl.get_output_size_by_index(desc, 0)):
    ds = acl.mdl.create_dataset()
    acl.mdl.add_dataset_buffer(ds, acl.create_data_buffer(acl.rt.malloc(size, 0)[0], size))
    sets.append(ds)
r, w = os.pipe()
acl.prof.model_subscribe(model_id, acl.prof.create_subscribe_config(1, acl.ACL_AICORE_NONE, w))
for _ in range(5):
    acl.mdl.execute(model_id, *sets)
acl.prof.model_unsubscribe(model_id)
data = b""
while chunk := os.read(r, 4096):
    data += chunk
print(data.hex())
"""


def test_the_same_program_writes_the_same_records_in_two_processes():
    runs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(PROGRAM)], capture_output=True, text=True, env=env, timeout=120
        )
        assert done.returncode == 0, done.stderr
        runs.append(done.stdout)
    assert runs[0] == runs[1] and len(bytes.fromhex(runs[0].strip())) == 5 * SIZE
