"""Change gating on the rectified table (as camera NVRs do): motion decides which zones are read.

A small grey view of the rectified table (4 mm a pixel) is compared with the previous frame
(motion), with the view at the zone's last reading (change) and with a background that heals
(what stays still for ``ABSORB_S`` becomes table). Reading starts once the table, this frame
included, has been at rest for ``START_CALM_S`` (a frame an arm enters in is never the
background: its sleeve would be read as backs, and once gone it would look like an arm), or
after ``START_WAIT_S`` of a busy table, whose background is each pixel's median. A zone is
read again only when it differs from its last reading (or was read since, as under an arm), and
only its slots that differ and have been still for ``settle_s`` (a slot settles as soon as the
arm has left it, not the whole zone); unchanged zones keep their state, so the recognizer's
cost follows the actions, not the frame rate. A changed blob that crosses the table's edge is
an arm (players reach in from their side), and all its convex hull is (a sleeve as bright as
the felt differs only at its outline): the slots under it or within ``NEAR_MM`` of it are
occluded, which is a state, never a change. Arms are also looked for in colour (a view of its
own, kept beside the grey one): a black sleeve over a dark blue felt is as bright as the felt.
A blob at rest (a hover, or tiles just laid down by the edge) is an arm only where it crosses the
edge as a forearm does: new tiles joined to it by a stream's blocks were hidden until taken in.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.zones import HALF, SEATS, SLOT_COUNTS, pixel_box, slot, zone_box

GATE_SCALE = 0.25  # px per mm of the gate's view
MOTION = 0.06  # a pixel moved: its brightness (relative to the table's) changed this much …
NOISE_K = 6.0  # … or this many times the frame-to-frame noise where the camera is noisier
# (a dim venue's sensor, a compressed stream: its still table "moved" everywhere, never calm)
CHANGED_PIXELS = 3  # a zone with at least this many changed gate pixels is changed
EDGE_MM = 565.0  # a changed blob reaching past this (|x| or |y|: beyond every tile, even a
# standing one seen askew) is an arm from a player's side
START_CALM_S = 0.6  # the table at rest this long before the first reading …
START_WAIT_S = 4.0  # … waited for at most this long (then the background is the median view)
ABSORB_S = 8.0  # still this long: background, not an arm (a hover lasts 3 s)
NEAR_MM = 30.0  # a slot this close to an arm is not read: the arm's edge and shadow flicker
TOUCH = 0.15  # a stack's top tile taken changes a tile-sized patch (~35 gate pixels) by
TOUCH_PIXELS = 9  # far more than this; the noise of a still wall stays under 0.1
ARM_PIXELS = 150  # an arm covers at least this much of the gate's view (~2,400 mm²)
REST_S = 1.0  # a changed blob most of which (REST_SHARE) has been still this long is at rest:
REST_SHARE = 0.75  # tiles just laid down, or an arm held still (a hover) …
FOREARM_MM = 50.0  # … which crosses the table's edge at least this wide, solidly (a stream's
# blocks round the new tiles, a standing hand's changed outline, join them to the edge thinly)
NEVER_READ = -5.0  # last_read below this: the slot was not read since the zone's reference
ZONES = ("river", "meld", "hand", "penalty", "wall")
_EDGE_PX = round((HALF - EDGE_MM) * GATE_SCALE)  # the depth of the border band, in gate pixels


@dataclass
class ZoneGate:
    box: tuple[int, int, int, int]
    reference: np.ndarray | None = None
    last_read: np.ndarray | None = None  # each slot as it was when last read (since accepted)


@dataclass
class Gate:
    settle_s: float = 0.1  # at 5 fps: read once a frame shows no motion on the slot
    zones: dict[tuple[str, str], ZoneGate] = field(default_factory=dict)
    previous: np.ndarray | None = None
    whole: np.ndarray | None = None  # the background: the table without arms
    still: np.ndarray | None = None  # since when each gate pixel has not moved
    calm_since: float | None = None
    first_seen: float | None = None
    occluder: np.ndarray | None = None
    # until ready: (t, the grey view, the colour view)
    first_views: list[tuple[float, np.ndarray, np.ndarray | None]] = field(default_factory=list)
    motion: float = MOTION  # set from the noise seen before reading starts
    noise: list[float] = field(default_factory=list)  # frame-to-frame, until ready
    # the colour view (the table's channels, each over its grey level), for arms only: its
    # background, since when each pixel has not changed in colour, its threshold and noise
    colour: np.ndarray | None = None
    colour_whole: np.ndarray | None = None
    colour_still: np.ndarray | None = None
    colour_motion: float = MOTION
    colour_noise: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        for seat in SEATS:
            for zone in ZONES:
                self.zones[(seat, zone)] = ZoneGate(pixel_box(zone_box(seat, zone), GATE_SCALE))

    def ready(self, view: np.ndarray, t: float, colour: np.ndarray | None = None) -> bool:
        """Whether reading may start: the table has been at rest for ``START_CALM_S`` (this
        frame included: the frame an arm enters is no background), or ``START_WAIT_S`` has
        passed. The background is then each pixel's median over the calm stretch, or over the
        whole wait on a busy table: arms come and go, so each pixel shows the table most of
        the time (an arm in the background would hide as the table)."""
        if self.whole is not None:
            return True
        if self.first_seen is None:
            self.first_seen = t
        prev = self.previous if self.previous is not None else view
        self.previous = view
        if prev is not view:  # the robust sigma of a still pixel's change (arms are few)
            self.noise.append(1.4826 * float(np.median(np.abs(view - prev))))
            self.motion = max(MOTION, NOISE_K * float(np.median(self.noise)))
        if colour is not None:
            if self.colour is not None:
                change = _colour_diff(colour, self.colour)
                self.colour_noise.append(1.4826 * float(np.median(change)))
                self.colour_motion = max(MOTION, NOISE_K * float(np.median(self.colour_noise)))
            self.colour = colour
        if len(self.first_views) < round(START_WAIT_S / 0.2) + 1 and (
            t - self.first_seen >= 0.2 * len(self.first_views) - 1e-6
        ):
            self.first_views.append((t, view, colour))  # 5 a second at most
        if (np.abs(view - prev) > self.motion).sum() >= ARM_PIXELS // 4 or self.calm_since is None:
            self.calm_since = t
        if t - self.calm_since >= START_CALM_S - 1e-6:
            seen = [(v, c) for s, v, c in self.first_views if s >= self.calm_since]
        elif t - self.first_seen >= START_WAIT_S - 1e-6:  # a busy table: start anyway
            seen = [(v, c) for _, v, c in self.first_views]
        else:
            return False
        self.whole = np.median(np.stack([*(v for v, _ in seen), view]), axis=0).astype(np.float32)
        if colour is not None:
            colours = [c for _, c in seen if c is not None]
            self.colour_whole = np.median(np.stack([*colours, colour]), axis=0).astype(np.float32)
        self.first_views = []
        return True

    def update(
        self, view: np.ndarray, t: float, colour: np.ndarray | None = None
    ) -> list[tuple[str, str]]:
        """Feed one gate view (and its colour view); the zones that changed since their last
        reading."""
        prev = self.previous if self.previous is not None else view
        moving = np.abs(view - prev) > self.motion
        self.previous = view
        if self.whole is None:
            self.whole = view.copy()
        if self.still is None:
            self.still = np.full(view.shape, t, np.float32)
        # the table as first seen slowly becomes the table as it is: what has not moved for
        # ABSORB_S (longer than any arm rests) is background, so a wrong start heals
        self.still[moving] = t
        calm = t - self.still >= ABSORB_S
        self.whole[calm] = view[calm]
        due: list[tuple[str, str]] = []
        for key, z in self.zones.items():
            x1, y1, x2, y2 = z.box
            if z.reference is None:  # never read: every slot is read (see changed_slots)
                due.append(key)
                continue
            # a zone read since its reference is due until accepted (see changed_slots)
            changed = _diff(view[y1:y2, x1:x2], z.reference) > self.motion
            changed = changed.sum() >= CHANGED_PIXELS
            if changed or z.last_read is not None:
                due.append(key)
        changed = np.abs(view - self.whole) > self.motion
        if colour is not None:
            changed |= self._colour_changed(colour, t)
        self.occluder = self._arms(changed, t)  # (not where it was)
        return due

    def _colour_changed(self, colour: np.ndarray, t: float) -> np.ndarray:
        """Where the colour view differs from its background: which, as the grey one, takes
        in what has not changed for ``ABSORB_S``."""
        prev = self.colour if self.colour is not None else colour
        if self.colour_whole is None:
            self.colour_whole = colour.copy()
        if self.colour_still is None:
            self.colour_still = np.full(colour.shape[:2], t, np.float32)
        self.colour = colour
        self.colour_still[_colour_diff(colour, prev) > self.colour_motion] = t
        calm = t - self.colour_still >= ABSORB_S
        self.colour_whole[calm] = colour[calm]
        changed: np.ndarray = _colour_diff(colour, self.colour_whole) > self.colour_motion
        return changed

    @property
    def touch(self) -> float:
        """A stack's top tile taken, above this camera's noise as ``TOUCH`` is above ours."""
        return TOUCH * self.motion / MOTION

    def touched(self, seat: str, zone: str, view: np.ndarray) -> bool:
        """Whether a zone differs clearly from its last reading (``TOUCH``), not by noise:
        a wall whose stacks all still stand is reported only so (it times a draw)."""
        z = self.zones[(seat, zone)]
        if z.reference is None:
            return False
        x1, y1, x2, y2 = z.box
        return int((_diff(view[y1:y2, x1:x2], z.reference) > self.touch).sum()) >= TOUCH_PIXELS

    def accept(self, key: tuple[str, str], view: np.ndarray) -> None:
        """The zone was read: its reference is now."""
        z = self.zones[key]
        x1, y1, x2, y2 = z.box
        z.reference = view[y1:y2, x1:x2].copy()
        z.last_read = None
        if self.whole is not None:
            self.whole[y1:y2, x1:x2] = z.reference
        if self.colour_whole is not None and self.colour is not None:
            self.colour_whole[y1:y2, x1:x2] = self.colour[y1:y2, x1:x2]

    def _arms(self, changed: np.ndarray, t: float) -> np.ndarray:
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
        border = np.zeros(mask.shape, bool)
        e = _EDGE_PX
        border[:e], border[-e:], border[:, :e], border[:, -e:] = True, True, True, True
        arms = np.unique(labels[border & (mask > 0)])
        # an arm is its blob's convex hull: a sleeve about as bright as the felt differs only
        # at its outline, its hand and over tiles (blobs of their own, too small for an arm)
        out = np.zeros(mask.shape, np.uint8)
        # a blob at rest is an arm only where it crosses the edge as a forearm does: as wide,
        # and solidly (changed pixels a 20 mm square fits in; a stream's blocks are thinner)
        assert self.still is not None
        moved = (
            self.still if self.colour_still is None else np.maximum(self.still, self.colour_still)
        )
        solid = cv2.morphologyEx(
            changed.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)
        )
        forearm = round(FOREARM_MM * GATE_SCALE) * _EDGE_PX
        for arm in arms[arms > 0]:
            blob = labels == arm
            at_rest = (t - moved[blob & (opened > 0)] >= REST_S).mean() >= REST_SHARE
            if at_rest and (blob & border & (solid > 0)).sum() < forearm:
                continue  # tiles laid down by the edge, joined to it by a thin change
            cv2.fillConvexPoly(out, cv2.convexHull(cv2.findNonZero(blob.astype(np.uint8))), 1)
        near = 2 * round(NEAR_MM * GATE_SCALE) + 1
        hidden: np.ndarray = cv2.dilate(out, np.ones((near, near), np.uint8)) > 0
        return hidden

    def changed_slots(self, seat: str, zone: str, view: np.ndarray) -> set[int]:
        """Slots of a zone whose gate pixels differ from the zone's last reading or, for a
        slot read since, from how it looked when last read (a slot read as it is now needs no
        new reading; one read under an arm the gate missed is read again once it has gone, even
        though the zone then looks as it did at its last reading)."""
        z = self.zones[(seat, zone)]
        if z.reference is None:
            return set(range(SLOT_COUNTS[zone]))
        x1, y1, x2, y2 = z.box
        now = view[y1:y2, x1:x2]
        diff = _diff(now, z.reference) > self.motion
        if z.last_read is not None:
            read = z.last_read > NEVER_READ
            diff = np.where(read, np.abs(now - z.last_read) > self.motion, diff)
        out: set[int] = set()
        for i in range(SLOT_COUNTS[zone]):
            u1, v1, u2, v2 = _slot_box(seat, zone, i)
            if diff[v1 - y1 : v2 - y1, u1 - x1 : u2 - x1].any():
                out.add(i)
        return out

    def read(self, seat: str, zone: str, view: np.ndarray, slots: set[int]) -> None:
        """These slots of a zone were read as they look now."""
        z = self.zones[(seat, zone)]
        x1, y1, x2, y2 = z.box
        if z.last_read is None:
            z.last_read = np.full((y2 - y1, x2 - x1), 2 * NEVER_READ, np.float32)
        for i in slots:
            u1, v1, u2, v2 = _slot_box(seat, zone, i)
            z.last_read[v1 - y1 : v2 - y1, u1 - x1 : u2 - x1] = view[v1:v2, u1:u2]

    def moving(self, seat: str, zone: str, t: float) -> set[int]:
        """Slots of a zone where something moved in the last ``settle_s``."""
        if self.still is None:
            return set(range(SLOT_COUNTS[zone]))
        out: set[int] = set()
        for i in range(SLOT_COUNTS[zone]):
            x1, y1, x2, y2 = _slot_box(seat, zone, i)
            if t - float(self.still[y1:y2, x1:x2].max()) < self.settle_s:
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


def _diff(now: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """How a zone differs from its reference, its overall brightness aside (the light drifts
    slowly and unevenly; a tile put or taken changes a part of the zone, not all of it)."""
    gain = float(np.median(reference)) / max(float(np.median(now)), 1e-3)
    out: np.ndarray = np.abs(now * gain - reference)
    return out


def _colour_diff(now: np.ndarray, before: np.ndarray) -> np.ndarray:
    """Each pixel's largest change over the colour channels (numpy's max over a 3-wide last
    axis costs 20 times as much: it was a third of the 1080p pipeline's time)."""
    d = cv2.absdiff(now, before)
    out: np.ndarray = np.maximum(np.maximum(d[..., 0], d[..., 1]), d[..., 2])
    return out


@functools.cache
def _slot_box(seat: str, zone: str, index: int) -> tuple[int, int, int, int]:
    s = slot(seat, zone, index)
    return pixel_box((s.x - s.w / 2, s.y - s.h / 2, s.x + s.w / 2, s.y + s.h / 2), GATE_SCALE)
