"""Reading, resampling and writing audio: everything inside runs at 16 kHz float32 in [-1, 1]."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import soundfile as sf

SR = 16000
Audio = npt.NDArray[np.float32]


class AudioReadError(OSError):
    """A file that is not readable audio."""


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
    """A file as (samples, channels) at 16 kHz; ``mono`` averages the channels to (samples,)."""
    try:
        data, sr = sf.read(str(path), dtype="float32", always_2d=True)
    except (sf.LibsndfileError, RuntimeError, OSError) as exc:
        raise AudioReadError(f"{path}: cannot read audio ({exc})") from exc
    out = resample(np.asarray(data, dtype=np.float32), int(sr))
    if mono:
        mono_out: Audio = out.mean(axis=1).astype(np.float32)
        return mono_out
    return out


def write_wav(path: Path, x: Audio, sr: int = SR) -> None:
    """16-bit PCM, as the rig records evidence."""
    sf.write(str(path), np.clip(x, -1.0, 1.0), sr, subtype="PCM_16")


MIN_RATE = 16000


def read_table_audio(path: Path) -> Audio:
    """A table recording as (samples, channels) at 16 kHz; a corrupt file or a rate below
    16 kHz (telephone audio lacks the band the checks use) is an :class:`AudioReadError`."""
    try:
        info = sf.info(str(path))
    except (sf.LibsndfileError, RuntimeError, OSError) as exc:
        raise AudioReadError(f"{path}: cannot read audio ({exc})") from exc
    if info.samplerate < MIN_RATE:
        raise AudioReadError(
            f"{path}: sample rate {info.samplerate} Hz; expected at least {MIN_RATE} Hz "
            "(WAV or FLAC from the table's microphones)"
        )
    if info.frames == 0:
        raise AudioReadError(f"{path}: no audio samples")
    return read_audio(path)
