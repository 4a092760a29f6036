"""The table heard before play (voice.table_check, `mjref rig --check --hear-table`): each seat's
cross-talk into the other microphones learnt from the players saying a call in turn, saved for
the voice worker, and a session started from it decides a claim that its first minutes alone
could not."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from rig.cli import main as mjref
from voice.audio_io import SR, Audio, write_wav
from voice.events import Seat
from voice.live import TableListener
from voice.scene import Scene, tile_clack
from voice.table_check import AcousticsError, hear_table, load, save
from voice.verify import Claim

SEATS: list[Seat | None] = ["E", "S", "W", "N"]


def _turns(
    say: Callable[..., Audio],
    rng: np.random.Generator,
    *,
    quiet: int | None = None,
    leak_db: tuple[float, float] | None = None,
) -> Scene:
    """20 s: tiles laid now and then, and each player saying their seat and a call alone (all
    but ``quiet``)."""
    scene = Scene(20, rng, leak_db=leak_db, delay_ms=None if leak_db is None else (1.0, 1.0))
    for t in np.arange(0.5, 19.5, 1.7):
        scene.add(int(rng.integers(4)), tile_clack(rng), float(t), -26)
    for seat, name in enumerate(["dong1", "nan2", "xi1", "bei3"]):
        if seat != quiet:  # "I sit East: pung", N more softly
            words = say(f"wo3 zuo4 {name}, peng4", "cmn-latn-pinyin")
            scene.add(seat, words, 2.0 + 4.5 * seat, -18 if seat == 3 else -14)
    return scene


def test_the_check_learns_how_far_each_voice_reaches_the_other_microphones(
    say: Callable[..., Audio], tmp_path: Path
) -> None:
    scene = _turns(say, np.random.default_rng(5))
    heard = hear_table(scene.render(), SEATS)
    assert heard.unheard() == []
    leak = heard.acoustics.leak
    assert leak is not None
    for s in range(4):
        for d in range(4):
            if s != d:  # never quieter than it is (cross-talk would pass for the seat's own)
                assert scene.leak_db[s, d] - 1.0 <= leak[s, d] <= scene.leak_db[s, d] + 6.0
    lines = heard.lines()
    assert len(lines) == 4 and lines[1].startswith("S (channel 2): voice ")
    save(tmp_path / "acoustics.json", heard)
    back = load(tmp_path / "acoustics.json", SEATS)
    assert back.leak is not None and back.voice is not None
    assert np.allclose(np.nan_to_num(back.leak), np.nan_to_num(leak), atol=0.01)


def test_a_seat_not_heard_alone_is_named(say: Callable[..., Audio]) -> None:
    heard = hear_table(_turns(say, np.random.default_rng(6), quiet=2).render(), SEATS)
    assert heard.unheard() == ["W (channel 3)"]
    assert heard.lines()[2] == "W (channel 3): not heard alone; ask this player to say a call again"


def test_a_bad_acoustics_file_says_what_is_wrong(tmp_path: Path) -> None:
    path = tmp_path / "acoustics.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(AcousticsError, match="not readable as table acoustics"):
        load(path, SEATS)
    good = {"format": "mjref-table-acoustics/1", "seats": SEATS, "leak_db": [[None] * 4] * 4}
    path.write_text(json.dumps(good | {"voice_db": [[1.0, 2.0]]}), encoding="utf-8")
    with pytest.raises(AcousticsError, match="voice_db must be 4 rows of 4 numbers"):
        load(path, SEATS)
    with pytest.raises(AcousticsError, match=r"the rig's face \['N', 'E', 'S', 'W'\]"):
        load(path, ["N", "E", "S", "W"])
    with pytest.raises(AcousticsError, match="2 channel"):
        hear_table(np.zeros((SR, 2), np.float32), SEATS)


@pytest.mark.slow
def test_a_session_started_from_the_check_decides_its_first_claim(
    say: Callable[..., Audio], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Early in the session nobody has called yet; S and E talk loudly through N's claim window
    and N says nothing. Without knowing how loud N speaks, the window cannot tell whether a call
    of N's would have risen over their cross-talk (unsure); the table heard before play can: an
    unspoken claim, and whose voice was heard."""
    rng = np.random.default_rng(7)
    table = _turns(say, rng, leak_db=(9.0, 9.0))  # a table whose cross-talk is loud
    check = tmp_path / "check.wav"
    write_wav(check, table.render())
    cfg = tmp_path / "table.toml"
    cfg.write_text(
        f'[voice]\nfile = "{check}"\nchannels = 4\nseats = ["E", "S", "W", "N"]\n'
        'acoustics = "heard.json"\n',
        encoding="utf-8",
    )
    assert mjref(["rig", "--config", str(cfg), "--check", "--hear-table", "20"]) == 0
    out = capsys.readouterr().out
    assert "each player in turn (E S W N), alone: your seat and a call" in out
    assert f"saved {tmp_path / 'heard.json'}" in out and "FAIL" not in out
    acoustics = load(tmp_path / "heard.json", SEATS)

    play = Scene(30, np.random.default_rng(8))  # the same table: its microphones and voices
    play.leak_db, play.delay, play.gain = table.leak_db, table.delay, table.gain
    for t in np.arange(0.7, 29.5, 1.9):
        play.add(int(rng.integers(4)), tile_clack(rng), float(t), -26)
    talk = say("wo3 ting1 pai2 le, kuai4 dian3, zai4 lai2 yi1 ju2 ba, hao3 de", "cmn-latn-pinyin")
    play.add(1, np.concatenate([talk, talk]), 14.6, -6)  # S and E talk loudly over N's window
    more = say("ni3 kan4 zhe4 zhang1 pai2, zhen1 de hen3 hao3 a, dui4 bu4 dui4", "cmn-latn-pinyin")
    play.add(0, np.concatenate([more, more]), 14.2, -6)
    x = play.render()
    claim = Claim("5", "N", "pung", 15.0, 16.5, discarder="E")

    def verdict(listener: TableListener) -> dict[str, object]:
        out = listener.request(claim)
        for i in range(0, len(x), 1280):
            out += listener.feed(x[i : i + 1280])
        [v] = [m["verdict"] for m in out + listener.finish() if "verdict" in m]
        return dict(v)

    v = verdict(TableListener(SEATS, calibrate_s=10, acoustics=acoustics))
    assert (v["spoken"], v["rule"]) == (False, "WMC-5.2") and v["seat_heard"] in ("S", "E")
    assert verdict(TableListener(SEATS, calibrate_s=10))["spoken"] is None  # without the check


@pytest.mark.slow
def test_the_voice_worker_says_when_the_checks_file_cannot_be_used(tmp_path: Path) -> None:
    """A broken file costs the head start, not the session: told once, and the table heard."""
    audio = tmp_path / "table.wav"
    write_wav(audio, Scene(3, np.random.default_rng(9)).render())
    bad = tmp_path / "acoustics.json"
    bad.write_text('{"format": "something else"}', encoding="utf-8")
    run = subprocess.run(
        [
            *(sys.executable, "-m", "rig.voice_worker", "--file", str(audio), "--channels", "4"),
            *("--seats", "E", "S", "W", "N", "--verify", "--calibrate-s", "1"),
            *("--acoustics", str(bad)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    alerts = [m["alert"] for m in lines if "alert" in m]
    assert alerts == [
        {
            "kind": "bad_acoustics",
            "detail": f"{bad}: not a table acoustics file (expected format "
            "mjref-table-acoustics/1)",
        }
    ]
    assert any("calibrated" in m for m in lines) and "end" in lines[-1]
