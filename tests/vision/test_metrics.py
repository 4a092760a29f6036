from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.dataset import Box, read_labels
from vision.metrics import evaluate, iou_matrix

GT = [Box(0, 0, 10, 10, 1), Box(20, 0, 30, 10, 2), Box(40, 0, 50, 10, 2)]


def test_perfect_predictions_score_one() -> None:
    preds = [(b.x1, b.y1, b.x2, b.y2, b.cls, 0.9) for b in GT]
    r = evaluate([(GT, preds)], conf=0.5)
    assert (r.map50, r.precision, r.recall, r.tile_accuracy) == (1.0, 1.0, 1.0, 1.0)


def test_misread_missed_and_extra_tiles_count_against_accuracy() -> None:
    preds = [
        (0, 0, 10, 10, 1, 0.9),  # right
        (20, 0, 30, 10, 5, 0.9),  # misread
        (60, 0, 70, 10, 2, 0.9),  # invented; the third tile is missed
    ]
    r = evaluate([(GT, preds)], conf=0.5)
    assert r.recall == pytest.approx(1 / 3)
    assert r.precision == pytest.approx(1 / 3)
    assert r.tile_accuracy == pytest.approx(1 / 4)  # 1 right / (3 labelled + 1 extra)
    assert r.detection_recall == pytest.approx(2 / 3)


def test_low_confidence_predictions_count_for_map_not_for_accuracy() -> None:
    preds = [(b.x1, b.y1, b.x2, b.y2, b.cls, 0.1) for b in GT]
    r = evaluate([(GT, preds)], conf=0.5)
    assert r.map50 == 1.0
    assert r.recall == 0.0


def test_iou() -> None:
    m = iou_matrix(np.array([[0, 0, 10, 10]]), np.array([[5, 0, 15, 10]]))
    assert m[0, 0] == pytest.approx(50 / 150)


def test_polygon_labels_become_boxes(tmp_path: Path) -> None:
    label = tmp_path / "a.txt"
    label.write_text("3 0.1 0.5 0.5 0.5 0.5 0.25 0.1 0.75\n")
    (box,) = read_labels(label, 100, 200, class_map=[0, 0, 0, 7])
    assert (box.x1, box.y1, box.x2, box.y2, box.cls) == (10, 50, 50, 150, 7)
