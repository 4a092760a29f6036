"""Change gating on the rectified table (as camera NVRs do): motion decides which zones are read.

A small grey view of the rectified table (4 mm a pixel) is compared with the previous frame
(motion) and with the view at the zone's last reading (change). A zone is read again only when it
differs from its last reading and has been still for ``settle_s``; unchanged zones keep their
state, so the recognizer's cost follows the actions, not the frame rate. A changed blob that
reaches the table's edge is an arm (players reach in from their side): the slots under it are
occluded, which is a state, never a change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.zones import HALF, SEATS, SLOT_COUNTS, pixel_box, slot, zone_box

GATE_SCALE = 0.25  # px per mm of the gate's view
MOTION = 0.06  # a pixel moved: its brightness (relative to the table's) changed this much
CHANGED_PIXELS = 3  # a zone with at least this many changed gate pixels is changed
EDGE_MM = 525.0  # a changed blob reaching past this (|x| or |y|) is an arm from a player's side
START_CALM_S = 1.0  # the table at rest this long before the first reading …
START_WAIT_S = 4.0  # … waited for at most this long
ABSORB_S = 8.0  # still this long outside the zones: background, not an arm
ARM_PIXELS = 150  # an arm covers at least this much of the gate's view (~2,400 mm²)
ZONES = ("river", "meld", "hand", "penalty", "wall")


@dataclass
class ZoneGate:
    box: tuple[int, int, int, int]
    still_since: float = 0.0
    reference: np.ndarray | None = None


@dataclass
class Gate:
    settle_s: float = 0.2
    zones: dict[tuple[str, str], ZoneGate] = field(default_factory=dict)
    previous: np.ndarray | None = None
    whole: np.ndarray | None = None  # the table as last read (zones) or at rest (elsewhere)
    still: np.ndarray | None = None  # since when each gate pixel has not moved
    calm_since: float | None = None
    first_seen: float | None = None
    outside: np.ndarray = field(default_factory=lambda: np.ones((0, 0), bool))
    occluder: np.ndarray | None = None

    def __post_init__(self) -> None:
        side = round(2 * HALF * GATE_SCALE)
        self.outside = np.ones((side, side), bool)
        for seat in SEATS:
            for zone in ZONES:
                box = pixel_box(zone_box(seat, zone), GATE_SCALE)
                self.zones[(seat, zone)] = ZoneGate(box)
                self.outside[box[1] : box[3], box[0] : box[2]] = False

    def ready(self, view: np.ndarray, t: float) -> bool:
        """Whether the table has been at rest for ``START_CALM_S`` (checked until it has): the
        first readings and the background are taken from a table no arm is over."""
        if self.calm_since is not None and t - self.calm_since >= START_CALM_S:
            return True
        if self.first_seen is None:
            self.first_seen = t
        prev = self.previous if self.previous is not None else view
        self.previous = view
        if (np.abs(view - prev) > MOTION).sum() >= ARM_PIXELS // 4 or self.calm_since is None:
            self.calm_since = t
        if t - self.first_seen >= START_WAIT_S:  # a busy table: start anyway (the background
            self.calm_since = t - START_CALM_S  # past the zones heals in ABSORB_S)
        return t - self.calm_since >= START_CALM_S

    def update(self, view: np.ndarray, t: float) -> list[tuple[str, str]]:
        """Feed one gate view; the zones that are still and changed since their last reading."""
        prev = self.previous if self.previous is not None else view
        moving = np.abs(view - prev) > MOTION
        self.previous = view
        if self.whole is None or self.still is None:
            self.whole, self.still = view.copy(), np.full(view.shape, t, np.float32)
        # outside the zones the table as first seen slowly becomes the table as it is: what has
        # not moved for ABSORB_S (an arm at rest longer than any reach) is background
        self.still[moving] = t
        calm = (t - self.still >= ABSORB_S) & self.outside
        self.whole[calm] = view[calm]
        due: list[tuple[str, str]] = []
        for key, z in self.zones.items():
            x1, y1, x2, y2 = z.box
            if z.reference is None:  # never read: every slot is read (see changed_slots)
                due.append(key)
                continue
            if moving[y1:y2, x1:x2].sum() >= CHANGED_PIXELS:
                z.still_since = t
            diff = np.abs(view[y1:y2, x1:x2] - z.reference) > MOTION
            if diff.sum() >= CHANGED_PIXELS and t - z.still_since >= self.settle_s:
                due.append(key)
        self.occluder = self._arms(moving | (np.abs(view - self.whole) > MOTION))
        return due

    def accept(self, key: tuple[str, str], view: np.ndarray) -> None:
        """The zone was read: its reference is now."""
        z = self.zones[key]
        x1, y1, x2, y2 = z.box
        z.reference = view[y1:y2, x1:x2].copy()
        if self.whole is not None:
            self.whole[y1:y2, x1:x2] = z.reference

    def _arms(self, changed: np.ndarray) -> np.ndarray:
        if not changed.any():
            return changed
        # lone changed pixels (sensor noise on the dark floor past the table) are no arm
        opened = cv2.morphologyEx(
            changed.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)
        )
        mask = cv2.dilate(opened, np.ones((5, 5), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
        small = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] < ARM_PIXELS]
        labels[np.isin(labels, small)] = 0
        edge = round((HALF - EDGE_MM) * GATE_SCALE)
        border = np.zeros(mask.shape, bool)
        border[:edge], border[-edge:], border[:, :edge], border[:, -edge:] = True, True, True, True
        arms = np.unique(labels[border & (mask > 0)])
        out: np.ndarray = np.isin(labels, arms[arms > 0])
        return cv2.dilate(out.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0

    def changed_slots(self, seat: str, zone: str, view: np.ndarray) -> set[int]:
        """Slots of a zone whose gate pixels differ from the zone's last reading."""
        z = self.zones[(seat, zone)]
        if z.reference is None:
            return set(range(SLOT_COUNTS[zone]))
        x1, y1, _, _ = z.box
        out: set[int] = set()
        for i in range(SLOT_COUNTS[zone]):
            u1, v1, u2, v2 = _slot_box(seat, zone, i)
            now = view[v1:v2, u1:u2]
            ref = z.reference[v1 - y1 : v2 - y1, u1 - x1 : u2 - x1]
            if now.shape == ref.shape and (np.abs(now - ref) > MOTION).any():
                out.add(i)
        return out

    def occluded(self, seat: str, zone: str) -> set[int]:
        """Slots of a zone that an arm covers now."""
        if self.occluder is None:
            return set()
        out: set[int] = set()
        for i in range(SLOT_COUNTS[zone]):
            x1, y1, x2, y2 = _slot_box(seat, zone, i)
            if self.occluder[y1:y2, x1:x2].any():
                out.add(i)
        return out


def _slot_box(seat: str, zone: str, index: int) -> tuple[int, int, int, int]:
    s = slot(seat, zone, index)
    return pixel_box((s.x - s.w / 2, s.y - s.h / 2, s.x + s.w / 2, s.y + s.h / 2), GATE_SCALE)
