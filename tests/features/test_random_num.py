"""aclrtRandomNumAsync: the task info's checks and codes, the task on its stream, the numbers
(sandbox/acl/_random.py, sandbox/core/features/builtin_tasks.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sandbox
from sandbox import acl
from sandbox.acl._random import philox4x32
from sandbox.core import current_machine
from sandbox.core import trace as T
from sandbox.export.chrome_trace import to_chrome_trace

NORMAL = acl.ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS
TRUNCATED = acl.ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS
UNIFORM = acl.ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS
DROPOUT = acl.ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK
PARAMS = {
    NORMAL: ("normalDisInfo", "mean", "stddev"),
    TRUNCATED: ("normalDisInfo", "mean", "stddev"),
    UNIFORM: ("uniformDisInfo", "min", "max"),
    DROPOUT: ("dropoutBitmaskInfo", "dropoutRation"),
}


def _buffers(nbytes=1024):
    out, _ = acl.rt.malloc(nbytes, 0)
    counter, _ = acl.rt.malloc(16, 0)
    assert acl.rt.memset(counter, 16, 0, 16) == 0
    return out, counter


def _info(out, counter, func=NORMAL, data_type=acl.ACL_FLOAT, values=(0.0, 1.0), seed=0, num=64):
    union, *names = PARAMS[func]
    return {
        "dataType": data_type,
        "randomNumFuncParaInfo": {"funcType": func, "paramInfo": {union: dict(zip(names, values))}},
        "randomResultAddr": out,
        "randomCounterAddr": counter,
        "randomSeed": seed,
        "randomNum": num,
    }


def _read(ptr, n, dtype):
    host = np.zeros(n, dtype)
    acl.rt.memcpy(acl.util.numpy_to_ptr(host), host.nbytes, ptr, host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    return host


def _draw(info, stream=0):
    assert acl.rt.random_num_async(info, stream, None) == 0, acl.get_recent_err_msg()
    assert acl.rt.synchronize_device() == 0


def test_philox4x32_10_gives_the_random123_known_answers():
    def kat(ctr, key):
        words = philox4x32(sum(w << (32 * i) for i, w in enumerate(ctr)), key[0] | key[1] << 32, 1)
        return [int(w) for w in words]

    assert kat([0, 0, 0, 0], [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    assert kat([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2) == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]
    pi = [0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344]
    assert kat(pi, [0xA4093822, 0x299F31D0]) == [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]


@sandbox.kernel(ns=10_000_000, writes=())
def _slow(x: "uint8*"):
    pass


def test_a_random_task_writes_its_results_and_the_advanced_counter_only_at_completion(device0):
    out, counter = _buffers()
    _slow[1, device0](out)  # 10 ms of device time ahead of it on its stream
    assert acl.rt.random_num_async(_info(out, counter, num=64), device0, None) == 0
    device_bytes = current_machine.current().buffer(out).dense_view(0, 256)
    assert not device_bytes.any()  # not yet: the task has not completed
    acl.rt.synchronize_stream(device0)
    values = _read(out, 64, np.float32)
    assert np.all(values != 0) and abs(values.mean()) < 0.5
    assert _read(counter, 4, np.uint32).tolist() == [16, 0, 0, 0]  # 64 normals: 64 words, 16 counter values
    (task,) = [r for r in sandbox.trace().of(T.TaskSubmitted) if r.kind == "random_num"]
    assert task.engine == "DMA D2D" and task.nbytes == 256 and task.name == "RANDOM_NUM"


def test_tasks_sharing_a_counter_continue_one_sequence_and_a_reset_counter_repeats_it(device0):
    out, counter = _buffers()
    _draw(_info(out, counter, num=8))
    first = _read(out, 8, np.float32)
    _draw(_info(out, counter, num=8))
    second = _read(out, 8, np.float32)
    acl.rt.memset(counter, 16, 0, 16)
    _draw(_info(out, counter, num=8))
    assert not np.array_equal(first, second)
    assert np.array_equal(_read(out, 8, np.float32), first)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**64 - 1),
    low=st.integers(-(2**31), 2**31 - 2),
    width=st.integers(1, 2**31),
    data_type=st.sampled_from([acl.ACL_INT32, acl.ACL_INT64, acl.ACL_UINT32, acl.ACL_UINT64]),
)
def test_uniform_integers_lie_in_min_inclusive_to_max_exclusive(seed, low, width, data_type):
    sandbox.configure("ascend910b")
    acl.init()
    acl.rt.set_device(0)
    dtype = {acl.ACL_INT32: np.int32, acl.ACL_INT64: np.int64, acl.ACL_UINT32: np.uint32, acl.ACL_UINT64: np.uint64}
    info = np.iinfo(dtype[data_type])
    low = min(max(low, int(info.min)), int(info.max) - 1)
    high = min(low + width, int(info.max))
    out, counter = _buffers()
    _draw(_info(out, counter, UNIFORM, data_type, (low, high), seed=seed, num=100))
    values = _read(out, 100, dtype[data_type]).astype(object)
    assert all(low <= v < high for v in values)


@settings(max_examples=20, deadline=None)
@given(
    data_type=st.sampled_from([acl.ACL_FLOAT, acl.ACL_FLOAT16, acl.ACL_BF16]),
    mean=st.floats(-100, 100),
    stddev=st.floats(0.01, 10),
    seed=st.integers(0, 2**64 - 1),
)
def test_truncated_normal_values_lie_within_two_standard_deviations(data_type, mean, stddev, seed):
    sandbox.configure("ascend910b")
    acl.init()
    acl.rt.set_device(0)
    out, counter = _buffers()
    _draw(_info(out, counter, TRUNCATED, data_type, (mean, stddev), seed=seed, num=200))
    if data_type == acl.ACL_BF16:
        values = (_read(out, 200, np.uint16).astype(np.uint32) << 16).view(np.float32)
    else:
        values = _read(out, 200, np.float32 if data_type == acl.ACL_FLOAT else np.float16)
    slack = 2 * stddev * 1.01 + abs(mean) * 0.01  # the rounding of fp16 and bf16
    assert np.all(np.abs(values.astype(np.float64) - mean) <= slack)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), num=st.integers(1, 300))
def test_the_same_seed_and_counter_give_the_same_numbers(seed, num):
    results = []
    for _ in range(2):
        sandbox.configure("ascend910b")
        acl.init()
        acl.rt.set_device(0)
        out, counter = _buffers(2048)
        _draw(_info(out, counter, UNIFORM, acl.ACL_FLOAT16, (1.0, 2.0), seed=seed, num=num))
        results.append(_read(out, num, np.float16).tobytes())
    assert results[0] == results[1]


def test_a_dropout_bitmask_packs_one_bit_per_value_keeping_about_one_minus_the_ratio(device0):
    out, counter = _buffers()
    _draw(_info(out, counter, DROPOUT, acl.ACL_FLOAT, (0.25,), num=4096))
    bits = np.unpackbits(_read(out, 512, np.uint8), bitorder="little")
    assert 0.70 < bits.mean() < 0.80
    assert _read(out, 1024, np.uint8)[512:].tolist() == [0] * 512  # ceil(4096 / 8) bytes written


def test_the_acl_layer_refuses_a_null_task_info_and_an_unmapped_data_type_with_100000(device0):
    out, counter = _buffers()
    assert acl.rt.random_num_async(None, device0, None) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.random_num_async(_info(out, counter, data_type=acl.ACL_INT8), device0, None) == 100000
    assert "not supported" in acl.get_recent_err_msg()
    assert acl.rt.random_num_async({"dataTyp": 0}, device0, None) == 100000  # not a member of the struct
    assert acl.rt.random_num_async([1], device0, None) == 100000


@pytest.mark.parametrize(
    "spoil",
    [{"dataType": [1]}, {"randomNumFuncParaInfo": {"funcType": {}}}, {"randomNumFuncParaInfo": {"funcType": [0]}}],
    ids=["dataType-list", "funcType-dict", "funcType-list"],
)
def test_an_unhashable_data_type_or_func_type_is_refused_with_a_code_not_an_exception(device0, spoil):
    out, counter = _buffers()
    ret = acl.rt.random_num_async({**_info(out, counter), **spoil}, device0, None)
    assert ret in (acl.ACL_ERROR_INVALID_PARAM, acl.ACL_ERROR_RT_PARAM_INVALID) and acl.get_recent_err_msg()


@pytest.mark.parametrize("field", ["randomResultAddr", "randomCounterAddr"])
def test_a_numpy_array_as_an_address_of_the_task_info_is_100000_not_an_exception(device0, field):
    out, counter = _buffers()
    spoiled = {**_info(out, counter), field: np.array([out, 1])}
    assert acl.rt.random_num_async(spoiled, device0, None) == acl.ACL_ERROR_INVALID_PARAM
    assert f"{field} must be an int" in acl.get_recent_err_msg()


def test_the_runtime_refuses_a_reserve_and_bad_task_info_with_107000_in_its_order(device0):
    out, counter = _buffers()
    good = _info(out, counter)
    assert acl.rt.random_num_async(good, device0, 1) == acl.ACL_ERROR_RT_PARAM_INVALID
    bad_pairs = _info(out, counter, DROPOUT, acl.ACL_INT32, (0.5,))  # dropout takes bf16/fp16/fp32 only
    assert acl.rt.random_num_async(bad_pairs, device0, None) == 107000
    func_type = dict(good, randomNumFuncParaInfo={"funcType": 4, "paramInfo": {}})
    assert acl.rt.random_num_async(func_type, device0, None) == 107000
    assert acl.rt.random_num_async(dict(good, randomCounterAddr=0), device0, None) == 107000
    assert acl.rt.random_num_async(dict(good, randomResultAddr=0), device0, None) == 107000
    seed = dict(good, randomSeed={"isAddr": 0, "valueOrAddr": 1, "size": 9})
    assert acl.rt.random_num_async(seed, device0, None) == 107000
    assert "randomSeed.size" in acl.get_recent_err_msg()
    is_addr = dict(good, randomNum={"isAddr": 2, "valueOrAddr": 8, "size": 8})
    assert acl.rt.random_num_async(is_addr, device0, None) == 107000
    missing = _info(out, counter)
    missing["randomNumFuncParaInfo"]["paramInfo"] = {"normalDisInfo": {"mean": 0.0}}  # stddev zero: size 0
    assert acl.rt.random_num_async(missing, device0, None) == 107000
    fp16_size = _info(out, counter, data_type=acl.ACL_FLOAT16)
    fp16_size["randomNumFuncParaInfo"]["paramInfo"]["normalDisInfo"]["mean"] = {"valueOrAddr": 1.0, "size": 4}
    assert acl.rt.random_num_async(fp16_size, device0, None) == 107000
    assert acl.rt.random_num_async(_info(out, counter, num=1024), device0, None) == 107000  # past the buffer
    acl.rt.synchronize_device()
    assert _read(counter, 4, np.uint32).tolist() == [0, 0, 0, 0]  # nothing was queued


def test_a_parameter_given_by_address_is_not_modelled_207000(device0):
    out, counter = _buffers()
    info = dict(_info(out, counter), randomSeed={"isAddr": 1, "valueOrAddr": out, "size": 8})
    assert acl.rt.random_num_async(info, device0, None) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert "not modelled" in acl.get_recent_err_msg()


@pytest.mark.parametrize("profile", ["ascend310p", "ascend310b"])
def test_a_chip_without_the_random_number_generator_refuses_with_207000(profile):
    sandbox.configure(profile)
    acl.init()
    acl.rt.set_device(0)
    out, counter = _buffers()
    assert acl.rt.random_num_async(_info(out, counter), 0, None) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT


def test_a_stream_of_another_device_is_107003(machine):
    acl.rt.set_device(1)
    other, _ = acl.rt.create_stream()
    acl.rt.set_device(0)
    out, counter = _buffers()
    assert acl.rt.random_num_async(_info(out, counter), other, None) == acl.ACL_ERROR_RT_STREAM_CONTEXT


def test_results_another_stream_reads_unordered_are_a_hazard(device0):
    out, counter = _buffers()
    host = np.zeros(16, np.float32)
    acl.rt.random_num_async(_info(out, counter, num=16), device0, None)
    with pytest.warns(sandbox.HazardWarning):
        acl.rt.memcpy_async(acl.util.numpy_to_ptr(host), 64, out, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acl.rt.synchronize_device()


def test_the_trace_and_the_export_show_the_task_as_random_num(device0):
    out, counter = _buffers()
    _draw(_info(out, counter, num=16), device0)
    (call,) = [r for r in sandbox.trace().of(T.ApiCall) if r.name == "aclrtRandomNumAsync"]
    assert "NORMAL_DIS ACL_FLOAT num=16" in str(call.args)
    events = to_chrome_trace(sandbox.trace())["traceEvents"]
    assert any(e.get("cat") == "random_num" and e.get("name") == "RANDOM_NUM" for e in events)
