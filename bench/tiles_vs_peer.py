"""Tile recognition: ours (models/, onnxruntime) against PyPI ``mahjong-detector`` on real photos.

Same images, same run, same metrics (vision.metrics): mAP50, precision, recall and end-to-end
tile accuracy on a labelled YOLO folder (default: the dev valid split, 296 real photos), and the
median milliseconds per 640×640 image (decoded image in, tiles out at each side's operating
confidence; file decoding not timed).

The peer (``mahjong-detector``, a YOLO11n ONNX shipped inside its wheel, so it runs offline) is
never our dependency: install it into a throwaway venv and run this script with that venv's
python, from the repository root::

    python3 -m venv /tmp/peer-venv && /tmp/peer-venv/bin/pip install mahjong-detector
    /tmp/peer-venv/bin/python bench/tiles_vs_peer.py [--set DIR] [--limit N] [--json]

Fairness notes: the peer knows the 34 riichi tiles only (no flowers, no back), so its figures are
also given on the tiles it knows (``…_34``: flower labels and flower predictions removed). Its
preprocessing (grey, autocontrast, 640 letterbox) is its own and kept; we call its own
``postprocess`` with a 0.01 confidence floor for the precision-recall curve and use its default
0.5 as its operating point. Our operating confidence is the CLI default.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from vision.classes import FIRST_FLOWER, NAME_SETS, class_of_label  # noqa: E402
from vision.dataset import Box, iter_samples, read_labels  # noqa: E402
from vision.detect import DEFAULT_MIN_CONF, TileRecognizer  # noqa: E402
from vision.image_io import load_image  # noqa: E402
from vision.metrics import EvalResult, Pred, evaluate  # noqa: E402

DEFAULT_SET = ROOT.parent / "shared" / "data" / "tiles-photos-cmd4" / "valid"
PEER_NAMES = {"chun": "C", "haku": "P", "hatsu": "F", "nan": "S", "pe": "N", "sha": "W", "tou": "E"}
OUR_CONF = DEFAULT_MIN_CONF
PEER_CONF = 0.5

Detector = Callable[[Image.Image, float], list[Pred]]
FLOOR = 0.01  # confidence floor of the accuracy pass (for the precision-recall curve)


def ours(models: Path, side: int | None, turns: int | None) -> Detector:
    rec = TileRecognizer(models, side=side, **({"turns": turns} if turns else {}))

    def run(img: Image.Image, conf: float) -> list[Pred]:
        return [(d.x1, d.y1, d.x2, d.y2, d.cls, d.conf) for d in rec.detect(img, min_conf=conf)]

    return run


def peer() -> Detector:
    from mahjong_detector.predict import (  # type: ignore[import-not-found]
        CLASS_NAMES,
        create_input_tensor,
        get_inference_session,
        postprocess,
    )
    from mahjong_detector.preprocess import preprocess_image  # type: ignore[import-not-found]

    classes = [class_of_label(PEER_NAMES.get(n, n)) for n in CLASS_NAMES]
    session = get_inference_session()
    name = session.get_inputs()[0].name

    def run(img: Image.Image, conf: float) -> list[Pred]:
        pre, pad = preprocess_image(img)
        out = session.run(None, {name: create_input_tensor(pre)})[0][0]
        dets = postprocess(out, pad, len(CLASS_NAMES), conf_threshold=conf)
        return [(d.x1, d.y1, d.x2, d.y2, classes[d.class_id], d.confidence) for d in dets]

    return run


def measure(
    detect: Detector, images: Sequence[tuple[Image.Image, list[Box]]], conf: float
) -> tuple[list[tuple[list[Box], list[Pred]]], list[float]]:
    """Accuracy pass down to ``FLOOR`` (untimed), then a timed pass at the operating ``conf``."""
    samples = [(gt, detect(img, FLOOR)) for img, gt in images]
    detect(images[0][0], conf)  # warm-up
    times = []
    for img, _ in images:
        start = time.perf_counter()
        detect(img, conf)
        times.append((time.perf_counter() - start) * 1000)
    return samples, times


def without_flowers(samples: list[tuple[list[Box], list[Pred]]]) -> list[Any]:
    return [
        ([b for b in gt if b.cls < FIRST_FLOWER], [p for p in preds if p[4] < FIRST_FLOWER])
        for gt, preds in samples
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--set", type=Path, default=DEFAULT_SET, help="YOLO folder (cmd42 names)")
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.add_argument("--models", type=Path, default=ROOT / "models")
    p.add_argument("--side", type=int, help="our detector input side (default: the model's)")
    p.add_argument("--only", choices=("ours", "peer"), help="run one side only")
    p.add_argument("--turns", type=int, choices=(1, 2, 4), help="our classifier's quarter turns")
    args = p.parse_args(argv)
    cmap = NAME_SETS["cmd42"]
    images: list[tuple[Image.Image, list[Box]]] = []
    for n, s in enumerate(iter_samples(args.set)):
        if args.limit and n >= args.limit:
            break
        img = load_image(s.image)
        images.append((img, read_labels(s.label, img.width, img.height, cmap)))
    sizes = {img.size for img, _ in images}
    report: dict[str, Any] = {
        "set": str(args.set),
        "images": len(images),
        "image_sizes": sorted(sizes)[:3],
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
    }
    contenders: list[tuple[str, Callable[[], Detector], float]] = [
        ("ours", lambda: ours(args.models, args.side, args.turns), OUR_CONF),
        ("peer", peer, PEER_CONF),
    ]
    for name, factory, conf in contenders:
        if args.only and name != args.only:
            continue
        samples, times = measure(factory(), images, conf)
        full: EvalResult = evaluate(samples, conf)
        tiles34: EvalResult = evaluate(without_flowers(samples), conf)
        report[name] = {
            **full.to_json(),
            "mAP50_34": round(tiles34.map50, 4),
            "tile_accuracy_34": round(tiles34.tile_accuracy, 4),
            "conf": conf,
            "median_ms": round(statistics.median(times), 1),
        }
    if args.only:
        print(json.dumps(report))
        return 0
    ratio = report["ours"]["median_ms"] / report["peer"]["median_ms"]
    report["speed_ratio_ours_over_peer"] = round(ratio, 2)
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{args.set}: {len(images)} images, {report['ours']['tiles']} labelled tiles")
    for name in ("ours", "peer"):
        r = report[name]
        print(
            f"  {name}: mAP50 {r['mAP50']:.3f}  P {r['precision']:.3f}  R {r['recall']:.3f}  "
            f"tile acc {r['tile_accuracy']:.3f}  | 34 tiles: mAP50 {r['mAP50_34']:.3f} "
            f"acc {r['tile_accuracy_34']:.3f}  | median {r['median_ms']:.1f} ms/image"
        )
    print(f"  speed ours/peer {ratio:.2f} (target ≤ 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
