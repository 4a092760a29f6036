"""`mjref voice spot FILE... --json`: one line per file; unreadable files say "error"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rig.cli import main as mjref
from voice.audio_io import Audio, write_wav

from .conftest import place


def test_spot_json_shape_and_errors(
    tmp_path: Path,
    spotter_head: object,
    say: Callable[..., Audio],
    capsys: pytest.CaptureFixture[str],
) -> None:
    good = tmp_path / "call.wav"
    write_wav(good, place([(1.0, say("peng4", "cmn-latn-pinyin") * 0.5)], 3.0, noise_db=-62))
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"RIFF....not audio")
    quiet = tmp_path / "quiet.flac"
    write_wav(tmp_path / "q.wav", place([], 2.0))
    import soundfile as sf

    data, sr = sf.read(str(tmp_path / "q.wav"))
    sf.write(str(quiet), data, sr, format="FLAC")
    code = mjref(
        [
            "voice",
            "spot",
            "--json",
            str(good),
            str(broken),
            str(tmp_path / "missing.wav"),
            str(quiet),
        ]
    )
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 1  # some files failed, the rest were still reported
    assert [x["file"] for x in lines] == [
        str(good),
        str(broken),
        str(tmp_path / "missing.wav"),
        str(quiet),
    ]
    assert set(lines[0]) == {"file", "calls"}
    (call,) = lines[0]["calls"]
    assert set(call) == {"word", "lang", "start", "end", "conf"}
    assert call["word"] == "pung" and call["lang"] == "cmn"
    assert 0.85 < call["start"] < call["end"] < 2.5 and 0 < call["conf"] <= 1
    assert "error" in lines[1] and "error" in lines[2] and "calls" not in lines[1]
    assert lines[3] == {"file": str(quiet), "calls": []}


def test_corrupt_model_stops_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "m.onnx"
    bad.write_bytes(b"not a model")
    cfg = tmp_path / "voice.toml"
    cfg.write_text(f'[voice]\nspotter_model = "{bad}"\n')
    wav = tmp_path / "a.wav"
    write_wav(wav, place([], 1.0))
    assert mjref(["voice", "spot", "--config", str(cfg), str(wav)]) == 2
    assert "not a readable ONNX model" in capsys.readouterr().err


def test_bad_config_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "voice.toml"
    cfg.write_text('[voice]\nengine = "whisper"\n')
    assert mjref(["voice", "spot", "--config", str(cfg), "x.wav"]) == 2
    assert "engine" in capsys.readouterr().err


def test_devices_lists_without_a_sound_card(capsys: pytest.CaptureFixture[str]) -> None:
    code = mjref(["voice", "devices", "--json"])
    out = capsys.readouterr()
    assert code in (0, 1)
    if code == 0:
        assert isinstance(json.loads(out.out), list)
    else:
        assert "mjref voice" in out.err
