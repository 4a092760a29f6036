from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from voice.audio_io import SR
from voice.detect import SpotterDetector
from voice.encoder import SpeechEncoder
from voice.head import OnnxHead, SpotterModelError

from .conftest import place


def _run(det: SpotterDetector, x: np.ndarray) -> list[str]:
    words = []
    for i in range(0, len(x), 1280):
        words += [d.word for d in det.feed(x[i : i + 1280])]
    return words + [d.word for d in det.flush()]


def test_corrupt_model_file_gives_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "voice_spotter.onnx"
    bad.write_bytes(b"\x08\x07garbage, not protobuf" * 10)
    with pytest.raises(SpotterModelError, match=r"voice_spotter.onnx: not a readable ONNX model"):
        OnnxHead(bad)


def test_missing_model_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(SpotterModelError, match="spotter model not found"):
        OnnxHead(tmp_path / "nope.onnx")


def test_onnx_without_spotter_metadata_is_refused(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    g = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "other",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    path = tmp_path / "other.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    with pytest.raises(SpotterModelError, match="lacks spotter metadata"):
        OnnxHead(path)


@pytest.mark.parametrize(
    ("text", "voice", "word"),
    [
        ("peng4", "cmn-latn-pinyin", "pung"),
        ("ロン", "ja", "win"),
        ("zi6 mo1", "yue-Latn-jyutping", "selfdraw"),
    ],
)
def test_spotter_hears_a_synthesised_call(
    spotter_head: OnnxHead,
    encoder: SpeechEncoder,
    say: Callable[..., np.ndarray],
    text: str,
    voice: str,
    word: str,
) -> None:
    x = place([(1.2, say(text, voice, variant="m3") * 0.5)], 3.5, noise_db=-60)
    assert _run(SpotterDetector(spotter_head, encoder), x) == [word]


def test_spotter_silent_on_silence_and_clatter(
    spotter_head: OnnxHead, encoder: SpeechEncoder
) -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(0, 1e-3, 6 * SR).astype(np.float32)
    for k in rng.integers(SR, 6 * SR - 400, 20):
        x[k : k + 400] += rng.normal(0, 0.2, 400).astype(np.float32) * np.exp(-np.arange(400) / 40)
    assert _run(SpotterDetector(spotter_head, encoder), x) == []


def test_head_for_another_encoder_is_refused(encoder: SpeechEncoder) -> None:
    from voice.head import HeadMeta, NumpyHead

    old = NumpyHead([], HeadMeta(window=16, dim=96))  # a head made for the old 16 × 96 front end
    with pytest.raises(
        ValueError, match=r"head takes 16 × 96 features, the encoder gives 25 × 384"
    ):
        SpotterDetector(old, encoder)
