"""Calibration: the four ArUco markers of hardware/markers.md → a homography to the table plane.

DICT_4X4_50, ids 0–3, centres at (∓500, ∓500) mm (id 0 the left corner of the East edge, then
counter-clockwise seen from above), each upright. All 16 marker corners are used, so one frame
gives the homography and its reprojection error; a manual four-corner fallback takes the four
marker centres clicked or typed by a person. A camera or table that moved is noticed by the
markers seen away from where the calibration puts them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

MARKER_IDS = (0, 1, 2, 3)
MARKER_CENTRES = {0: (-500.0, -500.0), 1: (500.0, -500.0), 2: (500.0, 500.0), 3: (-500.0, 500.0)}
MARKER_MM = 60.0
MARKER_WHITE_MM = 80.0  # each marker lies on a white square this wide (hardware/markers.md)
MOVED_PX = 4.0  # markers seen this far from their calibrated place: the camera or table moved


class CalibrationError(ValueError):
    """The markers cannot be found, or a calibration file is unreadable."""


@dataclass(frozen=True)
class Calibration:
    """``image_from_table`` maps table mm to image pixels; ``error_px`` is the RMS reprojection
    error over the marker corners used."""

    image_from_table: np.ndarray
    error_px: float
    source: str = "aruco"

    @property
    def table_from_image(self) -> np.ndarray:
        inv: np.ndarray = np.linalg.inv(self.image_from_table)
        out: np.ndarray = inv / inv[2, 2]
        return out

    def project(self, points: np.ndarray) -> np.ndarray:
        """Table mm (N×2) → image pixels (N×2)."""
        out: np.ndarray = cv2.perspectiveTransform(
            points.reshape(-1, 1, 2).astype(np.float64), self.image_from_table
        ).reshape(-1, 2)
        return out

    def save(self, path: Path) -> None:
        data = {
            "image_from_table": self.image_from_table.tolist(),
            "error_px": self.error_px,
            "source": self.source,
        }
        path.write_text(json.dumps(data, indent=1) + "\n")

    @classmethod
    def load(cls, path: Path) -> Calibration:
        try:
            data = json.loads(path.read_text())
            hom = np.array(data["image_from_table"], dtype=np.float64)
            if hom.shape != (3, 3):
                raise ValueError("image_from_table is not 3×3")
            return cls(hom, float(data.get("error_px", 0.0)), str(data.get("source", "file")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CalibrationError(
                f"{path}: not a calibration file ({exc}); expected JSON with a 3×3 "
                "image_from_table, as `mjref vision calibrate` writes"
            ) from None


def marker_corners_mm(marker_id: int) -> np.ndarray:
    """The four corners of a marker in table mm, in ArUco's order (top-left first, clockwise
    in the image with East at the bottom)."""
    x, y = MARKER_CENTRES[marker_id]
    h = MARKER_MM / 2
    return np.array([[x - h, y + h], [x + h, y + h], [x + h, y - h], [x - h, y - h]])


_DETECTOR: cv2.aruco.ArucoDetector | None = None


def _detector() -> cv2.aruco.ArucoDetector:
    global _DETECTOR
    if _DETECTOR is None:
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        _DETECTOR = cv2.aruco.ArucoDetector(dictionary, params)
    return _DETECTOR


def _all_ids(image: np.ndarray) -> list[int]:
    """Every DICT_4X4_50 marker id in the image, the table's or not."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    _, ids, _ = _detector().detectMarkers(grey)
    return [] if ids is None else [int(i) for i in ids.ravel()]


def find_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """Marker id → its 4 image corners (4×2), for ids 0–3 found in an RGB or grey image."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    corners, ids, _ = _detector().detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for quad, marker in zip(corners, ids.ravel(), strict=True):
        if int(marker) in MARKER_CENTRES:
            found[int(marker)] = quad.reshape(4, 2).astype(np.float64)
    return found


def calibrate(image: np.ndarray) -> Calibration:
    """The homography from the markers in one frame (at least 3 of the 4 must be seen)."""
    found = find_markers(image)
    if len(found) < 3:
        missing = ", ".join(str(i) for i in MARKER_IDS if i not in found)
        others = sorted(set(_all_ids(image)) - set(MARKER_IDS))
        saw = ", ".join(str(i) for i in sorted(found)) or "none of them"
        if others:  # another sheet's markers, or a table marked with the wrong ids
            saw += f"; other markers: {', '.join(str(i) for i in others)}"
        raise CalibrationError(
            f"markers {missing} not seen (saw {saw}; need 3 of ids 0–3, DICT_4X4_50, "
            "hardware/markers.md); use `mjref vision calibrate --corners` to give the four "
            "marker centres by hand"
        )
    table = np.concatenate([marker_corners_mm(i) for i in sorted(found)])
    pixels = np.concatenate([found[i] for i in sorted(found)])
    hom, _ = cv2.findHomography(table, pixels, 0)
    if hom is None:
        raise CalibrationError("the markers seen do not give a homography (degenerate view)")
    return Calibration(hom / hom[2, 2], _rms(hom, table, pixels))


def from_corners(points: list[tuple[float, float]]) -> Calibration:
    """Manual fallback: the image pixels of the four marker centres, ids 0, 1, 2, 3 in order."""
    if len(points) != 4:
        raise CalibrationError(f"need 4 corner points (ids 0–3), got {len(points)}")
    table = np.array([MARKER_CENTRES[i] for i in MARKER_IDS], dtype=np.float64)
    pixels = np.array(points, dtype=np.float64)
    hom, _ = cv2.findHomography(table, pixels, 0)
    if hom is None:
        raise CalibrationError("the four points do not give a homography (three in a line?)")
    return Calibration(hom / hom[2, 2], _rms(hom, table, pixels), "manual")


def drift_px(cal: Calibration, image: np.ndarray) -> float | None:
    """How far (px, the largest over markers seen) the markers lie from where ``cal`` puts
    them; None when fewer than 2 are seen (an arm over a corner is not a move)."""
    found: dict[int, np.ndarray] = {}
    h, w = image.shape[:2]
    for marker in MARKER_IDS:  # look only around where each marker should be: a fraction of
        centre = cal.project(np.array([MARKER_CENTRES[marker]]))[0]  # the full frame's cost
        side = float(np.linalg.norm(np.diff(cal.project(marker_corners_mm(marker))[:2], axis=0)))
        r = round(max(side, 8.0) * 2.5)
        x0, y0 = max(0, round(centre[0]) - r), max(0, round(centre[1]) - r)
        x1, y1 = min(w, round(centre[0]) + r), min(h, round(centre[1]) + r)
        if x1 - x0 < 16 or y1 - y0 < 16:
            continue
        quad = find_markers(image[y0:y1, x0:x1]).get(marker)
        if quad is not None:
            found[marker] = quad + np.array([x0, y0])
    if len(found) < 2:
        return None if len(find_markers(image)) < 2 else MOVED_PX * 100
    worst = 0.0
    for marker, quad in found.items():
        expected = cal.project(marker_corners_mm(marker))
        worst = max(worst, float(np.linalg.norm(expected - quad, axis=1).max()))
    return worst


def _rms(hom: np.ndarray, table: np.ndarray, pixels: np.ndarray) -> float:
    proj = cv2.perspectiveTransform(table.reshape(-1, 1, 2), hom).reshape(-1, 2)
    return float(np.sqrt(((proj - pixels) ** 2).sum(1).mean()))
