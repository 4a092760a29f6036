"""Leave-one-style-out: enrol a tile style the models never saw from 1, 2, 5, 10 photos.

``python bench/enrol.py [--seed 0] [--ks 1,2,5,10] [--tune-ks 1,2,5,10] [--adapt-ks 10]
[--adapt-minutes 12] [--json]`` (set ``MJREF_SHARED`` when ``../shared`` is not beside the
checkout; the fine-tuning needs the train extra: run it with the training venv's python,
models/MODELS.md).
Three held-out sets:

* real: the 16 ``Screenshot-…`` photos of the dev valid split (one tile set, one camera; no photo
  of it is in the train split, so it is out of training as it stands). A seeded draw puts 6
  aside as the test photos; the enrolment photos are the first k of the other 10.
* rendered: the ``jade`` faces of ``vision/synth/faces.py`` (no model trained on them) in
  overhead scenes (``vision/synth/scene.py``); k scenes to enrol, 20 others to test; plus the
  guided form: one photo of the tile sheet.
* rendered small and dim: the same faces at another tile size and light (``DIM_LOOK``: 16–30 px
  tiles in tight rows under a dim, warm light falling off to the corners), where the shipped
  detector misses tiles too.

For each: end-to-end tile accuracy (``vision/metrics.py``: a dropped tile counts as a miss) and
detection recall (any name) on the test photos at the default threshold, before (shipped models,
0.4) and after (the profile, its keep threshold): with the classifier's last layer refitted only
(every k: what enrolment makes without the train extra), with the classifier fine-tuned too
(``--tune-ks``, vision/enrol_classifier.py) and with the detector fine-tuned as well
(``--adapt-ks``; each part kept only when it beats the shipped one on held-back enrolment
photos, vision/enrol_detector.py), and each enrolment's time; and on styles the models know (a
seeded 30 of the other valid photos, and rendered ``text``/``glyph`` scenes) with the most
photos' profiles and the sheet profile, tile by tile (tiles lost and gained), which must lose
nothing; and the detector's time per test photo, shipped and fine-tuned. ``--ks 10``: a quick
run, without the plot. Writes ``docs/enrol.svg`` (the accuracy against the number of enrolment
photos) and ``build/enrol/enrol.json``; ``--plot-from A.json B.json …`` draws the plot from
runs of a part of the grid each.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.classes import NAME_SETS  # noqa: E402
from vision.dataset import read_labels  # noqa: E402
from vision.detect import TileRecognizer  # noqa: E402
from vision.enrol import Photo, PhotoRead, enrol, read_photos  # noqa: E402
from vision.enrol_classifier import choose_classifier  # noqa: E402
from vision.enrol_detector import choose_detector, readings, rendered_photos  # noqa: E402
from vision.image_io import load_image  # noqa: E402
from vision.metrics import EvalResult, evaluate, paired  # noqa: E402
from vision.profile import VenueProfile  # noqa: E402
from vision.synth.scene import DIM_LOOK  # noqa: E402
from vision.synth.sheet_photo import render_sheet_photo  # noqa: E402

KS = (1, 2, 5, 10)
_KEPT = tempfile.TemporaryDirectory(prefix="bench-enrol-")
KEPT = Path(_KEPT.name)  # the fine-tuned detectors of the profiles checked on known styles


def shared() -> Path:
    return Path(os.environ.get("MJREF_SHARED", ROOT.parent / "shared"))


def reading(rec: TileRecognizer, photos: Sequence[Photo]) -> EvalResult:
    return evaluate(readings(rec, photos), rec.min_conf)


def accuracy(rec: TileRecognizer, photos: Sequence[Photo]) -> float:
    return reading(rec, photos).tile_accuracy


def figures(rec: TileRecognizer, photos: Sequence[Photo]) -> dict[str, float]:
    r = reading(rec, photos)
    return {"after": r.tile_accuracy, "detection_recall": r.detection_recall}


def interval(p: float, n: int) -> float:
    """Half the 95 % normal interval of an accuracy ``p`` measured on ``n`` tiles."""
    return 1.96 * math.sqrt(max(p * (1 - p), 1e-12) / max(n, 1))


def valid_photos(pattern: str) -> list[Photo]:
    root = shared() / "data" / "tiles-photos-cmd4" / "valid"
    out = []
    for path in sorted((root / "images").glob(pattern)):
        img = load_image(path)
        label = root / "labels" / (path.stem + ".txt")
        out.append(Photo(path, img, read_labels(label, img.width, img.height, NAME_SETS["cmd42"])))
    return out


def curve(
    base: TileRecognizer,
    pool: Sequence[Photo],
    test: Sequence[Photo],
    name: str,
    seed: int,
    ks: Sequence[int] = KS,
    tune_ks: Sequence[int] = (),
    adapt_ks: Sequence[int] = (),
    adapt_minutes: float = 12.0,
) -> tuple[dict[str, Any], dict[str, VenueProfile]]:
    """The row of one held-out set, and its profiles of the most photos (the refitted layer,
    and with the classifier and the detector fine-tuned where tried)."""
    reads = read_photos(base, pool, seed)
    shipped = reading(base, test)
    row: dict[str, Any] = {"before": shipped.tile_accuracy, "test_photos": len(test)}
    row["before_detection_recall"] = shipped.detection_recall
    row["test_tiles"] = sum(len(p.boxes) for p in test)
    profiles: dict[str, VenueProfile] = {}
    for k in ks:
        start = time.perf_counter()
        profile = enrol(base, pool[:k], name, seed, reads=reads[:k])
        seconds = time.perf_counter() - start
        row[str(k)] = {
            **figures(TileRecognizer(profile=profile), test),
            "keep": profile.keep,
            "classes": int(profile.enrolled.sum()),
            "fit_s": round(seconds, 1),
        }
        profiles[name] = profile
        print(f"  {name} k={k}: {_said(row, row[str(k)])}", flush=True)
    for k in tune_ks:
        start = time.perf_counter()
        profile = _tuned(base, base, pool[:k], reads[:k], name, seed, f"{name}-{k}-tuned")
        seconds = time.perf_counter() - start
        row[f"{k} tuned"] = {
            **figures(TileRecognizer(profile=profile), test),
            "keep": profile.keep,
            "classifier": profile.info["fitted"]["classifier"],
            "enrol_s": round(seconds, 1),
        }
        profiles[f"{name} tuned"] = profile
        print(f"  {name} k={k}, classifier fine-tuned: {_said(row, row[f'{k} tuned'])}", flush=True)
    for k in adapt_ks:
        start = time.perf_counter()
        choice = choose_detector(base, pool[:k], adapt_minutes, seed, say=lambda _m: None)
        detector = (base.detector.path, choice.path, choice.report)
        reader = choice.reader or base
        profile = _tuned(
            base, reader, pool[:k], None, name, seed, f"{name}-{k}-adapted", detector=detector
        )
        seconds = time.perf_counter() - start
        rec = TileRecognizer(profile=profile)
        row[f"{k} adapted"] = {
            **figures(rec, test),
            "keep": profile.keep,
            "detector": choice.report,
            "detector_figures": choice.figures,
            "classifier": profile.info["fitted"]["classifier"],
            "enrol_s": round(seconds, 1),
            "detector_ms_per_photo": _detector_ms(rec, test),
        }
        if choice.path is not None:
            row[f"{k} adapted"]["shipped_detector_ms_per_photo"] = _detector_ms(base, test)
            profile.detector = KEPT / f"{name}-{k}.onnx"  # past the choice's own folder
            shutil.copyfile(choice.path, profile.detector)
        if choice.work is not None:
            choice.work.cleanup()
        profiles[f"{name} adapted"] = profile
        print(
            f"  {name} k={k}, detector and classifier fine-tuned: "
            f"{_said(row, row[f'{k} adapted'])} in {seconds / 60:.1f} min; {choice.report}",
            flush=True,
        )
    return row, profiles


def _tuned(
    shipped: TileRecognizer,
    rec: TileRecognizer,
    photos: Sequence[Photo],
    reads: Sequence[PhotoRead] | None,
    name: str,
    seed: int,
    kept: str,
    detector: tuple[Path, Path | None, str] | None = None,
) -> VenueProfile:
    """Enrolment as `mjref tiles enrol` makes it after the detector: the refitted profile, then
    the classifier's fine-tuning; its classifier file kept in KEPT as ``kept``.onnx."""
    reads = list(reads) if reads is not None else read_photos(rec, photos, seed)
    refitted = enrol(rec, photos, name, seed, reads=reads, detector=detector)
    with tempfile.TemporaryDirectory() as work:
        profile = choose_classifier(
            shipped, rec, photos, reads, refitted, Path(work), seed, lambda _m: None
        )
        if profile.classifier is not None:
            profile.classifier = Path(shutil.copyfile(profile.classifier, KEPT / f"{kept}.onnx"))
    return profile


def _said(row: dict[str, Any], after: dict[str, Any]) -> str:
    return (
        f"tile accuracy {row['before']:.4f} → {after['after']:.4f}, detection recall "
        f"{row['before_detection_recall']:.4f} → {after['detection_recall']:.4f} "
        f"(keep {after['keep']})"
    )


def _detector_ms(rec: TileRecognizer, photos: Sequence[Photo]) -> float:
    """The detector's time per photo (its candidates, before classification), best of two."""
    best = math.inf
    for _ in range(2):
        start = time.perf_counter()
        for p in photos:
            rec.candidates(p.image, rec.det_floor(rec.min_conf))
        best = min(best, (time.perf_counter() - start) / max(len(photos), 1))
    return round(best * 1000, 1)


def plot(results: dict[str, Any], path: Path, ks: Sequence[int] = KS) -> None:
    """A small SVG: accuracy against enrolment photos, one line per held-out style."""
    notes = _known_lines(results.get("known", {}))
    extra = 14 * (len(notes) + 1)  # the known styles' lines under the plot
    w, h, left, bottom, top, right = 1040, 320 + extra, 60, 50 + extra, 30, 640
    lo = 0.4

    def x(k: float) -> float:
        return left + (list(ks).index(int(k)) / max(len(ks) - 1, 1)) * (w - left - right)

    def y(a: float) -> float:
        return top + (1 - (max(a, lo) - lo) / (1 - lo)) * (h - top - bottom)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif"'
        ' font-size="11">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<text x="{left}" y="18" font-size="12">Tile accuracy on a held-out style after '
        "enrolment (default threshold; ● classifier fine-tuned, ⋯ its last layer refitted "
        "only, □ detector fine-tuned too)</text>",
    ]
    for a in (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0):
        out.append(
            f'<line x1="{left}" x2="{w - right}" y1="{y(a)}" y2="{y(a)}" stroke="'
            + ("#c33" if a == 0.95 else "#ddd")
            + '"/>'
        )
        out.append(f'<text x="{left - 6}" y="{y(a) + 4}" text-anchor="end">{a:.2f}</text>')
    for k in ks:
        out.append(f'<text x="{x(k)}" y="{h - bottom + 16}" text-anchor="middle">{k}</text>')
    out.append(
        f'<text x="{(left + w - right) / 2}" y="{h - bottom + 32}" text-anchor="middle">'
        "enrolment photos</text>"
    )
    colours = ("#1f77b4", "#2ca02c", "#9467bd")
    labels: list[tuple[float, str, str]] = []  # (y, text, colour) at the right of the plot
    for i, (name, row) in enumerate(results["held_out"].items()):
        c = colours[i % len(colours)]
        refit = " ".join(f"{x(k):.1f},{y(row[str(k)]['after']):.1f}" for k in ks)
        out.append(f'<polyline points="{refit}" fill="none" stroke="{c}" stroke-dasharray="1,3"/>')
        best = {k: row.get(f"{k} tuned", row[str(k)])["after"] for k in ks}
        pts = " ".join(f"{x(k):.1f},{y(a):.1f}" for k, a in best.items())
        out.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="2"/>')
        for k, a in best.items():
            out.append(f'<circle cx="{x(k):.1f}" cy="{y(a):.1f}" r="3" fill="{c}"/>')
        for key, after in row.items():  # the detector fine-tuned too: a square
            if key.endswith(" adapted") and int(key.split()[0]) in ks:
                kx, ky = x(int(key.split()[0])), y(after["after"])
                out.append(
                    f'<rect x="{kx - 4:.1f}" y="{ky - 4:.1f}" width="8" height="8" fill="none" '
                    f'stroke="{c}" stroke-width="1.5"/>'
                )
        yb = y(row["before"])
        out.append(
            f'<line x1="{left}" x2="{w - right}" y1="{yb:.1f}" y2="{yb:.1f}" stroke="{c}" '
            'stroke-dasharray="4,3"/>'
        )
        labels += [(y(best[ks[-1]]), name, c), (yb, f"{name}: before", c)]
    last = -math.inf
    for ly, text, c in sorted(labels):  # each label at least a line below the one above
        last = max(ly, last + 13)
        out.append(f'<text x="{w - right + 6}" y="{last + 4:.1f}" fill="{c}">{text}</text>')
    line = h - 14 * len(notes) - 6
    out.append(
        f'<text x="{left}" y="{line}">Known styles, tile accuracy shipped → with each '
        "profile (tiles lost / gained):</text>"
    )
    for i, note in enumerate(notes):
        out.append(f'<text x="{left}" y="{line + 14 * (i + 1)}">{note}</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def merged(paths: Sequence[Path]) -> dict[str, Any]:
    """One result from several runs' enrol.json, each cell from the last run that has it: the
    whole grid with the detector fine-tuned at every k takes hours on 2 cores, so it is run a
    set or a few k at a time."""
    results: dict[str, Any] = {"held_out": {}, "known": {}}
    for path in paths:
        try:
            run = json.loads(path.read_text())
            parts = {part: run[part].items() for part in results}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise SystemExit(
                f"{path}: not a bench/enrol.py result ({e!r}); expected its enrol.json"
            ) from e
        for part, rows in parts.items():
            for name, row in rows:
                results[part].setdefault(name, {}).update(row)
    missing = [
        f"{name}: {k} {how}"
        for name, row in results["held_out"].items()
        for k in KS
        for how, key in (("photos", str(k)), ("photos, classifier fine-tuned", f"{k} tuned"))
        if key not in row
    ]
    if missing:
        raise SystemExit("the runs lack cells the plot draws: " + "; ".join(missing))
    return results


def _known_lines(known: dict[str, Any], per_line: int = 5) -> list[str]:
    """The known styles' figures, a few profiles a line so that they stay inside the plot."""
    lines = []
    for name, row in known.items():
        withs = [
            f"{key.removeprefix('with the ').removesuffix(' profile')} {row[key]:.3f} "
            f"({row['changes ' + key]['lost']}/{row['changes ' + key]['gained']})"
            for key in row
            if key.startswith("with the ")
        ]
        lines.append(f"{name} ({row['tiles']} tiles): {row['shipped']:.3f} →")
        lines += [", ".join(withs[i : i + per_line]) for i in range(0, len(withs), per_line)]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--known", type=int, default=30, help="known-style valid photos to check")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--ks", default="1,2,5,10", help="enrolment photos to try (quick: 10)")
    ap.add_argument(
        "--tune-ks", default="1,2,5,10", help="…with the classifier fine-tuned ('': none)"
    )
    ap.add_argument("--adapt-ks", default="10", help="…and the detector too ('': none)")
    ap.add_argument("--adapt-minutes", type=float, default=12.0, help="each enrolment's cap")
    ap.add_argument("--sets", default="real,jade,dim", help="held-out sets to run")
    ap.add_argument(
        "--plot-from", nargs="+", type=Path, help="only draw docs/enrol.svg from these enrol.json"
    )
    args = ap.parse_args(argv)
    if args.plot_from:
        plot(merged(args.plot_from), ROOT / "docs" / "enrol.svg")
        return 0
    ks = tuple(int(k) for k in args.ks.split(","))
    tune_ks = tuple(int(k) for k in args.tune_ks.split(",") if k)
    adapt_ks = tuple(int(k) for k in args.adapt_ks.split(",") if k)
    sets = set(args.sets.split(","))
    start = time.perf_counter()
    base = TileRecognizer()
    results: dict[str, Any] = {"seed": args.seed, "held_out": {}, "known": {}}
    rng = random.Random(args.seed)

    real = valid_photos("Screenshot*")
    profiles: dict[str, VenueProfile] = {}
    held: dict[str, tuple[str, list[Photo], list[Photo]]] = {}  # name → (key, pool, test)
    if real:
        order = list(range(len(real)))
        rng.shuffle(order)
        test, pool = [real[i] for i in order[:6]], [real[i] for i in order[6:16]]
        held["screenshot"] = ("real (Screenshot set)", pool, test)
    else:
        print(f"no {shared()}/data: the real held-out style is skipped", file=sys.stderr)
    jade_test = rendered_photos(range(5000, 5020), "jade")
    held["jade"] = ("rendered (jade faces)", rendered_photos(range(4000, 4010), "jade"), jade_test)
    held["jade-dim"] = (
        "rendered (jade, small tiles, dim light)",
        rendered_photos(range(4000, 4010), "jade", DIM_LOOK),
        rendered_photos(range(5000, 5020), "jade", DIM_LOOK),
    )
    wanted = {"real": "screenshot", "jade": "jade", "dim": "jade-dim"}
    for name, (key, pool, test) in held.items():
        if name not in {wanted.get(s, s) for s in sets}:
            continue
        results["held_out"][key], made = curve(
            base, pool, test, name, args.seed, ks, tune_ks, adapt_ks, args.adapt_minutes
        )
        profiles.update(made)
    sheet_img, sheet_boxes = render_sheet_photo("jade", 4100 + args.seed)
    sheet = enrol(base, [Photo(Path("sheet"), sheet_img, sheet_boxes)], "jade-sheet", args.seed)
    results["sheet (jade, 1 photo)"] = {
        "after": accuracy(TileRecognizer(profile=sheet), jade_test),
        "keep": sheet.keep,
    }
    profiles["jade sheet"] = sheet
    print(f"  jade from one sheet photo: {results['sheet (jade, 1 photo)']['after']:.4f}")

    known: dict[str, list[Photo]] = {
        "rendered text+glyph": rendered_photos(range(6000, 6010), "text")
    }
    known["rendered text+glyph"] += rendered_photos(range(6010, 6020), "glyph")
    if real:
        others = [p for p in valid_photos("*") if not p.path.name.startswith("Screenshot")]
        known["real valid (other sets)"] = random.Random(args.seed).sample(others, args.known)
    for name, photos in known.items():
        plain = readings(base, photos)
        shipped = evaluate(plain, base.min_conf)
        row: dict[str, Any] = {"shipped": shipped.tile_accuracy, "photos": len(photos)}
        row["tiles"] = shipped.tiles
        row["interval95"] = interval(shipped.tile_accuracy, shipped.tiles)
        for key, profile in profiles.items():
            rec = TileRecognizer(profile=profile)
            read = readings(rec, photos)
            row[f"with the {key} profile"] = evaluate(read, rec.min_conf).tile_accuracy
            row[f"changes with the {key} profile"] = paired(
                plain, base.min_conf, read, rec.min_conf
            )
        results["known"][name] = row
        print(f"  known {name}: {row}", flush=True)
    results["seconds"] = round(time.perf_counter() - start, 1)
    (ROOT / "docs").mkdir(exist_ok=True)
    if ks == KS:  # the plot of the full run only
        plot(results, ROOT / "docs" / "enrol.svg")
    out = ROOT / "build" / "enrol"
    out.mkdir(parents=True, exist_ok=True)
    (out / "enrol.json").write_text(json.dumps(results, indent=2) + "\n")
    if args.json:
        print(json.dumps(results))
    for name, row in results["held_out"].items():
        keys = [str(ks[-1])] + [f"{k} tuned" for k in tune_ks] + [f"{k} adapted" for k in adapt_ks]
        for key in keys:
            after = row[key]
            ok = after["after"] >= 0.95 and after["detection_recall"] >= 0.97
            print(
                f"{name}: before {row['before']:.4f} / {row['before_detection_recall']:.4f}, "
                f"after {key} photos {after['after']:.4f} / {after['detection_recall']:.4f} "
                f"(tile accuracy / detection recall; targets ≥ 0.95 / ≥ 0.97: "
                f"{'PASS' if ok else 'FAIL'})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
