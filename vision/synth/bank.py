"""Real tile crops cut from the TRAIN photos (never the valid split), keyed by our class."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from vision.classes import BACK, NUM_CLASSES
from vision.dataset import iter_samples, read_labels
from vision.synth.faces import procedural_tile


@dataclass
class CropBank:
    """Tile images per class; empty classes (and backs) fall back to procedural faces."""

    crops: dict[int, list[Image.Image]] = field(default_factory=dict)
    real_share: float = 0.6
    style: str | None = None  # procedural faces of this style (vision.synth.faces)
    own_classes: bool = False  # draw only the classes it holds crops of (a venue's tiles)

    @classmethod
    def from_folder(cls, set_dir: Path, class_map: Sequence[int], limit: int = 0) -> CropBank:
        bank = cls()
        for n, sample in enumerate(iter_samples(set_dir)):
            if limit and n >= limit:
                break
            with Image.open(sample.image) as opened:
                img = opened.convert("RGB")
            for b in read_labels(sample.label, img.width, img.height, class_map):
                if b.x2 - b.x1 >= 20 and b.y2 - b.y1 >= 20:
                    crop = img.crop((round(b.x1), round(b.y1), round(b.x2), round(b.y2)))
                    bank.crops.setdefault(b.cls, []).append(crop)
        return bank

    def random_tile(
        self, rng: random.Random, size: int, cls: int | None = None
    ) -> tuple[Image.Image, int]:
        """An RGBA tile about ``size`` px on its long side, and its class."""
        if cls is None and self.own_classes and self.crops:
            cls = rng.choice(sorted(self.crops))
        if cls is None:
            cls = rng.randrange(NUM_CLASSES)
        pool = self.crops.get(cls)
        if pool and cls != BACK and rng.random() < self.real_share:
            crop = rng.choice(pool)
            s = size / max(crop.size)
            w, h = max(4, round(crop.width * s)), max(4, round(crop.height * s))
            return crop.resize((w, h), Image.Resampling.BILINEAR).convert("RGBA"), cls
        return procedural_tile(rng, cls, size, self.style), cls
