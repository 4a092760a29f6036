"""The tile styles the shipped models know, as the classifier sees them: a venue profile's gate.

A venue profile reads a crop its own way only when the crop looks more like the venue's tiles
than like any tile the models were trained on; everything else keeps the shipped reading, so a
profile costs nothing on the styles the models know. The cosine to the venue's own crops alone
cannot tell: the classifier's embeddings (post-ReLU, all positive) of real tile photos are all
close, and a real profile's gate let in 63 % of other sets' boxes (models/MODELS.md). So the
shipped models carry ``known_styles.npz``: the unit ``embedding`` of tiles of the styles they
know — every labelled tile of one augmented copy of each train-split photo, at a random quarter
turn, and of 60 rendered ``text``/``glyph`` scenes (seeds away from the bench's) — with the
SHA-256 of the classifier whose embedding they are. Export time only (needs the train photos):
``python -m vision.known_styles TRAIN_DIR`` writes ``models/known_styles.npz``.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

from vision.classes import NAME_SETS
from vision.dataset import iter_samples, read_labels
from vision.detect import CLASSIFIER_FILE, MODELS_DIR, TileRecognizer
from vision.enrol import crops_array
from vision.image_io import load_image
from vision.profile import KNOWN_FILE, model_hash, unit
from vision.synth.bank import CropBank
from vision.synth.scene import render_scene

RENDERED = (("text", range(1000, 1030)), ("glyph", range(1030, 1060)))


def build(train_dir: Path, out: Path) -> int:
    """Embed the known styles' tiles and write them to ``out``; the number of tiles."""
    rec = TileRecognizer()
    assert rec.classifier is not None
    rng = np.random.default_rng(0)
    parts, classes = [], []
    for n, sample in enumerate(iter_samples(train_dir)):
        if n % 2:  # the train split holds two augmented copies of each photo: one is enough
            continue
        img = load_image(sample.image)
        boxes = read_labels(sample.label, img.width, img.height, NAME_SETS["cmd42"])
        if not boxes:
            continue
        x = crops_array(img, [(b.x1, b.y1, b.x2, b.y2) for b in boxes], rec.crop)
        turns = rng.integers(0, 4, len(x))
        x = np.stack([np.rot90(xi, int(k), axes=(1, 2)) for xi, k in zip(x, turns, strict=True)])
        parts.append(rec.embed(x))
        classes += [b.cls for b in boxes]
    for style, seeds in RENDERED:
        bank = CropBank(real_share=0.0, style=style)
        for seed in seeds:
            scene = render_scene(random.Random(seed), bank)
            parts.append(
                rec.embed(crops_array(scene.image, [b[:4] for b in scene.boxes], rec.crop))
            )
            classes += [b[4] for b in scene.boxes]
    np.savez_compressed(
        out,
        embedding=unit(np.concatenate(parts)).astype(np.float16),
        cls=np.array(classes, np.int16),
        classifier=np.array(model_hash(rec.classifier.path)),
        classifier_file=np.array(CLASSIFIER_FILE),
    )
    return len(classes)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("train_dir", type=Path, help="the train split (images/, labels/)")
    ap.add_argument("--out", type=Path, default=MODELS_DIR / KNOWN_FILE)
    args = ap.parse_args(argv)
    n = build(args.train_dir, args.out)
    print(f"{args.out}: {n} tiles of the known styles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
