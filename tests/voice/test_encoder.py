"""The speech encoder: the shipped ONNX file, its log-mel, windows cut from a stream."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from voice.audio_io import SR
from voice.encoder import DIM, FRAMES, SPAN, EncoderError, SpeechEncoder, cut, log_mel


def test_log_mel_is_whispers() -> None:
    # Whisper's normalisation: log10 power, floored 8 decades under the window's peak, (x+4)/4.
    t = np.arange(SPAN) / SR
    mel = log_mel((0.3 * np.sin(2 * np.pi * 1000 * t)).astype(np.float32)[None])
    assert mel.shape == (1, 80, 200)
    assert mel.max() - mel.min() == pytest.approx(2.0, abs=1e-4)  # the 8-decade floor, / 4
    assert 22 <= mel[0, :, 100].argmax() <= 30  # 1 kHz on Whisper's Slaney mel scale
    assert np.allclose(mel[0, :, 50], mel[0, :, 150], atol=1e-3)  # a steady tone is steady


def test_cut_pads_before_the_stream_with_silence() -> None:
    a = np.arange(1, 3 * SR + 1, dtype=np.float32)
    w = cut(a, [SR, 3 * SR], offset=0)
    assert (w[0, : SPAN - SR] == 0).all() and w[0, -1] == SR
    assert w[1, 0] == SR + 1 and w[1, -1] == 3 * SR
    # The same windows from a buffer that starts later in the stream.
    assert np.array_equal(cut(a[SR // 2 :], [3 * SR], offset=SR // 2)[0], w[1])


def test_encoder_batches_like_single_windows(encoder: SpeechEncoder) -> None:
    rng = np.random.default_rng(3)
    wins = (rng.standard_normal((3, SPAN)) * np.array([[0.1], [0.01], [0.0]])).astype(np.float32)
    batch = encoder.encode(wins)
    assert batch.shape == (3, FRAMES, DIM) and np.isfinite(batch).all()
    for k in range(3):
        assert np.allclose(encoder.encode(wins[k : k + 1])[0], batch[k], atol=1e-4)
    assert encoder.encode(np.zeros((0, SPAN), np.float32)).shape == (0, FRAMES, DIM)


def test_corrupt_or_wrong_encoder_file_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "voice_encoder.onnx"
    bad.write_bytes(b"\x08\x07garbage" * 20)
    with pytest.raises(EncoderError, match=r"voice_encoder\.onnx: not a readable ONNX model"):
        SpeechEncoder(bad)
    with pytest.raises(EncoderError, match="speech encoder model not found"):
        SpeechEncoder(tmp_path / "missing.onnx")
    spotter = Path(__file__).resolve().parents[2] / "models" / "voice_spotter.onnx"
    with pytest.raises(EncoderError, match="expected a speech encoder"):
        SpeechEncoder(spotter)
