"""Channels → detectors → :class:`CallHeard`, with seat attribution.

One microphone per seat: every mic hears every call, so a call is given to the channel where the
word was loudest over its span, among the channels that heard that word (within 1 dB two
channels tie and the first report wins). Different words at the same time on different channels
are both reported — priority is the referee core's business. With one microphone the seat is
unknown.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

import numpy as np

from voice.audio_io import SR, Audio
from voice.detect import Detection, Detector
from voice.events import CallHeard, Seat

SEATS: tuple[Seat, ...] = ("E", "S", "W", "N")
TIE_DB = 1.0
HOLD = int(0.3 * SR)  # how long a quieter channel's report waits for the nearer mic's


class CallPipeline:
    """Feed (samples, channels) blocks in stream order; get the calls heard."""

    def __init__(
        self,
        detectors: Sequence[Detector],
        *,
        seats: Sequence[Seat | None] | None = None,
        t0: float = 0.0,
        keep_s: float = 10.0,
        on_call: Callable[[CallHeard], None] | None = None,
    ) -> None:
        self.detectors = list(detectors)
        n = len(self.detectors)
        if seats is None:
            seats = [None] if n == 1 else list(SEATS[:n])
        if len(seats) != n:
            raise ValueError(f"{n} channels but {len(seats)} seats")
        self.seats = list(seats)
        self.t0 = t0
        self.samples = 0
        self._keep = int(keep_s * SR)
        self._hist: deque[Audio] = deque()
        self._hist_start = 0
        self._emitted: deque[CallHeard] = deque(maxlen=32)
        self.on_call = on_call
        self.detections: list[tuple[int, Detection]] = []  # (channel, raw detection), for benches
        self._held: list[tuple[int, Detection, int]] = []  # (channel, detection, emit by sample)

    def time_of(self, sample: int) -> float:
        return self.t0 + sample / SR

    def feed(self, block: Audio) -> list[CallHeard]:
        """``block`` is (n,) for one channel or (n, channels)."""
        if block.ndim == 1:
            block = block[:, None]
        if block.shape[1] != len(self.detectors):
            raise ValueError(f"block has {block.shape[1]} channels, pipeline {len(self.detectors)}")
        self._hist.append(block.astype(np.float32))
        self.samples += len(block)
        found = [(c, d) for c, det in enumerate(self.detectors) for d in det.feed(block[:, c])]
        out = self._attribute(found)
        self._trim()
        return out

    def flush(self) -> list[CallHeard]:
        return self._attribute(
            [(c, d) for c, det in enumerate(self.detectors) for d in det.flush()]
        )

    def _trim(self) -> None:
        while self._hist and self._hist_start + len(self._hist[0]) < self.samples - self._keep:
            self._hist_start += len(self._hist.popleft())

    def _levels(self, start: int, end: int) -> np.ndarray:
        """RMS dB of every channel over [start, end)."""
        buf = np.concatenate(list(self._hist))
        lo = max(0, start - self._hist_start)
        hi = max(lo + 1, end - self._hist_start)
        seg = buf[lo:hi].astype(np.float64)
        return np.asarray(10 * np.log10(np.mean(seg**2, axis=0) + 1e-12))

    def _attribute(
        self, found: list[tuple[int, Detection]], final: bool = False
    ) -> list[CallHeard]:
        """Emit a detection at once when its channel is the loudest over the word; otherwise
        hold it briefly for the other channels' reports of the same word and emit the loudest
        of those that heard it (a mic busy with another caller's word does not steal it)."""
        self.detections.extend(found)
        out: list[CallHeard] = []
        for c, d in sorted(found, key=lambda cd: -cd[1].conf):
            if self._duplicate(d):
                continue
            if len(self.detectors) == 1:
                out += self._emit(c, d)
                continue
            lv = self._levels(d.start, d.end)
            if lv.max() - lv[c] <= TIE_DB:
                out += self._emit(c, d)
                self._held = [(hc, hd, t) for hc, hd, t in self._held if not _same(hd, d)]
            else:
                self._held.append((c, d, self.samples + HOLD))
        due = [h for h in self._held if final or h[2] <= self.samples]
        while due:
            c, d, _ = due[0]
            group = [h for h in self._held if _same(h[1], d)]
            best = max(group, key=lambda h: self._levels(h[1].start, h[1].end)[h[0]])
            self._held = [h for h in self._held if h not in group]
            if not self._duplicate(best[1]):
                out += self._emit(best[0], best[1])
            due = [h for h in self._held if final or h[2] <= self.samples]
        return out

    def _duplicate(self, d: Detection) -> bool:
        t0, t1 = self.time_of(d.start), self.time_of(d.end)
        return any(e.word == d.word and e.t_start < t1 and t0 < e.t_end for e in self._emitted)

    def _emit(self, c: int, d: Detection) -> list[CallHeard]:
        call = CallHeard(
            word=d.word,
            lang=d.lang,
            seat=self.seats[c],
            t_start=self.time_of(d.start),
            t_end=self.time_of(d.end),
            conf=round(d.conf, 4),
            engine=d.engine,
            channel=c,
        )
        self._emitted.append(call)
        if self.on_call is not None:
            self.on_call(call)
        return [call]


def _same(a: Detection, b: Detection) -> bool:
    """The same word over overlapping spans: one call heard by several mics."""
    return a.word == b.word and a.start < b.end and b.start < a.end
