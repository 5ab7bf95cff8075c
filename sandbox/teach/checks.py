"""Exercise graders: each reads a trace log and returns a ``Check``, passed or not, with a hint.

Graders grade structure (how much copy and compute overlapped, how many bytes crossed
each link, how many synchronisations, peak device memory) as well as values, so a learner
gets told *why* an attempt falls short.  Every grader is a pure function of the log (and
of plain numbers or arrays); none looks at live runtime objects.  ``log`` may be omitted:
the current machine's log is used.

A ``Check`` prints as one stable line, for example::

    ✔ copy and compute overlap: 3.1 ms of the 3.5 ms that could overlap (89%)
    ✘ synchronize calls: 3 (aclrtSynchronizeStream x3), want at most 1 — hint: ...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sandbox import i18n
from sandbox.core import trace as tr
from sandbox.viz.index import build_index
from sandbox.viz.memory import peak_reserved
from sandbox.viz.timeline import COMPUTE_KINDS, COPY_KINDS, intersect, union
from sandbox.viz.units import fmt_bytes, fmt_time

PASS, FAIL = "\u2714", "\u2718"  # ✔ ✘
SYNC_CALLS = (
    "aclrtSynchronizeStream",
    "aclrtSynchronizeStreamWithTimeout",
    "aclrtSynchronizeDevice",
    "aclrtSynchronizeDeviceWithTimeout",
    "aclrtSynchronizeEvent",
    "aclrtSynchronizeEventWithTimeout",
)
DIRECTIONS = ("H2D", "D2H", "D2D", "peer", "H2H")
_WORDS = {"host to device": "H2D", "device to host": "D2H", "device to device": "D2D", "host to host": "H2H"}
_ENGINES = {"DMA H2D": "H2D", "DMA D2H": "D2H", "DMA D2D": "D2D"}


@dataclass(frozen=True)
class Check:
    """One graded property: ``what`` was measured as ``detail``; ``hint`` says how to fix a failure.

    ``value`` is the measured figure itself (ns, bytes, a count) for programs that want it;
    ``tasks`` the numbers of the tasks it is about (a grade names and marks those of a ✘).
    ``bool(check)`` is whether it passed.
    """

    what: str
    passed: bool
    detail: str
    hint: str = ""
    value: object = None
    tasks: tuple = ()

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        t = i18n.translate
        colon = "：" if i18n.language() == "zh" else ": "
        line = f"{PASS if self.passed else FAIL} {t(self.what)}{colon}{t(self.detail)}"
        if not self.passed and self.hint:
            line += f" \u2014 {t('hint')}{colon}{t(self.hint)}"
        return line

    __repr__ = __str__


class Checks(tuple):
    """Several checks graded together; prints one line each and a tally."""

    def __new__(cls, *checks: Check):
        return super().__new__(cls, checks)

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self)

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        ok = sum(c.passed for c in self)
        verdict = "all passed" if ok == len(self) else "not yet"
        return "\n".join([str(c) for c in self] + [f"{ok} of {len(self)} checks passed: {verdict}"])

    __repr__ = __str__


def grade(*checks: Check) -> Checks:
    """Bundle checks so a cell shows them all with a tally."""
    return Checks(*checks)


# -- measurements (pure functions of the log) ------------------------------------------------------
def _log(log):
    if log is None:
        import sandbox

        return sandbox.trace()
    return log


def window(log=None, start: str | None = None, end: str | None = None) -> tuple[int, int]:
    """The stretch of virtual time to grade: from the first Note named ``start`` to the last one
    named ``end`` (see ``sandbox.teach.mark``), else from the first device task's start to the last
    one's end."""
    ix = build_index(_log(log))
    first: dict = {}
    last: dict = {}
    for n in ix.notes:  # a start is a name's first mark, an end its last: the grader's own marks frame
        first.setdefault(n.text, n.t)  # the whole run, whatever marks the learner sets inside it
        last[n.text] = n.t
    notes = first
    ran = [t for t in ix.tasks.values() if t.start is not None]
    lo = min((t.start for t in ran), default=0)
    hi = max((t.end if t.end is not None else ix.t_end for t in ran), default=0)
    for name in (start, end):
        if name is not None and name not in notes:
            known = ", ".join(repr(k) for k in notes) or "none"
            raise ValueError(f"no mark {name!r} in the trace (marks: {known}); add one with sandbox.teach.mark()")
    if start is not None:
        lo = notes[start]
    if end is not None:
        hi = last[end]
    return lo, max(lo, hi)


def _clip(intervals, lo: int, hi: int):
    return [(max(s, lo), min(e, hi)) for s, e in intervals if min(e, hi) > max(s, lo)]


def _length(intervals) -> int:
    return sum(e - s for s, e in intervals)


def busy(log=None, start: str | None = None, end: str | None = None, device: int | None = None) -> dict:
    """Copy busy time, compute busy time and their overlap in the window, in ns: on one
    device, or (``device=None``) on the machine as a whole."""
    ix = build_index(_log(log))
    lo, hi = window(ix, start, end)
    copies, kernels = [], []
    for t in ix.tasks.values():
        if t.start is None or (device is not None and t.device != device):
            continue
        iv = (t.start, t.end if t.end is not None else ix.t_end)
        if t.kind in COPY_KINDS:
            copies.append(iv)
        elif t.kind in COMPUTE_KINDS:
            kernels.append(iv)
    cu, ku = union(_clip(copies, lo, hi)), union(_clip(kernels, lo, hi))
    return {"copy": _length(cu), "compute": _length(ku), "overlap": _length(intersect(cu, ku)), "span": hi - lo}


def bytes_moved(log=None) -> dict:
    """Bytes copied per direction: H2D, D2H, D2D (on one device), peer (between devices), H2H."""
    out = dict.fromkeys(DIRECTIONS, 0)
    for r in _log(log):
        if isinstance(r, tr.TaskSubmitted) and r.kind == "memcpy":
            out[_direction(r)] += r.nbytes
    return out


def _direction(task: tr.TaskSubmitted) -> str:
    detail: dict[str, Any] = dict(task.detail)
    if "src_device" in detail or task.engine.startswith("Peer"):
        return "peer"
    return _WORDS.get(detail.get("direction", ""), _ENGINES.get(task.engine, "D2D"))


def sync_calls(log=None) -> dict:
    """How many times each synchronize call ran (successful or not), by C name."""
    out: dict[str, int] = {}
    for c in _log(log):
        if isinstance(c, tr.ApiCall) and c.name in SYNC_CALLS:
            out[c.name] = out.get(c.name, 0) + 1
    return out


def api_calls(log=None, name: str | None = None) -> int:
    """How many runtime calls the host made (of one C name, if given)."""
    return sum(1 for c in _log(log) if isinstance(c, tr.ApiCall) and (name is None or c.name == name))


def peak_device_memory(log=None, device: int | None = None) -> int:
    """The most device bytes reserved at one moment (all devices together, or one)."""
    return peak_reserved(build_index(_log(log)), device)


# -- graders ---------------------------------------------------------------------------------------------
def _bounds(at_least, at_most, exactly):
    """A predicate and words for the wanted range of a number."""

    def ok(x):
        return (
            (exactly is None or x == exactly)
            and (at_least is None or x >= at_least)
            and (at_most is None or x <= at_most)
        )

    return ok


def _want(fmt, at_least, at_most, exactly) -> str:
    if exactly is not None:
        return f"want exactly {fmt(exactly)}"
    parts = []
    if at_least is not None:
        parts.append(f"at least {fmt(at_least)}")
    if at_most is not None:
        parts.append(f"at most {fmt(at_most)}")
    return "want " + " and ".join(parts) if parts else ""


def check_overlap(
    log=None,
    *,
    at_least_ns: int | None = None,
    at_least_fraction: float | None = None,
    start: str | None = None,
    end: str | None = None,
    hint: str = "put copies and kernels of different chunks on different streams, "
    "so the copy engine works while the AI Core computes",
) -> Check:
    """Copy and compute ran at the same time on the same device for at least ``at_least_ns`` ns
    and/or at least ``at_least_fraction`` of the most that could overlap (on each device the
    shorter of the two), summed over the devices.  One device's copies running beside another
    device's kernels do not count: that is not what the copy engines are for."""
    ix = build_index(_log(log))
    per_device = [busy(ix, start, end, d) for d in ix.devices]
    overlap = sum(b["overlap"] for b in per_device)
    possible = sum(min(b["copy"], b["compute"]) for b in per_device)
    frac = overlap / possible if possible else 0.0
    ok = (at_least_ns is None or overlap >= at_least_ns) and (at_least_fraction is None or frac >= at_least_fraction)
    want = []
    if at_least_ns is not None:
        want.append(f"at least {fmt_time(at_least_ns)}")
    if at_least_fraction is not None:
        want.append(f"at least {at_least_fraction:.0%}")
    where = "" if len([b for b in per_device if b["copy"] or b["compute"]]) <= 1 else ", summed over the devices"
    detail = f"{fmt_time(overlap)} of the {fmt_time(possible)} that could overlap ({frac:.0%}{where})" + (
        "" if ok else f", want {' and '.join(want)}"
    )
    return Check("copy and compute overlap", ok, detail, hint, overlap)


def check_time(
    log=None,
    *,
    at_most_ns: int,
    start: str | None = None,
    end: str | None = None,
    hint: str = "overlap copies with compute, and synchronise once at the end",
) -> Check:
    """The program (between two marks, or first to last device task) took at most ``at_most_ns``."""
    lo, hi = window(log, start, end)
    span = hi - lo
    where = f"from {start!r} to {end!r}" if start or end else "first to last device task"
    ok = span <= at_most_ns
    detail = f"{fmt_time(span)} ({where})" + ("" if ok else f", want at most {fmt_time(at_most_ns)}")
    return Check("end-to-end time", ok, detail, hint, span)


def check_bytes(
    log=None,
    direction: str = "H2D",
    *,
    exactly: int | None = None,
    at_least: int | None = None,
    at_most: int | None = None,
    hint: str = "",
) -> Check:
    """Bytes copied in one direction ("H2D", "D2H", "D2D", "peer" or "H2H") are in range."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
    n = bytes_moved(log)[direction]
    ok = _bounds(at_least, at_most, exactly)(n)
    want = _want(fmt_bytes, at_least, at_most, exactly)
    detail = f"{fmt_bytes(n)}" + ("" if ok or not want else f", {want}")
    too_many = (at_most is not None and n > at_most) or (exactly is not None and n > exactly)
    if not hint:
        hint = (
            f"count the {direction} copies: each byte should cross once"
            if too_many
            else f"some data never made the {direction} trip: check each copy's count and kind"
        )
    return Check(f"bytes moved {direction}", ok, detail, hint, n)


def check_syncs(
    log=None,
    *,
    exactly: int | None = None,
    at_most: int | None = None,
    at_least: int | None = None,
    allowed: tuple[str, ...] | None = None,
    hint: str = "queue all the work first, then synchronise once: every synchronize "
    "stops the host until the device catches up",
) -> Check:
    """The number of synchronize calls is in range (and, if ``allowed`` is given, only those kinds)."""
    calls = sync_calls(log)
    n = sum(calls.values())
    which = ", ".join(f"{k} x{v}" for k, v in sorted(calls.items())) or "none"
    extra = sorted(k for k in calls if allowed is not None and k not in allowed)
    ok = _bounds(at_least, at_most, exactly)(n) and not extra
    detail = f"{n} ({which})"
    if not ok:
        want = _want(str, at_least, at_most, exactly)
        if extra:
            want = (want + "; " if want else "") + f"not {', '.join(extra)}"
        detail += f", {want}"
    return Check("synchronize calls", ok, detail, hint, n)


def check_api_calls(
    log=None,
    *,
    at_most: int | None = None,
    exactly: int | None = None,
    name: str | None = None,
    hint: str = "each runtime call costs host time: avoid calls the program does not need",
) -> Check:
    """The host made at most ``at_most`` (or exactly ``exactly``) runtime calls (of ``name``)."""
    n = api_calls(log, name)
    ok = _bounds(None, at_most, exactly)(n)
    detail = f"{n}" + ("" if ok else f", {_want(str, None, at_most, exactly)}")
    return Check(f"{name} calls" if name else "host API calls", ok, detail, hint, n)


def check_peak_memory(
    log=None,
    *,
    at_most: int,
    device: int | None = None,
    hint: str = "free buffers as soon as their last task is queued, or reuse them",
) -> Check:
    """Device memory reserved at its peak stayed within ``at_most`` bytes."""
    peak = peak_device_memory(log, device)
    ok = peak <= at_most
    where = "" if device is None else f" on device {device}"
    detail = f"{fmt_bytes(peak)}{where}" + ("" if ok else f", want at most {fmt_bytes(at_most)}")
    return Check("peak device memory", ok, detail, hint, peak)


def check_no_errors(log=None, hint: str = "read acl.get_recent_err_msg() after the failing call") -> Check:
    """No runtime call failed and no device task failed."""
    errors = [r for r in _log(log) if isinstance(r, tr.ErrorRaised)]
    ok = not errors
    detail = "none" if ok else f"{len(errors)}, first: {errors[0].api} returned {errors[0].name} ({errors[0].code})"
    return Check("runtime errors", ok, detail, hint, len(errors))


def check_equal(
    actual,
    expected,
    *,
    what: str = "result",
    hint: str = "synchronise before reading a host buffer that an async copy fills",
) -> Check:
    """Data correctness: ``actual`` equals ``expected`` element by element (floats: np.isclose)."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape:
        return Check(what, False, f"shape {a.shape}, want {e.shape}", hint, None)
    same = np.isclose(a, e) if a.dtype.kind in "fc" or e.dtype.kind in "fc" else (a == e)
    bad = np.flatnonzero(~same.reshape(-1))
    if bad.size == 0:
        return Check(what, True, f"all {a.size} values match", hint, 0)
    i = int(bad[0])
    got, want = a.reshape(-1)[i].item(), e.reshape(-1)[i].item()
    return Check(
        what,
        False,
        f"{bad.size} of {a.size} values differ, first at [{i}]: {got!r}, want {want!r}",
        hint,
        int(bad.size),
    )


# -- several devices, threads and processes ------------------------------------------------------------
def _task_spans(ix, kinds=None) -> dict:
    """device -> sorted (start, end, task) of the tasks that ran (of ``kinds``, if given)."""
    spans: dict[int, list] = {}
    for t in ix.tasks.values():
        if t.start is None or (kinds is not None and t.kind not in kinds):
            continue
        spans.setdefault(t.device, []).append((t.start, t.end if t.end is not None else ix.t_end, t))
    return {d: sorted(s, key=lambda x: (x[0], x[1], x[2].task)) for d, s in spans.items()}


def check_allocated(
    log=None,
    *,
    sizes,
    device: int | None = None,
    hint: str = "allocate each buffer with acl.rt.malloc and keep it until the check",
) -> Check:
    """Every size in ``sizes`` has its own allocation still alive at the end (on ``device``, if given)."""
    ix = build_index(_log(log))
    live = sorted(
        b.size for b in ix.blocks if b.device >= 0 and b.freed is None and (device is None or b.device == device)
    )
    missing = []
    for size in sorted(sizes):
        if size in live:
            live.remove(size)
        else:
            missing.append(size)
    ok = not missing
    where = "" if device is None else f" on device {device}"
    detail = (
        f"{len(sizes)} of {len(sizes)} buffers alive{where}"
        if ok
        else f"no live buffer{where} of {', '.join(f'{s} bytes' for s in missing)}"
    )
    return Check("buffers allocated", ok, detail, hint, len(sizes) - len(missing))


def check_devices_together(
    log=None, *, devices, hint: str = "queue work on every device before waiting for any of them"
) -> Check:
    """At some moment every device in ``devices`` was running a task at once; value: how long, in ns."""
    ix = build_index(_log(log))
    spans = _task_spans(ix)
    idle = [d for d in devices if d not in spans]
    common = None
    for d in devices:
        mine = union([(s, e) for s, e, _ in spans.get(d, [])])
        common = mine if common is None else intersect(common, mine)
    together = _length(common or [])
    ok = together > 0 and not idle
    detail = (
        f"devices {', '.join(map(str, devices))} all busy for {fmt_time(together)}"
        if ok
        else f"device {', '.join(map(str, idle))} ran no task"
        if idle
        else f"devices {', '.join(map(str, devices))} were never all busy at once"
    )
    return Check("devices busy together", ok, detail, hint, together)


def check_device_order(
    log=None,
    *,
    first: int,
    then: int,
    hint: str = "make the host wait for the first device (aclrtSynchronizeEvent on its "
    "event) before launching on the second",
) -> Check:
    """Every kernel on device ``then`` started after the last kernel on device ``first`` ended."""
    ix = build_index(_log(log))
    spans = _task_spans(ix, COMPUTE_KINDS)
    a, b = spans.get(first, []), spans.get(then, [])
    if not a or not b:
        none = first if not a else then
        return Check("order across devices", False, f"no kernel ran on device {none}", hint, None)
    last_end, first_start = max(e for _, e, _ in a), min(s for s, _, _ in b)
    gap = first_start - last_end
    ok = gap >= 0
    detail = (
        f"device {then} started {fmt_time(gap)} after device {first} finished"
        if ok
        else f"device {then} started {fmt_time(-gap)} before device {first} finished"
    )
    return Check("order across devices", ok, detail, hint, gap)


def check_launchers(
    log=None,
    *,
    threads: int | None = None,
    processes: int | None = None,
    hint: str = "give each device its own host thread, and call set_device in that thread",
) -> Check:
    """Kernels were launched from ``threads`` distinct host threads in ``processes`` distinct processes."""
    ix = build_index(_log(log))
    launches = [t for t in ix.tasks.values() if t.kind in COMPUTE_KINDS]
    tids = {t.tid for t in launches}
    pids = {ix.threads[tid].pid for tid in tids if tid in ix.threads}
    ok = (threads is None or len(tids) == threads) and (processes is None or len(pids) == processes)

    def count(n, word, plural):
        return f"{n} {word if n == 1 else plural}"

    detail = f"{count(len(tids), 'thread', 'threads')} in {count(len(pids), 'process', 'processes')}"
    if not ok:
        want = [
            count(n, w, p)
            for n, w, p in ((threads, "thread", "threads"), (processes, "process", "processes"))
            if n is not None
        ]
        detail += f", want {' in '.join(want)}"
    return Check("kernel launchers", ok, detail, hint, (len(tids), len(pids)))


def check_shared_device(
    log=None,
    *,
    device: int,
    processes: int = 2,
    hint: str = "a kernel with block_dim equal to the core count takes every core: "
    "launch with fewer blocks so kernels of two processes fit side by side",
) -> Check:
    """Kernels of at least ``processes`` different processes ran at the same moment on ``device``."""
    ix = build_index(_log(log))
    spans = _task_spans(ix, COMPUTE_KINDS).get(device, [])
    points = sorted({s for s, _, _ in spans})
    most = 0
    for p in points:
        running = {ix.threads[t.tid].pid for s, e, t in spans if s <= p < e and t.tid in ix.threads}
        most = max(most, len(running))
    owners = {ix.threads[t.tid].pid for _, _, t in spans if t.tid in ix.threads}
    ok = most >= processes
    detail = f"kernels of {most} processes ran at once on device {device} ({len(owners)} launched there)"
    if not ok:
        detail += f", want {processes}"
    return Check("device shared at once", ok, detail, hint, most)


# -- callbacks and ACL Graph ------------------------------------------------------------------------------
def check_callbacks(
    log=None,
    *,
    ran: int,
    kind: str = "callback",
    hint: str = "queue one aclrtLaunchCallback per batch after its copy back, and keep a "
    "thread subscribed to the stream looping on aclrtProcessReport",
) -> Check:
    """Exactly ``ran`` host callbacks of ``kind`` ("callback" or "host_func") ran, and none raised."""
    runs = [r for r in _log(log) if isinstance(r, tr.CallbackRun) and r.kind == kind]
    raised = [r for r in runs if r.error]
    ok = len(runs) == ran and not raised
    detail = f"{len(runs)} ran"
    if raised:
        detail += f", {len(raised)} raised (first: {raised[0].fn_name}: {raised[0].error})"
    if len(runs) != ran:
        detail += f", want {ran}"
    what = "host functions run" if kind == "host_func" else "callbacks run"
    return Check(what, ok, detail, hint, len(runs))


def check_host_calls(
    log=None,
    *,
    at_most: int,
    start: str,
    end: str,
    hint: str = "every launch is a host call: capture the work once into a graph and "
    "replay it, or fuse small kernels into one",
) -> Check:
    """The host made at most ``at_most`` runtime calls that began between the marks ``start`` and ``end``."""
    lo, hi = window(log, start, end)
    calls = [c for c in _log(log) if isinstance(c, tr.ApiCall) and lo <= c.start < hi]
    names: dict[str, int] = {}
    for c in calls:
        names[c.name] = names.get(c.name, 0) + 1
    top = ", ".join(f"{k} x{v}" for k, v in sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[:3])
    ok = len(calls) <= at_most
    detail = f"{len(calls)} ({top or 'none'})" + ("" if ok else f", want at most {at_most}")
    return Check(f"host calls from {start!r} to {end!r}", ok, detail, hint, len(calls))


# -- debugging: hazards and leaks -----------------------------------------------------------------------
def check_no_hazards(
    log=None,
    hint: str = "read each report in sandbox.hazards(): it names the two tasks "
    "and the event or synchronize that would order them",
) -> Check:
    """The hazard checks found no race or misuse (sandbox.hazards() is empty)."""
    found = [r for r in _log(log) if isinstance(r, tr.Hazard)]
    ok = not found
    kinds: dict[str, int] = {}
    for r in found:
        kinds[r.kind] = kinds.get(r.kind, 0) + 1
    detail = "none" if ok else f"{len(found)} ({', '.join(f'{k} x{v}' for k, v in sorted(kinds.items()))})"
    tasks = tuple(sorted({t for r in found for t in r.tasks}))
    return Check("hazards", ok, detail, hint, len(found), tasks)


def check_no_leaks(
    log=None,
    hint: str = "release everything you create, in reverse order: aclrtFree, "
    "aclrtFreeHost, aclrtDestroyEvent, aclrtDestroyStream, "
    "aclrtResetDevice, then aclFinalize",
) -> Check:
    """The program called aclFinalize and its leak report was empty."""
    finalized = any(isinstance(r, tr.ApiCall) and r.name == "aclFinalize" for r in _log(log))
    leaks = [item for r in _log(log) if isinstance(r, tr.LeakReport) for item in r.items]
    ok = finalized and not leaks
    if not finalized:
        detail = "aclFinalize was never called, so nothing was checked"
    elif leaks:
        kinds: dict[str, int] = {}
        for item in leaks:
            kinds[item[0]] = kinds.get(item[0], 0) + 1
        detail = f"{len(leaks)} left at aclFinalize ({', '.join(f'{k} x{v}' for k, v in sorted(kinds.items()))})"
    else:
        detail = "nothing left at aclFinalize"
    return Check("leaks", ok, detail, hint, len(leaks))


def check_error_reported(
    log=None,
    *,
    code: int,
    hint: str = "check the code every synchronize returns: a device error is reported there, once",
) -> Check:
    """A call returned ``code`` to the program (e.g. a device error at a synchronize)."""
    hits = [r for r in _log(log) if isinstance(r, tr.ErrorRaised) and r.code == code]
    ok = bool(hits)
    from sandbox.core.errors import code_name

    detail = (
        f"{code_name(code)} ({code}) returned by {hits[0].api}"
        if ok
        else f"no call returned {code_name(code)} ({code})"
    )
    return Check("error reported", ok, detail, hint, len(hits))
