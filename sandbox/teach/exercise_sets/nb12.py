"""Notebook 12 · inference: classify a batch with a loaded model (12.1); batches of two, the next
pair's copy under the current execution (12.2).

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
