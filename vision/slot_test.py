"""Whether a tile lies in a slot: each pixel of the slot against the felt, by colour and level.

A pixel is a tile's when its chromaticity is far from the felt's (``chroma``), or it is much
brighter (``pale``) or darker (``dark``) than the felt, or it is enclosed by a face's pale frame
(``frame``). The defaults were set on dark and mid felts, where a face is 2–5 × the felt. On a
light felt under cool light (the bench's lodge) a white face is only 1.3–1.5 × the felt and
0.08–0.13 from its colour, and the whole table read empty; yet the felt itself, empty, stayed
within 0.01 of its colour. So a venue's enrolment clip, whose laid and empty slots are known
from the plan, sets the thresholds between the two (:func:`fit_slot_test`); a threshold is
never looser than the default, so a venue whose faces stand out keeps the defaults' margin
against a shadow.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

CHROMA = 0.12  # the chromaticity's distance (L1) to the felt's of a tile's pixel …
PALE = 1.6  # … or its level against the felt's, a face's …
DARK = 0.45  # … or a back's on a light felt
FRAME = 1.5  # a face's pale frame round its glyph, against the felt (moves with PALE)
FLOORS = {"chroma": 0.03, "pale": 1.12}  # the felt's own noise and light fall-off stay under
EMPTY_QUANTILE = 99.0  # an empty slot's pixels: the felt's spread, a few outliers left out
LAID_QUANTILE = 10.0  # the laid slots: their faint end (of each slot's typical pixel)


@dataclass(frozen=True)
class SlotTest:
    """The thresholds of the tile test (module docstring); the defaults unless enrolled."""

    chroma: float = CHROMA
    pale: float = PALE

    @property
    def frame(self) -> float:
        return self.pale * FRAME / PALE

    def tile(self, chroma: np.ndarray, bright: np.ndarray) -> np.ndarray:
        """The tile's pixels, without the frame's enclosure (vision.camera._framed)."""
        out: np.ndarray = (chroma > self.chroma) | (bright > self.pale) | (bright < DARK)
        return out

    def to_json(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, data: Any) -> SlotTest:
        """Read back :meth:`to_json`; a clear ValueError names a wrong key or value."""
        if not isinstance(data, dict) or set(data) != {"chroma", "pale"}:
            raise ValueError(f"slot_test {data!r}: expected an object with chroma and pale")
        values = {k: float(v) for k, v in data.items()}
        default = cls()
        for key, value in values.items():
            if not 0 < value <= getattr(default, key):
                raise ValueError(
                    f"slot_test.{key} {value}: expected over 0 and at most the default "
                    f"{getattr(default, key)}"
                )
        return cls(**values)


@dataclass
class SlotPixels:
    """A slot's pixels as the test sees them: chromaticity distance to the felt, level."""

    chroma: np.ndarray
    bright: np.ndarray


def fit_slot_test(empty: list[SlotPixels], laid: list[SlotPixels]) -> SlotTest:
    """The thresholds halfway between what the empty slots' felt reaches (EMPTY_QUANTILE of
    their pixels) and what the laid tiles show (LAID_QUANTILE of the slots' median pixel; for
    the level, of their bright end, the face), each no looser than the default nor tighter
    than its floor. ValueError where there is nothing to fit on."""
    if not empty or not laid:
        raise ValueError(f"{len(empty)} empty and {len(laid)} laid slots: both are needed")
    felt_chroma, felt_bright = (
        float(np.percentile(np.concatenate([getattr(p, k).ravel() for p in empty]), EMPTY_QUANTILE))
        for k in ("chroma", "bright")
    )
    tile_chroma = float(np.percentile([np.median(p.chroma) for p in laid], LAID_QUANTILE))
    face = [float(np.percentile(p.bright, 75)) for p in laid]
    face_bright = float(np.percentile([f for f in face if f > 1.0] or [PALE], LAID_QUANTILE))
    chroma = _between(felt_chroma, tile_chroma, FLOORS["chroma"], CHROMA)
    pale = _between(felt_bright, face_bright, FLOORS["pale"], PALE)
    return SlotTest(chroma, pale)


def _between(felt: float, tile: float, floor: float, default: float) -> float:
    return float(min(default, max(floor, (felt + tile) / 2)))
