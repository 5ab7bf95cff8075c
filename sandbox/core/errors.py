"""Error codes of the real runtime (acl_base_rt.h, rt_error_codes.h, ge_error_codes.h) and the sandbox's error type.

The core raises ``AclError`` for every failure; the facade turns it into the returned
int and the message of ``acl.get_recent_err_msg()`` (or re-raises it when the learner
asked for exceptions with ``sandbox.raise_on_error(True)``).
"""
from __future__ import annotations

from typing import NoReturn

_ACL_100 = """INVALID_PARAM UNINITIALIZE REPEAT_INITIALIZE INVALID_FILE WRITE_FILE INVALID_FILE_SIZE PARSE_FILE
FILE_MISSING_ATTR FILE_ATTR_INVALID INVALID_DUMP_CONFIG INVALID_PROFILING_CONFIG INVALID_MODEL_ID
DESERIALIZE_MODEL PARSE_MODEL READ_MODEL_FAILURE MODEL_SIZE_INVALID MODEL_MISSING_ATTR MODEL_INPUT_NOT_MATCH
MODEL_OUTPUT_NOT_MATCH MODEL_NOT_DYNAMIC OP_TYPE_NOT_MATCH OP_INPUT_NOT_MATCH OP_OUTPUT_NOT_MATCH
OP_ATTR_NOT_MATCH OP_NOT_FOUND OP_LOAD_FAILED UNSUPPORTED_DATA_TYPE FORMAT_NOT_MATCH
BIN_SELECTOR_NOT_REGISTERED KERNEL_NOT_FOUND BIN_SELECTOR_ALREADY_REGISTERED KERNEL_ALREADY_REGISTERED
INVALID_QUEUE_ID REPEAT_SUBSCRIBE STREAM_NOT_SUBSCRIBE THREAD_NOT_SUBSCRIBE WAIT_CALLBACK_TIMEOUT
REPEAT_FINALIZE NOT_STATIC_AIPP COMPILING_STUB_MODE GROUP_NOT_SET GROUP_NOT_CREATE PROF_ALREADY_RUN
PROF_NOT_RUN DUMP_ALREADY_RUN DUMP_NOT_RUN"""
_ACL_148 = """PROF_REPEAT_SUBSCRIBE PROF_API_CONFLICT INVALID_MAX_OPQUEUE_NUM_CONFIG INVALID_OPP_PATH
OP_UNSUPPORTED_DYNAMIC RELATIVE_RESOURCE_NOT_CLEARED UNSUPPORTED_JPEG INVALID_BUNDLE_MODEL_ID"""
_ACL_200 = """BAD_ALLOC API_NOT_SUPPORT INVALID_DEVICE MEMORY_ADDRESS_UNALIGNED RESOURCE_NOT_MATCH
INVALID_RESOURCE_HANDLE FEATURE_UNSUPPORTED PROF_MODULES_UNSUPPORTED"""
_ACL_300 = """STORAGE_OVER_LIMIT"""
_ACL_500 = """INTERNAL_ERROR FAILURE GE_FAILURE RT_FAILURE DRV_FAILURE PROFILING_FAILURE"""

_RT_107 = """PARAM_INVALID INVALID_DEVICEID CONTEXT_NULL STREAM_CONTEXT MODEL_CONTEXT STREAM_MODEL
EVENT_TIMESTAMP_INVALID EVENT_TIMESTAMP_REVERSAL ADDR_UNALIGNED FILE_OPEN FILE_WRITE STREAM_SUBSCRIBE
THREAD_SUBSCRIBE GROUP_NOT_SET GROUP_NOT_CREATE STREAM_NO_CB_REG INVALID_MEMORY_TYPE INVALID_HANDLE
INVALID_MALLOC_TYPE WAIT_TIMEOUT TASK_TIMEOUT SYSPARAMOPT_NOT_SET DEVICE_TASK_ABORT STREAM_ABORT
CAPTURE_DEPENDENCY STREAM_UNJOINED MODEL_CAPTURED STREAM_CAPTURED EVENT_CAPTURED STREAM_NOT_CAPTURED
CAPTURE_MODE_NOT_SUPPORT STREAM_CAPTURE_IMPLICIT -STREAM_CAPTURE_CONFLICT -STREAM_TASK_GROUP_STATUS
-STREAM_TASK_GROUP_INTR TASK_ABORT_STOP STREAM_CAPTURE_UNMATCHED MODEL_RUNNING STREAM_CAPTURE_WRONG_THREAD
INSUFFICIENT_INPUT_ARRAY MODEL_UPDATE_FAILED CAPTURE_MODE_BLOCK_ASYNC SYMBOL_NOT_FOUND INVALID_SYMBOL
INVALID_DEVICE_FUNCTION SUB_ACLGRAPH_IS_CAPTURING"""

_RT_207 = """FEATURE_NOT_SUPPORT MEMORY_ALLOCATION MEMORY_FREE AICORE_OVER_FLOW NO_DEVICE RESOURCE_ALLOC_FAIL
NO_PERMISSION NO_EVENT_RESOURCE NO_STREAM_RESOURCE NO_NOTIFY_RESOURCE NO_MODEL_RESOURCE NO_CDQ_RESOURCE
OVER_LIMIT QUEUE_EMPTY QUEUE_FULL REPEATED_INIT AIVEC_OVER_FLOW OVER_FLOW DEVICE_OOM
FEATURE_NOT_SUPPORT_UPDATE_OP TIMEOUT LINK_TYPE_NOT_SUPPORTED"""

_RT_507 = """INTERNAL_ERROR TS_ERROR STREAM_TASK_FULL STREAM_TASK_EMPTY STREAM_NOT_COMPLETE END_OF_SEQUENCE
EVENT_NOT_COMPLETE CONTEXT_RELEASE_ERROR SOC_VERSION TASK_TYPE_NOT_SUPPORT LOST_HEARTBEAT MODEL_EXECUTE
REPORT_TIMEOUT SYS_DMA AICORE_TIMEOUT AICORE_EXCEPTION AICORE_TRAP_EXCEPTION AICPU_TIMEOUT AICPU_EXCEPTION
AICPU_DATADUMP_RSP_ERR AICPU_MODEL_RSP_ERR PROFILING_ERROR IPC_ERROR MODEL_ABORT_NORMAL KERNEL_UNREGISTERING
RINGBUFFER_NOT_INIT RINGBUFFER_NO_DATA KERNEL_LOOKUP KERNEL_DUPLICATE DEBUG_REGISTER_FAIL
DEBUG_UNREGISTER_FAIL LABEL_CONTEXT PROGRAM_USE_OUT DEV_SETUP_ERROR VECTOR_CORE_TIMEOUT
VECTOR_CORE_EXCEPTION VECTOR_CORE_TRAP_EXCEPTION CDQ_BATCH_ABNORMAL DIE_MODE_CHANGE_ERROR DIE_SET_ERROR
INVALID_DIEID DIE_MODE_NOT_SET AICORE_TRAP_READ_OVERFLOW AICORE_TRAP_WRITE_OVERFLOW
VECTOR_CORE_TRAP_READ_OVERFLOW VECTOR_CORE_TRAP_WRITE_OVERFLOW STREAM_SYNC_TIMEOUT EVENT_SYNC_TIMEOUT
FFTS_PLUS_TIMEOUT FFTS_PLUS_EXCEPTION FFTS_PLUS_TRAP_EXCEPTION SEND_MSG COPY_DATA DEVICE_MEM_ERROR
HBM_MULTI_BIT_ECC_ERROR SUSPECT_DEVICE_MEM_ERROR LINK_ERROR SUSPECT_REMOTE_ERROR"""

# the graph engine's codes, which the model calls (aclmdl*) return: include/external/acl/error_codes/
# ge_error_codes.h:34-71 (hicann/runtime), passed through by ACL_GET_ERRCODE_GE (hicann/ge
# api/acl/common/error_codes_inner.h:17-28)
_GE = {
    145000: "PARAM_INVALID", 145001: "EXEC_NOT_INIT", 145002: "EXEC_MODEL_PATH_INVALID",
    145003: "EXEC_MODEL_ID_INVALID", 145006: "EXEC_MODEL_DATA_SIZE_INVALID", 145007: "EXEC_MODEL_ADDR_INVALID",
    145008: "EXEC_MODEL_QUEUE_ID_INVALID", 145009: "EXEC_LOAD_MODEL_REPEATED", 145011: "DYNAMIC_INPUT_ADDR_INVALID",
    145012: "DYNAMIC_INPUT_LENGTH_INVALID", 145013: "DYNAMIC_BATCH_SIZE_INVALID", 145014: "AIPP_BATCH_EMPTY",
    145015: "AIPP_NOT_EXIST", 145016: "AIPP_MODE_INVALID", 145017: "OP_TASK_TYPE_INVALID",
    145018: "OP_KERNEL_TYPE_INVALID", 145019: "PLGMGR_PATH_INVALID", 145020: "FORMAT_INVALID",
    145021: "SHAPE_INVALID", 145022: "DATATYPE_INVALID", 245000: "MEMORY_ALLOCATION",
    245001: "MEMORY_OPERATE_FAILED", 245002: "DEVICE_MEMORY_OPERATE_FAILED", 345102: "SUBHEALTHY",
    345103: "USER_RAISE_EXCEPTION", 345104: "DATA_NOT_ALIGNED", 545000: "INTERNAL_ERROR", 545001: "LOAD_MODEL",
    545002: "EXEC_LOAD_MODEL_PARTITION_FAILED", 545003: "EXEC_LOAD_WEIGHT_PARTITION_FAILED",
    545004: "EXEC_LOAD_TASK_PARTITION_FAILED", 545005: "EXEC_LOAD_KERNEL_PARTITION_FAILED",
    545006: "EXEC_RELEASE_MODEL_DATA", 545007: "COMMAND_HANDLE", 545008: "GET_TENSOR_INFO", 545009: "UNLOAD_MODEL",
    545601: "MODEL_EXECUTE_TIMEOUT", 545602: "REDEPLOYING",
}

_RT_5079 = {
    507899: "ACL_ERROR_RT_DRV_INTERNAL_ERROR", 507900: "ACL_ERROR_RT_AICPU_INTERNAL_ERROR",
    507901: "ACL_ERROR_RT_SOCKET_CLOSE", 507902: "ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR",
    507903: "ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED", 507904: "ACL_ERROR_RT_COMM_OP_RETRY_FAIL",
    507905: "ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT", 507906: "ACL_ERROR_SNAPSHOT_LOCK_FAILED",
    507907: "ACL_ERROR_SNAPSHOT_UNLOCK_FAILED", 507908: "ACL_ERROR_SNAPSHOT_BACKUP_FAILED",
    507909: "ACL_ERROR_SNAPSHOT_RESTORE_FAILED", 507910: "ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
    507911: "ACL_ERROR_HOST_MEMORY_NOT_REGISTERED", 507912: "ACL_ERROR_SNAPSHOT_CALLBACK_FAILED",
    507913: "ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED", 507914: "ACL_ERROR_RT_L3_PORT_ERROR",
    507915: "ACL_ERROR_RT_CCU_TIMEOUT", 507916: "ACL_ERROR_RT_CCU_EXCEPTION",
}


def _numbered(first: int, words: str, prefix: str = "ACL_ERROR_RT_") -> dict[str, int]:
    """The codes are consecutive runs; among the runtime's a leading '-' marks the three without the RT_ prefix."""
    table = {}
    for offset, word in enumerate(words.split()):
        table[("ACL_ERROR_" if word.startswith("-") else prefix) + word.lstrip("-")] = first + offset
    return table


ACL_CODES: dict[str, int] = {
    "ACL_SUCCESS": 0, "ACL_ERROR_NONE": 0, "ACL_RT_SUCCESS": 0,
    **_numbered(100000, _ACL_100, "ACL_ERROR_"), **_numbered(148046, _ACL_148, "ACL_ERROR_"),
    **_numbered(200000, _ACL_200, "ACL_ERROR_"), **_numbered(300000, _ACL_300, "ACL_ERROR_"),
    **_numbered(500000, _ACL_500, "ACL_ERROR_"),
}
RT_CODES: dict[str, int] = {
    **_numbered(107000, _RT_107), **_numbered(207000, _RT_207), **_numbered(507000, _RT_507),
    **{name: code for code, name in _RT_5079.items()},
}
GE_CODES: dict[str, int] = {f"ACL_ERROR_GE_{word}": code for code, word in _GE.items()}
ALL_CODES: dict[str, int] = {**ACL_CODES, **RT_CODES, **GE_CODES}
CODE_NAMES: dict[int, str] = {}
for _name, _code in ALL_CODES.items():
    CODE_NAMES.setdefault(_code, _name)   # first name wins: ACL_SUCCESS for 0
# the real header misspells 207018 in one doc table; keep the header's spelling as an alias
ALL_CODES["ACL_ERROR_RT_DEVIDE_OOM"] = ALL_CODES["ACL_ERROR_RT_DEVICE_OOM"]

globals().update(ALL_CODES)   # codes importable by name: from sandbox.core.errors import ACL_ERROR_...


def __getattr__(name: str) -> int:
    """Only reached for a name that is no code (the codes are module attributes, set just above):
    it tells type checkers that every ACL_ERROR_* name of ALL_CODES is an int, without a
    second list of them."""
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def code_name(code: int) -> str:
    return CODE_NAMES.get(code, f"UNKNOWN_ERROR_{code}")


class AclError(Exception):
    """A runtime call failed: the code the real runtime returns, its C name and a message."""

    def __init__(self, code: int, message: str):
        super().__init__(code, message)
        self.code = code
        self.name = code_name(code)
        self.message = message

    def __str__(self) -> str:
        return f"{self.name} ({self.code}): {self.message}"


class RunAborted(BaseException):
    """A grader gave up on a run (time limit, the stop button): the run's next runtime call
    unwinds the program.  A BaseException, so that ``except Exception`` in the program
    cannot swallow it."""


def fail(code: int, message: str) -> NoReturn:
    """Raise the runtime's error ``code`` with a message for get_recent_err_msg()."""
    raise AclError(code, message)


# -- naming a caller's value in a message -------------------------------------------------------
_SHOWN = 60                  # longest text shown of a string or a small container
_PLAIN = (type(None), bool, int, float, complex, str)


def _plain(value, depth: int = 0) -> bool:
    """Data whose repr is the same in every run (no address, no hash-seed order): exact
    scalars, and lists, tuples and dicts of them (sets are not: their order follows hashes)."""
    t = type(value)
    if t is int:
        return -10 ** 30 < value < 10 ** 30
    if t in _PLAIN:
        return True
    if depth < 3 and t in (list, tuple):
        return len(value) <= 16 and all(_plain(v, depth + 1) for v in value)
    if depth < 3 and t is dict:
        return len(value) <= 16 and all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return False


def _a(word: str) -> str:
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def describe(value, limit: int = _SHOWN) -> str:
    """How a message names a value the caller passed: ints, floats, strings, None and bools as
    Python writes them, anything else by its kind ("function on_done", "a list [1, 2]", "an
    ndarray of shape (3,) and dtype int64", "a Foo object") -- never by a repr, which may hold a
    memory address and so differ from run to run.  ``limit``: the longest string or container
    text shown whole.  Never raises."""
    t = type(value)
    if t is int:
        return repr(value) if -10 ** 30 < value < 10 ** 30 else f"an int of {value.bit_length()} bits"
    if t is str:
        return repr(value) if len(value) <= limit else f"{value[:limit]!r}... ({len(value)} characters)"
    if t in _PLAIN:
        return repr(value)
    try:
        return _describe_object(value, t, limit)
    except Exception:        # noqa: BLE001 - a hostile __len__ or attribute: fall back to the type's name
        return _a(f"{t.__name__} object")


def _describe_object(value, t, limit: int) -> str:
    import types
    np = __import__("sys").modules.get("numpy")      # no numpy loaded: no numpy value to name
    if np is not None and isinstance(value, np.ndarray):
        name = "an ndarray" if t is np.ndarray else _a(t.__name__)
        return f"{name} of shape {value.shape} and dtype {value.dtype}"
    if np is not None and isinstance(value, np.generic):
        return f"numpy.{t.__name__} {describe(value.item()) if isinstance(value, (str, bytes)) else value}"  # type: ignore[union-attr]  # numpy.str_ is both
    if t in (list, tuple, dict, set, frozenset):
        n = len(value)
        if t not in (set, frozenset) and _plain(value) and len(text := repr(value)) <= limit:
            return f"{_a(t.__name__)} {text}"
        return f"{_a(t.__name__)} of {n} item{'' if n == 1 else 's'}"
    if t in (bytes, bytearray, memoryview):
        return f"{_a(t.__name__)} object of {value.nbytes if t is memoryview else len(value)} bytes"
    if isinstance(value, types.FunctionType):
        return f"function {value.__name__}"
    if isinstance(value, types.MethodType):
        return f"method {getattr(value.__func__, '__qualname__', '?')}"
    if isinstance(value, types.BuiltinFunctionType):
        owner = getattr(value, "__self__", None)
        if owner is None or isinstance(owner, types.ModuleType):
            return f"built-in function {value.__name__}"
        return f"built-in method {value.__name__} of {_a(type(owner).__name__)}"
    if isinstance(value, type):
        return f"class {value.__qualname__}"
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    if isinstance(value, bool):
        return repr(bool(value))
    if isinstance(value, (int, float, str)):             # a subclass: an IntEnum, a str subclass ...
        base = next(b for b in (int, float, str) if isinstance(value, b))
        return f"{_a(t.__name__)} {describe(base(value))}"
    if t is object:
        return "an object"
    return _a(f"{t.__qualname__} object")
