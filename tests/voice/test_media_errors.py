"""Audio files that are cut short, whose header lies, or that are not audio at all are errors
that name the file and the problem — never a shorter recording that passes for silence."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from rig.cli import main as mjref
from voice.audio_io import SR, AudioReadError, read_audio

SECONDS = 2


@pytest.fixture
def wav(tmp_path: Path) -> Path:
    """Two seconds of quiet noise, 16-bit PCM: 44-byte header, then the data chunk."""
    path = tmp_path / "take.wav"
    noise = np.random.default_rng(1).normal(0, 0.05, SECONDS * SR).astype(np.float32)
    sf.write(path, noise, SR, subtype="PCM_16")
    return path


def _patch(path: Path, offset: int, fmt: str, value: int) -> Path:
    raw = bytearray(path.read_bytes())
    struct.pack_into(fmt, raw, offset, value)
    path.write_bytes(bytes(raw))
    return path


def _error(path: Path) -> str:
    with pytest.raises(AudioReadError) as caught:
        read_audio(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return message


def test_the_whole_file_reads(wav: Path) -> None:
    assert read_audio(wav).shape == (SECONDS * SR, 1)


@pytest.mark.parametrize("keep", [44, 45, 1000, 44 + SECONDS * SR])  # bytes of 44 + 2 × 32000
def test_a_wav_cut_short_is_truncated(wav: Path, keep: int) -> None:
    wav.write_bytes(wav.read_bytes()[:keep])
    message = _error(wav)
    assert "truncated: the header announces 64000 bytes of audio" in message
    assert f"the file holds {keep - 44}" in message


def test_a_header_that_claims_more_than_the_file_holds(wav: Path) -> None:
    _patch(wav, 40, "<I", 10 * SECONDS * SR * 2)  # the data chunk's size, whole file intact
    assert "the header announces 640000 bytes of audio, the file holds 64000" in _error(wav)


@pytest.mark.parametrize("unknown", [0xFFFFFFFF])
def test_a_stream_whose_size_was_never_written_reads_what_it_holds(wav: Path, unknown: int) -> None:
    _patch(wav, 40, "<I", unknown)  # what a recorder killed mid-take leaves: no size at all
    assert len(read_audio(wav)) == SECONDS * SR


@pytest.mark.parametrize("rate", [1, 1000, 7999, 1_000_000])
def test_a_sample_rate_no_microphone_records_at(wav: Path, rate: int) -> None:
    _patch(wav, 24, "<I", rate)
    _patch(wav, 28, "<I", rate * 2)  # byte rate, kept consistent
    assert f"sample rate {rate} Hz: expected 8000 to 384000 Hz" in _error(wav)


def test_an_8_khz_phone_recording_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "phone.wav"
    sf.write(path, np.zeros(8000, np.float32) + 0.01, 8000, subtype="PCM_16")
    assert read_audio(path).shape == (SR, 1)


def test_a_header_with_no_samples_is_not_silence(wav: Path) -> None:
    wav.write_bytes(wav.read_bytes()[:44])
    _patch(wav, 40, "<I", 0)
    _patch(wav, 4, "<I", 36)
    assert "holds no audio samples" in _error(wav)


def test_samples_that_are_not_numbers(tmp_path: Path) -> None:
    path = tmp_path / "nan.wav"
    x = np.zeros(SR, np.float32)
    x[100] = np.nan
    sf.write(path, x, SR, subtype="FLOAT")
    assert "not numbers" in _error(path)


@pytest.mark.parametrize("fraction", [0.2, 0.5, 0.9, 0.99])
def test_a_flac_cut_short(tmp_path: Path, fraction: float) -> None:
    path = tmp_path / "take.flac"
    noise = np.random.default_rng(2).normal(0, 0.05, SECONDS * SR).astype(np.float32)
    sf.write(path, noise, SR, format="FLAC")
    raw = path.read_bytes()
    path.write_bytes(raw[: int(len(raw) * fraction)])
    message = _error(path)
    assert "damaged or truncated" in message or "truncated: the header announces" in message


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "not a readable audio file"),
        (b"speaker notes, not audio\n" * 40, "not a readable audio file"),
        (bytes(range(256)) * 16, "not a readable audio file"),
        (b"RIFF\x24\x00\x00\x00WAVEfmt ", "not a readable audio file"),
    ],
)
def test_files_that_are_not_audio(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "call.wav"
    path.write_bytes(content)
    assert words in _error(path)


def test_a_folder_or_a_missing_file(tmp_path: Path) -> None:
    assert "Is a directory; expected an audio file" in _error(tmp_path)
    assert "No such file or directory" in _error(tmp_path / "gone.wav")


def test_spot_reports_a_truncated_file_as_an_error(
    wav: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole.wav"
    whole.write_bytes(wav.read_bytes())
    wav.write_bytes(wav.read_bytes()[:20000])
    assert mjref(["voice", "spot", str(wav), str(whole)]) == 1
    captured = capsys.readouterr()
    assert f"{whole}: 0 call(s)" in captured.out and str(wav) not in captured.out
    assert captured.err.strip() == (
        f"mjref voice spot: {wav}: truncated: the header announces 64000 bytes of audio, "
        "the file holds 19956"
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--threshold", "1.5"], "--threshold: 1.5: expected a number from 0 to 1"),
        (["--threshold", "nan"], "--threshold: nan: expected a number from 0 to 1"),
    ],
)
def test_voice_options_out_of_range_are_usage_errors(
    wav: Path, args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        mjref(["voice", "spot", str(wav), *args])
    assert stop.value.code == 2 and words in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--channels", "0"], "--channels: 0: expected an integer from 1 to 32"),
        (["--seconds", "-3"], "--seconds: -3: expected a number > 0"),
    ],
)
def test_listen_options_out_of_range(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        mjref(["voice", "listen", *args])
    assert stop.value.code == 2 and words in capsys.readouterr().err


def test_a_threshold_out_of_range_in_the_config_file(
    wav: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "voice.toml"
    cfg.write_text('[voice]\nvosk_threshold = 7\nengine = "x"\n')
    assert mjref(["voice", "spot", "--config", str(cfg), str(wav)]) == 2
    assert capsys.readouterr().err == (
        f"mjref voice spot: {cfg}: engine: Input should be 'spotter' or 'vosk' (got 'x'); "
        "vosk_threshold: Input should be less than or equal to 1 (got 7)\n"
    )
