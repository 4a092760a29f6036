"""`mjref tiles`: recognise tiles in photos — detect (JSON lines), score a hand, evaluate a set,
enrol a venue's tile set (a venue profile that detect, score and eval take with --profile)."""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from referee.hands import HandError, WinBy, Wind, WinningHand
from referee.scoring import PROFILE_NAMES, score
from referee.tiles import NotationError, parse_tile, tile_name
from vision.classes import NAME_SETS, class_label
from vision.detect import MODELS_DIR, TileRecognizer
from vision.hand_reader import ReadHand, read_hand
from vision.image_io import ImageError, load_image
from vision.onnx_model import ModelError

EXAMPLES = """examples:
  mjref tiles detect table.jpg --json --min-conf 0.4
  mjref tiles score hand.jpg --win 5s --self --seat S
  mjref tiles eval ../shared/data/tiles-photos-cmd4/valid --names cmd42
  mjref tiles enrol venue.jsonl --out profiles/venue --name "Venue A"
  mjref tiles enrol --sheet sheet1.jpg sheet2.jpg --out profiles/venue
  mjref tiles detect table.jpg --profile profiles/venue
"""

PROFILE_HELP = "a venue profile folder (mjref tiles enrol); default: the shipped models alone"
MIN_CONF_HELP = "keep tiles with conf ≥ C (default: the profile's keep threshold, else 0.4)"


def _confidence(text: str) -> float:
    """An argparse type: a confidence between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text!r} is not a confidence from 0 to 1")
    return value


def _count(text: str) -> int:
    """An argparse type: a whole number, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number, 0 or more")
    return value


def _minutes(text: str) -> float:
    """An argparse type: minutes, at least 2 (reading the photos and fitting take about one)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 2.0 <= value <= 600.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of minutes from 2 to 600")
    return value


def _tile(text: str) -> str:
    """An argparse type: a tile in the referee's notation (kept as typed)."""
    try:
        parse_tile(text)
    except NotationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tiles",
        help="recognise mahjong tiles in photos (detect, score, eval, enrol)",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="folder of the ONNX models")
    parser.add_argument(
        "--turns",
        type=int,
        choices=(1, 2, 4),
        default=4,
        help="quarter turns a tile the classifier is unsure of is also seen at (averaged)",
    )
    sub = parser.add_subparsers(dest="tiles_command", metavar="ACTION")
    sub.required = True

    det = sub.add_parser("detect", help="tiles in each image, one line per image")
    det.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    det.add_argument("--json", action="store_true", help="JSON lines out")
    det.add_argument(
        "--min-conf",
        type=_confidence,
        default=None,
        metavar="C",
        help=MIN_CONF_HELP + "; conf = detector score × √(classifier probability) without one",
    )
    det.add_argument("--profile", type=Path, metavar="PROFILE_DIR", help=PROFILE_HELP)
    det.add_argument(
        "--tiled",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="force (or forbid) tiled inference; default: for large images",
    )
    det.set_defaults(handler=run_detect)

    sc = sub.add_parser("score", help="read a winning hand laid out in a row and score it")
    sc.add_argument("photo", type=Path, metavar="PHOTO")
    sc.add_argument(
        "--win",
        type=_tile,
        metavar="TILE",
        help="the winning tile (default: a lone last tile, else the last concealed tile)",
    )
    how = sc.add_mutually_exclusive_group()
    how.add_argument("--discard", action="store_true", help="won on a discard (default)")
    how.add_argument("--self", action="store_true", help="self-drawn win")
    sc.add_argument(
        "--seat", type=str.upper, choices=("E", "S", "W", "N"), default="E", help="seat wind"
    )
    sc.add_argument("--rules", choices=PROFILE_NAMES, default="wmc", help="scoring rules")
    sc.add_argument("--min-conf", type=_confidence, default=None, metavar="C", help=MIN_CONF_HELP)
    sc.add_argument("--profile", type=Path, metavar="PROFILE_DIR", help=PROFILE_HELP)
    sc.add_argument("--json", action="store_true")
    sc.set_defaults(handler=run_score)

    ev = sub.add_parser("eval", help="mAP50, precision, recall, tile accuracy on a labelled set")
    ev.add_argument("set_dir", type=Path, metavar="SET_DIR", help="folder with images/ + labels/")
    ev.add_argument(
        "--names",
        choices=sorted(NAME_SETS),
        default="cmd42",
        help="the set's class-id order (cmd42: Chinese Mahjong Detection v4)",
    )
    ev.add_argument(
        "--min-conf",
        type=_confidence,
        default=None,
        metavar="C",
        help="operating confidence for precision, recall and accuracy (default: the "
        "profile's keep threshold, else 0.4)",
    )
    ev.add_argument("--profile", type=Path, metavar="PROFILE_DIR", help=PROFILE_HELP)
    ev.add_argument("--limit", type=_count, default=0, help="only the first N images (0: all)")
    ev.add_argument("--json", action="store_true")
    ev.set_defaults(handler=run_eval)

    en = sub.add_parser(
        "enrol",
        help="fit a venue profile from a few photos of the venue's own tiles",
        description="From LABELS.jsonl (one line per photo, as `tiles detect --json` writes "
        'it: {"image": PATH, "tiles": [{"box": [x1, y1, x2, y2], "tile": "5m"}, …]}) or from '
        "photos of hardware/tile-sheet.pdf with the tiles laid on it (--sheet), fine-tune the "
        "tile detector on them (with the train extra installed; kept only when it finds the "
        "held-back photos' tiles better), then fit the venue's prototypes, the calibration of "
        "the scores and the keep threshold, and fine-tune the classifier (with the train "
        "extra; kept only when it reads the held-back photos better).",
    )
    en.add_argument("labels", nargs="?", type=Path, metavar="LABELS.jsonl")
    en.add_argument("--sheet", nargs="+", type=Path, metavar="PHOTO", help="tile-sheet photos")
    en.add_argument(
        "--from-rig",
        type=Path,
        metavar="RECORDING",
        help="take the photos from the rig's recording (its ring folder: the stills of the "
        "table at rest); writes them and their labels, drafted, into PROFILE_DIR/enrolment/ "
        "to be corrected and enrolled from",
    )
    en.add_argument(
        "--photos", type=_count, default=10, help="--from-rig: how many stills (default 10)"
    )
    en.add_argument("--out", type=Path, required=True, metavar="PROFILE_DIR")
    en.add_argument("--name", help="the profile's name (default: the folder's name)")
    en.add_argument("--seed", type=int, default=0, help="seed of the box jitter")
    en.add_argument(
        "--max-minutes",
        type=_minutes,
        default=15.0,
        metavar="M",
        help="cap on the whole enrolment, most of it the detector's fine-tuning (default 15)",
    )
    en.add_argument(
        "--shipped-detector",
        action="store_true",
        help="do not fine-tune the detector: the profile keeps the shipped one",
    )
    en.add_argument(
        "--shipped-classifier",
        action="store_true",
        help="do not fine-tune the classifier: the profile refits its last layer only",
    )
    en.set_defaults(handler=run_enrol)


def _recognizer(args: argparse.Namespace) -> TileRecognizer | None:
    try:
        return TileRecognizer(args.models, turns=args.turns, profile=getattr(args, "profile", None))
    except ModelError as exc:
        print(f"mjref tiles: {exc}", file=sys.stderr)
        return None


def run_detect(args: argparse.Namespace) -> int:
    rec = _recognizer(args)
    if rec is None:
        return 2
    failed = False
    for path in args.images:
        try:
            img = load_image(path)
        except ImageError as exc:
            failed = True
            line: dict[str, Any] = {"image": str(path), "error": str(exc)}
            print(json.dumps(line) if args.json else f"{path}: error: {exc}", flush=True)
            continue
        dets = rec.detect(img, min_conf=args.min_conf, tiled=args.tiled)
        if args.json:
            line = {"image": str(path), "tiles": [d.to_json() for d in dets]}
            print(json.dumps(line, ensure_ascii=False), flush=True)
        else:
            order = sorted(dets, key=lambda d: (d.x1 + d.x2) / 2)
            print(f"{path}: {len(dets)} tiles: {' '.join(d.label for d in order)}", flush=True)
    return 1 if failed else 0


def run_score(args: argparse.Namespace) -> int:
    from referee.score_cli import render

    rec = _recognizer(args)
    if rec is None:
        return 2
    try:
        img = load_image(args.photo)
    except ImageError as exc:
        print(f"mjref tiles score: {exc}", file=sys.stderr)
        return 2
    dets = rec.detect(img, min_conf=args.min_conf)
    try:
        read = read_hand(dets)
    except HandError as exc:
        seen = " ".join(d.label for d in sorted(dets, key=lambda d: (d.x1, d.y1)))
        print(f"mjref tiles score: {exc} (read {len(dets)} tiles: {seen or '-'})", file=sys.stderr)
        return 2
    try:
        hand = _winning_hand(read, args)
    except (HandError, NotationError) as exc:
        # A wrong count is most often a tile missed or invented: show what was read.
        count = sum(len(g) for g in read.groups) + len(read.flowers)
        flowers = f" +{len(read.flowers)} flowers" if read.flowers else ""
        print(
            f"mjref tiles score: {exc} (read {count} tiles: {read.describe() or '-'}{flowers})",
            file=sys.stderr,
        )
        return 2
    result = score(hand, args.rules)
    if args.json:
        out = {
            "read": [[tile_name(t) for t in g] for g in read.groups],
            "flowers": len(read.flowers),
            **result.to_json(),
        }
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(
            f"Read: {read.describe()}"
            + (f"  (+{len(read.flowers)} flowers)" if read.flowers else "")
        )
        print(render(hand, result))
    return 0


def _winning_hand(read: ReadHand, args: argparse.Namespace) -> WinningHand:
    """The hand to score from what was read and the options (--win, --self, --seat)."""
    concealed = list(read.concealed)
    if args.win is not None:
        win = parse_tile(args.win)
        if read.win is not None:
            concealed.append(read.win)
        if win in concealed:
            concealed.remove(win)
        else:
            raise HandError(f"--win {args.win}: that tile was not read in the photo")
    elif read.win is not None:
        win = read.win
    elif concealed:
        win = concealed.pop()
    else:
        raise HandError("no concealed tiles read")
    return WinningHand(
        concealed=tuple(concealed),
        win_tile=win,
        win_by=WinBy.SELF if args.self else WinBy.DISCARD,
        melds=read.melds,
        seat=Wind.parse(args.seat),
        flowers=len(read.flowers),
    )


def run_eval(args: argparse.Namespace) -> int:
    from vision.evaluate import evaluate_set

    rec = _recognizer(args)
    if rec is None:
        return 2
    start = time.perf_counter()
    try:
        conf = rec.min_conf if args.min_conf is None else args.min_conf
        result = evaluate_set(rec, args.set_dir, NAME_SETS[args.names], conf, args.limit)
    except FileNotFoundError as exc:
        print(f"mjref tiles eval: {exc}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps({**result.to_json(), "seconds": round(seconds, 1)}))
    else:
        r = result
        print(f"{args.set_dir}: {r.images} images, {r.tiles} tiles ({seconds:.0f} s)")
        print(
            f"  tiles found: recall {r.detection_recall:.4f}  precision "
            f"{r.detection_precision:.4f}  class accuracy {r.class_accuracy:.4f}  tile accuracy "
            f"{r.tile_accuracy:.4f}  (conf ≥ {conf}; detector: {_detector_name(rec)})"
        )
        print(
            f"  by class: mAP50 {r.map50:.4f}  precision {r.precision:.4f}  recall {r.recall:.4f}"
        )
    return 0


def _detector_name(rec: TileRecognizer) -> str:
    if rec.profile is not None and rec.profile.detector is not None:
        return f"the profile's own, {rec.detector.path}"
    return f"shipped, {rec.detector.path}"


def _draft_from_rig(rec: TileRecognizer, args: argparse.Namespace) -> int:
    from vision.enrol_frames import FramesError, draft, rig_stills, spread

    try:
        stills = spread(rig_stills(args.from_rig), max(args.photos, 2))
    except FramesError as exc:
        print(f"mjref tiles enrol: {exc}", file=sys.stderr)
        return 2
    labels, skipped = draft(rec, stills, args.out / "enrolment")
    for line in skipped:
        print(f"mjref tiles enrol: skipped {line}", file=sys.stderr)
    print(
        f"{labels}: {len(stills) - len(skipped)} still(s) of the table at rest from "
        f"{args.from_rig}, their tiles as the models read them now. Correct each tile's name "
        'and box ("tile", "box"), add the tiles it missed, then run:\n'
        f"  mjref tiles enrol {labels} --out {args.out}"
    )
    return 0


def run_enrol(args: argparse.Namespace) -> int:
    from vision.enrol import EnrolError, check, enrol, read_labels, read_photos
    from vision.enrol_classifier import choose_classifier
    from vision.enrol_detector import DetectorChoice, choose_detector
    from vision.profile import DET_FLOOR
    from vision.sheet import SheetError, read_sheet

    if sum(x is not None for x in (args.labels, args.sheet, args.from_rig)) != 1:
        print(
            "mjref tiles enrol: give LABELS.jsonl, --sheet PHOTO... or --from-rig RECORDING, "
            "one of the three",
            file=sys.stderr,
        )
        return 2
    rec = _recognizer(args)
    if rec is None:
        return 2
    if args.from_rig is not None:
        return _draft_from_rig(rec, args)
    try:
        if args.labels is not None:
            photos = check(read_labels(args.labels))
            source = f"labels {args.labels}"
        else:
            rows, problems = [], []
            for path in args.sheet:
                try:
                    img = load_image(path)
                    boxes = read_sheet(img, rec.candidates(img, DET_FLOOR))
                except (ImageError, SheetError) as exc:
                    problems.append(f"{path}: {exc}")
                    continue
                tiles = [
                    {"box": [b.x1, b.y1, b.x2, b.y2], "tile": class_label(b.cls)} for b in boxes
                ]
                rows.append((str(path), tiles, str(path)))
            if problems:
                raise EnrolError(problems)
            photos = check(rows, min_photos=1)
            source = "tile sheet (hardware/tile-sheet.pdf)"
    except EnrolError as exc:
        for line in exc.problems:
            print(f"mjref tiles enrol: {line}", file=sys.stderr)
        return 2

    def say(message: str) -> None:
        print(f"mjref tiles enrol: {message}", file=sys.stderr, flush=True)

    choice = DetectorChoice(None, "shipped (--shipped-detector)")
    if not args.shipped_detector:
        choice = choose_detector(rec, photos, args.max_minutes, args.seed, say)
        say(f"detector: {choice.report}")
    reader = choice.reader or rec
    reads = read_photos(reader, photos, args.seed)
    profile = enrol(
        reader,
        photos,
        args.name or args.out.name,
        seed=args.seed,
        source=source,
        reads=reads,
        detector=(rec.detector.path, choice.path, choice.report),
    )
    with tempfile.TemporaryDirectory(prefix="mjref-enrol-") as work:
        if args.shipped_classifier:
            profile.info["fitted"]["classifier"] = "shipped (--shipped-classifier)"
        else:
            profile = choose_classifier(
                rec, reader, photos, reads, profile, Path(work), args.seed, say
            )
        say(f"classifier: {profile.info['fitted']['classifier']}")
        profile.save(args.out)
    if choice.work is not None:
        choice.work.cleanup()
    info = profile.info
    print(
        f"{args.out}: profile {profile.name!r} from {len(photos)} photo(s), {info['tiles']} tiles "
        f"({len(info['per_class'])} classes) in {info['seconds']} s; keep conf ≥ {profile.keep}"
    )
    if not len(profile.venue):
        print(f"{args.out}: {info['fitted']['active']}")
    return 0
