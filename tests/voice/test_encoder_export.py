"""Reading a CTranslate2 Whisper model.bin, whole or in the pieces PyPI's size limit makes."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from voice.encoder_export import read_ct2


def _variable(name: str, arr: np.ndarray, dtype_id: int) -> bytes:
    raw = name.encode() + b"\0"
    data = arr.tobytes()
    return (
        struct.pack("<H", len(raw))
        + raw
        + struct.pack("<B", arr.ndim)
        + struct.pack(f"<{arr.ndim}I", *arr.shape)
        + struct.pack("<B", dtype_id)
        + struct.pack("<I", len(data))
        + data
    )


def _model_bin(version: int = 6) -> tuple[bytes, dict[str, np.ndarray]]:
    rng = np.random.default_rng(0)
    conv = rng.normal(size=(8, 4, 3)).astype(np.float16)
    gamma = rng.normal(size=(8,)).astype(np.float32)
    spec = b"WhisperSpec\0"
    blob = (
        struct.pack("<I", version)
        + struct.pack("<H", len(spec))
        + spec
        + struct.pack("<I", 3)  # spec revision
        + struct.pack("<I", 3)
        + _variable("encoder/conv1/weight", conv, 4)
        + _variable("decoder/embeddings/weight", rng.normal(size=(5, 8)).astype(np.float32), 0)
        + _variable("encoder/layer_norm/gamma", gamma, 0)
    )
    return blob, {"conv1/weight": conv.astype(np.float32), "layer_norm/gamma": gamma}


def test_whole_file_and_its_parts_read_the_same(tmp_path: Path) -> None:
    blob, want = _model_bin()
    whole = tmp_path / "model.bin"
    whole.write_bytes(blob)
    cut = len(blob) // 2 + 3  # inside a tensor, as a size-limited split falls
    (tmp_path / "model.bin.part1").write_bytes(blob[:cut])
    (tmp_path / "model.bin.part2").write_bytes(blob[cut:])

    for got in (
        read_ct2([whole]),
        read_ct2([tmp_path / "model.bin.part1", tmp_path / "model.bin.part2"]),
    ):
        assert set(got) == set(want)  # the decoder is not read
        for key, arr in want.items():
            assert got[key].dtype == np.float32
            np.testing.assert_array_equal(got[key], arr)


def test_a_missing_or_misordered_part_is_named(tmp_path: Path) -> None:
    blob, _ = _model_bin()
    cut = len(blob) // 2
    first, second = tmp_path / "model.bin.part1", tmp_path / "model.bin.part2"
    first.write_bytes(blob[:cut])
    second.write_bytes(blob[cut:])
    with pytest.raises(ValueError, match="are all the parts given, in order"):
        read_ct2([first])
    with pytest.raises(ValueError, match="model format"):
        read_ct2([second, first])


def test_another_format_version_is_refused(tmp_path: Path) -> None:
    blob, _ = _model_bin(version=5)
    path = tmp_path / "model.bin"
    path.write_bytes(blob)
    with pytest.raises(ValueError, match="model format 5, expected 6"):
        read_ct2([path])
