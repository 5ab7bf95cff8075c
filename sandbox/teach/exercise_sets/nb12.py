"""Notebook 12 · inference: classify a batch with a loaded model (12.1); batches of two, the next
pair's copy under the current execution (12.2, in the deep dive 12x_batching_profiling).

The grader opens the board (a 310P3, the chip of the stand-in's published curve) and saves the
model file the exercise names, passing its path.  The answer is judged by where its bytes came
from: the model's execution (known by its description, as a kernel by its code) on the grader's
images, copied back after a wait the trace shows covers it.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from sandbox.models import zoo
from sandbox.teach.checks import Check, check_equal, check_overlap
from sandbox.teach.concepts import Question, Quiz, register_quiz
from sandbox.teach.grading import Exercise, register

PROFILE = "ascend310p"
GEARS = (1, 2, 4, 8)
BATCH_12_1, PAIR = 4, 2
IMAGES_12_2 = 8


def _saved(model, name: str) -> dict:
    """The grader's part beyond opening the board: the model file, saved where the solution is told."""
    path = os.path.join(tempfile.mkdtemp(prefix="sandbox-model-"), name)
    return {"model_path": model.save(path)}


def four_images(rng) -> dict:
    return {"images": rng.random((BATCH_12_1, 3, 224, 224)).astype(np.float16)}


def eight_images(rng) -> dict:
    return {"images": rng.random((IMAGES_12_2, 3, 224, 224)).astype(np.float16)}


def _answer(run, model, shape, what: str):
    """The answer's shape and values, and that the model computed it from the grader's images."""
    shape_check, array = run.answer(shape, np.float32)
    yield shape_check
    if array is None:
        return
    expected = model.run([run.inputs["images"]], shape[0], None)[0]
    yield check_equal(
        array, expected, what=what, hint="return the model's output as it came back, in the images' order"
    )
    yield from run.computed(array, kernels={"resnet50": model}, inputs=("images",), what=what)


def _executions(run, count: int, batch: int | None) -> Check:
    """The model ran ``count`` times, each at ``batch`` (None: a static model, its own batch)."""
    tasks = run.tasks("model")
    batches = [dict(t.detail).get("batch") for t in tasks]
    ok = len(tasks) == count and all(b == batch for b in batches)
    at = f" at batch {batch}" if batch is not None else ""
    detail = (
        f"the model executed {len(tasks)} time(s){at}"
        if ok
        else f"the model executed {len(tasks)} time(s) (batches: {', '.join(str(b) for b in batches) or 'none'}), "
        f"want {count}{at}"
        if batch is not None
        else f"the model executed {len(tasks)} time(s), want {count}"
    )
    return Check(
        "the executions",
        ok,
        detail,
        "set the batch on each input dataset (acl.mdl.set_dynamic_batch_size) and execute once per batch"
        if batch is not None
        else "execute the model once on the dataset holding all the images",
        len(tasks),
        tuple(t.task for t in tasks) if not ok else (),
    )


def judge_classify(run):
    yield from _answer(run, MODEL_12_1, (BATCH_12_1, 1000), "the probabilities")
    yield _executions(run, 1, None)


def _streams(run) -> Check:
    """Input copies on one stream, the executions on one other, waits for the copy stream's events."""
    loads = [t for t in run.tasks("memcpy") if dict(t.detail).get("direction") == "host to device"]
    models = run.tasks("model")
    load_streams, model_streams = {t.stream for t in loads}, {t.stream for t in models}
    waits = run.waits_for(model_streams, load_streams)
    apart = len(load_streams) == 1 and len(model_streams) == 1 and not load_streams & model_streams
    ok = apart and bool(waits)
    if ok:
        detail = f"copies on one stream, executions on another, which waited {len(waits)} time(s) for its events"
    elif not apart:
        shared = "sharing one" if load_streams & model_streams else "apart"
        detail = (
            f"input copies on {len(load_streams)} stream(s) and executions on {len(model_streams)}, {shared}: want one "
            "copy stream and one other"
        )
    else:
        detail = "the compute stream never waited for an event recorded on the copy stream"
    return Check(
        "copy and compute streams",
        ok,
        detail,
        "after each input copy, acl.rt.record_event(loaded, copy_s); before its execution, "
        "acl.rt.stream_wait_event(compute_s, loaded): the device orders them, the host does not wait",
        len(waits),
    )


def judge_pairs(run):
    yield from _answer(run, MODEL_12_2, (IMAGES_12_2, 1000), "the probabilities")
    yield _executions(run, IMAGES_12_2 // PAIR, PAIR)
    yield _streams(run)
    yield check_overlap(
        run.log,
        at_least_fraction=0.5,
        hint="copy the next pair's images on the copy stream while the compute stream executes the current pair",
    )


MODEL_12_1 = zoo("resnet50", batch=BATCH_12_1)
MODEL_12_2 = zoo("resnet50", dynamic_batch=GEARS)

register(
    Exercise(
        id="12.1",
        kernels=(),
        title="classify a batch",
        practises="loading a model, describing it, building the datasets, a blocking execution",
        signature="solution(images, model_path) -> np.ndarray",
        profile=PROFILE,
        devices=1,
        inputs=four_images,
        prepare=lambda inputs: _saved(MODEL_12_1, "resnet50_b4.om"),
        judge=judge_classify,
    )
)

register(
    Exercise(
        id="12.2",
        kernels=(),
        title="batches of two, the next pair copied while the model runs",
        practises="a dynamic-batch model at a chosen gear; the next batch's input copy on a copy stream while "
        "the model executes the current one, ordered by events",
        signature="solution(images, model_path) -> np.ndarray",
        profile=PROFILE,
        devices=1,
        inputs=eight_images,
        prepare=lambda inputs: _saved(MODEL_12_2, "resnet50_dynamic.om"),
        judge=judge_pairs,
    )
)


# -- concept check: notebook 12 (its questions cover the core; the deep dive 12x has none of its own) --
register_quiz(
    Quiz(
        "12.concepts",
        "Concept check: running a model",
        "概念检查：运行模型",
        (
            Question(
                "What does the host wait for in aclmdlExecute?",
                (
                    "nothing: it returns once the execution is queued",
                    "until the outputs have been copied back to host memory",
                    "until the outputs are written in device memory",
                ),
                "c",
                (
                    "that is aclmdlExecuteAsync; aclmdlExecute blocked the host for about 0.67 ms",
                    "the outputs stay in device memory: the program copies them back itself, after the call",
                    "right: the model's time plus the submission and the wake-up; the copy back came after",
                ),
                "the cells under '2 · Datasets, and a blocking execution'",
                {
                    "text": "aclmdlExecute 让 Host 等什么？",
                    "choices": (
                        "什么都不等：执行一放进队列就返回",
                        "等到输出被拷回 Host 内存",
                        "等到输出写进 Device 内存",
                    ),
                    "why": (
                        "那是 aclmdlExecuteAsync；aclmdlExecute 让 Host 阻塞了约 0.67 ms",
                        "输出留在 Device 内存里：程序在调用之后自己把它拷回",
                        "对：模型的时间加上下发和唤醒；拷回是之后的事",
                    ),
                    "shown_by": "“2 · 数据集，以及一次阻塞执行”下的单元格",
                },
            ),
            Question(
                "A program calls aclmdlExecuteAsync, then aclrtSynchronizeStream. Where does the model's 0.67 ms go?",
                (
                    "into the synchronize: the host waits there while the AI Cores work",
                    "into aclmdlExecuteAsync: it waits for the model as aclmdlExecute does",
                    "nowhere: executing asynchronously makes the model itself faster",
                ),
                "a",
                (
                    "right: the call returned in microseconds and the synchronize waited the model's time",
                    "the asynchronous call returned in microseconds: it only queues the execution",
                    "the model takes as long either way; only where the host waits changes",
                ),
                "the cell under the 'Predict, then run' about execute_async in section 2",
                {
                    "text": "程序先调用 aclmdlExecuteAsync，再调用 aclrtSynchronizeStream。模型的 0.67 ms 去了哪里？",
                    "choices": (
                        "在同步里：AI Core 工作时 Host 在那里等待",
                        "在 aclmdlExecuteAsync 里：它和 aclmdlExecute 一样等模型跑完",
                        "没有了：异步执行让模型本身变快了",
                    ),
                    "why": (
                        "对：调用几微秒就返回，同步等了模型的时间",
                        "异步调用几微秒就返回了：它只是把执行放进队列",
                        "模型耗时不变，变的只是 Host 在哪里等",
                    ),
                    "shown_by": "第 2 节中关于 execute_async 的“先预测，再运行”下的单元格",
                },
            ),
            Question(
                "While one ResNet-50 execution runs alone on the 310P3, what does aclrtGetDeviceUtilizationRate "
                "report for the cube units in the sandbox?",
                (
                    "0: the figures are only updated by a synchronize",
                    "100: every AI Core has the model's work at that moment",
                    "-1: utilisation cannot be read while an asynchronous execution runs",
                ),
                "b",
                (
                    "the figures are read at the moment of the call: they changed while the host polled",
                    "right: the execution took all the AI Cores, and the figure fell to 0 when it ended",
                    "-1 is the memory figure (not supported in this version), or a vector figure without vector units",
                ),
                "the cell under '3 · How busy is the device? Utilisation'",
                {
                    "text": "一次 ResNet-50 执行单独在 310P3 上运行时，沙箱中 aclrtGetDeviceUtilizationRate 报告的 Cube 利用率是多少？",
                    "choices": (
                        "0：只有同步才会更新这些数值",
                        "100：那一刻每个 AI Core 上都有模型的任务",
                        "-1：异步执行运行期间不能读取利用率",
                    ),
                    "why": (
                        "数值读的是调用那一刻的状态：Host 轮询期间它在变化",
                        "对：执行占满了所有 AI Core，结束后数值回到 0",
                        "-1 是内存利用率（当前版本不支持），或者没有 Vector 时的 Vector 利用率",
                    ),
                    "shown_by": "“3 · Device 有多忙？利用率”下的单元格",
                },
            ),
            Question(
                "With a copy stream and a compute stream, each image's input copy runs under the previous image's "
                "execution. What did that save for ResNet-50 on the 310P3?",
                (
                    "about half the time: copies and executions now overlap fully",
                    "a few percent: the copies are short next to the model",
                    "nothing: the copies still wait for the executions before them",
                ),
                "b",
                (
                    "overlap hides only the shorter of the two, here the copies",
                    "right: a copy takes about 13 us against 665 us of the model; pipelining pays for large copies",
                    "events order each execution after its own copy only; the next copy runs meanwhile",
                ),
                "the cell under '4 · The next batch's copy under the model's execution'",
                {
                    "text": "用一条拷贝 Stream 和一条计算 Stream，让每张图片的输入拷贝与上一张的执行重叠。对 310P3 上的 ResNet-50，"
                    "这样省下了多少？",
                    "choices": (
                        "约一半时间：拷贝和执行现在完全重叠",
                        "几个百分点：拷贝比模型短得多",
                        "什么都没省：拷贝仍要等前面的执行",
                    ),
                    "why": (
                        "重叠只能藏住两者中较短的那个，这里是拷贝",
                        "对：一次拷贝约 13 us，而模型要 665 us；拷贝相对模型越大，流水线越值得",
                        "Event 只让每次执行排在它自己的拷贝之后；下一次拷贝同时进行",
                    ),
                    "shown_by": "“4 · 下一批的拷贝与模型执行重叠”下的单元格",
                },
            ),
        ),
    )
)
