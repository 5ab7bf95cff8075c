"""aclDataType (include/external/acl/acl_base_rt.h, values as the header gives them), their sizes
(aclDataTypeSize, docs/zh/api_ref/24_other_APIs.md) and the numpy types the sandbox uses for them."""

from __future__ import annotations

import numpy as np

from ..core.errors import ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, describe, fail
from ..core.gate import as_int

ACL_DT_UNDEFINED = -1
ACL_FLOAT = 0
ACL_FLOAT16 = 1
ACL_INT8 = 2
ACL_INT32 = 3
ACL_UINT8 = 4
ACL_INT16 = 6
ACL_UINT16 = 7
ACL_UINT32 = 8
ACL_INT64 = 9
ACL_UINT64 = 10
ACL_DOUBLE = 11
ACL_BOOL = 12
ACL_STRING = 13
ACL_COMPLEX64 = 16
ACL_COMPLEX128 = 17
ACL_BF16 = 27

SIZES = {
    ACL_FLOAT: 4,
    ACL_FLOAT16: 2,
    ACL_INT8: 1,
    ACL_INT32: 4,
    ACL_UINT8: 1,
    ACL_INT16: 2,
    ACL_UINT16: 2,
    ACL_UINT32: 4,
    ACL_INT64: 8,
    ACL_UINT64: 8,
    ACL_DOUBLE: 8,
    ACL_BOOL: 1,
    ACL_COMPLEX64: 8,
    ACL_COMPLEX128: 16,
    ACL_BF16: 2,
}

# aclrtReduceAsync's types on A2/A3 (docs/zh/api_ref/12_execution_control.md): int8, int16, int32, fp16, fp32, bf16
REDUCE_TYPES = {
    ACL_INT8: np.int8,
    ACL_INT16: np.int16,
    ACL_INT32: np.int32,
    ACL_FLOAT16: np.float16,
    ACL_FLOAT: np.float32,
    ACL_BF16: None,
}


def data_type_size(data_type) -> int:
    """aclDataTypeSize: bytes per element of an aclDataType; 0 for an unknown one (and ACL_STRING)."""
    return SIZES.get(data_type, 0) if type(data_type) is int else 0


def reduce_dtype(value, what: str) -> np.dtype:
    """The numpy type of a reduce's aclDataType (the acl layer refuses an unsupported one with 100000)."""
    code = as_int(value, what)
    if code not in REDUCE_TYPES:
        fail(
            ACL_ERROR_INVALID_PARAM,
            f"{what} {describe(value)} is not supported by aclrtReduceAsync: use ACL_INT8, "
            "ACL_INT16, ACL_INT32, ACL_FLOAT16, ACL_FLOAT or ACL_BF16",
        )
    if REDUCE_TYPES[code] is None:
        fail(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "aclrtReduceAsync with ACL_BF16 is not modelled by the sandbox "
            "(numpy has no bfloat16); use ACL_FLOAT or ACL_FLOAT16",
        )
    return np.dtype(REDUCE_TYPES[code])
