"""Training recipe (train-time only: torch + ultralytics in the training venv, never at run time).

Two models, chosen by measurement (models/MODELS.md):

* a 1-class "tile" detector — YOLO11n built from YAML, trained offline by ultralytics on the
  real train photos plus synthetic scenes (vision/synth), exported to ONNX;
* a crop classifier — a small CNN (``TileNet``) on 48×48 crops of the labelled tiles (real train
  crops at four rotations plus synthetic faces and scenes), 43 classes, exported to ONNX.

Usage (in .venv-train; see models/MODELS.md for the exact commands)::

    python -m vision.train prepare --src ../shared/data/tiles-photos-cmd4 --work /tmp/mjv
    python -m vision.train detector --work /tmp/mjv --epochs 30 --imgsz 320 [--init last.pt]
    python -m vision.train classifier --work /tmp/mjv --epochs 12 [--init cls.pt]
    python -m vision.train export --work /tmp/mjv --out models [--det-weights last.pt]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "0")
os.environ.setdefault("YOLO_VERBOSE", "1")

import numpy as np
from PIL import Image

from vision.classes import NAME_SETS, NUM_CLASSES
from vision.dataset import iter_samples, read_labels

CROP = 48  # classifier input side (pixels)
STORE = 64  # crops are stored at this side and scaled to CROP when used
CROP_MARGIN = 0.08  # context kept around a box, as a share of its size


def prepare(src: Path, work: Path, synth_scenes: int, synth_crops: int, seed: int) -> None:
    """Write the 1-class detector set and the crop arrays under ``work`` (never in the repo)."""
    rng = random.Random(seed)
    det = work / "det"
    for split in ("train", "val"):
        (det / split / "images").mkdir(parents=True, exist_ok=True)
        (det / split / "labels").mkdir(parents=True, exist_ok=True)
    cmap = NAME_SETS["cmd42"]
    crops: dict[str, tuple[list[np.ndarray], list[int]]] = {"train": ([], []), "val": ([], [])}
    for split, sub in (("train", "train"), ("val", "valid")):
        for sample in iter_samples(src / sub):
            with Image.open(sample.image) as opened:
                img = opened.convert("RGB")
            w, h = img.size
            boxes = read_labels(sample.label, w, h, cmap)
            link = det / split / "images" / sample.image.name
            if not link.exists():
                link.symlink_to(sample.image.resolve())
            lines = []
            for b in boxes:
                cx, cy = (b.x1 + b.x2) / 2 / w, (b.y1 + b.y2) / 2 / h
                lines.append(f"0 {cx:.6f} {cy:.6f} {(b.x2 - b.x1) / w:.6f} {(b.y2 - b.y1) / h:.6f}")
                crops[split][0].append(crop_box(img, (b.x1, b.y1, b.x2, b.y2)))
                crops[split][1].append(b.cls)
            (det / split / "labels" / (sample.image.stem + ".txt")).write_text("\n".join(lines))
    if synth_scenes or synth_crops:
        from vision.synth.bank import CropBank
        from vision.synth.scene import render_scene

        bank = CropBank.from_folder(src / "train", cmap)
        for i in range(synth_scenes):
            scene = render_scene(rng, bank)
            name = f"synth_{i:05d}"
            scene.image.save(det / "train" / "images" / f"{name}.jpg", quality=rng.randint(55, 95))
            sw, sh = scene.image.size
            (det / "train" / "labels" / f"{name}.txt").write_text(
                "\n".join(
                    f"0 {(x1 + x2) / 2 / sw:.6f} {(y1 + y2) / 2 / sh:.6f} "
                    f"{(x2 - x1) / sw:.6f} {(y2 - y1) / sh:.6f}"
                    for x1, y1, x2, y2, _ in scene.boxes
                )
            )
            for x1, y1, x2, y2, cls in scene.boxes:
                crops["train"][0].append(crop_box(scene.image, (x1, y1, x2, y2)))
                crops["train"][1].append(cls)
        for _ in range(synth_crops):
            cls = rng.randrange(NUM_CLASSES)
            crops["train"][0].append(_synthetic_crop(rng, cls))
            crops["train"][1].append(cls)
    for split, (xs, ys) in crops.items():
        np.savez_compressed(work / f"crops_{split}.npz", x=np.stack(xs), y=np.array(ys))
        print(f"{split}: {len(ys)} crops", flush=True)
    (work / "det.yaml").write_text(
        f"path: {det}\ntrain: train/images\nval: val/images\nnames:\n  0: tile\n"
    )


def _synthetic_crop(rng: random.Random, cls: int) -> np.ndarray:
    """A procedural face (the only source of backs) on felt, cropped the run-time way."""
    from vision.synth.faces import procedural_tile
    from vision.synth.scene import felt

    tile = procedural_tile(rng, cls, rng.randint(20, 90))
    pad = max(4, tile.height // 3)
    canvas = felt(rng, tile.width + 2 * pad, tile.height + 2 * pad).convert("RGBA")
    canvas.alpha_composite(tile, (pad, pad))
    box = (pad, pad, pad + tile.width, pad + tile.height)
    return crop_box(canvas.convert("RGB"), tuple(float(v) for v in box))  # type: ignore[arg-type]


def crop_box(img: Image.Image, box: tuple[float, float, float, float]) -> np.ndarray:
    """The same crop the run-time classifier sees (vision.detect.crop_tiles): square, margin."""
    from vision.detect import square_crop

    return np.asarray(square_crop(img, box, STORE, CROP_MARGIN), dtype=np.uint8)


def _yolo() -> Any:
    """Ultralytics' YOLO class with every network feature off (no hub, analytics, loggers)."""
    from ultralytics import YOLO, settings  # type: ignore[import-not-found,unused-ignore]

    off = ("sync", "clearml", "comet", "dvc", "mlflow", "raytune", "tensorboard", "wandb")
    settings.update({key: False for key in off})
    return YOLO


def train_detector(
    work: Path, epochs: int, imgsz: int, batch: int, fraction: float, init: Path | None, name: str
) -> None:
    """From scratch (``yolo11n.yaml``), or on from an earlier run's weights (``init``)."""
    model = _yolo()(str(init) if init else "yolo11n.yaml")
    model.train(
        data=str(work / "det.yaml"),
        epochs=epochs,
        imgsz=imgsz,
        batch=batch,
        device="cpu",
        workers=2,
        single_cls=True,
        pretrained=str(init) if init else False,
        amp=False,
        plots=False,
        val=False,
        fraction=fraction,
        project=str(work / "runs"),
        name=name,
        exist_ok=True,
        degrees=15.0,
        scale=0.4,
        fliplr=0.5,
        flipud=0.5,
        mosaic=1.0,
        close_mosaic=max(1, epochs // 6),
        hsv_h=0.02,
        warmup_epochs=0 if init else 1,
        cos_lr=True,
        patience=0,
        seed=0,
        deterministic=False,
    )


def _tilenet() -> Any:
    import torch.nn as nn  # type: ignore[import-not-found,unused-ignore]

    def block(cin: int, cout: int) -> Any:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )

    return nn.Sequential(
        nn.Conv2d(3, 32, 3, stride=2, padding=1, bias=False),  # 24×24
        nn.BatchNorm2d(32),
        nn.ReLU(inplace=True),
        block(32, 32),
        nn.MaxPool2d(2),  # 12
        block(32, 48),
        nn.MaxPool2d(2),  # 6
        block(48, 96),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(96, NUM_CLASSES),
    )


def _to_input(x: np.ndarray) -> Any:
    """Stored uint8 NHWC crops → float NCHW at ``CROP`` (area scaling, like the run-time crop)."""
    import torch  # type: ignore[import-not-found,unused-ignore]
    import torch.nn.functional as F  # type: ignore[import-not-found,unused-ignore]

    t = torch.from_numpy(x).permute(0, 3, 1, 2).float() / 255.0
    return F.interpolate(t, size=(CROP, CROP), mode="area") if t.shape[-1] != CROP else t


def _augment(x: Any, rng: np.random.Generator) -> Any:
    """Batch augmentation on uint8 NHWC: 90° turns, small rotations, scale, colour, blur."""
    import torch  # type: ignore[import-not-found,unused-ignore]
    import torch.nn.functional as F  # type: ignore[import-not-found,unused-ignore]

    n = x.shape[0]
    t = _to_input(x)
    k = rng.integers(0, 4, n)
    t = torch.stack([torch.rot90(t[i], int(k[i]), (1, 2)) for i in range(n)])
    ang = np.deg2rad(rng.uniform(-15, 15, n))
    s = rng.uniform(0.85, 1.15, n)
    sh = rng.uniform(-0.07, 0.07, (n, 2))
    cos, sin = np.cos(ang) / s, np.sin(ang) / s
    theta = np.stack([np.stack([cos, -sin, sh[:, 0]], 1), np.stack([sin, cos, sh[:, 1]], 1)], 1)
    grid = F.affine_grid(torch.from_numpy(theta).float(), list(t.shape), align_corners=False)
    t = F.grid_sample(t, grid, padding_mode="border", align_corners=False)
    # low-resolution look (small tiles upsampled): down to 14–64 px and back
    for i in np.nonzero(rng.random(n) < 0.4)[0]:
        side = int(rng.integers(12, 40))
        small = F.interpolate(t[i : i + 1], size=(side, side), mode="area")
        t[i : i + 1] = F.interpolate(small, size=(CROP, CROP), mode="bilinear")
    gain = torch.from_numpy(rng.uniform(0.6, 1.4, (n, 1, 1, 1))).float()
    bias = torch.from_numpy(rng.uniform(-0.15, 0.15, (n, 1, 1, 1))).float()
    tint = torch.from_numpy(rng.uniform(0.85, 1.15, (n, 3, 1, 1))).float()
    t = t * gain * tint + bias
    gray = rng.random(n) < 0.15
    if gray.any():
        g = t[gray].mean(1, keepdim=True)
        t[gray] = g.expand(-1, 3, -1, -1)
    t = t + torch.randn_like(t) * torch.from_numpy(rng.uniform(0, 0.05, (n, 1, 1, 1))).float()
    return t.clamp(0, 1)


def train_classifier(
    work: Path, epochs: int, batch: int, lr: float, threads: int, init: Path | None
) -> None:
    import torch  # type: ignore[import-not-found,unused-ignore]

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    tr = np.load(work / "crops_train.npz")
    va = np.load(work / "crops_val.npz")
    xtr, ytr = tr["x"], tr["y"]
    xva, yva = va["x"], va["y"]
    net = _tilenet()
    if init:
        net.load_state_dict(torch.load(init))
    steps = epochs * (len(ytr) // batch)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    ytr_t = torch.from_numpy(ytr).long()
    for epoch in range(epochs):
        net.train()
        order = rng.permutation(len(ytr))
        start, total, seen = time.time(), 0.0, 0
        for b in range(len(ytr) // batch):
            idx = order[b * batch : (b + 1) * batch]
            xb = _augment(xtr[idx], rng)
            loss = loss_fn(net(xb), ytr_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
            seen += len(idx)
        acc = _accuracy(net, xva, yva)
        print(
            f"epoch {epoch + 1}/{epochs} loss {total / seen:.4f} val_acc {acc:.4f} "
            f"({time.time() - start:.0f} s)",
            flush=True,
        )
        torch.save(net.state_dict(), work / "cls.pt")


def _accuracy(net: Any, x: np.ndarray, y: np.ndarray) -> float:
    import torch  # type: ignore[import-not-found,unused-ignore]

    net.eval()
    right = 0
    with torch.no_grad():
        for i in range(0, len(y), 512):
            t = _to_input(x[i : i + 512])
            right += int((net(t).argmax(1).numpy() == y[i : i + 512]).sum())
    return right / len(y)


def export(work: Path, out: Path, det_weights: Path | None) -> None:
    """Write models/tile_detector.onnx and models/tile_classifier.onnx."""
    import torch  # type: ignore[import-not-found,unused-ignore]

    out.mkdir(parents=True, exist_ok=True)
    weights = det_weights or work / "runs" / "det" / "weights" / "last.pt"
    if weights.exists():
        path = _yolo()(str(weights)).export(format="onnx", dynamic=True, simplify=True, opset=17)
        Path(path).replace(out / "tile_detector.onnx")
        print(f"detector: {weights} → {out / 'tile_detector.onnx'}")
    if (work / "cls.pt").exists():
        net = _tilenet()
        net.load_state_dict(torch.load(work / "cls.pt"))
        net.eval()
        wrapped = torch.nn.Sequential(net, torch.nn.Softmax(dim=1))
        torch.onnx.export(
            wrapped,
            (torch.zeros(1, 3, CROP, CROP),),
            str(out / "tile_classifier.onnx"),
            input_names=["crops"],
            output_names=["probs"],
            dynamic_axes={"crops": {0: "n"}, "probs": {0: "n"}},
            opset_version=17,
            dynamo=False,
        )
        print(f"classifier → {out / 'tile_classifier.onnx'}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.train")
    sub = p.add_subparsers(dest="step", required=True)
    a = sub.add_parser("prepare")
    a.add_argument("--src", type=Path, default=Path("../shared/data/tiles-photos-cmd4"))
    a.add_argument("--work", type=Path, required=True)
    a.add_argument("--synth-scenes", type=int, default=600)
    a.add_argument("--synth-crops", type=int, default=20000)
    a.add_argument("--seed", type=int, default=0)
    d = sub.add_parser("detector")
    d.add_argument("--work", type=Path, required=True)
    d.add_argument("--epochs", type=int, default=30)
    d.add_argument("--imgsz", type=int, default=640)
    d.add_argument("--batch", type=int, default=16)
    d.add_argument("--fraction", type=float, default=1.0)
    d.add_argument("--init", type=Path, help="start from these weights (a last.pt)")
    d.add_argument("--name", default="det", help="run folder under WORK/runs")
    c = sub.add_parser("classifier")
    c.add_argument("--work", type=Path, required=True)
    c.add_argument("--epochs", type=int, default=12)
    c.add_argument("--batch", type=int, default=128)
    c.add_argument("--lr", type=float, default=3e-3)
    c.add_argument("--threads", type=int, default=1)
    c.add_argument("--init", type=Path, help="start from these weights (a cls.pt)")
    e = sub.add_parser("export")
    e.add_argument("--work", type=Path, required=True)
    e.add_argument("--out", type=Path, default=Path("models"))
    e.add_argument("--det-weights", type=Path)
    args = p.parse_args(argv)
    if args.step == "prepare":
        prepare(args.src, args.work, args.synth_scenes, args.synth_crops, args.seed)
    elif args.step == "detector":
        train_detector(
            args.work, args.epochs, args.imgsz, args.batch, args.fraction, args.init, args.name
        )
    elif args.step == "classifier":
        train_classifier(args.work, args.epochs, args.batch, args.lr, args.threads, args.init)
    else:
        export(args.work, args.out, args.det_weights)
    return 0


if __name__ == "__main__":
    sys.exit(main())
