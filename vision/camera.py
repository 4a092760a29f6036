"""The overhead camera pipeline: frame → calibration → gate → zone reading → stabiliser →
observations (``referee.fusion.ZoneSeen``) for the core.

Only zones the gate marks are read; a read zone is warped from the frame at 2 px/mm, each slot
is tested for a tile (against the felt's colour, measured at calibration), turned upright, and
the tiles that need a name go to the crop classifier in one batch, upright: a face unsure is
read at its other quarter turns too, and they count only for faces alike turned (a river's 9m
of the demo's text faces read 9m 0.70 upright, 6m 0.64-0.66 at each other turn: a 6m averaged).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np
from PIL import Image

from referee.fusion import SlotSeen, ZoneSeen
from referee.hands import Wind
from referee.tiles import Tile, parse_tile
from vision.calibrate import (
    MARKER_CENTRES,
    MARKER_MM,
    MARKER_WHITE_MM,
    MOVED_PX,
    Calibration,
    calibrate,
    drift_px,
)
from vision.classes import BACK, class_label
from vision.detect import TileRecognizer, tile_crop
from vision.gate import GATE_SCALE, Gate
from vision.slot_test import SlotPixels, SlotTest
from vision.stabilise import Alternatives, Reading, Stabiliser
from vision.zones import (
    SEATS,
    SLOT_COUNTS,
    TILE_H,
    TILE_W,
    Slot,
    pixel_box,
    plane_to_mm,
    slot,
    to_pixel,
    zone_box,
)

READ_SCALE = 2.0  # px per mm of a zone read for naming
MARGIN_MM = 6.0  # around a slot: a tile's face seems shifted by its height (parallax)
DRIFT_EVERY_S = 2.0
LYING_MM = 18.0  # a face this deep lies flat (35 mm); a standing tile's top shows ~10 mm
BACK_IVORY = 0.1  # a tile with less ivory face than this is a back (else the classifier says:
# a face's big glyph and the tile's pale side put faces and backs both at 0.25-0.4), unless a
# venue profile enrolled from this camera knows the venue's backs: a 1p's red ring fills its face
FACE_SHARE = 0.7  # a row of a face is this bright beside the cell's brightest row …
FACE_HUE = 0.08  # … and this near its colour (chromaticity, L1; a coloured back is 0.2+ off)
FACE_ASPECT = 1.12  # a meld face this much wider than tall lies sideways (35 × 26 mm: 1.35),
FACE_FIT = 0.2  # when its outline is a face's size within this share
# the levels a meld face's outline is cut at, in turn, until one is a face's size: a lying
# tile's side, which a tilted camera sees beside its face, is lit less than the face, and at
# the first level it passed for face (on the parlour's dark felt a sideways tile came out as
# tall as wide, and the claims of its melds were read from the wrong seat)
FACE_LEVELS = (0.5, 0.6, 0.7)
ALONE_SLACK_MM = 2.0  # a face's outline may sit this far beside its slot, or be this much
# over a face's size (parallax, perspective), in a zone whose faces abut
# the zones whose tiles abut their neighbours (across, along): a laid-down hand side by side,
# a river in rows as well (27 × 36 mm slots for 26 × 35 mm tiles: the felt between is no gap
# a face's outline stops at)
ABUTTING = {"hand": (True, False), "river": (True, True)}
FACE_LINE = 0.35  # a row or column of a face has this share of bright pixels …
FELT_LINE = 0.1  # … and one of the felt between two tiles less than this …
FELT_GAP_PX = 2  # … over at least this many lines (px at READ_SCALE)
RUNNERS_UP = 6  # a named tile's alternatives kept for the core (what else it might be) …
RUNNER_UP_P = 0.005  # … each at least this likely
STILL_SCALE = 1.0  # px per mm of the rectified table kept as a still at a settled change
WHITE_OVER_FELT = 1.4  # the paper round the markers is this much brighter than the felt
COLOUR_BLUR = 2.0  # the colour view's blur (gate pixels, 8 mm; a sleeve is 60-100 mm wide)
HOLD_S = 2.0  # a seat's river change waits at most this long for its meld to be read
LIGHT_BAND = 1.25  # the felt's grey level is followed among the levels this near it


@dataclass
class Notice:
    ts: float
    kind: str  # "calibrated", "moved", "no_markers"
    message: str


@dataclass
class TableReader:
    recognizer: TileRecognizer
    calibration: Calibration | None = None
    gate: Gate = field(default_factory=Gate)
    stabiliser: Stabiliser = field(default_factory=Stabiliser)
    notices: list[Notice] = field(default_factory=list)
    felt: np.ndarray | None = None
    balance: np.ndarray | None = None  # per-channel gains from the markers' white paper
    level: float | None = None  # the felt's grey level when it was measured …
    light: float = 1.0  # … and the light now against then (a venue's light drifts)
    last_drift: float = -1e9
    reads: int = 0  # slots classified (the cost the gate saves)
    unsettled: set[tuple[str, str]] = field(default_factory=set)
    held: dict[str, float] = field(default_factory=dict)  # seat → since when its river waits
    hidden: set[str] = field(default_factory=set)  # slot keys under an arm in the last frame
    # called with (t, the rectified table as RGB) at each settled change (the rig keeps stills)
    on_settled: Callable[[float, np.ndarray], None] | None = None
    fitted_test: SlotTest | None = None  # the tile test fitted on an enrolment clip's plan

    @property
    def slot_test(self) -> SlotTest:
        """The tile test's thresholds: fitted on this clip (enrolment), else the venue
        profile's (enrolled from this camera), else the defaults."""
        if self.fitted_test is not None:
            return self.fitted_test
        profile = self.recognizer.profile
        return profile.slot_test if profile is not None else SlotTest()

    def process(self, frame: np.ndarray, t: float, number: int = 0) -> list[ZoneSeen]:
        """One RGB frame at time ``t``: the zones whose committed state changed."""
        if not self._calibrated(frame, t):
            return []
        assert self.calibration is not None
        grey, colour = self._table_views(frame)
        self._follow_light(grey)
        level = max(float(np.median(grey)), 1.0)
        view = grey / level  # the gate compares shapes, not light
        colour /= level
        out: list[ZoneSeen] = []
        for key in self.hidden:  # occlusion is a state of now: cleared, then set again
            self.stabiliser.occlude(key, False)
        self.hidden = set()
        if not self.gate.ready(view, t, colour):
            return []
        changed_zones = self.gate.update(view, t, colour)
        due = changed_zones + [z for z in sorted(self.unsettled) if z not in changed_zones]
        for seat, zone in due:
            hidden = self.gate.occluded(seat, zone)
            keys = [f"{seat}/{zone}/{i}" for i in range(SLOT_COUNTS[zone])]
            for i in hidden:
                self.stabiliser.occlude(keys[i], True)
                self.hidden.add(keys[i])
            waiting = {i for i, key in enumerate(keys) if self.stabiliser.state(key).pending}
            wanted = (self.gate.changed_slots(seat, zone, view) | waiting) - hidden
            moving = wanted & self.gate.moving(seat, zone, t)  # read once it has settled
            changed, pending = self._read_zone(frame, seat, zone, wanted - moving)
            self.gate.read(seat, zone, view, wanted - moving)
            pending |= bool(moving)
            # a wall that changed clearly and settled is reported even when no stack is gone
            # yet: the top tile of a stack was taken, and that times the draw (a wall changed
            # by noise alone would time a draw never made: a discard then no longer waits for
            # the claim seen after it; the slots near an arm are hidden)
            touched = not (pending or hidden) and (seat, zone) in changed_zones
            touched = touched and zone == "wall" and self.gate.touched(seat, zone, view)
            if pending:
                self.unsettled.add((seat, zone))  # read again next frame, changed or not
            else:
                self.unsettled.discard((seat, zone))
                if not hidden:  # an arm's zone is read again once it has gone
                    self.gate.accept((seat, zone), view)
            if changed or touched:
                out.append(self._seen(seat, zone, t, number))
        out = self._meld_first(out, t, number)
        if out and self.on_settled is not None:
            self.on_settled(t, self.rectified(frame))
        return out

    def _meld_first(self, seen: list[ZoneSeen], t: float, number: int) -> list[ZoneSeen]:
        """A claim lays the meld, then the discard. A seat's river change waits (up to HOLD_S)
        while its meld is still being read: else the discard is taken for a turn's draw and
        discard, and the meld seen a frame later has no discard left to claim."""
        out = []
        for zone_seen in seen:
            seat = SEATS[zone_seen.seat]
            if zone_seen.zone == "river" and (seat, "meld") in self.unsettled:
                self.held.setdefault(seat, t)
            else:
                out.append(zone_seen)
        for seat, since in list(self.held.items()):
            if (seat, "meld") not in self.unsettled or t - since >= HOLD_S:
                del self.held[seat]
                out.append(self._seen(seat, "river", t, number))
        return out

    def name(self, named: Iterable[tuple[Wind, str, int, Tile, bool]]) -> None:
        """Slots whose tile the record named (``Fusion.take_named``): the table state shows
        the tile the rules took (and its sideways mark), not a misreading set aside."""
        for wind, zone, index, tile, sideways in named:
            self.stabiliser.name(f"{SEATS[wind]}/{zone}/{index}", (class_label(tile), sideways))

    def rectified(self, frame: np.ndarray, scale: float = STILL_SCALE) -> np.ndarray:
        """The whole table seen from straight above, East at the bottom."""
        from vision.zones import HALF

        return self._warp(frame, (-HALF, -HALF, HALF, HALF), scale)

    # ---- calibration -------------------------------------------------------------------------
    def _calibrated(self, frame: np.ndarray, t: float) -> bool:
        if self.calibration is None:
            try:
                self.calibration = calibrate(frame)
            except ValueError as exc:
                last = self.notices[-1] if self.notices else None
                if last is None or (last.kind, last.message) != ("no_markers", str(exc)):
                    self.notices.append(Notice(t, "no_markers", str(exc)))  # once, not a frame
                return False
            self.notices.append(Notice(t, "calibrated", f"{self.calibration.error_px:.2f} px"))
            self.last_drift = t
        elif t - self.last_drift >= DRIFT_EVERY_S:
            self.last_drift = t
            drift = drift_px(self.calibration, frame)
            if drift is not None and drift > MOVED_PX:
                try:
                    self.calibration = calibrate(frame)
                except ValueError:
                    return True  # too few markers to redo it now: keep the old one
                self.notices.append(
                    Notice(
                        t,
                        "moved",
                        f"markers moved {drift:.1f} px: "
                        f"recalibrated ({self.calibration.error_px:.2f} px)",
                    )
                )
                self.gate = Gate(self.gate.settle_s)
        if self.felt is None:
            self.balance = self._white_balance(frame)
            self.felt = self._felt(frame)
        return True

    def _warp(
        self, frame: np.ndarray, box: tuple[float, float, float, float], scale: float
    ) -> np.ndarray:
        """The table-frame box, rectified at ``scale`` px/mm (East at the bottom)."""
        assert self.calibration is not None
        x1, y1, x2, y2 = pixel_box(box, scale)
        shift = np.array([[1, 0, x1], [0, 1, y1], [0, 0, 1]], np.float64)
        m = self.calibration.image_from_table @ plane_to_mm(scale) @ shift
        out: np.ndarray = cv2.warpPerspective(
            frame, m, (x2 - x1, y2 - y1), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        )
        if self.balance is not None:
            out = np.clip(out * self.balance, 0, 255).astype(np.uint8)
        return out

    def _white_balance(self, frame: np.ndarray) -> np.ndarray | None:
        """Per-channel gains that make the marker sheets' white paper grey: a venue's warm or
        cold light otherwise tints the tiles' faces (an ivory face under a warm lamp is read as
        no face), and the classifier learnt faces under white light. The light's level is
        left: every threshold is relative to the felt. A sheet is white where it is
        WHITE_OVER_FELT × the felt beside it (a light that falls off towards the corners dims
        both: the lodge's paper was 1.17 × the felt at the table's centre, 1.7 × its own).
        None where no white shows round the markers (a calibration by hand, markers covered)."""
        paper: list[np.ndarray] = []
        inner, outer = MARKER_MM / 2 + 3, MARKER_WHITE_MM / 2 - 3
        beyond = MARKER_WHITE_MM / 2 + 15  # the felt round the sheet, clear of its edge
        for x, y in MARKER_CENTRES.values():
            box = self._warp(frame, (x - beyond, y - beyond, x + beyond, y + beyond), 1.0)
            yy, xx = np.mgrid[0 : box.shape[0], 0 : box.shape[1]] - (box.shape[0] - 1) / 2
            ring = np.maximum(abs(xx), abs(yy))
            white = box[(ring >= inner) & (ring <= outer)]
            felt = np.median(box[ring >= MARKER_WHITE_MM / 2 + 4].sum(1))
            if np.median(white.sum(1)) >= WHITE_OVER_FELT * felt:
                paper.append(white)
        if not paper:
            return None
        white = np.median(np.concatenate(paper), axis=0).astype(np.float32)
        if white.min() < 1:
            return None
        gains: np.ndarray = np.clip(white.mean() / white, 0.5, 2.0)
        return gains

    def _table_views(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The table from above, small, in grey (the gate's view and the light's) and in
        colour, white-balanced, for the gate's arms: the colours of a sleeve and of a felt as
        bright differ, but barely past each pixel's noise (a stream's coarse colour), so that
        view is blurred (over a tenth of a sleeve's width). One warp makes both: the frame's
        resize is the pipeline's largest cost."""
        warped = self._gate_warp(frame)
        grey: np.ndarray = cv2.GaussianBlur(  # sensor noise is not motion
            cv2.cvtColor(warped, cv2.COLOR_RGB2GRAY), (3, 3), 0.8
        )
        if self.balance is not None:
            warped *= self.balance
        colour: np.ndarray = cv2.GaussianBlur(warped, (7, 7), COLOUR_BLUR)
        return grey, colour

    def _gate_warp(self, frame: np.ndarray) -> np.ndarray:
        """The frame on the gate's view of the table."""
        factor = max(1, frame.shape[0] // 360)
        size = (frame.shape[1] // factor, frame.shape[0] // factor)
        small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        assert self.calibration is not None
        scaled = np.diag([1 / factor, 1 / factor, 1.0]) @ self.calibration.image_from_table
        warped: np.ndarray = cv2.warpPerspective(
            small,
            scaled @ plane_to_mm(GATE_SCALE),
            (round(1200 * GATE_SCALE),) * 2,
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        ).astype(np.float32)
        return warped

    def _follow_light(self, grey: np.ndarray) -> None:
        """The light now against when the felt was measured, from the grey levels near the
        felt's (tiles, arms and the rim are far from it, and come and go): a venue's light
        drifts, and a face on a light felt is only ~1.5 × the felt. Kept where the felt hardly
        shows."""
        ref = self.level * self.light if self.level else float(np.median(grey))
        near = grey[(grey > ref / LIGHT_BAND) & (grey < ref * LIGHT_BAND)]
        if near.size < grey.size // 5:
            return
        now = float(np.median(near))
        self.level = self.level or now
        self.light = now / self.level

    def _felt_now(self) -> np.ndarray:
        """The felt as measured, in the light now."""
        assert self.felt is not None
        now: np.ndarray = self.felt * self.light
        return now

    def _felt(self, frame: np.ndarray) -> np.ndarray:
        centre = self._warp(frame, (-80.0, -80.0, 80.0, 80.0), 1.0).reshape(-1, 3)
        felt: np.ndarray = np.median(centre, axis=0).astype(np.float32)
        return felt

    # ---- reading -----------------------------------------------------------------------------
    def _read_zone(
        self, frame: np.ndarray, seat: str, zone: str, todo: set[int]
    ) -> tuple[bool, bool]:
        """Read the slots ``todo`` (changed, not under an arm); (a slot changed, one pending)."""
        if not todo:
            return False, False
        readings: dict[int, Reading] = {}
        confs: dict[int, float] = {}
        alternatives: dict[int, Alternatives] = {}
        to_name: list[tuple[int, Image.Image, bool]] = []
        for i, s, cell in self._cells(frame, seat, zone, sorted(todo)):
            occupied, ivory, sideways = self._occupancy(cell, s, zone)
            if not occupied:
                readings[i], confs[i] = ("empty", False), 1.0
            elif zone == "wall":
                readings[i], confs[i] = ("back", False), 1.0
            elif zone == "hand" and _face_depth(cell, s) < LYING_MM:
                readings[i], confs[i] = ("empty", False), 1.0  # standing: not named here
            elif ivory < BACK_IVORY and not self.recognizer.knows_backs:
                readings[i], confs[i] = ("back", sideways), 1.0
            else:
                to_name.append((i, _upright(cell, s, sideways), sideways))
        if to_name:
            crops = self._crops([img for _, img, _ in to_name], zone)
            probs = self.recognizer.classify_crops(crops, upright=True)
            self.reads += len(crops)
            for (i, _, sideways), p in zip(to_name, probs, strict=True):
                cls = int(p.argmax())
                label = "back" if cls == BACK else class_label(cls)
                readings[i], confs[i] = (label, sideways), float(p.max())
                alternatives[i] = _runners_up(p, cls)
        changed = pending = False
        for i, reading in readings.items():
            key = f"{seat}/{zone}/{i}"
            changed |= self.stabiliser.see(key, reading, confs[i], alternatives.get(i, ()))
            pending |= self.stabiliser.state(key).pending
        return changed, pending

    def _cells(
        self, frame: np.ndarray, seat: str, zone: str, indices: Iterable[int]
    ) -> Iterator[tuple[int, Slot, np.ndarray]]:
        """Each slot's cell of the zone, rectified at READ_SCALE with a margin for parallax."""
        box = zone_box(seat, zone, MARGIN_MM + 2)
        patch = self._warp(frame, box, READ_SCALE).astype(np.float32)
        ox, oy = to_pixel(box[0], box[3], READ_SCALE)
        for i in indices:
            s = slot(seat, zone, i)
            yield i, s, _cell(patch, s, ox, oy)

    def _crops(self, faces: list[Image.Image], zone: str) -> list[Image.Image]:
        """Upright faces as the classifier is given them: alone on the felt, cut square."""
        felt = self._felt_now()
        boxed = [_alone(img, felt, ABUTTING.get(zone, (False, False))) for img in faces]
        return [tile_crop(img, box, self.recognizer.crop) for img, box in boxed]

    def face_crops(
        self, frame: np.ndarray, t: float, keys: Iterable[str]
    ) -> dict[str, Image.Image]:
        """The crop the classifier is given of each slot ``SEAT/ZONE/I`` that a tile lies in,
        face up and upright, in this frame (none before the markers are found): what a venue's
        enrolment from its own camera learns its faces from (vision/enrol_camera.py)."""
        if not self._calibrated(frame, t):
            return {}
        out: dict[str, Image.Image] = {}
        for zone, cells in self._keyed_cells(frame, keys):
            faces: dict[str, Image.Image] = {}
            for s, cell in cells:
                occupied, _, sideways = self._occupancy(cell, s, zone)
                if occupied:
                    faces[s.key] = _upright(cell, s, sideways)
            out.update(zip(faces, self._crops(list(faces.values()), zone), strict=True))
        return out

    def tile_tests(
        self, frame: np.ndarray, keys: Iterable[str]
    ) -> dict[str, tuple[bool, SlotPixels]]:
        """Each slot ``SEAT/ZONE/I``: whether the tile test finds a tile in it, and the pixels
        of its middle as the test sees them (what enrolment fits the test on). Calibrated
        readers only."""
        return {
            s.key: (self._occupancy(cell, s, zone)[0], self._slot_pixels(cell, inner=True))
            for zone, cells in self._keyed_cells(frame, keys)
            for s, cell in cells
        }

    def _keyed_cells(
        self, frame: np.ndarray, keys: Iterable[str]
    ) -> Iterator[tuple[str, list[tuple[Slot, np.ndarray]]]]:
        """The cells of the slots ``keys``, zone by zone (one warp a zone)."""
        by_zone: dict[tuple[str, str], list[int]] = {}
        for key in keys:
            seat, zone, index = key.split("/")
            by_zone.setdefault((seat, zone), []).append(int(index))
        for (seat, zone), indices in by_zone.items():
            yield zone, [(s, cell) for _, s, cell in self._cells(frame, seat, zone, indices)]

    def _slot_pixels(self, cell: np.ndarray, inner: bool = False) -> SlotPixels:
        """A slot's cell at 1 px/mm (every other pixel), as the tile test sees it against the
        felt in the light now; ``inner``: only the middle a lying tile fills."""
        c = cell[::2, ::2]
        if inner:
            c = c[_inner(c.shape)]
        felt = self._felt_now()
        felt_sum = float(felt.sum()) + 1.0
        total = c.sum(2) + 1.0
        chroma = np.abs(c / total[..., None] - felt / felt_sum).sum(2)
        return SlotPixels(chroma, total / felt_sum)

    def _occupancy(self, cell: np.ndarray, s: Slot, zone: str) -> tuple[bool, float, bool]:
        """(a tile lies here, the share of its pixels that are ivory face, it lies sideways);
        judged at 1 px/mm (every other pixel of the cell)."""
        c = cell[::2, ::2]
        px = self._slot_pixels(cell)
        test = self.slot_test
        tile = test.tile(px.chroma, px.bright) | _framed(px.bright > test.frame)
        top = c.max(2)
        ivory = (px.bright > test.pale) & (top - c.min(2) < 0.35 * top + 1)
        m = round(MARGIN_MM)
        inner = tile[_inner(tile.shape)]
        filled = float(inner.mean()) if inner.size else 0.0
        h, w = tile.shape
        share = float(ivory[m : h - m, m : w - m].mean()) / max(filled, 1e-3)
        sideways = False
        if zone == "meld" and filled > 0.45:
            # the face's own outline first: a sideways tile's face is wider than tall (the
            # tile mask below also takes in its side, and on a felt near the side's colour or
            # at a corner the lens bends, it took in half the cell)
            img = _upright(cell, s, False)
            for level in FACE_LEVELS:
                x0, y0, x1, y1 = _face_box(img, level)
                long, short = sorted((x1 - x0, y1 - y0), reverse=True)
                face = abs(long / READ_SCALE / TILE_H - 1) <= FACE_FIT  # a face's outline, not
                face &= abs(short / READ_SCALE / TILE_W - 1) <= FACE_FIT  # a glyph's or a side's
                if face and long / max(short, 1.0) >= FACE_ASPECT:
                    return True, min(share, 1.0), x1 - x0 > y1 - y0
            upright = _turn_back(tile, s, False)
            uh, uw = upright.shape
            edge = 6
            cols = upright[m + edge : uh - m - edge, m : m + edge].mean()
            cols += upright[m + edge : uh - m - edge, uw - m - edge : uw - m].mean()
            rows = upright[m : m + edge, m + edge : uw - m - edge].mean()
            rows += upright[uh - m - edge : uh - m, m + edge : uw - m - edge].mean()
            sideways = bool(cols > rows + 0.3)
        return filled > 0.45, min(share, 1.0), sideways

    def _seen(self, seat: str, zone: str, t: float, number: int) -> ZoneSeen:
        slots: list[SlotSeen] = []
        count = 0
        for i in range(SLOT_COUNTS[zone]):
            st = self.stabiliser.state(f"{seat}/{zone}/{i}")
            label, sideways = st.reading
            if label == "empty":
                continue
            count += 1
            tile = None if label == "back" else parse_tile(_referee_name(label))
            others = tuple((parse_tile(_referee_name(a)), p) for a, p in st.alternatives)
            slots.append(SlotSeen(i, tile, sideways, st.confidence, others))
        wind = Wind(SEATS.index(seat))
        if zone == "wall":
            return ZoneSeen(t, wind, zone, (), count, f"frame:{number}")
        return ZoneSeen(t, wind, zone, tuple(slots), None, f"frame:{number}")

    def overlay(self, frame: np.ndarray, scale: float = 0.6) -> np.ndarray:
        """The rectified table with every slot drawn: green a tile, red under an arm, yellow
        still being confirmed; its name beside it (for ``mjref vision run --show``)."""
        from vision.zones import HALF, all_slots

        view = self._warp(frame, (-HALF, -HALF, HALF, HALF), scale).copy()
        for s in all_slots():
            st = self.stabiliser.state(s.key)
            colour = (255, 60, 60) if st.occluded else (255, 220, 0) if st.pending else (0, 200, 0)
            if st.reading[0] == "empty" and not st.occluded and not st.pending:
                continue
            x1, y1 = to_pixel(s.x - s.w / 2, s.y + s.h / 2, scale)
            x2, y2 = to_pixel(s.x + s.w / 2, s.y - s.h / 2, scale)
            cv2.rectangle(view, (round(x1), round(y1)), (round(x2), round(y2)), colour, 1)
            if s.zone != "wall":
                cv2.putText(
                    view,
                    st.reading[0],
                    (round(x1), round(y1) - 2),
                    cv2.FONT_HERSHEY_PLAIN,
                    0.7,
                    colour,
                    1,
                )
        return view

    def slot_labels(self) -> dict[str, str]:
        """Every committed lying tile by slot key (``^`` marks a sideways tile)."""
        out: dict[str, str] = {}
        for key, st in self.stabiliser.slots.items():
            label, sideways = st.reading
            if label != "empty" and "/wall/" not in key:
                out[key] = _referee_name(label) + ("^" if sideways else "")
        return out


def _runners_up(probs: np.ndarray, best: int) -> Alternatives:
    """The tiles a crop might be besides its best reading (backs aside: a back is no tile)."""
    order = [int(c) for c in np.argsort(probs)[::-1] if c not in (best, BACK)]
    return tuple(
        (class_label(c), round(float(probs[c]), 4))
        for c in order[:RUNNERS_UP]
        if probs[c] >= RUNNER_UP_P
    )


def _referee_name(label: str) -> str:
    return f"{label[1]}f" if label.startswith("f") else label


def _cell(patch: np.ndarray, s: Slot, ox: float, oy: float) -> np.ndarray:
    u, v = to_pixel(s.x, s.y, READ_SCALE)
    hw, hh = (s.w / 2 + MARGIN_MM) * READ_SCALE, (s.h / 2 + MARGIN_MM) * READ_SCALE
    x1, y1 = round(u - ox - hw), round(v - oy - hh)
    return patch[max(0, y1) : y1 + round(2 * hh), max(0, x1) : x1 + round(2 * hw)]


def _turn_back(a: np.ndarray, s: Slot, sideways: bool) -> np.ndarray:
    out: np.ndarray = np.rot90(a, -(round(s.angle / 90) + (1 if sideways else 0)) % 4)
    return out


def _upright(cell: np.ndarray, s: Slot, sideways: bool) -> Image.Image:
    arr = np.ascontiguousarray(_turn_back(cell, s, sideways))
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))


def _face_depth(cell: np.ndarray, s: Slot) -> float:
    """How deep (mm, towards the table centre) the bright face in a hand slot reaches: its
    rows about as bright as the brightest (each row by its 75th percentile across the tile,
    so a glyph's strokes do not darken it), and of its colour. A standing tile seen askew shows
    a long side below its top, but that side is in shade (~0.6 of the face): halfway between
    the felt and the face it passed for a face on a dark felt, and the standing hand read as
    tiles. A camera further off shows the back below the top too, which, pale blue or yellow,
    is as bright as a face, but not of its colour."""
    upright = _turn_back(cell.astype(np.float32), s, False)
    m = round(MARGIN_MM * READ_SCALE) + 2
    upright = upright[:, m : upright.shape[1] - m]
    total = upright.sum(2)
    rows = np.percentile(total, 75, axis=1)
    top = (total >= rows[:, None])[..., None]  # each row's brightest pixels: no glyph strokes
    colours = (upright / (total[..., None] + 1.0) * top).sum(1) / top.sum(1)  # their chromaticity
    brightest = int(rows.argmax())
    face = rows > FACE_SHARE * float(rows[brightest])
    face &= np.abs(colours - colours[brightest]).sum(1) < FACE_HUE
    return float(face.sum()) / READ_SCALE


def _alone(
    img: Image.Image, felt: np.ndarray, abut: tuple[bool, bool]
) -> tuple[Image.Image, tuple[float, float, float, float]]:
    """A tile as the classifier learnt tiles, alone on the felt: what lies beyond its face is
    painted felt. A meld's tile beside a sideways one shows a sliver of its neighbour's face in
    its cell (a 4s beside a 6s read as a 6s); a laid-down hand's neighbours abut it, and a
    river's in its row and the rows before and after (``abut``: across, along the tile), so
    their faces run into one outline, of which one face's length is kept (a 2 beside a 3 read
    as a 3; a river's 9m, its face cut square with its neighbour's, read as a 6m)."""
    x0, y0, x1, y1 = _face_box(img)
    if abut[0]:
        x0, x1 = _one_face(x0, x1, img.width, TILE_W)
    if abut[1]:
        y0, y1 = _one_face(y0, y1, img.height, TILE_H)
    arr = np.array(img)
    paint = felt.astype(np.uint8)
    arr[:, : round(x0)] = paint
    arr[:, round(x1) :] = paint
    arr[: round(y0)] = paint
    arr[round(y1) :] = paint
    return Image.fromarray(arr), (x0, y0, x1, y1)


def _one_face(lo: float, hi: float, cell: int, face_mm: float) -> tuple[float, float]:
    """Of an outline ``[lo, hi)`` across a cell where faces abut, one face's. An outline longer
    than a face holds a neighbour's: run off the cell on one side, its other end is the face's
    own edge, and a face's length from there is kept, wherever parallax put it (a low camera
    shifts a lying face ~5 mm off its slot: cut at the slot, a river's 7p lost its last dots
    and was not read); else the slot and a little parallax. One all beside the slot is a
    neighbour's alone: the slot is kept."""
    face, slack = face_mm * READ_SCALE, ALONE_SLACK_MM * READ_SCALE
    m = (MARGIN_MM - ALONE_SLACK_MM) * READ_SCALE
    slot_lo, slot_hi = m, cell - m  # the slot and a little parallax
    off_lo, off_hi = lo < slack, hi > cell - slack  # the outline runs off the cell there
    if hi - lo <= face + slack:
        keep = lo, hi
    elif off_lo and not off_hi:
        keep = hi - face, hi
    elif off_hi and not off_lo:
        keep = lo, lo + face
    else:
        keep = max(lo, slot_lo), min(hi, slot_hi)
    if keep[1] <= slot_lo + slack or keep[0] >= slot_hi - slack:
        return slot_lo, slot_hi
    return keep


def _face_box(img: Image.Image, level: float = 0.5) -> tuple[float, float, float, float]:
    """The bright face inside a slot's cell (the cell is larger, for parallax): the face about
    the cell's centre, a neighbour's beyond a strip of felt left out. Bright: over ``level``
    of the way from the cell's darkest to its brightest."""
    arr = np.asarray(img, dtype=np.float32).sum(2)
    bright = arr > arr.min() + level * (arr.max() - arr.min())
    cols = _face_lines(bright.mean(0))
    rows = _face_lines(bright[:, cols[0] : cols[-1] + 1].mean(1)) if cols.size else cols
    if rows.size < 4 or cols.size < 4:
        return 0.0, 0.0, float(img.width), float(img.height)
    return float(cols[0]), float(rows[0]), float(cols[-1] + 1), float(rows[-1] + 1)


def _face_lines(share: np.ndarray) -> np.ndarray:
    """The lines (columns or rows, by their share of bright pixels) of the face at the cell's
    centre: those over FACE_LINE in the stretch between two strips of felt (FELT_GAP_PX lines
    or more, each under FELT_LINE) that holds the centre, or else in the widest stretch."""
    felt = np.zeros(share.size, dtype=bool)
    for a, b in _runs(share < FELT_LINE):
        felt[a:b] = b - a >= FELT_GAP_PX
    stretches = _runs(~felt)
    if not stretches:
        return np.flatnonzero(share > FACE_LINE)
    middle = share.size // 2
    widest = max(stretches, key=lambda r: r[1] - r[0])
    lo, hi = next(((a, b) for a, b in stretches if a <= middle < b), widest)
    return lo + np.flatnonzero(share[lo:hi] > FACE_LINE)


def _framed(pale: np.ndarray) -> np.ndarray:
    """``pale`` with what it encloses: a face is a pale frame round its glyph. On a light felt,
    once the light has dimmed since the felt was measured, a white face is under the default
    tile test's 1.6 × the felt and its blurred glyph as grey as the felt: the hall look's river
    faces filled 0.29–0.41 of their cells, under a tile's 0.45."""
    closed = cv2.morphologyEx(pale.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    outside = np.pad(closed, 1)
    cv2.floodFill(outside, None, (0, 0), 1)
    framed: np.ndarray = closed.astype(bool) | (outside[1:-1, 1:-1] == 0)
    return framed


def _inner(shape: tuple[int, ...]) -> tuple[slice, slice]:
    """The middle of a slot's cell (at 1 px/mm) that a lying tile fills: no margin, no rim."""
    h, w, m = shape[0], shape[1], round(MARGIN_MM)
    return slice(m + h // 8, h - m - h // 8), slice(m + w // 8, w - m - w // 8)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """The [start, end) index ranges where ``mask`` is true."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.astype(np.int8), [0]))))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]
