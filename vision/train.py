"""Training recipe (train-time only: torch + ultralytics in the training venv, never at run time).

Two models, chosen by measurement (models/MODELS.md):

* a 1-class "tile" detector — YOLO11n built from YAML, started from a public tile detector's
  weights (``seed``), trained offline by ultralytics on the real train photos plus synthetic
  scenes (vision/synth), exported to ONNX;
* a crop classifier — a small CNN (``TileNet``) on 64×64 crops of the labelled tiles (real train
  crops at four rotations plus synthetic faces and scenes, and stretched strips when made),
  43 classes, exported to ONNX; its crops are also made small, soft and compressed, as an overhead
  camera films them. The float weights are not kept: fine-tuning starts from the exported file.

Usage (in .venv-train; see models/MODELS.md for the exact commands)::

    python -m vision.train prepare --src ../shared/data/tiles-photos-cmd4 --work /tmp/mjv
    python -m vision.train seed --work /tmp/mjv --peer-onnx model.onnx --out /tmp/mjv/seed.pt
    python -m vision.train detector --work /tmp/mjv --epochs 20 --imgsz 416 --init /tmp/mjv/seed.pt
    python -m vision.train classifier --work /tmp/mjv --epochs 12 [--crop 64] [--init cls.pt]
    python -m vision.train classifier --work /tmp/mjv --epochs 5 --init models/tile_classifier.onnx
    python -m vision.train export --work /tmp/mjv --out models [--det-weights last.pt]
    python -m vision.train stretch --work /tmp/mjv --count 800   # stretched strips + their crops
"""

from __future__ import annotations

import argparse
import logging
import math
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
from vision.embedding import add_embedding_output

CROP = 64  # classifier input side (pixels); 48 loses the small corner numbers of the flowers
TILENET_WIDTHS = (32, 48, 96, 160)  # stem, then one double-conv block per scale (24, 12, 6 px)
CAMERA_LOOK = 0.5  # share of training crops made small, soft and compressed (``_camera_look``)


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


def stretch_copies(work: Path, count: int, seed: int) -> None:
    """Add ``count`` stretched strips of real train photos to the detector set, and the crops of
    their tiles (named) to ``crops_stretched.npz`` for the classifier.

    Datasets and upload tools resize a strip of tiles to a square, leaving tiles 3–12× too long
    on one axis; the train split has none, the valid split 34 photos of them. Each copy is a
    band of a real photo, from one tile's edge to a gap between tiles (no tile cut, so none is
    seen unlabelled), resized back to the photo's size."""
    rng = random.Random(seed)
    images, labels = work / "det" / "train" / "images", work / "det" / "train" / "labels"
    real = sorted(p for p in images.iterdir() if not p.name.startswith(("synth_", "stretched_")))
    crops: list[np.ndarray] = []
    classes: list[int] = []
    made = 0
    while made < count:
        path = rng.choice(real)
        rows = [line.split() for line in (labels / f"{path.stem}.txt").read_text().splitlines()]
        boxes = [[float(v) for v in row[1:]] for row in rows if len(row) == 5]
        axis = rng.randrange(2)
        band = _tile_band(boxes, axis, 1 / math.exp(rng.uniform(math.log(3), math.log(12))), rng)
        if band is None:
            continue
        start, end = band
        with Image.open(path) as opened:
            img = opened.convert("RGB")
        w, h = img.size
        named = _source_classes(path, w, h)
        if named is not None and len(named) != len(boxes):
            named = None
        cut = (0, start * h, w, end * h) if axis else (start * w, 0, end * w, h)
        name = f"stretched_{made:04d}"
        img.transform(img.size, Image.Transform.EXTENT, cut, Image.Resampling.BILINEAR).save(
            images / f"{name}.jpg", quality=rng.randint(70, 95)
        )
        with Image.open(images / f"{name}.jpg") as saved:  # crops see what the detector will
            strip = saved.convert("RGB")
        lines = []
        for i, box in enumerate(boxes):
            if start <= box[axis] <= end:
                box[axis] = (box[axis] - start) / (end - start)
                box[axis + 2] /= end - start
                lines.append("0 " + " ".join(f"{v:.6f}" for v in box))
                if named is not None:
                    x1, y1 = (box[0] - box[2] / 2) * w, (box[1] - box[3] / 2) * h
                    crops.append(crop_box(strip, (x1, y1, x1 + box[2] * w, y1 + box[3] * h)))
                    classes.append(named[i])
        (labels / f"{name}.txt").write_text("\n".join(lines))
        made += 1
    if crops:
        np.savez_compressed(work / "crops_stretched.npz", x=np.stack(crops), y=np.array(classes))
    print(f"{count} stretched strips in {images}, {len(crops)} named crops", flush=True)


def _source_classes(det_image: Path, w: int, h: int) -> list[int] | None:
    """The classes of a detector-set photo's boxes, in its label file's order: the set links
    each real photo to the source split, whose labels name the tiles."""
    source = det_image.resolve()
    label = source.parent.parent / "labels" / f"{source.stem}.txt"
    if not label.exists():
        return None
    return [b.cls for b in read_labels(label, w, h, NAME_SETS["cmd42"])]


def _tile_band(
    boxes: list[list[float]], axis: int, span: float, rng: random.Random
) -> tuple[float, float] | None:
    """A band ``[start, end]`` (fractions along ``axis``) about ``span`` long that starts at a
    tile's edge and cuts no tile; None when the photo gives no band 2–14× shorter than itself."""
    spans = [(b[axis] - b[axis + 2] / 2, b[axis] + b[axis + 2] / 2) for b in boxes]
    if not spans:
        return None
    start = rng.choice(spans)[0]
    while cut := [lo for lo, hi in spans if lo < start < hi]:
        start = min(cut)
    ends = [e for _, e in spans if e > start and not any(lo < e < hi for lo, hi in spans)]
    end = min(ends, key=lambda e: abs(e - start - span))  # the last tile's end always qualifies
    start, end = max(0.0, start), min(1.0, end)
    return (start, end) if 2 <= 1 / max(end - start, 1e-9) <= 14 else None


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
    """The run-time crop (vision.detect.tile_crop), stored at its full side and scaled per model."""
    from vision.detect import CROP_STORE, tile_crop

    return np.asarray(tile_crop(img, box, CROP_STORE), dtype=np.uint8)


def yolo_class() -> Any:
    """Ultralytics' YOLO class with every network feature off (no hub, analytics, loggers)."""
    from ultralytics import YOLO, settings  # type: ignore[import-not-found,unused-ignore]

    off = ("sync", "clearml", "comet", "dvc", "mlflow", "raytune", "tensorboard", "wandb")
    settings.update({key: False for key in off})
    return YOLO


def on_every_core(yolo: Any) -> int:
    """Have ``yolo`` train on every thread torch has now: on a CPU ultralytics takes one fewer
    than the cores (one of two). Returns that count, to set again after training."""
    import torch  # type: ignore[import-not-found,unused-ignore]

    threads = int(torch.get_num_threads())
    yolo.add_callback("on_train_start", lambda _: torch.set_num_threads(threads))
    return threads


def train_detector(
    work: Path,
    epochs: int,
    imgsz: int,
    batch: int,
    fraction: float,
    init: Path | None,
    name: str,
    mosaic: float = 1.0,
    lr0: float | None = None,
    degrees: float = 15.0,
) -> None:
    """From scratch (``yolo11n.yaml``), or on from ``init`` (a last.pt, or the ``seed`` step's)."""
    model = yolo_class()(str(init) if init else "yolo11n.yaml")
    on_every_core(model)
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
        degrees=degrees,
        scale=0.4,
        fliplr=0.5,
        flipud=0.5,
        mosaic=mosaic,
        close_mosaic=max(1, epochs // 6),
        **({"optimizer": "AdamW", "lr0": lr0, "warmup_bias_lr": 0.0} if lr0 else {}),
        hsv_h=0.02,
        warmup_epochs=0 if init else 1,
        cos_lr=True,
        patience=0,
        seed=0,
        deterministic=False,
    )


def seed_detector(peer_onnx: Path, work: Path, out: Path, side: int = 320) -> None:
    """A 1-class YOLO11n (built from YAML) that starts where a trained YOLO11n ONNX export left off.

    Why: from scratch, 20 CPU epochs left our detector at recall ~0.5; the public tile detector's
    backbone already knows what a tile looks like (its fused weights give 0.78 1-class mAP50 on the
    dev valid photos before any training). See :func:`seeded_model`.
    """
    import torch  # type: ignore[import-not-found,unused-ignore]

    images = sorted((work / "det" / "train" / "images").iterdir())[::10][:96]
    model = seeded_model(onnx_conv_weights(peer_onnx), images, side, str(peer_onnx))
    torch.save({"model": model, "epoch": -1, "train_args": {}}, out)
    print(f"seeded from {peer_onnx} → {out}")


def onnx_conv_weights(path: Path) -> dict[str, np.ndarray]:
    """``{conv.weight, conv.bias}`` in float of an ultralytics ONNX export, by the names of its
    torch modules: read as stored, or from an int8 QOperator file (ours) with its weights
    dequantized (w = (q − zero point) · scale per channel, bias = q · x scale · w scale)."""
    import onnx  # type: ignore[import-not-found,unused-ignore]
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    out = {k: v for k, v in inits.items() if k.endswith((".weight", ".bias"))}
    for node in graph.node:
        if node.op_type != "QLinearConv":
            continue
        xs, w, ws, wz = (node.input[i] for i in (1, 3, 4, 5))
        scale = inits[ws].astype(np.float64)
        q = inits[w].astype(np.float64) - inits[wz].astype(np.float64).reshape(-1, 1, 1, 1)
        name = w.removesuffix("_quantized").removesuffix(".weight")
        out[name + ".weight"] = (q * scale.reshape(-1, 1, 1, 1)).astype(np.float32)
        if len(node.input) > 8:  # the DFL's conv has no bias
            bias = inits[node.input[8]].astype(np.float64) * float(inits[xs]) * scale
            out[name + ".bias"] = bias.astype(np.float32)
    return out


def seeded_model(weights: dict[str, np.ndarray], images: list[Path], side: int, source: str) -> Any:
    """A 1-class YOLO11n built from YAML computing what the ONNX export's ``weights`` compute.

    The export's convolutions are conv and batch norm fused: each is copied and its batch norm
    set from the statistics of the real conv outputs on ``images``, so train-mode BN keeps the
    copied function. The tile score: copied from a 1-class export (ours), else one linear unit
    fitted by least squares to the source's best class logit (the public detector's)."""
    import torch  # type: ignore[import-not-found,unused-ignore]
    from ultralytics.nn.modules import Conv  # type: ignore[import-not-found,unused-ignore]
    from ultralytics.nn.tasks import DetectionModel  # type: ignore[import-not-found,unused-ignore]

    model = DetectionModel("yolo11n.yaml", nc=1, verbose=False)
    heads = [f"model.23.cv3.{i}.2" for i in range(3)]  # per-class rows
    one_class = all(weights[h + ".weight"].shape[0] == 1 for h in heads if h + ".weight" in weights)
    for name, conv in model.named_modules():
        if not isinstance(conv, torch.nn.Conv2d) or ".dfl." in name:
            continue
        if name in heads and not one_class:
            continue  # fitted below
        weight, bias = weights.get(name + ".weight"), weights.get(name + ".bias")
        if weight is None or bias is None or weight.shape != tuple(conv.weight.shape):
            raise SystemExit(
                f"{source}: no {name} of shape {tuple(conv.weight.shape)}; "
                "expected an ultralytics YOLO11n ONNX export"
            )
        conv.weight.data.copy_(torch.from_numpy(weight.copy()))
        parent = model.get_submodule(name.rsplit(".", 1)[0])
        if isinstance(parent, Conv):  # fused conv+BN in the export: BN starts as "add the bias"
            parent.bn.weight.data.fill_(1.0)
            parent.bn.bias.data.copy_(torch.from_numpy(bias.copy()))
            parent.bn.running_mean.zero_()
            parent.bn.running_var.fill_(1.0 - parent.bn.eps)
        else:
            conv.bias.data.copy_(torch.from_numpy(bias.copy()))
    batch = torch.stack(
        [
            torch.from_numpy(np.array(Image.open(f).convert("RGB").resize((side, side))))
            .permute(2, 0, 1)
            .float()
            / 255.0
            for f in images
        ]
    )
    head_inputs: dict[str, Any] = {}
    conv_stats: dict[str, tuple[Any, Any]] = {}

    def keep_input(name: str) -> Any:
        return lambda _m, inp, _o: head_inputs.__setitem__(name, inp[0].detach().double())

    def keep_stats(name: str) -> Any:
        def hook(_m: Any, _i: Any, out: Any) -> None:
            o = out.detach().double()
            conv_stats[name] = (o.mean((0, 2, 3)), o.var((0, 2, 3)))

        return hook

    hooks = [model.get_submodule(h).register_forward_hook(keep_input(h)) for h in heads]
    hooks += [
        m.conv.register_forward_hook(keep_stats(n))
        for n, m in model.named_modules()
        if isinstance(m, Conv)
    ]
    model.eval()
    with torch.no_grad():
        model(batch)
    for hook in hooks:
        hook.remove()
    for h in heads if not one_class else ():
        rows = torch.from_numpy(weights[h + ".weight"][:, :, 0, 0].astype(np.float64))
        feats = head_inputs[h].permute(0, 2, 3, 1).reshape(-1, rows.shape[1])
        logits = feats @ rows.T + torch.from_numpy(weights[h + ".bias"].astype(np.float64))
        best = logits.max(1).values.clamp(min=-10)[:, None]
        design = torch.cat([feats, torch.ones(len(feats), 1, dtype=torch.float64)], 1)
        fit = torch.linalg.lstsq(design, best).solution[:, 0]
        conv = model.get_submodule(h)
        conv.weight.data.copy_(fit[:-1].float().view(1, -1, 1, 1))
        conv.bias.data.fill_(float(fit[-1]))
    for name, m in model.named_modules():
        if isinstance(m, Conv):  # same function, BN statistics of real data
            mean, var = conv_stats[name]
            bias = m.bn.bias.data.double()
            m.bn.running_mean.copy_(mean.float())
            m.bn.running_var.copy_(var.float())
            m.bn.weight.data.copy_(torch.sqrt(var + m.bn.eps).float())
            m.bn.bias.data.copy_((mean + bias).float())
    return model


def tilenet() -> Any:
    """The tile classifier's network, untrained (training, and fine-tuning from the ONNX file)."""
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

    stem, *widths = TILENET_WIDTHS
    layers: list[Any] = [
        nn.Conv2d(3, stem, 3, stride=2, padding=1, bias=False),  # 24×24
        nn.BatchNorm2d(stem),
        nn.ReLU(inplace=True),
    ]
    cin = stem
    for i, cout in enumerate(widths):
        if i:
            layers.append(nn.MaxPool2d(2))  # 12, then 6
        layers.append(block(cin, cout))
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(cin, NUM_CLASSES)]
    return nn.Sequential(*layers)


def to_input(x: np.ndarray, crop: int) -> Any:
    """Stored uint8 NHWC crops → float NCHW at ``crop`` (area scaling, like the run-time crop)."""
    import torch  # type: ignore[import-not-found,unused-ignore]
    import torch.nn.functional as F  # type: ignore[import-not-found,unused-ignore]

    t = torch.from_numpy(x).permute(0, 3, 1, 2).float() / 255.0
    return F.interpolate(t, size=(crop, crop), mode="area") if t.shape[-1] != crop else t


def _augment(x: Any, rng: np.random.Generator, crop: int) -> Any:
    """Batch augmentation on uint8 NHWC: 90° turns, small rotations, scale, colour, noise, and
    the overhead camera's small, soft, compressed faces."""
    import torch  # type: ignore[import-not-found,unused-ignore]

    n = x.shape[0]
    t = turned(to_input(x, crop), rng, 15.0, 0.15, 0.07)
    gain = torch.from_numpy(rng.uniform(0.6, 1.4, (n, 1, 1, 1))).float()
    bias = torch.from_numpy(rng.uniform(-0.15, 0.15, (n, 1, 1, 1))).float()
    tint = torch.from_numpy(rng.uniform(0.85, 1.15, (n, 3, 1, 1))).float()
    t = t * gain * tint + bias
    gray = rng.random(n) < 0.15
    if gray.any():
        g = t[gray].mean(1, keepdim=True)
        t[gray] = g.expand(-1, 3, -1, -1)
    t = t + torch.randn_like(t) * torch.from_numpy(rng.uniform(0, 0.05, (n, 1, 1, 1))).float()
    for i in np.nonzero(rng.random(n) < CAMERA_LOOK)[0]:
        t[i] = _camera_look(t[i], rng)
    return t.clamp(0, 1)


def turned(t: Any, rng: np.random.Generator, degrees: float, scale: float, shift: float) -> Any:
    """Crops ``t`` (NCHW) each at a random quarter turn, then turned up to ±``degrees``, scaled
    by 1 ± ``scale`` and shifted by ± ``shift`` of the side."""
    import torch  # type: ignore[import-not-found,unused-ignore]
    import torch.nn.functional as F  # type: ignore[import-not-found,unused-ignore]

    n = len(t)
    k = rng.integers(0, 4, n)
    t = torch.stack([torch.rot90(t[i], int(k[i]), (1, 2)) for i in range(n)])
    ang = np.deg2rad(rng.uniform(-degrees, degrees, n))
    s = rng.uniform(1 - scale, 1 + scale, n)
    sh = rng.uniform(-shift, shift, (n, 2))
    cos, sin = np.cos(ang) / s, np.sin(ang) / s
    theta = np.stack([np.stack([cos, -sin, sh[:, 0]], 1), np.stack([sin, cos, sh[:, 1]], 1)], 1)
    grid = F.affine_grid(torch.from_numpy(theta).float(), list(t.shape), align_corners=False)
    return F.grid_sample(t, grid, padding_mode="border", align_corners=False)


def _camera_look(t: Any, rng: np.random.Generator) -> Any:
    """A face as an overhead camera films it: a few dozen pixels, a soft lens, a JPEG (MJPEG)
    frame, then scaled up to the crop. Without blur and JPEG the shipped classifier read 0.99 of a
    dim venue's river faces; with them, 0.82 (issue #37)."""
    import cv2
    import torch  # type: ignore[import-not-found,unused-ignore]

    crop = t.shape[-1]
    img = (t.clamp(0, 1).permute(1, 2, 0).numpy() * 255).round().astype(np.uint8)
    side = int(rng.integers(12, 44))
    img = cv2.resize(img, (side, side), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.7:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.3, 1.3)))
    if rng.random() < 0.7:
        quality = int(rng.integers(25, 90))
        _ok, data = cv2.imencode(".jpg", img[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, quality])
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
        assert decoded is not None
        img = decoded[..., ::-1]
    img = cv2.resize(np.ascontiguousarray(img), (crop, crop), interpolation=cv2.INTER_LINEAR)
    return torch.from_numpy(img).permute(2, 0, 1).float() / 255.0


def train_classifier(
    work: Path, epochs: int, batch: int, lr: float, threads: int, init: Path | None, crop: int
) -> None:
    """TileNet is fully convolutional: weights trained at one side (``init``) go on at another."""
    import torch  # type: ignore[import-not-found,unused-ignore]

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    tr = np.load(work / "crops_train.npz")
    va = np.load(work / "crops_val.npz")
    xtr, ytr = tr["x"], tr["y"]
    if (work / "crops_stretched.npz").exists():  # made by ``stretch``
        st = np.load(work / "crops_stretched.npz")
        xtr, ytr = np.concatenate([xtr, st["x"]]), np.concatenate([ytr, st["y"]])
    xva, yva = va["x"], va["y"]
    net = tilenet()
    if init and init.suffix == ".onnx":
        net.load_state_dict(classifier_from_onnx(init, xtr[:: max(1, len(xtr) // 2048)], crop))
    elif init:
        net.load_state_dict(_load_classifier(init)[1])
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
            xb = _augment(xtr[idx], rng, crop)
            loss = loss_fn(net(xb), ytr_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
            seen += len(idx)
        acc = _accuracy(net, xva, yva, crop)
        print(
            f"epoch {epoch + 1}/{epochs} loss {total / seen:.4f} val_acc {acc:.4f} "
            f"({time.time() - start:.0f} s)",
            flush=True,
        )
        torch.save({"crop": crop, "state": net.state_dict()}, work / "cls.pt")


def classifier_from_onnx(path: Path, crops: np.ndarray, crop: int) -> dict[str, Any]:
    """The float TileNet weights an exported int8 classifier computes, so that the shipped file
    can be fine-tuned (its float weights are not kept). Each convolution is dequantized and its
    batch norm set from the statistics of its outputs on ``crops``, as :func:`seeded_model` does
    for the detector: train-mode BN then keeps the copied function."""
    import onnx  # type: ignore[import-not-found,unused-ignore]
    import torch  # type: ignore[import-not-found,unused-ignore]
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in graph.initializer}
    net = tilenet()
    modules = dict(net.named_modules())
    convs: dict[str, Any] = {}
    for node in graph.node:
        if node.op_type not in ("QLinearConv", "QGemm"):
            continue
        # "/0/0.3/0.3.0/Conv_quant" → TileNet module "3.0" (the export wrapped it as module 0)
        name = node.name.rsplit("/", 2)[-2].removeprefix("0.")
        x_scale, w, w_scale, w_zero = (inits[node.input[i]] for i in (1, 3, 4, 5))
        shape = (-1,) + (1,) * (w.ndim - 1)
        weight = (w - w_zero.reshape(shape)) * w_scale.reshape(shape)
        bias_at = 8 if node.op_type == "QLinearConv" else 6
        bias = inits[node.input[bias_at]] * x_scale * w_scale
        module = modules.get(name)
        if module is None or tuple(module.weight.shape) != weight.shape:
            raise SystemExit(f"{path}: {node.name} is not a TileNet layer; expected our export")
        module.weight.data.copy_(torch.from_numpy(weight).float())
        if node.op_type == "QGemm":
            module.bias.data.copy_(torch.from_numpy(bias).float())
            continue
        head, _, index = name.rpartition(".")
        norm = modules[f"{head}.{int(index) + 1}" if head else str(int(index) + 1)]
        norm.weight.data.fill_(1.0)
        norm.bias.data.copy_(torch.from_numpy(bias).float())
        norm.running_mean.zero_()
        norm.running_var.fill_(1.0 - norm.eps)
        convs[name] = (module, norm)
    stats: dict[str, tuple[Any, Any]] = {}

    def keep(name: str) -> Any:
        def hook(_m: Any, _i: Any, out: Any) -> None:
            o = out.detach().double()
            stats[name] = (o.mean((0, 2, 3)), o.var((0, 2, 3)))

        return hook

    hooks = [module.register_forward_hook(keep(n)) for n, (module, _) in convs.items()]
    net.eval()
    with torch.no_grad():
        net(to_input(crops, crop))
    for hook in hooks:
        hook.remove()
    for name, (_, norm) in convs.items():  # same function, BN statistics of real crops
        mean, var = stats[name]
        bias = norm.bias.data.double()
        norm.running_mean.copy_(mean.float())
        norm.running_var.copy_(var.float())
        norm.weight.data.copy_(torch.sqrt(var + norm.eps).float())
        norm.bias.data.copy_((mean + bias).float())
    return dict(net.state_dict())


def _load_classifier(path: Path) -> tuple[int, Any]:
    """(crop side, state dict) of a cls.pt; files before the side was stored were 48 px."""
    import torch  # type: ignore[import-not-found,unused-ignore]

    saved = torch.load(path)
    return (saved["crop"], saved["state"]) if "state" in saved else (48, saved)


def _accuracy(net: Any, x: np.ndarray, y: np.ndarray, crop: int) -> float:
    import torch  # type: ignore[import-not-found,unused-ignore]

    net.eval()
    right = 0
    with torch.no_grad():
        for i in range(0, len(y), 512):
            t = to_input(x[i : i + 512], crop)
            right += int((net(t).argmax(1).numpy() == y[i : i + 512]).sum())
    return right / len(y)


def export(work: Path, out: Path, det_weights: Path | None, calib_images: Path | None) -> None:
    """Write models/tile_detector.onnx and models/tile_classifier.onnx (both int8)."""
    out.mkdir(parents=True, exist_ok=True)
    weights = det_weights or work / "runs" / "det" / "weights" / "last.pt"
    if weights.exists():
        path = yolo_class()(str(weights)).export(
            format="onnx", dynamic=True, simplify=True, opset=17
        )
        Path(path).replace(out / "tile_detector.onnx")
        quantize_detector(out / "tile_detector.onnx", calib_images or work / "det/train/images")
        print(f"detector: {weights} → {out / 'tile_detector.onnx'} (int8)")
    if (work / "cls.pt").exists():
        crop, state = _load_classifier(work / "cls.pt")
        net = tilenet()
        net.load_state_dict(state)
        x = np.load(work / "crops_train.npz")["x"]
        pick = x[np.random.default_rng(0).choice(len(x), 512, replace=False)]
        export_classifier(net, crop, out / "tile_classifier.onnx", pick)
        print(f"classifier → {out / 'tile_classifier.onnx'} (int8)")


def export_classifier(net: Any, crop: int, path: Path, calib: np.ndarray) -> None:
    """A TileNet as the shipped classifier file: ONNX, int8 calibrated on ``calib`` (uint8
    NHWC crops), with the outputs a venue profile reads (vision/embedding.py)."""
    import onnx  # type: ignore[import-not-found,unused-ignore]
    import torch  # type: ignore[import-not-found,unused-ignore]

    net.eval()
    torch.onnx.export(
        torch.nn.Sequential(net, torch.nn.Softmax(dim=1)),
        (torch.zeros(1, 3, crop, crop),),
        str(path),
        input_names=["crops"],
        output_names=["probs"],
        dynamic_axes={"crops": {0: "n"}, "probs": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    _quantize(path, "crops", to_input(calib, crop).numpy(), 32)
    model = onnx.load(str(path))
    add_embedding_output(model)
    onnx.save(model, str(path))


def quantize_detector(path: Path, images: Path) -> None:
    """Static int8 convolutions, calibrated on 96 train photos, except the six output convs
    (box distances and the tile score stay float): 1.6× faster on the CPU for the same valid
    figures, which pays for the squashed views of ``vision.detect``."""
    import onnx  # type: ignore[import-not-found,unused-ignore]

    from vision.detect import letterbox
    from vision.image_io import load_image

    files = sorted(p for p in images.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    pick = [files[i] for i in np.random.default_rng(0).choice(len(files), 96, replace=False)]
    calib = np.stack([letterbox(load_image(p), 416)[0] for p in pick])  # the trained side
    outputs = [
        n.name
        for n in onnx.load(str(path)).graph.node
        if n.op_type == "Conv" and n.name.startswith("/model.23/") and n.name.endswith(".2/Conv")
    ]
    _quantize(path, "images", calib, 8, only=["Conv"], exclude=outputs)


def _quantize(
    path: Path,
    input_name: str,
    calib: np.ndarray,
    batch: int,
    only: list[str] | None = None,
    exclude: list[str] | None = None,
) -> None:
    """Replace an fp32 ONNX file by its static int8 form (per-channel weights, uint8
    activations calibrated on ``calib``); the classifier is 3× faster for the same valid
    accuracy (0.9646 vs 0.9645 fp32), which keeps us within 1.5× the peer. The weights are then
    stored as uint8 (``vision.int8.to_u8u8``): int8 weights saturate onnxruntime's kernels on
    x86-64 CPUs without VNNI, so the same file would read other tiles there."""
    import onnx  # type: ignore[import-not-found,unused-ignore]
    from onnxruntime.quantization import (  # type: ignore[import-untyped,unused-ignore]
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    from vision.int8 import to_u8u8

    class Batches(CalibrationDataReader):  # type: ignore[misc,unused-ignore]
        def __init__(self) -> None:
            self.at = 0

        def get_next(self) -> dict[str, np.ndarray] | None:
            if self.at >= len(calib):
                return None
            self.at += batch
            return {input_name: calib[self.at - batch : self.at]}

    fp32 = path.with_suffix(".fp32.onnx")
    path.replace(fp32)
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # onnxruntime's advice to pre-process, on every call
    try:
        quantize_static(
            str(fp32),
            str(path),
            Batches(),
            quant_format=QuantFormat.QOperator,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=only,
            nodes_to_exclude=exclude,
        )
    finally:
        root.setLevel(level)
    fp32.unlink()
    model = onnx.load(str(path))
    to_u8u8(model)
    onnx.save(model, str(path))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.train")
    sub = p.add_subparsers(dest="step", required=True)
    a = sub.add_parser("prepare")
    a.add_argument("--src", type=Path, default=Path("../shared/data/tiles-photos-cmd4"))
    a.add_argument("--work", type=Path, required=True)
    a.add_argument("--synth-scenes", type=int, default=600)
    a.add_argument("--synth-crops", type=int, default=20000)
    a.add_argument("--seed", type=int, default=0)
    st = sub.add_parser("stretch")
    st.add_argument("--work", type=Path, required=True)
    st.add_argument("--count", type=int, default=300)
    st.add_argument("--seed", type=int, default=0)
    d = sub.add_parser("detector")
    d.add_argument("--work", type=Path, required=True)
    d.add_argument("--epochs", type=int, default=30)
    d.add_argument("--imgsz", type=int, default=640)
    d.add_argument("--batch", type=int, default=16)
    d.add_argument("--fraction", type=float, default=1.0)
    d.add_argument("--init", type=Path, help="start from these weights (a last.pt)")
    d.add_argument("--name", default="det", help="run folder under WORK/runs")
    d.add_argument("--mosaic", type=float, default=1.0, help="share of mosaic batches")
    d.add_argument("--lr0", type=float, help="AdamW learning rate (default: ultralytics' choice)")
    d.add_argument("--degrees", type=float, default=15.0, help="random rotation range (±)")
    sd = sub.add_parser("seed")
    sd.add_argument("--work", type=Path, required=True)
    sd.add_argument("--peer-onnx", type=Path, required=True, help="a YOLO11n ONNX export")
    sd.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("classifier")
    c.add_argument("--work", type=Path, required=True)
    c.add_argument("--epochs", type=int, default=12)
    c.add_argument("--batch", type=int, default=128)
    c.add_argument("--lr", type=float, default=3e-3)
    c.add_argument("--threads", type=int, default=1)
    c.add_argument(
        "--init", type=Path, help="start from these weights (a cls.pt, or an exported classifier)"
    )
    c.add_argument("--crop", type=int, default=CROP, help="classifier input side (pixels)")
    e = sub.add_parser("export")
    e.add_argument("--work", type=Path, required=True)
    e.add_argument("--out", type=Path, default=Path("models"))
    e.add_argument("--det-weights", type=Path)
    e.add_argument(
        "--calib-images", type=Path, help="photos to calibrate the int8 detector on (train split)"
    )
    args = p.parse_args(argv)
    if args.step == "prepare":
        prepare(args.src, args.work, args.synth_scenes, args.synth_crops, args.seed)
    elif args.step == "detector":
        train_detector(
            args.work,
            args.epochs,
            args.imgsz,
            args.batch,
            args.fraction,
            args.init,
            args.name,
            args.mosaic,
            args.lr0,
            args.degrees,
        )
    elif args.step == "stretch":
        stretch_copies(args.work, args.count, args.seed)
    elif args.step == "seed":
        seed_detector(args.peer_onnx, args.work, args.out)
    elif args.step == "classifier":
        train_classifier(
            args.work, args.epochs, args.batch, args.lr, args.threads, args.init, args.crop
        )
    else:
        export(args.work, args.out, args.det_weights, args.calib_images)
    return 0


if __name__ == "__main__":
    sys.exit(main())
