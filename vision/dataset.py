"""Read YOLO-format labelled folders (``images/`` + ``labels/``) into our classes.

Labels are ``class cx cy w h`` normalised, or ``class x1 y1 x2 y2 ...`` polygons, which we
reduce to their bounding box, as YOLO readers do.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


@dataclass(frozen=True)
class Box:
    """A labelled tile in pixels of its image: corners and our class index."""

    x1: float
    y1: float
    x2: float
    y2: float
    cls: int


@dataclass(frozen=True)
class Sample:
    image: Path
    label: Path


def iter_samples(set_dir: Path) -> Iterator[Sample]:
    """Image/label pairs of a folder laid out as ``images/`` and ``labels/``, sorted by name."""
    images = set_dir / "images"
    if not images.is_dir():
        raise FileNotFoundError(f"{set_dir}: expected an images/ folder (and labels/) inside")
    for path in sorted(images.iterdir()):
        if path.suffix.lower() in IMAGE_SUFFIXES:
            yield Sample(path, set_dir / "labels" / (path.stem + ".txt"))


def read_labels(
    path: Path, width: int, height: int, class_map: Sequence[int] | None = None
) -> list[Box]:
    """Boxes of one label file in pixels; ids go through ``class_map`` (id → our class)."""
    boxes: list[Box] = []
    if not path.exists():
        return boxes
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        raw = int(float(parts[0]))
        cls = class_map[raw] if class_map is not None else raw
        values = [float(v) for v in parts[1:]]
        if len(values) == 4:
            cx, cy, w, h = values
            x1, y1, x2, y2 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
        else:
            xs, ys = values[0::2], values[1::2]
            x1, y1, x2, y2 = min(xs), min(ys), max(xs), max(ys)
        boxes.append(Box(x1 * width, y1 * height, x2 * width, y2 * height, cls))
    return boxes
