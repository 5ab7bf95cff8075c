"""aclrtRandomNumTaskInfo: the task info of aclrtRandomNumAsync, its checks, and the numbers the task writes.

**The struct** (``include/external/acl/acl_rt.h:765-814``) is passed, as pyACL passes structs, as
a dict of its members under their C names; a member left out is zero, as in a C struct written
``= {}``, and a member the struct does not have is refused (100000)::

    {"dataType": acl.ACL_FLOAT,
     "randomNumFuncParaInfo": {"funcType": acl.ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS,
                               "paramInfo": {"normalDisInfo": {"mean": 3.0, "stddev": 2.0}}},
     "randomResultAddr": dev_output, "randomCounterAddr": counter,   # device pointers
     "randomSeed": 0, "randomNum": 128}

``paramInfo`` holds the union's member for the funcType: ``dropoutBitmaskInfo`` (``dropoutRation``),
``uniformDisInfo`` (``min``, ``max``) or ``normalDisInfo`` (``mean``, ``stddev``).  Each parameter
(an aclrtRandomParaInfo) is a number, an immediate value of its natural size (the task's
dataType; 8 bytes for the seed and the count), or the struct itself as a dict
``{"isAddr": 0, "valueOrAddr": value, "size": nbytes}``.  A value is a number as Python writes it
(``1.0``, not the bits 0x3F80 that C spells a BF16 1.0 with): the sandbox converts it to the
data type.  ``randomParaAddr`` may be left out (NULL: the runtime's own buffer).

**The checks**, in the order the sources make them:

* the acl layer (``src/acl/aclrt_impl/kernel.cpp:655-676``): a null taskInfo (659) and a dataType
  outside ACL_INT32, ACL_INT64, ACL_UINT32, ACL_UINT64, ACL_BF16, ACL_FLOAT16, ACL_FLOAT (26-31,
  661-670) are 100000;
* ``rtsLaunchRandomNumTask`` (``src/runtime/api/api_c_kernel.cc:208-210``): a chip without the
  random-number generator (``RT_FEATURE_TASK_RAND_GENERATOR``: the 910B has it, not the 310P or
  the 310B) is 207000; then the stream handle;
* ``ApiErrorDecorator::LaunchRandomNumTask`` (``src/runtime/api/impl/api_error.cc:7112-7124``): a
  reserve other than NULL is 107000; ``ApiImpl::LaunchRandomNumTask`` (``api_impl.cc:8382-8397``):
  a stream of another context 107003;
* ``CheckRandomNumTaskInfo`` (``src/runtime/core/src/task/task_info/random_num_task.cc:419-477``),
  each 107000: the funcType (0..3) and the dataTypes it allows (395-417: dropout and both normal
  distributions bf16/fp16/fp32; uniform also int32, int64, uint32, uint64), a null
  randomCounterAddr or randomResultAddr (434-439), the seed and the count (442-450), then the
  distribution's parameters (453-475): isAddr must be 0 or 1 and size in [1, the data type's size]
  (8 for a parameter given by address; ``CheckRandomParam``, 82-97).
* the sandbox's own: a parameter given by address (isAddr 1) is not modelled (207000); the
  results and the 16-byte counter must lie inside device memory of the stream's device (107000,
  as for copies: core/features/builtin_tasks.py).

**The numbers** are the sandbox's own, deterministic for a seed and a counter; they are not the
device's.  The sources name the algorithm (the sample's README: Philox4_32_10, a 128-bit counter
in 16 bytes) but leave the device's use of it to the hardware (the DSA engine: the runtime only
fills its SQE, ``random_num_task.cc:270-333``).  numpy's ``Philox`` is the 4x64 variant, so the
sandbox computes Philox4x32-10 (Salmon et al., SC 2011; the Random123 known-answer vectors hold,
tests/features/test_random_num.py) itself: the key is the seed (low word first), the counter is the 16
bytes at randomCounterAddr (four little-endian uint32, word 0 lowest), each counter value gives
four 32-bit words, and the task writes the counter back advanced by the values it used, so the
next task on the same counter continues the sequence.  From the words: a uniform float is
``min + u * (max - min)`` with u = (w >> 8) / 2**24 in [0, 1), computed in float32 and rounded
to the type (BF16 to nearest even); a uniform integer is ``min + w % (max - min)`` (64-bit types
take two words; ``max <= min`` gives min); a normal value is Box-Muller over two words; a
truncated normal one redraws values beyond two standard deviations (as TensorFlow's
truncated_normal); the dropout bitmask writes ceil(num / 8) bytes, bit i (least significant bit
first) set when value i is kept, that is when its u >= dropoutRation.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.errors import (
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
    ACL_ERROR_RT_PARAM_INVALID,
    describe,
    fail,
)
from ._types import ACL_BF16, ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT64, ACL_UINT32, ACL_UINT64

DROPOUT_BITMASK, UNIFORM_DIS, NORMAL_DIS, TRUNCATED_NORMAL_DIS = 0, 1, 2, 3  # aclrtRandomNumFuncType
FUNC_NAMES = {
    DROPOUT_BITMASK: "ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK",
    UNIFORM_DIS: "ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS",
    NORMAL_DIS: "ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS",
    TRUNCATED_NORMAL_DIS: "ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS",
}
# the acl layer's kMapDataType (kernel.cpp:26-31): aclDataType -> (name, bytes, numpy type of the result)
TYPES = {
    ACL_INT32: ("ACL_INT32", 4, np.int32),
    ACL_INT64: ("ACL_INT64", 8, np.int64),
    ACL_UINT32: ("ACL_UINT32", 4, np.uint32),
    ACL_UINT64: ("ACL_UINT64", 8, np.uint64),
    ACL_BF16: ("ACL_BF16", 2, np.uint16),  # numpy has no bfloat16: its bits
    ACL_FLOAT16: ("ACL_FLOAT16", 2, np.float16),
    ACL_FLOAT: ("ACL_FLOAT", 4, np.float32),
}
FLOATS = (ACL_BF16, ACL_FLOAT16, ACL_FLOAT)
ALLOWED = {DROPOUT_BITMASK: FLOATS, UNIFORM_DIS: tuple(TYPES), NORMAL_DIS: FLOATS, TRUNCATED_NORMAL_DIS: FLOATS}
UNION = {DROPOUT_BITMASK: "dropoutBitmaskInfo", UNIFORM_DIS: "uniformDisInfo", NORMAL_DIS: "normalDisInfo"}
UNION[TRUNCATED_NORMAL_DIS] = UNION[NORMAL_DIS]
MEMBERS = {
    "dropoutBitmaskInfo": ("dropoutRation",),
    "uniformDisInfo": ("min", "max"),
    "normalDisInfo": ("mean", "stddev"),
}
TOP = (
    "dataType",
    "randomNumFuncParaInfo",
    "randomParaAddr",
    "randomResultAddr",
    "randomCounterAddr",
    "randomSeed",
    "randomNum",
    "rsv",
)
PARA = ("isAddr", "valueOrAddr", "size")
COUNTER_BYTES = 16


def _dict(value, what: str, members) -> dict:
    """A struct given as a dict: members by their C names (a left-out one is zero)."""
    if value is None or (type(value) is int and value == 0):
        return {}
    if not isinstance(value, dict):
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be a dict of its members, got {describe(value)}")
    unknown = sorted(str(k) for k in value if k not in members)
    if unknown:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} has no member {unknown[0]!r}; its members are {', '.join(members)}")
    return value


def _int(value, what: str, bits: int = 64) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= int(value) < 2**bits:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be an int in [0, 2**{bits}), got {describe(value)}")
    return int(value)


def task_info(value, what: str) -> dict:
    """The acl layer's checks (100000): a dict, and a dataType libascendcl maps to the runtime's."""
    if value is None:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must not be null")
    info = _dict(value, what, TOP)
    data_type = info.get("dataType", ACL_FLOAT)  # ACL_FLOAT is 0: what a zeroed struct holds
    if type(data_type) is not int or data_type not in TYPES:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"taskInfo dataType {describe(data_type)} is not supported: use ACL_FLOAT, "
            "ACL_FLOAT16, ACL_BF16, ACL_INT32, ACL_INT64, ACL_UINT32 or ACL_UINT64",
        )
    return info


def show(info) -> str:
    """What the trace shows of a task info: its distribution, type and count."""
    if not isinstance(info, dict):
        return describe(info)
    func = info.get("randomNumFuncParaInfo")
    func_type = func.get("funcType", 0) if isinstance(func, dict) else 0
    data_type = info.get("dataType", 0)
    # (only an int is looked up: a list or a dict there is unhashable, and the checks refuse it after the trace)
    name = FUNC_NAMES.get(func_type, "") if type(func_type) is int else ""
    name = name.replace("ACL_RT_RANDOM_NUM_FUNC_TYPE_", "") or describe(func_type)
    kind = TYPES[data_type][0] if type(data_type) is int and data_type in TYPES else describe(data_type)
    num = info.get("randomNum", 0)
    return f"{name} {kind} num={num if isinstance(num, int) else describe(num)}"


def _para(value, what: str, natural: int) -> tuple[int, object, int]:
    """(isAddr, value, size) of an aclrtRandomParaInfo given as a number or as its dict."""
    if isinstance(value, dict):
        para = _dict(value, what, PARA)
        is_addr, size = para.get("isAddr", 0), para.get("size", 0)
        for name, v in (("isAddr", is_addr), ("size", size)):
            _int(v, f"{what}.{name}", 8)
        return int(is_addr), para.get("valueOrAddr", 0), int(size)
    return 0, value, natural


def _check_para(para, what: str, data_size: int) -> None:
    """CheckRandomParam (random_num_task.cc:82-97): isAddr 0 or 1, size in [1, the value's size]."""
    is_addr, _, size = para
    if is_addr not in (0, 1):
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{what}.isAddr must be 0 (a value) or 1 (an address), got {is_addr}")
    top = 8 if is_addr else data_size
    if not 1 <= size <= top:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{what}.size must be in [1, {top}] bytes, got {size}")


def _number(value, what: str, data_type: int):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be a number, got {describe(value)}")
    if data_type in FLOATS:
        return float(value)
    bits = 8 * TYPES[data_type][1]
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if data_type in (ACL_INT32, ACL_INT64) else (0, 2**bits - 1)
    if not isinstance(value, numbers.Integral) or not low <= int(value) <= high:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"{what} of {TYPES[data_type][0]} must be an int in [{low}, {high}], got {describe(value)}",
        )
    return int(value)


def decode(info: dict):
    """The runtime's checks of the task info (107000), then the plan of the task (core/features/builtin_tasks.py)."""
    data_type = info.get("dataType", ACL_FLOAT)
    func = _dict(info.get("randomNumFuncParaInfo"), "randomNumFuncParaInfo", ("funcType", "paramInfo"))
    func_type = func.get("funcType", DROPOUT_BITMASK)
    if type(func_type) is not int or func_type not in ALLOWED:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"funcType {describe(func_type)} is not an aclrtRandomNumFuncType (0..3)")
    type_name, data_size, _ = TYPES[data_type]
    if data_type not in ALLOWED[func_type]:
        allowed = ", ".join(TYPES[t][0] for t in ALLOWED[func_type])
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{FUNC_NAMES[func_type]} does not take dataType {type_name}: use {allowed}")
    result, counter = (
        _int(0 if info.get(k) is None else info[k], k) for k in ("randomResultAddr", "randomCounterAddr")
    )
    for name, address in (("randomCounterAddr", counter), ("randomResultAddr", result)):
        if address == 0:
            fail(ACL_ERROR_RT_PARAM_INVALID, f"taskInfo {name} must not be a null pointer")
    seed, num = (_para(info.get(k, 0), k, 8) for k in ("randomSeed", "randomNum"))
    _check_para(seed, "randomSeed", 8)
    _check_para(num, "randomNum", 8)
    union = UNION[func_type]
    params = _dict(func.get("paramInfo"), "paramInfo", tuple(MEMBERS))
    members = _dict(params.get(union), f"paramInfo.{union}", MEMBERS[union])
    paras = [_para(members.get(name, {}), f"{union}.{name}", data_size) for name in MEMBERS[union]]
    for para, name in zip(paras, MEMBERS[union]):
        _check_para(para, f"{union}.{name}", data_size)
    if any(p[0] for p in (seed, num, *paras)):
        fail(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "aclrtRandomNumAsync: a parameter given by address (isAddr 1) is not "
            "modelled by the sandbox; give its value (isAddr 0)",
        )
    seed_value, count = _int(seed[1], "randomSeed"), _int(num[1], "randomNum")
    values = [_number(p[1], f"{union}.{name}", data_type) for p, name in zip(paras, MEMBERS[union])]
    nbytes = (count + 7) // 8 if func_type == DROPOUT_BITMASK else count * data_size

    def generate(state: np.ndarray):
        return _generate(func_type, data_type, values, seed_value, count, state)

    return result, nbytes, counter, generate


# -- Philox4x32-10 --------------------------------------------------------------------------------------------
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)  # the round multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85  # the key schedule's Weyl constants
_LOW = np.uint64(0xFFFFFFFF)


def philox4x32(counter: int, key: int, blocks: int) -> np.ndarray:
    """The 4 * blocks 32-bit words of Philox4x32-10 for counters counter, counter + 1, ... (mod 2**128)."""
    index = np.arange(blocks, dtype=np.uint64)
    start = np.uint64(counter & (2**64 - 1))
    low = start + index  # uint64 arithmetic wraps
    high = np.uint64((counter >> 64) & (2**64 - 1)) + (low < start).astype(np.uint64)
    c = [low & _LOW, low >> np.uint64(32), high & _LOW, high >> np.uint64(32)]
    k0, k1 = key & 0xFFFFFFFF, (key >> 32) & 0xFFFFFFFF
    for _ in range(10):
        p0, p1 = c[0] * _M0, c[2] * _M1
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ np.uint64(k0), p1 & _LOW, (p0 >> np.uint64(32)) ^ c[3] ^ np.uint64(k1),
             p0 & _LOW]  # fmt: skip
        k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
    return np.stack(c, axis=1).astype(np.uint32).ravel()


class _Words:
    """The words of one task: drawn in order from the counter on."""

    def __init__(self, counter: int, key: int):
        self.counter, self.key = counter, key

    def take(self, n: int) -> np.ndarray:
        blocks = (n + 3) // 4
        words = philox4x32(self.counter, self.key, blocks)[:n]
        self.counter = (self.counter + blocks) % 2**128
        return words


def _unit(words: np.ndarray) -> np.ndarray:
    return (words >> 8).astype(np.float64) * 2.0**-24


def _normal(draw: _Words, n: int) -> np.ndarray:
    pairs = (n + 1) // 2
    w = draw.take(2 * pairs).astype(np.float64).reshape(pairs, 2)
    radius = np.sqrt(-2.0 * np.log((w[:, 0] + 1.0) * 2.0**-32))
    angle = 2.0 * np.pi * w[:, 1] * 2.0**-32
    return np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1).ravel()[:n]


def _to_type(x: np.ndarray, data_type: int) -> np.ndarray:
    """float values -> the result type's bytes (float32 first; BF16 its top 16 bits, rounded to nearest even)."""
    f32 = x.astype(np.float32)
    if data_type == ACL_FLOAT16:
        with np.errstate(over="ignore"):
            return f32.astype(np.float16)
    if data_type == ACL_BF16:
        bits = f32.view(np.uint32).astype(np.uint64)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return np.where(np.isnan(f32), 0x7FC0, rounded).astype(np.uint16)
    return f32


def _generate(func_type: int, data_type: int, values: list, seed: int, count: int, state: np.ndarray):
    draw = _Words(int.from_bytes(state.tobytes(), "little"), seed)  # the 16 counter bytes
    if func_type == DROPOUT_BITMASK:
        kept = _unit(draw.take(count)) >= values[0]
        out = np.packbits(kept, bitorder="little")
    elif func_type == UNIFORM_DIS and data_type not in FLOATS:
        low, high = values
        wide = TYPES[data_type][1] == 8
        words = draw.take(count * (2 if wide else 1)).astype(np.uint64)
        w = (words[0::2] << np.uint64(32)) | words[1::2] if wide else words
        span = high - low
        offset = w % np.uint64(span) if span > 0 else np.zeros(count, np.uint64)
        out = (np.uint64(low % 2**64) + offset).astype(TYPES[data_type][2])  # wraps into the signed type
    elif func_type == UNIFORM_DIS:
        low, high = values
        out = _to_type(np.float32(low) + _unit(draw.take(count)).astype(np.float32) * np.float32(high - low), data_type)
    else:
        z = _normal(draw, count)
        if func_type == TRUNCATED_NORMAL_DIS:
            outside = np.abs(z) > 2.0
            while outside.any():
                z[outside] = _normal(draw, int(outside.sum()))
                outside = np.abs(z) > 2.0
        out = _to_type(values[0] + values[1] * z, data_type)
    return out.view(np.uint8), np.frombuffer(draw.counter.to_bytes(COUNTER_BYTES, "little"), np.uint8)
