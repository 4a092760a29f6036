"""Stretched strips for detector training: bands never cut a tile, labels follow the stretch."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from vision.classes import NAME_SETS
from vision.train import _tile_band, stretch_copies

# tiles along one axis: (start, length) as fractions inside the photo, touching or overlapping
rows = st.lists(st.tuples(st.floats(0.0, 0.95), st.floats(0.02, 0.3)), min_size=1, max_size=20).map(
    lambda spans: [[s + min(n, 1 - s) / 2, 0.5, min(n, 1 - s), 0.1] for s, n in spans]
)


@given(rows, st.floats(1 / 12, 1 / 3), st.integers(0, 1000))
def test_a_band_starts_at_a_tile_and_cuts_none(
    boxes: list[list[float]], span: float, seed: int
) -> None:
    band = _tile_band(boxes, 0, span, random.Random(seed))
    if band is None:
        return
    start, end = band
    assert 2 <= 1 / (end - start) <= 14
    for cx, _, w, _ in boxes:
        lo, hi = cx - w / 2, cx + w / 2
        assert not lo < start < hi and not lo < end < hi, (lo, hi, band)


def test_strips_keep_the_photo_size_and_stretch_the_labels(tmp_path: Path) -> None:
    images, labels = tmp_path / "det/train/images", tmp_path / "det/train/labels"
    images.mkdir(parents=True)
    labels.mkdir(parents=True)
    Image.new("RGB", (640, 480), (30, 120, 40)).save(images / "row.jpg")
    # eight tiles in a row, 40 px wide with 10 px gaps, 60 px tall, at y 200–260
    tiles = [(20 + 50 * i, 200, 60 + 50 * i, 260) for i in range(8)]
    (labels / "row.txt").write_text(
        "\n".join(
            f"0 {(x1 + x2) / 1280} {(y1 + y2) / 960} {(x2 - x1) / 640} {(y2 - y1) / 480}"
            for x1, y1, x2, y2 in tiles
        )
    )
    stretch_copies(tmp_path, 12, seed=3)
    made = sorted(images.glob("stretched_*.jpg"))
    assert len(made) == 12
    for path in made:
        assert Image.open(path).size == (640, 480)
        text = (labels / f"{path.stem}.txt").read_text()
        rows = [[float(v) for v in line.split()[1:]] for line in text.splitlines()]
        assert rows, path
        for cx, cy, w, h in rows:
            assert cx - w / 2 >= 0 and cx + w / 2 <= 1 + 1e-6 and 0 <= cy - h / 2 <= 1
            # a tile 40×60 px in a 640×480 photo is 1/16 × 1/8; stretched 2–14× on one axis
            stretch = max(w * 16, h * 8)
            assert 2 - 1e-3 <= stretch <= 14 + 1e-3, (w, h)


def test_strips_of_linked_photos_give_named_crops_of_the_right_tiles(tmp_path: Path) -> None:
    """A detector-set photo links to its source split, whose labels name the tiles: each crop
    of a strip shows the tile it is named for (here every tile has its own colour)."""
    source = tmp_path / "src/train"
    (source / "images").mkdir(parents=True)
    (source / "labels").mkdir(parents=True)
    images, labels = tmp_path / "det/train/images", tmp_path / "det/train/labels"
    images.mkdir(parents=True)
    labels.mkdir(parents=True)
    colours = [(30 * i, 255 - 30 * i, 100) for i in range(8)]
    photo = Image.new("RGB", (640, 480), (128, 128, 128))
    tiles = [(20 + 50 * i, 200, 60 + 50 * i, 260) for i in range(8)]
    for (x1, y1, x2, y2), colour in zip(tiles, colours, strict=True):
        photo.paste(colour, (x1, y1, x2, y2))
    photo.save(source / "images/row.png")
    (images / "row.png").symlink_to(source / "images/row.png")
    lines = [
        f"{{}} {(x1 + x2) / 1280} {(y1 + y2) / 960} {(x2 - x1) / 640} {(y2 - y1) / 480}"
        for x1, y1, x2, y2 in tiles
    ]
    (source / "labels/row.txt").write_text("\n".join(t.format(i) for i, t in enumerate(lines)))
    (labels / "row.txt").write_text("\n".join(t.format(0) for t in lines))
    stretch_copies(tmp_path, 6, seed=5)
    saved = np.load(tmp_path / "crops_stretched.npz")
    assert len(saved["y"]) >= 6 and saved["x"].shape[1:] == (64, 64, 3)
    cmd42 = NAME_SETS["cmd42"]
    for crop, cls in zip(saved["x"], saved["y"], strict=True):
        raw_id = cmd42.index(int(cls))
        centre = crop[24:40, 24:40].reshape(-1, 3).mean(0)
        assert np.abs(centre - colours[raw_id]).max() < 12, (raw_id, centre)
