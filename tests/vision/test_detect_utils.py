from __future__ import annotations

import numpy as np
import pytest
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


@pytest.mark.parametrize("mode", ["RGB", "L", "RGBA"])
def test_square_crop_repeats_the_edge_rather_than_black(mode: str) -> None:
    """A tile touching the image's edge: its margin shows what the edge shows, never black."""
    img = Image.new("RGB", (40, 100), (200, 180, 150)).convert(mode)
    crop = square_crop(img, (5.0, 0.0, 35.0, 100.0), 64, 0.08)
    assert crop.mode == mode and crop.size == (64, 64)
    assert np.asarray(crop).min() >= 150


def test_square_crop_of_a_tall_box_is_not_aliased() -> None:
    """Thin stripes 10× too tall (a stretched photo) average out; point sampling would not."""
    stripes = np.zeros((640, 64, 3), dtype=np.uint8)
    stripes[::3] = 255  # one bright row in three, across the stretched axis: 85 on average
    crop = np.asarray(square_crop(Image.fromarray(stripes), (0.0, 0.0, 64.0, 640.0), 64, 0.0))
    rows = crop[:, :, 0].mean(1)
    assert rows.min() >= 75 and rows.max() <= 95


def test_square_crop_places_the_box_with_sub_pixel_accuracy() -> None:
    img = np.zeros((100, 100, 3), dtype=np.uint8)
    img[30:50, 20:60] = 255
    crop = np.asarray(square_crop(Image.fromarray(img), (20.0, 30.0, 60.0, 50.0), 40, 0.0))
    assert crop[2:-2, 2:-2].min() == 255 and crop.mean() > 250
