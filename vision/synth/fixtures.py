"""Make the small synthetic test images of tests/vision/fixtures (procedural faces only, so no
photo data lands in the repository): ``python -m vision.synth.fixtures tests/vision/fixtures``."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from PIL import Image, ImageDraw

from referee.tiles import parse_tiles
from vision.classes import BACK, class_label
from vision.synth.bank import CropBank
from vision.synth.scene import felt, place_row

# name, image size, groups (notation, "X" = a back; origin = first tile's centre), height, angle
FIXTURES: tuple[tuple[str, tuple[int, int], list[tuple[str, tuple[int, int]]], int, float], ...] = (
    ("hand_row", (700, 120), [("234m234m666p88s", (30, 60)), ("345s", (560, 60))], 42, 0.0),
    ("turned_row", (120, 520), [("19pESWNPFC", (60, 490))], 40, 90.0),
    ("mixed", (420, 240), [("5m5p5s", (380, 60)), ("1f2f7fX", (380, 170))], 48, 180.0),
)


def make(out: Path, seed: int = 7) -> None:
    """Render every fixture: ``NAME.jpg`` and ``NAME.json`` (``[[x1, y1, x2, y2, label]...]``)."""
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    bank = CropBank(real_share=0.0)
    for name, (w, h), groups, size, angle in FIXTURES:
        canvas = felt(random.Random(seed), w, h).convert("RGBA")
        shadow = ImageDraw.Draw(Image.new("L", (w, h)))
        labels: list[list[object]] = []
        for row, origin in groups:
            classes = [t for _, t in _tiles(row)]
            boxes = place_row(rng, canvas, shadow, bank, origin, angle, len(classes), size, classes)
            labels += [[*(round(v, 1) for v in b[:4]), class_label(b[4])] for b in boxes]
        canvas.convert("RGB").save(out / f"{name}.jpg", quality=90)
        (out / f"{name}.json").write_text(json.dumps(labels) + "\n")


def _tiles(row: str) -> list[tuple[str, int]]:
    if row.endswith("X"):
        return [*_tiles(row[:-1]), ("X", BACK)]
    return [("", t) for t in parse_tiles(row)]


if __name__ == "__main__":
    make(Path(sys.argv[1] if len(sys.argv) > 1 else "tests/vision/fixtures"))
