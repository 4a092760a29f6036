"""Fine-tune the tile detector on a venue's tiles, for its profile (train-time extra).

A detector that never saw a venue's tiles misses some of them (a real venue: one in five), and
no profile of the classifier brings a missed tile back. Enrolment therefore also fine-tunes the
shipped 1-class detector: it starts from the shipped file itself (its int8 weights dequantized
into a YOLO11n built from YAML, vision/train.py's ``seeded_model``), trains a few minutes at a
small side on scenes made from the enrolment photos (vision/enrol_scenes.py) and on the photos
themselves, and is exported as the shipped one is (ONNX, int8 convolutions stored U8U8,
calibrated on those scenes). Whether the profile keeps it is enrolment's choice, on photos it
did not train on and on the known styles (vision/enrol_detector.py).

Needs torch and ultralytics (``pip install -e '.[train]'`` after torch, models/MODELS.md); the
run time reads the exported file with onnxruntime alone. :func:`available` says whether they
are installed, so that enrolment can say what it skipped.
"""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from vision.dataset import Box
from vision.enrol_scenes import scenes, write_yolo

SIDE = 416  # the shipped detector's trained side: the same cost per photo and frame
BATCH = 8
SCENES = 240  # training images made from the photos (about 22 s an epoch on 2 cores)
LR = 0.0005
VAL_IMAGES = 2  # ultralytics' own validation: a token (see adapt_detector)
SEED_IMAGES = 64  # images the batch norms' statistics are taken on when seeding


@dataclass
class Adapted:
    """A fine-tuned detector file and how it was made."""

    path: Path
    epochs: int
    images: int
    seconds: float


def available() -> str | None:
    """None when torch and ultralytics can be imported; else what to install."""
    missing = [m for m in ("torch", "ultralytics", "onnx") if importlib.util.find_spec(m) is None]
    if not missing:
        return None
    return (
        f"{', '.join(missing)} not installed, so the detector was not fine-tuned: `./run "
        "train-setup` installs them (~6 GB: pip install torch==2.14.1 torchvision==0.29.1, "
        "then pip install -e '.[train]'; models/MODELS.md)"
    )


def adapt_detector(
    photos: Sequence[tuple[Image.Image, Sequence[Box]]],
    shipped: Path,
    work: Path,
    minutes: float,
    seed: int = 0,
    say: Callable[[str], None] = print,
) -> Adapted:
    """Fine-tune ``shipped`` (the detector's ONNX file) on ``photos`` for about ``minutes``;
    the exported int8 file is ``work/detector.onnx``."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "0")
    # ultralytics keeps its settings file here for the process's life: not in ``work``
    os.environ.setdefault("YOLO_CONFIG_DIR", str(Path(tempfile.gettempdir()) / "mjref-yolo"))
    import torch  # type: ignore[import-not-found,unused-ignore]

    from vision.train import (
        on_every_core,
        onnx_conv_weights,
        quantize_detector,
        seeded_model,
        yolo_class,
    )

    start = time.perf_counter()
    torch.manual_seed(seed)
    data = work / "det"
    shutil.rmtree(data, ignore_errors=True)
    say(f"making {SCENES} training images from {len(photos)} photo(s)")
    made = scenes(photos, SCENES, seed, SIDE)
    paths = write_yolo(made, data / "train")
    # ultralytics validates the last epoch and best.pt even with val=False (on 240 images, half an
    # epoch's time each): a token set, since enrolment checks the detector on held-back photos
    write_yolo(made[:VAL_IMAGES], data / "val")
    yaml = work / "det.yaml"
    yaml.write_text(f"path: {data}\ntrain: train/images\nval: val/images\nnames:\n  0: tile\n")
    picks = random.Random(seed).sample(paths, min(SEED_IMAGES, len(paths)))
    model = seeded_model(onnx_conv_weights(shipped), picks, SIDE, str(shipped))
    torch.save({"model": model, "epoch": -1, "train_args": {}}, work / "seed.pt")
    left = minutes * 60 - (time.perf_counter() - start) - 40  # export and quantization
    say(f"fine-tuning the detector for {max(left, 30) / 60:.1f} min")
    yolo = yolo_class()(str(work / "seed.pt"))
    threads = on_every_core(yolo)
    try:
        exported = _train_and_export(yolo, work, yaml, left, seed, torch.cuda.is_available())
    finally:
        torch.set_num_threads(threads)  # for what runs after (the classifier's fine-tuning)
    epochs = int(yolo.trainer.epoch) + 1
    out = work / "detector.onnx"
    Path(exported).replace(out)
    quantize_detector(out, data / "train" / "images")
    seconds = time.perf_counter() - start
    say(f"detector fine-tuned: {epochs} epoch(s) of {len(paths)} images in {seconds / 60:.1f} min")
    return Adapted(out, epochs, len(paths), seconds)


def _train_and_export(
    yolo: Any, work: Path, yaml: Path, seconds: float, seed: int, cuda: bool
) -> str:
    """Train ``yolo`` about ``seconds`` on ``yaml``'s images; the ONNX file of its last weights."""
    from vision.train import yolo_class

    with redirect_stdout(sys.stderr):
        yolo.train(
            data=str(yaml),
            epochs=100,
            time=max(seconds, 30) / 3600,
            imgsz=SIDE,
            batch=BATCH,
            device=0 if cuda else "cpu",  # an accelerator where there is one
            workers=0,
            single_cls=True,
            pretrained=str(work / "seed.pt"),
            amp=False,
            plots=False,
            val=False,
            project=str(work / "runs"),
            name="det",
            exist_ok=True,
            degrees=10.0,
            scale=0.5,
            fliplr=0.5,
            flipud=0.5,
            mosaic=0.0,  # a 2×2 mosaic halves tiles that are small already
            optimizer="AdamW",
            lr0=LR,
            warmup_epochs=0,
            warmup_bias_lr=0.0,
            cos_lr=True,
            patience=0,
            seed=seed,
            deterministic=False,
            verbose=False,
        )
        last = work / "runs" / "det" / "weights" / "last.pt"
        return str(
            yolo_class()(str(last)).export(
                format="onnx", dynamic=True, simplify=True, opset=17, imgsz=SIDE
            )
        )
