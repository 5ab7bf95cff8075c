"""Hand-written trace logs with known contents.

Views and exports are pure functions of a log, so they can be checked against a log whose
every time is written out here, independent of the simulator.  ``two_stream_log`` is the
vector-add program split over two streams with an event between them; ``synthetic_log``
is a large, regular workload for drawing benchmarks (a workload shape, not a simulation).
"""

from __future__ import annotations

import random

from sandbox.core import trace as tr

GiB = 1 << 30
MiB = 1 << 20
DEV0_BASE = 0x1000_0000_0000
DEV1_BASE = 0x1100_0000_0000
HOST_BASE = 0x7F00_0000_0000
ENGINES = ("AI Core", "DMA H2D", "DMA D2H", "DMA D2D", "Peer link", "Callback")


def _machine(log: tr.TraceLog, devices: int) -> None:
    log.append(tr.MachineConfigured(0, "Ascend910B", "Ascend910B1", devices, 24, 64 * GiB, 1000.0, ENGINES))
    for d in range(devices):
        log.append(tr.DeviceAddressSpace(0, d, DEV0_BASE + d * (DEV1_BASE - DEV0_BASE), 64 * GiB))
    log.append(tr.ProcessStarted(0, 1, "python"))
    log.append(tr.ThreadStarted(0, 1, 1, "MainThread"))


def two_stream_log() -> tr.TraceLog:
    """Vector add on NPU 0: copies on Stream 1, kernel and copy-back on Stream 2 after an event.

    Timeline (ns): the default stream's H2D copy (task 1) holds the DMA H2D engine until
    220000, so Stream 1's first copy (task 2) waits for the engine; Stream 2 waits on the
    event recorded after task 3 (task 4) and then runs the kernel (620000-720000) and the
    D2H copy (720000-920000).  A 1 MB scratch block is freed early, leaving a 2 MiB hole.
    """
    log = tr.TraceLog()
    _machine(log, 2)
    seq = [0]  # the number of the last call; a call's memory records come just before it, as in a run

    def call(start, end, name, args=(), tasks=(), blocked_from=None, waited_for=()):
        seq[0] += 1
        log.append(tr.ApiCall(start, end, 1, 1, name, 0, tuple(args), tuple(tasks), blocked_from, seq[0], waited_for))

    def alloc(t, ptr, size, reserved, policy, page, device=0):
        log.append(tr.MemAllocated(t, device, ptr, size, reserved, policy, page, 1, 1, seq[0] + 1))

    def task(
        n,
        t,
        stream,
        kind,
        name,
        engine,
        prev,
        waits,
        start,
        end,
        *,
        nbytes=0,
        block_dim=0,
        event=0,
        cores=0,
        api_seq=0,
        detail=(),
    ):
        log.append(
            tr.TaskSubmitted(
                t, n, 0, stream, kind, name, engine, prev, waits, nbytes, block_dim, event, 1, api_seq, detail
            )
        )
        return (n, start, end, cores)

    call(0, 1000, "aclInit")
    log.append(tr.ContextCreated(11000, 1, 0, 1, True))
    log.append(tr.StreamCreated(11000, 1, 0, 0, 1, 0, True))
    call(1000, 11000, "aclrtSetDevice", [("deviceId", 0)])
    log.append(tr.StreamCreated(12000, 2, 1, 0, 1, 0, False))
    call(11000, 12000, "aclrtCreateStream")
    log.append(tr.StreamCreated(13000, 3, 2, 0, 1, 0, False))
    call(12000, 13000, "aclrtCreateStream")
    a, b, scratch, c = DEV0_BASE, DEV0_BASE + 4 * MiB, DEV0_BASE + 8 * MiB, DEV0_BASE + 10 * MiB
    huge = "ACL_MEM_MALLOC_HUGE_FIRST"
    alloc(14000, a, 4 * MiB, 4 * MiB, huge, "huge")
    call(13000, 14000, "aclrtMalloc", [("size", 4 * MiB), ("policy", huge)])
    alloc(15000, b, 4 * MiB, 4 * MiB, huge, "huge")
    call(14000, 15000, "aclrtMalloc", [("size", 4 * MiB), ("policy", huge)])
    alloc(16000, scratch, 1_000_000, 2 * MiB, huge, "huge")
    call(15000, 16000, "aclrtMalloc", [("size", 1_000_000), ("policy", huge)])
    alloc(17000, c, 4 * MiB, 4 * MiB, huge, "huge")
    call(16000, 17000, "aclrtMalloc", [("size", 4 * MiB), ("policy", huge)])
    alloc(18000, HOST_BASE, 4 * MiB, 4 * MiB, "pinned", "pinned", device=-1)
    call(17000, 18000, "aclrtMallocHost", [("size", 4 * MiB)])
    log.append(tr.MemFreed(19000, 0, scratch, seq[0] + 1))
    call(18000, 19000, "aclrtFree", [("ptr", scratch)])

    h2d, d2h = "ACL_MEMCPY_HOST_TO_DEVICE", "ACL_MEMCPY_DEVICE_TO_HOST"
    runs = []

    def copy(n, call_start, stream, engine, kind_name, prev, start, end):
        submit = call_start + (1000 if n == 1 else 2000)
        runs.append(
            task(
                n,
                submit,
                stream,
                "memcpy",
                "MEMCPY_ASYNC",
                engine,
                prev,
                0,
                start,
                end,
                nbytes=4 * MiB,
                api_seq=0,
                detail=(("kind", kind_name),),
            )
        )
        call(call_start, submit, "aclrtMemcpyAsync", [("count", 4 * MiB), ("kind", kind_name), ("stream", stream)], [n])

    copy(1, 19000, 1, "DMA H2D", h2d, 0, 20000, 220000)
    copy(2, 20000, 2, "DMA H2D", h2d, 0, 220000, 420000)
    copy(3, 22000, 2, "DMA H2D", h2d, 2, 420000, 620000)
    log.append(tr.EventCreated(24000, 1, 0, 0))
    runs.append(task(4, 25000, 2, "event_record", "EVENT_RECORD", "", 3, 0, 620000, 620000, event=1))
    call(24000, 25000, "aclrtRecordEvent", [("event", 1), ("stream", 2)], [4])
    runs.append(task(5, 26000, 3, "event_wait", "EVENT_WAIT", "", 0, 4, 620000, 620000, event=1))
    call(25000, 26000, "aclrtStreamWaitEvent", [("stream", 3), ("event", 1)], [5])
    runs.append(task(6, 31000, 3, "kernel", "vector_add", "AI Core", 5, 0, 620000, 720000, block_dim=8, cores=8))
    call(26000, 31000, "aclrtLaunchKernel", [("blockDim", 8), ("stream", 3)], [6])
    copy(7, 31000, 3, "DMA D2H", d2h, 6, 720000, 920000)
    log.append(tr.Note(33000, 1, "all work queued"))
    for n, start, _end, cores in sorted(runs, key=lambda r: (r[1], r[0])):
        log.append(tr.TaskStarted(start, n, cores))
    for n, _start, end, _cores in sorted(runs, key=lambda r: (r[2], r[0])):
        log.append(tr.TaskFinished(end, n, 0))
    call(33000, 920500, "aclrtSynchronizeStream", [("stream", 3)], blocked_from=34000, waited_for=("stream", 3))
    log.append(tr.MemFreed(921500, 0, a, seq[0] + 1))
    call(920500, 921500, "aclrtFree", [("ptr", a)])
    return _ordered(log)


def _ordered(log: tr.TraceLog) -> tr.TraceLog:
    """Sort records by their time, as a simulator appends them (stable for equal times)."""

    def when(r):
        return r.start if isinstance(r, tr.ApiCall) else r.t

    return tr.TraceLog(sorted(log.records, key=when))


def synthetic_log(n_tasks: int, streams: int = 4, devices: int = 1, seed: int = 0) -> tr.TraceLog:
    """A large regular workload: per stream a repeating copy-in, kernel, copy-out pattern.

    Each task has one API call on the main thread; every 50th task records an event that
    another stream waits on, so arrows and waits appear at scale.  Streams are in order;
    engines are not modelled (two streams may use one engine at once).
    """
    rng = random.Random(seed)
    log = tr.TraceLog()
    _machine(log, devices)
    handles: list[tuple[int, int]] = []  # (handle, device)
    for d in range(devices):
        for s in range(streams):
            h = len(handles) + 1
            handles.append((h, d))
            log.append(tr.StreamCreated(0, h, s, d, 1 + d, 0, s == 0))
    pattern = (
        ("memcpy", "MEMCPY_ASYNC", "DMA H2D"),
        ("kernel", "matmul", "AI Core"),
        ("memcpy", "MEMCPY_ASYNC", "DMA D2H"),
    )
    host_t = 1000
    last: dict[int, tuple[int, int]] = {}  # stream -> (task, end)
    records: list = []
    for n in range(1, n_tasks + 1):
        h, d = handles[(n - 1) % len(handles)]
        kind, name, engine = pattern[((n - 1) // len(handles)) % 3]
        waits = 0
        if n % 50 == 0 and n > len(handles):
            other = handles[n % len(handles)][0]
            if other != h and other in last:
                kind, name, engine, waits = "event_wait", "EVENT_WAIT", "", last[other][0]
        api_start, host_t = host_t, host_t + rng.randrange(800, 3000)
        prev, prev_end = last.get(h, (0, 0))
        dep_end = _records_end(records, waits)
        start = max(host_t, prev_end, dep_end)
        dur = 0 if kind == "event_wait" else rng.randrange(2_000, 40_000)
        end = start + dur
        last[h] = (n, end)
        records.append((n, start, end))
        log.append(
            tr.ApiCall(
                api_start,
                host_t,
                1,
                1,
                "aclrtLaunchKernel" if kind == "kernel" else "aclrtStreamWaitEvent" if waits else "aclrtMemcpyAsync",
                0,
                (("stream", h),),
                (n,),
                None,
                n,
            )
        )
        log.append(
            tr.TaskSubmitted(
                host_t,
                n,
                d,
                h,
                kind,
                name,
                engine,
                prev,
                waits,
                4096 if kind == "memcpy" else 0,
                8 if kind == "kernel" else 0,
                0,
                1,
                n,
                (),
            )
        )
    for n, start, end in records:
        log.append(tr.TaskStarted(start, n, 8))
        log.append(tr.TaskFinished(end, n, 0))
    return _ordered(log)


def _records_end(records: list, task: int) -> int:
    """End time of an earlier synthetic task (tasks are numbered from 1 in order)."""
    return records[task - 1][2] if task else 0
