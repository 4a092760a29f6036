"""The claimer's microphone with the other seats' voices turned down, before the word spotter
hears it.

Each other seat's own microphone carries that seat's voice loud; the table's cross-talk
(:attr:`voice.seats.SeatActivity.leak`, learnt from stretches where one seat speaks alone)
says how much weaker the same voice reaches the claimer's microphone. So in every time-frequency
cell the power that the others' voices put into the claimer's channel is predicted from their
own channels, and what it explains is taken out (power subtraction with a floor). The delay
between two close microphones (0.3–3 ms) is far inside one 32 ms frame, so magnitudes line up
frame by frame. The claimer's own voice leaks into the others' microphones too, 20 dB or more
below itself after the round trip, so it is hardly touched.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from voice.audio_io import SR, Audio
from voice.seats import BANDS_HZ, SeatActivity

NFFT = 512
HOP = NFFT // 4  # a Hann window at a quarter hop sums to a constant: plain overlap-add
FLOOR = 0.1  # a cell the others explain wholly keeps this much of its amplitude (−20 dB)
F64 = npt.NDArray[np.float64]


def leak_gains(activity: SeatActivity, channel: int) -> dict[int, F64]:
    """Each other channel whose cross-talk into ``channel`` is known (measured in this window,
    or learnt by the session): its amplitude gain into ``channel`` per band of
    :data:`voice.seats.BANDS_HZ`, raw samples to raw samples (the leak is measured over each
    microphone's own floor, so the floors' difference is each band's gain difference)."""
    leak = activity.known_leak
    floors = activity.calibration.array()  # (bands, channels), dB
    gains = {}
    for source in range(leak.shape[0]):
        db = leak[source, channel]
        if source != channel and np.isfinite(db):
            gains[source] = 10 ** ((db + floors[:, channel] - floors[:, source]) / 20)
    return gains


def without_others(audio: Audio, channel: int, gains: dict[int, F64]) -> Audio:
    """``audio[:, channel]`` with the part the other channels' voices explain taken out
    (``gains``: :func:`leak_gains`)."""
    mono = audio[:, channel].astype(np.float64)
    if not gains or len(mono) < NFFT:
        return audio[:, channel].copy()
    pad = np.pad(mono, (NFFT, NFFT))
    window = np.hanning(NFFT + 1)[:NFFT]
    starts = np.arange(0, len(pad) - NFFT + 1, HOP)
    idx = starts[:, None] + np.arange(NFFT)[None, :]
    spec = np.fft.rfft(pad[idx] * window, axis=1)
    band = _band_of_bins()
    predicted = np.zeros(spec.shape)
    for source, gain in gains.items():
        other = np.pad(audio[:, source].astype(np.float64), (NFFT, NFFT))
        power = np.abs(np.fft.rfft(other[idx] * window, axis=1)) ** 2
        predicted += power * (gain[band] ** 2)[None, :]
    own = np.abs(spec) ** 2
    keep = np.sqrt(np.clip(1.0 - predicted / np.maximum(own, 1e-20), FLOOR**2, 1.0))
    frames = np.fft.irfft(spec * keep, n=NFFT, axis=1) * window
    out = np.zeros(len(pad))
    np.add.at(out, idx, frames)
    norm = np.zeros(len(pad))
    np.add.at(norm, idx, np.broadcast_to(window**2, idx.shape))
    restored = out / np.maximum(norm, 1e-9)
    clean: Audio = restored[NFFT : NFFT + len(mono)].astype(np.float32)
    return clean


def _band_of_bins() -> npt.NDArray[np.intp]:
    """The band whose gain each FFT bin takes: its own, else the nearest (below the first band's
    edge, the first; above the last's, the last)."""
    freqs = np.fft.rfftfreq(NFFT, 1 / SR)
    centres = np.array([(lo * hi) ** 0.5 for lo, hi in BANDS_HZ])
    nearest = np.abs(np.log(np.maximum(freqs, 1.0))[:, None] - np.log(centres)[None, :])
    band: npt.NDArray[np.intp] = nearest.argmin(axis=1)
    for b, (lo, hi) in enumerate(BANDS_HZ):
        band[(freqs >= lo) & (freqs < hi)] = b
    return band
