"""Notebook 05 · several devices: ordering work across devices from the host (05.1, in the
notebook), peer-to-peer copies (a broadcast from one device, an exchange between two: 05.2 and
05.3, in the deep dive 05x_peer_links); and the notebook's concept check (05.concepts).

The solutions run on the notebook's 8-device 910B server, on the board the grader opened
(``grading.BOARD``: ``acl.init()`` done, device 0 set); they set the other devices they use
themselves.  Copies between devices are judged by where their bytes went: the recorder's
``writes`` (sandbox/teach/provenance.py) hold, for every byte of every buffer, the task that
wrote it last and, for a copy, the buffer it read; the judges then read what each device
buffer holds at the end on the grader's machine.
"""

from __future__ import annotations

import numpy as np

import sandbox

from sandbox.core import trace as tr
from sandbox.teach.checks import Check, check_bytes, check_device_order
from sandbox.teach.concepts import Question, Quiz, register_quiz
from sandbox.teach.grading import Exercise, register
from sandbox.teach.provenance import Writer
from sandbox.viz.units import fmt_time

from .nb04 import device_range, differences, waited_after

MiB = 1 << 20
COPY = 64 * MiB  # the notebook's payload; one copy over a 56 GB/s link: about 1.2 ms
ONE_COPY_TIME = 1_500_000  # ns: "about the time of one copy"


# -- helpers the judges share ---------------------------------------------------------------------------


# -- the notebook's kernels, as it declares them: the grader knows them by their code and cost -------------
@sandbox.kernel(ns=5_000_000)
def work(x: "uint8*"):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    pass


@sandbox.kernel(ns=5_000_000)
def busy():
    pass


@sandbox.kernel(ns=1_500_000)
def compute(x: "uint8*"):  # type: ignore[valid-type]  # pyACL type strings, read by @sandbox.kernel
    pass


KERNELS = (work, busy, compute)


def returned_places(run, devices, what: str):
    """The result must be a dict {device: address}; yields Checks, returns {device: (buffer, offset)}."""
    r = run.result
    want = "{" + ", ".join(f"{d}: address" for d in devices) + "}"
    if not isinstance(r, dict) or sorted(r) != sorted(devices):
        got = (
            "None (did the function end without a return?)"
            if r is None
            else f"a dict with keys {sorted(r, key=str)}"
            if isinstance(r, dict)
            else f"a {type(r).__name__}"
        )
        return [
            Check(
                "what came back",
                False,
                f"{got}, want {want}",
                f"return a dict: device number -> the address of {what} on that device",
            )
        ], None
    checks, places = [Check("what came back", True, f"a dict {want}")], {}
    for d in devices:
        check, place = device_range(run, r[d], COPY, f"device {d}'s buffer", device=d)
        checks.append(check)
        places[d] = place
    return checks, (places if None not in places.values() else None)


def check_content(places, expected: dict, hint: str) -> Check:
    """Each device buffer holds, at the end of the run, the bytes it should."""
    wrong = []
    for d, place in places.items():
        buf, offset = place
        count, first = differences(buf, offset, expected[d][0])
        if count:
            wrong.append(f"device {d}'s buffer has {count} bytes that are not {expected[d][1]} (first at byte {first})")
    if wrong:
        return Check("what each device holds", False, "; ".join(wrong), hint, len(wrong))
    return Check("what each device holds", True, "; ".join(f"device {d}: {expected[d][1]}" for d in places))


def check_copied_from(run, places: dict, sources: dict, hint: str) -> Check:
    """The bytes of ``places[d]`` were last written by device-to-device copies that read a
    buffer on device ``sources[d]``."""
    writes = run.recorder.writes
    wrong = []
    for d, (buf, offset) in places.items():
        for _, _, w in writes.pieces(buf, offset, COPY):
            if not isinstance(w, Writer):
                wrong.append(f"part of device {d}'s buffer was never written")
            elif w.kind != "memcpy":
                wrong.append(f"device {d}'s buffer was last written by a {w.kind}")
            elif w.source_device is None:
                wrong.append(f"device {d}'s buffer was written by a copy from the host")
            elif w.source_device != sources[d]:
                wrong.append(
                    f"device {d}'s buffer was written by a copy from device {w.source_device}, "
                    f"not from device {sources[d]}"
                )
            else:
                continue
            break
    if wrong:
        return Check("copied device to device", False, "; ".join(wrong), hint, len(wrong))
    return Check("copied device to device", True, "; ".join(f"device {sources[d]} -> {d}" for d in places))


def peer_copies(run) -> list:
    """The device-to-device copies between two devices, from the index (start/end times)."""
    return [t for t in run.index.tasks.values() if t.kind == "memcpy" and dict(t.detail).get("src_device") is not None]


def check_peer_window(run, at_most: int, hint: str) -> Check:
    """From the first peer copy's start to the last one's end."""
    copies = [t for t in peer_copies(run) if t.start is not None]
    if not copies:
        return Check("time of the peer copies", False, "no copy ran between two devices", hint)
    lo = min(t.start for t in copies)
    hi = max(t.end if t.end is not None else run.index.t_end for t in copies)
    ok = hi - lo <= at_most
    return Check(
        "time of the peer copies",
        ok,
        f"{fmt_time(hi - lo)} from the first one's start to the last one's end ({len(copies)} copies)"
        + ("" if ok else f", want at most {fmt_time(at_most)}"),
        hint,
        hi - lo,
    )


def check_peer_access(run, directions) -> Check:
    """Each (source, destination) direction was enabled with aclrtDeviceEnablePeerAccess."""
    opened = {(r.device, r.peer) for r in run.records(tr.PeerAccessChanged) if r.enabled}
    missing = [f"{a} -> {b}" for a, b in directions if (a, b) not in opened]
    ok = not missing
    return Check(
        "peer access",
        ok,
        ("enabled " + ", ".join(f"{a} -> {b}" for a, b in directions))
        if ok
        else f"never enabled: {', '.join(missing)}",
        "with the source device current, call acl.rt.device_enable_peer_access(destination, 0): "
        "access is one-directional, so each direction needs its own call",
    )


# -- 05.1 · one device after another ------------------------------------------------------------------
def no_inputs(rng: np.random.Generator) -> dict:
    return {}


def judge_one_after_another(run):
    kernels = run.tasks("kernel")
    on = {d: [t for t in kernels if t.device == d and t.name == "work"] for d in (0, 1)}
    others = [t for t in kernels if t not in on[0] and t not in on[1]]
    ok = len(on[0]) == 1 and len(on[1]) == 1 and not others
    extra = ", ".join(sorted({f"{t.name} on device {t.device}" for t in others}))
    yield Check(
        "the kernels",
        ok,
        f"work launched {len(on[0])}x on device 0 and {len(on[1])}x on device 1"
        + (f", and also {extra}" if extra else ""),
        "launch work once on a stream of device 0 and once on a stream of device 1, with that "
        "device current (acl.rt.set_device) when you launch",
    )
    if not ok:
        return
    yield check_device_order(
        run.log,
        first=0,
        then=1,
        hint="make the host wait for device 0 (aclrtSynchronizeEvent on its event, or "
        "synchronise its stream) before launching on device 1",
    )
    ordered = run.ordered(on[0][0].task, on[1][0].task)
    yield Check(
        "the host knew device 0 was done",
        ordered,
        "device 1's launch is ordered after device 0's kernel: the host waited for it before launching"
        if ordered
        else "nothing orders device 1's launch after device 0's kernel (no wait of the host covered it "
        "before the launch), so the order was luck, not a dependency",
        "a stream of device 1 cannot wait for device 0's event (that call fails with 107003 "
        "ACL_ERROR_RT_STREAM_CONTEXT), but the host can: aclrtSynchronizeEvent(e0), which works "
        "across devices, then launch on device 1; waiting with host_work or sleep is not a dependency",
    )


register(
    Exercise(
        id="05.1",
        kernels=KERNELS,
        title="one device after another",
        practises="stream and event affinity: which calls may cross devices, and ordering two devices from the host",
        signature="solution() -> None",
        profile="ascend910b",
        inputs=no_inputs,
        judge=judge_one_after_another,
    )
)


# -- 05.2 · broadcast -----------------------------------------------------------------------------------
TARGETS = (1, 2, 3)


def payload(rng: np.random.Generator) -> dict:
    return {"data": rng.integers(0, 256, COPY, dtype=np.uint8)}


def judge_broadcast(run):
    checks, places = returned_places(run, (0,) + TARGETS, "data")
    yield from checks
    if places is None:
        return
    data = run.inputs["data"]
    yield check_content(
        places,
        {d: (data, "data") for d in places},
        "upload data to device 0, copy device 0's buffer to each target, and synchronise "
        "every stream you used before returning",
    )
    yield check_copied_from(
        run,
        {d: places[d] for d in TARGETS},
        {d: 0 for d in TARGETS},
        "a broadcast goes from device 0 to each of devices 1, 2 and 3: "
        "memcpy_async(dst_on_d, n, src_on_0, n, ACL_MEMCPY_DEVICE_TO_DEVICE, stream)",
    )
    yield check_peer_access(run, [(0, d) for d in TARGETS])
    yield check_bytes(
        run.log, "H2D", exactly=COPY, hint="upload data once, to device 0; the other devices get it from device 0"
    )
    yield check_bytes(
        run.log,
        "peer",
        exactly=len(TARGETS) * COPY,
        hint="one 64 MiB copy from device 0 to each of the three targets, no more",
    )
    yield waited_after(run, peer_copies(run), "the copies")
    yield check_peer_window(
        run,
        ONE_COPY_TIME,
        "each target has a link of its own from device 0: queue the three copies on three "
        "streams before waiting for any of them",
    )


register(
    Exercise(
        id="05.2",
        kernels=KERNELS,
        title="broadcast",
        practises="peer access and device-to-device copies: one source, three links used at once",
        signature="solution(data) -> {0: ptr, 1: ptr, 2: ptr, 3: ptr}",
        profile="ascend910b",
        inputs=payload,
        judge=judge_broadcast,
    )
)


# -- 05.3 · exchange ------------------------------------------------------------------------------------
def two_payloads(rng: np.random.Generator) -> dict:
    return {"a": rng.integers(0, 256, COPY, dtype=np.uint8), "b": rng.integers(0, 256, COPY, dtype=np.uint8)}


def judge_exchange(run):
    checks, places = returned_places(run, (0, 1), "the exchanged data")
    yield from checks
    if places is None:
        return
    yield check_content(
        places,
        {0: (run.inputs["b"], "b"), 1: (run.inputs["a"], "a")},
        "copy into buffers other than the ones being read: in place, one copy overwrites "
        "what the other still has to read",
    )
    yield check_copied_from(
        run,
        places,
        {0: 1, 1: 0},
        "device 0's b must come from device 1 and device 1's a from device 0, by "
        "device-to-device copies, not through the host",
    )
    yield check_peer_access(run, [(0, 1), (1, 0)])
    yield check_bytes(
        run.log,
        "H2D",
        exactly=2 * COPY,
        hint="upload a to device 0 and b to device 1, once each; the exchange itself is device to device",
    )
    yield check_bytes(run.log, "peer", exactly=2 * COPY, hint="one 64 MiB copy each way, no more")
    yield waited_after(run, peer_copies(run), "the copies")
    yield check_peer_window(
        run,
        ONE_COPY_TIME,
        "0 -> 1 and 1 -> 0 are separate links: queue both copies on two streams before "
        "waiting, and they take the time of one",
    )


register(
    Exercise(
        id="05.3",
        kernels=KERNELS,
        title="exchange in the time of one copy",
        practises="one-directional peer access: both directions enabled, both links used at once",
        signature="solution(a, b) -> {0: ptr, 1: ptr}",
        profile="ascend910b",
        inputs=two_payloads,
        judge=judge_exchange,
    )
)


# -- 05.concepts · the concept check ----------------------------------------------------------------------
register_quiz(
    Quiz(
        "05.concepts",
        "Concept check: several devices",
        "概念检查：多 Device",
        (
            Question(
                "The main thread calls aclrtSetDevice(0), then starts a worker thread. Before the worker "
                "calls aclrtSetDevice itself, what is its current device?",
                (
                    "device 0: a new thread inherits the device of the thread that started it",
                    "none: its calls that need a context fail with 107002 ACL_ERROR_RT_CONTEXT_NULL",
                    "device 0 while the main thread is still running, none after it ends",
                ),
                "b",
                (
                    "the current device belongs to the thread that set it; a new thread inherits nothing",
                    "right: SetDevice is per thread, so every thread sets its own device (or context) first",
                    "the main thread's life does not matter: the worker never had a current device",
                ),
                "the cell under '2 · SetDevice is per thread'",
                {
                    "text": "主线程调用 aclrtSetDevice(0) 后启动一个工作线程。工作线程在自己调用 aclrtSetDevice 之前，"
                    "它的当前 Device 是什么？",
                    "choices": (
                        "Device 0：新线程继承启动它的线程的 Device",
                        "没有：它需要 Context 的调用会返回 107002 ACL_ERROR_RT_CONTEXT_NULL",
                        "主线程还在运行时是 Device 0，主线程结束后就没有了",
                    ),
                    "why": (
                        "当前 Device 属于设置它的线程，新线程什么也不继承",
                        "对：SetDevice 按线程生效，每个线程都要先指定自己的 Device（或 Context）",
                        "与主线程是否还在运行无关：工作线程从来没有当前 Device",
                    ),
                    "shown_by": "“2 · SetDevice 按线程生效”下的单元格",
                },
            ),
            Question(
                "A thread called aclrtSetDevice(0) three times. What does one aclrtResetDevice(0) do?",
                (
                    "releases device 0's default context and its streams at once",
                    "only counts down from 3 to 2; aclrtResetDeviceForce(0) would release at once",
                    "fails, because the count is not 1",
                ),
                "b",
                (
                    "that is aclrtResetDeviceForce; aclrtResetDevice releases only when the count reaches zero",
                    "right: ResetDevice counts references, ResetDeviceForce releases whatever the count",
                    "a reset with references left succeeds; only one with none left fails (507007)",
                ),
                "the cells under '3 · Giving a device back'",
                {
                    "text": "某线程调用了三次 aclrtSetDevice(0)。此时调用一次 aclrtResetDevice(0) 会怎样？",
                    "choices": (
                        "立即释放 Device 0 的默认 Context 及其 Stream",
                        "只把引用计数从 3 减到 2；换成 aclrtResetDeviceForce(0) 才会立即释放",
                        "失败，因为计数不是 1",
                    ),
                    "why": (
                        "那是 aclrtResetDeviceForce 的行为；aclrtResetDevice 只在计数减到零时才释放",
                        "对：ResetDevice 按引用计数，ResetDeviceForce 不论计数一次释放",
                        "还有引用时复位会成功；只有一个引用都不剩时才失败（507007）",
                    ),
                    "shown_by": "“3 · 复位 Device”下的单元格",
                },
            ),
            Question(
                "With device 1 current you call aclrtDeviceEnablePeerAccess(0, 0). Which direction does that open?",
                (
                    "both directions between devices 0 and 1",
                    "only 1 -> 0 (current device to peer); 0 -> 1 needs its own call with device 0 current",
                    "only 0 -> 1 (the peer to the current device)",
                ),
                "b",
                (
                    "enabling is one-directional: the sample calls it once per direction",
                    "right: the current device to the peer, one call per direction",
                    "the direction goes from the current device to the peer named in the call",
                ),
                "the cell after 'Predict, then run' in '5 · Peer access'",
                {
                    "text": "以 Device 1 为当前 Device 调用 aclrtDeviceEnablePeerAccess(0, 0)，开启的是哪个方向？",
                    "choices": (
                        "Device 0 与 1 之间的两个方向",
                        "只有 1 -> 0（当前 Device 到 peer）；0 -> 1 要以 Device 0 为当前 Device 另行调用",
                        "只有 0 -> 1（peer 到当前 Device）",
                    ),
                    "why": (
                        "数据交互是单向开启的：示例中每个方向各调用一次",
                        "对：从当前 Device 到 peer，每个方向一次调用",
                        "方向是从当前 Device 到调用中指定的 peer",
                    ),
                    "shown_by": "“5 · Device 间数据交互”中“先预测，再运行”之后的单元格",
                },
            ),
            Question(
                "Device 1 is current; e0 is an event recorded on a stream of device 0. Which call succeeds?",
                (
                    "aclrtStreamWaitEvent(s1, e0), so that device 1's stream waits for device 0",
                    "aclrtRecordEvent(e0, s1), to record e0 again on device 1's stream",
                    "aclrtSynchronizeEvent(e0): the host waits for device 0's event",
                ),
                "c",
                (
                    "a stream cannot wait for another device's event: 107003 ACL_ERROR_RT_STREAM_CONTEXT",
                    "an event is recorded only on a stream of its own device: 107003",
                    "right: synchronizing on (or querying) another device's event succeeds, so the host orders devices",
                ),
                "the cell under '4 · Affinity: which calls may cross devices'",
                {
                    "text": "当前 Device 是 1；e0 是在 Device 0 的 Stream 上记录的 Event。下面哪个调用会成功？",
                    "choices": (
                        "aclrtStreamWaitEvent(s1, e0)，让 Device 1 的 Stream 等待 Device 0",
                        "aclrtRecordEvent(e0, s1)，在 Device 1 的 Stream 上再次记录 e0",
                        "aclrtSynchronizeEvent(e0)：Host 等待 Device 0 的 Event",
                    ),
                    "why": (
                        "Stream 不能等待其他 Device 的 Event：107003 ACL_ERROR_RT_STREAM_CONTEXT",
                        "Event 只能记录在本 Device 的 Stream 上：107003",
                        "对：同步（或查询）其他 Device 的 Event 会成功，所以由 Host 给 Device 排序",
                    ),
                    "shown_by": "“4 · 亲和性：哪些调用可以跨 Device”下的单元格",
                },
            ),
        ),
    )
)
