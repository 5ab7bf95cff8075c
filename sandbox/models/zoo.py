"""The package's stand-in models: ``zoo("tiny_mlp")`` and ``zoo("resnet50")``.

Options: ``batch=n`` compiles a static batch other than 1, ``dynamic_batch=(1, 2, 4, 8)`` the
gears of a dynamic-batch model (ATC's ``--dynamic_batch_size``), as a model file fixes them.

**resnet50** has the interface of the model the public pyACL ResNet-50 samples load
(Ascend/samples python/level2_simple_inference/1_classification/resnet50_imagenet_classification:
ATC with ``--input_fp16_nodes=data --output_type=FP32 --out_nodes=prob:0``): input ``data``,
float16, NCHW, (batch, 3, 224, 224); output ``prob``, float32, (batch, 1000), class
probabilities.  Its weights take 51,114,064 bytes: torchvision's ResNet-50 has 25,557,032
parameters (torchvision.models.ResNet50_Weights, "num_params"), kept as float16.  Its time per
execution follows the throughput ModelZoo published for ResNet-50 on an Ascend310P3 in float16
(Ascend/ModelZoo-PyTorch ACL_PyTorch/built-in/cv/Resnet50_mlperf/README.md at commit 3801088c):
batch 1: 1503.92 images/s ... batch 64: 3940.45, device compute time only; the time of batch b
is b / throughput, interpolated between the published batches and at batch 64's rate beyond.
The sandbox uses that curve on every profile (no public figure exists for the other chips).
What it computes is the stand-in's own, not ResNet-50's: a fixed projection of the image's
7x7 average-pooled colours (standardised per image), and a softmax; the classes it picks mean nothing.

**tiny_mlp** is small enough to read in full: x (batch, 16) float32 -> relu(x W1 + b1) W2 + b2
-> y (batch, 4), with fixed weights; 12 us per execution plus 0.25 us per sample (an assumption:
a model this small is all fixed cost).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .model import Model, ModelError, Tensor

ACL_FLOAT, ACL_FLOAT16 = 0, 1  # aclDataType (include/external/acl/acl_base_rt.h:140-169)
NCHW, ND = 0, 2  # aclFormat (acl_base_rt.h:171-192)

# ResNet-50, Ascend310P3, float16: batch -> images per second (the ModelZoo README named above)
RESNET50_310P3_FPS = {1: 1503.92, 2: 2272.42, 4: 3163.26, 8: 3714.24, 16: 3793.27, 32: 3852.32, 64: 3940.45}
RESNET50_PARAMETERS = 25_557_032


def resnet50_ns(batch: int) -> int:
    """One execution of ``batch`` images, in ns, on the published curve."""
    points = sorted(RESNET50_310P3_FPS.items())
    seconds = {b: b / fps for b, fps in points}
    if batch in seconds:
        return round(seconds[batch] * 1e9)
    last = points[-1][0]
    if batch > last:
        return round(batch / RESNET50_310P3_FPS[last] * 1e9)
    lower = max(b for b, _ in points if b < batch)
    upper = min(b for b, _ in points if b > batch)
    share = (batch - lower) / (upper - lower)
    return round((seconds[lower] + share * (seconds[upper] - seconds[lower])) * 1e9)


def _resnet50_stand_in() -> Callable:
    rng = np.random.default_rng(50)
    projection = (rng.standard_normal((3 * 7 * 7, 1000)) / 6).astype(np.float32)  # logits of spread ~2

    def classify(data: np.ndarray) -> np.ndarray:
        pooled = data.astype(np.float32).reshape(data.shape[0], 3, 7, 32, 7, 32).mean(axis=(3, 5))
        features = pooled.reshape(data.shape[0], -1)
        features = (features - features.mean(axis=1, keepdims=True)) / (features.std(axis=1, keepdims=True) + 1e-6)
        logits = features @ projection  # whatever the input's scale (0..1, 0..255, normalised)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)

    return classify


def _tiny_mlp_stand_in() -> Callable:
    rng = np.random.default_rng(16)
    w1 = (rng.standard_normal((16, 32)) / 4).astype(np.float32)
    b1 = np.zeros(32, np.float32)
    w2 = (rng.standard_normal((32, 4)) / 6).astype(np.float32)
    b2 = np.array([0.1, -0.1, 0.2, -0.2], np.float32)

    def mlp(x: np.ndarray) -> np.ndarray:
        return np.maximum(x @ w1 + b1, 0) @ w2 + b2

    return mlp


def _batch_dims(batch: int, dynamic_batch: tuple) -> int:
    if dynamic_batch:
        return -1
    if isinstance(batch, bool) or not isinstance(batch, int) or batch <= 0:
        raise ModelError(f"batch must be an int > 0, got {batch!r}")
    return batch


def _resnet50(batch: int = 1, dynamic_batch: tuple = ()) -> Model:
    n = _batch_dims(batch, dynamic_batch)
    top = max(dynamic_batch) if dynamic_batch else batch
    return Model(
        "resnet50",
        _resnet50_stand_in(),
        inputs=[Tensor("data", (n, 3, 224, 224), ACL_FLOAT16, NCHW)],
        outputs=[Tensor("prob", (n, 1000), ACL_FLOAT, ND)],
        ns=resnet50_ns,
        weight_bytes=RESNET50_PARAMETERS * 2,
        # work memory: 4 feature maps of conv1's size (64 x 112 x 112 float16) per image of the
        # largest batch: an assumption (GE reuses activation memory; no public figure)
        work_bytes=4 * 64 * 112 * 112 * 2 * top,
        dynamic_batch=dynamic_batch,
        about="ResNet-50's interface (the pyACL sample's), weights' size and 310P3 batch curve; a stand-in computation",
        zoo="resnet50",
    )


def _tiny_mlp(batch: int = 1, dynamic_batch: tuple = ()) -> Model:
    n = _batch_dims(batch, dynamic_batch)
    return Model(
        "tiny_mlp",
        _tiny_mlp_stand_in(),
        inputs=[Tensor("x", (n, 16), ACL_FLOAT, ND)],
        outputs=[Tensor("y", (n, 4), ACL_FLOAT, ND)],
        ns=lambda b: 12_000 + 250 * b,
        weight_bytes=(16 * 32 + 32 + 32 * 4 + 4) * 4,
        dynamic_batch=dynamic_batch,
        about="a two-layer perceptron with fixed weights; its time is an assumption",
        zoo="tiny_mlp",
    )


ZOO = {"resnet50": _resnet50, "tiny_mlp": _tiny_mlp}


def zoo(name: str, *, batch: int = 1, dynamic_batch=()) -> Model:
    """A model of the package's zoo by name (``"resnet50"``, ``"tiny_mlp"``)."""
    make = ZOO.get(name)
    if make is None:
        raise ModelError(f"no zoo model {name!r}: the zoo has {', '.join(sorted(ZOO))}")
    return make(batch, tuple(dynamic_batch))
