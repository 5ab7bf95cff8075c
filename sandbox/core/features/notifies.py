"""Notifies and value waits: stream tasks that wait for a flag or a memory word, not a snapshot.

Built from the kernel's own pieces: ``Machine.submit``, ``Task``, the callback engine's held-open
tasks, the hazard clocks.

Sources (hicann/runtime): include/external/acl/acl_rt.h:43-53 (flags), 3796-3912 (signatures);
docs/zh/api_ref/08_notify_management.md, 11-09_stream_memory_operation.md; src/acl/aclrt_impl/
notify.cpp:25-68, memory.cpp:1441-1458; src/runtime/api/api_c_event.cc:119-155,
api_c_memory.cc:559-595, api/impl/api_error.cc:4356-4440 and 7249-7295, api/impl/api_impl.cc:4790-4945.

* A notify is one flag (docs 08: "block the stream until the notify completes, then reset it").
  aclrtRecordNotify queues a task that sets it.  aclrtWaitAndResetNotify queues a task that,
  once reached, holds its stream until the flag is set, then clears it: a record that ran
  earlier lets the wait pass at once; a wait reached first waits for the next record; two
  records before one wait set the flag once, so a second wait waits for a third record.
  Parked waits are served oldest first.  A notify belongs to no stream: a record on another
  device's stream sets it too (dev guide 03-06_notify_management.md, sync between devices).
* Codes: a null notify 100000 (notify.cpp:30-63 ACL_REQUIRES_NOT_NULL), an unknown one too;
  create with a flag other than ACL_NOTIFY_DEFAULT / ACL_NOTIFY_DEVICE_USE_ONLY 107000
  (api_c_event.cc:122); no current context 107002 (api_impl.cc:4793, 4825); a stream of another
  context 107003 (api_impl.cc:4845, 4922); more notifies on a device than the profile allows
  (docs 08: 8192 on A2/A3, 2048 on 200I/500 A2, 1024 on inference cards) 207009
  ACL_ERROR_RT_NO_NOTIFY_RESOURCE (errcode_manage.cc:98).
* timeout is in seconds, 0 = wait forever (docs 08; the header says ms, the runtime logs it as
  seconds, api_impl.cc:4911), UINT32_MAX forever too (api_c_event.cc:151); outside uint32 100000.
  A wait still parked when it runs out fails on the device with 107020 ACL_ERROR_RT_TASK_TIMEOUT
  (the TS task timeout, error_code.cc:268 and errcode_manage.cc:479: the sources name no status
  of its own), reported by the stream's next synchronize.  A wait that nothing can satisfy keeps
  its stream busy: a synchronize on it ends with the deadlock report of core/host_turns.py
  (507046 for a stream), as every wait that can never end does.
* aclrtValueWrite queues a task that writes the 64-bit word at devAddr; aclrtValueWait a task
  that holds its stream until the word meets flag: GEQ (int64)(*addr - value) >= 0, EQ,
  AND (*addr & value) != 0, NOR ~(*addr | value) != 0 (acl_rt.h:43-46, docs 11-09).  Any device
  write that reaches the word (a copy, a memset, a kernel) can release it.  Codes: null devAddr
  100000 (memory.cpp:1445, 1455); chips without the feature (310P, 310B: docs 11-09) 207000
  (api_c_memory.cc:564, 583); a write flag other than 0, a wait flag above 3, memory that is not
  device memory 107000 (api_error.cc:7254, 7278, 7264, 7290); a value outside uint64 100000.  The
  docs ask for an 8-byte aligned word, the sources do not check it: here a misaligned word, or
  one past the end of its allocation, is 107000 too (the sandbox's choice).
* Hazards (core/hazards.py): a wait is ordered after the record or write it pairs with in
  submission order, as an event wait is after its record: the notify's latest record submitted
  before the wait that no earlier wait took; the word's latest value write submitted before the
  wait, if its value meets the wait.  What releases a wait on the device may be another task (a
  record or write submitted after it, or one that ran out of submission order), so every wait is
  also held until it ends: released by a record of its notify (the one that set the flag it took,
  whether that ran before or after the wait was reached) or by the device write whose end made its
  word meet it, the wait and what comes after it learn that task's clock; a value wait whose word
  already met it when reached, and a wait that timed out, learn nothing more.  A value write is a
  device write of its 8 bytes; a wait reads the word as a synchronization, not as data.
* Capture (ACL Graph): the runtime captures all four tasks: each takes its task from
  AllocTaskInfoForCapture (notify_c.cc:37, 99; memory_starsv2.cc:131; cond_starsv2.cc:175), which
  puts it on the capture's stream when its stream is capturing (task_david.cc:380-385), and neither
  api_error.cc:4387-4440, 7249-7295 nor api_impl.cc:4825-4945, 8984-9018 check the capture status.
  So a capturing stream records them and each launch performs them; aclmdlRITaskType names VALUE_WRITE
  and VALUE_WAIT (acl_rt.h:589-597), notify tasks are DEFAULT.  Pairing and hazards: the launched copies'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import constants as C, hazards
from .callbacks import CallbackEngine
from ..errors import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, ACL_ERROR_RT_NO_NOTIFY_RESOURCE,
                     ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_TASK_TIMEOUT, fail)
from ..allocator import Buffer, check_span
from ..tasks import Task

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import HostThread

CONDITIONS = {  # flag -> does the word meet the wait for value?
    C.ACL_STREAM_WAIT_VALUE_GEQ: lambda word, value: (word - value) % 2**64 < 2**63,
    C.ACL_STREAM_WAIT_VALUE_EQ: lambda word, value: word == value,
    C.ACL_STREAM_WAIT_VALUE_AND: lambda word, value: word & value != 0,
    C.ACL_STREAM_WAIT_VALUE_NOR: lambda word, value: (word | value) != 2**64 - 1,
}


class Notify:
    def __init__(self, device: int, pid: int, context: int):
        self.device, self.pid, self.context = device, pid, context  # (pid: whose leak it is, core/features/leaks.py)
        self.set: Task | None = None  # the record that set the flag (None: not set)
        self.last_record: Task | None = None  # the latest record submitted that no wait took


class Wait:
    """A wait task's effect, shared by the launched copies of a captured one: what it waits for (``test``:
    true, or the record whose flag it took, once it may pass), its timeout (ns, 0: none), its pair."""

    def __init__(self, waits: Waits, test, timeout: int, pair):
        self.waits, self.test, self.timeout, self.pair = waits, test, timeout, pair

    def __call__(self):
        held = next((t for t in self.waits.parked if t.effect is self), None)  # (one copy is reached at a time)
        if held is None:
            return 0
        self.waits.parked.remove(held)  # still parked: its timeout ran out
        hazards.released(self.waits.m, held, None)
        return ACL_ERROR_RT_TASK_TIMEOUT, (f"{held.name} on stream {held.stream.stream_id} timed out: the notify was "
                                           f"not recorded within {self.timeout // 10**9} s")


class Waits:
    """One machine's notifies, and the wait tasks reached whose condition does not hold yet."""

    def __init__(self, m: Machine):
        self.m = m
        self.notifies: dict[int, Notify] = {}
        self.parked: list = []  # reached wait tasks, oldest first
        self.writes: dict[int, tuple] = {}  # word address -> (task, value) of its latest value write
        self.engines: dict[int, CallbackEngine] = {}
        m.hooks.task_finished.append(self.finished)
        m.hooks.submitted.append(self.submitted)
        m.scheduler.hints.append(self.hint)

    def hint(self) -> str:
        """Why a parked thread may never wake: waits whose flag or word nothing will change."""
        held = [f"task {t.id} ({t.name}) of stream {t.stream.stream_id} waits for "
                + ("a record of its notify (aclrtRecordNotify)" if t.kind == "notify_wait"
                   else "its word (aclrtValueWrite)") for t in self.parked]
        return "; " + "; ".join(held) if held else ""

    def reached(self, task, now: int) -> list:  # (task: a Task whose effect is a Wait)
        """The engine's ``begin``: the wait ends now, at its timeout, or when ``finished`` says."""
        passed = task.effect.test()
        if passed:
            hazards.released(self.m, task, passed if isinstance(passed, Task) else None)
            return [(task, now)]
        self.parked.append(task)
        return [(task, now + task.effect.timeout)] if task.effect.timeout else []

    def finished(self, task, status: int) -> None:
        """Any task's end may set a flag or change a word: release the parked waits it satisfies."""
        if task.kind == "notify_record" and not status and dict(task.detail)["notify"] in self.notifies:
            self.notifies[dict(task.detail)["notify"]].set = task
        elif task.kind in ("notify_wait", "value_wait"):  # (a wait dropped unreached learns nothing)
            if task in self.parked:  # dropped while reached (aclrtDestroyStreamForce, aclrtStreamAbort)
                self.parked.remove(task)
            hazards.released(self.m, task, None)
        for waiter in [w for w in self.parked if w is not task and w.effect.test()]:
            self.parked.remove(waiter)
            hazards.released(self.m, waiter, task)
            self.m.sim.reschedule([(waiter, self.m.sim.now)])

    def submitted(self, th: HostThread, stream, task) -> None:
        """A record, write or wait reached its stream (called directly or launched from a graph): pair them."""
        if task.kind == "notify_record" and dict(task.detail)["notify"] in self.notifies:
            self.notifies[dict(task.detail)["notify"]].last_record = task
        elif task.kind == "value_write":
            buf, offset = task.access[0][:2]
            self.writes[buf.ptr + offset] = (task, dict(task.detail)["value"])
        elif task.kind in ("notify_wait", "value_wait"):
            after = task.effect.pair()
            if after is not None:
                hazards.join(task.vc, after.vc)  # task.vc is its stream's clock from here on
            hazards.hold(self.m, task)  # (what releases it may be another task)

    def wait(self, th: HostThread, stream, kind: str, name: str, test, timeout: int, pair, detail=()) -> None:
        """Queue a wait task; ``pair()`` gives the record or write submitted before it that it pairs with."""
        engine = self.engines.setdefault(stream.device, CallbackEngine(stream.device, self, ""))
        self.m.submit(th, stream, Task.new(kind, name, engine, effect=Wait(self, test, timeout, pair), detail=detail))


def state(m: Machine) -> Waits:
    return m.feature(Waits)


def _notify(m: Machine, handle) -> Notify:
    if handle == 0:
        fail(ACL_ERROR_INVALID_PARAM, "notify is a null handle")
    if handle not in state(m).notifies:
        fail(ACL_ERROR_INVALID_PARAM, f"{handle:#x} is not a live notify handle")
    return state(m).notifies[handle]


def create(m: Machine, th: HostThread, flag: int) -> int:
    ctx = m.current_context(th)
    dev = ctx.device
    if flag not in (C.ACL_NOTIFY_DEFAULT, C.ACL_NOTIFY_DEVICE_USE_ONLY):
        fail(ACL_ERROR_RT_PARAM_INVALID, f"notify flag {flag} is neither ACL_NOTIFY_DEFAULT nor "
             "ACL_NOTIFY_DEVICE_USE_ONLY")
    if sum(n.device == dev for n in state(m).notifies.values()) >= m.profile.max_notifies:
        fail(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, f"device {dev} has the most notifies a {m.profile.soc_name} allows")
    handle = m.new_handle()
    state(m).notifies[handle] = Notify(dev, th.process.pid, ctx.handle)
    return handle


def discard_reached(m: Machine, stream, code: int, t: int) -> None:
    """aclrtStreamAbort and aclrtDestroyStreamForce drop a reached wait of the stream now, with ``code``, as they
    drop its queued tasks ("discard all tasks", RT-API 06): a wait nothing records would hold the stream for ever."""
    waits = m.feature_in_use(Waits)
    for task in [w for w in waits.parked if w.stream is stream] if waits is not None else ():
        task.status = code
        m.sim.reschedule([(task, t)])  # (its end takes it off the parked list: ``finished``)


def release_context(m: Machine, ctx) -> None:
    """A context's end (aclrtResetDevice, aclrtDestroyContext, aclFinalize, process exit) frees the notifies
    made in it, as it frees its streams and events (an imported handle is the importer's: core/features/ipc.py)."""
    notifies = getattr(m.feature_in_use(Waits), "notifies", {})
    for handle in [h for h, n in notifies.items() if n.context == ctx.handle and n.pid == ctx.process.pid]:
        del notifies[handle]


def destroy(m: Machine, th: HostThread, handle) -> None:
    m.current_context(th)
    _notify(m, handle)
    del state(m).notifies[handle]


def record(m: Machine, th: HostThread, handle, stream_handle) -> None:
    _notify(m, handle)
    stream = m.stream(th, stream_handle, api="aclrtRecordNotify")
    m.submit(th, stream, Task.new("notify_record", "NOTIFY_RECORD", detail=(("notify", handle),)))  # (finished sets it)


def wait_and_reset(m: Machine, th: HostThread, handle, stream_handle, timeout: int) -> None:
    notify = _notify(m, handle)
    if not 0 <= timeout < 2**32:
        fail(ACL_ERROR_INVALID_PARAM, f"timeout is a uint32 of seconds (0: forever), got {timeout}")
    stream = m.stream(th, stream_handle, api="aclrtWaitAndResetNotify")

    def take():
        taken, notify.set = notify.set, None
        return taken

    def pair():
        taken, notify.last_record = notify.last_record, None  # this wait took it
        return taken

    forever = timeout in (0, 2**32 - 1)
    state(m).wait(th, stream, "notify_wait", "NOTIFY_WAIT", take, 0 if forever else timeout * 10**9, pair,
                  (("notify", handle),))


def _word(m: Machine, th: HostThread, addr: int, flag: int, flags, stream_handle, api: str):
    """The word's buffer, its offset and the stream, after the runtime's checks of the call (value and
    devAddr are the acl layer's, in acl/rt.py)."""
    if not m.profile.value_wait_supported:
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"{api} is not supported on {m.profile.soc_name}")
    if flag not in flags:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{api}: flag {flag} is not one of {sorted(flags)}")
    buf = m.buffer(addr)
    offset = check_span(buf, addr, 8, api)
    if buf.kind != "device" or addr % 8:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{api}: the word at {addr:#x} must be 8-byte aligned device memory")
    return buf, offset, m.stream(th, stream_handle, api=api)


def value_write(m: Machine, th: HostThread, addr, value, flag, stream_handle) -> None:
    buf, offset, stream = _word(m, th, addr, flag, (0,), stream_handle, "aclrtValueWrite")
    word = np.array([value], np.uint64)

    def write():
        buf.copy_from(offset, Buffer(0, 8, word.view(np.uint8)), 0, 8)  # the budget may refuse it (core/device_loop.py)

    state(m)  # (its submitted hook pairs the write with later waits)
    m.submit(th, stream, Task.new("value_write", "MEM_WRITE_VALUE", effect=write, nbytes=8,
                                  detail=(("value", value),), access=((buf, offset, 8, True),)))


def value_wait(m: Machine, th: HostThread, addr, value, flag, stream_handle) -> None:
    buf, offset, stream = _word(m, th, addr, flag, CONDITIONS, stream_handle, "aclrtValueWait")
    meets, word = CONDITIONS[flag], np.zeros(1, np.uint64)

    def test():
        buf.read_into(offset, word.view(np.uint8))
        return meets(int(word[0]), value)

    def pair():
        last = state(m).writes.get(addr)
        return last[0] if last is not None and meets(last[1], value) else None

    state(m).wait(th, stream, "value_wait", "MEM_WAIT_VALUE", test, 0, pair)
