"""Run the recognizer over a labelled folder and score it (vision.metrics)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from vision.dataset import Box, iter_samples, read_labels
from vision.detect import TileRecognizer
from vision.image_io import load_image
from vision.metrics import EvalResult, Pred, evaluate

MAP_FLOOR = 0.01  # predictions kept down to this confidence for the precision-recall curve


def evaluate_set(
    rec: TileRecognizer, set_dir: Path, class_map: Sequence[int], conf: float, limit: int = 0
) -> EvalResult:
    samples: list[tuple[Sequence[Box], Sequence[Pred]]] = []
    for n, sample in enumerate(iter_samples(set_dir)):
        if limit and n >= limit:
            break
        img = load_image(sample.image)
        gt = read_labels(sample.label, img.width, img.height, class_map)
        dets = rec.detect(img, min_conf=MAP_FLOOR)
        samples.append((gt, [(d.x1, d.y1, d.x2, d.y2, d.cls, d.conf) for d in dets]))
    return evaluate(samples, conf)
