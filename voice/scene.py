"""A table's four microphones, made: sounds placed at a seat reach every mic — the own mic
directly, the others later, quieter and duller (cross-talk) — over a diffuse hall noise, with the
mics' gains mismatched. Used by the table-audio bench and the tests (made signals with known
answers), never by the product.
"""

from __future__ import annotations

import numpy as np

from voice.audio_io import SR, Audio

SEAT_INDEX = {"E": 0, "S": 1, "W": 2, "N": 3}


def tile_clack(rng: np.random.Generator) -> Audio:
    """A tile laid down: a bright click decaying in ~10 ms, unit peak."""
    n = int(0.06 * SR)
    t = np.arange(n)
    y = rng.standard_normal(n) * np.exp(-t / rng.uniform(40, 90))
    y += 0.6 * np.sin(2 * np.pi * rng.uniform(2500, 4500) * t / SR) * np.exp(-t / 60)
    clack: Audio = (y / np.abs(y).max()).astype(np.float32)
    return clack


def ring_tone(rng: np.random.Generator, rings: int = 3) -> Audio:
    """A phone: a two-tone warble (or a tone pair) 1–1.5 s on, 1.5–2.5 s off, ``rings`` times;
    unit peak."""
    on, off = rng.uniform(1.0, 1.5), rng.uniform(1.5, 2.5)
    f1 = rng.uniform(700, 1500)
    f2 = f1 * rng.uniform(1.15, 1.4)
    warble = rng.uniform(12, 25)
    t = np.arange(int(on * SR)) / SR
    sel = (np.sin(2 * np.pi * warble * t) > 0) if rng.random() < 0.5 else np.zeros(len(t), bool)
    tone = np.where(sel, np.sin(2 * np.pi * f2 * t), np.sin(2 * np.pi * f1 * t))
    if not sel.any():
        tone = 0.5 * (tone + np.sin(2 * np.pi * f2 * t))
    ramp = np.minimum(1.0, np.minimum(t, t[::-1]) / 0.01)
    burst = (tone * ramp).astype(np.float32)
    gap = np.zeros(int(off * SR), np.float32)
    out = np.concatenate([np.concatenate([burst, gap]) for _ in range(rings)])
    ring: Audio = (out / float(np.abs(out).max())).astype(np.float32)
    return ring


def _colored(rng: np.random.Generator, n: int, slope: float) -> Audio:
    m = 1 << max(1, (n - 1).bit_length())  # a power of two: a long FFT of any other is slow
    spec = np.fft.rfft(rng.standard_normal(m).astype(np.float32))
    f = np.maximum(np.arange(len(spec)), 1.0) / len(spec) * 100
    y = np.fft.irfft(spec / np.maximum(f, 0.05) ** (slope / 2), m)[:n]
    return (y / (np.std(y) + 1e-9)).astype(np.float32)


def _hum(rng: np.random.Generator, n: int) -> Audio:
    """An automatic table's motor: a low hum with harmonics over rumble."""
    t = np.arange(n) / SR
    f0 = rng.uniform(40, 120)
    hum = sum(np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 6)) / k for k in range(1, 5))
    y = hum + 0.7 * _colored(rng, n, 2.0)
    return (y / (np.std(y) + 1e-9)).astype(np.float32)


def _dull(x: Audio) -> Audio:
    """A short low-pass: the far mic hears the voice off-axis, with less treble."""
    k = np.array([0.1, 0.2, 0.4, 0.2, 0.1], np.float32)
    return np.convolve(x, k, mode="same").astype(np.float32)


class Scene:
    """Four channels (E, S, W, N mics) of ``seconds`` of audio."""

    def __init__(
        self,
        seconds: float,
        rng: np.random.Generator,
        *,
        noise_db: float = -55.0,
        gain_spread_db: float = 5.0,
        channels: int = 4,
        leak_db: tuple[float, float] | None = None,
        delay_ms: tuple[float, float] | None = None,
    ) -> None:
        """``leak_db`` / ``delay_ms``: cross-talk from each seat to each other mic drawn from
        these ranges (dB down, ms late) for every pair; by default the next seats' mics hear a
        voice 8–12 dB down and 3 ms late, the opposite one's 12–16 dB and 4.5 ms."""
        self.n = int(seconds * SR)
        self.rng = rng
        self.channels = channels
        self.gain = 10 ** (rng.uniform(-gain_spread_db, gain_spread_db, channels) / 20)
        self.x = np.zeros((self.n, channels), np.float32)
        # Cross-talk: gain (dB) and delay (samples) from seat s to mic c.
        self.leak_db = np.zeros((channels, channels))
        self.delay = np.zeros((channels, channels), int)
        for s in range(channels):
            for c in range(channels):
                if s == c:
                    continue
                far = (s - c) % 4 == 2
                if leak_db is not None:
                    self.leak_db[s, c] = -rng.uniform(*leak_db)
                else:
                    self.leak_db[s, c] = rng.uniform(-16, -12) if far else rng.uniform(-12, -8)
                if delay_ms is not None:
                    self.delay[s, c] = int(rng.uniform(*delay_ms) / 1000 * SR)
                else:
                    self.delay[s, c] = int((0.0045 if far else 0.003) * SR + rng.integers(0, 8))
        # The hall: the same kind of noise at every mic (its colour, a shuffler's hum, the
        # swell of far-off voices), each mic its own draw of it.
        slope = float(rng.uniform(0.8, 1.6))
        hum = _hum(rng, self.n) * 0.3
        swell = 1.0 + 0.4 * np.sin(2 * np.pi * rng.uniform(0.05, 0.3) * np.arange(self.n) / SR)
        for c in range(channels):
            bed = _colored(rng, self.n, slope) * swell + hum
            self.x[:, c] += (bed / np.std(bed) * 10 ** (noise_db / 20)).astype(np.float32)

    def add(self, seat: int, clip: Audio, t: float, level_db: float) -> None:
        """``clip`` at seat ``seat``'s mic at ``t`` s, peak ``level_db`` dBFS there."""
        peak = float(np.abs(clip).max()) + 1e-9
        own = clip * (10 ** (level_db / 20) / peak)
        dull = _dull(own)
        for c in range(self.channels):
            src = own if c == seat else dull * 10 ** (self.leak_db[seat, c] / 20)
            k = int(t * SR) + int(self.delay[seat, c])
            if k >= self.n or k < 0:
                continue
            m = min(len(src), self.n - k)
            self.x[k : k + m, c] += src[:m]

    def render(self) -> Audio:
        out: Audio = np.clip(self.x * self.gain[None, :], -1.0, 1.0).astype(np.float32)
        return out
