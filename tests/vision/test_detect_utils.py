from __future__ import annotations

import numpy as np
from PIL import Image

from vision.detect import letterbox, nms, square_crop, windows


def test_nms_keeps_the_best_of_overlapping_boxes() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 0, 30, 10]], dtype=np.float32)
    keep = nms(boxes, np.array([0.5, 0.9, 0.8], dtype=np.float32), 0.5)
    assert keep.tolist() == [1, 2]


def test_windows_cover_the_image_with_overlap() -> None:
    ws = windows(1000, 500, 320, 0.25)
    assert ws[0] == (0, 0, 320, 320) and ws[-1] == (680, 180, 1000, 500)
    covered = np.zeros((500, 1000), dtype=bool)
    for x1, y1, x2, y2 in ws:
        covered[y1:y2, x1:x2] = True
    assert covered.all()
    assert windows(200, 100, 320, 0.25) == [(0, 0, 320, 320)]


def test_letterbox_keeps_aspect_and_reports_the_transform() -> None:
    t, scale, px, py = letterbox(Image.new("RGB", (640, 320), (255, 0, 0)), 320)
    assert t.shape == (3, 320, 320) and scale == 0.5 and (px, py) == (0, 80)
    assert t[0, 160, 160] == 1.0 and t[0, 10, 160] < 0.5


def test_tight_letterbox_pads_only_to_the_stride() -> None:
    t, scale, px, py = letterbox(Image.new("RGB", (640, 80), (255, 0, 0)), 416, tight=True)
    assert t.shape == (3, 64, 416) and scale == 0.65 and (px, py) == (0, 6)
    assert t[0, 6:58].min() == 1.0 and t[0, :6].max() < 0.5


def test_square_crop_is_fixed_size_even_past_the_edge() -> None:
    crop = square_crop(Image.new("RGB", (50, 50)), (-5, -5, 20, 40), 64, 0.08)
    assert crop.size == (64, 64)
