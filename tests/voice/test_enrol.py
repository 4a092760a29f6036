"""Enrolment workflow: record takes → profile → the spotter adapts to that player."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from rig.cli import main as mjref
from voice.audio_io import Audio, write_wav
from voice.encoder import SpeechEncoder
from voice.enrol import EnrolError, Profile, build_profile

from .conftest import SPOTTER, place


@pytest.mark.slow
def test_player_house_word_is_learnt(
    tmp_path: Path,
    spotter_head: object,
    say: Callable[..., Audio],
    capsys: pytest.CaptureFixture[str],
) -> None:
    # This player says "bingo" for a win: the shipped head has never heard it.
    takes = tmp_path / "takes"
    takes.mkdir()
    for k, (speed, pitch) in enumerate([(0.9, 45), (1.0, 50), (1.1, 55)]):
        take = place([(0.5, say("bingo", "en-us", "m3", speed, pitch) * 0.5)], 2.0, noise_db=-62)
        write_wav(takes / f"win_{k}.wav", take)  # recorded at the table: the room's own noise
    profiles = tmp_path / "profiles"
    assert (
        mjref(
            [
                "voice",
                "enrol",
                "--player",
                "alice",
                "--lang",
                "en",
                "--from-dir",
                str(takes),
                "--profiles",
                str(profiles),
            ]
        )
        == 0
    )
    prof = Profile.load(profiles, "alice")
    assert len(prof.windows) >= 3 and set(prof.labels.tolist()) == {14}  # en:win

    test = tmp_path / "test.wav"
    write_wav(test, place([(1.0, say("bingo", "en-us", "m3", 0.85, 60) * 0.5)], 3.0, noise_db=-62))
    other = tmp_path / "other.wav"
    write_wav(other, place([(1.0, say("hello there", "en-us", "m3") * 0.5)], 3.0, noise_db=-62))
    cfg = tmp_path / "voice.toml"
    cfg.write_text(f'[voice]\nspotter_model = "{SPOTTER}"\nprofiles_dir = "{profiles}"\n')
    capsys.readouterr()
    mjref(["voice", "spot", "--json", "--config", str(cfg), str(test)])
    before = json.loads(capsys.readouterr().out)["calls"]
    assert "win" not in [c["word"] for c in before]
    mjref(
        [
            "voice",
            "spot",
            "--json",
            "--config",
            str(cfg),
            "--players",
            "alice",
            str(test),
            str(other),
        ]
    )
    after = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [c["word"] for c in after[0]["calls"]] == ["win"]
    assert after[1]["calls"] == []


def test_bad_player_name_and_missing_profile(tmp_path: Path) -> None:
    with pytest.raises(EnrolError, match="player name"):
        Profile.load(tmp_path, "../etc")
    with pytest.raises(EnrolError, match="no voice profile for 'bob'"):
        Profile.load(tmp_path, "bob")


def test_silent_take_is_refused(encoder: SpeechEncoder) -> None:
    with pytest.raises(EnrolError, match="no speech"):
        build_profile(encoder, "carol", [(1, np.zeros(16000, np.float32))])
