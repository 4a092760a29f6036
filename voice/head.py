"""The spotter's classifier head: one encoded 2 s window (25 × 384 features) → P(class).

Classes are ``none`` plus one per (language, call). The shipped head is an ONNX file run by
onnxruntime; its classes and thresholds travel inside it as metadata, so a model file can never
be paired with the wrong label list. :class:`NumpyHead` is the same maths for training folds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from voice.encoder import DIM, FRAMES
from voice.events import LANGS, WORDS, Lang, Word
from voice.onnx_session import load_session

WINDOW = FRAMES
F32 = npt.NDArray[np.float32]
CLASSES: tuple[str, ...] = ("none", *(f"{lang}:{word}" for lang in LANGS for word in WORDS))
_CLASS_OF: dict[int, tuple[Lang, Word]] = {
    1 + i * len(WORDS) + k: (lang, word)
    for i, lang in enumerate(LANGS)
    for k, word in enumerate(WORDS)
}


class SpotterModelError(RuntimeError):
    """The spotter model file is missing, corrupt or not a spotter head."""


def class_of(index: int) -> tuple[Lang, Word] | None:
    if index == 0:
        return None
    return _CLASS_OF[index]


@dataclass
class HeadMeta:
    """What the detector needs to know about a head besides its weights."""

    classes: tuple[str, ...] = CLASSES
    threshold: float = 0.5
    window: int = WINDOW
    dim: int = DIM
    info: dict[str, str] = field(default_factory=dict)


class Head(Protocol):
    meta: HeadMeta

    def probs(self, windows: F32) -> F32:
        """(B, window, dim) → (B, classes) probabilities."""
        ...


def _softmax(z: F32) -> F32:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: F32 = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


class NumpyHead:
    """An MLP with ReLU hidden layers and a softmax output."""

    def __init__(self, layers: list[tuple[F32, F32]], meta: HeadMeta | None = None) -> None:
        self.layers = layers
        self.meta = meta or HeadMeta()

    def logits(self, windows: F32) -> F32:
        h = windows.reshape(len(windows), -1).astype(np.float32)
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                h = np.maximum(h, 0.0)
        return h

    def probs(self, windows: F32) -> F32:
        return _softmax(self.logits(windows))


class OnnxHead:
    """The shipped head (models/voice_spotter.onnx)."""

    def __init__(self, path: Path) -> None:
        self.sess = load_session(path, "spotter", SpotterModelError)
        props = self.sess.get_modelmeta().custom_metadata_map
        try:
            classes = tuple(json.loads(props["classes"]))
            threshold = float(props["threshold"])
            window = int(props["window"])
            dim = int(props["dim"])
        except (KeyError, ValueError) as exc:
            raise SpotterModelError(f"{path}: ONNX file lacks spotter metadata ({exc})") from exc
        if classes != CLASSES:
            raise SpotterModelError(f"{path}: classes {classes} differ from this code's {CLASSES}")
        info = {
            k: v for k, v in props.items() if k not in {"classes", "threshold", "window", "dim"}
        }
        self.meta = HeadMeta(classes, threshold, window, dim, info)
        self._input = self.sess.get_inputs()[0].name

    def probs(self, windows: F32) -> F32:
        out = self.sess.run(None, {self._input: windows.astype(np.float32)})
        return np.asarray(out[0], dtype=np.float32)
