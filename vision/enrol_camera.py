"""Enrol a venue's tile faces from its own overhead camera (``mjref vision enrol``).

The table camera films a face at 12–20 px, through the venue's lens, light and compression. The
classifier learnt faces from photos and renders, and names a tile set it never saw that small
about three times in four (the bench's venue look: 0.77 of river crops); the stabiliser and the
rules then have to make up the rest. A venue runs this once per tile set and camera: the
referee lays the tiles in the four rivers as the printed plan says (:func:`plan`, one clip per
round, nobody's hands over the table), and the camera films each round for a few seconds.
Each face is then cut exactly as the run time cuts it (``TableReader.face_crops``) and named by
the plan, and a venue profile (vision/profile.py) is fitted on the classifier's embedding of
those crops: its last layer refitted, with a weak pull to the shipped layer since the crops are
many, and prototypes of each face.

Everything is chosen on a round held out (each round's faces lie elsewhere on the table): the
prototypes' pull, the temperature, and how close to the enrolled crops a crop must be to be
read as the venue's (the gate of vision/profile.py; the known styles are photos and renders, so
the camera's own crops of them are far from both). The profile is kept only when it names the
held-out rounds better than the shipped classifier; else it reads every crop as the shipped
one does.

Where torch is installed (``./run train-setup``), the classifier itself is also fine-tuned on
the crops (vision/enrol_tune.py): first on all rounds but the last, and when it names that round
better than the refitted layer does, again on all of them; the profile then holds that network
and reads its features with its own last layer.

Each clip also sets the camera's tile test (vision/slot_test.py) before a face is cut: the
plan's slots hold a tile and every other slot shows the felt, so the thresholds are put between
the two. On a light felt the defaults miss the venue's white faces, and the run time then reads
with the profile's test.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from referee.tiles import FIRST_FLOWER
from vision.camera import TableReader
from vision.classes import BACK, NUM_CLASSES, class_label, class_of_label
from vision.detect import CLASSIFIER_FILE, DETECTOR_FILE, SURE, TileRecognizer, crop_array
from vision.enrol import (
    EnrolError,
    Fitted,
    fit_head,
    known_embeddings,
    last_layer,
    prototypes,
    runtime_probs,
)
from vision.profile import VenueProfile, model_hash, unit
from vision.slot_test import SlotPixels, SlotTest, fit_slot_test
from vision.zones import MELD_CELLS, RIVER_COLS, RIVER_ROWS, SEATS, all_slots

ROUNDS = 4  # layouts of the plan: each face lies at 4 places a round, 16 in all
SHIFT = 9  # a round lays the kinds this many slots on from the round before
RIVERS = tuple(f"{seat}/river/{i}" for seat in SEATS for i in range(RIVER_COLS * RIVER_ROWS))
MELDS = tuple(f"{seat}/meld/{i}" for seat in SEATS for i in range(MELD_CELLS, 2 * MELD_CELLS))
BACKS = tuple(f"{seat}/meld/{i}" for seat in SEATS for i in range(2))  # the flowers, face down
TURNED = tuple(f"{seat}/meld/{MELD_CELLS + 1}" for seat in SEATS)  # laid sideways, as claimed
SLOTS = RIVERS + MELDS + BACKS  # 144: the whole set, 4 of each kind and the 8 flowers
FRAMES = 5  # frames taken from each clip (noise and compression differ) …
SPACING_S = 0.4  # … this far apart
MISSING = 6  # a round may leave this many of its slots without a tile (a tile short)
MOVED = 40.0  # a slot's crop this far (mean grey level) from its median over the clip: an arm
PRIOR = 0.001  # the shipped last layer's pull: weak, the crops are hundreds (enrol.py: 0.1)
PULLS = (0.0, 5.0, 10.0)
TEMPERATURES = (0.7, 1.0, 1.4)
MARGINS = (-2.0, -0.1, 0.0, 0.06)  # −2: every crop is the venue's

Laid = dict[str, tuple[str, bool]]  # slot key → (tile label, lies sideways)


def plan(round_: int) -> Laid:
    """Round ``round_``'s layout. The 34 kinds in turn, beginning with the kind SHIFT·r, fill
    the four rivers (East's first, each row by row from its player's left), then each player's
    second meld (its second tile sideways, as a claimed one); each player's first meld holds two
    flowers face down, as a concealed kong's backs. The same face lies elsewhere each round."""
    faces = {
        key: (class_label((j + SHIFT * round_) % FIRST_FLOWER), key in TURNED)
        for j, key in enumerate(RIVERS + MELDS)
    }
    return faces | {key: (class_label(BACK), False) for key in BACKS}


def plan_text() -> str:
    """The plan as a referee lays it: per round and seat, its river's rows, then its melds."""
    lines = []
    for r in range(ROUNDS):
        laid = plan(r)
        lines.append(f"round {r + 1} (clip {r + 1}):")
        for seat in SEATS:
            rows = [
                " ".join(
                    laid[f"{seat}/river/{row * RIVER_COLS + col}"][0] for col in range(RIVER_COLS)
                )
                for row in range(RIVER_ROWS)
            ]
            melds = [
                label + ("(sideways)" if sideways else "")
                for key, (label, sideways) in laid.items()
                if key.startswith(f"{seat}/meld/")
            ]
            lines.append(f"  {seat}'s river, rows from the player out: " + " | ".join(rows))
            lines.append(f"  {seat}'s melds, from the player's left: " + " ".join(melds))
    return "\n".join(lines)


@dataclass
class RoundCrops:
    """One round's faces, as the run time cuts them, and their tiles by the plan."""

    crops: list[Image.Image]
    labels: list[int]
    test: SlotTest  # the tile test fitted on the clip's laid and empty slots


def round_crops(
    reader: TableReader, frames: Iterable[tuple[float, np.ndarray]], round_: int, name: str
) -> RoundCrops:
    """The plan's tiles in FRAMES frames SPACING_S apart from the start of a clip of round
    ``round_`` (frames as (t, RGB), read as they come), cut with the tile test fitted on the
    first of them (:func:`clip_slot_test`). A crop far from its slot's median over those
    frames (an arm passing) is left out; a clip whose table cannot be placed or whose slots are
    short of tiles is refused."""
    laid = plan(round_)
    seen: dict[str, list[Image.Image]] = {key: [] for key in SLOTS}
    taken, due = 0, -np.inf
    for t, frame in frames:
        if t < due:
            continue
        if reader.fitted_test is None:  # the table placed first (no slots cut), then the test
            reader.face_crops(frame, t, ())
            if reader.calibration is None:
                continue  # the markers not found yet
            reader.fitted_test = clip_slot_test(reader, frame)
        for key, crop in reader.face_crops(frame, t, SLOTS).items():
            seen[key].append(crop)
        taken, due = taken + 1, t + SPACING_S
        if taken == FRAMES:
            break
    if reader.calibration is None:
        message = reader.notices[-1].message if reader.notices else "no frames"
        raise EnrolError([f"{name}: the table's markers were not found ({message})"])
    empty = [key for key, crops in seen.items() if not crops]
    if len(empty) > MISSING:
        raise EnrolError(
            [
                f"{name}: {len(empty)} of the plan's {len(SLOTS)} slots show no tile (e.g. "
                f"{', '.join(empty[:3])}); lay round {round_ + 1} of the plan "
                "(mjref vision enrol --plan) and film it with no hands over the table"
            ]
        )
    assert reader.fitted_test is not None
    out = RoundCrops([], [], reader.fitted_test)
    for key, faces in seen.items():
        if not faces:
            continue
        grey = np.stack([np.asarray(c.convert("L"), np.float32) for c in faces])
        steady = np.abs(grey - np.median(grey, 0)).mean((1, 2)) <= MOVED
        out.crops += [c for c, ok in zip(faces, steady, strict=True) if ok]
        out.labels += [class_of_label(laid[key][0])] * int(steady.sum())
    return out


def clip_slot_test(reader: TableReader, frame: np.ndarray) -> SlotTest:
    """The tile test for a clip's camera: the defaults where they find the plan's tiles and
    nothing else (they were measured on every other domain of the bench; a fitted test on the
    parlour's near-black felt, 0.107 from its colour, lost hands), else the test fitted on the
    frame: the plan's slots hold a tile, the others (the walls, hands, penalty rows and unused
    meld cells) show the felt. Where that does not tell them apart either (tiles missing, or
    lying on empty slots: a plan laid wrong), the defaults, and the clip is judged by them."""
    empty_keys = [s.key for s in all_slots() if s.key not in SLOTS]

    def tested(test: SlotTest) -> tuple[int, bool, dict[str, SlotPixels]]:
        """The plan's tiles the test misses, whether it finds one on an empty slot, pixels."""
        reader.fitted_test = test
        seen = reader.tile_tests(frame, [*SLOTS, *empty_keys])
        missed = sum(not seen[k][0] for k in SLOTS)
        return missed, any(seen[k][0] for k in empty_keys), {k: p for k, (_, p) in seen.items()}

    missed, junk, pixels = tested(SlotTest())
    if not missed and not junk:
        return SlotTest()
    fitted = fit_slot_test([pixels[k] for k in empty_keys], [pixels[k] for k in SLOTS])
    missed, junk, _ = tested(fitted)
    return fitted if missed <= MISSING and not junk else SlotTest()


@dataclass
class _Embedded:
    shipped: np.ndarray  # [4, n, 43] the shipped probs at 0–3 quarter turns
    emb: np.ndarray  # [4, n, C]
    y: np.ndarray  # [n]


def _embed(rec: TileRecognizer, got: RoundCrops) -> _Embedded:
    x = crop_array(got.crops)
    runs = [rec.run_with_embedding(np.rot90(x, k, axes=(2, 3))) for k in range(4)]
    return _Embedded(
        np.stack([p for p, _ in runs]),
        np.stack([e for _, e in runs]).astype(np.float64),
        np.array(got.labels, np.int64),
    )


def enrol_camera(
    rec: TileRecognizer,
    rounds: Sequence[RoundCrops],
    name: str,
    tune: bool = True,
    work: Path | None = None,
) -> VenueProfile:
    """A venue profile fitted on ``rounds`` of the plan (two at least: one is held out);
    ``tune``: also fine-tune the classifier where torch is installed, its files in ``work``
    (a new temporary folder when None; the profile's ``save`` copies the one it keeps)."""
    if len(rounds) < 2:
        raise EnrolError([f"{len(rounds)} round(s): two at least, one to hold out"])
    if rec.classifier is None or rec.profile is not None:
        raise ValueError("enrolment needs the shipped detector + classifier without a profile")
    start = time.perf_counter()
    w0, b0 = last_layer(rec)
    known = known_embeddings(rec)
    data = [_embed(rec, r) for r in rounds]

    def fitted(parts: list[_Embedded]) -> Fitted:
        x = np.concatenate([p.emb.reshape(-1, p.emb.shape[-1]) for p in parts])
        y = np.concatenate([np.tile(p.y, 4) for p in parts])
        upright = np.concatenate([p.emb[0] for p in parts])
        return fit_head(x, y, w0, b0, PRIOR), prototypes(x, y, x.shape[1]), unit(upright)

    def draft(fit: Fitted, pull: float, t: float, margin: float) -> VenueProfile:
        (w, b), (protos, have), venue = fit
        return VenueProfile(
            name, w, b, protos, have, pull, t, venue, margin, None, 0.4, {}, known=known
        )

    folds = [(fitted([d for j, d in enumerate(data) if j != i]), data[i]) for i in range(len(data))]
    total = sum(len(d.y) for d in data)
    shipped = sum(int((_shipped(d, SURE).argmax(1) == d.y).sum()) for d in data) / total
    score: dict[tuple[float, float, float], tuple[float, float]] = {}
    for pull in PULLS:
        for t in TEMPERATURES:
            for margin in MARGINS:
                right, loss = 0, 0.0
                for fit, held in folds:
                    p = runtime_probs(draft(fit, pull, t, margin), held.emb, held.shipped)[0]
                    right += int((p.argmax(1) == held.y).sum())
                    loss -= float(np.log(p[np.arange(len(held.y)), held.y] + 1e-12).sum())
                score[(pull, t, margin)] = (right / total, -loss / total)
    pull, t, margin = max(score, key=lambda k: score[k])
    held_out = score[(pull, t, margin)][0]
    final = draft(fitted(data), pull, t, margin)
    final.slot_test = SlotTest(  # the loosest a round needed: each was checked on its clip
        *(min(getattr(r.test, k) for r in rounds) for k in ("chroma", "pale"))
    )
    active = held_out > shipped
    if not active:
        final.venue = final.venue[:0]
    final.models = {
        DETECTOR_FILE: model_hash(rec.detector.path),
        CLASSIFIER_FILE: model_hash(rec.classifier.path),
    }
    shown = np.bincount(np.concatenate([d.y for d in data]), minlength=NUM_CLASSES)
    final.info = {
        "fitted": {
            "detector": "shipped (the camera reads slots, not boxes)",
            "classifier": "shipped",
            "head": f"last layer refitted by softmax regression on {4 * total} crops (the "
            f"camera's crops of {len(rounds)} plan rounds, 4 quarter turns each), shipped "
            f"layer as the L2 prior ({PRIOR})",
            "prototypes": f"{int(final.enrolled.sum())} classes, the same crops",
            "gate": "every crop is the venue's"
            if margin <= -2
            else f"a crop closer (cosine) to one of the {len(final.venue)} venue crops than to "
            f"every one of the {len(known)} tiles of the known styles, by more than {margin}",
            "pull_temperature_margin": "best accuracy on a round held out, then least log loss",
            "slot_test": _slot_test_text(final.slot_test),
            "active": "yes"
            if active
            else f"no: on rounds held out it named {held_out:.4f} of the faces, the shipped "
            f"classifier {shipped:.4f}; every crop is read as the shipped classifier reads it",
        },
        "source": "camera",
        "held_out_accuracy": round(held_out, 4),
        "held_out_shipped_accuracy": round(shipped, 4),
        "rounds": len(rounds),
        "crops": total,
        "per_class": {class_label(c): int(n) for c, n in enumerate(shown) if n},
        "not_enrolled": [class_label(c) for c in range(NUM_CLASSES) if not shown[c]],
        "seconds": round(time.perf_counter() - start, 1),
    }
    if not tune:
        return final
    held = data[-1]  # what the profile reads of the last round without a classifier of its own
    if active:
        last, reader = (
            runtime_probs(draft(folds[-1][0], pull, t, margin), held.emb, held.shipped)[0],
            "the refitted last layer",
        )
    else:
        last, reader = _shipped(held, SURE), "the shipped classifier"
    without = float((last.argmax(1) == held.y).mean())
    tuned = _tuned(rec, rounds, (without, reader), final, work)
    tuned.info["seconds"] = round(time.perf_counter() - start, 1)
    return tuned


def _tuned(
    rec: TileRecognizer,
    rounds: Sequence[RoundCrops],
    without: tuple[float, str],
    profile: VenueProfile,
    work: Path | None,
) -> VenueProfile:
    """``profile`` with its own classifier, fine-tuned on the rounds' crops, where that names
    the last round (trained on the others) better than ``profile`` reads it (``without``: that
    accuracy, and by what: the refitted layer or, where it was not kept, the shipped
    classifier); else ``profile``, its info saying why."""
    from vision.enrol_tune import available, tune_classifier

    missing = available()
    if missing is not None:
        profile.info["fitted"]["classifier"] = f"shipped: {missing}"
        return profile
    assert rec.classifier is not None
    folder = work or Path(tempfile.mkdtemp(prefix="mjref-enrol-"))
    folder.mkdir(parents=True, exist_ok=True)
    x = [np.stack([np.asarray(c.convert("RGB"), np.uint8) for c in r.crops]) for r in rounds]
    y = [np.array(r.labels, np.int64) for r in rounds]
    trial, seconds = tune_classifier(
        rec.classifier.path, np.concatenate(x[:-1]), np.concatenate(y[:-1]), folder / "trial.onnx"
    )
    trial_rec = TileRecognizer(detector=rec.detector.path, classifier=trial, turns=rec.turns)
    held = _embed(trial_rec, rounds[-1])
    accuracy = float((_shipped(held, SURE).argmax(1) == held.y).mean())
    fitted = profile.info["fitted"]
    versus = (
        f"on the last round, trained on the others, it named {accuracy:.4f} of the faces, "
        f"{without[1]} {without[0]:.4f}"
    )
    profile.info["tuned_held_out_accuracy"] = round(accuracy, 4)
    if accuracy <= without[0]:
        fitted["classifier"] = f"shipped: fine-tuned, {versus}, so not kept"
        return profile
    own, more = tune_classifier(
        rec.classifier.path, np.concatenate(x), np.concatenate(y), folder / "classifier.onnx"
    )
    tuned_rec = TileRecognizer(detector=rec.detector.path, classifier=own, turns=rec.turns)
    w, b = last_layer(tuned_rec)
    emb = tuned_rec.embed(crop_array([c for r in rounds for c in r.crops])).astype(np.float64)
    protos, have = prototypes(emb, np.concatenate(y), emb.shape[1])
    fitted["head"] = "the fine-tuned classifier's own last layer"
    fitted["prototypes"] = f"{int(have.sum())} classes, unused (no pull)"
    fitted["gate"] = "every crop is the venue's (the known styles are the shipped features)"
    fitted["pull_temperature_margin"] = "none: the fine-tuned layer as it is, temperature 1"
    fitted["active"] = "yes"
    fitted["classifier"] = (
        f"fine-tuned on the camera's crops of {len(rounds)} rounds, turned at random "
        f"(vision/enrol_tune.py, {(seconds + more) / 60:.1f} min for two runs): {versus}"
    )
    return VenueProfile(
        profile.name,
        w,
        b,
        protos,
        have,
        0.0,
        1.0,
        unit(emb),
        -2.0,
        None,
        profile.keep,
        dict(profile.models),
        dict(profile.info),
        classifier=own,
        slot_test=profile.slot_test,
    )


def _slot_test_text(test: SlotTest) -> str:
    default = SlotTest()
    if test == default:
        return "the defaults (the faces stand out of the felt)"
    return (
        f"fitted on the rounds' laid and empty slots: a tile's colour {test.chroma:.3f} from "
        f"the felt's, its face {test.pale:.2f} × the felt (defaults {default.chroma}, "
        f"{default.pale})"
    )


def _shipped(e: _Embedded, sure: float) -> np.ndarray:
    p: np.ndarray = e.shipped[0].astype(np.float64, copy=True)
    unsure = p.max(1) < sure
    p[unsure] = e.shipped[:, unsure].mean(0)
    return p
