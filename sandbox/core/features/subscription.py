"""Model subscription (aclprofModelSubscribe): a record per operator of each execution of a subscribed model,
written into the program's file descriptor (a pipe's write end), read back with the aclprofGetOp* calls.

Sources: hicann/runtime at 681ef761, src/dfx/msprof/collector/dvvp/: the acl calls (msprofiler/prof_api_common.cpp,
prof_acl_core.cpp), the adapter (profimpl/adapter/src/msprofiler_acl_api.cpp, "adapter" below), the manager
(msprof/engine/src/prof_acl_mgr.cpp, "mgr"), the record and its parser (analyze/inc/data_struct.h, analyze/src/
analyzer.cpp, op_desc_parser.cpp, "parser"), the pipe's writer (transport/parser_transport.cpp); GE registers a
model's id at its load and forgets it at its unload (hicann/ge runtime/v1/graph/load/model_manager/
model_manager.cc:1508, 952-954).  The state is per simulated process, as the runtime's managers are.

* **aclprofCreateSubscribeConfig(timeInfo, metrics, fd)**: NULL (0) unless timeInfo is 0 or 1 (prof_api_common.cpp:
  32-39); metrics and the fd are kept unchecked (pyACL passes the fd's address, never NULL).  **Destroy**: NULL or no
  live config, 100000 (:54-62); a subscription keeps what it was made with.
* **aclprofModelSubscribe(modelId, cfg)**, checked in the sources' order: a model this process has not loaded (or
  has unloaded), 100011 ACL_ERROR_INVALID_MODEL_ID (adapter:619-640); NULL cfg 100000 (:588-594); while aclprofInit's
  profiling is on, 148047 ACL_ERROR_PROF_API_CONFLICT (mgr:580-596); timeInfo 0 with ACL_AICORE_NONE, 100000:
  nothing to collect (mgr:1105-1121); the model subscribed already, 148046 ACL_ERROR_PROF_REPEAT_SUBSCRIBE
  (mgr:3334-3340); a config whose data types (timeInfo: task time, metrics other than NONE: AI Core metrics,
  mgr:1002-1016) or metrics differ from the subscriptions already on, 100010: they share the host's collection
  (mgr:1631-1658, 3342-3354).
* **aclprofModelUnSubscribe(modelId)**: a model not loaded, 100011 (adapter:671-680); 148047 as above; a model not
  subscribed, 100011 (mgr:3401-3407).  The runtime closes the fd unless another subscription writes into it
  (mgr:2759-2818, 3448-3453), and the reader reads to the end of the pipe; an execution that ends after the
  unsubscribe writes nothing (synchronize first).  After aclmdlUnload the unsubscribe is 100011 and the fd stays
  open: unsubscribe first.  Subscribed, aclprofInit/Start/Stop/Finalize are 148047 (core/features/profiling.py).
* **The records**: when an execution of a subscribed model completes (its task's end, in virtual time) one record
  per operator goes into the fd; a stand-in model is one operator, named and typed by the model's name (as
  op_summary lists its executions).  A record is the runtime's ProfOpDesc (analyze/inc/data_struct.h:202-215), 80
  bytes, little-endian: u32 signature (utils.cpp:1247-1293, over the other 76 bytes), u32 model id, u32 flag
  (ACL_SUBSCRIBE_OP), u32 the host thread that executed it (the trace's tid), u64 op index, u64 duration, u64
  start, u64 end, u64 AI Core time, u64 cube and u64 vector fops (0: not modelled), u32 device id, 4 bytes of 0.
  Times are virtual ns: the docs say us (19-03:13-15), the parser reckons ns (analyzer_base.cpp:77); with
  timeInfo 0 they are 0 (the sandbox's choice: no task time is collected).  The names stay with the process under
  the op index (analyzer.cpp:349-353) and each is handed over once: a second aclprofGetOpType or GetOpName of a
  record is 100000 (parser:134-211).  Failed executions write nothing (the sandbox's choice).
* **The readers** (parser:26-314) check the bytes first: NULL, a length not a multiple of 80, or a record whose
  signature is wrong, 100000; an index past the records, 100000.  GetOpTypeLen/NameLen give the length with its
  NUL; GetOpType/Name(len) copy into len bytes: a len of 0 or below the name's bytes 100000, equal cuts the last
  byte.  GetOpStart/End/Duration return 0 on failure, GetModelId the code itself (adapter:684-704).  An address
  that is no host memory the sandbox knows is 100000 (on a board, undefined).
* **The pipe** (the sandbox's choice where a board's uploader thread retries a full pipe every ms, parser_transport.cpp:
  99-149): writes never block; a record that does not fit waits in the subscription's queue, up to the 200,000
  records of msprof's subscribe uploader (adapter:553; more are dropped, with a ``Note``), and goes in as the reader
  makes room.  A write that fails (a closed fd) drops the records, with a ``Note``.  A thread of the program that
  reads such a pipe with ``os.read`` (the fd blocking) and finds it empty waits in virtual time, as a synchronize
  does, until a record or the end comes (a file object's read blocks as the OS's); a wait that can never end
  raises OSError(EDEADLK) instead of hanging.  An unsubscribe with records queued closes the fd once they are in.
"""
from __future__ import annotations

import errno
import os
import select
import stat
import struct
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .. import constants as C
from ..current_machine import peek_current
from ..errors import (ACL_ERROR_INVALID_MODEL_ID, ACL_ERROR_INVALID_PARAM, ACL_ERROR_INVALID_PROFILING_CONFIG,
                      ACL_ERROR_PROF_API_CONFLICT, ACL_ERROR_PROF_REPEAT_SUBSCRIBE, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                      AclError, describe, fail)
from ..gate import call
from ..trace import Note
from . import models, profiling

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import HostThread

RECORD = struct.Struct("<IIIIQQQQQQQI4x")   # ProfOpDesc: 80 bytes
CAPACITY = 200_000                          # records the subscribe uploader holds (adapter:553)
NAME_LIMIT = 4096                           # pyACL's limit on op_type_len / op_name_len (prof_wrap.cpp)


def _entry(byte: int) -> int:
    for _ in range(8):
        byte = (byte >> 1) ^ 0x82F63B78 if byte & 1 else byte >> 1
    return byte


_TABLE = [_entry(i) for i in range(256)]   # GenerateSignature's table: CRC-32C's (no final inversion)


def signature(body: bytes) -> int:
    """GenerateSignature (utils.cpp:1247-1293) of a record's bytes after the signature."""
    value = 0xFFFFFFFF
    for byte in body:
        value = _TABLE[(value ^ byte) & 0xFF] ^ (value >> 8)
    return value


@dataclass
class Config:
    time_info: int
    metrics: int
    fd: int


@dataclass
class Pipe:
    """One fd the subscriptions write into (by its number, as the runtime compares them: mgr:2804-2808)."""
    fd: int
    inode: tuple | None               # (st_dev, st_ino) of a FIFO: its read end is found by it
    users: int = 0
    queue: deque = field(default_factory=deque)   # records waiting for room
    writes: int = 0                   # records written: a reader waiting for the pipe wakes when it grows
    closing: bool = False             # unsubscribed with records queued: closed once they are in
    failed: str = ""
    dropped: int = 0                  # records dropped for want of room


@dataclass
class Subscription:
    model_id: int
    pid: int
    time_info: int
    metrics: int
    pipe: Pipe


@dataclass
class Process:
    configs: dict = field(default_factory=dict)
    names: dict = field(default_factory=dict)     # op index -> [op type, op name] (None once handed over)
    next_index: int = 1


class Subscriptions:
    """The machine's model subscriptions, made on first use."""

    def __init__(self, m: Machine):
        self.m = m
        self.processes: dict[int, Process] = {}
        self.models: dict[int, Subscription] = {}      # model id (unique on the machine) -> its subscription
        self.pipes: dict[int, Pipe] = {}               # fd -> the pipe written through it
        self.inodes: dict[tuple, Pipe] = {}
        m.hooks.add("task_finished", self.finished)
        m.scheduler.hints.append(self.hint)
        if os.read is not read:
            os.read = read

    def process(self, th: HostThread) -> Process:
        return self.processes.setdefault(th.process.pid, Process())

    # -- the writer ---------------------------------------------------------------------------------
    def finished(self, task, status: int) -> None:
        """A model's execution ended: its subscription's record (the hook core/hooks.py's task_finished)."""
        if not self.models or task.kind != "model" or status:
            return
        sub = self.models.get(dict(task.detail).get("model_id", 0))
        if sub is None:
            return
        p = self.processes[sub.pid]
        index, p.next_index = p.next_index, p.next_index + 1
        p.names[index] = [task.name, task.name]
        end = task.end_t
        start = end - (task.duration(task.cores) if callable(task.duration) else task.duration)
        times = (end - start, start, end, end - start) if sub.time_info else (0, 0, 0, 0)
        body = RECORD.pack(0, sub.model_id, C.ACL_SUBSCRIBE_OP, task.tid, index, *times, 0, 0, task.device)[4:]
        self.send(sub.pipe, struct.pack("<I", signature(body)) + body, end, task.tid)

    def send(self, pipe: Pipe, record: bytes, t: int, tid: int) -> None:
        self.flush(pipe, t, tid)
        if pipe.failed:
            return
        if pipe.queue or not self.write(pipe, record, t, tid):
            if len(pipe.queue) < CAPACITY:
                pipe.queue.append(record)
                return
            pipe.dropped += 1
            if pipe.dropped == 1:
                self.m.log.append(Note(t, tid, f"model subscription: fd {pipe.fd} is full and {CAPACITY} records "
                                       "wait already: the records beyond are dropped (read the pipe)"))

    def flush(self, pipe: Pipe, t: int, tid: int) -> None:
        """Write the queued records that fit; close the fd once they are in, if it was unsubscribed."""
        while pipe.queue and not pipe.failed and self.write(pipe, pipe.queue[0], t, tid):
            pipe.queue.popleft()
        if pipe.closing and (not pipe.queue or pipe.failed):
            self.close(pipe)

    def write(self, pipe: Pipe, record: bytes, t: int, tid: int) -> bool:
        """One record into the fd without blocking: False if it is full."""
        try:
            blocking = os.get_blocking(pipe.fd)
            os.set_blocking(pipe.fd, False)
            try:
                os.write(pipe.fd, record)
            finally:
                if blocking:
                    os.set_blocking(pipe.fd, True)
        except BlockingIOError:
            return False
        except OSError as exc:
            pipe.failed = exc.strerror or str(exc)
            self.m.log.append(Note(t, tid, f"model subscription: writing into fd {pipe.fd} failed ({pipe.failed}): "
                                   "its records are dropped"))
            return False
        pipe.writes += 1
        return True

    def close(self, pipe: Pipe) -> None:
        del self.pipes[pipe.fd]
        if pipe.inode is not None:
            del self.inodes[pipe.inode]
        pipe.closing, pipe.writes = False, pipe.writes + 1
        try:
            os.close(pipe.fd)
        except OSError:
            pass                          # closed by the program already

    # -- a thread reading a pipe --------------------------------------------------------------------
    def wait(self, m: Machine, th: HostThread, pipe: Pipe, fd: int, blocking: bool) -> str:
        """Until the pipe read through ``fd`` has bytes or its end (``blocking``: an fd without O_NONBLOCK): ""
        then, or why it never will."""
        self.flush(pipe, th.clock, th.tid)            # the last read made room
        if not blocking or _readable(fd):
            return ""
        seen = pipe.writes
        try:
            m.block_until(th, lambda: pipe.writes != seen, "os.read of a model subscription's pipe",
                          hopeless=ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        except AclError as exc:
            m.log.append(Note(th.clock, th.tid, f"model subscription: {exc.message}"))
            return exc.message
        return ""

    def hint(self) -> str:
        """Why a reader may never wake: pipes whose subscription cannot end or whose writes failed."""
        why = [f"model {s.model_id} was unloaded while subscribed, so aclprofModelUnSubscribe is 100011 and fd "
               f"{s.pipe.fd} stays open (unsubscribe before aclmdlUnload)" for s in self.models.values()
               if models.models(self.m).loaded.get(s.model_id) is None]
        why += [f"writing into fd {p.fd} failed ({p.failed})" for p in self.pipes.values() if p.failed]
        return "; " + "; ".join(why) if why else ("; the runtime closes a subscription's fd at aclprofModelUnSubscribe"
                                                  if self.models else "")


def state(m: Machine) -> Subscriptions:
    return m.feature(Subscriptions)


_real_read = os.read


def read(fd: int, n: int, /) -> bytes:
    """``os.read`` (installed at the first subscription): from a thread of the program, a read of a subscription's
    pipe that finds it empty waits in virtual time for the next record or the end; anything else reads as it is."""
    m = peek_current()
    subs = None if m is None else m.feature_in_use(Subscriptions)
    if subs is None or not subs.inodes or m is None or m.user_code or threading.get_ident() not in m.threads:
        return _real_read(fd, n)
    try:
        info = os.fstat(fd)
    except OSError:
        return _real_read(fd, n)
    pipe = subs.inodes.get((info.st_dev, info.st_ino)) if stat.S_ISFIFO(info.st_mode) else None
    if pipe is None or n <= 0:
        return _real_read(fd, n)
    blocking = os.get_blocking(fd)
    why: list = []
    while True:
        why.clear()
        call("os.read (subscription pipe)", lambda m, th: why.append(subs.wait(m, th, pipe, fd, blocking)), cost=0,
             args=("fd", fd, "n", n))
        if why and why[0]:
            raise OSError(errno.EDEADLK, why[0])
        if not blocking:
            return _real_read(fd, n)      # an empty pipe: BlockingIOError, as the fd asks
        os.set_blocking(fd, False)
        try:
            return _real_read(fd, n)
        except BlockingIOError:
            continue                      # another reader took the bytes: wait again
        finally:
            os.set_blocking(fd, True)


def _readable(fd: int) -> bool:
    try:
        return bool(select.select([fd], [], [], 0)[0])
    except (OSError, ValueError):
        return True                       # a bad fd: the read says so


# -- the calls -------------------------------------------------------------------------------------------
def create_config(m: Machine, th: HostThread, time_info: int, metrics: int, fd: int) -> int:
    if time_info not in (0, 1):
        fail(ACL_ERROR_INVALID_PARAM, f"time_info_switch must be 0 or 1, got {describe(time_info)}")
    handle = m.new_handle()
    state(m).process(th).configs[handle] = Config(time_info, metrics, fd)
    return handle


def _config(m: Machine, th: HostThread, handle: int) -> Config:
    config = state(m).process(th).configs.get(handle)
    if config is None:
        fail(ACL_ERROR_INVALID_PARAM, f"{describe(handle)} is not a live subscribe config of this process "
             "(aclprofCreateSubscribeConfig)")
    return config


def destroy_config(m: Machine, th: HostThread, handle: int) -> None:
    _config(m, th, handle)
    del state(m).process(th).configs[handle]


def _loaded(m: Machine, th: HostThread, model_id: int) -> int:
    loaded = models.models(m).loaded.get(model_id)
    if loaded is None or loaded.pid != th.process.pid:
        fail(ACL_ERROR_INVALID_MODEL_ID, f"model id {model_id} is not a model this process has loaded"
             + (" (an unloaded model's subscription cannot end: unsubscribe before aclmdlUnload)"
                if model_id in state(m).models else ""))
    return model_id


def _not_collecting(m: Machine, th: HostThread) -> None:
    if profiling._state(m, th).path is not None:
        fail(ACL_ERROR_PROF_API_CONFLICT, "aclprofInit's profiling is on, and model subscription and "
             "aclprofInit/Start/Stop/Finalize exclude each other: aclprofFinalize first")


def subscribe(m: Machine, th: HostThread, model_id: int, handle: int) -> None:
    subs = state(m)
    model_id = _loaded(m, th, model_id % (1 << 32))
    config = _config(m, th, handle)
    _not_collecting(m, th)
    if not config.time_info and config.metrics == C.ACL_AICORE_NONE:
        fail(ACL_ERROR_INVALID_PARAM, "a subscribe config with time_info_switch 0 and ACL_AICORE_NONE collects "
             "nothing: set time_info_switch to 1")
    if model_id in subs.models:
        fail(ACL_ERROR_PROF_REPEAT_SUBSCRIBE, f"model {model_id} is subscribed already (aclprofModelUnSubscribe "
             "first)")
    mine = [s for s in subs.models.values() if s.pid == th.process.pid]
    if mine and ((bool(mine[0].time_info), mine[0].metrics) != (bool(config.time_info), config.metrics)):
        fail(ACL_ERROR_INVALID_PROFILING_CONFIG, f"model {mine[0].model_id} is subscribed with time_info_switch "
             f"{mine[0].time_info} and metrics {mine[0].metrics}: every subscription of a process takes the same")
    pipe = subs.pipes.get(config.fd)
    if pipe is not None:
        pipe.closing = False              # written into again: it stays open
    else:
        try:
            info = os.fstat(config.fd)
            inode = (info.st_dev, info.st_ino) if stat.S_ISFIFO(info.st_mode) else None
        except OSError:
            inode = None                  # a bad fd: its first write says so
        pipe = subs.pipes[config.fd] = Pipe(config.fd, inode)
        if inode is not None:
            subs.inodes[inode] = pipe
    pipe.users += 1
    subs.models[model_id] = Subscription(model_id, th.process.pid, config.time_info, config.metrics, pipe)
    profiling._state(m, th).subscriptions += 1


def unsubscribe(m: Machine, th: HostThread, model_id: int) -> None:
    subs = state(m)
    model_id = _loaded(m, th, model_id % (1 << 32))
    _not_collecting(m, th)
    sub = subs.models.get(model_id)
    if sub is None:
        fail(ACL_ERROR_INVALID_MODEL_ID, f"model {model_id} is not subscribed (aclprofModelSubscribe)")
    del subs.models[model_id]
    profiling._state(m, th).subscriptions -= 1
    pipe = sub.pipe
    pipe.users -= 1
    if not pipe.users:
        pipe.closing = True
        subs.flush(pipe, th.clock, th.tid)
        m.scheduler.wake_ready(th.clock)  # a reader waiting on the pipe reads its end now


# -- the readers -----------------------------------------------------------------------------------------
def desc_size() -> int:
    return RECORD.size


def records(m: Machine, address: int, length: int) -> bytes:
    """The bytes at ``address`` (the program's copy of what it read), checked as the parser checks them."""
    length %= 1 << 32
    if not address:
        fail(ACL_ERROR_INVALID_PARAM, "op_info is 0 (NULL): pass the address of the bytes read from the pipe")
    if length % RECORD.size:
        fail(ACL_ERROR_INVALID_PARAM, f"op_info_len {length} is not a multiple of the record size {RECORD.size} "
             "(aclprofGetOpDescSize)")
    buf = m.buffer(address)
    if buf is None or buf.kind == "device" or address - buf.ptr + length > buf.size:
        fail(ACL_ERROR_INVALID_PARAM, f"{length} bytes at {address:#x} are not host memory the sandbox knows (use "
             "acl.util.bytes_to_ptr of the bytes read)")
    out = np.empty(length, dtype=np.uint8)
    buf.read_into(address - buf.ptr, out)
    data = out.tobytes()
    for i in range(0, length, RECORD.size):
        if struct.unpack_from("<I", data, i)[0] != signature(data[i + 4:i + RECORD.size]):
            fail(ACL_ERROR_INVALID_PARAM, f"record {i // RECORD.size} at {address + i:#x} is not a subscription record "
                 "(its signature does not match)")
    return data


def op_num(m: Machine, th: HostThread, address: int, length: int) -> int:
    return len(records(m, address, length)) // RECORD.size


def field_of(m: Machine, address: int, length: int, index: int) -> tuple:
    """The record ``index``'s fields (RECORD's order)."""
    data = records(m, address, length)
    index %= 1 << 32
    if (index + 1) * RECORD.size > len(data) or index + 1 == 1 << 32:
        fail(ACL_ERROR_INVALID_PARAM, f"index {index} is past the {len(data) // RECORD.size} records")
    return RECORD.unpack_from(data, index * RECORD.size)


def _name(m: Machine, th: HostThread, address: int, length: int, index: int, which: int) -> bytes:
    entry = state(m).process(th).names.get(field_of(m, address, length, index)[4])
    if entry is None or entry[which] is None:
        fail(ACL_ERROR_INVALID_PARAM, f"record {index}'s op {('type', 'name')[which]} was handed over already (each is "
             "read once) or was never this process's")
    return entry[which].encode()


def name_len(m: Machine, th: HostThread, address: int, length: int, index: int, which: int) -> int:
    """aclprofGetOpTypeLen (``which`` 0) or GetOpNameLen (1): the bytes with the NUL."""
    return len(_name(m, th, address, length, index, which)) + 1


def name(m: Machine, th: HostThread, address: int, length: int, index: int, which: int, size: int) -> str:
    """aclprofGetOpType (``which`` 0) or GetOpName (1) into ``size`` bytes; handed over once."""
    if not size:
        fail(ACL_ERROR_INVALID_PARAM, "the length is 0")
    text = _name(m, th, address, length, index, which)
    if size < len(text):
        fail(ACL_ERROR_INVALID_PARAM, f"{size} bytes cannot hold the {len(text)} of the op {('type', 'name')[which]} "
             f"(with its NUL: {len(text) + 1}, aclprofGetOp{('Type', 'Name')[which]}Len)")
    names, op = state(m).process(th).names, field_of(m, address, length, index)[4]
    names[op][which] = None
    if names[op] == [None, None]:
        del names[op]
    return text[:size - 1].decode(errors="ignore") if size == len(text) else text.decode()
