"""The tile sheet (hardware/tile-sheet.*): the 43 faces laid out in a printed order, read by
position, so a referee enrols a venue's tiles from one photo with no labelling.

An A3 landscape page holds a 9 × 5 grid of 36 × 46 mm cells — rows 1–9m, 1–9p, 1–9s, the
honours E S W N P F C and a tile turned face down (``back``), then the flowers f1–f8 — each
with the tile's name printed under an outline where it goes, and four ArUco markers
(DICT_4X4_50, ids 10–13, 28 mm; the table's own markers are 0–3) beside the grid's corners. A photo
of the sheet with the tiles on it (the rig's camera from above will do) is read by finding the
markers, mapping each cell into the image, and labelling the detector's box whose centre lies in
the cell (or the cell's outline where the detector found none) with that cell's tile.

``python -m vision.sheet hardware/tile-sheet.svg hardware/tile-sheet.pdf`` writes both files
(deterministic: the same bytes each run).
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.classes import BACK, class_label
from vision.dataset import Box
from vision.markers import CELLS

PAGE_MM = (420.0, 297.0)  # A3 landscape
CELL_MM = (36.0, 46.0)
OUTLINE_MM = (28.0, 37.0)  # where the tile goes (a large tile is ~27 × 36 mm)
GRID_ORIGIN_MM = (48.0, 40.0)  # top-left of the grid
COLUMNS = 9
MARKER_IDS = (10, 11, 12, 13)  # beside the grid: top-left, top-right, bottom-right, bottom-left
MARKER_SIDE_MM = 28.0
MARKER_GAP_MM = 5.0  # between a marker and the grid's side
ROWS: tuple[tuple[int, ...], ...] = (
    tuple(range(0, 9)),
    tuple(range(9, 18)),
    tuple(range(18, 27)),
    (*range(27, 34), BACK),
    tuple(range(34, 42)),
)
NAMES = {27: "E 東", 28: "S 南", 29: "W 西", 30: "N 北", 31: "P 白", 32: "F 發", 33: "C 中"}


class SheetError(ValueError):
    """A photo in which the sheet cannot be read."""


def cells() -> list[tuple[int, tuple[float, float, float, float]]]:
    """(class, cell rectangle x1 y1 x2 y2 in page mm) in the printed order."""
    out = []
    ox, oy = GRID_ORIGIN_MM
    for r, row in enumerate(ROWS):
        for c, cls in enumerate(row):
            x, y = ox + c * CELL_MM[0], oy + r * CELL_MM[1]
            out.append((cls, (x, y, x + CELL_MM[0], y + CELL_MM[1])))
    return out


def grid_size() -> tuple[float, float]:
    return COLUMNS * CELL_MM[0], len(ROWS) * CELL_MM[1]


def marker_origins() -> list[tuple[float, float]]:
    """Top-left corner (mm) of each marker, in MARKER_IDS order."""
    (ox, oy), (gw, gh) = GRID_ORIGIN_MM, grid_size()
    s, g = MARKER_SIDE_MM, MARKER_GAP_MM
    return [
        (ox - g - s, oy),
        (ox + gw + g, oy),
        (ox + gw + g, oy + gh - s),
        (ox - g - s, oy + gh - s),
    ]


def marker_corners(index: int) -> np.ndarray:
    """A marker's four corners in page mm, ArUco's order (top-left first, clockwise)."""
    x, y = marker_origins()[index]
    s = MARKER_SIDE_MM
    return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=np.float64)


def _bits(marker_id: int) -> np.ndarray:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    out: np.ndarray = cv2.aruco.generateImageMarker(dictionary, marker_id, CELLS) < 128
    return out


def _label(cls: int) -> str:
    return NAMES.get(cls, "back (face down)" if cls == BACK else class_label(cls))


def _outline(cell: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    x1, y1, x2, _ = cell
    left = x1 + (x2 - x1 - OUTLINE_MM[0]) / 2
    return left, y1 + 2.0, left + OUTLINE_MM[0], y1 + 2.0 + OUTLINE_MM[1]


def svg() -> str:
    w, h = PAGE_MM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" '
        f'viewBox="0 0 {w} {h}">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        '<text x="48" y="30" font-family="sans-serif" font-size="5">mjref tile sheet — print '
        "at 100 % on A3; lay each tile face up in its outline (the back face down), then "
        "`mjref tiles enrol --sheet PHOTO --out PROFILE`</text>",
    ]
    for cls, cell in cells():
        x1, y1, x2, y2 = cell
        parts.append(
            f'<rect x="{x1}" y="{y1}" width="{x2 - x1}" height="{y2 - y1}" fill="none" '
            'stroke="#bbb" stroke-width="0.2"/>'
        )
        a, b, c, d = _outline(cell)
        parts.append(
            f'<rect x="{a}" y="{b}" width="{c - a}" height="{d - b}" rx="2" fill="none" '
            'stroke="#888" stroke-width="0.3" stroke-dasharray="1.5,1.5"/>'
        )
        parts.append(
            f'<text x="{(x1 + x2) / 2}" y="{y2 - 2.5}" font-family="sans-serif" '
            f'font-size="3.5" text-anchor="middle">{_label(cls)}</text>'
        )
    bit = MARKER_SIDE_MM / CELLS
    for index, marker_id in enumerate(MARKER_IDS):
        mx, my = marker_origins()[index]
        for r, row in enumerate(_bits(marker_id)):
            for c, black in enumerate(row):
                if black:
                    parts.append(
                        f'<rect x="{mx + c * bit:.3f}" y="{my + r * bit:.3f}" '
                        f'width="{bit:.3f}" height="{bit:.3f}" fill="black"/>'
                    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def page_image(dpi: int = 150) -> Image.Image:
    """The sheet as an RGB raster at ``dpi`` (what the PDF holds; also what tests render)."""
    k = dpi / 25.4
    page = Image.new("RGB", (round(PAGE_MM[0] * k), round(PAGE_MM[1] * k)), "white")
    draw = ImageDraw.Draw(page)
    font = _font(round(3.5 * k))
    for cls, cell in cells():
        x1, y1, x2, y2 = (v * k for v in cell)
        draw.rectangle((x1, y1, x2, y2), outline=(190, 190, 190), width=1)
        a, b, c, d = (v * k for v in _outline(cell))
        draw.rounded_rectangle((a, b, c, d), round(2 * k), outline=(140, 140, 140), width=1)
        draw.text(((x1 + x2) / 2, y2 - 2.5 * k), _label(cls), fill="black", font=font, anchor="ms")
    size = MARKER_SIDE_MM / CELLS * k
    for index, marker_id in enumerate(MARKER_IDS):
        mx, my = (v * k for v in marker_origins()[index])
        for r, row in enumerate(_bits(marker_id)):
            for c, black in enumerate(row):
                if black:
                    x0, y0 = mx + c * size, my + r * size
                    draw.rectangle((x0, y0, x0 + size - 1, y0 + size - 1), fill="black")
    return page


def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for folder in (Path("/usr/share/fonts/opentype/noto"), Path("/usr/share/fonts/truetype")):
        for path in sorted(folder.rglob("NotoSansCJK-Regular*")):
            return ImageFont.truetype(str(path), px)
    return ImageFont.load_default()


def pdf(path: Path, dpi: int = 150) -> None:
    """The page as a PDF; its dates are fixed, so the file is the same bytes each run."""
    stamp = time.gmtime(datetime(2026, 12, 1, tzinfo=UTC).timestamp())
    page_image(dpi).save(
        path, resolution=dpi, title="mjref tile sheet", creationDate=stamp, modDate=stamp
    )


# -- reading a photo of the sheet ------------------------------------------------------------
def homography(image: Image.Image) -> np.ndarray:
    """Page mm → image pixels, from the sheet's markers (3 of the 4 at least)."""
    grey = cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2GRAY)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(grey)
    found = {}
    for quad, marker in zip(corners, [] if ids is None else ids.ravel(), strict=True):
        if int(marker) in MARKER_IDS:
            found[MARKER_IDS.index(int(marker))] = quad.reshape(4, 2).astype(np.float64)
    if len(found) < 3:
        missing = " ".join(str(MARKER_IDS[i]) for i in range(4) if i not in found)
        raise SheetError(
            f"sheet markers {missing} not seen (need 3 of ids 10–13 beside the grid's corners, "
            "hardware/tile-sheet.pdf); photograph the whole sheet"
        )
    page = np.concatenate([marker_corners(i) for i in sorted(found)])
    pixels = np.concatenate([found[i] for i in sorted(found)])
    hom, _ = cv2.findHomography(page, pixels, 0)
    if hom is None:
        raise SheetError("the sheet's markers give no homography (a degenerate view)")
    out: np.ndarray = hom / hom[2, 2]
    return out


def _project(hom: np.ndarray, rect: tuple[float, float, float, float]) -> np.ndarray:
    x1, y1, x2, y2 = rect
    pts = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=np.float64)
    out: np.ndarray = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), hom).reshape(-1, 2)
    return out


def read_sheet(image: Image.Image, detections: np.ndarray) -> list[Box]:
    """The labelled tiles of a sheet photo: for each cell, the detector box (rows ``x1 y1 x2
    y2 score …``, best first) whose centre falls in the cell, else the cell's projected outline."""
    hom = homography(image)
    centres = (detections[:, :2] + detections[:, 2:4]) / 2 if len(detections) else np.zeros((0, 2))
    taken = np.zeros(len(detections), bool)
    boxes = []
    w, h = image.size
    for cls, cell in cells():
        quad = _project(hom, cell).astype(np.float32)
        inside = [
            i
            for i in range(len(detections))
            if not taken[i]
            and cv2.pointPolygonTest(quad, tuple(map(float, centres[i])), False) >= 0
        ]
        if inside:
            i = inside[0]
            taken[i] = True
            x1, y1, x2, y2 = (float(v) for v in detections[i, :4])
        else:
            pts = _project(hom, _outline(cell))
            x1, y1 = float(pts[:, 0].min()), float(pts[:, 1].min())
            x2, y2 = float(pts[:, 0].max()), float(pts[:, 1].max())
        x1, y1, x2, y2 = max(x1, 0.0), max(y1, 0.0), min(x2, float(w)), min(y2, float(h))
        if x2 - x1 < 2 or y2 - y1 < 2:
            raise SheetError(f"the cell of {class_label(cls)} lies outside the photo")
        boxes.append(Box(x1, y1, x2, y2, cls))
    return boxes


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    out_svg = Path(args[0] if args else "hardware/tile-sheet.svg")
    out_svg.write_text(svg())
    if len(args) > 1:
        pdf(Path(args[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
