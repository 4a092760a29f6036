"""Per-channel detectors: audio in, :class:`Detection` out, in stream sample units.

Both engines share the energy gate; they differ in what they do with a closed segment: the
spotter encodes and classifies the 2 s window ending just after it, vosk decodes it with a grammar.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from voice.audio_io import SR, Audio
from voice.encoder import DIM, FRAMES, SPAN, STEP, SpeechEncoder
from voice.events import Engine, Lang, Word
from voice.head import Head, class_of
from voice.ring import RingBuffer
from voice.vad import EnergyGate, Segment

MIN_SEG = int(0.08 * SR)  # shorter bursts are clicks, not words
LAG = int(0.08 * SR)  # the decision window ends this long after the gate's word end
KEEP = 4 * SPAN  # audio kept: windows for a long segment and the room before it


@dataclass(frozen=True)
class Detection:
    word: Word
    lang: Lang
    start: int  # sample
    end: int  # sample
    conf: float
    engine: Engine
    decided_at: int  # sample count when the decision was made (latency)


class Adapter(Protocol):
    """Adjusts a head's probabilities with what enrolment learnt (see voice.enrol)."""

    def adapt(self, probs: np.ndarray, windows: np.ndarray, background: np.ndarray) -> np.ndarray:
        """``background``: the window that ended as the speech began (the room right now)."""
        ...


class Detector(Protocol):
    def feed(self, x: Audio) -> list[Detection]: ...

    def flush(self) -> list[Detection]: ...


class SpotterDetector:
    """Gate + speech encoder + head; decides once per speech segment, on the window ending just
    after it, so a silent channel costs nothing but the gate."""

    def __init__(
        self,
        head: Head,
        encoder: SpeechEncoder,
        *,
        threshold: float | None = None,
        adapter: Adapter | None = None,
        gate: EnergyGate | None = None,
        refractory_s: float = 0.6,
        long_s: float = 1.2,
    ) -> None:
        if (head.meta.window, head.meta.dim) != (FRAMES, DIM):
            raise ValueError(
                f"head takes {head.meta.window} × {head.meta.dim} features, "
                f"the encoder gives {FRAMES} × {DIM}"
            )
        self.head = head
        self.encoder = encoder
        self.gate = gate or EnergyGate()
        self.threshold = head.meta.threshold if threshold is None else threshold
        self.adapter = adapter
        self._pending: list[Segment] = []
        # A call is a short isolated word: speech right after one is its continuation ("碰！…"),
        # and a long segment is searched along its length rather than only at its end.
        self.refractory = int(refractory_s * SR)
        self.long = int(long_s * SR)
        self._last_call_end = -(10**9)
        self._ring = RingBuffer(KEEP / SR, channels=1)  # the audio the windows are cut from

    def feed(self, x: Audio) -> list[Detection]:
        self._ring.write(x.astype(np.float32))
        self._pending.extend(s for s in self.gate.feed(x) if s.end - s.start >= MIN_SEG)
        return self._decide()

    def flush(self) -> list[Detection]:
        self._pending.extend(s for s in self.gate.flush() if s.end - s.start >= MIN_SEG)
        return self._decide(final=True)

    def _decide(self, final: bool = False) -> list[Detection]:
        out: list[Detection] = []
        keep: list[Segment] = []
        for seg in self._pending:
            if seg.start - self._last_call_end < self.refractory:
                continue
            end = seg.end + LAG
            ends = [end, end + STEP]
            if seg.end - seg.start > self.long:
                first = max(seg.start + SR // 2, end - 20 * STEP)
                ends = list(range(first, end + 1, STEP)) or [end]
            now = self._ring.written
            if ends[-1] > now:
                if not final:
                    keep.append(seg)
                    continue
                ends = sorted({min(e, now) for e in ends})
            first = max(0, now - self._ring.size)
            audio = self._ring.read(first, now)[:, 0]
            wins = self.encoder.at(audio, ends, first)
            probs = self.head.probs(wins)
            if self.adapter is not None:
                background = self.encoder.at(audio, [seg.start], first)[0]
                probs = self.adapter.adapt(probs, wins, background)
            det = self._pick(probs, seg, now)
            if det is not None:
                out.append(det)
                self._last_call_end = seg.end
        self._pending = keep
        return out

    def _pick(self, probs: np.ndarray, seg: Segment, now: int) -> Detection | None:
        p = probs.max(axis=0)
        calls = p[1:]
        # Sum the languages per word: the word matters more than which language said it.
        per_word = calls.reshape(4, 5).sum(axis=0)
        w = int(per_word.argmax())
        conf = float(min(1.0, per_word[w]))
        if conf < self.threshold:
            return None
        li = int(calls.reshape(4, 5)[:, w].argmax())
        cls = class_of(1 + li * 5 + w)
        assert cls is not None
        lang, word = cls
        return Detection(word, lang, seg.start, seg.end, conf, "spotter", now)
