"""Seat attribution: one mic per seat, the loudest channel over the word's span wins."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from voice.audio_io import SR, Audio, write_wav
from voice.config import VoiceConfig
from voice.detect import Detection
from voice.head import OnnxHead
from voice.pipeline import CallPipeline
from voice.spot import spot_file

from .conftest import SPOTTER, place


def four_channels(x: Audio, loud: int, near: float = 1.0, far: float = 0.25) -> Audio:
    """The caller's own mic gets the call at ``near``, the other three at ``far``, later."""
    chans = []
    for c in range(4):
        delay = 0 if c == loud else int(0.004 * SR)
        y = np.concatenate([np.zeros(delay, np.float32), x[: len(x) - delay]])
        chans.append(y * (near if c == loud else far))
    return np.stack(chans, axis=1)


def test_seat_of_a_call_on_a_four_mic_rig(
    tmp_path: Path, spotter_head: OnnxHead, say: Callable[..., Audio]
) -> None:
    x = place([(1.0, say("peng4", "cmn-latn-pinyin") * 0.5)], 3.0, noise_db=-62)
    wav = tmp_path / "table.wav"
    write_wav(wav, four_channels(x, loud=2))
    calls = spot_file(wav, VoiceConfig(spotter_model=SPOTTER, seats=["E", "S", "W", "N"]))
    assert [(c.word, c.seat, c.channel) for c in calls] == [("pung", "W", 2)]
    assert abs(calls[0].t_start - 1.0) < 0.15


def test_single_microphone_reports_seat_unknown(
    tmp_path: Path, spotter_head: OnnxHead, say: Callable[..., Audio]
) -> None:
    wav = tmp_path / "mono.wav"
    write_wav(wav, place([(1.0, say("hu2", "cmn-latn-pinyin") * 0.5)], 3.0, noise_db=-62))
    calls = spot_file(wav, VoiceConfig(spotter_model=SPOTTER))
    assert [(c.word, c.seat) for c in calls] == [("win", None)]


class _Scripted:
    """A detector that reports what it is told, when the stream passes a sample."""

    def __init__(self, dets: list[Detection]) -> None:
        self.dets = dets
        self.n = 0

    def feed(self, x: Audio) -> list[Detection]:
        self.n += len(x)
        out = [d for d in self.dets if d.decided_at <= self.n]
        self.dets = [d for d in self.dets if d.decided_at > self.n]
        return out

    def flush(self) -> list[Detection]:
        return []


def _det(word: str, start: float, end: float) -> Detection:
    return Detection(
        word, "cmn", int(start * SR), int(end * SR), 0.9, "spotter", int((end + 0.2) * SR)
    )  # type: ignore[arg-type]


def test_simultaneous_calls_on_two_seats_are_both_reported() -> None:
    rng = np.random.default_rng(0)
    n = 3 * SR
    a = np.zeros((n, 4), np.float32)
    voice = rng.normal(0, 0.2, n).astype(np.float32)
    a[SR : 2 * SR, 0] = voice[SR : 2 * SR]  # East calls pung
    a[SR : 2 * SR, 1:] = 0.3 * voice[SR : 2 * SR, None]
    other = rng.normal(0, 0.2, SR).astype(np.float32)
    a[int(1.2 * SR) : int(2.2 * SR), 3] += other  # North calls kong at the same time
    a[int(1.2 * SR) : int(2.2 * SR), :3] += 0.3 * other[:, None]
    # Each caller's own mic hears only its own word; the two between them hear both.
    pung, kong = _det("pung", 1.0, 2.0), _det("kong", 1.2, 2.2)
    heard = [[pung], [pung, kong], [kong, pung], [kong]]
    pipe = CallPipeline([_Scripted(list(h)) for h in heard])
    calls = []
    for i in range(0, n, 1280):
        calls += pipe.feed(a[i : i + 1280])
    calls += pipe.flush()
    assert sorted((c.word, c.seat) for c in calls) == [("kong", "N"), ("pung", "E")]


def test_equal_levels_report_a_call_once() -> None:
    x = np.tile(np.random.default_rng(1).normal(0, 0.1, (2 * SR, 1)).astype(np.float32), (1, 2))
    pipe = CallPipeline([_Scripted([_det("win", 0.5, 1.0)]) for _ in range(2)], seats=["E", "S"])
    calls = []
    for i in range(0, len(x), 1280):
        calls += pipe.feed(x[i : i + 1280])
    assert [c.word for c in calls] == ["win"]
