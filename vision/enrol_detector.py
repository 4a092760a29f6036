"""Enrolment's detector: fine-tune the shipped one on the venue's photos, keep it only if better.

The photos are few, so the choice is made as the profile's other parts are made: on photos the
fine-tuning did not see. Every fifth photo (the last of them, with fewer than five) is held back
from the detector's training, and both detectors read the held-back photos with the shipped
classifier and rule (det × √p at 0.4); the fine-tuned one is kept when it finds more of their
tiles (detection recall, then end-to-end tile accuracy: the classifier is fitted after it). With
one photo nothing can be held back: it is trained and checked on that photo, and the report says
so.

The styles the shipped models know are kept by the run time: an image whose tiles the profile's
gate does not take for the venue's is read with the shipped detector (vision/detect.py), since a
box drawn a little otherwise can change how a tile is named. Rendered scenes of the glyph and
text faces (drawn from the fonts, so a venue has them too, :func:`known_scenes`) check a profile
whose classifier is fine-tuned too, whole and tile by tile (vision/enrol_classifier.py).
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vision.dataset import Box
from vision.detect import DEFAULT_MIN_CONF, TileRecognizer
from vision.enrol import Photo
from vision.metrics import EvalResult, Pred, evaluate, paired
from vision.synth.bank import CropBank
from vision.synth.scene import DEFAULT_LOOK, Look, render_scene

HOLD_EVERY = 5
KNOWN_SEEDS = range(7100, 7112)  # rendered known-style scenes (away from the bench's and tests')
# of --max-minutes, left for reading the photos and the classifier (3.5–4 min of 10 photos on 2
# cores): the detector's epochs are what small tiles want most (bench/README.md, session 63)
RESERVE_MINUTES = 4.5


@dataclass
class DetectorChoice:
    """The detector enrolment keeps, and why."""

    reader: TileRecognizer | None  # reads with the kept fine-tuned detector; None: the shipped
    report: str
    figures: dict[str, Any] = field(default_factory=dict)
    work: tempfile.TemporaryDirectory[str] | None = None  # holds ``path`` until saved

    @property
    def path(self) -> Path | None:
        """The fine-tuned detector's file, when it was kept."""
        return None if self.reader is None else self.reader.detector.path


def held_back(count: int) -> list[int]:
    """The photos the fine-tuning does not see: every fifth, at least one (none of one)."""
    if count < 2:
        return []
    return [i for i in range(count) if i % HOLD_EVERY == HOLD_EVERY - 1] or [count - 1]


def readings(
    rec: TileRecognizer, photos: Sequence[Photo]
) -> list[tuple[Sequence[Box], list[Pred]]]:
    """``rec``'s detections of each photo down to 0.01 beside its labels, for the metrics."""
    return [
        (p.boxes, [(d.x1, d.y1, d.x2, d.y2, d.cls, d.conf) for d in rec.detect(p.image, 0.01)])
        for p in photos
    ]


def reading(rec: TileRecognizer, photos: Sequence[Photo]) -> EvalResult:
    """How ``rec`` reads ``photos`` at the shipped threshold."""
    return evaluate(readings(rec, photos), DEFAULT_MIN_CONF)


def rendered_photos(
    seeds: Iterable[int], style: str | None = None, look: Look = DEFAULT_LOOK
) -> list[Photo]:
    """Labelled overhead scenes of ``style``'s faces (None: the glyph and text faces the
    shipped models know), one per seed: held-out styles and known ones for checks."""
    bank = CropBank(real_share=0.0, style=style)
    out = []
    for seed in seeds:
        scene = render_scene(random.Random(seed), bank, look=look)
        name = f"{style or 'known'}-{seed}"
        out.append(Photo(Path(name), scene.image, [Box(*b) for b in scene.boxes]))
    return out


def known_scenes() -> list[Photo]:
    """Rendered scenes of the faces the shipped models know (glyph and text)."""
    return rendered_photos(KNOWN_SEEDS)


def known_changes(shipped: TileRecognizer, tuned: TileRecognizer) -> dict[str, int]:
    """Tile by tile on :func:`known_scenes`, what ``tuned`` (a fine-tuned detector, or a
    profile) changes, each at its own threshold."""
    scenes = known_scenes()
    return paired(
        readings(shipped, scenes), shipped.min_conf, readings(tuned, scenes), tuned.min_conf
    )


def choose_detector(
    rec: TileRecognizer,
    photos: Sequence[Photo],
    minutes: float,
    seed: int = 0,
    say: Callable[[str], None] = print,
) -> DetectorChoice:
    """Fine-tune ``rec``'s (shipped) detector on ``photos`` within ``minutes`` and decide."""
    from vision.adapt import adapt_detector, available

    missing = available()
    if missing is not None:
        return DetectorChoice(None, f"shipped: {missing}")
    hold = held_back(len(photos))
    train = [p for i, p in enumerate(photos) if i not in hold]
    check = [photos[i] for i in hold] or list(photos)
    work = tempfile.TemporaryDirectory(prefix="mjref-enrol-")
    adapted = adapt_detector(
        [(p.image, p.boxes) for p in train],
        rec.detector.path,
        Path(work.name),
        max(minutes - RESERVE_MINUTES, 1.0),
        seed,
        say,
    )
    assert rec.classifier is not None
    tuned = TileRecognizer(detector=adapted.path, classifier=rec.classifier.path, turns=rec.turns)
    before, after = reading(rec, check), reading(tuned, check)
    where = f"{len(check)} held-back photo(s)" if hold else "the one photo it trained on"
    figures = {
        "held_back": len(check) if hold else 0,
        "shipped": before.to_json(),
        "adapted": after.to_json(),
        "epochs": adapted.epochs,
        "training_images": adapted.images,
        "seconds": round(adapted.seconds, 1),
    }
    said = (
        f"fine-tuned {adapted.epochs} epoch(s) on {adapted.images} images from {len(train)} "
        f"photo(s) in {adapted.seconds / 60:.1f} min; on {where}, tile accuracy / detection "
        f"recall {after.tile_accuracy:.4f} / {after.detection_recall:.4f}, the shipped "
        f"detector {before.tile_accuracy:.4f} / {before.detection_recall:.4f}"
    )
    better = (after.detection_recall, after.tile_accuracy) > (
        before.detection_recall,
        before.tile_accuracy,
    )
    if not better:
        work.cleanup()
        return DetectorChoice(None, f"shipped: {said}: not better", figures)
    return DetectorChoice(tuned, f"own: {said}", figures, work)
