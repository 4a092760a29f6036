"""`mjref review`: a recorded game looked back on — exported for other tools, or re-derived.

LOG is a JSONL game log or a rig's own SQLite log (``[table] log``).

``mjref review export LOG --format jsonl|text|mjai|pdf [--out F]`` writes the log's sessions:

- ``jsonl``: our own log, normalised — each session on its own, in seq order, each seq once
  (what ``referee.logread`` reads: repeats dropped, conflicts reported, malformed lines named);
- ``text``: a hand-by-hand record to read (``referee.review.text``);
- ``mjai``: mjai JSON lines for riichi tools (``referee.review.mjai`` says what maps and what is
  dropped; a profile with flowers is refused unless ``--drop-flowers``);
- ``pdf``: the score card(s) of the dashboard (``dashboard.pdf``), one file per half
  (``--out`` required; ``card.pdf`` → ``card-1.pdf``, ``card-2.pdf`` … when there are several).

``mjref review rederive LOG --models DIR`` re-runs the camera recording of a game through the
models in DIR (then fusion and the engine) and lists what comes out differently
(``vision.rederive``). The recording is a video file (``--video``, or the one beside LOG), or
with ``--evidence DIR`` what a rig's ring kept of the session (its ``[evidence] dir``): the
video segments in time order, each at its start time; a stretch of the hand the ring no longer
keeps is named in one line (its events cannot come out the same).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from referee.events import Event, Source
from referee.logread import LogRead, SessionLog, read_log_file
from referee.review.mjai import MjaiError, to_mjai
from referee.review.text import text_record

FORMATS = ("jsonl", "text", "mjai", "pdf")
Frame = tuple[int, float, np.ndarray]
SQLITE_MAGIC = b"SQLite format 3\x00"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "review", help="a recorded game: export it (jsonl, text, mjai, pdf) or re-derive it"
    )
    sub = parser.add_subparsers(dest="review_command", metavar="ACTION")
    sub.required = True
    exp = sub.add_parser("export", help="write a log for people or other tools")
    exp.add_argument("log", type=Path, metavar="LOG")
    exp.add_argument("--format", choices=FORMATS, required=True)
    exp.add_argument("--out", type=Path, metavar="F", help="the file to write (default: stdout)")
    exp.add_argument("--session", metavar="ID", help="only this session (default: every one)")
    exp.add_argument(
        "--drop-flowers",
        action="store_true",
        help="mjai: export a profile with flowers, dropping them",
    )
    exp.set_defaults(handler=run_export)
    red = sub.add_parser(
        "rederive",
        help="re-run a recorded game's video through other models and list the differences",
    )
    red.add_argument(
        "log",
        type=Path,
        metavar="LOG",
        help="the camera's log (`vision run`) or a rig's SQLite log",
    )
    red.add_argument("--models", type=Path, required=True, metavar="DIR")
    where = red.add_mutually_exclusive_group()
    where.add_argument(
        "--video", type=Path, help="the recording (default: the video beside LOG, same name)"
    )
    where.add_argument(
        "--evidence", type=Path, metavar="DIR", help="the rig's ring ([evidence] dir) instead"
    )
    red.add_argument("--calibration", type=Path)
    red.add_argument("--json", action="store_true", help="the differences as one JSON object")
    red.add_argument("--events-out", type=Path, metavar="LOG.jsonl", help="the re-derived log")
    red.set_defaults(handler=run_rederive)


def _fail(message: str, code: int = 2) -> int:
    print(f"mjref review: {message}", file=sys.stderr)
    return code


def _read(path: Path, session: str | None = None) -> LogRead | str:
    """A JSONL game log, or a rig's own SQLite log (``[table] log``)."""
    try:
        with path.open("rb") as fh:
            sqlite = fh.read(16) == SQLITE_MAGIC
        read = _read_store(path) if sqlite else read_log_file(path)
    except OSError as exc:
        return f"{path}: cannot read the log ({exc.strerror})"
    except (sqlite3.Error, ValueError) as exc:  # a damaged file, an event that is not one
        return f"{path}: not a rig's log that can be read ({exc})"[:300]
    for err in read.errors:
        print(f"{path}: {err}", file=sys.stderr)
    if session is not None:
        read.sessions = [s for s in read.sessions if s.session_id == session]
    if not read.sessions:
        which = f" of session {session!r}" if session else ""
        return f"{path}: no events{which} (expected a JSONL game log)"
    return read


def _read_store(path: Path) -> LogRead:
    from referee.store import EventStore

    with EventStore(path) as store:
        sessions = [SessionLog(t, s, list(store.events(t, s))) for t, s in store.sessions()]
    return LogRead(sessions, [])


def run_export(args: argparse.Namespace) -> int:
    read = _read(args.log, args.session)
    if isinstance(read, str):
        return _fail(read)
    for issue in read.issues:
        print(f"{args.log}: {issue}", file=sys.stderr)
    if args.format == "pdf":
        return _pdf(read, args.out)
    if args.format == "jsonl":
        text = "".join(e.to_json() + "\n" for s in read.sessions for e in s.events)
    elif args.format == "text":
        text = "\n".join(text_record(s.events) for s in read.sessions)
    else:
        lines: list[str] = []
        for s in read.sessions:
            try:
                events, notes = to_mjai(s.events, drop_flowers=args.drop_flowers)
            except MjaiError as exc:
                return _fail(f"{args.log}: session {s.session_id}: {exc}")
            for note in notes:
                print(f"mjai, session {s.session_id}: {note}", file=sys.stderr)
            lines += [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in events]
        text = "".join(line + "\n" for line in lines)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.write_text(text, encoding="utf-8")
    except OSError as exc:
        return _fail(f"{args.out}: cannot write ({exc.strerror})")
    print(f"wrote {args.format} to {args.out}", file=sys.stderr)
    return 0


def _pdf(read: LogRead, out: Path | None) -> int:
    if out is None:
        return _fail("--format pdf needs --out FILE.pdf (a PDF is not written to a terminal)")
    from dashboard.pdf import card_pdf  # reportlab loads only for this format
    from referee.duties import replay

    cards = []
    for s in read.sessions:
        duty = replay(s.events)
        if duty is not None:
            cards += duty.cards()
    if not cards:
        return _fail("no hand was played: there is no score card to write")
    paths = (
        [out]
        if len(cards) == 1
        else [out.with_stem(f"{out.stem}-{i + 1}") for i in range(len(cards))]
    )
    try:
        for card, path in zip(cards, paths, strict=True):
            path.write_bytes(card_pdf(card))
    except OSError as exc:
        return _fail(f"{out}: cannot write ({exc.strerror})")
    print(f"wrote {len(paths)} score card(s): {', '.join(map(str, paths))}", file=sys.stderr)
    return 0


def _ring_frames(directory: Path, events: list[Event]) -> Iterator[Frame] | str:
    """The session's frames from the ring, from the deal on; says (one line, stderr) which
    stretch of the hand is no longer kept. A string: why there are none."""
    from rig.evidence.replay import NoRecording, ring_video

    deal = next((e for e in events if e.type == "deal"), None)
    if deal is None:
        return "the log has no deal; the camera's record starts at the deal"
    try:
        video = ring_video(directory, deal.session_id)
    except NoRecording as exc:
        return str(exc)
    seen = [e.ts for e in events if e.source is Source.VISION]
    gone = video.missing(deal.ts, max(seen, default=deal.ts))
    if gone:
        stretches = ", ".join(f"{a:.2f}-{b:.2f}" for a, b in gone)
        print(
            f"mjref review: the ring no longer keeps the video of {stretches} of the hand "
            f"(it keeps {video.kept_text()}): events seen there cannot be re-derived",
            file=sys.stderr,
        )
    return video.frames(deal.ts)


def run_rederive(args: argparse.Namespace) -> int:
    from vision.rederive import RederiveError, rederive

    read = _read(args.log)
    if isinstance(read, str):
        return _fail(read)
    events = read.sessions[0].events
    frames: Iterator[Frame] | None = None
    if args.evidence is not None:
        got = _ring_frames(args.evidence, events)
        if isinstance(got, str):
            return _fail(got)
        frames = got
    try:
        report = rederive(
            events,
            args.log,
            args.models,
            video=args.video,
            calibration=args.calibration,
            frames=frames,
        )
    except RederiveError as exc:
        return _fail(str(exc))
    if args.events_out is not None:
        try:
            args.events_out.write_text("".join(e.to_json() + "\n" for e in report.events))
        except OSError as exc:
            return _fail(f"{args.events_out}: cannot write ({exc.strerror})")
    alerts = [
        {"rule": a.rule, "ts": a.ts, "message": a.message, "evidence": list(a.evidence)}
        for a in report.alerts
    ]
    if args.json:
        print(json.dumps(report.diff.to_json() | {"alerts": alerts}, ensure_ascii=False))
    else:
        print(report.diff.text())
        for a in alerts:  # what the new reading could not record (it explains a `missing`)
            print(f"alert {a['rule']} at {a['ts']:.1f} s: {a['message']}")
    return 1 if report.diff.differences or report.diff.hands else 0
