"""Training images for a venue's detector, made from its few enrolment photos.

A handful of photos shows the venue's tiles, table and light, but too few tiles to fine-tune a
detector on. So enrolment (vision/adapt.py) also trains on scenes made from them: the enrolled
tiles cut out and laid in rows (turned, scaled, relit, touching and slightly overlapping, as in
a river or a meld) on the venue's own table with its tiles painted out, and on other felts; and
on windows of the photos themselves. Their tiles show at the sizes the run time will show them:
as the detector's whole view of a photo does, and only where it also cuts windows (large photos
of small tiles), at the sizes its windows do. One image in six lays the rendered faces the
shipped detector already knows (vision/synth/faces.py) at the sizes and light it learnt them,
so that it keeps finding them. The classifier's fine-tuning (vision/enrol_classifier.py) takes
the tiles of such pasted scenes too, cut as the run time cuts them. Only numpy, PIL and OpenCV:
this runs in the product's venv too (tests).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from vision.dataset import Box
from vision.detect import read_whole, tile_crop
from vision.synth.bank import CropBank
from vision.synth.scene import Look, Scene, render_scene

SIDE = 640  # each training image; the detector trains at a smaller side (vision/adapt.py)
# the tile sizes (px of a SIDE image) scenes are made at: the shipped detector learnt 15–80 px.
# The tiles of a strip stretched to a square (which the run time reads squashed) are hundreds of
# px long; at that size a row no longer fits and scenes are drawn again and again.
SCENE_TILES = (10.0, 100.0)
PAD = 6  # px around a tile painted out of the table


@dataclass
class Labelled:
    """One training image and its tiles (pixel boxes; the class is not used: 1-class)."""

    image: Image.Image
    boxes: list[tuple[float, float, float, float]]


def tile_heights(photos: Sequence[tuple[Image.Image, Sequence[Box]]]) -> np.ndarray:
    """The long side of every labelled tile, px."""
    return np.array(
        [max(b.x2 - b.x1, b.y2 - b.y1) for _, boxes in photos for b in boxes], np.float64
    )


def cut_tiles(photos: Sequence[tuple[Image.Image, Sequence[Box]]]) -> dict[int, list[Image.Image]]:
    """The labelled tiles, upright as photographed, by class (a crop bank's ``crops``)."""
    out: dict[int, list[Image.Image]] = {}
    for img, boxes in photos:
        for b in boxes:
            if b.x2 - b.x1 >= 6 and b.y2 - b.y1 >= 6:
                crop = img.crop((round(b.x1), round(b.y1), round(b.x2), round(b.y2)))
                out.setdefault(b.cls, []).append(crop.convert("RGB"))
    return out


def empty_table(img: Image.Image, boxes: Sequence[Box]) -> Image.Image:
    """The photo with its labelled tiles painted out (OpenCV's inpainting): the venue's table."""
    arr = np.asarray(img.convert("RGB"))
    mask = np.zeros(arr.shape[:2], np.uint8)
    for b in boxes:
        x1, y1 = max(int(b.x1) - PAD, 0), max(int(b.y1) - PAD, 0)
        mask[y1 : int(b.y2) + PAD, x1 : int(b.x2) + PAD] = 255
    if not mask.any():
        return img.convert("RGB")
    scale = min(1.0, 480 / max(arr.shape[:2]))  # inpaint small (fast), then scale back
    small = cv2.resize(arr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    small_mask = cv2.resize(mask, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
    filled = cv2.inpaint(small, small_mask, 5, cv2.INPAINT_TELEA)
    back = cv2.resize(filled, (arr.shape[1], arr.shape[0]), interpolation=cv2.INTER_LINEAR)
    out = np.where(mask[..., None] > 0, back, arr)
    return Image.fromarray(out)


def _table_view(rng: random.Random, table: Image.Image) -> Image.Image:
    """A random SIDE × SIDE stretch of the venue's table (scaled up when smaller)."""
    w, h = table.size
    s = max(SIDE / w, SIDE / h, rng.uniform(0.5, 1.0))
    view = table.resize((max(SIDE, round(w * s)), max(SIDE, round(h * s))), Image.Resampling.BOX)
    x, y = rng.randint(0, view.width - SIDE), rng.randint(0, view.height - SIDE)
    return view.crop((x, y, x + SIDE, y + SIDE))


def window(
    rng: random.Random, img: Image.Image, boxes: Sequence[Box], tile_px: float
) -> Labelled | None:
    """A SIDE-px window of a photo scaled so its tiles are about ``tile_px`` long, centred on a
    random tile; a tile cut by the window's edge is labelled when most of it is inside."""
    heights = [max(b.x2 - b.x1, b.y2 - b.y1) for b in boxes]
    if not boxes:
        return None
    s = tile_px / float(np.median(heights))
    w, h = max(1, round(img.width * s)), max(1, round(img.height * s))
    scaled = img.resize((w, h), Image.Resampling.BOX if s < 1 else Image.Resampling.BICUBIC)
    b = rng.choice(list(boxes))
    cx, cy = (b.x1 + b.x2) / 2 * s, (b.y1 + b.y2) / 2 * s
    x0 = int(min(max(cx - SIDE / 2 + rng.uniform(-SIDE / 4, SIDE / 4), 0), max(w - SIDE, 0)))
    y0 = int(min(max(cy - SIDE / 2 + rng.uniform(-SIDE / 4, SIDE / 4), 0), max(h - SIDE, 0)))
    canvas = Image.new("RGB", (SIDE, SIDE), (114, 114, 114))
    canvas.paste(scaled.crop((x0, y0, min(x0 + SIDE, w), min(y0 + SIDE, h))), (0, 0))
    out = []
    for t in boxes:
        x1, y1, x2, y2 = t.x1 * s - x0, t.y1 * s - y0, t.x2 * s - x0, t.y2 * s - y0
        cx1, cy1 = max(x1, 0), max(y1, 0)
        cx2, cy2 = min(x2, min(SIDE, w - x0)), min(y2, min(SIDE, h - y0))
        if cx2 <= cx1 or cy2 <= cy1:
            continue
        if (cx2 - cx1) * (cy2 - cy1) >= 0.6 * (x2 - x1) * (y2 - y1):
            out.append((cx1, cy1, cx2, cy2))
    return Labelled(canvas, out) if out else None


def _pasted(
    rng: random.Random, bank: CropBank, tables: Sequence[Image.Image], size: float
) -> Scene:
    """The venue's tiles at about ``size`` px laid in rows (touching, slightly overlapping, in
    another light), on a stretch of its own table seven times in ten, else on another felt."""
    side = max(12, round(size))
    look = Look(
        sizes=(max(10, round(side * 0.8)), round(side * 1.25)),
        gap=(-0.08, rng.choice([0.0, 0.15])),
        gain=(0.55, 1.25),
        tint=(rng.uniform(0.85, 1.15), 1.0, rng.uniform(0.8, 1.15)),
        vignette=rng.choice([0.0, 0.4]),
    )
    table = _table_view(rng, rng.choice(tables)) if rng.random() < 0.7 else None
    return render_scene(rng, bank, SIDE, SIDE, look, background=table)


def _sources(
    photos: Sequence[tuple[Image.Image, Sequence[Box]]],
) -> tuple[CropBank, list[Image.Image]]:
    """The photos' tiles as a crop bank, and their empty tables."""
    bank = CropBank(crops=cut_tiles(photos), real_share=0.9, own_classes=True)
    return bank, [empty_table(img, boxes) for img, boxes in photos]


def view_heights(photos: Sequence[tuple[Image.Image, Sequence[Box]]]) -> np.ndarray:
    """The long side of every labelled tile as the run time's whole view shows it, in px of a
    SIDE-px training image (both are letterboxed into the detector the same way)."""
    return np.array(
        [
            max(b.x2 - b.x1, b.y2 - b.y1) * SIDE / max(img.size)
            for img, boxes in photos
            for b in boxes
        ],
        np.float64,
    )


def scene_sizes(photos: Sequence[tuple[Image.Image, Sequence[Box]]]) -> tuple[float, float]:
    """The tile sizes scenes are made at: the 10th–90th percentile of :func:`view_heights`,
    within SCENE_TILES."""
    low, high = np.clip(np.percentile(view_heights(photos), [10, 90]), *SCENE_TILES)
    return float(low), float(high)


def through_windows(photos: Sequence[tuple[Image.Image, Sequence[Box]]], side: int) -> bool:
    """Whether the run time also reads some of these photos (by their labelled tiles) through
    windows, as ``vision.detect.read_whole`` decides for a detector of input ``side``."""
    return any(
        boxes
        and not read_whole(
            max(img.size),
            side,
            float(np.median([math.sqrt((b.x2 - b.x1) * (b.y2 - b.y1)) for b in boxes])),
        )
        for img, boxes in photos
    )


def scenes(
    photos: Sequence[tuple[Image.Image, Sequence[Box]]], count: int, seed: int, side: int
) -> list[Labelled]:
    """``count`` training images for a detector of input ``side``: one third windows of the
    photos, one sixth the known faces as the shipped detector learnt them (its scenes' sizes and
    light), the rest pasted scenes; their tiles at the sizes the run time will show them."""
    rng = random.Random(seed)
    bank, tables = _sources(photos)
    low, high = scene_sizes(photos)
    windowed = through_windows(photos, side)
    known = CropBank(real_share=0.0)  # glyph and text faces, which the detector trained on
    out: list[Labelled] = []
    while len(out) < count:
        # tiles at the sizes the whole view shows them, and (where the run time cuts windows)
        # at the sizes its windows show them; not at sizes the detector will not see them
        size = rng.uniform(low, high)
        if windowed and rng.random() < 0.5:
            size = rng.uniform(18.0, 48.0)
        if len(out) % 6 == 1:  # the known faces as the shipped detector learnt them
            scene = render_scene(rng, known, SIDE, SIDE)
        elif len(out) % 3 == 2:
            shot = window(rng, *rng.choice(list(photos)), tile_px=size)
            if shot is not None:
                out.append(shot)
            continue
        else:
            scene = _pasted(rng, bank, tables, size)
        if scene.boxes:
            out.append(Labelled(scene.image, [b[:4] for b in scene.boxes]))
    return out


def named_crops(
    photos: Sequence[tuple[Image.Image, Sequence[Box]]], count: int, seed: int, side: int
) -> tuple[np.ndarray, np.ndarray]:
    """The tiles of ``count`` pasted scenes at the photos' own tile sizes, cut as the run time
    cuts them (uint8 ``[n, side, side, 3]``), and their classes: for the classifier's
    fine-tuning, the venue's tiles touched and covered by neighbours, in other light, beside
    the few crops the photos themselves give."""
    rng = random.Random(seed)
    bank, tables = _sources(photos)
    heights = tile_heights(photos)  # the photos' own sizes: crops are cut at native resolution
    low, high = float(np.percentile(heights, 10)), float(np.percentile(heights, 90))
    crops: list[np.ndarray] = []
    labels: list[int] = []
    for _ in range(count):
        scene = _pasted(rng, bank, tables, rng.uniform(low, high))
        for x1, y1, x2, y2, cls in scene.boxes:
            crops.append(np.asarray(tile_crop(scene.image, (x1, y1, x2, y2), side).convert("RGB")))
            labels.append(cls)
    if not crops:
        return np.zeros((0, side, side, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(crops), np.array(labels, np.int64)


def write_yolo(images: Sequence[Labelled], folder: Path, prefix: str = "s") -> list[Path]:
    """``folder/images/*.jpg`` and ``folder/labels/*.txt`` (class 0, normalised centre and
    size), as ultralytics reads them; the image paths."""
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    paths = []
    for n, item in enumerate(images):
        path = folder / "images" / f"{prefix}{n:05d}.jpg"
        item.image.save(path, quality=92)
        w, h = item.image.size
        rows = [
            f"0 {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} "
            f"{(y2 - y1) / h:.6f}"
            for x1, y1, x2, y2 in item.boxes
        ]
        (folder / "labels" / f"{prefix}{n:05d}.txt").write_text("\n".join(rows) + "\n")
        paths.append(path)
    return paths
