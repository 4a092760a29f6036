"""Acoustic augmentation: a table is a reverberant room with tile clatter, a shuffling machine
and chatter, and a microphone at any distance; the spotter must hear calls through all of it.
"""

from __future__ import annotations

import numpy as np

from voice.audio_io import SR, Audio


def rir(rng: np.random.Generator, rt60: float) -> Audio:
    """A synthetic room impulse response: direct path + exponentially decaying noise tail."""
    n = int(SR * rt60)
    t = np.arange(n) / SR
    tail = rng.standard_normal(n) * np.exp(-6.9 * t / rt60) * rng.uniform(0.1, 0.5)
    tail[: int(0.003 * SR)] = 0.0
    tail[0] = 1.0
    result: Audio = (tail / np.sqrt(np.sum(tail**2))).astype(np.float32)
    return result


def reverb(x: Audio, rng: np.random.Generator) -> Audio:
    h = rir(rng, float(rng.uniform(0.15, 0.7)))
    n = len(x) + len(h) - 1
    y = np.fft.irfft(np.fft.rfft(x, n) * np.fft.rfft(h, n), n)[: len(x)]
    return y.astype(np.float32)


def _colored(rng: np.random.Generator, n: int, slope: float) -> Audio:
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.maximum(np.arange(len(spec)), 1.0)
    y = np.fft.irfft(spec / f ** (slope / 2), n)
    return (y / (np.std(y) + 1e-9)).astype(np.float32)


def clatter(rng: np.random.Generator, n: int) -> Audio:
    """Tiles knocking: short bright clicks at random times."""
    y = np.zeros(n, dtype=np.float32)
    for _ in range(int(rng.integers(1, 4 + n // SR * 6))):
        k = int(rng.integers(0, max(1, n - 400)))
        ln = int(rng.integers(80, 400))
        burst = rng.standard_normal(ln) * np.exp(-np.arange(ln) / rng.uniform(15, 80))
        y[k : k + ln] += (burst * rng.uniform(0.3, 1.0)).astype(np.float32)[: n - k]
    return y / (np.std(y) + 1e-9)


def shuffler(rng: np.random.Generator, n: int) -> Audio:
    """The automatic table's motor: a low hum with harmonics over rumble."""
    t = np.arange(n) / SR
    f0 = rng.uniform(40, 120)
    hum = sum(np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 6)) / k for k in range(1, 5))
    y = hum + 0.7 * _colored(rng, n, 2.0)
    return (y / (np.std(y) + 1e-9)).astype(np.float32)


def noise_bed(rng: np.random.Generator, n: int, babble: list[Audio] | None = None) -> Audio:
    """A unit-RMS mixture of table noises (and far-off chatter when given)."""
    kinds = [_colored(rng, n, float(rng.uniform(0, 2))), clatter(rng, n), shuffler(rng, n)]
    w = rng.dirichlet(np.ones(len(kinds)))
    y = sum(wi * k for wi, k in zip(w, kinds, strict=True))
    if babble:
        b = np.zeros(n, dtype=np.float32)
        for _ in range(int(rng.integers(1, 4))):
            s = babble[int(rng.integers(len(babble)))]
            k = int(rng.integers(-len(s) // 2, max(1, n - len(s) // 2)))
            lo, hi = max(0, k), min(n, k + len(s))
            if hi > lo:
                b[lo:hi] += s[lo - k : hi - k]
        y = y + float(rng.uniform(0.3, 1.5)) * b / (np.std(b) + 1e-9)
    result: Audio = (y / (np.std(y) + 1e-9)).astype(np.float32)
    return result


def speed(x: Audio, factor: float) -> Audio:
    """Tempo and pitch together (a different vocal tract length, roughly)."""
    n = int(len(x) / factor)
    return np.interp(np.linspace(0, len(x) - 1, n), np.arange(len(x)), x).astype(np.float32)


def rms(x: Audio) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)) + 1e-12))


def mix_at_snr(speech: Audio, noise: Audio, snr_db: float) -> Audio:
    act = speech[np.abs(speech) > 0.05 * np.abs(speech).max()] if len(speech) else speech
    s = rms(act) if len(act) else rms(speech)
    return (speech + noise * (s / 10 ** (snr_db / 20)) / (rms(noise) + 1e-9)).astype(np.float32)
