"""Any image a person or a camera hands us loads as 8-bit RGB, or fails naming the file."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.image_io import MAX_MEGAPIXELS, ImageError, load_image


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "LA", "L", "P", "CMYK", "I;16", "I", "F", "1"])
def test_every_mode_loads_as_rgb(tmp_path: Path, mode: str) -> None:
    img = Image.new("RGB", (40, 30), (200, 120, 40)).convert(mode)
    if mode == "I;16":
        img = Image.fromarray((np.arange(1200).reshape(30, 40) * 50).astype(np.uint16))
    suffix = ".tiff" if mode in ("I;16", "I", "F", "CMYK", "LA") else ".png"
    path = tmp_path / f"x{suffix}"
    img.save(path)
    out = load_image(path)
    assert out.mode == "RGB" and out.size == (40, 30)


def test_sixteen_bit_keeps_contrast(tmp_path: Path) -> None:
    arr = np.zeros((10, 10), dtype=np.uint16)
    arr[:, 5:] = 60000
    Image.fromarray(arr).save(tmp_path / "a.png")
    out = np.asarray(load_image(tmp_path / "a.png"))
    assert out[0, 0, 0] == 0 and out[0, 9, 0] > 200


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.write_bytes(b"not an image at all"), "not a readable image"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 20), "not a readable image"),
    ],
)
def test_unreadable_files_name_the_file(tmp_path: Path, make: object, message: str) -> None:
    path = tmp_path / "broken.png"
    make(path)  # type: ignore[operator]
    with pytest.raises(ImageError, match=message) as info:
        load_image(path)
    assert str(path) in str(info.value)


def _png_header(path: Path, width: int, height: int) -> None:
    """A width×height RGB PNG that holds no pixels: its size is all there is to read."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + ihdr + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("side", [20000, 40000])
def test_an_absurdly_large_image_is_refused_from_its_header(tmp_path: Path, side: int) -> None:
    """400 MP and 1,600 MP alike: the size and the limit are named, and nothing is decoded
    (the file holds no pixels at all)."""
    path = tmp_path / "huge.png"
    _png_header(path, side, side)
    with pytest.raises(ImageError, match=f"{MAX_MEGAPIXELS} megapixel limit") as info:
        load_image(path)
    assert str(path) in str(info.value) and f"{side}×{side}" in str(info.value)


def test_a_truncated_photo_is_an_error_naming_the_file(tmp_path: Path) -> None:
    data = (Path(__file__).resolve().parent / "fixtures" / "mixed.jpg").read_bytes()
    path = tmp_path / "cut.jpg"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ImageError, match="not a readable image") as info:
        load_image(path)
    assert str(path) in str(info.value) and "truncated" in str(info.value)
