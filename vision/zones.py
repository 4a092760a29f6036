"""Zones and slots of the table in table millimetres (hardware/markers.md), per seat.

One layout serves the renderer (where a tile is put) and the reader (where a tile is looked for).
Seen from above with venue East at the bottom: +x towards South (right), +y towards West (top).
Each seat's layout is East's turned counter-clockwise by 90° per seat (E, S, W, N); in a seat's
own frame +y points from the player to the table centre and +x to the player's right.

Zones: ``wall`` (18 stacks, numbered from the owner's right end leftwards, as referee/game/wall),
``hand`` (14 standing tiles; laid face up at a win: ``revealed``), ``river`` (rows of 6 from the
player's left), ``meld`` (4 melds × 4 cells of 35 mm, from the player's right), ``penalty`` (face up
right of the hand).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

SEATS = "ESWN"
TILE_W, TILE_H, TILE_T = 26.0, 35.0, 20.0  # face width, face height, thickness (mm)
HALF = 600.0  # the rectified image covers −HALF … +HALF mm on both axes
STACKS = 18  # slots: MCR has 18 stacks a side, WMC 17 (laid out centred on 17)
RIVER_COLS, RIVER_ROWS = 6, 5
MELDS, MELD_CELLS = 4, 4
CELL = TILE_H  # a meld cell holds an upright tile or a sideways one
HAND_SLOTS = 14
PENALTY_SLOTS = 6

_WALL_Y, _HAND_Y, _MELD_Y, _RIVER_Y = -340.0, -478.0, -420.0, -262.0
_PITCH = TILE_W + 1.0
_ZONES = ("wall", "hand", "river", "meld", "penalty")


@dataclass(frozen=True)
class Slot:
    """One place a tile can lie: ``key`` is ``SEAT/zone/index``; centre and size in table mm;
    ``angle`` is the tile's upright direction (degrees counter-clockwise, 0 = East's view)."""

    seat: str
    zone: str
    index: int
    x: float
    y: float
    w: float
    h: float
    angle: float

    @property
    def key(self) -> str:
        return f"{self.seat}/{self.zone}/{self.index}"


def to_table(seat: str, x: float, y: float) -> tuple[float, float]:
    """A point of ``seat``'s own frame in the table frame."""
    a = math.radians(90.0 * SEATS.index(seat))
    c, s = round(math.cos(a)), round(math.sin(a))
    return x * c - y * s, x * s + y * c


def _slot(seat: str, zone: str, index: int, x: float, y: float, w: float, h: float) -> Slot:
    tx, ty = to_table(seat, x, y)
    turned = SEATS.index(seat) % 2 == 1
    return Slot(
        seat, zone, index, tx, ty, h if turned else w, w if turned else h, 90.0 * SEATS.index(seat)
    )


def _local(zone: str, index: int) -> tuple[float, float, float, float]:
    """Centre and footprint of a slot in East's frame."""
    if zone == "wall":
        return (17 / 2 - 0.5 - index) * TILE_W, _WALL_Y, TILE_W, TILE_H
    if zone == "hand":
        return (index - HAND_SLOTS / 2 + 0.5) * TILE_W, _HAND_Y, TILE_W, TILE_H
    if zone == "river":
        row, col = divmod(index, RIVER_COLS)
        return (col - RIVER_COLS / 2 + 0.5) * _PITCH, _RIVER_Y + row * (TILE_H + 1), TILE_W, TILE_H
    if zone == "meld":
        meld, cell = divmod(index, MELD_CELLS)
        right = 300.0 - meld * (MELD_CELLS * CELL + 10)
        return right - (MELD_CELLS - cell - 0.5) * CELL, _MELD_Y, CELL, CELL
    if zone == "penalty":
        return 200.0 + (index + 0.5) * _PITCH, _HAND_Y, TILE_W, TILE_H
    raise KeyError(f"unknown zone {zone!r} (expected one of {', '.join(_ZONES)})")


SLOT_COUNTS = {
    "wall": STACKS,
    "hand": HAND_SLOTS,
    "river": RIVER_COLS * RIVER_ROWS,
    "meld": MELDS * MELD_CELLS,
    "penalty": PENALTY_SLOTS,
}


@functools.cache
def slot(seat: str, zone: str, index: int) -> Slot:
    x, y, w, h = _local(zone, index)
    return _slot(seat, zone, index, x, y, w, h)


def all_slots(zones: tuple[str, ...] = _ZONES) -> list[Slot]:
    return [slot(s, z, i) for s in SEATS for z in zones for i in range(SLOT_COUNTS[z])]


def zone_box(seat: str, zone: str, margin: float = 8.0) -> tuple[float, float, float, float]:
    """The table-frame box (x1, y1, x2, y2) around all slots of one zone of one seat."""
    slots = [slot(seat, zone, i) for i in range(SLOT_COUNTS[zone])]
    return (
        min(s.x - s.w / 2 for s in slots) - margin,
        min(s.y - s.h / 2 for s in slots) - margin,
        max(s.x + s.w / 2 for s in slots) + margin,
        max(s.y + s.h / 2 for s in slots) + margin,
    )


def to_pixel(x: float, y: float, scale: float) -> tuple[float, float]:
    """Table mm → rectified image pixel (East at the bottom, ``scale`` px per mm)."""
    return (x + HALF) * scale, (HALF - y) * scale


def pixel_box(box: tuple[float, float, float, float], scale: float) -> tuple[int, int, int, int]:
    """A table-frame box as rectified-image pixel bounds (x1, y1, x2, y2), clipped."""
    u1, v1 = to_pixel(box[0], box[3], scale)
    u2, v2 = to_pixel(box[2], box[1], scale)
    side = round(2 * HALF * scale)
    return max(0, int(u1)), max(0, int(v1)), min(side, math.ceil(u2)), min(side, math.ceil(v2))


def plane_to_mm(scale: float) -> np.ndarray:
    """Plane raster pixel → table mm (the inverse of vision.zones.to_pixel)."""
    return np.array([[1 / scale, 0, -HALF], [0, -1 / scale, HALF], [0, 0, 1]], dtype=np.float64)
