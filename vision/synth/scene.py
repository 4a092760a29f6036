"""Compose tiles into overhead table scenes: rows (hands, rivers, melds) on felt, then light,
shadow, perspective, blur, noise. Labels are exact: the axis-aligned box of each placed tile."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from vision.synth.bank import CropBank

LabelBox = tuple[float, float, float, float, int]


@dataclass(frozen=True)
class Look:
    """How a scene is lit and laid out; the default is the look the models trained on."""

    sizes: tuple[int, int] = (15, 80)  # a scene's tile height, px (each row ±15 % of it)
    gap: tuple[float, float] = (0.0, 0.15)  # between a row's tiles, share of a tile (< 0: over)
    gain: tuple[float, float] = (0.65, 1.15)  # the light's overall gain
    tint: tuple[float, float, float] | None = None  # the light's colour (RGB gains)
    vignette: float = 0.0  # how much darker the corners are (0–1)


DEFAULT_LOOK = Look()
# Another tile size and light (bench/enrol.py's second rendered style): small tiles in tight,
# slightly overlapping rows under a dim, warm light that falls off to the corners.
DIM_LOOK = Look(
    sizes=(16, 30), gap=(-0.06, 0.03), gain=(0.45, 0.75), tint=(1.12, 0.95, 0.7), vignette=0.4
)


@dataclass
class Scene:
    image: Image.Image
    boxes: list[LabelBox]


def felt(rng: random.Random, w: int, h: int) -> Image.Image:
    """A felt, wood or tray colour with fine noise and a soft lighting gradient."""
    base = np.array(
        rng.choice(
            [
                (40, 110, 60),
                (30, 80, 120),
                (120, 40, 40),
                (60, 60, 70),
                (150, 120, 80),
                (200, 200, 195),
                (20, 30, 25),
            ]
        ),
        dtype=np.float32,
    ) + np.array([rng.uniform(-25, 25) for _ in range(3)], dtype=np.float32)
    arr = np.broadcast_to(base, (h, w, 3)).copy()
    nprng = np.random.default_rng(rng.randrange(2**31))
    arr += nprng.normal(0, rng.uniform(2, 10), (h, w, 1))
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))


def _lighting(rng: random.Random, img: Image.Image, look: Look = DEFAULT_LOOK) -> Image.Image:
    w, h = img.size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    ramp = (xx * math.cos(ang) + yy * math.sin(ang)) / max(w, h)
    gain = rng.uniform(*look.gain) + rng.uniform(-0.3, 0.3) * ramp
    if look.vignette:
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        gain = gain * (1 - look.vignette * r2)
    arr = np.asarray(img, dtype=np.float32) * gain[..., None]
    if look.tint is not None:
        arr *= np.array(look.tint, np.float32)
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))


def place_row(
    rng: random.Random,
    canvas: Image.Image,
    shadow: ImageDraw.ImageDraw,
    bank: CropBank,
    origin: tuple[float, float],
    angle: float,
    count: int,
    size: int,
    classes: list[int] | None = None,
    gap_range: tuple[float, float] = DEFAULT_LOOK.gap,
) -> list[LabelBox]:
    """``count`` tiles side by side from ``origin`` along ``angle`` (degrees), each turned by it."""
    boxes: list[LabelBox] = []
    x, y = origin
    rad = math.radians(angle)
    gap = rng.uniform(*gap_range)
    along, prev_half = 0.0, 0.0
    for i in range(count):
        cls = classes[i] if classes else None
        tile, cls = bank.random_tile(rng, size, cls)
        turned = tile.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)
        if i:
            along += (prev_half + tile.width / 2) * (1 + gap)
        prev_half = tile.width / 2
        cx, cy = x + math.cos(rad) * along, y - math.sin(rad) * along
        left, top = round(cx - turned.width / 2), round(cy - turned.height / 2)
        if (
            left < 0
            or top < 0
            or left + turned.width > canvas.width
            or top + turned.height > canvas.height
        ):
            continue
        off = max(1, size // 12)
        alpha = np.asarray(turned.getchannel("A")) > 128
        if alpha.sum() < 10:
            continue
        ys, xs = np.nonzero(alpha)
        shadow.rectangle(
            (
                left + xs.min() + off,
                top + ys.min() + off,
                left + xs.max() + off,
                top + ys.max() + off,
            ),
            fill=90,
        )
        canvas.alpha_composite(turned, (left, top))
        boxes.append(
            (
                left + float(xs.min()),
                top + float(ys.min()),
                left + float(xs.max()) + 1,
                top + float(ys.max()) + 1,
                cls,
            )
        )
    return boxes


def _overlaps(box: LabelBox, others: list[LabelBox]) -> bool:
    return any(box[0] < o[2] and o[0] < box[2] and box[1] < o[3] and o[1] < box[3] for o in others)


def render_scene(
    rng: random.Random,
    bank: CropBank,
    width: int = 640,
    height: int = 640,
    look: Look = DEFAULT_LOOK,
    background: Image.Image | None = None,
) -> Scene:
    """A random scene: several rows of tiles (15–80 px by default) at 0/90/180/270° ± 15°, on
    ``background`` (RGB, ``width`` × ``height``) or else a random felt."""
    table = background.convert("RGB") if background is not None else felt(rng, width, height)
    canvas = table.convert("RGBA")
    tiles_layer = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    shadow_mask = Image.new("L", (width, height), 0)
    sd = ImageDraw.Draw(shadow_mask)
    boxes: list[LabelBox] = []
    low, high = look.sizes
    size = rng.randint(low, high)
    for _ in range(rng.randint(3, 10)):
        layer = Image.new("RGBA", (width, height), (0, 0, 0, 0))
        layer_shadow = Image.new("L", (width, height), 0)
        angle = rng.choice([0, 90, 180, 270]) + rng.uniform(-15, 15)
        row_size = max(low, min(high, round(size * rng.uniform(0.85, 1.15))))
        row = place_row(
            rng,
            layer,
            ImageDraw.Draw(layer_shadow),
            bank,
            (rng.uniform(0, width), rng.uniform(0, height)),
            angle,
            rng.randint(2, 14),
            row_size,
            gap_range=look.gap,
        )
        row = [b for b in row if not _overlaps(b, boxes)]
        if not row:
            continue
        keep = Image.new("L", (width, height), 0)
        kd = ImageDraw.Draw(keep)
        for b in row:
            kd.rectangle((b[0] - 1, b[1] - 1, b[2] + 1, b[3] + 1), fill=255)
        tiles_layer.paste(layer, (0, 0), Image.composite(layer.getchannel("A"), keep, keep))
        sd.bitmap(
            (0, 0), Image.composite(layer_shadow, Image.new("L", keep.size, 0), keep), fill=90
        )
        boxes += row
    shadow = shadow_mask.filter(ImageFilter.GaussianBlur(max(1, size / 10)))
    canvas = Image.composite(
        Image.new("RGBA", canvas.size, (0, 0, 0, 255)), canvas, shadow.point(lambda v: v // 2)
    )
    canvas.alpha_composite(tiles_layer)
    img = _lighting(rng, canvas.convert("RGB"), look)
    img, boxes = _perspective(rng, img, boxes)
    if rng.random() < 0.4:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.2)))
    arr = np.asarray(img, dtype=np.float32)
    arr += np.random.default_rng(rng.randrange(2**31)).normal(0, rng.uniform(0, 8), arr.shape)
    return Scene(Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)), boxes)


def _perspective(
    rng: random.Random, img: Image.Image, boxes: list[LabelBox]
) -> tuple[Image.Image, list[LabelBox]]:
    """A mild camera tilt: a random homography; boxes become the hull of their moved corners."""
    w, h = img.size
    j = 0.06 * rng.random()
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    dst = src + np.array([[rng.uniform(-j, j) * w, rng.uniform(-j, j) * h] for _ in range(4)])
    hom = homography_from_points(src, dst)
    inv = np.linalg.inv(hom)
    coeffs = tuple((inv / inv[2, 2]).flatten()[:8])
    out = img.transform((w, h), Image.Transform.PERSPECTIVE, coeffs, Image.Resampling.BILINEAR)
    moved: list[LabelBox] = []
    for x1, y1, x2, y2, cls in boxes:
        pts = np.array([[x1, y1, 1], [x2, y1, 1], [x2, y2, 1], [x1, y2, 1]]) @ hom.T
        pts = pts[:, :2] / pts[:, 2:]
        bx1, by1 = max(0.0, pts[:, 0].min()), max(0.0, pts[:, 1].min())
        bx2, by2 = min(float(w), pts[:, 0].max()), min(float(h), pts[:, 1].max())
        if bx2 - bx1 > 4 and by2 - by1 > 4:
            moved.append((float(bx1), float(by1), float(bx2), float(by2), cls))
    return out, moved


def homography_from_points(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    rows = []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    _, _, vt = np.linalg.svd(np.array(rows))
    hom: np.ndarray = vt[-1].reshape(3, 3)
    out: np.ndarray = hom / hom[2, 2]
    return out
