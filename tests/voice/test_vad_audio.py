from __future__ import annotations

import numpy as np

from voice.audio_io import SR, resample
from voice.ring import RingBuffer
from voice.vad import EnergyGate


def _burst(seconds: float, freq: float = 300.0, level: float = 0.2) -> np.ndarray:
    t = np.arange(int(seconds * SR)) / SR
    return (level * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def test_gate_times_a_burst_and_ignores_silence() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(0, 1e-3, 3 * SR).astype(np.float32)
    x[SR : SR + SR // 2] += _burst(0.5)
    gate = EnergyGate()
    segs = []
    for i in range(0, len(x), 1000):  # odd block size on purpose
        segs += gate.feed(x[i : i + 1000])
    assert len(segs) == 1
    assert abs(segs[0].start - SR) <= 0.02 * SR
    assert abs(segs[0].end - 1.5 * SR) <= 0.02 * SR
    assert segs[0].closed - segs[0].end <= 0.11 * SR  # hangover keeps latency low


def test_gate_learns_a_steady_motor_as_background() -> None:
    t = np.arange(8 * SR) / SR
    motor = (0.05 * np.sin(2 * np.pi * 60 * t)).astype(np.float32)
    segs = EnergyGate().feed(motor)
    assert sum(s.end - s.start for s in segs) < 3 * SR  # not speech for ever


def test_resample_keeps_a_tone() -> None:
    t = np.arange(44100) / 44100
    x = np.sin(2 * np.pi * 1000 * t).astype(np.float32)[:, None]
    y = resample(x, 44100)
    assert y.shape == (SR, 1)
    spec = np.abs(np.fft.rfft(y[:, 0]))
    assert abs(int(spec.argmax()) - 1000) <= 1


def test_ring_buffer_keeps_the_last_seconds() -> None:
    ring = RingBuffer(1.0, 2)
    x = np.arange(3 * SR * 2, dtype=np.float32).reshape(-1, 2)
    for i in range(0, len(x), 1000):
        ring.write(x[i : i + 1000])
    assert ring.written == 3 * SR
    got = ring.read(3 * SR - 100, 3 * SR)
    assert np.array_equal(got, x[-100:])
