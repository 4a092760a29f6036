"""Re-deriving a recorded game: its video through other models, then fusion and the engine.

A camera log (``mjref vision run --events-out``) holds the setup that other sources gave (the
session, the wall, the deal), the camera's observations, and the game events fusion drew from
them, each citing its observation. Re-deriving runs the recording again — the same frames on
the same clock (``vision run``'s: at the deal it was told, else from the setup and the walls
rising in the video, ``vision.camera_eval.video_clock``) — through the models of
another folder, feeds fusion and the engine as the rig would, and compares the new record with
the old one event by event (``referee.review.diff``). The same models give the same record, so
any difference is the models' (or the rules') doing, not chance.

The log names no file of its own, so the recording is the ``--video`` given or, beside the log,
the video of the same name (``game.jsonl`` → ``game.mp4``), else the only video in its folder;
or the caller gives the frames themselves (``frames``: a rig's recorded segments, read by
``mjref review rederive --evidence``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from referee.events import Event, Source
from referee.fusion import Fusion, FusionAlert
from referee.review.diff import Rederived, compare
from vision.calibrate import Calibration, CalibrationError
from vision.camera import TableReader
from vision.camera_eval import Others, engine_from, run_frames, video_clock
from vision.capture import CaptureError, read_file
from vision.detect import TileRecognizer
from vision.onnx_model import ModelError

VIDEO_SUFFIXES = (".mp4", ".mkv", ".avi", ".mov")


class RederiveError(Exception):
    """One line on what is missing or wrong (no video, no models, no camera log)."""


@dataclass
class Report:
    events: list[Event]  # the re-derived log
    diff: Rederived
    alerts: list[FusionAlert] = field(default_factory=list)  # fusion's, of the new run


def find_video(log: Path, video: Path | None = None) -> Path:
    """The recording of a camera log: ``video``, else the one beside the log (see above)."""
    if video is not None:
        if not video.is_file():
            raise RederiveError(f"{video}: no such video file")
        return video
    for suffix in VIDEO_SUFFIXES:
        beside = log.with_suffix(suffix)
        if beside.is_file():
            return beside
    folder = log.parent
    videos = sorted(p for p in folder.iterdir() if p.suffix.lower() in VIDEO_SUFFIXES)
    if len(videos) == 1:
        return videos[0]
    tried = ", ".join(log.with_suffix(s).name for s in VIDEO_SUFFIXES)
    found = f"{len(videos)} videos there" if videos else "no video there"
    raise RederiveError(
        f"{log}: no recording found beside it (looked for {tried}; {found}); name it with --video"
    )


def rederive(
    events: Sequence[Event],
    log: Path,
    models: Path,
    *,
    video: Path | None = None,
    calibration: Path | None = None,
    frames: Iterable[tuple[int, float, np.ndarray]] | None = None,
) -> Report:
    """Re-run the recording of ``events`` (a camera log read from ``log``) with ``models``;
    ``frames`` (number, session time, RGB) from the deal on, in place of a video file."""
    if not any(e.source is Source.VISION for e in events):
        raise RederiveError(
            f"{log}: no camera event in it; expected the log `mjref vision run --events-out` "
            "writes (the events cite the camera's observations)"
        )
    path = find_video(log, video) if frames is None else None  # (as before: its error first)
    if not models.is_dir():
        raise RederiveError(f"--models {models}: not a folder (expected one like models/)")
    try:
        recognizer = TileRecognizer(models, threads=1)
        cal = Calibration.load(calibration) if calibration else None
    except (ModelError, CalibrationError) as exc:
        raise RederiveError(str(exc)) from None
    deal = next((i for i, e in enumerate(events) if e.type == "deal"), None)
    if deal is not None and events[deal].source is not Source.VISION:  # a deal told, seen
        setup, later = list(events[: deal + 1]), list(events[deal + 1 :])
        t0 = setup[-1].ts  # the video starts at the deal, as `vision run` has it
    else:  # a real table's setup (players, seats, walls, dice): the clock `vision run` took
        told = [e for e in events if e.source is not Source.VISION]
        setup, later, t0, _ = video_clock(told, path, TableReader(recognizer, cal))
    if path is not None:
        frames = read_file(path, t0)
    assert frames is not None
    table, seq = engine_from(setup)
    fusion = Fusion(table, seq)
    others = Others(fusion, [e for e in later if e.source is not Source.VISION])
    try:
        run_frames(
            frames,
            TableReader(recognizer, cal),
            fusion,
            on_frame=lambda _n, t, _f: others.until(t),
        )
    except CaptureError as exc:
        raise RederiveError(str(exc)) from None
    others.until(float("inf"))
    new = sorted([*setup, *fusion.events, *others.followed], key=lambda e: e.seq)
    return Report(new, compare(events, new), list(fusion.alerts))
