"""A session's camera read back from the ring, for re-deriving a recorded live game
(``mjref review rederive LOG --evidence DIR``): its video segments in time order, each frame at
its session time, and the stretches of the hand the ring no longer keeps."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rig.evidence.media import segment_frames
from rig.evidence.ring import Budget, Ring, Segment, describe

SHORTEST_GAP_S = 1.0  # less than this missing is a frame's step or two, not a lost stretch


class NoRecording(ValueError):
    """No ring there, or no video of the session in it (one line)."""


@dataclass(frozen=True)
class RingVideo:
    segments: list[Segment]
    kept: list[tuple[float, float]]

    def frames(self, start: float) -> Iterator[tuple[int, float, np.ndarray]]:
        """(number from 0, session time, RGB frame) from ``start`` on."""
        for n, (t, rgb) in enumerate(segment_frames(self.segments, start)):
            yield n, t, rgb

    def missing(self, start: float, end: float) -> list[tuple[float, float]]:
        """The stretches no segment covers (a second or more) that begin within ``[start,
        end]``, each up to where the video resumes."""
        out: list[tuple[float, float]] = []
        at = start
        for a, b in self.kept:
            if at >= end:
                break
            if a - at >= SHORTEST_GAP_S:
                out.append((at, a))
            at = max(at, b)
        if end - at >= SHORTEST_GAP_S:
            out.append((at, end))  # the recording stops before the hand's camera events do
        return out

    def kept_text(self) -> str:
        return describe(self.kept)


def ring_video(directory: Path, session: str) -> RingVideo:
    """The video of ``session`` in the ring at ``directory`` (the rig's ``[evidence] dir``, or
    the session's own folder in it)."""
    root = directory
    if not (root / "index.sqlite").is_file() and (root.parent / "index.sqlite").is_file():
        root = root.parent
    if not (root / "index.sqlite").is_file():
        raise NoRecording(
            f"{directory}: no ring of recordings there (expected the rig's [evidence] dir, "
            "with its index.sqlite)"
        )
    ring = Ring(root, Budget(), session)
    try:
        segments = ring.find("video", 0.0, 1e18)
        kept = ring.kept("video")
    finally:
        ring.close()
    if not segments:
        raise NoRecording(f"{root}: the ring keeps no video of session {session}")
    return RingVideo(segments, kept)
