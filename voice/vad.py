"""Energy gate per channel: engines only see speech, and its edges time the call.

10 ms frames; a noise floor that drops at once and rises 3 dB/s (so a running shuffler is
learnt as background); speech = 9 dB over the floor and over -55 dBFS for 30 ms; the segment
closes after 100 ms below (short enough for a 300 ms latency budget).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voice.audio_io import SR, Audio

FRAME = 160


@dataclass(frozen=True)
class Segment:
    """Speech from sample ``start`` to ``end`` (exclusive), closed at sample ``closed``."""

    start: int
    end: int
    closed: int


class EnergyGate:
    def __init__(
        self,
        *,
        margin_db: float = 9.0,
        floor_min_db: float = -55.0,
        onset_frames: int = 3,
        hangover_frames: int = 10,
        max_frames: int = 300,
        rise_db_per_s: float = 3.0,
    ) -> None:
        self.margin = margin_db
        self.abs_min = floor_min_db
        self.onset = onset_frames
        self.hang = hangover_frames
        self.max = max_frames
        self.rise = rise_db_per_s * FRAME / SR
        self.floor: float | None = None
        self._pending = np.zeros(0, dtype=np.float32)
        self._frame = 0  # index of the next frame
        self._run = 0  # consecutive speech frames before onset
        self._silence = 0  # consecutive non-speech frames in a segment
        self._start: int | None = None
        self._last_speech = 0

    @property
    def active(self) -> bool:
        return self._start is not None

    @property
    def open_since(self) -> int | None:
        return None if self._start is None else self._start * FRAME

    def feed(self, x: Audio) -> list[Segment]:
        """Frames of ``x`` (continuing the stream); returns the segments that closed."""
        buf = np.concatenate([self._pending, x.astype(np.float32)])
        n = len(buf) // FRAME
        self._pending = buf[n * FRAME :]
        if n == 0:
            return []
        frames = buf[: n * FRAME].reshape(n, FRAME)
        energy = 10 * np.log10(np.mean(frames.astype(np.float64) ** 2, axis=1) + 1e-12)
        out: list[Segment] = []
        for e in energy:
            out.extend(self._step(float(e)))
        return out

    def _step(self, e: float) -> list[Segment]:
        k = self._frame
        self._frame += 1
        if self.floor is None or e < self.floor:
            self.floor = e
        speech = e > self.floor + self.margin and e > self.abs_min
        self.floor += self.rise
        if self._start is None:
            self._run = self._run + 1 if speech else 0
            if self._run >= self.onset:
                self._start = k - self.onset + 1
                self._last_speech = k
                self._silence = 0
            return []
        if speech:
            self._last_speech = k
            self._silence = 0
        else:
            self._silence += 1
        if self._silence >= self.hang or k - self._start >= self.max:
            seg = Segment(self._start * FRAME, (self._last_speech + 1) * FRAME, (k + 1) * FRAME)
            self._start = None
            self._run = 0
            return [seg]
        return []

    def flush(self) -> list[Segment]:
        """Close an open segment at the end of a stream."""
        if self._start is None:
            return []
        seg = Segment(self._start * FRAME, (self._last_speech + 1) * FRAME, self._frame * FRAME)
        self._start = None
        return [seg]
