"""Notebook 06 · threads and processes: one thread driving four devices, one thread per
device, and two processes sharing one device.

Every exercise squares float32 chunks with the notebook's ``square`` kernel (a fixed 200 ms
however many blocks it has), one chunk per device (or per process), and returns the squares.
The judges check where each answer came from (a kernel, copied back from the right device),
which host threads and processes launched the kernels, and that the devices (or the two
processes on one device) really worked at the same moment.
"""

from __future__ import annotations

import numpy as np

import sandbox

from sandbox.core import trace as tr
from sandbox.teach.checks import Check, check_devices_together, check_equal, check_launchers, check_shared_device
from sandbox.teach.grading import START, Exercise, register
from sandbox.teach.provenance import KERNEL

N = 256 * 1024  # elements per chunk (float32, 1 MiB)
DEVICES = (0, 1, 2, 3)
CORES = 24  # AI Cores of a 910B device


# The notebook's kernel (instructor/06_threads_processes.py), as it declares it: known by its code and cost.
@sandbox.kernel(ns=200_000_000)
def square(x: "float32*", n: int):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    x[:n] = x[:n] * x[:n]


def chunks(count: int):
    def make(rng: np.random.Generator) -> dict:
        return {"chunks": [rng.random(N, dtype=np.float32) * 4 - 2 for _ in range(count)]}

    return make


# -- helpers -----------------------------------------------------------------------------------------
def _solution_tid(run) -> int | None:
    """The host thread the grader called the solution on (the one that wrote the START mark)."""
    for r in run.log:
        if isinstance(r, tr.Note) and r.text == START:
            return r.tid
    return None


def _kernels(run):
    return [t for t in run.index.tasks.values() if t.kind == "kernel" and t.start is not None]


def _thread_name(run, tid) -> str:
    info = run.index.threads.get(tid)
    return repr(info.name) if info is not None else f"thread {tid}"


def _results(run, count: int):
    """The returned list of ``count`` arrays, or a ✘ saying what came back instead."""
    r = run.result
    want = f"a list of {count} float32 arrays of {N} elements"
    if isinstance(r, tuple):
        r = list(r)
    if not isinstance(r, list) or len(r) != count:
        got = (
            "None (did the function end without a return?)"
            if r is None
            else f"a list of {len(r)}"
            if isinstance(r, list)
            else f"a {type(r).__name__}"
        )
        return Check(
            "what came back",
            False,
            f"{got}, want {want}",
            "collect each chunk's result in a list (threads and processes can write into a list "
            "the solution made) and return it",
        ), None
    bad = [i for i, a in enumerate(r) if not isinstance(a, np.ndarray) or a.shape != (N,) or a.dtype != np.float32]
    if bad:
        a = r[bad[0]]
        got = (
            f"shape {a.shape} {a.dtype.name}"
            if isinstance(a, np.ndarray)
            else "None"
            if a is None
            else f"a {type(a).__name__}"
        )
        return Check(
            "what came back",
            False,
            f"item {bad[0]} is {got}, want {want}",
            "copy each result out of its host buffer: acl.util.ptr_to_numpy(ptr, (N,), np.float32).copy()",
        ), None
    return Check("what came back", True, want), r


def _answers(run, devices):
    """The squares are right, computed by kernels, and chunk i came back from devices[i]."""
    shape, arrays = _results(run, len(devices))
    yield shape
    if arrays is None:
        return
    xs = run.inputs["chunks"]
    wrong = [i for i, (a, x) in enumerate(zip(arrays, xs)) if not np.array_equal(a, x * x)]
    yield (
        check_equal(
            arrays[wrong[0]],
            xs[wrong[0]] * xs[wrong[0]],
            what=f"chunk {wrong[0]} squared",
            hint="square each chunk with the square kernel, copy it back, and synchronise before reading it",
        )
        if wrong
        else Check("the squares", True, f"all {len(devices)} chunks squared correctly")
    )
    yield run.check_kernels({"square": square})
    bad = []
    for i, (a, d) in enumerate(zip(arrays, devices)):
        origin, words, landing = run.recorder.trace_back(np.ascontiguousarray(a).tobytes())
        task = run.index.tasks.get(landing.task) if landing is not None else None
        if landing is None or origin < KERNEL:
            bad.append(f"chunk {i} did not come from the device: {words}")
        elif task is None or task.device != d:
            bad.append(f"chunk {i} came back from device {task.device if task else '?'}, not device {d}")
    yield Check(
        "each chunk came from its device",
        not bad,
        bad[0] + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else "")
        if bad
        else (
            "each chunk was computed by a kernel on device 0 and copied back from there"
            if len(set(devices)) == 1
            else "chunk i was computed by a kernel on device i and copied back from there"
        ),
        "launch square on the device the chunk belongs to, copy the result back with a device-to-host "
        "copy and synchronise before you read it",
    )


# -- 06.1 · one thread, four devices -----------------------------------------------------------------
def judge_one_thread(run):
    yield from _answers(run, DEVICES)
    yield check_launchers(
        run.log,
        threads=1,
        processes=1,
        hint="this exercise is pattern 1: the solution's own thread launches on every device, "
        "switching with acl.rt.set_device(d); start no threads",
    )
    yield check_devices_together(
        run.log,
        devices=DEVICES,
        hint="queue every device's work before you wait for any of them: a synchronize "
        "before switching to the next device keeps the devices one after another",
    )


# -- 06.2 · one thread per device --------------------------------------------------------------------
def judge_thread_per_device(run):
    yield from _answers(run, DEVICES)
    yield check_launchers(
        run.log,
        threads=4,
        processes=1,
        hint="start one threading.Thread per device, and let each thread launch its device's kernel",
    )
    yield _one_device_each(run)
    yield check_devices_together(
        run.log,
        devices=DEVICES,
        hint="start all four threads before you join any of them: a join right after "
        "each start runs the devices one after another",
    )


def _one_device_each(run) -> Check:
    """Each launching thread launched on one device, each device got kernels from one thread,
    and none of them is the solution's own thread."""
    main = _solution_tid(run)
    per_thread: dict[int, set] = {}
    per_device: dict[int, set] = {}
    for t in _kernels(run):
        per_thread.setdefault(t.tid, set()).add(t.device)
        per_device.setdefault(t.device, set()).add(t.tid)
    problems = []
    if main in per_thread:
        problems.append(f"the solution's own thread launched on device {', '.join(map(str, sorted(per_thread[main])))}")
    for tid, devs in sorted(per_thread.items()):
        if len(devs) > 1 and tid != main:
            problems.append(f"thread {_thread_name(run, tid)} launched on devices {', '.join(map(str, sorted(devs)))}")
    for d, tids in sorted(per_device.items()):
        if len(tids) > 1:
            problems.append(f"device {d} got kernels from {len(tids)} threads")
    ok = bool(per_thread) and not problems
    detail = (
        "each device's kernels came from a thread of its own, started by the solution"
        if ok
        else problems[0]
        if problems
        else "no kernel ran"
    )
    return Check(
        "one thread per device",
        ok,
        detail,
        "give thread d the whole of device d's work (set_device(d) in that thread, then its stream, "
        "buffers, copies, kernel and synchronize); the solution's thread only starts and joins them",
        len(per_thread),
    )


# -- 06.3 · two processes on one device ----------------------------------------------------------
def judge_shared_device(run):
    yield from _answers(run, (0, 0))
    yield check_launchers(
        run.log,
        processes=2,
        hint="start each chunk's work with sandbox.spawn_process(fn, ...): threads of one "
        "process are not two processes",
    )
    yield _each_process_one_chunk(run)
    yield check_shared_device(
        run.log,
        device=0,
        processes=2,
        hint=f"a kernel with block_dim {CORES} takes all {CORES} AI Cores, so the other "
        f"process's kernel waits; launch with at most {CORES // 2} blocks, and start "
        "both processes before joining either",
    )


def _each_process_one_chunk(run) -> Check:
    """Two spawned processes launched the kernels (the solution's own process none), and
    each chunk was copied back by a different one."""
    main = _solution_tid(run)
    main_pid = run.index.threads[main].pid if main in run.index.threads else None
    pids: dict = {}
    for t in _kernels(run):
        info = run.index.threads.get(t.tid)
        pids.setdefault(info.pid if info else None, []).append(t)
    problems = []
    if main_pid in pids:
        problems.append(f"the solution's own process launched {len(pids[main_pid])} kernel(s)")
    if len([p for p in pids if p != main_pid]) != 2:
        problems.append(f"kernels came from {len([p for p in pids if p != main_pid])} spawned processes, want 2")
    if not problems and isinstance(run.result, (list, tuple)):
        copiers = []  # the process whose copy brought each chunk back
        for a in run.result:
            if not isinstance(a, np.ndarray):
                continue
            landing = run.recorder.trace_back(np.ascontiguousarray(a).tobytes())[2]
            task = run.index.tasks.get(landing.task) if landing is not None else None
            info = run.index.threads.get(task.tid) if task is not None else None
            if info is not None:
                copiers.append(info.pid)
        if len(copiers) == 2 and copiers[0] == copiers[1]:
            problems.append(
                f"both chunks were copied back by process "
                f"{run.index.processes.get(copiers[0], copiers[0])!r}: want one chunk per process"
            )
    ok = not problems
    return Check(
        "one process per chunk",
        ok,
        "two spawned processes launched the kernels, one chunk each" if ok else problems[0],
        "spawn one process per chunk; each one does acl.init, set_device(0), its own stream, buffers "
        "and kernel, and acl.finalize; the solution only spawns and joins them",
    )


register(
    Exercise(
        id="06.1",
        title="one thread, four devices",
        practises="driving several devices from one host thread: switch with set_device, queue on every "
        "device before waiting for any",
        signature="solution(chunks) -> list of 4 arrays",
        devices=4,
        inputs=chunks(4),
        judge=judge_one_thread,
    )
)

register(
    Exercise(
        id="06.2",
        title="one thread per device",
        practises="starting one host thread per device, set_device in that thread, joining them all",
        signature="solution(chunks) -> list of 4 arrays",
        devices=4,
        inputs=chunks(4),
        judge=judge_thread_per_device,
    )
)

register(
    Exercise(
        id="06.3",
        title="two processes share device 0",
        practises="sandbox.spawn_process: processes that share one device's AI Cores at the same time",
        signature="solution(chunks) -> list of 2 arrays",
        devices=1,
        inputs=chunks(2),
        judge=judge_shared_device,
    )
)
