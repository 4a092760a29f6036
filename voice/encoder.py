"""The speech encoder front end: the audio encoder of OpenAI's Whisper tiny.en (MIT), int8 ONNX
in models/voice_encoder.onnx. A 2 s window of 16 kHz audio → Whisper's 80-band log-mel (10 ms
hop) → the four transformer layers → 25 × 384 features (one every 80 ms). Trained on far more
voices than we can record or synthesise, it is what lets a small head hear unseen speakers.

The window is encoded on its own (Whisper's own 30 s context is cut to 2 s: the positional table
is sliced), once per decision, so a silent channel costs nothing. Export: ``python -m voice.train
encoder`` (see models/MODELS.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from voice.audio_io import SR, Audio
from voice.onnx_session import load_session

SPAN = 2 * SR  # samples per encoded window
STEP = 1280  # 80 ms: one feature frame, and the decision grid
FRAMES = SPAN // STEP  # 25 feature frames per window
DIM = 384
N_MELS, N_FFT, HOP = 80, 400, 160
MODEL = Path(__file__).resolve().parents[1] / "models" / "voice_encoder.onnx"

F32 = npt.NDArray[np.float32]


class EncoderError(RuntimeError):
    """The speech encoder model is missing, corrupt or not the expected network."""


def _slaney_mel() -> F32:
    """The mel filterbank Whisper was trained with (librosa's default: Slaney scale and norm)."""

    def hz_to_mel(f: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        lin = f / (200.0 / 3)
        log = 15.0 + np.log(np.maximum(f, 1e-9) / 1000.0) / (np.log(6.4) / 27.0)
        return np.where(f >= 1000.0, log, lin)

    def mel_to_hz(m: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return np.where(m >= 15.0, 1000.0 * np.exp(np.log(6.4) / 27.0 * (m - 15.0)), m * 200 / 3)

    fft_hz = np.linspace(0, SR / 2, N_FFT // 2 + 1)
    edges = mel_to_hz(np.linspace(0.0, float(hz_to_mel(np.array(SR / 2))), N_MELS + 2))
    widths = np.diff(edges)
    ramps = edges[:, None] - fft_hz[None]
    tri = np.maximum(0, np.minimum(-ramps[:-2] / widths[:-1, None], ramps[2:] / widths[1:, None]))
    return (tri * (2.0 / (edges[2:] - edges[:-2]))[:, None]).astype(np.float32)


_MEL = _slaney_mel()
_HANN = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)).astype(np.float32)


def log_mel(windows: F32) -> F32:
    """(B, SPAN) audio in [-1, 1] → (B, 80, 200) Whisper log-mel, normalised per window."""
    x = np.pad(np.asarray(windows, np.float32), ((0, 0), (N_FFT // 2, N_FFT // 2)), mode="reflect")
    n = SPAN // HOP
    idx = HOP * np.arange(n)[:, None] + np.arange(N_FFT)[None]
    power = np.abs(np.fft.rfft(x[:, idx] * _HANN, axis=2)) ** 2  # (B, n, 201)
    mel = np.log10(np.maximum(np.matmul(power, _MEL.T).transpose(0, 2, 1), 1e-10))  # BLAS
    mel = np.maximum(mel, mel.max(axis=(1, 2), keepdims=True) - 8.0)
    out: F32 = ((mel + 4.0) / 4.0).astype(np.float32)
    return out


def cut(audio: Audio, ends: Sequence[int], offset: int = 0) -> F32:
    """(len(ends), SPAN) windows of ``audio`` ending at each end (``audio[0]`` is sample
    ``offset``); what lies before the audio is silence."""
    out = np.zeros((len(ends), SPAN), np.float32)
    for i, end in enumerate(ends):
        start = end - offset - SPAN
        lo, hi = max(start, 0), min(start + SPAN, len(audio))
        if hi > lo:
            out[i, lo - start : hi - start] = audio[lo:hi]
    return out


class SpeechEncoder:
    """onnxruntime session over the encoder; one instance can serve every channel."""

    def __init__(self, path: Path = MODEL) -> None:
        self.sess = load_session(path, "speech encoder", EncoderError)
        inp, out = self.sess.get_inputs()[0], self.sess.get_outputs()[0]
        if list(inp.shape[1:]) != [N_MELS, SPAN // HOP] or list(out.shape[1:]) != [FRAMES, DIM]:
            raise EncoderError(
                f"{path}: expected a speech encoder (mel [B, {N_MELS}, {SPAN // HOP}] → "
                f"[B, {FRAMES}, {DIM}]), found {inp.shape} → {out.shape}"
            )
        self._input = inp.name

    def encode(self, windows: F32) -> F32:
        """(B, SPAN) audio windows → (B, FRAMES, DIM) features. One window per run: the int8
        layers scale their activations per run, so a batch would make features depend on their
        neighbours."""
        out = np.zeros((len(windows), FRAMES, DIM), np.float32)
        for k, mel in enumerate(log_mel(windows)):
            out[k] = self.sess.run(None, {self._input: mel[None]})[0][0]
        return out

    def at(self, audio: Audio, ends: Sequence[int], offset: int = 0) -> F32:
        """Features of the windows of ``audio`` ending at ``ends`` (see :func:`cut`)."""
        return self.encode(cut(audio, ends, offset))


__all__ = ["DIM", "FRAMES", "SPAN", "STEP", "EncoderError", "SpeechEncoder", "cut", "log_mel"]
