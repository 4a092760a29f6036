from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import soundfile as sf

from voice.audio_io import SR
from voice.clock import ManualClock
from voice.sources import FileSource, LiveSource, level_dbfs


def test_file_source_resamples_and_counts_samples(tmp_path: Path) -> None:
    t = np.arange(44100) / 44100
    stereo = np.stack([0.5 * np.sin(2 * np.pi * 440 * t), 0.1 * np.sin(2 * np.pi * 440 * t)], 1)
    path = tmp_path / "two.flac"
    sf.write(str(path), stereo, 44100, format="FLAC")
    src = FileSource(path)
    blocks = list(src)
    assert src.channels == 2
    assert [b.start for b in blocks[:3]] == [0, 1280, 2560]
    assert sum(len(b.data) for b in blocks) == SR
    left, right = level_dbfs(np.concatenate([b.data for b in blocks]))
    assert abs(left - (-9.0)) < 0.3 and abs(right - (-23.0)) < 0.3


def test_live_source_timestamps_dropouts_and_stall() -> None:
    clock = ManualClock(50.0)
    src = LiveSource(channels=2, clock=clock, stall_s=0.01)
    ok = SimpleNamespace(input_overflow=False)
    bad = SimpleNamespace(input_overflow=True)
    block = np.full((1280, 2), 0.1, np.float32)
    src._callback(block, 1280, None, ok)
    clock.advance(0.08)
    src._callback(block, 1280, None, bad)
    it = iter(src)
    first, second, third = next(it), next(it), next(it)
    assert src.t0 == 50.0 - 0.08  # the first sample's time, then counted samples
    assert (first.start, second.start) == (0, 1280) and not first.alerts
    assert [a.kind for a in second.alerts] == ["dropout"]
    assert second.alerts[0].t == src.t0 + 1280 / SR
    assert [a.kind for a in third.alerts] == ["stalled"] and len(third.data) == 0
    assert src.ring.written == 2560
    assert np.allclose(src.ring.read(0, 2560), 0.1)


def test_blocks_lost_to_a_slow_consumer_are_an_alert_and_keep_time() -> None:
    src = LiveSource(channels=1, clock=ManualClock(0.0))
    src._q = type(src._q)(maxsize=2)  # a consumer that falls behind after two blocks
    ok = SimpleNamespace(input_overflow=False)
    block = np.zeros((1280, 1), np.float32)
    for _ in range(4):  # blocks 3 and 4 find the queue full
        src._callback(block, 1280, None, ok)
    it = iter(src)
    assert [(b.start, b.alerts) for b in (next(it), next(it))] == [(0, []), (1280, [])]
    src._callback(block, 1280, None, ok)
    late = next(it)
    assert late.start == 4 * 1280  # sample numbers skip what was lost: timestamps stay true
    assert [a.kind for a in late.alerts] == ["dropout"] and "2560 samples" in late.alerts[0].detail
    assert src.dropouts == 1 and src.ring.written == 5 * 1280  # the evidence ring has it all
