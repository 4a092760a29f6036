"""Run the pipeline over a file (review, tests, the demo's replayed microphone)."""

from __future__ import annotations

from pathlib import Path

from voice.config import VoiceConfig
from voice.engines import build_detectors
from voice.events import CallHeard
from voice.pipeline import CallPipeline
from voice.sources import FileSource


def spot_file(path: Path, cfg: VoiceConfig) -> list[CallHeard]:
    """All calls in a file; times are seconds from the file's start."""
    src = FileSource(path)
    pipe = CallPipeline(build_detectors(cfg, src.channels), seats=cfg.seats)
    calls: list[CallHeard] = []
    for block in src:
        calls += pipe.feed(block.data)
    calls += pipe.flush()
    return calls
