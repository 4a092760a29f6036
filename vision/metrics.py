"""Detection metrics over a labelled set: mAP50, precision, recall, end-to-end tile accuracy.

* mAP50: per-class average precision at IoU 0.5 (101 recall points, as COCO), averaged
  over the classes present in the ground truth.
* precision, recall: at the operating confidence, a hit is a box of the right class at IoU ≥ 0.5.
* tile accuracy: the share of tiles read right — right-class hits over (labelled tiles + extra
  detections), so both a misread, a missed and an invented tile count as errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.dataset import Box

Pred = tuple[float, float, float, float, int, float]  # x1 y1 x2 y2 cls conf


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in ``a`` [n, 4] with every box in ``b`` [m, 4]."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return np.asarray(inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9))


def match(gt: Sequence[Box], preds: Sequence[Pred], iou: float, same_class: bool) -> list[int]:
    """Greedy by confidence: for each prediction, the index of the GT it hits or -1."""
    g = np.array([[b.x1, b.y1, b.x2, b.y2] for b in gt], dtype=np.float64).reshape(-1, 4)
    p = np.array([q[:4] for q in preds], dtype=np.float64).reshape(-1, 4)
    ious = iou_matrix(p, g)
    taken = np.zeros(len(gt), dtype=bool)
    out = [-1] * len(preds)
    for i in sorted(range(len(preds)), key=lambda k: -preds[k][5]):
        cand = ious[i].copy() if len(gt) else np.zeros(0)
        if same_class:
            cand[[b.cls != preds[i][4] for b in gt]] = 0
        cand[taken] = 0
        if len(cand) and cand.max() >= iou:
            j = int(cand.argmax())
            taken[j] = True
            out[i] = j
    return out


@dataclass
class EvalResult:
    images: int = 0
    tiles: int = 0
    map50: float = 0.0
    precision: float = 0.0
    recall: float = 0.0
    tile_accuracy: float = 0.0
    detection_recall: float = 0.0  # any class, IoU ≥ 0.5, at the operating confidence
    detection_precision: float = 0.0  # kept boxes on a tile (any class) over kept boxes
    class_accuracy: float = 0.0  # of the kept boxes on a tile, those named right
    per_class_ap: dict[int, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "images": self.images,
            "tiles": self.tiles,
            "mAP50": round(self.map50, 4),
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "tile_accuracy": round(self.tile_accuracy, 4),
            "detection_recall": round(self.detection_recall, 4),
            "detection_precision": round(self.detection_precision, 4),
            "class_accuracy": round(self.class_accuracy, 4),
        }


def evaluate(
    samples: Sequence[tuple[Sequence[Box], Sequence[Pred]]], conf: float, iou: float = 0.5
) -> EvalResult:
    """Scores for ``(ground truth, predictions)`` per image; predictions may go below ``conf``."""
    records: dict[int, list[tuple[float, bool]]] = {}
    n_gt: dict[int, int] = {}
    tp = fp = right = extra = det_hits = total = 0
    for gt, preds in samples:
        total += len(gt)
        for b in gt:
            n_gt[b.cls] = n_gt.get(b.cls, 0) + 1
        hits = match(gt, preds, iou, same_class=True)
        for q, h in zip(preds, hits, strict=True):
            records.setdefault(q[4], []).append((q[5], h >= 0))
        kept = [q for q in preds if q[5] >= conf]
        hits = match(gt, kept, iou, same_class=True)
        tp += sum(h >= 0 for h in hits)
        fp += sum(h < 0 for h in hits)
        any_hits = match(gt, kept, iou, same_class=False)
        det_hits += sum(h >= 0 for h in any_hits)
        right += sum(h >= 0 and gt[h].cls == q[4] for q, h in zip(kept, any_hits, strict=True))
        extra += sum(h < 0 for h in any_hits)
    aps = {c: _average_precision(records.get(c, []), n) for c, n in n_gt.items()}
    return EvalResult(
        images=len(samples),
        tiles=total,
        map50=float(np.mean(list(aps.values()))) if aps else 0.0,
        precision=tp / max(tp + fp, 1),
        recall=tp / max(total, 1),
        tile_accuracy=right / max(total + extra, 1),
        detection_recall=det_hits / max(total, 1),
        detection_precision=det_hits / max(det_hits + extra, 1),
        class_accuracy=right / max(det_hits, 1),
        per_class_ap=aps,
    )


def _average_precision(records: list[tuple[float, bool]], n_gt: int) -> float:
    if not records or n_gt == 0:
        return 0.0
    records = sorted(records, key=lambda r: -r[0])
    hits = np.array([r[1] for r in records], dtype=np.float64)
    tps = np.cumsum(hits)
    recall = tps / n_gt
    precision = tps / np.arange(1, len(hits) + 1)
    envelope = np.flip(np.maximum.accumulate(np.flip(precision)))
    points = np.linspace(0, 1, 101)
    idx = np.searchsorted(recall, points, side="left")
    sampled = np.where(idx < len(envelope), envelope[np.minimum(idx, len(envelope) - 1)], 0.0)
    return float(sampled.mean())


Samples = Sequence[tuple[Sequence[Box], Sequence[Pred]]]


def named_right(samples: Samples, conf: float) -> tuple[set[tuple[int, int]], int]:
    """The (photo, tile) pairs kept and named right, and the kept boxes that are no tile."""
    right, extra = set(), 0
    for n, (gt, preds) in enumerate(samples):
        kept = [q for q in preds if q[5] >= conf]
        for q, h in zip(kept, match(gt, kept, 0.5, same_class=False), strict=True):
            if h >= 0 and gt[h].cls == q[4]:
                right.add((n, h))
            extra += h < 0
    return right, extra


def paired(before: Samples, b_conf: float, after: Samples, a_conf: float) -> dict[str, int]:
    """What a change of models did, tile by tile: right before and not after (lost), the
    reverse (gained), and the boxes kept that are no tile (extra) each way."""
    (rb, eb), (ra, ea) = named_right(before, b_conf), named_right(after, a_conf)
    return {"lost": len(rb - ra), "gained": len(ra - rb), "extra_before": eb, "extra_after": ea}
