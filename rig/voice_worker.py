"""The voice input's own process (CPU-heavy: the spotter runs here, not in the rig's loop).

``python -m rig.voice_worker (--file PATH [--realtime] | --device DEV) [--channels N]
[--seats E S W N] [--threshold X]`` prints one JSON object per line on stdout:
``{"call": CallHeard}``, ``{"alert": AudioAlert}``, ``{"alive": samples}`` (twice a second, so
the rig tells a quiet table from a dead microphone) and ``{"end": samples}`` when a file ends.
With ``--record DIR --t0 T`` it also writes what it hears as FLAC segments (rig/evidence), the
first sample at session time T, and prints ``{"segment": {"start", "end", "path"}}`` for each.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from voice.audio_io import SR
from voice.config import VoiceConfig
from voice.engines import build_detectors
from voice.pipeline import CallPipeline
from voice.sources import Block, FileSource, LiveSource

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
    pipe = CallPipeline(build_detectors(cfg, channels), seats=cfg.seats)
    blocks: Iterable[Block] = paced(src) if args.file is not None and args.realtime else src
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
            pipe.feed(np.zeros((block.start - pipe.samples, channels), np.float32))
        if tee is not None:
            tee.write(args.t0 + block.start / SR, block.data, SR)
        for call in pipe.feed(block.data):
            say({"call": call.model_dump(mode="json")})
        now = time.monotonic()
        if now - last_alive >= ALIVE_EVERY:
            say({"alive": pipe.samples})
            last_alive = now
    for call in pipe.flush():
        say({"call": call.model_dump(mode="json")})
    if tee is not None:
        tee.close()
    say({"end": pipe.samples})
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
    parser.add_argument("--record", type=Path, default=None, help="also write FLAC segments here")
    parser.add_argument("--t0", type=float, default=0.0, help="session time of the first sample")
    parser.add_argument("--segment-s", type=float, default=10.0)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
