"""Overhead table videos rendered from a game log, with exact per-frame ground truth.

The table plane is drawn in millimetres (felt, the four ArUco markers of hardware/markers.md,
every tile of the layout from vision/synth/table_state with its thickness as a side band
towards the camera's far side, the dice of the last roll in the middle), players' arms and
their shadows reach for each action (and some hover), then a pinhole camera (height, tilt, yaw,
offset) sees the plane through a homography, with a slowly changing uneven light, barrel
distortion and sensor noise.

Truth (JSON lines): a ``header`` (size, fps, pose, style, the table→image homography), one
``frame`` line per frame (time, every lying tile's slot and name, which slots an arm hides, wall
stacks standing per seat, the dice showing) and one ``action`` line per physical action with its
time.
"""

from __future__ import annotations

import json
import math
import random
import zlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image

from referee.events import Event
from referee.game.seen import table_knows
from vision.calibrate import MARKER_CENTRES, MARKER_MM, MARKER_WHITE_MM
from vision.classes import BACK, class_of_label
from vision.synth.faces import procedural_tile, tile_body
from vision.synth.looks import LOOKS, TableLook
from vision.synth.table_state import Action, Layout, Placed, replay_layouts
from vision.zones import (
    HALF,
    SEATS,
    TILE_H,
    TILE_T,
    TILE_W,
    Slot,
    plane_to_mm,
    slot,
    to_pixel,
    to_table,
)

FELTS = ((38, 105, 62), (30, 76, 118), (112, 40, 42), (62, 62, 72), (24, 60, 40))
STYLES = ("glyph", "text")  # tile faces; "text" is kept out of tuning (the held-out style)
DIE_MM = 16.0
DICE_AT = ((-14.0, 10.0), (15.0, -8.0))  # the middle of the table, inside the four rivers
REACH_S, LEAVE_S = 0.8, 0.6  # an arm arrives this long before an action and leaves after it
STANDING_SHADE = 0.75  # a standing tile's back, lit from above, against its top
AFTER_S = 2.0  # seconds of the table filmed past the last action, by default


@dataclass(frozen=True)
class CameraPose:
    """Where the camera hangs: height over the table (mm), tilt and yaw (degrees), the point it
    aims at (mm), and the radial distortion k1."""

    height: float = 1450.0
    tilt: float = 0.0
    yaw: float = 0.0
    aim_x: float = 0.0
    aim_y: float = 0.0
    k1: float = 0.0


POSES = {
    "top": CameraPose(),
    "tilted": CameraPose(height=1400.0, tilt=7.0, yaw=2.0, aim_y=10.0, k1=-0.01),
    "high": CameraPose(height=1600.0, tilt=3.0, yaw=-3.0, aim_x=15.0),
    "low": CameraPose(height=1300.0, tilt=9.0, yaw=-5.0, aim_x=-10.0, k1=-0.015),  # held out
    # the venue look's camera (the fixes of #37 were measured on it): lower, tilted and turned
    # further, off centre, a wider lens's stronger barrel
    "venue": CameraPose(height=1250.0, tilt=11.0, yaw=7.0, aim_x=12.0, aim_y=-8.0, k1=-0.03),
    # the hall look's camera (no threshold set on it): higher, turned the other way
    "hall": CameraPose(height=1550.0, tilt=4.0, yaw=-9.0, aim_x=-20.0, aim_y=15.0, k1=-0.02),
    # the club look's camera (written down with it): turned furthest, tilted towards one side
    "club": CameraPose(height=1400.0, tilt=8.0, yaw=14.0, aim_x=8.0, aim_y=20.0, k1=-0.025),
    # the parlour look's camera (written down with it): turned the other way, the strongest barrel
    "parlour": CameraPose(height=1300.0, tilt=10.0, yaw=-12.0, aim_x=-10.0, aim_y=-15.0, k1=-0.035),
    # the pavilion look's camera (written down with it): the lowest and most tilted
    "pavilion": CameraPose(height=1225.0, tilt=12.0, yaw=4.0, aim_x=15.0, aim_y=12.0, k1=-0.02),
    # the terrace look's camera (written down with it): turned further than any other
    "terrace": CameraPose(height=1350.0, tilt=6.0, yaw=-16.0, aim_x=18.0, aim_y=-20.0, k1=-0.035),
    # the lodge look's camera (written down with it): the highest
    "lodge": CameraPose(height=1650.0, tilt=5.0, yaw=9.0, aim_x=-15.0, aim_y=22.0, k1=-0.025),
    # the cellar look's camera (written down with it): the lowest, the strongest barrel
    "cellar": CameraPose(height=1200.0, tilt=10.0, yaw=-7.0, aim_x=-18.0, aim_y=-12.0, k1=-0.04),
    # the garden look's camera (written down with it; first turned 20°, which left two markers
    # out of the frame and was refused at its first clip, as a venue's set-up would be)
    "garden": CameraPose(height=1450.0, tilt=4.0, yaw=10.0, aim_x=-12.0, aim_y=18.0, k1=-0.03),
}


def camera_homography(pose: CameraPose, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """The homography table mm → image pixels, and the camera centre (mm) for parallax."""
    t, y = math.radians(pose.tilt), math.radians(pose.yaw)
    base = np.array([[1, 0, 0], [0, -1, 0], [0, 0, -1]], dtype=np.float64)  # looking down
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    rot = rx @ base @ rz
    axis = rot.T @ np.array([0.0, 0.0, 1.0])  # the optical axis in the table frame
    dist = pose.height / -axis[2]
    centre = np.array([pose.aim_x, pose.aim_y, 0.0]) - dist * axis
    focal = height * dist / 1260.0  # the whole 1.2 m square in the frame's height
    k = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]])
    trans = -rot @ centre
    hom = k @ np.column_stack([rot[:, 0], rot[:, 1], trans])
    return hom / hom[2, 2], centre


class FaceCache:
    """Tile faces of one style at one raster scale, a few variants per class."""

    def __init__(
        self,
        style: str,
        scale: float,
        seed: int,
        crops: dict[int, list[Image.Image]],
        look: TableLook = LOOKS["standard"],
    ):
        self.style, self.scale, self.rng = style, scale, random.Random(seed)
        self.crops, self.look = crops, look
        self.cache: dict[tuple[int, int], np.ndarray] = {}

    def face(self, cls: int, variant: int) -> np.ndarray:
        key = (cls, variant % 3)
        if key not in self.cache:
            w, h = round(TILE_W * self.scale), round(TILE_H * self.scale)
            if self.style == "photo" and cls != BACK and self.crops.get(cls):
                img = self.rng.choice(self.crops[cls]).convert("RGBA")
            elif cls == BACK:
                back = self.look.back
                img = tile_body(random.Random(7), w, h, back=back is None, body=back)
            else:
                img = procedural_tile(self.rng, cls, h * 2, self.style)
            rgb = img.convert("RGBA").resize((w, h), Image.Resampling.LANCZOS)
            arr = np.asarray(rgb, dtype=np.float32)
            alpha = arr[..., 3:] / 255.0
            ivory = np.array(LOOKS["standard"].body, np.float32)
            face = arr[..., :3] * alpha + ivory * (1 - alpha)
            if cls != BACK:  # the look's body colour: the ivory turned, the inks with it
                face *= np.array(self.look.body, np.float32) / ivory
            self.cache[key] = np.clip(face, 0, 255).astype(np.uint8)
        return self.cache[key]


class TableRenderer:
    """Draws layouts on the table plane and films them with one camera."""

    def __init__(
        self,
        width: int = 1920,
        height: int = 1080,
        pose: CameraPose = POSES["top"],
        style: str = "glyph",
        seed: int = 0,
        crops: dict[int, list[Image.Image]] | None = None,
        look: TableLook = LOOKS["standard"],
    ) -> None:
        self.width, self.height, self.pose, self.style = width, height, pose, style
        self.look = look
        self.rng = random.Random(seed)
        self.scale = max(1.0, round(height / 1080 * 1.2 * 2) / 2)  # plane px per mm
        self.side = round(2 * HALF * self.scale)
        self.faces = FaceCache(style, self.scale, seed, crops or {}, look)
        self.hom, self.centre = camera_homography(pose, width, height)
        self.plane_hom = self.hom @ plane_to_mm(self.scale)
        # drawn even where the look sets them: the seed's later draws stay as they were
        self.felt = np.array(self.rng.choice(FELTS), np.float32) + self.rng.uniform(-12, 12)
        if look.felt is not None:
            self.felt = np.array(look.felt, np.float32)
        self.back = np.array(self.rng.choice([(30, 110, 60), (30, 70, 150), (210, 150, 40)]))
        if look.back is not None:
            self.back = np.array(look.back)
        self.maps = _distortion_maps(width, height, pose.k1)
        nprng = np.random.default_rng(seed)
        sigma = self.rng.uniform(2.0, 5.0) if look.noise is None else look.noise
        self.noise = nprng.normal(0, sigma, (height + 64, width + 64, 1)).astype(np.int16)
        self.light_angle = self.rng.uniform(0, 2 * math.pi)
        yy, xx = np.mgrid[0 : self.side, 0 : self.side].astype(np.float32) / self.side - 0.5
        self.ramp = xx * math.cos(self.light_angle) + yy * math.sin(self.light_angle)
        self.spot = np.exp(-((xx - 0.1) ** 2 + (yy + 0.15) ** 2) / 0.15)
        self.light = 0.92 + 0.18 * self.ramp + 0.12 * self.spot  # a frame's gain less its flicker
        self.light *= look.gain * (1.0 - look.vignette * (xx * xx + yy * yy) * 2.0)
        self.tint = np.array(look.tint, np.float32)
        self._base = self._empty_table()

    # ---- the plane ---------------------------------------------------------------------------
    def _empty_table(self) -> np.ndarray:
        img = np.empty((self.side, self.side, 3), np.float32)
        img[:] = self.felt * 0.55
        a = round((HALF - 550) * self.scale)
        img[a : self.side - a, a : self.side - a] = self.felt
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        for marker_id, (x, y) in MARKER_CENTRES.items():
            white = round(MARKER_WHITE_MM * self.scale)
            u, v = to_pixel(x, y, self.scale)
            u0, v0 = round(u - white / 2), round(v - white / 2)
            img[v0 : v0 + white, u0 : u0 + white] = 245
            side = round(MARKER_MM * self.scale)
            mark = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
            m0, n0 = round(u - side / 2), round(v - side / 2)
            img[n0 : n0 + side, m0 : m0 + side] = mark[..., None].astype(np.float32) * 0.93 + 10
        return img

    def _parallax(self, x: float, y: float, z: float) -> tuple[float, float]:
        """How far (mm) a point at height z seems shifted from its footprint, seen by the camera."""
        cx, cy, cz = self.centre
        f = z / max(cz - z, 1.0)
        return (x - cx) * f, (y - cy) * f

    def _put(
        self,
        img: np.ndarray,
        x: float,
        y: float,
        face: np.ndarray,
        z: float,
        side: np.ndarray | None = None,
    ) -> None:
        """Paste a face (already turned) centred at table (x, y), lifted to height z, with its
        side band below it (``side``: its colour, by default a lying tile's edge)."""
        h, w = face.shape[:2]
        u, v = to_pixel(x, y, self.scale)
        dx, dy = self._parallax(x, y, z)
        side = np.array(self.look.side, np.float32) if side is None else side
        for k in np.linspace(0.0, 1.0, 4):  # the side: the face swept down to the felt
            su, sv = u + dx * k * self.scale, v - dy * k * self.scale
            _paste(img, side, round(su - w / 2), round(sv - h / 2), w, h)
        _paste(
            img,
            face.astype(np.float32),
            round(u + dx * self.scale - w / 2),
            round(v - dy * self.scale - h / 2),
            w,
            h,
        )

    def draw_layout(self, layout: Layout) -> np.ndarray:
        img = self._base.copy()
        backs = self.faces.face(BACK, 0)
        for key, stack in layout.wall.items():
            s = _slot_of(key)
            for level in range(stack):
                self._put(img, s.x, s.y, _turn(backs, s.angle), TILE_T * (level + 1))
        for seat, count in layout.standing.items():
            for i in range(min(count, 14)):
                s = slot(seat, "hand", i)
                top = _standing_top(self.scale, self.back)
                # the camera, above the table's middle, sees a standing tile's back (players
                # face their tiles), in the shade of a vertical surface
                self._put(img, s.x, s.y, _turn(top, s.angle), TILE_H, self.back * STANDING_SHADE)
        for key, placed in sorted(layout.tiles.items()):
            s = _slot_of(key)
            # the slot picks the face's variant (crc32, not hash(): str hashes change with
            # each process, and so did every rendered video and the bench's figures)
            face = self.faces.face(_class(placed), zlib.crc32(key.encode()) & 7)
            self._put(img, s.x, s.y, _turn(face, s.angle + (90 if placed.sideways else 0)), TILE_T)
        for value, (x, y) in zip(layout.dice or (), DICE_AT, strict=False):
            self._put(img, x, y, _die_face(value, self.scale), DIE_MM)
        return img

    # ---- the camera --------------------------------------------------------------------------
    def film(self, plane: np.ndarray, t: float, arms: list[tuple[str, Slot, float]]) -> np.ndarray:
        """One frame at time t: arms over the plane, light, the camera's view, distortion, noise."""
        gain = (self.light + 0.05 * math.sin(t / 7.0))[..., None] * self.tint
        if arms:
            img = plane.copy()
            for seat, target, reach in arms:
                _draw_arm(img, seat, target, reach, self.scale, self.look)
            img *= gain
        else:
            img = plane * gain
        frame = cv2.warpPerspective(
            np.clip(img, 0, 255, out=img).astype(np.uint8),
            self.plane_hom,
            (self.width, self.height),
            flags=cv2.INTER_LINEAR,
            borderValue=(30, 30, 30),
        )
        if self.maps is not None:
            frame = cv2.remap(frame, self.maps[0], self.maps[1], cv2.INTER_LINEAR)
        if self.look.blur:
            frame = cv2.GaussianBlur(frame, (0, 0), self.look.blur * self.height / 1080)
        ox, oy = self.rng.randrange(64), self.rng.randrange(64)
        noisy = frame.astype(np.int16) + self.noise[oy : oy + self.height, ox : ox + self.width]
        out: np.ndarray = np.clip(noisy, 0, 255).astype(np.uint8)
        if self.look.jpeg:
            bgr = cv2.cvtColor(out, cv2.COLOR_RGB2BGR)  # OpenCV's JPEG takes BGR
            _, data = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, self.look.jpeg])
            decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
            assert decoded is not None
            out = cv2.cvtColor(decoded, cv2.COLOR_BGR2RGB)
        return out


def _paste(img: np.ndarray, src: np.ndarray, x: int, y: int, w: int, h: int) -> None:
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, img.shape[1]), min(y + h, img.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    if src.ndim == 1:
        img[y0:y1, x0:x1] = src
    else:
        img[y0:y1, x0:x1] = src[y0 - y : y1 - y, x0 - x : x1 - x]


def _turn(face: np.ndarray, angle: float) -> np.ndarray:
    turned: np.ndarray = np.rot90(face, round(angle / 90) % 4)
    return turned


def _standing_top(scale: float, back: np.ndarray) -> np.ndarray:
    """A standing tile seen from above: its top edge, back half towards the table centre."""
    w, d = round(TILE_W * scale), round(TILE_T * scale)
    top = np.empty((d, w, 3), np.float32)
    top[: d // 2] = back
    top[d // 2 :] = (230, 225, 205)
    return top


def _die_face(value: int, scale: float) -> np.ndarray:
    """The top of a die showing ``value``: white, its pips black (the one and the four red)."""
    side = round(DIE_MM * scale)
    face = np.full((side, side, 3), 240.0, np.float32)
    pips = {
        1: [(0, 0)],
        2: [(-1, -1), (1, 1)],
        3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
        5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
        6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
    }[value]
    colour = (200.0, 30.0, 40.0) if value in (1, 4) else (20.0, 20.0, 20.0)
    radius = max(1, round((3.0 if value == 1 else 1.6) * scale))
    for dx, dy in pips:
        centre = (round(side / 2 + dx * side * 0.28), round(side / 2 + dy * side * 0.28))
        cv2.circle(face, centre, radius, colour, -1)
    return face


def _class(placed: Placed) -> int:
    name = placed.tile  # referee names (1f) → the recognizer's labels (f1)
    return class_of_label(f"f{name[0]}" if len(name) == 2 and name[1] == "f" else name)


def _slot_of(key: str) -> Slot:
    seat, zone, index = key.split("/")
    return slot(seat, zone, int(index))


def _draw_arm(
    img: np.ndarray,
    seat: str,
    target: Slot,
    reach: float,
    scale: float,
    look: TableLook = LOOKS["standard"],
) -> None:
    """A sleeve (the forearm bare towards the hand, as the look says) and a hand from the
    seat's edge towards ``target`` (reach 0–1), with a shadow."""
    sx, sy = to_table(seat, 0.0, -620.0)
    x = sx + (target.x - sx) * reach
    y = sy + (target.y - sy) * reach
    p0 = tuple(round(c) for c in to_pixel(sx, sy, scale))
    p1 = tuple(round(c) for c in to_pixel(x, y, scale))
    q = 4  # the soft shadow is drawn and blurred at a quarter of the size
    small = np.zeros((img.shape[0] // q, img.shape[1] // q), np.uint8)
    off = 25 * scale
    a = (round((p0[0] + off) / q), round((p0[1] + off) / q))
    b = (round((p1[0] + off) / q), round((p1[1] + off) / q))
    cv2.line(small, a, b, 255, round(85 * scale / q))
    blurred = cv2.GaussianBlur(small, (0, 0), 3 * scale)
    shadow = cv2.resize(blurred, (img.shape[1], img.shape[0]))
    x0, y0, w, h = cv2.boundingRect(shadow)  # darkened there only: elsewhere the factor is 1
    box = img[y0 : y0 + h, x0 : x0 + w]
    box *= 1.0 - shadow[y0 : y0 + h, x0 : x0 + w, None].astype(np.float32) / 255.0 * 0.45
    width = round(look.sleeve_mm * scale)
    cuff = tuple(round(a + (b - a) * (1 - look.forearm)) for a, b in zip(p0, p1, strict=True))
    cv2.line(img, p0, cuff, tuple(float(c) for c in look.sleeve), width)
    skin = tuple(float(c) for c in look.skin)
    if look.forearm:
        cv2.line(img, cuff, p1, skin, round(width * 0.75))
    cv2.circle(img, p1, round(45 * scale), skin, -1)


def _distortion_maps(width: int, height: int, k1: float) -> tuple[np.ndarray, np.ndarray] | None:
    if not k1:
        return None
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    cx, cy, r0 = width / 2, height / 2, max(width, height) / 2
    nx, ny = (xx - cx) / r0, (yy - cy) / r0
    f = 1 + k1 * (nx * nx + ny * ny)
    return (nx * f * r0 + cx).astype(np.float32), (ny * f * r0 + cy).astype(np.float32)


def shown_at(pose: CameraPose, width: int, height: int, points: np.ndarray) -> np.ndarray:
    """Where the camera shows table points (mm, N×2) in its frame, its lens included: the
    pixel p whose sample :func:`_distortion_maps` takes at the point's ideal pixel, found by
    fixed-point iteration (the truth a calibration is measured against)."""
    hom, _ = camera_homography(pose, width, height)
    ideal = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), hom)
    ideal = ideal.reshape(-1, 2)
    centre, r0 = np.array([width / 2, height / 2]), max(width, height) / 2
    shown = ideal.copy()
    for _ in range(20):
        r2 = (((shown - centre) / r0) ** 2).sum(1, keepdims=True)
        shown = centre + (ideal - centre) / (1 + pose.k1 * r2)
    return shown


# ---- whole videos ----------------------------------------------------------------------------
@dataclass(frozen=True)
class RenderSpec:
    width: int = 1920
    height: int = 1080
    fps: float = 10.0
    style: str = "glyph"
    pose: str = "top"
    seed: int = 0
    hovers: int = 1  # arms held over a river for 3 s, with no action
    look: str = "standard"  # vision/synth/looks.LOOKS
    start: float | None = None  # first second of the game to film (default: the deal)
    end: float | None = None  # (default: ``after`` seconds past the last action)
    after: float = AFTER_S  # the table filmed past the last action (the last hand scored)


def frames(
    events: list[Event], spec: RenderSpec, crops: dict[int, list[Image.Image]] | None = None
) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
    """(frame, its truth line) for each frame; the header and action lines come from
    :func:`truth_header`."""
    renderer = TableRenderer(
        spec.width, spec.height, POSES[spec.pose], spec.style, spec.seed, crops, LOOKS[spec.look]
    )
    timeline = replay_layouts(events)
    actions = [a for _, a, _ in timeline if a is not None]
    start = spec.start if spec.start is not None else _deal_time(events)
    end = spec.end if spec.end is not None else timeline[-1][0] + spec.after
    # arms rest over the rivers during play, not once the last hand is being scored
    played = min(end, timeline[-1][0] + AFTER_S)
    hovers = _hovers(random.Random(spec.seed + 1), actions, start, played, spec.hovers)
    n = int((end - start) * spec.fps)
    layout_at, plane, shown = 0, None, -1
    for i in range(n):
        t = start + i / spec.fps
        while layout_at + 1 < len(timeline) and timeline[layout_at + 1][0] <= t:
            layout_at += 1
        if layout_at != shown:
            plane, shown = renderer.draw_layout(timeline[layout_at][2]), layout_at
        assert plane is not None
        arms = _arms(actions, hovers, timeline[layout_at][2], t)
        frame = renderer.film(plane, t, arms)
        yield frame, _truth_frame(i, t, timeline[layout_at][2], arms)


def plan_frames(
    spec: RenderSpec, laid: dict[str, tuple[str, bool]], seconds: float = 2.0
) -> Iterator[tuple[float, np.ndarray]]:
    """(t, frame) of a venue's enrolment clip: the tiles ``laid`` (slot key → tile label and
    whether it lies sideways), nobody's hands over the table (vision/enrol_camera.py)."""
    renderer = TableRenderer(
        spec.width, spec.height, POSES[spec.pose], spec.style, spec.seed, None, LOOKS[spec.look]
    )
    tiles = {key: Placed(label, sideways) for key, (label, sideways) in laid.items()}
    plane = renderer.draw_layout(Layout(tiles=tiles))
    for i in range(max(1, round(seconds * spec.fps))):
        t = i / spec.fps
        yield t, renderer.film(plane, t, [])


def truth_header(events: list[Event], spec: RenderSpec) -> list[dict[str, Any]]:
    hom, _ = camera_homography(POSES[spec.pose], spec.width, spec.height)
    head: dict[str, Any] = {"kind": "header", **asdict(spec), "camera": asdict(POSES[spec.pose])}
    head["homography"] = hom.round(6).tolist()
    # for the engine: what a real table's rig is told (players, seats, walls, dice), never a tile
    head["setup"] = [json.loads(e.to_json()) for e in table_knows(events)]
    start = spec.start if spec.start is not None else _deal_time(events)
    end = spec.end if spec.end is not None else events[-1].ts + spec.after
    acts = [a for _, a, _ in replay_layouts(events) if a is not None and start <= a.t <= end]
    return [head, *({"kind": "action", **a.to_json()} for a in acts)]


def render_video(
    events: list[Event],
    out: Path,
    truth: Path,
    spec: RenderSpec,
    crops: dict[int, list[Image.Image]] | None = None,
) -> int:
    """Write the video and its truth; returns the number of frames."""
    writer = cv2.VideoWriter(
        str(out), cv2.VideoWriter.fourcc(*"mp4v"), spec.fps, (spec.width, spec.height)
    )
    if not writer.isOpened():
        raise OSError(f"{out}: OpenCV cannot write an mp4 video there")
    count = 0
    with truth.open("w") as fh:
        for line in truth_header(events, spec):
            fh.write(json.dumps(line) + "\n")
        for frame, line in frames(events, spec, crops):
            writer.write(cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
            fh.write(json.dumps(line) + "\n")
            count += 1
    writer.release()
    return count


def _deal_time(events: list[Event]) -> float:
    deal = next((e.ts for e in events if e.type == "deal"), events[0].ts if events else 0.0)
    return deal + 0.5


def _hovers(
    rng: random.Random, actions: list[Action], start: float, end: float, count: int
) -> list[tuple[float, str, Slot]]:
    """Arms held 3 s over another seat's river (reaching across, resting): no action."""
    out: list[tuple[float, str, Slot]] = []
    for _ in range(count):
        t = rng.uniform(start + 3, max(start + 4, end - 6))
        busy = {a.edge for a in actions if t - 1 <= a.t <= t + 4}
        seat = next((s for s in SEATS if s not in busy), "E")
        river = rng.choice([s for s in SEATS if s != seat])
        out.append((t, seat, slot(river, "river", 8)))
    return out


def _arms(
    actions: list[Action], hovers: list[tuple[float, str, Slot]], layout: Layout, t: float
) -> list[tuple[str, Slot, float]]:
    arms: list[tuple[str, Slot, float]] = []
    for a in actions:
        if a.t - REACH_S <= t <= a.t + LEAVE_S:
            reach = (t - a.t + REACH_S) / REACH_S if t < a.t else 1 - (t - a.t) / LEAVE_S
            arms.append((a.edge, _target(a, layout), max(0.0, min(1.0, reach)) ** 0.5))
    for h0, seat, target in hovers:
        if h0 <= t <= h0 + 3.0:
            arms.append((seat, target, 0.9))
    return arms


def _target(action: Action, layout: Layout) -> Slot:
    """Where the arm goes: the river's next place, the meld row, the wall or the hand."""
    seat = action.edge
    if action.type == "discard":
        n = sum(1 for k in layout.tiles if k.startswith(f"{seat}/river/"))
        return slot(seat, "river", min(max(n - 1, 0), 29))
    if action.type in ("chow", "pung", "kong"):
        return slot(seat, "meld", 2)
    if action.type == "win":
        return slot(seat, "hand", 7)
    return slot(seat, "wall", 8)


def _truth_frame(
    i: int, t: float, layout: Layout, arms: list[tuple[str, Slot, float]]
) -> dict[str, Any]:
    hidden = sorted({k for k in layout.tiles if _covered(_slot_of(k), arms)})
    walls = {s: sum(v > 0 for k, v in layout.wall.items() if k.startswith(s)) for s in SEATS}
    return {
        "kind": "frame",
        "i": i,
        "t": round(t, 3),
        "tiles": {k: p.tile + ("^" if p.sideways else "") for k, p in sorted(layout.tiles.items())},
        "hidden": hidden,
        "walls": walls,
        "dice": list(layout.dice) if layout.dice else None,
    }


def _covered(s: Slot, arms: list[tuple[str, Slot, float]]) -> bool:
    """Whether an arm (80 mm sleeve, 90 mm hand) lies over the slot's centre."""
    for seat, target, reach in arms:
        sx, sy = to_table(seat, 0.0, -620.0)
        ex, ey = sx + (target.x - sx) * reach, sy + (target.y - sy) * reach
        vx, vy = ex - sx, ey - sy
        k = max(0.0, min(1.0, ((s.x - sx) * vx + (s.y - sy) * vy) / max(vx * vx + vy * vy, 1)))
        d = math.hypot(s.x - sx - k * vx, s.y - sy - k * vy)
        if d < 40 + TILE_H / 2 or math.hypot(s.x - ex, s.y - ey) < 45 + TILE_H / 2:
            return True
    return False
