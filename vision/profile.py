"""A venue profile: what enrolment fitted for one venue's tile set, and how the run time uses it.

The shipped classifier names a tile set it never saw mostly right but unsurely, so the tiles it
names right fall under the keep threshold. A profile (``mjref tiles enrol``, ``vision/enrol.py``)
holds three things fitted on a few photos of the venue's tiles:

* the classifier's last layer refitted on the venue's tiles (``head.npz``: ``weight`` [43, C],
  ``bias`` [43], applied to the classifier's ``embedding`` output) and prototypes of its faces
  (``prototypes`` [43, C], the mean of the embedding over each enrolled class's tiles,
  ``enrolled`` [43]): a crop's logits are the refitted layer's plus
  ``pull · (cos(embedding, prototype) − 1)`` for each enrolled class, over a temperature; a
  tile that looks like the venue's own 5m is pulled to 5m, and a class the photos did not
  show keeps about what the shipped layer says;
* the confidence: ``sigmoid(a·logit(det) + b·log(p) + c)`` of the detector score and the
  classifier's probability (Platt scaling on the enrolment detections: "is it a tile, named
  right"), in place of the shipped ``det × √p``;
* the keep threshold for that confidence (the best tile accuracy on the enrolment photos);
* the gate: which crops are the venue's. A crop is read as above only when its embedding is
  closer (cosine, by more than ``margin``) to one of the venue's enrolled crops (``venue``
  [m, C]) than to every tile of the styles the shipped models know (``models/known_styles.npz``,
  vision/known_styles.py); every other crop keeps the shipped classifier's own ``probs`` and the
  shipped ``det × √p`` (scaled so its 0.4 falls on the keep threshold, which keeps the same
  tiles): on the styles the models know a profile changes nothing but the tiles it takes for
  the venue's. A profile whose reading did not beat the shipped one on held-out enrolment
  photos has no ``venue`` crops: it reads everything as the shipped models do.

A profile may also hold its own detector (``detector.onnx``, the shipped one fine-tuned on the
venue's tiles by enrolment, vision/adapt.py), which the run time then uses in place of the
shipped one: same network and side, so the same cost per photo and frame; an image the gate does
not take for the venue's is read again with the shipped detector (vision/detect.py). A profile
without one keeps the shipped detector. A profile enrolled from the table camera
(vision/enrol_camera.py) also holds the camera's tile test (vision/slot_test.py), fitted on the
plan's clips, and may hold its own classifier (``classifier.onnx``, the shipped one fine-tuned on
the camera's crops, vision/enrol_tune.py): its head and prototypes then read that file's
features, and every crop is the venue's (the known styles are the shipped classifier's features,
and the camera films only the venue's tiles). A profile enrolled from photos may hold its own
classifier too (vision/enrol_classifier.py), ``gated``: the shipped classifier's features still
decide which images show the venue's tiles (a quarter of an image's sure boxes inside the gate),
and only those are read by its own file, so the styles the models know are read as before.

``profile.json`` names all of it, the tiles it was fitted on, and the SHA-256 of the model
files it was fitted against (for its own detector or classifier: the shipped one it was adapted
from, and its own file's): a profile is refused by other models (its head reads their features)
and when its own file is not the one it names. Only numpy, onnxruntime and the JSON/NPZ/ONNX files
are needed to use one.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.classes import NUM_CLASSES
from vision.slot_test import SlotTest

PROFILE_JSON = "profile.json"
HEAD_NPZ = "head.npz"
DETECTOR_ONNX = "detector.onnx"  # the profile's own detector, when enrolment kept one
CLASSIFIER_ONNX = "classifier.onnx"  # its own classifier, when camera enrolment kept one
KNOWN_FILE = "known_styles.npz"  # beside the classifier: the known styles (vision/known_styles.py)
FORMAT = 2  # 2: the gate against the known styles (1: a cosine to the venue's alone)
SHIPPED_KEEP = 0.4  # vision.detect.DEFAULT_MIN_CONF, the shipped rule's threshold
DET_FLOOR = 0.05  # enrolment calibrates the boxes the detector scores this or more: none below


class ProfileError(ValueError):
    """A profile that cannot be used: missing, corrupt, or fitted against other models."""


def model_hash(path: Path) -> str:
    """The first 16 hex digits of the file's SHA-256: the model version a profile names."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(x, -40, 40)))
    return out


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, 1e-6, 1 - 1e-6)
    out: np.ndarray = np.log(q / (1 - q))
    return out


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray = e / e.sum(1, keepdims=True)
    return out


def unit(x: np.ndarray) -> np.ndarray:
    """Each row (the last axis) scaled to length 1; a zero row stays zero."""
    out: np.ndarray = x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-9)
    return out


def load_known(path: Path, classifier_hash: str) -> np.ndarray:
    """The known styles' unit embeddings ``[n, C]`` (float32), the other side of the gate
    (:meth:`VenueProfile.inside`); ``ValueError`` naming the file when it is missing or made
    for another classifier."""
    if not path.is_file():
        raise ValueError(
            f"{path}: missing; a venue profile needs the known styles of the shipped "
            "classifier (python -m vision.known_styles TRAIN_DIR writes it)"
        )
    try:
        with np.load(path, allow_pickle=False) as npz:
            emb, made_for = np.asarray(npz["embedding"]), str(npz["classifier"])
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{path}: corrupt known styles ({exc})") from None
    if made_for != classifier_hash:
        raise ValueError(
            f"{path}: made for classifier {made_for}, but the classifier is {classifier_hash}; "
            "run python -m vision.known_styles TRAIN_DIR again"
        )
    return emb.astype(np.float32)


@dataclass
class VenueProfile:
    """A fitted profile; :meth:`probs` and :meth:`confidence` are what the recognizer calls."""

    name: str
    weight: np.ndarray  # [43, C] the last layer, refitted
    bias: np.ndarray  # [43]
    prototypes: np.ndarray  # [43, C] unit vectors; rows of classes not enrolled unused
    enrolled: np.ndarray  # [43] bool
    pull: float
    temperature: float
    venue: np.ndarray  # [m, C] unit embeddings of the venue's crops; empty: read as shipped
    margin: float  # how much closer to a venue crop than to any known tile a crop must be
    platt: tuple[float, float, float] | None  # a (logit det), b (log p), c; None: det × √p
    keep: float  # the keep threshold of :meth:`confidence`
    models: dict[str, str]  # model file name → model_hash
    info: dict[str, Any] = field(default_factory=dict)  # what was fitted on how many tiles
    known: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    # [n, C] unit embeddings of the known styles (vision/known_styles.py), set by its user
    detector: Path | None = None  # its own detector file; None: the shipped one
    classifier: Path | None = None  # its own classifier file; None: the shipped one
    gated: bool = False  # its own classifier reads only the crops the shipped features gate in
    # the camera's tile test (vision/slot_test.py), fitted where enrolled from the camera
    slot_test: SlotTest = field(default_factory=SlotTest)

    def logits(self, embedding: np.ndarray) -> np.ndarray:
        """Logits ``[n, 43]`` (before the temperature) from the embedding ``[n, C]``."""
        logits = embedding @ self.weight.T + self.bias
        if self.enrolled.any():
            cos = unit(embedding) @ self.prototypes.T
            logits = logits + np.where(self.enrolled, self.pull * (cos - 1.0), 0.0)
        out: np.ndarray = logits
        return out

    def inside(self, embedding: np.ndarray) -> np.ndarray:
        """Which crops are the venue's: closer to one of its crops than to every known tile,
        by more than the margin. The others are read as without a profile."""
        if len(self.venue) == 0 or len(embedding) == 0:
            return np.zeros(len(embedding), bool)
        if self.classifier is not None and not self.gated:  # the known styles are not in them
            return np.ones(len(embedding), bool)
        if len(self.known) == 0:
            raise ProfileError(f"{self.name}: the known styles are not loaded")
        u = unit(embedding)
        venue = (u @ self.venue.T).max(1)
        known = (u @ self.known.T).max(1)
        out: np.ndarray = venue - known > self.margin
        return out

    def venue_probs(self, embedding: np.ndarray) -> np.ndarray:
        """The venue's class probabilities ``[n, 43]`` from the embedding ``[n, C]``."""
        return softmax(self.logits(embedding) / self.temperature)

    def probs(self, embedding: np.ndarray, shipped: np.ndarray, inside: np.ndarray) -> np.ndarray:
        """The venue's probabilities inside the gate, the shipped ``probs`` outside."""
        out = shipped.astype(np.float64, copy=True)
        if inside.any():
            out[inside] = self.venue_probs(embedding[inside])
        return out

    def confidence(
        self, det: np.ndarray, prob: np.ndarray, inside: np.ndarray | None = None
    ) -> np.ndarray:
        """The calibrated chance that a box is a tile named right, from its detector score
        and its best class probability (too few photos to fit it: the shipped det × √p).
        Outside the gate: the shipped det × √p, scaled so its 0.4 falls on the keep threshold."""
        venue: np.ndarray
        if self.platt is None:
            venue = det * np.sqrt(prob)
        else:
            a, b, c = self.platt
            venue = _sigmoid(a * _logit(det) + b * np.log(np.clip(prob, 1e-6, 1.0)) + c)
        if inside is None:
            return venue
        out: np.ndarray = np.where(inside, venue, self._rescaled(det * np.sqrt(prob)))
        return out

    def _rescaled(self, conf: np.ndarray) -> np.ndarray:
        low = conf * (self.keep / SHIPPED_KEEP)
        high = self.keep + (conf - SHIPPED_KEEP) * ((1 - self.keep) / (1 - SHIPPED_KEEP))
        out: np.ndarray = np.where(conf <= SHIPPED_KEEP, low, high)
        return out

    def det_floor(self, threshold: float) -> float:
        """The lowest detector score whose box can reach ``threshold`` (with p = 1), inside the
        gate or out: boxes below it are dropped before classification."""
        k = self.keep
        shipped = (
            threshold * SHIPPED_KEEP / k
            if threshold <= k
            else SHIPPED_KEEP + (threshold - k) * (1 - SHIPPED_KEEP) / (1 - k)
        )
        shipped = max(shipped, 0.005)
        if self.platt is None:
            return min(shipped, max(threshold, 0.005))
        a, _, c = self.platt
        if a <= 0:
            return min(shipped, DET_FLOOR)
        need = (math.log(threshold / (1 - threshold)) - c) / a if 0 < threshold < 1 else -40.0
        return float(min(shipped, min(max(1.0 / (1.0 + math.exp(-need)), DET_FLOOR), 0.99)))

    # -- files -----------------------------------------------------------------------------
    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        np.savez(
            folder / HEAD_NPZ,
            weight=self.weight.astype(np.float32),
            bias=self.bias.astype(np.float32),
            prototypes=self.prototypes.astype(np.float32),
            enrolled=self.enrolled.astype(bool),
            venue=self.venue.astype(np.float16),
        )
        meta = {
            "format": FORMAT,
            "name": self.name,
            "models": self.models,
            "pull": round(self.pull, 4),
            "margin": round(self.margin, 4),
            "temperature": round(self.temperature, 6),
            "platt": None
            if self.platt is None
            else {"a": self.platt[0], "b": self.platt[1], "c": self.platt[2]},
            "keep": round(self.keep, 4),
            "detector": None,
            "classifier": None,
            "slot_test": self.slot_test.to_json(),
            **self.info,
        }
        for key, path, file in (
            ("detector", self.detector, DETECTOR_ONNX),
            ("classifier", self.classifier, CLASSIFIER_ONNX),
        ):
            if path is not None:
                own = folder / file
                if path.resolve() != own.resolve():
                    shutil.copyfile(path, own)
                entry: dict[str, object] = {"file": file, "sha256": model_hash(own)}
                if key == "classifier":
                    entry["gated"] = self.gated
                meta[key] = entry
        (folder / PROFILE_JSON).write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")

    @classmethod
    def load(cls, folder: Path) -> VenueProfile:
        meta_path, head_path = folder / PROFILE_JSON, folder / HEAD_NPZ
        if not meta_path.is_file() or not head_path.is_file():
            raise ProfileError(
                f"{folder}: not a venue profile (expected {PROFILE_JSON} and {HEAD_NPZ} inside, "
                "as `mjref tiles enrol` writes them)"
            )
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            if meta.get("format") != FORMAT:
                raise ProfileError(
                    f"{folder}: profile format {meta.get('format')!r}, expected {FORMAT}; "
                    "enrol the venue's tiles again"
                )
            with np.load(head_path, allow_pickle=False) as npz:
                weight, bias = np.asarray(npz["weight"]), np.asarray(npz["bias"])
                prototypes, enrolled = np.asarray(npz["prototypes"]), np.asarray(npz["enrolled"])
                venue = np.asarray(npz["venue"]).astype(np.float32)
            platt = meta["platt"]
            profile = cls(
                name=str(meta["name"]),
                weight=weight,
                bias=bias,
                prototypes=prototypes,
                enrolled=enrolled.astype(bool),
                pull=float(meta["pull"]),
                temperature=float(meta["temperature"]),
                venue=venue,
                margin=float(meta["margin"]),
                platt=None
                if platt is None
                else (float(platt["a"]), float(platt["b"]), float(platt["c"])),
                keep=float(meta["keep"]),
                models={str(k): str(v) for k, v in dict(meta["models"]).items()},
                info={k: v for k, v in meta.items() if k not in _CORE_KEYS},
                detector=_own_model(folder, meta.get("detector"), "detector"),
                classifier=_own_model(folder, meta.get("classifier"), "classifier"),
                gated=bool((meta.get("classifier") or {}).get("gated", False)),
                slot_test=SlotTest.from_json(meta.get("slot_test", SlotTest().to_json())),
            )
        except ProfileError:
            raise
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ProfileError(f"{folder}: corrupt venue profile ({exc})") from None
        if (
            weight.ndim != 2
            or weight.shape[0] != NUM_CLASSES
            or bias.shape != (NUM_CLASSES,)
            or prototypes.shape != weight.shape
            or (venue.size and (venue.ndim != 2 or venue.shape[1] != weight.shape[1]))
            or enrolled.shape != (NUM_CLASSES,)
        ):
            raise ProfileError(
                f"{folder}: head of shape {weight.shape} / {bias.shape}, expected "
                f"[{NUM_CLASSES}, features] / [{NUM_CLASSES}]"
            )
        if not 0 < profile.keep < 1 or profile.temperature <= 0:
            raise ProfileError(f"{folder}: keep {profile.keep} / temperature out of range")
        return profile

    def check_models(self, folder: Path, files: dict[str, Path]) -> None:
        """Refuse models other than those the profile was fitted against, naming both."""
        problems = []
        for name, path in files.items():
            want, have = self.models.get(name), model_hash(path)
            if want != have:
                problems.append(
                    f"{folder}: fitted against {name} {want or '(none)'}, but {path} is "
                    f"{have}; enrol the venue's tiles again with these models"
                )
        if problems:
            raise ProfileError("\n".join(problems))


_CORE_KEYS = {
    "format",
    "name",
    "models",
    "pull",
    "margin",
    "temperature",
    "platt",
    "keep",
    "detector",
    "classifier",
    "slot_test",
}


def _own_model(folder: Path, entry: Any, what: str) -> Path | None:
    """The profile's own ``what`` (detector, classifier) file, checked against the hash
    ``profile.json`` names."""
    if entry is None:
        return None
    path = folder / str(entry["file"])
    if path.name != str(entry["file"]) or not path.is_file():
        raise ProfileError(
            f"{folder}: profile.json names its own {what} {entry['file']!r}, which is not in "
            "the folder; copy the whole profile folder, or enrol the venue's tiles again"
        )
    have = model_hash(path)
    if have != entry["sha256"]:
        raise ProfileError(
            f"{path}: SHA-256 {have}, but profile.json names {entry['sha256']}: the {what} "
            "file was changed or damaged; copy the profile again, or enrol again"
        )
    return path
