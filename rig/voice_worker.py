"""The voice input's own process (CPU-heavy: the spotter runs here, not in the rig's loop).

``python -m rig.voice_worker (--file PATH [--realtime] | --device DEV) [--channels N]
[--seats E S W N] [--threshold X] [--verify [--calibrate-s S]]`` prints one JSON object per line
on stdout: ``{"started": 0}`` when audio time 0 begins, ``{"call": CallHeard}``, ``{"alert":
AudioAlert}``, ``{"alive": samples}`` (twice a second, so the rig tells a quiet table from a dead
microphone) and ``{"end": samples}`` when a file ends. With ``--verify`` it also hears the table
(:class:`voice.live.TableListener`): ``{"calibrated": …}`` once the noise floors are measured,
``{"conduct": …}`` for each conduct sound, and ``{"verdict": …}`` for each ``{"claim": {id,
seat, kind, t_discard, t_exposed, …}}`` line the rig writes on stdin (audio seconds); a file's
worker then waits for claims until stdin closes. With ``--record DIR`` it also writes what it
hears as FLAC segments (rig/evidence) and prints ``{"segment": {"start", "end", "path"}}`` for
each, in audio seconds like every other time it prints. Seats here are the chairs the
microphones face (``--seats``); the rig translates them to the hand's seat winds (rig/chairs.py).
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from voice.audio_io import SR
from voice.config import VoiceConfig
from voice.engines import build_detectors
from voice.live import TableListener
from voice.pipeline import CallPipeline
from voice.seats import channel_map
from voice.sources import Block, FileSource, LiveSource
from voice.verify import Claim, ClaimError, Spotter

ALIVE_EVERY = 0.5


def say(obj: object) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def paced(blocks: Iterable[Block]) -> Iterable[Block]:
    """A file heard like a microphone: each block when its samples would have been spoken."""
    start = time.monotonic()
    for block in blocks:
        wait = start + (block.start + len(block.data)) / SR - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        yield block


def requests() -> queue.Queue[str | None]:
    """The rig's claim lines from stdin, read on a thread of their own (None: stdin closed)."""
    q: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in sys.stdin:
            q.put(line)
        q.put(None)

    threading.Thread(target=read, daemon=True).start()
    return q


def spotter() -> Spotter | None:
    """The word spotter for naming the word of a checked claim, when its model is there."""
    from voice.config import REPO
    from voice.encoder import SpeechEncoder
    from voice.head import OnnxHead, SpotterModelError

    try:
        return Spotter(OnnxHead(REPO / "models" / "voice_spotter.onnx"), SpeechEncoder())
    except (SpotterModelError, OSError):
        return None


class Listening:
    """The table heard (``--verify``): the listener, fed with blocks and the rig's claims."""

    def __init__(self, args: argparse.Namespace, channels: int) -> None:
        spec = ",".join(args.seats) if args.seats else None
        seats = channel_map(spec, channels)
        self.notices: list[dict[str, Any]] = []  # told once the worker has started
        acoustics = None
        if args.acoustics is not None:
            from voice.table_check import AcousticsError, load

            try:
                acoustics = load(args.acoustics, seats)
            except AcousticsError as exc:  # the session still learns its table in play
                self.notices.append({"alert": {"kind": "bad_acoustics", "detail": str(exc)}})
        self.listener = TableListener(
            seats, calibrate_s=args.calibrate_s, spotter=spotter(), acoustics=acoustics
        )
        self.lines = requests()
        self.open = True

    def claims(self, block: float | None = None) -> list[dict[str, Any]]:
        """Claims waiting on stdin (for up to ``block`` seconds when given)."""
        out: list[dict[str, Any]] = []
        while self.open:
            try:
                line = self.lines.get(timeout=block) if block else self.lines.get_nowait()
            except queue.Empty:
                break
            block = None
            if line is None:
                self.open = False
                break
            try:
                claim = Claim.from_json(json.loads(line)["claim"])
            except (ValueError, KeyError, TypeError) as exc:
                why = exc if isinstance(exc, ClaimError) else f"not a claim line ({exc})"
                out.append({"alert": {"kind": "bad_claim", "detail": str(why)[:200]}})
                continue
            out += self.listener.request(claim)
        return out


def run(args: argparse.Namespace) -> int:
    cfg = VoiceConfig(seats=args.seats, threshold=args.threshold)
    src: FileSource | LiveSource
    if args.file is not None:
        src = FileSource(args.file)
        channels = src.channels
    else:
        device = int(args.device) if args.device.isdigit() else args.device
        src = LiveSource(None if device == "default" else device, channels=args.channels)
        channels = args.channels
        src.start()
        say({"started": 0})  # audio time 0: the capture began (the rig stamps it)
    pipe = CallPipeline(build_detectors(cfg, channels), seats=cfg.seats)
    table = Listening(args, channels) if args.verify else None
    for notice in table.notices if table is not None else []:
        say(notice)
    blocks: Iterable[Block] = paced(src) if args.file is not None and args.realtime else src
    if args.file is not None:
        say({"started": 0})  # audio time 0: the file starts playing now
    last_alive = 0.0
    tee = None
    if args.record is not None:
        from rig.evidence.media import AudioWriter

        def done(kind: str, start: float, end: float, path: Path) -> None:
            say({"segment": {"start": start, "end": end, "path": str(path)}})

        tee = AudioWriter(args.record, done, args.segment_s)
    for block in blocks:
        for alert in block.alerts:
            say({"alert": alert.model_dump(mode="json")})
        if len(block.data) == 0:
            continue
        if block.start > pipe.samples:  # blocks lost (alerted): keep time with silence
            gap = np.zeros((block.start - pipe.samples, channels), np.float32)
            if table is not None:
                for msg in table.listener.feed(gap):
                    say(msg)
            pipe.feed(gap)
        if tee is not None:
            tee.write(block.start / SR, block.data, SR)
        for call in pipe.feed(block.data):
            say({"call": call.model_dump(mode="json")})
        if table is not None:
            for msg in table.claims() + table.listener.feed(block.data):
                say(msg)
        now = time.monotonic()
        if now - last_alive >= ALIVE_EVERY:
            say({"alive": pipe.samples})
            last_alive = now
    for call in pipe.flush():
        say({"call": call.model_dump(mode="json")})
    if tee is not None:
        tee.close()
    if table is not None:
        for msg in table.claims() + table.listener.finish():
            say(msg)
    say({"end": pipe.samples})
    while table is not None and table.open:  # a file heard: claims may still come
        for msg in table.claims(block=ALIVE_EVERY):
            say(msg)
        say({"alive": pipe.samples})
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rig.voice_worker")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--file", type=Path)
    where.add_argument("--device")
    parser.add_argument("--realtime", action="store_true")
    parser.add_argument("--channels", type=int, default=1)
    parser.add_argument("--seats", nargs="+", choices=("E", "S", "W", "N"), default=None)
    parser.add_argument("--threshold", type=float, default=None)
    parser.add_argument("--verify", action="store_true", help="check claims, hear conduct")
    parser.add_argument("--calibrate-s", type=float, default=30.0)
    parser.add_argument(
        "--acoustics", type=Path, default=None, help="the table as `rig --check --hear-table` heard"
    )
    parser.add_argument("--record", type=Path, default=None, help="also write FLAC segments here")
    parser.add_argument("--segment-s", type=float, default=10.0)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
