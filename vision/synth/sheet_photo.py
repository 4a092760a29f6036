"""Render a photo of the tile sheet (vision/sheet.py) with a tile set laid on it: the test and
bench stand-in for a referee's photo from the rig's camera. Exact labels come back too."""

from __future__ import annotations

import random

import numpy as np
from PIL import Image, ImageFilter

from vision.dataset import Box
from vision.sheet import cells, page_image
from vision.synth.faces import procedural_tile
from vision.synth.scene import felt, homography_from_points


def render_sheet_photo(
    style: str, seed: int, dpi: int = 60, tilt: float = 0.05
) -> tuple[Image.Image, list[Box]]:
    """The sheet at ``dpi`` with one ``style`` tile in each outline (a little off and turned),
    under a mild camera tilt, uneven light and noise; the boxes of the tiles placed."""
    rng = random.Random(seed)
    page = page_image(dpi).convert("RGBA")
    k = dpi / 25.4
    placed = []
    for cls, (x1, y1, x2, _) in cells():
        tile = procedural_tile(rng, cls, round(35 * k), style)
        tile = tile.rotate(rng.uniform(-6, 6), resample=Image.Resampling.BICUBIC, expand=True)
        cx = (x1 + x2) / 2 * k + rng.uniform(-1.5, 1.5) * k
        cy = (y1 + 2 + 18.5) * k + rng.uniform(-1.5, 1.5) * k
        left, top = round(cx - tile.width / 2), round(cy - tile.height / 2)
        page.alpha_composite(tile, (left, top))
        ys, xs = np.nonzero(np.asarray(tile.getchannel("A")) > 128)
        placed.append(
            (left + xs.min(), top + ys.min(), left + xs.max() + 1, top + ys.max() + 1, cls)
        )
    margin = round(0.08 * page.width)
    img = felt(rng, page.width + 2 * margin, page.height + 2 * margin)
    img.paste(page.convert("RGB"), (margin, margin))
    placed = [(a + margin, b + margin, c + margin, d + margin, cls) for a, b, c, d, cls in placed]
    w, h = img.size
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    dst = src + np.array(
        [[rng.uniform(-tilt, tilt) * w, rng.uniform(-tilt, tilt) * h] for _ in src]
    )
    hom = homography_from_points(src, dst)
    inv = np.linalg.inv(hom)
    img = img.transform((w, h), Image.Transform.PERSPECTIVE, tuple((inv / inv[2, 2]).flatten()[:8]))
    xx = np.mgrid[0:h, 0:w][1].astype(np.float32)
    gain = rng.uniform(0.75, 1.0) + rng.uniform(-0.2, 0.2) * (xx / w)
    arr = np.asarray(img.filter(ImageFilter.GaussianBlur(0.6)), np.float32) * gain[..., None]
    arr += np.random.default_rng(seed).normal(0, 3, arr.shape)
    boxes = []
    for x1, y1, x2, y2, cls in placed:
        pts = np.array([[x1, y1, 1], [x2, y1, 1], [x2, y2, 1], [x1, y2, 1]], float) @ hom.T
        pts = pts[:, :2] / pts[:, 2:]
        (bx1, by1), (bx2, by2) = pts.min(0), pts.max(0)
        boxes.append(Box(float(bx1), float(by1), float(bx2), float(by2), int(cls)))
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)), boxes
