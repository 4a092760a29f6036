"""Shared voice fixtures: speech is synthesised with espeak-ng; models load once per session."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from voice.audio_io import SR, Audio
from voice.encoder import SpeechEncoder
from voice.head import OnnxHead

REPO = Path(__file__).resolve().parents[2]
SPOTTER = REPO / "models" / "voice_spotter.onnx"


@pytest.fixture(scope="session")
def say() -> Callable[..., Audio]:
    """``say("peng4", "cmn-latn-pinyin", variant="m3")`` → 16 kHz float32 speech."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed (Debian package espeak-ng)")
    from voice import synth

    def _say(
        text: str, voice: str, variant: str = "m3", speed: float = 1.0, pitch: int = 50
    ) -> Audio:
        return synth.espeak(text, voice, synth.Voice("espeak", variant, speed, pitch))

    return _say


@pytest.fixture(scope="session")
def chatter(say: Callable[..., Audio]) -> Audio:
    """A few seconds of table talk in Mandarin."""
    return say("wo3 ting1 pai2 le, kuai4 dian3, zai4 lai2 yi1 ju2 ba, hao3 de", "cmn-latn-pinyin")


def place(clips: list[tuple[float, Audio]], seconds: float, noise_db: float = -70.0) -> Audio:
    """Clips at given onsets (s) in a quiet noise floor, seeded."""
    rng = np.random.default_rng(7)
    out = rng.normal(0, 10 ** (noise_db / 20), int(seconds * SR)).astype(np.float32)
    for t, clip in clips:
        k = int(t * SR)
        out[k : k + len(clip)] += clip[: len(out) - k]
    return out


@pytest.fixture(scope="session")
def encoder() -> SpeechEncoder:
    return SpeechEncoder()


@pytest.fixture(scope="session")
def spotter_head() -> OnnxHead:
    if not SPOTTER.exists():
        pytest.skip("models/voice_spotter.onnx not trained yet (python -m voice.train)")
    return OnnxHead(SPOTTER)
