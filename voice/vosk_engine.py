"""Engine ``vosk``: Kaldi decoding with a per-language grammar of the call phrases.

The production engine wherever a venue installs vosk models. Models load from configured
directories only (``vosk.Model(lang=...)`` would download). At start-up every phrase is checked
against the model's lexicon, and a model whose graph is static (HCLG.fst: it silently ignores
grammars) is refused, so a venue finds out at setup, not at the first missed call.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voice.audio_io import SR, Audio
from voice.detect import Detection
from voice.events import Lang, Word
from voice.vad import EnergyGate, Segment

PREROLL = int(0.3 * SR)


class VoskSetupError(RuntimeError):
    """A vosk model is missing, unreadable, static-graph, or lacks a phrase's words."""


@dataclass(frozen=True)
class VoskLanguage:
    """One model and the phrases it listens for (phrase text → call)."""

    lang: Lang
    model_dir: Path
    phrases: dict[str, Word]


def _has_dynamic_graph(model_dir: Path) -> bool:
    return any(
        (d / "HCLr.fst").is_file() and (d / "Gr.fst").is_file()
        for d in (model_dir, model_dir / "graph")
    )


class VoskModel:
    """A loaded model with its grammar, validated."""

    def __init__(self, spec: VoskLanguage) -> None:
        try:
            import vosk
        except ImportError as exc:
            raise VoskSetupError("the vosk engine needs the PyPI package vosk") from exc
        vosk.SetLogLevel(-1)
        if not spec.model_dir.is_dir():
            raise VoskSetupError(f"{spec.lang}: vosk model directory {spec.model_dir} not found")
        if not _has_dynamic_graph(spec.model_dir):
            raise VoskSetupError(
                f"{spec.lang}: {spec.model_dir} has no HCLr.fst/Gr.fst (static graph): "
                "it cannot take a grammar; install a small/lookahead vosk model"
            )
        try:
            self.model: Any = vosk.Model(str(spec.model_dir))
        except Exception as exc:  # vosk raises a bare Exception on a bad model
            raise VoskSetupError(
                f"{spec.lang}: cannot load vosk model {spec.model_dir} ({exc})"
            ) from exc
        missing = sorted(
            {
                w
                for text in spec.phrases
                for w in text.split()
                if self.model.vosk_model_find_word(w) < 0
            }
        )
        if missing:
            raise VoskSetupError(
                f"{spec.lang}: words missing from the vocabulary of {spec.model_dir}: "
                + ", ".join(missing)
                + " (remove or respell these phrases)"
            )
        self.spec = spec
        words = list(spec.phrases)
        if self.model.vosk_model_find_word("[unk]") >= 0:
            words.append("[unk]")
        self.grammar = json.dumps(words, ensure_ascii=False)  # vosk reads UTF-8, not \u escapes
        self._vosk = vosk

    def decode(self, pcm16: bytes) -> list[dict[str, Any]]:
        """Words of the final result (word, start, end, conf), times from the chunk start."""
        rec = self._vosk.KaldiRecognizer(self.model, SR, self.grammar)
        rec.SetWords(True)
        rec.AcceptWaveform(pcm16)
        result = json.loads(rec.FinalResult())
        return list(result.get("result", []))


class VoskDetector:
    """Gate + grammar decoding of each speech segment, in every configured language."""

    def __init__(
        self, models: list[VoskModel], *, threshold: float = 0.6, gate: EnergyGate | None = None
    ) -> None:
        self.models = models
        self.threshold = threshold
        self.gate = gate or EnergyGate()
        self._audio: deque[Audio] = deque()
        self._audio_start = 0
        self._samples = 0

    def feed(self, x: Audio) -> list[Detection]:
        self._audio.append(x.astype(np.float32))
        self._samples += len(x)
        segs = self.gate.feed(x)
        out = [d for s in segs for d in self._decode(s)]
        self._trim()
        return out

    def flush(self) -> list[Detection]:
        return [d for s in self.gate.flush() for d in self._decode(s)]

    def _trim(self) -> None:
        keep_from = self._samples - 12 * SR
        if self.gate.open_since is not None:
            keep_from = min(keep_from, self.gate.open_since - PREROLL)
        while self._audio and self._audio_start + len(self._audio[0]) < keep_from:
            self._audio_start += len(self._audio.popleft())

    def _decode(self, seg: Segment) -> list[Detection]:
        buf = np.concatenate(list(self._audio)) if self._audio else np.zeros(0, np.float32)
        lo = max(self._audio_start, seg.start - PREROLL)
        chunk = buf[lo - self._audio_start : seg.closed - self._audio_start]
        pcm = (np.clip(chunk, -1, 1) * 32767).astype("<i2").tobytes()
        best: list[Detection] = []
        for m in self.models:
            for text, start, end, conf in _phrases(m.decode(pcm), m.spec.phrases):
                if conf >= self.threshold:
                    word = m.spec.phrases[text]
                    s0, s1 = lo + int(start * SR), lo + int(end * SR)
                    best.append(Detection(word, m.spec.lang, s0, s1, conf, "vosk", self._samples))
        # Several languages may claim one span: keep the most confident per overlapping span.
        best.sort(key=lambda d: -d.conf)
        kept: list[Detection] = []
        for d in best:
            if all(d.end <= k.start or d.start >= k.end for k in kept):
                kept.append(d)
        return sorted(kept, key=lambda d: d.start)


def _phrases(
    words: list[dict[str, Any]], phrases: dict[str, Word]
) -> list[tuple[str, float, float, float]]:
    """Multi-word phrases in decoded words, longest first: (text, start, end, conf)."""
    longest = max((len(p.split()) for p in phrases), default=1)
    out = []
    i = 0
    while i < len(words):
        for k in range(min(longest, len(words) - i), 0, -1):
            span = words[i : i + k]
            text = " ".join(str(w.get("word", "")) for w in span)
            if text in phrases:
                conf = min(float(w.get("conf", 0.0)) for w in span)
                out.append((text, float(span[0]["start"]), float(span[-1]["end"]), conf))
                i += k
                break
        else:
            i += 1
    return out
