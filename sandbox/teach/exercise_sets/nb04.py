"""Notebook 04 · device memory: what an allocation reserves, pinned copies beside compute, and
stream-ordered reuse of device memory.

Every exercise starts on a machine where ``acl.init()`` and ``acl.rt.set_device(0)`` have
already run (``prepare``), so the graded window, the whole run of the solution, holds only the
work the exercise is about (the first SetDevice of a process alone costs a second).
"""

from __future__ import annotations

import numpy as np

import sandbox

from sandbox.core.allocator import DeviceAllocation
from sandbox.teach.checks import (
    Check,
    check_bytes,
    check_equal,
    check_overlap,
    check_time,
    peak_device_memory,
)
from sandbox.teach.concepts import Question, Quiz, register_quiz
from sandbox.teach.grading import END, START, Exercise, register
from sandbox.teach.provenance import UNWRITTEN
from sandbox.viz.units import fmt_bytes

MiB, KiB = 1 << 20, 1 << 10


# -- helpers the judges share ---------------------------------------------------------------------
def _address(value) -> int | None:
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    return None


def device_range(run, ptr, nbytes: int, what: str, device: int = 0) -> tuple[Check, tuple | None]:
    """(Check, (buffer, offset) or None): [ptr, ptr + nbytes) lies in one live allocation on ``device``."""
    address = _address(ptr)
    if address is None:
        return Check(
            f"{what}: a device address",
            False,
            f"got {type(ptr).__name__} {ptr!r:.60}",
            "return the int that acl.rt.malloc gave you (plus an offset, if you carved it)",
        ), None
    buf = run.machine.buffer(address)
    if not isinstance(buf, DeviceAllocation):
        kind = (
            "not inside any live allocation (was it freed?)"
            if buf is None
            else f"{buf.kind} host memory, not device memory"
        )
        return Check(
            f"{what}: a device address",
            False,
            f"{address:#x} is {kind}",
            "allocate it with acl.rt.malloc on the device and keep it until the end",
        ), None
    if buf.freed:
        return Check(
            f"{what}: a device address",
            False,
            f"{address:#x} was freed before the end",
            "keep the buffer alive: free it only after the check",
        ), None
    if buf.device != device:
        return Check(
            f"{what}: a device address",
            False,
            f"{address:#x} is on device {buf.device}, want device {device}",
            f"call acl.rt.set_device({device}) before acl.rt.malloc",
        ), None
    offset = address - buf.ptr
    if offset + nbytes > buf.size:
        return Check(
            f"{what}: a device address",
            False,
            f"only {buf.size - offset} bytes from {address:#x} to the end of its {buf.size}-byte "
            f"allocation, want {nbytes}",
            "allocate enough bytes for it",
        ), None
    return Check(
        f"{what}: a device address",
        True,
        f"{fmt_bytes(nbytes)} at offset {offset} of a live {fmt_bytes(buf.size)} allocation on device {device}",
    ), (buf, offset)


def _same(x: np.ndarray, y: np.ndarray) -> bool:
    """Byte-equal (compared eight bytes at a time where the length allows: fast on 64 MiB)."""
    if x.size % 8 == 0:
        return np.array_equal(x.view(np.uint64), y.view(np.uint64))
    return np.array_equal(x, y)


def differences(buf, offset: int, want: np.ndarray) -> tuple[int, int]:
    """(how many bytes differ, the first that does) between the device buffer now (the end of
    the run, read on the grader's machine) and ``want``'s bytes; (0, -1) if they are the same."""
    want = np.ascontiguousarray(want).reshape(-1).view(np.uint8)
    count, first = 0, -1
    for pos, view, length in buf.segments(offset, want.size, create=False):
        part = want[pos : pos + length]
        if view is None:  # never written: zeros
            if not part.any():
                continue
            bad = np.flatnonzero(part)
        elif _same(view, part):
            continue
        else:
            bad = np.flatnonzero(view != part)
        count += bad.size
        if first < 0:
            first = pos + int(bad[0])
    return count, first


def check_holds(run, place, expected: np.ndarray, what: str, hint: str) -> Check:
    """The device bytes at ``place`` are ``expected``'s bytes, and a copy (not a memset, not
    nothing) wrote them there."""
    buf, offset = place
    nbytes = np.asarray(expected).nbytes
    count, first = differences(buf, offset, expected)
    if count:
        detail = f"{count} of {nbytes} bytes differ from the input, first at byte {first}"
        return Check(f"{what} holds its data", False, detail, hint, count)
    if run.recorder.device_origin(buf, offset, nbytes) == UNWRITTEN:
        return Check(f"{what} holds its data", False, "the bytes match, but no copy wrote them", hint)
    return Check(f"{what} holds its data", True, f"all {nbytes} bytes, copied from the host")


def check_peak(run, *, at_most: int, hint: str, device: int = 0) -> Check:
    """Device memory reserved at its peak (the allocator's bytes: padding and pages included)."""
    peak = peak_device_memory(run.log, device)
    ok = peak <= at_most

    def words(n):
        return fmt_bytes(n) if n % MiB == 0 else f"{n} bytes ({fmt_bytes(n)})"

    return Check(
        "peak device memory",
        ok,
        f"{words(peak)} reserved on device {device}" + ("" if ok else f", want at most {words(at_most)}"),
        hint,
        peak,
    )


def check_disjoint(named_ranges) -> Check:
    """No two of the (name, start, nbytes) ranges share a byte."""
    spans = sorted((start, start + n, name) for name, start, n in named_ranges)
    clashes = [(a[2], b[2]) for a, b in zip(spans, spans[1:]) if b[0] < a[1]]
    if clashes:
        x, y = clashes[0]
        return Check(
            "distinct buffers",
            False,
            f"{x} and {y} share bytes",
            "each buffer needs bytes of its own: carve at offsets at least as large as the sizes "
            "before them, or allocate each one",
            len(clashes),
        )
    return Check("distinct buffers", True, f"{len(spans)} byte ranges, none overlapping")


# -- the notebook's kernel, as it declares it: the grader knows it by its code and cost ---------------------
@sandbox.kernel(ns=2_000_000)
def busy(x: "uint8*"):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    pass


def waited_after(run, tasks, what: str = "the copy and the kernel") -> Check:
    """The host returned only after waits that cover ``tasks`` (a synchronize of their streams or the
    device, an event recorded after them, a query that answered "complete"): order, not time."""
    ix = run.index
    ends = [ix.tasks[t.task].end for t in tasks if t.task in ix.tasks]
    if not ends or any(e is None for e in ends):
        return Check(
            "the host waited for the work",
            False,
            "some of the work never finished" if ends else "there was no such work to wait for",
            "synchronise before returning",
        )
    ok = run.knew([t.task for t in tasks])
    return Check(
        "the host waited for the work",
        ok,
        f"a wait of the host covers {what}"
        if ok
        else f"no synchronize, query or event wait of the host covers {what} (a wait that returned later "
        "is not enough: it must be a wait for that work)",
        "synchronise (the device, or each stream you used) before returning, so the buffers "
        "are complete when the caller uses them",
    )


# -- 04.1 · fit the budget -------------------------------------------------------------------------
WEIGHTS, TABLE, FLAGS = 3 * MiB, 1000, 100
BUDGET = 3 * MiB + 12 * KiB


def budget_inputs(rng: np.random.Generator) -> dict:
    return {
        "weights": rng.standard_normal(WEIGHTS // 4).astype(np.float32),
        "table": rng.integers(-(2**31), 2**31, TABLE // 4, dtype=np.int32),
        "flags": rng.integers(0, 256, FLAGS, dtype=np.uint8),
    }


def judge_budget(run):
    r = run.result
    if not (isinstance(r, (tuple, list)) and len(r) == 3):
        got = "None (did the function end without a return?)" if r is None else f"{type(r).__name__} {r!r:.60}"
        yield Check(
            "what came back",
            False,
            f"{got}, want three device addresses (weights, table, flags)",
            "return (weights_ptr, table_ptr, flags_ptr)",
        )
        return
    yield Check("what came back", True, "three addresses")
    names = ("weights", "table", "flags")
    places: list = []
    for name, ptr in zip(names, r):
        check, place = device_range(run, ptr, run.inputs[name].nbytes, name)
        yield check
        places.append(place)
    if None in places:
        return
    yield check_disjoint([(n, p.ptr + off, run.inputs[n].nbytes) for n, (p, off) in zip(names, places)])
    for name, place in zip(names, places):
        yield check_holds(
            run, place, run.inputs[name], name, f"copy {name} to its device address (acl.rt.memcpy, host to device)"
        )
    yield check_peak(
        run,
        at_most=BUDGET,
        hint="every allocation is padded (ALIGN_UP(size, 32) + 32) and rounded to whole "
        "pages: huge pages round 3 MiB up to 4 MiB, so ask for normal pages, and "
        "allocate nothing else, not even for a moment",
    )


register(
    Exercise(
        id="04.1",
        kernels=(busy,),
        title="fit the budget",
        practises="what an allocation really reserves: padding, page size and the allocation policy",
        signature="solution(weights, table, flags) -> (weights_ptr, table_ptr, flags_ptr)",
        profile="ascend910b",
        devices=1,
        inputs=budget_inputs,
        judge=judge_budget,
    )
)


# -- 04.2 · copy while computing ---------------------------------------------------------------------
UPLOAD = 64 * MiB
COPY_TIME_LIMIT = 2_500_000  # ns: the 2 ms kernel with the 1.2 ms copy beside it, and the set-up


def upload_inputs(rng: np.random.Generator) -> dict:
    return {"data": rng.integers(0, 256, UPLOAD, dtype=np.uint8)}


def judge_copy_while_computing(run):
    check, place = device_range(run, run.result, UPLOAD, "the returned address")
    yield check
    if place is not None:
        yield check_holds(
            run,
            place,
            run.inputs["data"],
            "the device buffer",
            "copy all 64 MiB of data to the buffer you return, host to device",
        )
    yield check_bytes(run.log, "H2D", exactly=UPLOAD)
    uploads = [t for t in run.tasks("memcpy") if dict(t.detail).get("direction") == "host to device"]
    pageable = [t for t in uploads if dict(t.detail).get("pageable")]
    yield Check(
        "copied from pinned memory",
        bool(uploads) and not pageable,
        "no host-to-device copy"
        if not uploads
        else f"{len(pageable)} of {len(uploads)} copies read pageable memory (a numpy array)"
        if pageable
        else f"{len(uploads)} cop{'y' if len(uploads) == 1 else 'ies'}, all from pinned memory",
        "stage the data in memory from acl.rt.malloc_host: from pageable memory memcpy_async "
        "returns only when the copy is done, at a quarter of the speed",
    )
    kernels = run.tasks("kernel")
    busy = [t for t in kernels if t.name == "busy"]
    others = sorted({t.name for t in kernels if t.name != "busy"})
    ok = len(busy) == 1 and not others and busy[0].device == 0
    yield Check(
        "the kernel",
        ok,
        f"busy once on device {busy[0].device}"
        if len(busy) == 1 and not others
        else f"busy launched {len(busy)} times" + (f", and also {', '.join(others)}" if others else ""),
        "launch busy exactly once, on device 0, on a buffer of its own",
    )
    yield check_overlap(
        run.log,
        at_least_fraction=0.9,
        start=START,
        end=END,
        hint="put the copy and the kernel on two streams of device 0 and queue both before "
        "waiting; from pinned memory the copy call returns at once",
    )
    yield check_time(
        run.log,
        at_most_ns=COPY_TIME_LIMIT,
        start=START,
        end=END,
        hint="the 2 ms kernel and the 1.2 ms pinned copy should run side by side",
    )
    yield waited_after(run, uploads + busy)


register(
    Exercise(
        id="04.2",
        kernels=(busy,),
        title="copy while computing",
        practises="pinned host memory: an asynchronous copy that really is asynchronous, beside a kernel",
        signature="solution(data) -> device address holding data",
        profile="ascend910b",
        devices=1,
        inputs=upload_inputs,
        judge=judge_copy_while_computing,
    )
)


# -- 04.3 · four steps in two buffers' worth of memory ------------------------------------------------
STEPS, STEP = 4, 8 * MiB
STEP_BUDGET = 20 * MiB  # two steps' buffers (8 MiB + padding in 2 MiB pages: 10 MiB each)


def steps_inputs(rng: np.random.Generator) -> dict:
    return {"chunks": rng.integers(0, 256, (STEPS, STEP), dtype=np.uint8)}


def check_host_waits(run, at_most: int = 1) -> Check:
    """How many runtime calls held the host until the device caught up."""
    waits = [c for c in run.calls() if c.blocked_from is not None]
    names: dict[str, int] = {}
    for c in waits:
        names[c.name] = names.get(c.name, 0) + 1
    which = ", ".join(f"{k} x{v}" for k, v in sorted(names.items())) or "none"
    ok = len(waits) <= at_most
    return Check(
        "the host waited",
        ok,
        f"{len(waits)} time{'s' * (len(waits) != 1)} ({which})" + ("" if ok else f", want at most {at_most}"),
        "queue every step, then wait once: give buffers back in stream order (a memory pool's "
        "mem_pool_free_async, or reuse a buffer on one stream) instead of synchronising before "
        "each aclrtFree; blocking copies and copies from pageable memory wait too",
        len(waits),
    )


def rows_from_device(run, array) -> Check:
    """Each row came back by device-to-host copies (the rows may have landed in separate host
    buffers that the solution stacked afterwards)."""
    rows = [run.from_device(row, computed=False, what=f"row {k}") for k, row in enumerate(array)]
    bad = [c for c in rows if not c.passed]
    if bad:
        return Check(
            "the result came from the device",
            False,
            f"{len(bad)} of {len(rows)} rows did not: " + bad[0].detail,
            bad[0].hint,
        )
    return Check(
        "the result came from the device",
        True,
        f"all {len(rows)} rows are what device-to-host copies brought back, read after they landed",
    )


def judge_steps(run):
    shape, array = run.answer((STEPS, STEP), np.uint8)
    yield shape
    if array is None:
        return
    yield check_equal(
        array,
        run.inputs["chunks"],
        what="the chunks read back",
        hint="copy each chunk in and back out, and read the host buffer only after the synchronize",
    )
    yield rows_from_device(run, array)
    yield check_bytes(run.log, "H2D", exactly=STEPS * STEP)
    yield check_bytes(run.log, "D2H", exactly=STEPS * STEP)
    yield check_host_waits(run, at_most=1)
    yield check_peak(
        run,
        at_most=STEP_BUDGET,
        hint="do not hold a device buffer per chunk: give each step's buffer back in stream "
        "order (mem_pool_free_async) or reuse one buffer on one stream",
    )


register(
    Exercise(
        id="04.3",
        kernels=(busy,),
        title="four steps in two buffers' worth of memory",
        practises="stream-ordered memory: reusing device memory step after step without stopping the host",
        signature="solution(chunks) -> np.ndarray",
        profile="ascend910b",
        devices=1,
        inputs=steps_inputs,
        judge=judge_steps,
    )
)

register_quiz(
    Quiz(
        "04.concepts",
        "Concept check: device memory",
        "概念检查：Device 内存",
        (
            Question(
                "How many bytes of the device does `acl.rt.malloc(1, acl.ACL_MEM_MALLOC_HUGE_ONLY)` take?",
                (
                    "1 byte: the allocator gives what you ask for.",
                    "64 bytes: the size padded to ALIGN_UP(size, 32) + 32.",
                    "2 MiB: the padded size rounded up to one whole huge page.",
                ),
                "c",
                (
                    "the runtime pads every request and then rounds it to whole pages; get_mem_info shows it",
                    "the padding is only the first step: the block then grows to a whole number of pages",
                    "right: HUGE_ONLY serves only 2 MiB pages, so one byte costs two million; small buffers "
                    "belong on normal pages (HUGE_FIRST does that up to 1 MiB)",
                ),
                "the cell under '2 · Policies and page sizes'",
                {
                    "text": "`acl.rt.malloc(1, acl.ACL_MEM_MALLOC_HUGE_ONLY)` 要占用 Device 多少字节？",
                    "choices": (
                        "1 字节：申请多少就给多少。",
                        "64 字节：补齐到 ALIGN_UP(size, 32) + 32 之后的大小。",
                        "2 MiB：补齐后的大小再向上取整到一整个大页。",
                    ),
                    "why": (
                        "runtime 会先补齐每个请求，再按整页取整；get_mem_info 可以看到",
                        "补齐只是第一步：之后这块内存还要扩大到整数个页",
                        "对：HUGE_ONLY 只用 2 MiB 页，一个字节要付出两百万字节；小缓冲区应放在普通页上（HUGE_FIRST 在 1 MiB 以内正是这样做的）",
                    ),
                    "shown_by": "“2 · 分配策略与页大小”下的单元格",
                },
            ),
            Question(
                "The host calls `acl.rt.memcpy_async` to copy 64 MiB from a numpy array (pageable memory) to the "
                "device. When does the call return?",
                (
                    "At once, like every Async call: the copy runs on the stream.",
                    "Only when the copy is done, and the copy is slower than one from pinned memory.",
                    "Never: the call fails, because asynchronous copies need pinned memory.",
                ),
                "b",
                (
                    "that holds for pinned memory only; for pageable memory the runtime stages the bytes and "
                    "returns when the copy is done",
                    "right: the call is asynchronous in name only, and nothing the host would launch after it "
                    "can overlap the copy",
                    "pageable memory is accepted; it is only slower and holds the host",
                ),
                "the cell under '3 · Pinned or pageable: where the host bytes live'",
                {
                    "text": "Host 调用 `acl.rt.memcpy_async`，把 64 MiB 从一个 numpy 数组（非锁页内存）拷到 Device。这次调用什么时候返回？",
                    "choices": (
                        "立即返回，和所有 Async 调用一样：拷贝在 Stream 上进行。",
                        "拷贝完成之后才返回，而且比从锁页内存拷贝更慢。",
                        "根本不会成功：异步拷贝必须使用锁页内存。",
                    ),
                    "why": (
                        "这只对锁页内存成立；对非锁页内存，runtime 要中转数据，拷贝完成后才返回",
                        "对：这个调用只是名义上异步，Host 之后才下发的任务无法与这次拷贝重叠",
                        "非锁页内存是可以用的，只是更慢，而且会占住 Host",
                    ),
                    "shown_by": "“3 · 锁页还是非锁页：Host 数据放在哪里”下的单元格",
                },
            ),
            Question(
                "A kernel queued on a stream still uses `buf` when the host calls `acl.rt.free(buf)`. What happens?",
                (
                    "aclrtFree waits until the kernel is done, then frees `buf`.",
                    "`buf` is freed at once; the kernel goes on using freed memory (a use after free).",
                    "aclrtFree fails with an error code, because `buf` is still in use.",
                ),
                "b",
                (
                    "aclrtFree waits for nothing: no device or stream synchronisation; that is what "
                    "aclrtFreeWithDevSync adds",
                    "right: on a board the bytes may already belong to the next allocation; synchronise first, "
                    "or use aclrtFreeWithDevSync or a stream-ordered pool",
                    "the runtime does not track who uses a buffer: the free succeeds, and the damage is silent",
                ),
                "the cell under '4 · Freeing memory a queued task still uses'",
                {
                    "text": "Stream 上一个排队中的核函数还在使用 `buf`，Host 此时调用 `acl.rt.free(buf)`。会怎样？",
                    "choices": (
                        "aclrtFree 等核函数完成，再释放 `buf`。",
                        "`buf` 立即被释放；核函数继续使用已释放的内存（释放后使用）。",
                        "aclrtFree 返回错误码，因为 `buf` 还在使用中。",
                    ),
                    "why": (
                        "aclrtFree 什么也不等：不做 Device 同步，也不做 Stream 同步；这正是 aclrtFreeWithDevSync 多做的事",
                        "对：在板卡上，这些字节也许已经分给了下一次申请；先同步，或者改用 aclrtFreeWithDevSync 或按 Stream 顺序分配的内存池",
                        "runtime 并不跟踪谁在使用缓冲区：释放照样成功，损害悄无声息",
                    ),
                    "shown_by": "“4 · 释放一块排队任务还在用的内存”下的单元格",
                },
            ),
            Question(
                "The host calls `acl.rt.free_with_dev_sync(buf)` while a 2 ms kernel on stream 1 uses `buf` and an "
                "unrelated 5 ms kernel runs on stream 2. How long does the host wait?",
                (
                    "Not at all: the call only marks `buf` to be freed later.",
                    "About 2 ms: it waits for the task that uses `buf`.",
                    "About 5 ms: it synchronises the whole device, the unrelated kernel included.",
                ),
                "c",
                (
                    "that is a stream-ordered pool's aclrtMemPoolFreeAsync; aclrtFreeWithDevSync blocks the host",
                    "the runtime does not know which tasks use `buf`: rtFreeWithDevSync is rtDeviceSynchronize, "
                    "then rtFree",
                    "right: it is a device synchronize and then a free, so it suits teardown, not a hot loop",
                ),
                "the cell under '4 · Freeing memory a queued task still uses'",
                {
                    "text": "Stream 1 上一个 2 ms 的核函数正在使用 `buf`，Stream 2 上运行着一个无关的 5 ms 核函数，此时 Host 调用 "
                    "`acl.rt.free_with_dev_sync(buf)`。Host 要等多久？",
                    "choices": (
                        "完全不等：这个调用只是把 `buf` 标记为稍后释放。",
                        "约 2 ms：它等使用 `buf` 的那个任务。",
                        "约 5 ms：它同步整个 Device，连无关的核函数也要等。",
                    ),
                    "why": (
                        "那是内存池的 aclrtMemPoolFreeAsync；aclrtFreeWithDevSync 会阻塞 Host",
                        "runtime 并不知道哪些任务在用 `buf`：rtFreeWithDevSync 就是先 rtDeviceSynchronize，再 rtFree",
                        "对：它就是一次 Device 同步加一次释放，适合收尾，不适合放在频繁执行的循环里",
                    ),
                    "shown_by": "“4 · 释放一块排队任务还在用的内存”下的单元格",
                },
            ),
        ),
    )
)
