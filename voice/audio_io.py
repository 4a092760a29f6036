"""Reading, resampling and writing audio: everything inside runs at 16 kHz float32 in [-1, 1]."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import soundfile as sf

SR = 16000
MIN_RATE, MAX_RATE = 8000, 384000  # below: no speech band left; above: not a microphone
Audio = npt.NDArray[np.float32]
_UNKNOWN_SIZES = (0, 0xFFFFFFFF)  # what streaming writers leave in a header they never closed


class AudioReadError(OSError):
    """A file that is not readable audio, or whose audio is not all there."""


def resample(x: Audio, sr_in: int, sr_out: int = SR) -> Audio:
    """Band-limited resampling along axis 0 (FFT method: exact for short clips and files)."""
    if sr_in == sr_out or len(x) == 0:
        return x.astype(np.float32, copy=False)
    n_out = round(len(x) * sr_out / sr_in)
    spec = np.fft.rfft(x, axis=0)
    keep = min(spec.shape[0], n_out // 2 + 1)
    shape = (n_out // 2 + 1, *spec.shape[1:])
    out_spec = np.zeros(shape, dtype=spec.dtype)
    out_spec[:keep] = spec[:keep]
    y = np.fft.irfft(out_spec, n=n_out, axis=0) * (n_out / len(x))
    return y.astype(np.float32)


def read_audio(path: Path, *, mono: bool = False) -> Audio:
    """A file as (samples, channels) at 16 kHz; ``mono`` averages the channels to (samples,).

    A file cut short, or whose header promises more than it holds, is an :class:`AudioReadError`
    — never the samples that happen to be there, which would pass for silence."""
    return _read(path, None, mono=mono)


def _read(path: Path, info: Any, *, mono: bool) -> Audio:
    """:func:`read_audio`, with the file's header (``sf.info``) when the caller has read it."""
    try:
        fh = path.open("rb")  # opened here: libsndfile cannot open a name that is not UTF-8
    except OSError as exc:
        expected = "expected an audio file (WAV, FLAC, OGG)"
        raise AudioReadError(f"{path}: {exc.strerror or exc}; {expected}") from exc
    with fh:
        if info is None:
            try:
                info = sf.info(fh)
            except (sf.LibsndfileError, RuntimeError) as exc:
                raise AudioReadError(f"{path}: not a readable audio file ({_why(exc)})") from exc
        try:
            short = _riff_shortfall(path) if info.format in ("WAV", "WAVEX") else None
            fh.seek(0)
            data, sr = sf.read(fh, dtype="float32", always_2d=True)
        except (sf.LibsndfileError, RuntimeError, OSError, struct.error) as exc:
            raise AudioReadError(f"{path}: damaged or truncated audio ({_why(exc)})") from exc
    if short is not None:
        raise AudioReadError(
            f"{path}: truncated: the header announces {short[0]} bytes of audio, "
            f"the file holds {short[1]}"
        )
    if info.frames > len(data):
        raise AudioReadError(
            f"{path}: truncated: the header announces {info.frames} samples, "
            f"{len(data)} could be read"
        )
    if not MIN_RATE <= sr <= MAX_RATE:
        raise AudioReadError(
            f"{path}: sample rate {sr} Hz: expected {MIN_RATE} to {MAX_RATE} Hz (16 kHz is best)"
        )
    if len(data) == 0:
        raise AudioReadError(f"{path}: holds no audio samples")
    if not np.isfinite(data).all():
        raise AudioReadError(f"{path}: holds samples that are not numbers (NaN or infinite)")
    out = resample(np.asarray(data, dtype=np.float32), int(sr))
    if mono:
        mono_out: Audio = out.mean(axis=1).astype(np.float32)
        return mono_out
    return out


def _why(exc: Exception) -> str:
    """libsndfile's own words, without the Python object it was handed."""
    return str(getattr(exc, "error_string", None) or exc).strip()


def _riff_shortfall(path: Path) -> tuple[int, int] | None:
    """(bytes the WAV's data chunk announces, bytes the file holds) when it holds fewer.

    libsndfile quietly reads what is there; a recording cut off mid-write must not look like a
    shorter one."""
    size = path.stat().st_size
    with path.open("rb") as fh:
        head = fh.read(12)
        if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
            return None  # RF64 and other containers: libsndfile's own checks apply
        offset = 12
        while offset + 8 <= size:
            fh.seek(offset)
            chunk, length = struct.unpack("<4sI", fh.read(8))
            available = size - offset - 8
            if chunk == b"data":
                if length not in _UNKNOWN_SIZES and length > available:
                    return length, available
                return None
            offset += 8 + length + (length & 1)
    return None


def write_wav(path: Path, x: Audio, sr: int = SR) -> None:
    """16-bit PCM, as the rig records evidence."""
    sf.write(str(path), np.clip(x, -1.0, 1.0), sr, subtype="PCM_16")


TABLE_MIN_RATE = SR
"""The table checks need the band a 16 kHz microphone records (telephone audio lacks it)."""


def check_table_audio(path: Path) -> tuple[int, int]:
    """A table recording's (sample rate, channels), read from its header; a corrupt file, an
    empty one or a rate below 16 kHz (telephone audio lacks the band the checks use) is an
    :class:`AudioReadError` naming what is wrong and what is expected."""
    info = _table_header(path)
    return int(info.samplerate), int(info.channels)


def read_table_audio(path: Path) -> Audio:
    """A table recording as (samples, channels) at 16 kHz: :func:`check_table_audio`'s checks,
    then :func:`read_audio`'s on the header those read."""
    return _read(path, _table_header(path), mono=False)


def _table_header(path: Path) -> Any:
    """The header (``sf.info``) of a recording the table checks can hear, else the error."""
    try:
        info = sf.info(str(path))
    except UnicodeError as exc:  # a file name libsndfile cannot be given
        raise AudioReadError(f"{path!s}: cannot open a file of that name") from exc
    except (sf.LibsndfileError, RuntimeError, OSError) as exc:
        raise AudioReadError(f"{path}: cannot read audio ({exc})") from exc
    if info.samplerate < TABLE_MIN_RATE:
        raise AudioReadError(
            f"{path}: sample rate {info.samplerate} Hz; expected at least {TABLE_MIN_RATE} Hz "
            "(WAV or FLAC from the table's microphones)"
        )
    if info.frames == 0:
        raise AudioReadError(f"{path}: no audio samples")
    return info
