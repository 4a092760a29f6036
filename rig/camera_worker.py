"""The camera input's own process (CPU-heavy: the tile recognizer runs here, not in the rig's loop).

``python -m rig.camera_worker --source (FILE | INDEX | rtsp://…) --now T [--realtime]
[--speed X] [--calibration FILE] [--models DIR]`` runs the camera pipeline (vision/camera.py →
referee/fusion/) and speaks JSON lines, like ``rig.voice_worker``:

- stdin, from the rig: one event envelope a line, each event of the table's log (first the
  whole log, closed by the line ``{"caught_up":true}``, then what the other inputs add):
  fusion's engine follows them, so the camera's actions are judged against the same hand (the
  deal, the table's dice, heard calls). Nothing is read from the source before that line.
- stdout, to the rig: ``{"event": ENVELOPE}`` a game action the camera saw (observations stay
  here; the action cites its frame, ``seen:<t>`` and ``video:<start>-<end>``),
  ``{"alert": {...}}`` a change no legal action explains (FUSION-…), ``{"notice": TEXT}``
  (calibrated, moved),
  ``{"alive": frames}`` twice a second, ``{"end": frames}`` when a file ends.

With ``--record DIR [--stills DIR] [--segment-s S] [--record-after T]`` it also records what it
sees (rig/evidence/tee.py): its frames as H.264 MP4 segments in DIR and, at each settled change,
the rectified table as a JPEG still; it prints ``{"segment": {"kind", "start", "end", "path"}}``
for each finished file (kind ``video`` or ``still``), on the session clock like every time it
prints, and an action also cites ``still:T``, the still of the change it was read from. Frames
up to ``--record-after`` (what the ring already holds, after a restart) are not recorded again.

Time is the rig's session clock: ``--now`` is its reading at start (``--now-at``: the wall
time of that reading, so that the worker's start-up is not lost). A file stands for a camera
switched on when its hand's wall is broken: its first frame is at the worker's start
(``--now``), and the camera sees the deal go face down into the racks (fusion logs the
``deal``); after a restart
mid-hand, the first frame's time follows from the logged deal (the frame it cites), and the
frames up to the last one the log's camera actions cite are read to learn the table as it lies,
without actions. A live source's frames are stamped on arrival.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from referee.events import Event, Source, parse_line
from referee.evidence import seen, still, video
from referee.fusion import Fusion
from referee.game.state import Phase
from referee.game.table import Table
from rig.evidence.tee import CameraTee
from rig.inputs.camera import CAUGHT_UP
from vision.calibrate import Calibration, CalibrationError
from vision.camera import TableReader
from vision.capture import CaptureError, frame_rate, live_frames, read_file
from vision.detect import MODELS_DIR, TileRecognizer

ALIVE_EVERY = 0.5
CLIP_S = 2.0  # the video evidence around an action: this long before and after it
_said = threading.Lock()  # the recording's thread prints too


def say(obj: object) -> None:
    line = json.dumps(obj, separators=(",", ":")) + "\n"
    with _said:
        sys.stdout.write(line)
        sys.stdout.flush()


class Follower:
    """The rig's log as it arrives on stdin (a thread: reading blocks), applied to fusion."""

    def __init__(self) -> None:
        self.last_frame = -1  # the last frame of this hand's video an action in the log cites
        self.deal: Event | None = None  # this hand's deal, once the log has it
        self.caught_up = False  # the whole log the rig had at the start is followed
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            self.lines.put(line)
        self.lines.put(None)

    def apply(self, fusion: Fusion, block: float = 0.0) -> None:
        """Follow every line waiting (waiting ``block`` s for the first)."""
        timeout: float | None = block
        while True:
            try:
                line = self.lines.get(timeout=timeout) if timeout else self.lines.get_nowait()
            except queue.Empty:
                return
            timeout = None
            if line is None:  # the rig went away: so do we
                raise SystemExit(0)
            if line.strip() == CAUGHT_UP:
                self.caught_up = True
                continue
            event = parse_line(line)
            try:
                fusion.follow(event)
            except Exception as exc:  # the rig's core is the record; ours only judges legality
                say({"notice": f"seq {event.seq} ({event.type}) not followed: {exc}"[:300]})
            if event.type == "wall_built":
                self.deal, self.last_frame = None, -1
            elif event.type == "deal":
                self.deal, self.last_frame = event, -1
            if event.source is Source.VISION:
                for ref in event.evidence:
                    kind, _, n = ref.partition(":")
                    if kind == "frame" and n.isdigit():
                        self.last_frame = max(self.last_frame, int(n))


def _broken(table: Table) -> bool:
    """The hand's wall is broken: its deal comes next (face down: the camera sees it)."""
    hand = table.state.hand
    return hand is not None and hand.phase >= Phase.DEAL


def _film_start(deal: Event | None, source: Path, switched_on: float) -> float:
    """The session time of a file's first frame: when the camera was switched on (the rig
    started the worker, or the wall broke after), for a hand not yet dealt — not when the
    worker was ready, seconds later on a loaded machine, which put the video late against the
    microphones; after a restart mid-hand, as the deal in the log says (a deal the camera saw
    cites its frame; one a referee entered was at the first frame)."""
    if deal is None:
        return switched_on
    for ref in deal.evidence:
        kind, _, n = ref.partition(":")
        if kind == "frame" and n.isdigit():
            return deal.ts - int(n) / frame_rate(source)
    return deal.ts


def _paced(
    frames: Iterator[tuple[int, float, np.ndarray]], clock: Any, realtime: bool
) -> Iterator[tuple[int, float, np.ndarray]]:
    """A file's frame waits for its time on the rig's clock when ``realtime``."""
    for number, t, frame in frames:
        if realtime:
            wait = t - clock()
            if wait > 0:
                time.sleep(wait / clock.speed)
        yield number, t, frame


class RigClock:
    """The rig's session clock, read here: ``now`` when the rig started the worker (at wall
    time ``at``: the worker's start-up and its models' loading are not lost), running
    ``speed`` times real time."""

    def __init__(self, now: float, speed: float, at: float | None = None) -> None:
        late = 0.0 if at is None else max(0.0, time.time() - at) * speed
        self.t0, self.m0, self.speed = now + late, time.monotonic(), speed

    def __call__(self) -> float:
        return self.t0 + (time.monotonic() - self.m0) * self.speed


def _action(event: Event, stills: dict[int, float]) -> dict[str, Any]:
    """The action as the rig gets it: its frame, the still of the change it was read from
    (where one was kept) and the video around it."""
    env: dict[str, Any] = json.loads(event.to_json())
    refs = [e for e in event.evidence if not e.startswith("seq:")]  # fusion's own numbering
    for ref in list(refs):
        kind, _, n = ref.partition(":")
        if kind == "frame" and n.isdigit() and int(n) in stills:
            refs.append(still(stills[int(n)]))
    t = event.ts
    refs.append(seen(t))  # the rig logs it when it comes: seconds later on a loaded machine
    refs.append(video(max(0.0, t - CLIP_S), t + CLIP_S))
    env["evidence"] = refs
    return env


def _tee(args: argparse.Namespace) -> CameraTee | None:
    if args.record is None:
        return None

    def told(kind: str, start: float, end: float, path: Path) -> None:
        seg = {"kind": kind, "start": round(start, 3), "end": round(end, 3), "path": str(path)}
        say({"segment": seg})

    stills = args.stills or args.record.parent / "stills"
    return CameraTee(args.record, stills, told, args.segment_s, args.record_after)


def run(args: argparse.Namespace) -> int:
    models = args.models or MODELS_DIR
    try:
        recognizer = TileRecognizer(models, threads=1)
        cal = Calibration.load(args.calibration) if args.calibration else None
    except (OSError, ValueError, CalibrationError) as exc:
        print(f"camera: cannot load the pipeline: {exc}"[:300], file=sys.stderr)
        return 2
    except Exception as exc:  # onnxruntime's errors on a corrupt model are its own classes
        print(f"camera: cannot load the models in {models}: {exc}"[:300], file=sys.stderr)
        return 2
    reader = TableReader(recognizer, cal)
    tee = _tee(args)
    if tee is not None:
        reader.on_settled = tee.still
    try:
        return _watch(args, reader, tee)
    finally:
        if tee is not None:
            tee.close()  # the open segment is finished and told, also when the rig went away


def _watch(args: argparse.Namespace, reader: TableReader, tee: CameraTee | None) -> int:
    clock = RigClock(args.now, args.speed, args.now_at)
    live_source = args.source.isdigit() or "://" in args.source
    follower = Follower()
    actions: list[Event] = []
    fusion = Fusion(Table(), 0, on_event=lambda e: actions.append(e))
    # the whole log first: a part of it (the last hand's, its pipe not yet read through on a
    # loaded machine) looked like a hand in play, and the new hand's first frames up to the
    # last one that hand's actions cited were read without actions
    follower.apply(fusion, 0.2)
    while not follower.caught_up:
        say({"alive": 0})
        follower.apply(fusion, ALIVE_EVERY)
    switched_on = args.now  # when the rig started this worker (its start-up is not the film's)
    while not live_source and not _broken(fusion.table):
        say({"alive": 0})  # a file waits for its hand's wall to be broken
        follower.apply(fusion, ALIVE_EVERY)
        switched_on = clock()
    frames: Iterator[tuple[int, float, np.ndarray]]
    if live_source:
        t0 = clock()
        frames = ((n, clock(), f) for n, _, f in live_frames(args.source))
    else:
        t0 = _film_start(follower.deal, Path(args.source), switched_on)
        frames = read_file(Path(args.source), t0)
    told = alerts = count = 0
    last_alive, last_t = 0.0, t0
    stills = tee.stills if tee is not None else {}
    try:
        # a file's frames up to the last one the log's actions cite (a restart mid-hand) are
        # read to learn the table as it lies, without actions
        primed = -1 if live_source else follower.last_frame
        for number, t, frame in _paced(frames, clock, args.realtime and not live_source):
            follower.apply(fusion)
            live = number > primed
            if tee is not None:
                tee.frame(t, frame)
                tee.frame_number, tee.keep_stills = number, live
            seen = reader.process(frame, t, number)
            for obs in seen:
                # the win ends the hand, but the winner's hand may still be being laid down
                revealing = fusion.revealing and obs.zone == "hand"
                if live and (_broken(fusion.table) or revealing):
                    fusion.observe(obs)
                else:
                    fusion.prime(obs)
            reader.name(fusion.take_named())
            for notice in reader.notices[told:]:
                say({"notice": f"{notice.kind}: {notice.message}"})
            told = len(reader.notices)
            count += 1
            last_t = t
            alerts = _report(fusion, actions, alerts, stills)
            now = time.monotonic()
            if now - last_alive >= ALIVE_EVERY:
                say({"alive": count})
                last_alive = now
    except CaptureError as exc:
        print(f"camera: {exc}", file=sys.stderr)
        return 2
    fusion.flush(last_t)
    _report(fusion, actions, alerts, stills)
    if tee is not None:
        tee.close()  # the last segment is in the ring before the end is told
    say({"end": count})
    return 0


def _report(fusion: Fusion, actions: list[Event], told: int, stills: dict[int, float]) -> int:
    """Say the new actions and alerts; returns how many alerts are told now."""
    for event in actions:
        if event.type != "observation":
            say({"event": _action(event, stills)})
    actions.clear()
    for alert in fusion.alerts[told:]:
        say(
            {
                "alert": {
                    "rule": alert.rule,
                    "message": alert.message,
                    "ts": round(alert.ts, 3),
                    "seat": None if alert.seat is None else alert.seat.name,
                }
            }
        )
    return len(fusion.alerts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rig.camera_worker")
    parser.add_argument("--source", required=True, help="video file, camera index or rtsp:// URL")
    parser.add_argument("--now", type=float, default=0.0, help="the rig's session clock now")
    parser.add_argument("--now-at", type=float, help="the wall time (epoch s) --now was read at")
    parser.add_argument("--realtime", action="store_true", help="a file at the pace of its frames")
    parser.add_argument("--speed", type=float, default=1.0, help="the rig's clock runs this fast")
    parser.add_argument("--calibration", type=Path)
    parser.add_argument("--models", type=Path)
    parser.add_argument("--record", type=Path, help="also write MP4 segments and stills")
    parser.add_argument("--stills", type=Path, help="the stills' folder (default: DIR/../stills)")
    parser.add_argument("--segment-s", type=float, default=10.0)
    parser.add_argument(
        "--record-after", type=float, default=float("-inf"), help="the ring holds frames to T"
    )
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
