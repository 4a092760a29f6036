"""`mjref vision`: render table videos from a game log, calibrate, run the camera, evaluate it."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import cv2

from referee.fusion import Fusion
from referee.logread import read_log_file
from vision.calibrate import Calibration, CalibrationError, calibrate, from_corners
from vision.camera import TableReader
from vision.camera_eval import (
    Others,
    engine_from,
    read_truth,
    run_frames,
    score,
    setup_events,
    split_setup,
    video_clock,
)
from vision.capture import CaptureError, live_frames, read_file
from vision.detect import TileRecognizer
from vision.enrol import EnrolError
from vision.enrol_camera import ROUNDS, enrol_camera, plan_text, round_crops
from vision.onnx_model import ModelError
from vision.synth.looks import LOOKS
from vision.synth.video import POSES, STYLES, RenderSpec, render_video

NO_MARKERS_S = 2.0  # a source whose first seconds show no table markers is refused, not run blind
EXAMPLES = """examples:
  mjref simulate --hands 2 --seed 3 --out game.jsonl
  mjref simulate --hands 2 --seed 3 --view setup --out setup.jsonl   # what the table knows
  mjref vision render game.jsonl --out game.mp4 --truth truth.jsonl --style text --camera low
  mjref vision render game.jsonl --out hall.mp4 --truth hall.jsonl --camera hall --look hall
  mjref vision calibrate game.mp4 --out cal.json
  mjref vision run game.mp4 --setup setup.jsonl --events-out camera.jsonl
  mjref vision eval game.mp4 --truth truth.jsonl --json
  mjref vision enrol --plan                   # the tiles to lay out, round by round
  mjref vision enrol r1.mp4 r2.mp4 r3.mp4 r4.mp4 --out profiles/venue --name "Venue A"
  mjref vision run table.mp4 --setup setup.jsonl --profile profiles/venue
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "vision",
        help="the overhead camera: render, calibrate, run, eval",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="vision_command", metavar="ACTION")
    sub.required = True
    ren = sub.add_parser("render", help="a table video and its truth from a game log")
    ren.add_argument("log", type=Path, metavar="LOG.jsonl")
    ren.add_argument("--out", type=Path, required=True, help="video file (.mp4)")
    ren.add_argument("--truth", type=Path, required=True, help="truth JSON lines")
    ren.add_argument("--style", choices=STYLES, default="glyph")
    ren.add_argument("--camera", choices=sorted(POSES), default="top", metavar="POSE")
    ren.add_argument(
        "--look", choices=sorted(LOOKS), default="standard", help="felt, light, tiles, arms, lens"
    )
    ren.add_argument("--seed", type=int, default=0)
    ren.add_argument("--size", default="1920x1080", help="WIDTHxHEIGHT (3840x2160 for 4K)")
    ren.add_argument("--fps", type=float, default=10.0)
    ren.add_argument("--start", type=float, help="first second of the log to film")
    ren.add_argument("--end", type=float, help="last second of the log to film")
    ren.set_defaults(handler=_render)
    cal = sub.add_parser("calibrate", help="the table homography from the markers (or 4 points)")
    cal.add_argument("source", metavar="IMAGE_OR_VIDEO")
    cal.add_argument("--out", type=Path, required=True, help="calibration JSON")
    cal.add_argument("--corners", help="manual: 'x,y x,y x,y x,y' pixels of markers 0,1,2,3")
    cal.set_defaults(handler=_calibrate)
    run = sub.add_parser("run", help="the camera pipeline on a source into the referee core")
    run.add_argument("source", metavar="SOURCE", help="video file, camera index or rtsp:// URL")
    run.add_argument("--calibration", type=Path)
    run.add_argument(
        "--profile",
        type=Path,
        metavar="PROFILE_DIR",
        help="venue profile (mjref vision enrol, or mjref tiles enrol)",
    )
    run.add_argument(
        "--setup",
        type=Path,
        help="what the table knows of the session: players, seats, each hand's wall and dice "
        "(or a log up to a deal whose tiles were seen)",
    )
    run.add_argument(
        "--start",
        type=float,
        help="the setup log's time of the video's first frame (default: from the walls rising "
        "in the video, else when the first wall was broken)",
    )
    run.add_argument("--events-out", type=Path, metavar="LOG.jsonl")
    run.add_argument(
        "--show",
        action="store_true",
        help="write the rectified table with slots to SOURCE.show.jpg every second",
    )
    run.set_defaults(handler=_run)
    enr = sub.add_parser(
        "enrol",
        help="a venue profile from the table camera's clips of the enrolment plan",
        description="Lay the whole set as --plan prints (rivers and two melds), one round a "
        "clip, and film each round a few seconds with no hands over the table; clip N is "
        "round N.",
    )
    enr.add_argument("clips", nargs="*", type=Path, metavar="CLIP", help="round 1, round 2, …")
    enr.add_argument("--out", type=Path, metavar="PROFILE_DIR")
    enr.add_argument("--name", default="venue", help="the profile's name (the venue, its set)")
    enr.add_argument("--calibration", type=Path)
    enr.add_argument("--plan", action="store_true", help="print the plan to lay, and stop")
    enr.set_defaults(handler=_enrol)
    ev = sub.add_parser("eval", help="score the pipeline on a rendered video against its truth")
    ev.add_argument("video", type=Path, metavar="VIDEO")
    ev.add_argument("--truth", type=Path, required=True, metavar="TRUTH.jsonl")
    ev.add_argument("--json", action="store_true")
    ev.set_defaults(handler=_eval)


def _fail(message: str) -> int:
    print(f"mjref vision: {message}", file=sys.stderr)
    return 2


def _render(args: argparse.Namespace) -> int:
    try:
        read = read_log_file(args.log)
    except OSError as exc:
        return _fail(f"{args.log}: cannot read the log ({exc.strerror})")
    if not read.sessions or not read.sessions[0].events:
        return _fail(f"{args.log}: no events (expected a log `mjref simulate` writes)")
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        return _fail(f"--size {args.size!r}: expected WIDTHxHEIGHT, e.g. 1920x1080")
    spec = RenderSpec(
        width,
        height,
        args.fps,
        args.style,
        args.camera,
        args.seed,
        start=args.start,
        end=args.end,
        look=args.look,
    )
    try:
        n = render_video(read.sessions[0].events, args.out, args.truth, spec)
    except OSError as exc:
        return _fail(str(exc))
    print(f"wrote {n} frames to {args.out}, truth to {args.truth}")
    return 0


def _first_frame(source: str) -> Any:
    image = cv2.imread(source) if Path(source).suffix.lower() in (".png", ".jpg", ".jpeg") else None
    if image is not None:
        return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
    for _, _, frame in read_file(Path(source)):
        return frame
    return None


def _calibrate(args: argparse.Namespace) -> int:
    try:
        if args.corners:
            points = [tuple(float(v) for v in p.split(",")) for p in args.corners.split()]
            cal = from_corners([(p[0], p[1]) for p in points])
        else:
            cal = calibrate(_first_frame(args.source))
    except (CalibrationError, CaptureError) as exc:
        return _fail(str(exc))
    except (ValueError, IndexError):
        return _fail(f"--corners {args.corners!r}: expected four 'x,y' pixel pairs")
    cal.save(args.out)
    print(f"calibrated ({cal.source}): reprojection error {cal.error_px:.2f} px → {args.out}")
    return 0


def _reader(calibration: Path | None, profile: Path | None = None) -> TableReader:
    cal = Calibration.load(calibration) if calibration else None
    return TableReader(TileRecognizer(threads=1, profile=profile), cal)


def _run(args: argparse.Namespace) -> int:
    try:
        reader = _reader(args.calibration, args.profile)
        setup = read_log_file(args.setup).sessions[0].events if args.setup else []
    except (CalibrationError, ModelError, OSError, IndexError) as exc:
        return _fail(
            f"{exc}"
            if isinstance(exc, CalibrationError | ModelError)
            else f"{args.setup}: cannot read the setup log ({exc})"
        )
    video = Path(args.source) if _is_file(args.source) else None
    fresh = TableReader(reader.recognizer, reader.calibration)  # for the walls rising in it
    before, later, t0, notes = video_clock(setup, video, fresh, args.start)
    for note in notes:
        print(f"{args.setup}: {note}")
    table, seq = engine_from(before)
    show = Path(f"{args.source}.show.jpg") if args.show else None
    shown = [-1.0]

    def on_frame(number: int, t: float, frame: Any) -> None:
        if show is not None and t - shown[0] >= 1.0 and reader.calibration is not None:
            shown[0] = t
            cv2.imwrite(str(show), cv2.cvtColor(reader.overlay(frame), cv2.COLOR_RGB2BGR))

    try:
        with open(args.events_out or os.devnull, "w") as out:
            for event in before:  # the log replays on its own (mjref replay)
                print(event.to_json(), file=out)
            fusion = Fusion(table, seq, on_event=lambda e: print(e.to_json(), file=out))
            others = Others(fusion, later)  # the next hands' walls and dice, in their time
            source = read_file(video, t0) if video is not None else live_frames(args.source)

            first: list[float] = []

            def each_frame(number: int, t: float, frame: Any) -> None:
                first[:] = first or [t]
                if reader.calibration is None and t - first[0] >= NO_MARKERS_S:
                    raise CalibrationError(reader.notices[-1].message)
                on_frame(number, t, frame)
                for event in others.until(t):
                    print(event.to_json(), file=out)

            result = run_frames(source, reader, fusion, on_frame=each_frame)
    except CaptureError as exc:
        return _fail(str(exc))
    except CalibrationError as exc:
        return _fail(f"{args.source}: no table in its first {NO_MARKERS_S:g} s: {exc}")
    except OSError as exc:
        return _fail(f"{args.events_out}: cannot write the events ({exc.strerror})")
    for a in fusion.alerts:
        print(f"alert {a.rule} at {a.ts:.1f} s: {a.message}")
    actions = [e for e in fusion.events if e.type != "observation"]
    print(f"{result.frames} frames, {len(actions)} actions, {len(fusion.alerts)} alerts")
    return 0


def _enrol(args: argparse.Namespace) -> int:
    if args.plan:
        print(plan_text())
        return 0
    if args.out is None or not 2 <= len(args.clips) <= ROUNDS:
        return _fail(
            f"enrol: {len(args.clips)} clip(s){'' if args.out else ' and no --out'}; expected "
            f"2 to {ROUNDS} clips (clip N films round N of --plan) and --out PROFILE_DIR"
        )
    try:
        reader = _reader(args.calibration)
        rounds = [
            round_crops(
                TableReader(reader.recognizer, reader.calibration),
                ((t, frame) for _, t, frame in read_file(clip)),
                r,
                str(clip),
            )
            for r, clip in enumerate(args.clips)
        ]
        with tempfile.TemporaryDirectory(prefix="mjref-enrol-") as work:
            profile = enrol_camera(reader.recognizer, rounds, args.name, work=Path(work))
            profile.save(args.out)
    except (CalibrationError, ModelError, CaptureError, EnrolError) as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{args.out}: cannot write the profile ({exc})")
    info = profile.info
    print(
        f"{info['crops']} crops of the set from {info['rounds']} rounds; on a round held out "
        f"the profile names {info['held_out_accuracy']:.4f} of them, the shipped classifier "
        f"{info['held_out_shipped_accuracy']:.4f}; active: {info['fitted']['active']}"
    )
    print(f"tile test: {info['fitted']['slot_test']}")
    print(f"classifier: {info['fitted']['classifier']}")
    print(f"wrote {args.out} (mjref vision run --profile {args.out})")
    return 0


def _is_file(source: str) -> bool:
    return not source.isdigit() and "://" not in source


def _eval(args: argparse.Namespace) -> int:
    try:
        header, actions, truth = read_truth(args.truth)
        t0 = truth[min(truth)]["t"] if truth else 0.0  # the video's first frame on the log's clock
        before, later, _ = split_setup(setup_events(header), t0)
        table, seq = engine_from(before)
        fusion = Fusion(table, seq)
        others = Others(fusion, later)
        result = run_frames(
            read_file(args.video, t0),
            _reader(None),
            fusion,
            truth,
            on_frame=lambda _n, t, _f: others.until(t),
        )
    except (ValueError, CaptureError) as exc:
        return _fail(str(exc))
    figures = score(result, actions)
    if args.json:
        print(json.dumps(figures))
    else:
        for k, v in figures.items():
            print(f"{k}: {v:.4g}" if isinstance(v, float) else f"{k}: {v}")
    return 0
