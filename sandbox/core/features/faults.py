"""Injected faults: make chosen device tasks fail, so that error recovery can be practised.

``sandbox.inject_fault(kind, device=None, stream=None, after=0, count=..., peer=None, code=None)``
arms a fault from the caller's current virtual time: tasks submitted from then on that
match it are counted as they complete; the first ``after`` complete normally, the next
``count`` fail.  A failing task takes its usual time, its data effect does not happen,
and the failure behaves like any asynchronous device error: the launching call has
already succeeded, the code surfaces at the next synchronize of the stream (or device),
and under ACL_STOP_ON_FAILURE the context stops (see objects.Stream.record_failure).

Kinds and the runtime's codes (rt_error_codes.h; RT-SRC errcode_manage.cc maps an SDMA
copy error to 507013):

* "kernel_trap":  a kernel traps on the AI Core: 507016 ACL_ERROR_RT_AICORE_TRAP_EXCEPTION
  (``code`` may name another device code, e.g. 507015 AICORE_EXCEPTION, 507014 AICORE_TIMEOUT).
  Default ``count`` 1.
* "dma_error":    a copy or memset on the device's own DMA engines fails: 507013
  ACL_ERROR_RT_SYS_DMA.  Blocking aclrtMemcpy/aclrtMemset return it directly.  Default ``count`` 1.
* "link_down":    the link between ``device`` and ``peer`` (any peer if None) is down: every
  peer copy over it, in either direction, fails with 507056 ACL_ERROR_RT_LINK_ERROR until
  ``sandbox.clear_faults()`` (default ``count`` None: no limit).

Every fault is in the trace (FaultInjected), and so is every hit (FaultTriggered).
"""
from __future__ import annotations

import numbers

from .. import trace as T
from ..errors import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, ACL_ERROR_RT_LINK_ERROR,
                     ACL_ERROR_RT_SYS_DMA, CODE_NAMES, describe, fail)

KINDS = {"kernel_trap": (ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, 1), "dma_error": (ACL_ERROR_RT_SYS_DMA, 1),
         "link_down": (ACL_ERROR_RT_LINK_ERROR, None)}
_UNSET = object()


class Fault:
    __slots__ = ("number", "kind", "code", "device", "peer", "stream", "skip", "count", "first_task", "seen", "hits")

    def __init__(self, number, kind, code, device, peer, stream, skip, count, first_task):
        self.number, self.kind, self.code = number, kind, code
        self.device, self.peer, self.stream = device, peer, stream
        self.skip, self.count, self.first_task = skip, count, first_task
        self.seen = 0               # matching tasks completed so far
        self.hits = 0

    @property
    def spent(self) -> bool:
        return self.count is not None and self.hits >= self.count

    def matches(self, task) -> bool:
        if task.id < self.first_task or self.spent or (self.stream is not None and task.stream.handle != self.stream):
            return False
        link = getattr(task.engine, "links", None) is not None        # a peer copy (SharedLink)
        if self.kind == "kernel_trap":
            return task.kind == "kernel" and self.device in (None, task.device)
        if self.kind == "dma_error":
            return task.kind in ("memcpy", "memset") and not link and self.device in (None, task.device)
        if not link:
            return False
        ends = set(_ends(task.engine.name))
        return (self.device is None or self.device in ends) and (self.peer is None or self.peer in ends)


def _ends(engine_name: str) -> tuple[int, int]:
    """'Peer link 0->1' -> (0, 1)."""
    a, b = engine_name.rsplit(" ", 1)[1].split("->")
    return int(a), int(b)


class FaultState:
    """One machine's faults; made by the first inject_fault, which arms the ``task_fault`` hook."""

    def __init__(self, m):
        self.m = m
        self.faults: list[Fault] = []
        self.numbers = 0
        m.hooks.add("task_fault", self.check)

    def check(self, task):
        """The (code, message) an armed fault gives ``task``, or None (the ``task_fault`` hook)."""
        for fault in self.faults:
            if not fault.matches(task):
                continue
            fault.seen += 1
            if fault.seen <= fault.skip:
                continue
            fault.hits += 1
            self.m.log.append(T.FaultTriggered(self.m.sim.now, fault.number, task.id, fault.code))
            return fault.code, (f"injected fault {fault.number} ({fault.kind}, "
                                f"{CODE_NAMES.get(fault.code, fault.code)}): the task's data effect did not happen")
        return None


def state(m) -> FaultState:
    return m.feature(FaultState)


def _opt_int(value, what: str):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be an int >= 0 or None, got {describe(value)}")
    return int(value)


def inject(m, th, kind, device=None, stream=None, after=0, count=_UNSET, peer=None, code=None) -> int:
    """Arm a fault; returns its number (see the module docstring)."""
    if type(kind) is not str or kind not in KINDS:
        fail(ACL_ERROR_INVALID_PARAM, f"fault kind must be one of {', '.join(sorted(KINDS))}, got {describe(kind)}")
    default_code, default_count = KINDS[kind]
    device, peer, stream = _opt_int(device, "device"), _opt_int(peer, "peer"), _opt_int(stream, "stream")
    skip = _opt_int(after, "after") or 0
    count = default_count if count is _UNSET else _opt_int(count, "count")
    if count == 0:
        fail(ACL_ERROR_INVALID_PARAM, "count must be >= 1, or None for every matching task")
    for d in (device, peer):
        if d is not None:
            m.device(d)
    if kind != "link_down" and peer is not None:
        fail(ACL_ERROR_INVALID_PARAM, f"peer applies to link_down faults only, not {kind}")
    if code is None:
        code = default_code
    elif isinstance(code, bool) or not isinstance(code, int) or code not in CODE_NAMES or code < 500000:
        fail(ACL_ERROR_INVALID_PARAM, f"code must be a known device-side error code (5xxxxx), got {describe(code)}")
    if stream is not None:
        s = m.streams.get(stream)
        if s is None:
            fail(ACL_ERROR_INVALID_PARAM, f"{describe(stream)} is not a live stream handle")
        if device is not None and kind != "link_down" and s.device != device:
            fail(ACL_ERROR_INVALID_PARAM, f"stream {s.stream_id} runs on device {s.device}, not {device}")
    st = state(m)
    st.numbers += 1
    first_task = m.new_task_id() + 1        # tasks submitted from now on (ids only grow)
    fault = Fault(st.numbers, kind, code, device, peer, stream, skip, count, first_task)
    st.faults.append(fault)
    m.log.append(T.FaultInjected(th.clock, th.tid, fault.number, kind, code, -1 if device is None else device,
                                 -1 if peer is None else peer, stream or 0, skip, count or 0))
    return fault.number


def clear(m, th) -> None:
    """Disarm every fault (a link that was down is up again)."""
    state(m).faults.clear()
    m.log.append(T.FaultsCleared(th.clock, th.tid))
