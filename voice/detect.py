"""Per-channel detectors: audio in, :class:`Detection` out, in stream sample units.

Both engines share the energy gate; they differ in what they do with a closed segment: the
spotter classifies the embedding window ending just after it, vosk decodes it with a grammar.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from voice.audio_io import SR, Audio
from voice.events import Engine, Lang, Word
from voice.frontend import CHUNK, EmbeddingStream, Frontend, emb_end_sample
from voice.head import Head, class_of
from voice.vad import EnergyGate, Segment

MIN_SEG = int(0.08 * SR)  # shorter bursts are clicks, not words
PRIME = 2 * SR  # a quiet lead-in, so a call in a stream's first seconds still fills a window
LAG = int(0.08 * SR)  # the decision window ends at least this long after the gate's word end


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
    """Gate + streaming embeddings + head; decides once per speech segment."""

    def __init__(
        self,
        head: Head,
        frontend: Frontend,
        *,
        threshold: float | None = None,
        adapter: Adapter | None = None,
        gate: EnergyGate | None = None,
        refractory_s: float = 0.6,
        long_s: float = 1.2,
    ) -> None:
        self.head = head
        self.stream = EmbeddingStream(frontend)
        self.gate = gate or EnergyGate()
        self.threshold = head.meta.threshold if threshold is None else threshold
        self.adapter = adapter
        self.window = head.meta.window
        self._pending: list[Segment] = []
        # A call is a short isolated word: speech right after one is its continuation ("碰！…"),
        # and a long segment is searched along its length rather than only at its end.
        self.refractory = int(refractory_s * SR)
        self.long = int(long_s * SR)
        self._last_call_end = -(10**9)
        self._recent_speech = -(10**9)
        quiet = np.random.default_rng(0).normal(0, 1e-4, PRIME).astype(np.float32)
        self.stream.feed(quiet)  # stream sample = audio sample + PRIME

    def feed(self, x: Audio) -> list[Detection]:
        self.stream.feed(x)
        self._pending.extend(s for s in self.gate.feed(x) if s.end - s.start >= MIN_SEG)
        if self.gate.active:
            self._recent_speech = self.stream.samples
        self._prefetch()
        return self._decide()

    def flush(self) -> list[Detection]:
        self._pending.extend(s for s in self.gate.flush() if s.end - s.start >= MIN_SEG)
        return self._decide(final=True)

    def _prefetch(self) -> None:
        """Embed during and just after speech, so a decision only waits for its last frame."""
        if self.stream.samples - self._recent_speech < 2 * SR and self.stream.last >= 0:
            lo = max(self.stream.first(), self.stream.last - self.window)
            self.stream.embeddings(list(range(lo, self.stream.last + 1)))

    def _decide(self, final: bool = False) -> list[Detection]:
        out: list[Detection] = []
        keep: list[Segment] = []
        for seg in self._pending:
            if seg.start - self._last_call_end < self.refractory:
                continue
            j = self._first_window(seg.end)
            if j is None:
                keep.append(seg)
                continue
            if j > self.stream.last:
                if not final:
                    keep.append(seg)
                    continue
                j = self.stream.last
            js = [k for k in (j, j + 1) if k <= self.stream.last]
            if seg.end - seg.start > self.long:
                j0 = self._first_window(seg.start + SR // 2) or j
                js = list(range(max(j0, j - 20, self.stream.first() + self.window - 1), j + 1))
            lo = js[0] - self.window + 1
            if lo < self.stream.first():
                continue  # stream shorter than a window: nothing to decide on
            embs = self.stream.embeddings(list(range(lo, js[-1] + 1)))
            wins = np.stack([embs[k - lo - self.window + 1 : k - lo + 1] for k in js])
            probs = self.head.probs(wins)
            if self.adapter is not None:
                probs = self.adapter.adapt(probs, wins, self._background(seg))
            det = self._pick(probs, seg, self.stream.samples - PRIME)
            if det is not None:
                out.append(det)
                self._last_call_end = seg.end
        self._pending = keep
        return out

    def _background(self, seg: Segment) -> np.ndarray:
        jb = (seg.start + PRIME - emb_end_sample(0)) // CHUNK
        jb = max(jb, self.stream.first() + self.window - 1)
        return self.stream.embeddings(list(range(jb - self.window + 1, jb + 1)))

    def _first_window(self, end: int) -> int | None:
        j = max(0, -(-(end + PRIME + LAG - emb_end_sample(0)) // CHUNK))
        return j if j >= self.window - 1 else None

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
