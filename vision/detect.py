"""Tile recognition at run time: ONNX detector (+ crop classifier), tiled, batched, numpy NMS.

A 1-class detector finds tiles; a small classifier names each crop (see models/MODELS.md for why
two models). A detector with 43 class channels and no classifier also works. Large images are cut
into overlapping windows at native resolution as well as seen whole, so 15–30 px tiles are found;
every image is also seen squashed along each axis, so strips resized to a square are read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from PIL import Image

from vision.classes import BACK, NUM_CLASSES, class_label
from vision.embedding import EMBEDDING
from vision.onnx_model import ModelError, OnnxModel
from vision.profile import KNOWN_FILE, ProfileError, VenueProfile, load_known, model_hash

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DETECTOR_FILE = "tile_detector.onnx"
CLASSIFIER_FILE = "tile_classifier.onnx"
CROP_STORE = 64  # crops are cut at this side, then box-scaled to the classifier's (as in training)
CROP_MARGIN = 0.08
LETTERBOX_FILL = 114
DEFAULT_MIN_CONF = 0.4  # best tile accuracy on the first 100 dev photos (models/MODELS.md)
SURE = 0.9  # crops classified at least this surely skip the other quarter turns
# the classes whose faces look alike at a quarter turn: the dots' and bamboos' grids. A turned
# view of a crop known upright is evidence for them only: a character's numeral turned is
# another face (the demo's text 9m read 9m 0.70 upright, 6m 0.64-0.66 at each other turn)
TURN_ALIKE = (np.arange(NUM_CLASSES) >= 9) & (np.arange(NUM_CLASSES) < 27)
TILE_ABOVE = 2.5  # only images longer than this many detector sides may go through windows …
SMALL_TILE = 12.0  # … and only when the whole view's tiles are smaller than this (detector px)
WINDOW_TILE = 24.0  # windows are cut at the scale that shows the tiles found at this size
MAX_WINDOWS = 144  # at most this many windows an image (a 12 MP photo at native resolution)
MAX_CANDIDATES = 4000  # boxes kept an image before NMS, best first (a 416 view has 3,549)
GATED_VOTE = 0.25  # an image is the venue's when this share of its sure boxes is gated in
MAX_TILES = 300  # tiles kept an image (a full table shows 144 tiles and 8 flowers)
# A venue's own detector keeps boxes overlapping up to this much for the classifier to name; of
# those overlapping more than ``iou``, the one named most surely stays (see :meth:`detect`)
NAMED_IOU = 0.8
STRIDE = 32  # a YOLO input side must be a multiple of its largest stride
UNSTRETCH = 8  # an image is also seen squashed this many times along each axis …
# … and that view is used when its evidence is this many times the plain one (chosen on the train
# photos, where no ordinary photo comes above 2.2; 33 of the 34 stretched valid photos reach 4–23)
UNSTRETCH_WINS = 3.0
# A strip holds at most a hand with four kongs and eight flowers (26 tiles): when winning would
# take more evidence than that, the squashed views are not run (most photos: their cost saved).
UNSTRETCH_MOST = 30.0


@dataclass(frozen=True)
class Detection:
    """A tile found in an image: pixel box in the original image, our class, confidence."""

    x1: float
    y1: float
    x2: float
    y2: float
    cls: int
    conf: float

    @property
    def label(self) -> str:
        return class_label(self.cls)

    def to_json(self) -> dict[str, object]:
        return {
            "box": [round(self.x1, 1), round(self.y1, 1), round(self.x2, 1), round(self.y2, 1)],
            "tile": self.label,
            "conf": round(self.conf, 3),
        }


def letterbox(
    img: Image.Image, side: int, tight: bool = False
) -> tuple[np.ndarray, float, int, int]:
    """Scale to fit ``side``×``side`` keeping aspect, pad grey; CHW float32 and the transform.

    ``tight``: pad only to the next multiple of the stride, so a long thin image costs a
    fraction of a square pass."""
    w, h = img.size
    scale = side / max(w, h)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    resized = img.resize((nw, nh), Image.Resampling.BILINEAR) if (nw, nh) != (w, h) else img
    cw, ch = (-(-nw // STRIDE) * STRIDE, -(-nh // STRIDE) * STRIDE) if tight else (side, side)
    canvas = np.full((ch, cw, 3), LETTERBOX_FILL, dtype=np.uint8)
    px, py = (cw - nw) // 2, (ch - nh) // 2
    canvas[py : py + nh, px : px + nw] = np.asarray(resized, dtype=np.uint8)
    return canvas.transpose(2, 0, 1).astype(np.float32) / 255.0, scale, px, py


def _scaled(w: int, h: int, scale: float) -> tuple[int, int]:
    return max(1, round(w * scale)), max(1, round(h * scale))


def _best(rows: np.ndarray, most: int) -> np.ndarray:
    """The ``most`` rows of highest score: windows over noise or texture give hundreds of
    thousands of weak boxes, and the cost of NMS grows with their square."""
    if len(rows) <= most:
        return rows
    return rows[np.argpartition(-rows[:, 4], most - 1)[:most]]


def _evidence(rows: np.ndarray) -> float:
    """How much tile a view found: the detector scores of its boxes at the default confidence."""
    return float(rows[rows[:, 4] >= DEFAULT_MIN_CONF, 4].sum())


def read_whole(longest: int, side: int, tile: float | None) -> bool:
    """Whether an image whose longer side is ``longest`` px and whose tiles are ``tile`` px
    (the median √area; None: none found) is read through the detector's whole view alone, with
    no windows (:meth:`TileRecognizer.window_scale`): small enough, or its tiles big enough."""
    return longest <= TILE_ABOVE * side or (
        tile is not None and tile * side / longest >= SMALL_TILE
    )


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Greedy non-maximum suppression; indices kept, best first."""
    order = np.argsort(-scores)
    keep: list[int] = []
    areas = np.maximum(0, boxes[:, 2] - boxes[:, 0]) * np.maximum(0, boxes[:, 3] - boxes[:, 1])
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        xx1 = np.maximum(boxes[i, 0], boxes[rest, 0])
        yy1 = np.maximum(boxes[i, 1], boxes[rest, 1])
        xx2 = np.minimum(boxes[i, 2], boxes[rest, 2])
        yy2 = np.minimum(boxes[i, 3], boxes[rest, 3])
        inter = np.maximum(0, xx2 - xx1) * np.maximum(0, yy2 - yy1)
        union = areas[i] + areas[rest] - inter
        overlap = inter / np.maximum(union, 1e-9)
        order = rest[overlap <= iou]
    return np.array(keep, dtype=np.int64)


def square_crop(
    img: Image.Image, box: tuple[float, float, float, float], size: int, margin: float
) -> Image.Image:
    """The box plus a margin, stretched to ``size``×``size`` (a turned tile stays consistent).

    Scaled with an area filter, so a tall box (a tile in a stretched photo) is not aliased; the
    margin past the image's edge repeats the edge pixels rather than showing black bars, which
    the classifier never saw around a tile."""
    x1, y1, x2, y2 = box
    mx, my = (x2 - x1) * margin, (y2 - y1) * margin
    left, top, right, bottom = x1 - mx, y1 - my, x2 + mx, y2 + my
    w, h = img.size
    if left >= 0 and top >= 0 and right <= w and bottom <= h:
        return img.resize((size, size), Image.Resampling.BILINEAR, box=(left, top, right, bottom))
    ix1, iy1 = math.floor(left), math.floor(top)
    ix2, iy2 = max(math.ceil(right), ix1 + 1), max(math.ceil(bottom), iy1 + 1)
    cx1, cy1 = min(max(ix1, 0), w - 1), min(max(iy1, 0), h - 1)
    cx2, cy2 = max(min(ix2, w), cx1 + 1), max(min(iy2, h), cy1 + 1)
    ox, oy = min(ix1, cx1), min(iy1, cy1)  # the padded patch's origin
    inside = np.asarray(img.crop((cx1, cy1, cx2, cy2)))
    pad = [(cy1 - oy, max(iy2 - cy2, 0)), (cx1 - ox, max(ix2 - cx2, 0))]
    pad += [(0, 0)] * (inside.ndim - 2)  # channels, if any
    patch = Image.fromarray(np.pad(inside, pad, mode="edge"))
    region = (left - ox, top - oy, right - ox, bottom - oy)
    return patch.resize((size, size), Image.Resampling.BILINEAR, box=region)


def tile_crop(img: Image.Image, box: tuple[float, float, float, float], side: int) -> Image.Image:
    """The classifier's view of one tile, exactly as vision/train.py made its training crops."""
    crop = square_crop(img, box, CROP_STORE, CROP_MARGIN)
    return crop if side == CROP_STORE else crop.resize((side, side), Image.Resampling.BOX)


def windows(width: int, height: int, side: int, overlap: float) -> list[tuple[int, int, int, int]]:
    """Overlapping ``side``-pixel windows covering the image (native resolution)."""

    def starts(length: int) -> list[int]:
        if length <= side:
            return [0]
        step = max(1, int(side * (1 - overlap)))
        out = list(range(0, length - side, step))
        out.append(length - side)
        return out

    return [(x, y, x + side, y + side) for y in starts(height) for x in starts(width)]


class TileRecognizer:
    """Finds and names the tiles in images; load once, call :meth:`detect` per image."""

    def __init__(
        self,
        models_dir: Path = MODELS_DIR,
        detector: Path | None = None,
        classifier: Path | None = None,
        threads: int = 0,
        batch: int = 8,
        side: int | None = None,
        turns: int = 4,
        profile: Path | VenueProfile | None = None,
    ) -> None:
        """``profile``: a venue profile folder (``mjref tiles enrol``) or a loaded one; it must
        have been fitted against these model files (else :class:`ModelError`); its own detector
        and classifier, where it has them, are used in place of the shipped ones."""
        det_path = detector or models_dir / DETECTOR_FILE
        cls_path = classifier or models_dir / CLASSIFIER_FILE
        loaded = _load_profile(profile, det_path, cls_path)
        # what reads an image that is not the venue's, where the profile has its own detector
        self._plain_args = (det_path, cls_path, threads, batch, side, turns)
        self._plain: TileRecognizer | None = None
        own: Path | None = None  # a gated profile's own classifier, beside the shipped one
        if loaded is not None:
            det_path = loaded.detector or det_path
            if loaded.gated:
                own = loaded.classifier
            else:
                cls_path = loaded.classifier or cls_path
        self.detector = OnnxModel(
            det_path, "tile detector (YOLO, NCHW in, [N, 4+classes, anchors] out)", threads
        )
        shape = self.detector.output_shape
        if len(shape) != 3 or (isinstance(shape[1], int) and shape[1] not in (5, 4 + NUM_CLASSES)):
            raise ModelError(
                f"{det_path}: output shape {shape} is not a tile detector's "
                f"[N, 5 or {4 + NUM_CLASSES}, anchors]"
            )
        self.det_classes = int(shape[1]) - 4 if isinstance(shape[1], int) else 1
        self.side = side or self.detector.fixed_side(640)
        self.classifier: OnnxModel | None = None
        self.crop = CROP_STORE
        if self.det_classes == 1 or cls_path.exists() or classifier is not None:
            self.classifier = OnnxModel(
                cls_path,
                f"tile classifier (square crops → {NUM_CLASSES} probabilities)",
                threads,
            )
            self.crop = self.classifier.fixed_side(CROP_STORE)
            out = self.classifier.output_shape
            if len(out) != 2 or (isinstance(out[1], int) and out[1] != NUM_CLASSES):
                raise ModelError(
                    f"{cls_path}: output shape {out} is not the classifier's [N, {NUM_CLASSES}]"
                )
        self.own = None if own is None else OnnxModel(own, "venue's own tile classifier", threads)
        self.batch = batch
        self.turns = turns  # an unsure crop is classified at this many quarter turns, averaged
        self.profile = self._profile(loaded, cls_path)
        self.min_conf = self.profile.keep if self.profile else DEFAULT_MIN_CONF

    @property
    def knows_backs(self) -> bool:
        """A venue profile in use that learnt the venue's backs (enrolled from its camera)."""
        p = self.profile
        return p is not None and len(p.venue) > 0 and bool(p.enrolled[BACK])

    def _profile(self, profile: VenueProfile | None, cls_path: Path) -> VenueProfile | None:
        if profile is None:
            return None
        if self.classifier is None or EMBEDDING not in self.classifier.output_names:
            raise ModelError(
                f"{cls_path}: a venue profile needs the classifier's {EMBEDDING!r} output "
                "(python -m vision.embedding adds it)"
            )
        if len(profile.known) == 0 and (profile.classifier is None or profile.gated):
            try:
                profile.known = load_known(cls_path.parent / KNOWN_FILE, model_hash(cls_path))
            except ValueError as exc:
                raise ModelError(str(exc)) from None
        return profile

    # -- detection -------------------------------------------------------------------------
    def detect(
        self,
        img: Image.Image,
        min_conf: float | None = None,
        iou: float = 0.5,
        tiled: bool | None = None,
        overlap: float = 0.25,
        unstretch: bool = True,
    ) -> list[Detection]:
        """Tiles in ``img`` (RGB), best first; ``tiled=None``: windows only where the whole view
        shows small tiles (:meth:`window_scale`); ``unstretch``: also look for tiles in a photo
        that was stretched to a square. At most ``MAX_TILES``, whatever the image.
        ``min_conf`` None: the profile's keep threshold, else ``DEFAULT_MIN_CONF``."""
        min_conf = self.min_conf if min_conf is None else min_conf
        own_detector = self.profile is not None and self.profile.detector is not None
        # In tight rows of small tiles a venue's detector may score a box straddling two tiles
        # above the right one: its boxes are named before the overlapping ones are dropped, so
        # that the box the classifier reads surely stays.
        loose = max(iou, NAMED_IOU) if own_detector else iou
        raw = self.candidates(img, self.det_floor(min_conf), loose, tiled, overlap, unstretch)
        classes, conf, inside = self._classify(img, raw) if len(raw) else (raw, raw, None)
        if own_detector and (inside is None or not _venues(inside, raw[:, 4] >= DEFAULT_MIN_CONF)):
            plain = self._shipped_detector()  # not the venue's tiles: as without its detector
            return plain.detect(img, min_conf, iou, tiled, overlap, unstretch)
        if loose > iou:
            keep = nms(raw[:, :4], conf, iou)
            raw, classes, conf = raw[keep], classes[keep], conf[keep]
        out = [
            Detection(float(b[0]), float(b[1]), float(b[2]), float(b[3]), int(c), float(p))
            for b, c, p in zip(raw, classes, conf, strict=True)
            if p >= min_conf
        ]
        out.sort(key=lambda d: -d.conf)
        return out

    def _shipped_detector(self) -> TileRecognizer:
        """The profile without its own detector: one table shows one tile set, so an image
        whose tiles the gate does not take for the venue's is read with the shipped detector,
        as it would be without the profile (no tile of a known style lost to a box drawn a
        little otherwise)."""
        if self._plain is None:
            assert self.profile is not None
            det, cls, threads, batch, side, turns = self._plain_args
            self._plain = TileRecognizer(
                detector=det,
                classifier=cls,
                threads=threads,
                batch=batch,
                side=side,
                turns=turns,
                profile=replace(self.profile, detector=None),
            )
        return self._plain

    def det_floor(self, min_conf: float) -> float:
        """The detector score below which no box can reach ``min_conf``."""
        if self.profile is not None:
            return self.profile.det_floor(min_conf)
        return max(min_conf, 0.005)  # conf = det × √cls ≤ det

    def candidates(
        self,
        img: Image.Image,
        floor: float,
        iou: float = 0.5,
        tiled: bool | None = None,
        overlap: float = 0.25,
        unstretch: bool = True,
    ) -> np.ndarray:
        """The detector's boxes before classification: rows ``x1 y1 x2 y2 score cls`` with a
        score ≥ ``floor``, after NMS, best first, at most ``MAX_TILES``."""
        w, h = img.size
        plain = self._detect_views(img, [(0, 0, w, h)], floor)
        plain = raw = plain[nms(plain[:, :4], plain[:, 4], iou)]
        if unstretch:
            raw = self._unstretched(img, plain, floor, iou)
        scale = None if tiled is False else self.window_scale(plain, w, h, overlap, bool(tiled))
        if scale is not None and raw is plain:  # a squashed view that won needs no windows
            work = img if scale == 1 else img.resize(_scaled(w, h, scale), Image.Resampling.BOX)
            rows = self._detect_views(work, windows(*work.size, self.side, overlap), floor)
            rows[:, :4] *= np.array([w / work.width, h / work.height] * 2, np.float32)
            raw = _best(np.concatenate([plain, rows]), MAX_CANDIDATES)
            raw = raw[nms(raw[:, :4], raw[:, 4], iou)]
        out: np.ndarray = raw[:MAX_TILES]
        return out

    def window_scale(
        self, whole: np.ndarray, w: int, h: int, overlap: float = 0.25, force: bool = False
    ) -> float | None:
        """The scale at which to cut windows from a ``w``×``h`` image, or None for no windows.

        The detector learned from 640 px photos seen at 416 px: images up to TILE_ABOVE × side
        are seen whole. Larger ones are decided by the tiles the whole view found (``whole``):
        tiles big enough there (a close-up) need nothing more, since windows would cut them into
        pieces that look like tiles; smaller ones are looked at again through windows of the
        image scaled so they show at WINDOW_TILE px (never above native), and when the whole
        view found none, through native windows (15–30 px tiles of a table photo). The windows
        are at most MAX_WINDOWS: a larger image is scaled down to fit."""
        sure = whole[whole[:, 4] >= DEFAULT_MIN_CONF]
        size = None
        if len(sure):
            size = float(np.median(np.sqrt((sure[:, 2] - sure[:, 0]) * (sure[:, 3] - sure[:, 1]))))
        if not force and read_whole(max(w, h), self.side, size):
            return None
        scale = 1.0 if size is None else min(1.0, WINDOW_TILE / max(size, 1.0))
        while (
            scale > 0.01 and len(windows(*_scaled(w, h, scale), self.side, overlap)) > MAX_WINDOWS
        ):
            scale *= 0.9
        return scale

    def _detect_views(
        self, img: Image.Image, views: Sequence[tuple[int, int, int, int]], floor: float
    ) -> np.ndarray:
        """Rows ``x1 y1 x2 y2 score cls`` in image pixels from every view, boxes cut by an
        inner window edge dropped (a neighbouring window sees that tile whole)."""
        w, h = img.size
        rows: list[np.ndarray] = []
        for start in range(0, len(views), self.batch):
            chunk = views[start : start + self.batch]
            tensors, transforms = [], []
            for view in chunk:
                sub = img if view == (0, 0, w, h) else img.crop(view)
                t, scale, px, py = letterbox(sub, self.side)
                tensors.append(t)
                transforms.append((scale, px, py))
            out = self.detector.run(np.stack(tensors))
            for view, (scale, px, py), pred in zip(chunk, transforms, out, strict=True):
                rows.append(self._decode(pred, view, scale, px, py, floor, (w, h)))
        return np.concatenate(rows) if rows else np.zeros((0, 6), np.float32)

    def _unstretched(
        self, img: Image.Image, plain: np.ndarray, floor: float, iou: float
    ) -> np.ndarray:
        """The plain rows, or those of a view squashed along one axis when it finds far more.

        A strip of tiles resized to a square (as upload tools and datasets do) leaves tiles 10×
        too long, which the detector never finds; squashed back, they are ordinary tiles. The
        squashed views are thin, so a tight canvas makes both cost about a third of a plain pass.
        The view is chosen, never merged: squashing ordinary photos makes false tiles."""
        best, best_evidence = plain, _evidence(plain)
        needed = UNSTRETCH_WINS * (best_evidence + 0.5)
        if needed > UNSTRETCH_MOST:
            return plain
        w, h = img.size
        for size in ((max(1, round(w / UNSTRETCH)), h), (w, max(1, round(h / UNSTRETCH)))):
            small = img.resize(size, Image.Resampling.BILINEAR)
            tensor, scale, px, py = letterbox(small, self.side, tight=True)
            pred = self.detector.run(tensor[None])[0]
            rows = self._decode(pred, (0, 0, *size), scale, px, py, floor, size)
            rows = rows[nms(rows[:, :4], rows[:, 4], iou)]
            rows[:, [0, 2]] *= w / size[0]
            rows[:, [1, 3]] *= h / size[1]
            evidence = _evidence(rows)
            if evidence >= needed and evidence > best_evidence:
                best, best_evidence = rows, evidence
        return best

    def _decode(
        self,
        pred: np.ndarray,
        view: tuple[int, int, int, int],
        scale: float,
        px: int,
        py: int,
        floor: float,
        size: tuple[int, int],
    ) -> np.ndarray:
        scores = pred[4:]
        best = scores.argmax(0)
        conf = scores.max(0)
        mask = conf >= floor
        if not mask.any():
            return np.zeros((0, 6), np.float32)
        cx, cy, bw, bh = pred[:4, mask]
        x1 = (cx - bw / 2 - px) / scale + view[0]
        y1 = (cy - bh / 2 - py) / scale + view[1]
        x2 = (cx + bw / 2 - px) / scale + view[0]
        y2 = (cy + bh / 2 - py) / scale + view[1]
        w, h = size
        rows = np.stack([x1, y1, x2, y2, conf[mask], best[mask].astype(np.float32)], 1)
        if view != (0, 0, w, h):
            edge = 2.0 / scale
            inner = (
                ((rows[:, 0] <= view[0] + edge) & (view[0] > 0))
                | ((rows[:, 1] <= view[1] + edge) & (view[1] > 0))
                | ((rows[:, 2] >= view[2] - edge) & (view[2] < w))
                | ((rows[:, 3] >= view[3] - edge) & (view[3] < h))
            )
            rows = rows[~inner]
        rows[:, [0, 2]] = rows[:, [0, 2]].clip(0, w)
        rows[:, [1, 3]] = rows[:, [1, 3]].clip(0, h)
        return rows.astype(np.float32)

    # -- classification --------------------------------------------------------------------
    def _classify(
        self, img: Image.Image, rows: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Classes and confidences of the boxes ``rows``, and with a profile which it read as
        the venue's."""
        if self.classifier is None:
            return rows[:, 5].astype(np.int64), rows[:, 4], None
        boxes = [(float(r[0]), float(r[1]), float(r[2]), float(r[3])) for r in rows]
        crops = [tile_crop(img, b, self.crop) for b in boxes]
        if self.profile is not None:  # fitted on the venue's own tiles
            # the boxes the shipped rule could keep say which tile set the image shows
            probs, inside = self._classify_array(crop_array(crops), rows[:, 4] >= DEFAULT_MIN_CONF)
            assert inside is not None
            conf = self.profile.confidence(rows[:, 4], probs.max(1), inside)
            return probs.argmax(1), conf, inside
        probs = self.classify_crops(crops)
        # The detector's score times the square root of the classifier's: a tile the detector is
        # sure of stays even when its name is unsure (dropping it is as wrong as misnaming it),
        # while a doubtful box needs a confident name.
        return probs.argmax(1), rows[:, 4] * np.sqrt(probs.max(1)), None

    def classify_crops(self, crops: Sequence[Image.Image], upright: bool = False) -> np.ndarray:
        """Class probabilities ``[n, 43]`` for RGB crops of side ``self.crop``; ``upright``:
        the crops are turned as the tiles lie (the table camera's), see ``_classify_array``."""
        if not crops:
            return np.zeros((0, NUM_CLASSES), np.float32)
        return self._classify_array(crop_array(crops), upright=upright)[0]

    def _classify_array(
        self, x: np.ndarray, voters: np.ndarray | None = None, upright: bool = False
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Probabilities of crops ``[n, 3, side, side]``, and with a profile which crops it read
        as the venue's (decided on the upright crop, kept for its other turns). An unsure crop
        is also seen at the other quarter turns, averaged; of an ``upright`` crop, the turned
        views count only for the faces that look alike turned (``TURN_ALIKE``)."""
        inside = None
        if self.profile is not None:
            probs, inside = self._venue_read(x, voters=voters)
        else:
            probs = self._run_classifier(x)
        unsure = np.flatnonzero(probs.max(1) < SURE)
        if self.turns > 1 and unsure.size:  # a second opinion from the other quarter turns
            others = np.concatenate(
                [np.rot90(x[unsure], k, axes=(2, 3)) for k in range(1, self.turns)]
            )
            if inside is not None:
                more = self._venue_read(others, np.tile(inside[unsure], self.turns - 1))[0]
            else:
                more = self._run_classifier(others)
            more = more.reshape(self.turns - 1, unsure.size, NUM_CLASSES).sum(0)
            seen = (probs[unsure] + more) / self.turns
            if upright:
                seen = np.where(TURN_ALIKE, seen, probs[unsure])
                seen /= seen.sum(1, keepdims=True)
            probs[unsure] = seen
        return probs, inside

    def _venue_read(
        self, x: np.ndarray, inside: np.ndarray | None = None, voters: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """With a profile: the venue's reading of the crops inside its gate (decided here when
        ``inside`` is None), the shipped ``probs`` of the others; and which were inside. A
        gated profile's gate takes the crops together (``voters``: those that count; None:
        all): one table shows one tile set, and a crop its own classifier reads well may sit
        nearer a known style in the shipped features."""
        assert self.profile is not None
        if self.own is not None and inside is not None:  # decided: no shipped pass inside
            return self._gated_read(x, inside), inside
        shipped, emb = self.run_with_embedding(x)
        if inside is None:
            inside = self.profile.inside(emb)
            if self.own is not None:
                inside = np.full(len(x), _venues(inside, voters))
        if self.own is None:
            return self.profile.probs(emb, shipped, inside), inside
        return self._gated_read(x, inside, shipped), inside

    def _gated_read(
        self, x: np.ndarray, inside: np.ndarray, shipped: np.ndarray | None = None
    ) -> np.ndarray:
        """A gated profile's probabilities: its own classifier's inside the gate, the shipped
        ``probs`` (run here where not given) outside."""
        assert self.profile is not None and self.own is not None
        probs = np.zeros((len(x), NUM_CLASSES))
        if (~inside).any():
            probs[~inside] = (
                shipped[~inside] if shipped is not None else self._run_classifier(x[~inside])
            )
        if inside.any():
            probs[inside] = self.profile.venue_probs(_embedding(self.own, x[inside]))
        return probs

    def _run_classifier(self, x: np.ndarray) -> np.ndarray:
        assert self.classifier is not None
        x = np.ascontiguousarray(x)
        return np.concatenate([self.classifier.run(x[i : i + 256]) for i in range(0, len(x), 256)])

    def run_with_embedding(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The classifier's own ``probs`` and its ``embedding`` from one pass."""
        assert self.classifier is not None
        x = np.ascontiguousarray(x)
        names = [self.classifier.output_names[0], EMBEDDING]
        if len(x) == 0:  # the shapes of no crops, from one blank one
            probs, emb = self.classifier.run_named(np.zeros((1, *x.shape[1:]), np.float32), names)
            return probs[:0], emb[:0]
        outs = [self.classifier.run_named(x[i : i + 256], names) for i in range(0, len(x), 256)]
        return np.concatenate([o[0] for o in outs]), np.concatenate([o[1] for o in outs])

    def embed(self, x: np.ndarray) -> np.ndarray:
        """The classifier's features ``[n, C]`` of crops ``[n, 3, side, side]`` (0–1)."""
        assert self.classifier is not None
        return _embedding(self.classifier, x)


def _embedding(model: OnnxModel, x: np.ndarray) -> np.ndarray:
    """A classifier's features ``[n, C]`` of crops ``[n, 3, side, side]`` (0–1)."""
    x = np.ascontiguousarray(x)
    return np.concatenate(
        [model.run_named(x[i : i + 256], [EMBEDDING])[0] for i in range(0, len(x), 256)]
    )


def _venues(inside: np.ndarray, voters: np.ndarray | None) -> bool:
    """Whether an image shows the venue's tiles: GATED_VOTE of its crops that vote (``voters``
    where any does, else all) are inside the profile's gate."""
    vote = inside[voters] if voters is not None and voters.any() else inside
    return bool(vote.size) and float(vote.mean()) >= GATED_VOTE


def _load_profile(
    given: Path | VenueProfile | None, det_path: Path, cls_path: Path
) -> VenueProfile | None:
    """The profile, checked against the shipped model files it was fitted against."""
    if given is None:
        return None
    where = given if isinstance(given, Path) else Path(given.name)
    try:
        profile = VenueProfile.load(given) if isinstance(given, Path) else given
        profile.check_models(where, {DETECTOR_FILE: det_path, CLASSIFIER_FILE: cls_path})
    except ProfileError as exc:
        raise ModelError(str(exc)) from None
    return profile


def crop_array(crops: Sequence[Image.Image]) -> np.ndarray:
    """RGB crops as the classifier's input ``[n, 3, side, side]``, 0–1."""
    x = np.stack([np.asarray(c, dtype=np.uint8) for c in crops]).astype(np.float32) / 255.0
    return x.transpose(0, 3, 1, 2)
