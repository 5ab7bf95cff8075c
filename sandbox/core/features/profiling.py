"""Profiling (aclprof*): a collection from aclprofStart to aclprofStop, its configs, msproftx marks and ranges.

Sources: hicann/runtime at 681ef761, src/dfx/msprof/collector/dvvp/ (``dvvp/`` below): the acl entry points
(msprofiler/prof_acl_api.cpp, prof_acl_core.cpp), the adapter (profimpl/adapter/src/msprofiler_acl_api.cpp,
msproftx_adaptor.cpp), the manager (msprof/engine/src/prof_acl_mgr.cpp) and the msproftx manager
(msprof/msproftx/src/msprof_tx_manager.cpp, prof_stamp_pool.cpp).  The docs (docs/zh/api_ref/
19-01_data_profiling_apis.md:24) say Start, Stop and Finalize fail without aclprofInit: the source does not,
and the source wins.  The state is per simulated process, as the runtime's managers are per process.

* **aclprofInit(path)**: "" (length 0) or a path of 4096 bytes or more: 100000 (msprofiler_acl_api.cpp:95-123);
  a second init: 100002 (prof_acl_mgr.cpp:537-543).  The path need not exist: init records it, made absolute
  (:856-866), and aclprofStart creates it, or fails with 100003 (:878-917, called at :3169).
* **aclprofFinalize()**: 0 without init (msprofiler_acl_api.cpp:184-189).  A collection still running is
  written and ended as by aclprofStop (the runtime flushes every module first, :196-199); msproftx goes down
  (prof_acl_mgr.cpp:968) and the stamps with it.
* **aclprofCreateConfig(devices, metrics, events, data_types)**: NULL (0) for events not NULL, more than 64
  devices or more than the machine has, an id not present, an id twice (prof_acl_api.cpp:51-121), or no device
  unless ACL_PROF_MSPROFTX is set (:173-179).  The config ORs in the internal AICPU_MODEL bit (:190) and
  expands the task-time levels: TASK_TIME adds TASK_TIME_L0, L2 and OP_ATTR add L0 and TASK_TIME, L3 adds
  L0, TASK_TIME and L2, any of them TRAINING_TRACE, and API_STATS leaves ACL_API|API_STATS alone
  (:201-218).  So a config made with data types 0 holds AICPU_MODEL: aclprofStart's 100000 for a zero data
  type (msprofiler_acl_api.cpp:221-227) cannot be reached through it, and such a start succeeds.
* **aclprofDestroyConfig(cfg)**: NULL: 100000 (prof_acl_api.cpp:225-243).
* **aclprofStart(cfg)**: NULL takes the default config (msprofiler_acl_api.cpp:366-369: the devices set,
  ACL_API|TASK_TIME|TASK_TIME_L0|AICORE_METRICS, platform_interface.cpp:225-230).  A bit outside the
  supported set: 200007 (:228-239, prof_api_common.h:28-32); AICORE_METRICS with a metric not in the enum:
  100000 (prof_acl_mgr.cpp:3214-3239).  Without init it initialises itself with the ACL_PROF_PATH set
  before, or "./" (:301-332).  While a collection runs, a second start is 0 with the same data types, 100010
  with others (:396-397, prof_acl_mgr.cpp:3270-3298).
* **aclprofStop(cfg)**: 0 without init (msprofiler_acl_api.cpp:415-423); NULL stops the running collection
  (:425-431); the same 200007 check as start (:433-437); data types other than the running ones: 100010
  (prof_acl_mgr.cpp:3261, 3270-3298); initialised but not running: 0.  The stop writes the collection
  (sandbox/export/msprof.py, through ``write``) and records it.
* **aclprofSetConfig(type, value)**: a type outside (ACL_PROF_ARGS_MIN, ACL_PROF_ARGS_MAX) or a value over 256
  bytes: 100000 (msprofiler_acl_api.cpp:58-93); a sampling frequency outside its range (hardware memory, DVPP,
  low power, IO: [1, 100], the sandbox's choice for hardware memory, which chips sampling in µs take up to
  10000; interconnection, host usage, CPU: [1, 50]) or type 2, which the enum lacks: 100010 (:534-541,
  task_handle/src/prof_params_adapter.cpp:294-416).  ACL_PROF_PATH is the path a start
  without init takes, and once initialised replaces the init path (prof_acl_mgr.cpp:2879-2887).  The other
  values are recorded unchecked: the sandbox collects none of what they tune.
* **msproftx** works from a start whose data types hold ACL_PROF_MSPROFTX until aclprofFinalize
  (prof_acl_mgr.cpp:2580-2591, 968).  Before: CreateStamp returns NULL, Mark/MarkEx/Push/Pop/RangeStart/
  RangeStop return -1 (PROFILING_FAILED, not an ACL code: msprof_tx_manager.cpp:100-111, 211-216, 233,
  285-290, 302-307, 322-330, 353-360).  Push and RangeStart with a NULL stamp: 100000, before that check
  (msproftx_adaptor.cpp:116-154); Mark and SetStampTraceMessage with NULL: -1, as a message of 128 bytes or
  more (msprof_tx_manager.cpp:181-222); MarkEx with a NULL stream, an empty message or one over 155 bytes:
  -1 (:230-244).  A stamp is a slot of a pool of 100, the first free one (prof_stamp_pool.cpp:94-120); its
  slot is its range id (:184-191); RangeStop of an id never started: -1 (:171-182); Pop with nothing pushed:
  -1 (:158-169).  The push stack is the process's (one, not one per thread).  A handle that is no live stamp
  counts as NULL.  Marks and ranges are ``Note`` records of kind "msproftx" on the calling thread's row
  (a range: the thread that closed it, ``began`` when it opened).
* **Model subscription** (core/features/subscription.py) and this API exclude each other: while a model is
  subscribed, aclprofInit, aclprofStart (after the 200007 check), aclprofStop of a config and aclprofFinalize are
  148047 ACL_ERROR_PROF_API_CONFLICT (prof_acl_mgr.cpp:525-566, 580-596; the docs' 19-03:24).
* **Step info**: aclprofGetStepTimestamp with NULL info, a second START or a second END: 100000; a tag other
  than START counts as END (prof_acl_core.cpp:48-77); a stream the runtime refuses: 500002 (:70-74), and the
  sandbox checks the stream before it marks the info started or ended.  It works with or without a
  collection and leaves a ``Note`` of kind "step".  On a board MarkEx and the step timestamp also put a
  marker task on the stream (rtProfilerTraceEx); the sandbox marks the host's time only.

A failure changes nothing: every check comes first.  The failures that return -1 carry the name
PROFILING_FAILED in their ErrorRaised record.  The collection's folder is named as msprof names it
(dvvp/common/utils/utils.cpp:1161-1233), ``PROF_<index>_<time>_<pid><8 letters A-R>``, with a deterministic
time and suffix (``collection_name``).
"""
from __future__ import annotations

import numbers
import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, NoReturn

from .. import constants as C
from ..errors import (ACL_ERROR_GE_FAILURE, ACL_ERROR_INVALID_FILE, ACL_ERROR_INVALID_PARAM,
                      ACL_ERROR_INVALID_PROFILING_CONFIG, ACL_ERROR_PROF_API_CONFLICT,
                      ACL_ERROR_PROF_MODULES_UNSUPPORTED, ACL_ERROR_PROFILING_FAILURE, ACL_ERROR_REPEAT_INITIALIZE,
                      AclError, describe, fail)
from ..trace import Note, ProfilingStarted, ProfilingStopped

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import HostThread

AICPU_MODEL = 0x4000000000000000      # PROF_AICPU_MODEL (src/dfx/msprof/inc/toolchain/prof_data_config.h:56)
SUPPORTED = (0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100 | 0x200 | 0x800 | 0x1000 | 0x2000 | 0x4000
             | 0x8000 | 0x01000000 | 0x400000000 | 0x800000000 | AICPU_MODEL)   # PROF_SWITCH_SUPPORT (release build)
DEFAULT = C.ACL_PROF_ACL_API | C.ACL_PROF_TASK_TIME | C.ACL_PROF_TASK_TIME_L0 | C.ACL_PROF_AICORE_METRICS | AICPU_MODEL
FREQUENCIES = {C.ACL_PROF_SYS_HARDWARE_MEM_FREQ: 100, C.ACL_PROF_SYS_IO_FREQ: 100, C.ACL_PROF_DVPP_FREQ: 100,
               C.ACL_PROF_LOW_POWER_FREQ: 100, C.ACL_PROF_SYS_INTERCONNECTION_FREQ: 50,
               C.ACL_PROF_HOST_SYS_USAGE_FREQ: 50, C.ACL_PROF_SYS_CPU_FREQ: 50}
MAX_DEVICES, STAMPS, MESSAGE_BYTES, MARK_EX_BYTES = 64, 100, 128, 155
EPOCH = datetime(1970, 1, 1)          # virtual time 0 is 1970-01-01 00:00:00.000 (UTC), in folder and file names


@dataclass
class Config:
    devices: tuple[int, ...]
    metrics: int
    data_types: int                   # as expanded (the internal AICPU_MODEL bit included)


@dataclass
class Stamp:
    slot: int
    message: str = ""
    opened: int | None = None         # when its range last started (RangeStart), None if never


@dataclass
class Process:
    """One process's profiling: the init path, the running collection, configs, stamps, step infos."""
    path: str | None = None           # None: not initialised
    config_path: str = ""             # ACL_PROF_PATH
    options: dict = field(default_factory=dict)
    started: ProfilingStarted | None = None
    starts: int = 0
    tx: bool = False
    configs: dict = field(default_factory=dict)
    stamps: dict = field(default_factory=dict)
    free: list = field(default_factory=lambda: list(range(STAMPS - 1, -1, -1)))   # the pool's free slots, last first
    stack: list = field(default_factory=list)       # (stamp, when pushed)
    steps: dict = field(default_factory=dict)       # handle -> [index, started, ended]
    next_step: int = 1
    subscriptions: int = 0            # models subscribed (core/features/subscription.py): this API is off meanwhile


class Profiling:
    """The machine's profiling state, made on first use."""

    def __init__(self, m: Machine):
        self.processes: dict[int, Process] = {}


def _state(m: Machine, th: HostThread) -> Process:
    return m.feature(Profiling).processes.setdefault(th.process.pid, Process())



def _not_subscribed(p: Process) -> None:
    if p.subscriptions:
        fail(ACL_ERROR_PROF_API_CONFLICT, "a model is subscribed (aclprofModelSubscribe), and model subscription and "
             "aclprofInit/Start/Stop/Finalize exclude each other: aclprofModelUnSubscribe first")


def expand(data_types: int) -> int:
    """What aclprofCreateConfig stores for ``data_types`` (prof_acl_api.cpp:190, 201-218)."""
    out = data_types | AICPU_MODEL
    if data_types & C.ACL_PROF_TASK_TIME:
        out |= C.ACL_PROF_TASK_TIME_L0
    if data_types & (C.ACL_PROF_TASK_TIME_L2 | C.ACL_PROF_OP_ATTR):
        out |= C.ACL_PROF_TASK_TIME_L0 | C.ACL_PROF_TASK_TIME
    if data_types & C.ACL_PROF_TASK_TIME_L3:
        out |= C.ACL_PROF_TASK_TIME_L0 | C.ACL_PROF_TASK_TIME | C.ACL_PROF_TASK_TIME_L2
    if out & C.ACL_PROF_TASK_TIME_L0:
        out |= C.ACL_PROF_TRAINING_TRACE
    return C.ACL_PROF_ACL_API | C.ACL_PROF_API_STATS if data_types & C.ACL_PROF_API_STATS else out


def collection_name(pid: int, index: int, t: int) -> str:
    """``PROF_<6 digits>_<YYYYMMDDhhmmssmmm>_<pid, 8 digits><8 letters A-R>`` (utils.cpp:1161-1233): the start's
    index in its process, from 1; the virtual time of the start from ``EPOCH``; the letters, random on a board,
    made here from the pid and the index (a 64-bit mix written in base 18)."""
    stamp = EPOCH + timedelta(microseconds=t // 1000)
    mix = (pid * 0x9E3779B97F4A7C15 + (index + 1) * 0xBF58476D1CE4E5B9) % (1 << 64)
    letters = ""
    for _ in range(8):
        mix, digit = divmod(mix, 18)
        letters += chr(ord("A") + digit)
    return (f"PROF_{index % 999999 + 1:06d}_{stamp:%Y%m%d%H%M%S}{stamp.microsecond // 1000:03d}_"
            f"{pid:08d}{letters}")


def _tx_failed(message: str) -> NoReturn:
    """The msproftx calls' -1 (PROFILING_FAILED: dvvp/common/errno/error_code.h:21), not an ACL code."""
    exc = AclError(-1, message)
    exc.name = "PROFILING_FAILED"
    raise exc


# -- init, finalize, configs, start, stop ----------------------------------------------------------
def init(m: Machine, th: HostThread, path: str) -> None:
    p = _state(m, th)
    if not path or len(path.encode()) >= 4096:
        fail(ACL_ERROR_INVALID_PARAM, f"the result path must be 1 to 4095 bytes long, got {len(path.encode())}")
    _not_subscribed(p)
    if p.path is not None:
        fail(ACL_ERROR_REPEAT_INITIALIZE, f"profiling is already initialised (result path {p.path}): "
             "call aclprofFinalize first")
    p.path = os.path.abspath(path)


def finalize(m: Machine, th: HostThread, write) -> None:
    p = _state(m, th)
    _not_subscribed(p)
    if p.path is None:
        return
    if p.started is not None:
        _end(m, th, p, write)
    p.path, p.tx = None, False
    p.stamps.clear()
    p.stack.clear()
    p.free = list(range(STAMPS - 1, -1, -1))


def create_config(m: Machine, th: HostThread, devices, metrics: int, events: int, data_types: int) -> int:
    if events != 0:
        fail(ACL_ERROR_INVALID_PARAM, "aicore_events must be 0 (NULL): the runtime takes no AI Core events")
    if not isinstance(devices, (list, tuple)) or not all(isinstance(d, numbers.Integral) and not isinstance(d, bool)
                                                          for d in devices):
        fail(ACL_ERROR_INVALID_PARAM, f"device_list must be a list of device ids (ints), got {describe(devices)}")
    devices = [int(d) for d in devices]
    count = len(m.devices)
    if len(devices) > min(MAX_DEVICES, count):
        fail(ACL_ERROR_INVALID_PARAM, f"{len(devices)} devices listed, and this machine has {count}")
    for d in devices:
        if not 0 <= d < count:
            fail(ACL_ERROR_INVALID_PARAM, f"device id {d} is not present: this machine has devices 0..{count - 1}")
    if len(set(devices)) != len(devices):
        fail(ACL_ERROR_INVALID_PARAM, f"device_list names a device twice: {list(devices)}")
    if not devices and not data_types & C.ACL_PROF_MSPROFTX:
        fail(ACL_ERROR_INVALID_PARAM, "device_list is empty: list the devices to profile (an empty list is "
             "accepted only with ACL_PROF_MSPROFTX)")
    handle = m.new_handle()
    _state(m, th).configs[handle] = Config(tuple(devices), metrics, expand(data_types % (1 << 64)))
    return handle


def _config(p: Process, handle: int) -> Config:
    config = p.configs.get(handle)
    if config is None:
        fail(ACL_ERROR_INVALID_PARAM, f"{describe(handle)} is not a live profiling config of this process "
             "(aclprofCreateConfig)")
    return config


def destroy_config(m: Machine, th: HostThread, handle: int) -> None:
    p = _state(m, th)
    _config(p, handle)
    del p.configs[handle]


def _check(config: Config) -> None:
    outside = config.data_types & ~SUPPORTED
    if outside:
        fail(ACL_ERROR_PROF_MODULES_UNSUPPORTED, f"data types {outside:#x} are not supported; the supported bits "
             f"are {SUPPORTED:#x}")


def start(m: Machine, th: HostThread, handle: int) -> None:
    p = _state(m, th)
    if handle:
        config = _config(p, handle)
    else:
        devices = tuple(sorted(d for d, refs in th.process.device_refs.items() if refs > 0))
        config = Config(devices, C.ACL_AICORE_PIPE_UTILIZATION, DEFAULT)
    _check(config)
    _not_subscribed(p)
    if p.started is not None:
        if p.started.data_types != config.data_types:
            fail(ACL_ERROR_INVALID_PROFILING_CONFIG, f"a collection with data types {p.started.data_types:#x} is "
                 f"running; this config's are {config.data_types:#x}: stop it first")
        return
    if config.data_types & C.ACL_PROF_AICORE_METRICS and not (0 <= config.metrics <= 8 or config.metrics == 0xFF):
        fail(ACL_ERROR_INVALID_PARAM, f"aicore metrics {config.metrics} is no aclprofAicoreMetrics value")
    path = p.path if p.path is not None else os.path.abspath(p.config_path or "./")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        fail(ACL_ERROR_INVALID_FILE, f"the result path {path} cannot be created: {exc.strerror or exc}")
    if not os.access(path, os.W_OK):
        fail(ACL_ERROR_INVALID_FILE, f"the result path {path} is not writable")
    name = collection_name(th.process.pid, p.starts, th.clock)
    p.path, p.starts = path, p.starts + 1
    p.started = ProfilingStarted(th.clock, th.tid, th.process.pid, path, name, config.data_types, config.devices)
    m.log.append(p.started)
    p.tx = p.tx or bool(config.data_types & C.ACL_PROF_MSPROFTX)


def stop(m: Machine, th: HostThread, handle: int, write) -> None:
    p = _state(m, th)
    if p.subscriptions and handle:
        _check(_config(p, handle))
        _not_subscribed(p)
    if p.path is None or (not handle and p.started is None):
        return
    if handle:
        config = _config(p, handle)
        _check(config)
        if p.started is not None and p.started.data_types != config.data_types:
            fail(ACL_ERROR_INVALID_PROFILING_CONFIG, f"this config's data types {config.data_types:#x} differ from "
                 f"the running collection's {p.started.data_types:#x}")
    if p.started is not None:
        _end(m, th, p, write)


def _end(m: Machine, th: HostThread, p: Process, write) -> None:
    """Write the running collection's files (``write(log, started, t)``), then record its end."""
    started = p.started
    assert started is not None
    m.settle()                        # every task that ended by now is in the log
    try:
        write(m.log, started, th.clock)
    except OSError as exc:
        fail(ACL_ERROR_PROFILING_FAILURE, f"the collection {started.collection} could not be written under "
             f"{started.path}: {exc.strerror or exc}")
    m.log.append(ProfilingStopped(th.clock, th.tid, th.process.pid, started.collection, started.t))
    p.started = None


def set_config(m: Machine, th: HostThread, kind: int, value: str) -> None:
    p = _state(m, th)
    if not C.ACL_PROF_ARGS_MIN < kind < C.ACL_PROF_ARGS_MAX or len(value.encode()) > 256:
        fail(ACL_ERROR_INVALID_PARAM, f"config type {kind} must lie between ACL_PROF_ARGS_MIN and ACL_PROF_ARGS_MAX "
             f"and its value be at most 256 bytes ({len(value.encode())})")
    top = FREQUENCIES.get(kind)
    if kind == 2 or (top is not None and not (value.isascii() and value.isdigit() and 1 <= int(value) <= top)):
        fail(ACL_ERROR_INVALID_PROFILING_CONFIG, f"config type {kind} takes a frequency in [1, {top}] Hz, got "
             f"{value!r}" if top else "config type 2 does not exist (aclprofConfigType)")
    p.options[kind] = value
    if kind == C.ACL_PROF_PATH:
        p.config_path = value
        if p.path is not None and value:
            p.path = os.path.abspath(value)


# -- msproftx ----------------------------------------------------------------------------------------
def _tx(p: Process, api: str) -> None:
    if not p.tx:
        _tx_failed(f"msproftx is off: {api} works after aclprofStart with a config holding ACL_PROF_MSPROFTX")


def _stamp(p: Process, handle: int, code: int, api: str) -> Stamp:
    stamp = p.stamps.get(handle)
    if stamp is None:
        if code == -1:
            _tx_failed(f"{api}: {describe(handle)} is no live stamp (aclprofCreateStamp)")
        fail(code, f"{describe(handle)} is no live stamp (aclprofCreateStamp)")
    return stamp


def _note(m: Machine, th: HostThread, text: str, kind: str = "msproftx", began: int | None = None) -> None:
    m.log.append(Note(th.clock, th.tid, text, kind, began))


def create_stamp(m: Machine, th: HostThread) -> int:
    p = _state(m, th)
    if not p.tx:
        fail(ACL_ERROR_INVALID_PARAM, "msproftx is off: aclprofCreateStamp works after aclprofStart with a config "
             "holding ACL_PROF_MSPROFTX (it returns NULL before)")
    if not p.free:
        fail(ACL_ERROR_INVALID_PARAM, f"all {STAMPS} stamps of the pool are in use: destroy some")
    handle = m.new_handle()
    p.stamps[handle] = Stamp(p.free.pop())
    return handle


def destroy_stamp(m: Machine, th: HostThread, handle: int) -> None:
    p = _state(m, th)
    stamp = _stamp(p, handle, ACL_ERROR_INVALID_PARAM, "aclprofDestroyStamp")
    del p.stamps[handle]
    p.free.append(stamp.slot)


def set_stamp_message(m: Machine, th: HostThread, handle: int, msg: str, length: int) -> None:
    stamp = _stamp(_state(m, th), handle, -1, "aclprofSetStampTraceMessage")
    if length % (1 << 32) >= MESSAGE_BYTES:
        _tx_failed(f"aclprofSetStampTraceMessage: msg_len must be below {MESSAGE_BYTES}, got {length}")
    stamp.message = msg.encode()[: length % (1 << 32)].decode(errors="ignore")


def mark(m: Machine, th: HostThread, handle: int) -> None:
    p = _state(m, th)
    _tx(p, "aclprofMark")
    _note(m, th, _stamp(p, handle, -1, "aclprofMark").message)


def mark_ex(m: Machine, th: HostThread, msg: str, stream: int) -> None:
    p = _state(m, th)
    _tx(p, "aclprofMarkEx")
    if not stream or not 1 <= len(msg.encode()) <= MARK_EX_BYTES:
        _tx_failed(f"aclprofMarkEx takes a stream (not NULL) and a message of 1 to {MARK_EX_BYTES} bytes")
    try:
        m.stream(th, stream)
    except AclError as exc:
        _tx_failed(f"aclprofMarkEx: {exc.message}")
    _note(m, th, msg)


def push(m: Machine, th: HostThread, handle: int) -> None:
    p = _state(m, th)
    stamp = _stamp(p, handle, ACL_ERROR_INVALID_PARAM, "aclprofPush")
    _tx(p, "aclprofPush")
    p.stack.append((stamp, th.clock))


def pop(m: Machine, th: HostThread) -> None:
    p = _state(m, th)
    _tx(p, "aclprofPop")
    if not p.stack:
        _tx_failed("aclprofPop: nothing is pushed (aclprofPush)")
    stamp, began = p.stack.pop()
    _note(m, th, stamp.message, began=began)


def range_start(m: Machine, th: HostThread, handle: int) -> int:
    p = _state(m, th)
    stamp = _stamp(p, handle, ACL_ERROR_INVALID_PARAM, "aclprofRangeStart")
    _tx(p, "aclprofRangeStart")
    stamp.opened = th.clock
    return stamp.slot


def range_stop(m: Machine, th: HostThread, range_id: int) -> None:
    p = _state(m, th)
    _tx(p, "aclprofRangeStop")
    slot = range_id % (1 << 32)
    stamp = next((s for s in p.stamps.values() if s.slot == slot and s.opened is not None), None)
    if stamp is None:
        _tx_failed(f"aclprofRangeStop: range {range_id} was never started (aclprofRangeStart)")
    _note(m, th, stamp.message, began=stamp.opened)


# -- step info -----------------------------------------------------------------------------------------
def create_step_info(m: Machine, th: HostThread) -> int:
    p = _state(m, th)
    handle = m.new_handle()
    p.steps[handle] = [p.next_step, False, False]
    p.next_step += 1
    return handle


def get_step_timestamp(m: Machine, th: HostThread, handle: int, tag: int, stream: int) -> None:
    step = _state(m, th).steps.get(handle)
    if step is None:
        fail(ACL_ERROR_INVALID_PARAM, f"{describe(handle)} is no live step info (aclprofCreateStepInfo)")
    end = tag != C.ACL_STEP_START
    if step[1 + end]:
        fail(ACL_ERROR_INVALID_PARAM, f"step {step[0]} has {'ended' if end else 'started'} already")
    try:
        m.stream(th, stream)
    except AclError as exc:
        fail(ACL_ERROR_GE_FAILURE, f"the step's timestamp cannot be taken on this stream: {exc.message}")
    step[1 + end] = True
    _note(m, th, f"step {step[0]} {'end' if end else 'start'}", kind="step")


def destroy_step_info(m: Machine, th: HostThread, handle: int) -> None:
    p = _state(m, th)
    if handle not in p.steps:
        fail(ACL_ERROR_INVALID_PARAM, f"{describe(handle)} is no live step info (aclprofCreateStepInfo)")
    del p.steps[handle]
