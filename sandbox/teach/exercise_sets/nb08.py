"""Notebook 08 · ACL Graph: capture a step once, replay it (08.1); its deep dive 08x: copies in the
graph (08.2), two streams in one graph (08.3); the concept check of notebook 08.

The grader opens the board for each check (acl initialised, device 0 of the 910B set, a created
stream handed to the solution), so the whole run of the solution is the timed window.  The
kernel is the notebook's ``tick`` (int32 ``x = 3 x + j``, wrapping), so the result depends on
every launch and its order: the judges recompute it with numpy.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

import sandbox
from sandbox import acl
from sandbox.core import trace as tr
from sandbox.teach.checks import Check, check_equal, check_time
from sandbox.teach.concepts import Question, Quiz, register_quiz
from sandbox.teach.grading import END, START, Exercise, register
from sandbox.teach.provenance import KERNEL
from sandbox.viz.timeline import intersect, union
from sandbox.viz.units import fmt_time

N = 1024  # int32 elements of one vector (4 KiB)
K = 32  # tick launches in one step (j = 0 .. 31)
REPEATS = 20  # steps in exercises 08.1 and 08.3
BATCHES = 6  # batches in exercise 08.2
KERNEL_NAME = "tick"


# The notebooks' kernel (instructor/08_acl_graph.py and 08x_graph_patterns.py), as they declare it: known by its code and cost.
@sandbox.kernel(ns=1_000)
def tick(x: sandbox.ptr("int32", "n"), n: int, j: int):  # type: ignore[valid-type]  # a pointer kind, read by @sandbox.kernel
    x[:n] = x[:n] * 3 + j


REPLAY_CALLS = 100  # 08.1: host calls in the whole solution (eager: 640 launches)
REPLAY_TIME = 4_000_000  # 08.1: ns (eager: 5.6 ms; one step captured and replayed: 3.0-3.3 ms)
BATCH_CALLS = 80  # 08.2 (eager: 6 x 34 calls)
FORK_CALLS = 150  # 08.3 (eager: 1280 launches)
FORK_TIME = 4_000_000  # 08.3: ns (one stream, even replayed: ~5.7 ms; two streams: ~3.3 ms)
FORK_TOGETHER = 0.75  # 08.3: share of the kernel time the two streams ran kernels at once


def model(x: np.ndarray, steps: int = 1) -> np.ndarray:
    """``steps`` steps of the model on ``x``: each is tick with j = 0, 1, ..., K-1, in order."""
    y = np.array(x, dtype=np.int32)
    for _ in range(steps):
        for j in range(K):
            y = y * np.int32(3) + np.int32(j)
    return y


def _ints(rng: np.random.Generator, shape) -> np.ndarray:
    return rng.integers(-(2**31), 2**31, shape, dtype=np.int64).astype(np.int32)


def vector(rng):
    return {"x": _ints(rng, N)}


def batches(rng):
    return {"x": _ints(rng, (BATCHES, N))}


def two_vectors(rng):
    return {"a": _ints(rng, N), "b": _ints(rng, N)}


def hand_a_stream(inputs: dict) -> dict:
    """The grader's part beyond opening the board: a created stream for the solution."""
    stream, _ = acl.rt.create_stream()
    return {"stream": stream}


# -- helpers -------------------------------------------------------------------------------------
def _graph(task) -> int | None:
    return dict(task.detail).get("graph")


def _rows_from_device(run, array: np.ndarray, what: str) -> Check:
    """The whole answer, or else each of its rows, is what device-to-host copies of kernel
    results brought back (rows may land one at a time, in one host buffer used again)."""
    whole = run.from_device(array, what=what)
    if whole.passed or array.ndim < 2:
        return whole
    bad = []
    for i, row in enumerate(array):
        data = np.ascontiguousarray(row).tobytes()
        found = False
        for ld in run.recorder.landings:
            at = ld.data.find(data)
            while at >= 0 and not found:
                covered = [o for s, e, o in ld.origins if s < at + len(data) and e > at]
                found = bool(covered) and min(covered) >= KERNEL
                at = ld.data.find(data, at + 1)
            if found:
                break
        if not found:
            bad.append(i)
    if not bad:
        return Check(
            "the answer came from the device",
            True,
            f"every row of {what} is what a device-to-host copy brought back; a kernel computed it",
            value=KERNEL,
        )
    return Check(
        "the answer came from the device",
        False,
        f"row{'s' if len(bad) > 1 else ''} {', '.join(map(str, bad))} of {what} did not come back "
        "from the device computed by kernels",
        "compute every row on the device, copy it back with a device-to-host copy, and synchronise "
        "before you read the host buffer",
    )


def _answer(run, shape, expected, what: str):
    shape_check, array = run.answer(shape, np.int32)
    yield shape_check
    if array is None:
        return
    yield check_equal(
        array,
        expected,
        what=what,
        hint="apply the step exactly as model_step does (tick with j = 0 .. 31, in order), the "
        "stated number of times, and synchronise before reading the host buffer",
    )
    yield _rows_from_device(run, array, what)


def _kernel_set(run, want: int, per: str) -> Check:
    kernels = run.tasks("kernel")
    names = Counter(t.name for t in kernels)
    ok = names == Counter({KERNEL_NAME: want})
    found = ", ".join(f"{n} x{c}" for n, c in sorted(names.items())) or "no kernel"
    detail = (
        f"{want} launches of {KERNEL_NAME} ran ({per}), and no other kernel"
        if ok
        else f"{found} ran, want exactly {want} of {KERNEL_NAME} ({per}) and no other kernel"
    )
    return Check(
        "the kernels",
        ok,
        detail,
        "keep the kernels as they are: model_step launches tick 32 times; a graph replays those "
        "launches, it does not merge them (no fused kernel, no step left out)",
        len(kernels),
    )


def _from_replays(run, kinds=("kernel",), what="kernels") -> Check:
    tasks = run.tasks(*kinds)
    launches = run.records(tr.GraphLaunched)
    eager = [t for t in tasks if _graph(t) is None]
    ok = bool(tasks) and not eager and bool(launches)
    if ok:
        graphs = {_graph(t) for t in tasks}
        detail = (
            f"all {len(tasks)} {what} came from {len(launches)} replay(s) (aclmdlRIExecuteAsync) of "
            f"{len(graphs)} captured graph{'s' if len(graphs) > 1 else ''}"
        )
    elif not tasks:
        detail = f"no {what} ran"
    elif not launches:
        detail = (
            f"no graph was replayed: the {len(tasks)} {what} were launched one by one"
            if len(tasks) > 1
            else f"no graph was replayed: the one {what[:-1]} was launched eagerly"
        )
    else:
        detail = f"{len(eager)} of the {len(tasks)} {what} were launched one by one, not replayed from a graph"
    return Check(
        f"{what} replayed from a graph",
        ok,
        detail,
        "capture the work once (ri_capture_begin, the launches, ri_capture_end) and run it with "
        "ri_execute_async; do not launch it eagerly as well",
        len(eager),
    )


def _replays(run, exactly: int, what: str) -> Check:
    n = len(run.calls("aclmdlRIExecuteAsync"))
    launched = len(run.records(tr.GraphLaunched))
    ok = launched == exactly and n == exactly
    detail = f"{launched} replay(s) of the graph" + ("" if ok else f", want exactly {exactly} ({what})")
    return Check("replays", ok, detail, f"call acl.mdl.ri_execute_async once per {what.split()[-1]}", launched)


def _copies_in_graph(run) -> Check:
    from sandbox.teach.checks import _direction

    copies = run.tasks("memcpy")
    ways = Counter(_direction(t) for t in copies if _graph(t) is not None)
    eager = [t for t in copies if _graph(t) is None]
    nbytes = {t.nbytes for t in copies}
    ok = ways == Counter({"H2D": BATCHES, "D2H": BATCHES}) and not eager and nbytes == {4 * N}
    detail = (
        f"{BATCHES} copies in and {BATCHES} copies out of 4 KiB, all replayed from the graph"
        if ok
        else f"replayed: {ways.get('H2D', 0)} in, {ways.get('D2H', 0)} out; {len(eager)} copies not from the "
        f"graph; want {BATCHES} in and {BATCHES} out of 4 KiB each, all in the graph"
    )
    return Check(
        "copies in the graph",
        ok,
        detail,
        "capture the copy in (from pinned host memory: aclrtMallocHost), the step and the copy out "
        "together; between replays, write the next batch into the same pinned buffer",
        len(eager),
    )


def _two_stream_graph(run) -> Check:
    captured = {r.ri: r for r in run.records(tr.GraphCaptured)}
    replayed = {r.ri for r in run.records(tr.GraphLaunched)}
    widths = sorted(len(captured[ri].streams) for ri in replayed if ri in captured)
    ok = bool(widths) and all(w == 2 for w in widths) and len(replayed) == 1
    if ok:
        detail = "one graph, captured on two streams (the origin and a side stream that rejoined it), was replayed"
    elif not replayed:
        detail = "no graph was replayed"
    else:
        detail = (
            f"{len(replayed)} graph(s) replayed, on {', '.join(map(str, widths)) or '?'} stream(s); want one "
            "graph that holds two streams"
        )
    return Check(
        "one graph on two streams",
        ok,
        detail,
        "inside the capture, record an event on the captured stream and make the side stream wait for "
        "it (the side stream joins), launch b's step there, then record an event on the side stream "
        "and make the origin wait for it (it rejoins) before ri_capture_end",
        widths,
    )


def _streams_together(run) -> Check:
    per_stream: dict[int, list] = {}
    for t in run.index.tasks.values():
        if t.kind == "kernel" and t.start is not None and t.end is not None:
            per_stream.setdefault(t.stream, []).append((t.start, t.end))
    busiest = sorted((union(v) for v in per_stream.values()), key=lambda u: -sum(e - s for s, e in u))
    if len(busiest) < 2:
        return Check(
            "kernels of the two streams at once",
            False,
            f"kernels ran on {len(busiest)} stream(s), want two streams running at the same time",
            "put a's step and b's step on two streams inside the capture",
            0.0,
        )
    a, b = busiest[0], busiest[1]
    together = sum(e - s for s, e in intersect(a, b))
    shorter = min(sum(e - s for s, e in a), sum(e - s for s, e in b))
    frac = together / shorter if shorter else 0.0
    ok = frac >= FORK_TOGETHER
    detail = (
        f"the two streams ran kernels at once for {fmt_time(together)}, {frac:.0%} of the shorter one's "
        "kernel time" + ("" if ok else f", want at least {FORK_TOGETHER:.0%}")
    )
    return Check(
        "kernels of the two streams at once",
        ok,
        detail,
        "the side stream's step must not wait for the origin's: fork once at the start of the step "
        "and join once at its end",
        frac,
    )


_POLLS = ("aclrtStreamQuery", "aclrtQueryEventStatus", "aclrtQueryEvent")


def _host_calls(run, at_most: int, hint: str) -> Check:
    """Runtime calls of the whole solution, polling (queries, host work between them) not counted:
    waiting by polling instead of one synchronize is as good here."""
    calls = [
        c for c in run.calls() if c.start >= run.start and c.name not in _POLLS and not c.name.startswith("host work")
    ]
    names = Counter(c.name for c in calls)
    top = ", ".join(f"{k} x{v}" for k, v in sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[:3])
    ok = len(calls) <= at_most
    detail = f"{len(calls)} ({top or 'none'}; queries not counted)" + ("" if ok else f", want at most {at_most}")
    return Check("host calls", ok, detail, hint, len(calls))


# -- the judges ----------------------------------------------------------------------------------
def judge_replay(run):
    yield from _answer(run, (N,), model(run.inputs["x"], REPEATS), f"x after {REPEATS} steps")
    yield _kernel_set(run, K * REPEATS, f"{K} per step, {REPEATS} steps")
    yield run.check_kernels({KERNEL_NAME: tick})
    yield _from_replays(run)
    yield _host_calls(
        run, REPLAY_CALLS, "every launch is a host call: capture the step once, then replay it with one call per step"
    )
    yield check_time(
        run.log,
        at_most_ns=REPLAY_TIME,
        start=START,
        end=END,
        hint="the host cannot launch 640 small kernels as fast as the device runs them: capture "
        "one step once and replay it, so the kernels reach the device back to back",
    )


def judge_batches(run):
    x = run.inputs["x"]
    yield from _answer(run, (BATCHES, N), np.stack([model(row) for row in x]), "the batch results")
    yield _kernel_set(run, K * BATCHES, f"{K} per batch, {BATCHES} batches")
    yield run.check_kernels({KERNEL_NAME: tick})
    yield _from_replays(run)
    yield _copies_in_graph(run)
    yield _replays(run, BATCHES, "one per batch")
    yield _host_calls(
        run,
        BATCH_CALLS,
        "capture the copy in, the step and the copy out once; each batch is then one replay and one synchronize",
    )


def judge_fork_join(run):
    a, b = run.inputs["a"], run.inputs["b"]
    yield from _answer(run, (2, N), np.stack([model(a, REPEATS), model(b, REPEATS)]), f"a and b after {REPEATS} steps")
    yield _kernel_set(run, 2 * K * REPEATS, f"{K} per vector and step, {REPEATS} steps")
    yield run.check_kernels({KERNEL_NAME: tick})
    yield _from_replays(run)
    yield _two_stream_graph(run)
    yield _streams_together(run)
    yield _host_calls(
        run, FORK_CALLS, "every launch is a host call: capture one step of both vectors once and replay it"
    )
    yield check_time(
        run.log,
        at_most_ns=FORK_TIME,
        start=START,
        end=END,
        hint="replay a graph in which a's and b's steps run on two streams side by side",
    )


register(
    Exercise(
        id="08.1",
        title="replay the step",
        practises="capturing a step of small kernels once and replaying it, so the host makes one call per step",
        signature="solution(x, stream) -> np.ndarray",
        profile="ascend910b",
        inputs=vector,
        prepare=hand_a_stream,
        judge=judge_replay,
    )
)

register(
    Exercise(
        id="08.2",
        title="copies in the graph",
        practises="capturing copies from pinned host memory with the kernels, and feeding a graph new data "
        "through the buffers it was captured with",
        signature="solution(x, stream) -> np.ndarray",
        profile="ascend910b",
        inputs=batches,
        prepare=hand_a_stream,
        judge=judge_batches,
    )
)

register(
    Exercise(
        id="08.3",
        title="two streams in one graph",
        practises="cross-stream capture: a side stream joins the capture through an event and rejoins the origin "
        "before the end, so one replay runs both streams side by side",
        signature="solution(a, b, stream) -> np.ndarray",
        profile="ascend910b",
        inputs=two_vectors,
        prepare=hand_a_stream,
        judge=judge_fork_join,
    )
)

register_quiz(
    Quiz(
        "08.concepts",
        "Concept check: capture and replay",
        "概念检查：捕获与重放",
        (
            Question(
                "Between aclmdlRICaptureBegin and aclmdlRICaptureEnd, a kernel launch on the capturing stream "
                "returns 0. What has happened?",
                (
                    "The kernel ran on the device; the graph also remembers it, for later replays.",
                    "The launch was recorded into the model run instance; nothing runs until aclmdlRIExecuteAsync.",
                    "The kernel was queued, and it runs when aclmdlRICaptureEnd is called.",
                ),
                "b",
                (
                    "during a capture a launch reaches no queue: the device ran no kernel and the buffer stayed zeros",
                    "right: 0 means 'recorded'; the trace has a TaskCaptured record per launch and the data is "
                    "unchanged until a replay",
                    "ending a capture runs nothing either: the data after the end is still zeros, and only "
                    "aclmdlRIExecuteAsync puts the tasks on the device",
                ),
                "the cell under 'Capture: recorded, not run'",
                {
                    "text": "在 aclmdlRICaptureBegin 与 aclmdlRICaptureEnd 之间，向正在捕获的 Stream 下发核函数返回了 0。"
                    "发生了什么？",
                    "choices": (
                        "核函数已在 Device 上执行；图同时记下了它，供以后重放。",
                        "这次下发被记录进模型运行实例；在 aclmdlRIExecuteAsync 之前什么都不会执行。",
                        "核函数已进入队列，会在调用 aclmdlRICaptureEnd 时执行。",
                    ),
                    "why": (
                        "捕获期间的下发不进入任何队列：Device 没有执行核函数，缓冲区仍然是零",
                        "对：0 表示“已记录”；trace 中每次下发有一条 TaskCaptured 记录，重放之前数据不变",
                        "结束捕获也不执行任何任务：结束之后数据仍然是零，只有 aclmdlRIExecuteAsync 才把任务交给 Device",
                    ),
                    "shown_by": "“捕获：只记录，不执行”下的单元格",
                },
            ),
            Question(
                "In the middle of a capture the program calls aclrtSynchronizeStream on the capturing stream. "
                "What happens (in the runtime's source and in the sandbox)?",
                (
                    "The call waits until the kernels captured so far have run, then returns 0.",
                    "The call ends the capture and hands back the graph captured so far.",
                    "The call returns 107027 (ACL_ERROR_RT_STREAM_CAPTURED) and the capture goes on.",
                ),
                "c",
                (
                    "nothing captured has run, so there is nothing to wait for: synchronizing or querying during a "
                    "capture is illegal in every mode",
                    "only aclmdlRICaptureEnd ends a capture; a synchronize does not",
                    "right: the runtime checks a capturing stream first and leaves the capture as it is; the status "
                    "afterwards is still ACTIVE (a device synchronize, by the sandbox's choice, invalidates it)",
                ),
                "the cell under 'The rules, and what breaking them returns'",
                {
                    "text": "捕获进行到一半，程序对正在捕获的 Stream 调用了 aclrtSynchronizeStream。会发生什么（按运行时源码，"
                    "沙箱也一样）？",
                    "choices": (
                        "调用等到目前已捕获的核函数都执行完，然后返回 0。",
                        "调用结束捕获，交回到目前为止捕获的图。",
                        "调用返回 107027（ACL_ERROR_RT_STREAM_CAPTURED），捕获继续进行。",
                    ),
                    "why": (
                        "已捕获的任务一个都没有执行，没有什么可等的：捕获期间同步或查询，在任何模式下都是非法的",
                        "只有 aclmdlRICaptureEnd 才结束捕获，同步不会",
                        "对：运行时最先检查 Stream 是否正在捕获，并保持捕获不变；之后的状态仍是 ACTIVE（同步 Device 则按沙箱的"
                        "选择使捕获失效）",
                    ),
                    "shown_by": "“规则，以及违反规则时返回什么”下的单元格",
                },
            ),
            Question(
                "A step of 32 kernels is captured once, then replayed 100 times with aclmdlRIExecuteAsync, and "
                "the stream is synchronized once. How many host calls do the replays and the synchronize make?",
                ("101", "3,201", "132"),
                "a",
                (
                    "right: one call per replay, whatever the graph holds, and one synchronize; the 32 launches "
                    "were paid once, at capture",
                    "that is the eager loop: 32 launches per step, 100 steps, and the synchronize",
                    "a replay does not launch the graph's kernels one by one from the host: it is one call for all 32",
                ),
                "the cell under 'Replaying many times'",
                {
                    "text": "一步 32 个核函数被捕获一次，然后用 aclmdlRIExecuteAsync 重放 100 次，最后同步一次 Stream。"
                    "重放和同步一共要多少次 Host 调用？",
                    "choices": ("101", "3,201", "132"),
                    "why": (
                        "对：不管图里有什么，每次重放都是一次调用，再加一次同步；32 次下发只在捕获时付过一次",
                        "这是逐个下发的循环：每步 32 次下发，共 100 步，再加一次同步",
                        "重放不会由 Host 把图里的核函数逐个下发：32 个核函数只需一次调用",
                    ),
                    "shown_by": "“多次重放”下的单元格",
                },
            ),
            Question(
                "When does capturing a step into a graph pay off most?",
                (
                    "A step of a few long kernels that runs once.",
                    "A step of many small kernels that runs many times.",
                    "Any step: a replayed kernel runs faster on the device than a launched one.",
                ),
                "b",
                (
                    "long kernels hide the launch cost already, and a step run once pays the capture without "
                    "getting it back",
                    "right: the host's launches were the bottleneck, so one call per replay closes the gaps "
                    "between kernels, and the capture is paid back over many replays",
                    "the device's work is the same in a replay: 32 steps took about half the time, not 1/16, "
                    "because the 128 µs of kernels stay",
                ),
                "the cells under 'Eager vs replayed'",
                {
                    "text": "把一步捕获成图，什么情况下最划算？",
                    "choices": (
                        "由少数几个长核函数组成、只运行一次的一步。",
                        "由许多小核函数组成、要运行很多次的一步。",
                        "任何一步都划算：重放的核函数在 Device 上比逐个下发的跑得快。",
                    ),
                    "why": (
                        "长核函数本来就掩盖了下发开销，而只运行一次的一步付了捕获的代价却赚不回来",
                        "对：瓶颈是 Host 的下发，每次重放一次调用就消除了核函数之间的空隙，捕获的代价也在多次重放中赚回来",
                        "重放时 Device 的工作量不变：32 步只缩短到约一半而不是 1/16，因为 128 µs 的核函数还在",
                    ),
                    "shown_by": "“逐个下发与重放”下的单元格",
                },
            ),
        ),
    )
)
