"""The printable marker sheet of hardware/markers.md: four ArUco markers at 1:1 on one A4 page.

``python -m vision.markers hardware/markers.svg hardware/markers.pdf`` writes the SVG (vector,
millimetre units) and a 300 dpi PDF of the same page. Each marker (DICT_4X4_50, 60 mm with its
black border) sits on an 80 mm white square with a cut line; the label names its id, its
place in the table frame and which edge faces the venue's East edge.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw

from vision.calibrate import MARKER_CENTRES, MARKER_MM

PAGE_MM = (210.0, 297.0)
WHITE_MM = 80.0
CELLS = 6  # 4 × 4 bits and a one-cell black border
ORIGINS = ((15.0, 30.0), (115.0, 30.0), (15.0, 160.0), (115.0, 160.0))  # white squares' corners
PLACES = (
    "left corner of the East edge",
    "right corner of the East edge",
    "right corner of the West edge",
    "left corner of the West edge",
)


def bits(marker_id: int) -> np.ndarray:
    """The marker's 6 × 6 cells, True for black."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    img = cv2.aruco.generateImageMarker(dictionary, marker_id, CELLS)
    out: np.ndarray = img < 128
    return out


def svg() -> str:
    w, h = PAGE_MM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" '
        f'viewBox="0 0 {w} {h}">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        '<text x="15" y="18" font-family="sans-serif" font-size="5">mjref table markers — '
        "print at 100 % (no scaling); check: each black square is 60 mm</text>",
    ]
    cell = MARKER_MM / CELLS
    for marker_id, (ox, oy) in enumerate(ORIGINS):
        parts.append(
            f'<rect x="{ox}" y="{oy}" width="{WHITE_MM}" height="{WHITE_MM}" '
            'fill="white" stroke="#999" stroke-width="0.2" stroke-dasharray="2,2"/>'
        )
        mx, my = ox + (WHITE_MM - MARKER_MM) / 2, oy + (WHITE_MM - MARKER_MM) / 2
        for r, row in enumerate(bits(marker_id)):
            for c, black in enumerate(row):
                if black:
                    parts.append(
                        f'<rect x="{mx + c * cell:.3f}" y="{my + r * cell:.3f}" '
                        f'width="{cell:.3f}" height="{cell:.3f}" fill="black"/>'
                    )
        x, y = MARKER_CENTRES[marker_id]
        parts.append(
            f'<text x="{ox}" y="{oy + WHITE_MM + 6}" font-family="sans-serif" '
            f'font-size="3.5">id {marker_id}: centre ({x:+.0f}, {y:+.0f}) mm, '
            f"{PLACES[marker_id]}</text>"
        )
        parts.append(
            f'<text x="{ox}" y="{oy + WHITE_MM + 11}" font-family="sans-serif" '
            'font-size="3.5">this edge towards the venue\'s East edge ↓</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def page_image(dpi: int = 300) -> Image.Image:
    """The sheet as a grey raster at ``dpi`` (what the PDF holds)."""
    scale = dpi / 25.4
    page = Image.new("L", (round(PAGE_MM[0] * scale), round(PAGE_MM[1] * scale)), 255)
    draw = ImageDraw.Draw(page)
    cell = MARKER_MM / CELLS
    for marker_id, (ox, oy) in enumerate(ORIGINS):
        draw.rectangle(
            [ox * scale, oy * scale, (ox + WHITE_MM) * scale, (oy + WHITE_MM) * scale],
            outline=150,
            width=1,
        )
        mx, my = ox + (WHITE_MM - MARKER_MM) / 2, oy + (WHITE_MM - MARKER_MM) / 2
        for r, row in enumerate(bits(marker_id)):
            for c, black in enumerate(row):
                if black:
                    x0, y0 = (mx + c * cell) * scale, (my + r * cell) * scale
                    draw.rectangle([x0, y0, x0 + cell * scale - 1, y0 + cell * scale - 1], fill=0)
        x, y = MARKER_CENTRES[marker_id]
        draw.text(
            (ox * scale, (oy + WHITE_MM + 3) * scale),
            f"id {marker_id}: ({x:+.0f}, {y:+.0f}) mm, {PLACES[marker_id]}; "
            "bottom edge towards East",
            fill=0,
        )
    return page


def pdf(path: Path, dpi: int = 300) -> None:
    page_image(dpi).save(path, resolution=dpi)


if __name__ == "__main__":
    out_svg = Path(sys.argv[1] if len(sys.argv) > 1 else "hardware/markers.svg")
    out_svg.write_text(svg())
    if len(sys.argv) > 2:
        pdf(Path(sys.argv[2]))
