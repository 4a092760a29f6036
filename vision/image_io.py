"""Load any image a camera or a person hands us as 8-bit RGB: modes, bit depths, EXIF turns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

# 100 megapixels (a 108 MP phone's full resolution; 300 MB decoded) is the most we read: larger
# files are refused from their header, before decoding, so memory stays bounded (~1 GB in all).
# This check replaces Pillow's own (a warning, then an error at twice its limit).
MAX_MEGAPIXELS = 100
Image.MAX_IMAGE_PIXELS = None


class ImageError(ValueError):
    """An image that cannot be read; the message names the file."""


def load_image(path: Path | str) -> Image.Image:
    """Open ``path`` as RGB; raises :class:`ImageError` with the file name when it can't."""
    try:
        with Image.open(path) as opened:
            _check_size(path, *opened.size)
            opened.load()
            img = ImageOps.exif_transpose(opened) or opened
            return to_rgb(img)
    except ImageError:
        raise
    except FileNotFoundError:
        raise ImageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ImageError(f"{path}: is a directory, not an image") from None
    except PermissionError:
        raise ImageError(f"{path}: permission denied") from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise ImageError(f"{path}: not a readable image ({exc})") from None


def _check_size(path: Path | str, width: int, height: int) -> None:
    if width * height > MAX_MEGAPIXELS * 1_000_000:
        raise ImageError(
            f"{path}: {width}×{height} is {width * height / 1e6:.0f} megapixels, more than the "
            f"{MAX_MEGAPIXELS} megapixel limit; scale it down first"
        )


def to_rgb(img: Image.Image) -> Image.Image:
    """8-bit RGB from any PIL mode: 16-bit and float are scaled, alpha goes onto grey."""
    if img.mode == "RGB":
        return img
    if img.mode in ("I", "I;16", "I;16B", "I;16L", "I;16N", "F"):
        arr = np.asarray(img, dtype=np.float64)
        lo, hi = float(arr.min()), float(arr.max())
        top = 65535.0 if img.mode.startswith("I") and hi > 255 else max(hi, 1.0)
        if img.mode == "F":
            top, arr = max(hi - lo, 1e-9), arr - lo
        gray = np.clip(arr / top * 255.0, 0, 255).astype(np.uint8)
        return Image.fromarray(gray).convert("RGB")
    if img.mode in ("RGBA", "LA", "PA", "P", "RGBa", "La"):
        rgba = img.convert("RGBA")
        back = Image.new("RGBA", rgba.size, (128, 128, 128, 255))
        return Image.alpha_composite(back, rgba).convert("RGB")
    return img.convert("RGB")
