"""Fine-tune the tile classifier on a venue camera's own crops (train-time extra).

A venue profile refitted on the shipped classifier's features (vision/enrol_camera.py) names a
dim, soft camera's faces no better than its features tell them apart: on the bench's cellar, 0.94
of a round held out, and a discard in fifty was read as its neighbour (1m/2m, 8m/9m, 6p/7p). The
whole network, fine-tuned on the enrolment crops, names 0.97 of that round. Enrolment therefore
fine-tunes it where torch is installed: the shipped file's int8 weights dequantized into the
float TileNet (vision/train.py's ``classifier_from_onnx``), the stem and first block kept (the
edges every style shares), a few epochs on the crops of every round at all four quarter turns,
with small shifts, turns and changes of light (the crops already are the camera's: no extra
blur), then exported as the shipped one is (int8, with the outputs a profile reads). Whether the
profile keeps it is enrolment's choice, on a round the network did not train on.

Needs torch and onnx (``./run train-setup``); the run time reads the file with onnxruntime.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import Any

import numpy as np

EPOCHS = 10
LR = 0.002
BATCH = 64
FROZEN = 4  # TileNet's first modules kept as shipped: the stem and the first block
WEIGHT_DECAY = 5e-4
SMOOTHING = 0.05


def available() -> str | None:
    """None when torch and onnx can be imported; else what to install."""
    missing = [m for m in ("torch", "onnx") if importlib.util.find_spec(m) is None]
    if not missing:
        return None
    return (
        f"{', '.join(missing)} not installed, so the classifier was not fine-tuned on the "
        "camera's crops: `./run train-setup` installs them (models/MODELS.md)"
    )


def tune_classifier(
    shipped: Path, x: np.ndarray, y: np.ndarray, out: Path, seed: int = 0
) -> tuple[Path, float]:
    """Fine-tune ``shipped`` (the classifier's ONNX file) on crops ``x`` (uint8 NHWC, the
    classifier's side) named ``y``; the int8 file is written to ``out``. Returns (out, seconds)."""
    import torch  # type: ignore[import-not-found,unused-ignore]

    from vision.train import classifier_from_onnx, export_classifier, tilenet

    start = time.perf_counter()
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    crop = int(x.shape[1])
    net = tilenet()
    net.load_state_dict(classifier_from_onnx(shipped, x[::4], crop))
    for name, param in net.named_parameters():
        param.requires_grad = int(name.split(".")[0]) >= FROZEN
    steps = EPOCHS * max(len(y) // BATCH, 1)
    opt = torch.optim.AdamW(
        [p for p in net.parameters() if p.requires_grad], lr=LR, weight_decay=WEIGHT_DECAY
    )
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=steps, pct_start=0.15)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=SMOOTHING)
    labels = torch.from_numpy(y.astype(np.int64))
    net.train()
    for _ in range(EPOCHS):
        order = rng.permutation(len(y))
        for b in range(max(len(y) // BATCH, 1)):
            idx = order[b * BATCH : (b + 1) * BATCH]
            loss = loss_fn(net(_augment(x[idx], rng)), labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    export_classifier(net, crop, out, x[rng.choice(len(x), min(512, len(x)), replace=False)])
    return out, time.perf_counter() - start


def _augment(x: np.ndarray, rng: np.random.Generator) -> Any:
    """Quarter turns, ±5° and ±7 % of scale, small shifts, light and tint, a little noise."""
    import torch  # type: ignore[import-not-found,unused-ignore]

    from vision.train import to_input, turned

    n = len(x)
    t = turned(to_input(x, x.shape[1]), rng, 5.0, 0.07, 0.06)
    gain = torch.from_numpy(rng.uniform(0.8, 1.2, (n, 1, 1, 1))).float()
    tint = torch.from_numpy(rng.uniform(0.93, 1.07, (n, 3, 1, 1))).float()
    bias = torch.from_numpy(rng.uniform(-0.08, 0.08, (n, 1, 1, 1))).float()
    t = t * gain * tint + bias + torch.randn_like(t) * 0.02
    return t.clamp(0, 1)
