"""Enrol a venue's tile set from a few labelled photos: fit a venue profile (vision/profile.py).

What is fitted, all in numpy on the shipped models' outputs (no torch):

1. the classifier's last layer, by multinomial logistic regression on the classifier's embedding
   of the labelled tiles (each at four quarter turns, the labelled box and two jittered ones,
   and the detector's own box where it found the tile), with the shipped layer as the prior
   (an L2 pull towards it), so classes the photos show little of keep what they knew; and
   prototypes of the venue's faces (class means of the same embeddings), whose pull is chosen
   on held-out photos (vision/profile.py);
2. a temperature for those probabilities, then the confidence (Platt scaling of the detector's
   score and the classifier's probability: "a tile, named right"), both on held-out photos —
   each photo read by a layer fitted on the others (with one photo: on itself, temperature 1);
3. the keep threshold with the best end-to-end tile accuracy on those held-out readings;
4. the gate: the venue's crops, against which each crop is weighed with the tiles of the known
   styles (vision/known_styles.py); outside it the shipped reading stands (vision/profile.py).

Where torch is installed, enrolment then also fine-tunes the detector before this fit
(vision/enrol_detector.py) and the classifier itself after it (vision/enrol_classifier.py).

Everything is decided on held-out photos, since the photos are few: the Platt calibration is
kept only when it reads them better than the shipped det × √p at 0.4 (5 jade scenes once read
0.665 with it), and the profile itself only when it reads them better than the shipped models;
else it reads every crop as they do.

:func:`check` refuses, one line per problem and naming what to add, too few photos, unlabelled
or corrupt photos, boxes outside their image, labels that are not tile names and missing kinds.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from referee.tiles import FIRST_FLOWER
from vision.classes import LABELS, NUM_CLASSES, class_label, class_of_label
from vision.dataset import Box
from vision.detect import (
    CLASSIFIER_FILE,
    DEFAULT_MIN_CONF,
    DETECTOR_FILE,
    SURE,
    TileRecognizer,
    tile_crop,
)
from vision.embedding import HEAD_BIAS, HEAD_WEIGHT
from vision.image_io import ImageError, load_image
from vision.metrics import Pred, evaluate, iou_matrix
from vision.profile import (
    DET_FLOOR,
    KNOWN_FILE,
    VenueProfile,
    load_known,
    model_hash,
    softmax,
    unit,
)

MIN_PHOTOS = 2  # the calibration is fitted on photos the layer did not see: two at least
REQUIRED = tuple(range(FIRST_FLOWER))  # the 34 kinds; flowers and backs are used when shown
MAX_PHOTOS = 40
PRIOR = 0.1  # L2 pull of the refitted last layer towards the shipped one (mean loss per crop)
STEPS, RATE = 200, 0.05
PULLS = (0.0, 5.0, 10.0, 20.0)  # how hard a prototype pulls (logits per unit of cosine)
TEMPERATURES = (0.5, 0.7, 1.0, 1.4, 2.0)
DEFAULT_PULL = 20.0  # with one photo, where nothing can be held out
GATE_MARGIN = 0.06  # cosine: the least with no loss on the tuning photos (bench/README.md)
CALIBRATE_FROM = 3  # photos: with fewer, the shipped confidence rule and threshold are kept
FOLDS = 5
THRESHOLDS = tuple(round(t, 2) for t in np.arange(0.10, 0.81, 0.05))
EDGE_SLACK = 2.0  # px a box may pass the image's edge (detector boxes are clipped to it)


class EnrolError(ValueError):
    """Everything wrong with an enrolment's input, one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class Photo:
    """One enrolment photo and its labelled tiles (our classes, pixel boxes)."""

    path: Path
    image: Image.Image
    boxes: list[Box]


# -- reading and checking -------------------------------------------------------------------
def read_labels(path: Path) -> list[tuple[str, list[dict[str, Any]] | None, str]]:
    """``(image path, tiles or None, where)`` per line of a labels file (``tiles detect
    --json``'s format); image paths are relative to the labels file's folder."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EnrolError([f"{path}: cannot read the labels ({exc})"]) from None
    out: list[tuple[str, list[dict[str, Any]] | None, str]] = []
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f'{where}: not JSON ({exc.msg}); expected {{"image": …, "tiles": […]}}')
            continue
        if not isinstance(row, dict) or not isinstance(row.get("image"), str):
            problems.append(f'{where}: no "image" path; expected {{"image": …, "tiles": […]}}')
            continue
        image = Path(row["image"])
        image = image if image.is_absolute() else path.parent / image
        tiles = row.get("tiles")
        out.append((str(image), tiles if isinstance(tiles, list) else None, where))
    if problems and not out:  # no line is a label: the wrong file, said once
        raise EnrolError(
            [
                f"{path}: not a labels file ({problems[0].removeprefix(f'{path}:')}); expected "
                'one {"image": …, "tiles": […]} line per photo (`mjref tiles detect --json`)'
            ]
        )
    if problems:
        raise EnrolError(problems)
    return out


def check(
    rows: Sequence[tuple[str, list[dict[str, Any]] | None, str]],
    min_photos: int = MIN_PHOTOS,
    required: Sequence[int] = REQUIRED,
) -> list[Photo]:
    """The photos, or :class:`EnrolError` naming every problem and what to add."""
    problems: list[str] = []
    photos: list[Photo] = []
    for image_path, tiles, where in rows:
        try:
            img = load_image(image_path)
        except ImageError as exc:
            problems.append(f"{where}: {exc}; replace it with a readable photo")
            continue
        if not tiles:
            problems.append(
                f"{where}: {image_path} has no labelled tiles; label each tile "
                '({"box": [x1, y1, x2, y2], "tile": "5m"}) or leave the photo out'
            )
            continue
        boxes: list[Box] = []
        for i, tile in enumerate(tiles, 1):
            box = tile.get("box") if isinstance(tile, dict) else None
            name = tile.get("tile") if isinstance(tile, dict) else None
            if name not in LABELS:
                problems.append(
                    f"{where}: tile {i}: {name!r} is not a tile name; expected one of "
                    f"{' '.join(LABELS)}"
                )
                continue
            if (
                not isinstance(box, list)
                or len(box) != 4
                or not all(isinstance(v, int | float) for v in box)
            ):
                problems.append(f"{where}: tile {i}: box {box!r} is not [x1, y1, x2, y2] in pixels")
                continue
            x1, y1, x2, y2 = (float(v) for v in box)
            w, h = img.size
            s = EDGE_SLACK
            if not (-s <= x1 < x2 <= w + s and -s <= y1 < y2 <= h + s):
                problems.append(
                    f"{where}: tile {i} ({name}): box {box} is outside the {w}×{h} image; "
                    "expected pixels with x1 < x2 ≤ width and y1 < y2 ≤ height"
                )
                continue
            boxes.append(Box(max(x1, 0), max(y1, 0), min(x2, w), min(y2, h), class_of_label(name)))
        photos.append(Photo(Path(image_path), img, boxes))
    if len(rows) < min_photos:
        problems.append(
            f"{len(rows)} photo(s) given, at least {min_photos} needed: add photos of the venue's "
            "tiles from the rig's camera (another angle or light for each)"
        )
    seen = {b.cls for p in photos for b in p.boxes}
    missing = [class_label(c) for c in required if c not in seen]
    if missing and not problems:
        problems.append(
            f"no tile labelled {' '.join(missing)}: add photos showing "
            f"{'it' if len(missing) == 1 else 'them'} (every one of the 34 kinds is needed)"
        )
    if problems:
        raise EnrolError(problems)
    return photos


# -- fitting --------------------------------------------------------------------------------
def crops_array(
    img: Image.Image, boxes: Sequence[tuple[float, float, float, float]], side: int
) -> Any:
    """Crops ``[n, 3, side, side]`` (0–1) of ``boxes``, cut as the run time cuts them."""
    if not boxes:
        return np.zeros((0, 3, side, side), np.float32)
    arr = np.stack([np.asarray(tile_crop(img, b, side), dtype=np.uint8) for b in boxes])
    return arr.astype(np.float32).transpose(0, 3, 1, 2) / 255.0


def _turned(rec: TileRecognizer, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The shipped ``probs`` ``[4, n, 43]`` and embeddings ``[4, n, C]`` of crops at 0, 1, 2, 3
    quarter turns."""
    runs = [rec.run_with_embedding(np.rot90(x, k, axes=(2, 3))) for k in range(4)]
    return np.stack([p for p, _ in runs]), np.stack([e for _, e in runs])


def jittered(rng: np.random.Generator, b: Box) -> tuple[float, float, float, float]:
    w, h = b.x2 - b.x1, b.y2 - b.y1
    dx, dy, sx, sy = rng.uniform(-0.06, 0.06, 4)
    cx, cy = (b.x1 + b.x2) / 2 + dx * w, (b.y1 + b.y2) / 2 + dy * h
    w, h = w * (1 + sx), h * (1 + sy)
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


Fitted = tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray], np.ndarray]
# (the last layer, the prototypes and which classes have one, the venue's unit crops)


@dataclass
class PhotoRead:
    """One photo as enrolment sees it."""

    train_x: np.ndarray  # [m, C] embeddings of its labelled tiles (turns, jitters, det boxes)
    train_y: np.ndarray  # [m]
    det: np.ndarray  # [k, 6] the detector's candidate rows
    det_emb: np.ndarray  # [4, k, C] their embeddings at four turns
    det_probs: np.ndarray  # [4, k, 43] the shipped classifier's probs of them at four turns
    gt: list[Box]


def _read(rec: TileRecognizer, photo: Photo, rng: np.random.Generator) -> PhotoRead:
    rows = rec.candidates(photo.image, DET_FLOOR)
    gt = photo.boxes
    boxes = [(b.x1, b.y1, b.x2, b.y2) for b in gt]
    labels = [b.cls for b in gt]
    boxes += [jittered(rng, b) for b in gt for _ in range(2)]
    labels += [b.cls for b in gt for _ in range(2)]
    det_boxes = [(float(r[0]), float(r[1]), float(r[2]), float(r[3])) for r in rows]
    det_probs, det_emb = _turned(rec, crops_array(photo.image, det_boxes, rec.crop))
    ious = iou_matrix(rows[:, :4].astype(np.float64), np.array(boxes[: len(gt)]).reshape(-1, 4))
    gt_emb = _turned(rec, crops_array(photo.image, boxes, rec.crop))[1]
    xs, ys = [gt_emb.reshape(-1, gt_emb.shape[-1])], [np.tile(labels, 4)]
    if len(rows) and len(gt):
        hit = ious.max(1) >= 0.5
        xs.append(det_emb[:, hit].reshape(-1, det_emb.shape[-1]))
        ys.append(np.tile(np.array([gt[j].cls for j in ious.argmax(1)[hit]], np.int64), 4))
    x, y = np.concatenate(xs), np.concatenate(ys).astype(np.int64)
    return PhotoRead(x, y, rows, det_emb, det_probs, gt)


def last_layer(rec: TileRecognizer) -> tuple[np.ndarray, np.ndarray]:
    """``rec``'s classifier's last layer (weight [43, C], bias [43])."""
    assert rec.classifier is not None
    w, b = rec.classifier.run_named(
        np.zeros((1, 3, rec.crop, rec.crop), np.float32), [HEAD_WEIGHT, HEAD_BIAS]
    )
    return w.astype(np.float64), b.astype(np.float64)


def fit_head(
    x: np.ndarray, y: np.ndarray, w0: np.ndarray, b0: np.ndarray, prior: float = PRIOR
) -> tuple[np.ndarray, np.ndarray]:
    """Softmax regression on ``x`` [n, C], labels ``y``, pulled towards the shipped layer
    ``(w0, b0)``: mean cross-entropy + prior/2 ·‖(W, b) − (w0, b0)‖², by Adam from the prior."""
    w, b = w0.copy(), b0.copy()
    onehot = np.eye(NUM_CLASSES)[y]
    moments = [(np.zeros_like(w), np.zeros_like(w)), (np.zeros_like(b), np.zeros_like(b))]
    for step in range(1, STEPS + 1):
        g = (softmax(x @ w.T + b) - onehot) / len(x)
        grads = (g.T @ x + prior * (w - w0), g.sum(0) + prior * (b - b0))
        for param, grad, (m, v) in zip((w, b), grads, moments, strict=True):
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad**2
            param -= RATE * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return w, b


def prototypes(x: np.ndarray, y: np.ndarray, c: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit class means ``[43, C]`` of unit embeddings, and which classes have any."""
    unit = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)
    protos, have = np.zeros((NUM_CLASSES, c)), np.zeros(NUM_CLASSES, bool)
    for cls in np.unique(y):
        mean = unit[y == cls].mean(0)
        protos[cls], have[cls] = mean / max(float(np.linalg.norm(mean)), 1e-9), True
    return protos, have


def runtime_probs(
    profile: VenueProfile, emb: np.ndarray, shipped: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """As the run time: the upright crop, and the four turns averaged where it is unsure
    (the venue's reading inside the gate, the shipped ``probs`` outside); and which crops are
    inside the gate."""
    inside = profile.inside(emb[0])
    p = profile.probs(emb[0], shipped[0], inside)
    unsure = p.max(1) < SURE
    if unsure.any():
        p[unsure] = np.mean(
            [
                profile.probs(e[unsure], s[unsure], inside[unsure])
                for e, s in zip(emb, shipped, strict=True)
            ],
            0,
        )
    return p, inside


def _nll(profile: VenueProfile, x: np.ndarray, y: np.ndarray) -> float:
    return float(-np.log(profile.venue_probs(x)[np.arange(len(y)), y] + 1e-12).mean())


def _platt(det: np.ndarray, prob: np.ndarray, right: np.ndarray) -> tuple[float, float, float]:
    """Logistic regression of ``right`` on (logit det, log p), a little L2 on the slopes, by
    Newton's method; a fixed (1, ½, 0) when the photos hold no wrong box or no right one."""
    if right.all() or not right.any():
        return (1.0, 0.5, 0.0)
    d = np.clip(det, 1e-6, 1 - 1e-6)
    f = np.stack([np.log(d / (1 - d)), np.log(np.clip(prob, 1e-6, 1)), np.ones(len(d))], 1)
    theta = np.array([1.0, 0.5, 0.0])
    reg = np.diag([0.1, 0.1, 0.0])
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(f @ theta, -40, 40)))
        grad = f.T @ (p - right) + reg @ theta
        hess = (f * (p * (1 - p))[:, None]).T @ f + reg + 1e-6 * np.eye(3)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-8:
            break
    return (float(theta[0]), float(theta[1]), float(theta[2]))


def _shipped_preds(read: PhotoRead) -> list[Pred]:
    """The detections the shipped models make of a photo (det × √p, the turns averaged)."""
    p = read.det_probs[0].astype(np.float64, copy=True)
    unsure = p.max(1) < SURE
    p[unsure] = read.det_probs[:, unsure].mean(0)
    return _preds(read, p, read.det[:, 4] * np.sqrt(p.max(1)))


def known_embeddings(rec: TileRecognizer) -> np.ndarray:
    """The embeddings of the styles the shipped models know, which the gate measures crops
    against; a missing or stale file is an enrolment error naming it."""
    assert rec.classifier is not None
    try:
        return load_known(rec.classifier.path.parent / KNOWN_FILE, model_hash(rec.classifier.path))
    except ValueError as exc:
        raise EnrolError([str(exc)]) from None


def _preds(read: PhotoRead, probs: np.ndarray, conf: np.ndarray) -> list[Pred]:
    return [
        (float(r[0]), float(r[1]), float(r[2]), float(r[3]), int(c), float(s))
        for r, c, s in zip(read.det, probs.argmax(1), conf, strict=True)
    ]


def _right(read: PhotoRead, probs: np.ndarray) -> np.ndarray:
    """Per candidate: does it hit a labelled tile (IoU ≥ 0.5) and name it right."""
    if len(read.det) == 0:
        return np.zeros(0, bool)
    g = np.array([[b.x1, b.y1, b.x2, b.y2] for b in read.gt]).reshape(-1, 4)
    ious = iou_matrix(read.det[:, :4].astype(np.float64), g)
    if ious.shape[1] == 0:
        return np.zeros(len(read.det), bool)
    cls = np.array([b.cls for b in read.gt])[ious.argmax(1)]
    out: np.ndarray = (ious.max(1) >= 0.5) & (cls == probs.argmax(1))
    return out


def read_photos(rec: TileRecognizer, photos: Sequence[Photo], seed: int = 0) -> list[PhotoRead]:
    """What enrolment needs of each photo (the detector and classifier passes: the slow part)."""
    if rec.classifier is None or rec.profile is not None:
        raise ValueError("enrolment needs the shipped detector + classifier without a profile")
    rng = np.random.default_rng(seed)
    return [_read(rec, p, rng) for p in photos]


def enrol(
    rec: TileRecognizer,
    photos: Sequence[Photo],
    name: str,
    seed: int = 0,
    source: str = "labels",
    reads: Sequence[PhotoRead] | None = None,
    detector: tuple[Path, Path | None, str] | None = None,
) -> VenueProfile:
    """Fit a venue profile on ``photos`` (already :func:`check`-ed) for ``rec``'s models;
    ``reads``: their :func:`read_photos`, when made already. ``detector``: the shipped
    detector's file, the profile's own (``rec`` reads with it) or None, and why
    (vision/enrol_detector.py); None: ``rec``'s detector is the shipped one, not tried."""
    start = time.perf_counter()
    reads = list(reads) if reads is not None else read_photos(rec, photos, seed)
    assert rec.classifier is not None
    w0, b0 = last_layer(rec)
    dim = w0.shape[1]

    known = known_embeddings(rec)

    def draft(fitted: Fitted, pull: float, t: float) -> VenueProfile:
        (w, b), (protos, have), venue = fitted
        return VenueProfile(
            name, w, b, protos, have, pull, t, venue, GATE_MARGIN, None, 0.5, {}, known=known
        )

    def fit(x: np.ndarray, y: np.ndarray) -> Fitted:
        return fit_head(x, y, w0, b0), prototypes(x, y, dim), unit(x)

    folds = min(len(reads), FOLDS)
    split: list[tuple[Fitted, list[int]]] = []  # (fitted on the other photos, the held-out ones)
    for k in range(folds):
        held = [i for i in range(len(reads)) if i % folds == k]
        train = [i for i in range(len(reads)) if i % folds != k] if folds > 1 else held
        x = np.concatenate([reads[i].train_x for i in train])
        y = np.concatenate([reads[i].train_y for i in train])
        split.append((fit(x, y), held))
    pull, temperature = DEFAULT_PULL, 1.0
    if folds > 1:  # the pull and temperature that name held-out tiles best
        score = {}
        for pl in PULLS:
            for t in TEMPERATURES:
                score[(pl, t)] = sum(
                    _nll(draft(protos, pl, t), reads[i].train_x, reads[i].train_y)
                    * len(reads[i].train_y)
                    for protos, held in split
                    for i in held
                )
        pull, temperature = min(score, key=lambda key: score[key])
    oof: list[tuple[np.ndarray, np.ndarray]] = [
        (np.zeros((0, NUM_CLASSES)), np.zeros(0, bool))
    ] * len(reads)
    for fitted, held in split:
        for i in held:
            oof[i] = runtime_probs(
                draft(fitted, pull, temperature), reads[i].det_emb, reads[i].det_probs
            )
    inside = np.concatenate([g for _, g in oof])
    det = np.concatenate([r.det[:, 4] for r in reads])[inside]
    prob = np.concatenate([p.max(1) for p, _ in oof])[inside]
    right = np.concatenate([_right(r, p) for r, (p, _) in zip(reads, oof, strict=True)])[inside]
    x = np.concatenate([r.train_x for r in reads])
    y = np.concatenate([r.train_y for r in reads])
    final = draft(fit(x, y), pull, temperature)
    # The confidence inside the gate: the shipped det × √p at 0.4, or (from CALIBRATE_FROM
    # photos) a Platt calibration at its best threshold, whichever reads the held-out photos
    # better; and the profile itself only if it reads them better than the shipped models.
    shipped = evaluate([(r.gt, _shipped_preds(r)) for r in reads], DEFAULT_MIN_CONF).tile_accuracy
    options: dict[tuple[float, float, float] | None, dict[float, float]] = {None: {}}
    if folds >= CALIBRATE_FROM:
        options[_platt(det, prob, right)] = {}
    for platt, accuracy in options.items():
        final.platt = platt
        for t in THRESHOLDS if platt is not None else (DEFAULT_MIN_CONF,):
            final.keep = t  # the shipped rule's confidences outside the gate scale with it
            samples = [
                (r.gt, _preds(r, p, final.confidence(r.det[:, 4], p.max(1), g)))
                for r, (p, g) in zip(reads, oof, strict=True)
            ]
            accuracy[t] = evaluate(samples, t).tile_accuracy
    tops = {platt: max(acc.values()) for platt, acc in options.items()}
    final.platt = max(tops, key=lambda platt: (tops[platt], platt is None))
    accuracy = options[final.platt]
    top = tops[final.platt]
    best = [t for t in sorted(accuracy) if accuracy[t] >= top - 1e-9]
    final.keep = float(best[len(best) // 2])
    active = folds == 1 or top > shipped
    if not active:  # no better than the shipped models on the held-out photos: read as them
        final.venue, final.platt, final.keep = final.venue[:0], None, DEFAULT_MIN_CONF
    shown = np.bincount([b.cls for p in photos for b in p.boxes], minlength=NUM_CLASSES)
    shipped_detector, final.detector, detector_report = detector or (
        rec.detector.path,
        None,
        "shipped (not fine-tuned)",
    )
    final.models = {
        DETECTOR_FILE: model_hash(shipped_detector),
        CLASSIFIER_FILE: model_hash(rec.classifier.path),
    }
    held_out = "held-out photos" if folds > 1 else "the one photo itself (nothing held out)"
    final.info = {
        "fitted": {
            "detector": detector_report,
            "head": f"last layer refitted by softmax regression on {len(x)} crops (labelled "
            "boxes ×3 jittered, detector boxes; 4 quarter turns each), shipped layer as the "
            f"L2 prior ({PRIOR})",
            "prototypes": f"{int(final.enrolled.sum())} classes, the same crops",
            "gate": f"a crop closer (cosine) to one of the {len(final.venue)} venue crops than "
            f"to every one of the {len(known)} tiles of the known styles, by more than "
            f"{GATE_MARGIN}; outside it, the shipped classifier and rule",
            "pull_temperature": f"least held-out log loss ({held_out})"
            if folds > 1
            else f"defaults {DEFAULT_PULL} / 1 (one photo: nothing held out)",
            "confidence": f"Platt on (logit det, log p): a tile, named right ({held_out})"
            if final.platt is not None
            else "the shipped det × √p"
            + (f" (fewer than {CALIBRATE_FROM} photos)" if folds < CALIBRATE_FROM else ""),
            "keep": f"best end-to-end tile accuracy, {held_out}: {top:.4f}"
            if final.platt is not None
            else f"the shipped {DEFAULT_MIN_CONF}",
            "active": "yes"
            if active and folds > 1
            else "yes (one photo: nothing held out to check it on)"
            if active
            else f"no: on held-out photos it read {top:.4f} of the tiles, the shipped models "
            f"{shipped:.4f}; every crop is read as the shipped models read it",
        },
        "held_out_shipped_accuracy": round(shipped, 4),
        "source": source,
        "photos": [str(p.path) for p in photos],
        "tiles": int(shown.sum()),
        "per_class": {class_label(c): int(n) for c, n in enumerate(shown) if n},
        "not_enrolled": [class_label(c) for c in range(NUM_CLASSES) if not shown[c]],
        "folds": folds,
        "seed": seed,
        "held_out_accuracy": {str(t): round(a, 4) for t, a in accuracy.items()},
        "seconds": round(time.perf_counter() - start, 1),
    }
    return final
