"""`mjref demo-terminal` referees a simulated table end to end, leaving a replayable log and a
card."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.sim_cli import replay_lines
from rig.cli import main


def test_demo_writes_a_log_that_replays_and_a_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "demo-terminal",
                "--hands",
                "3",
                "--seed",
                "7",
                "--rate",
                "0.05",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "[WMC-" in out and "hand 3:" in out
    replayed = replay_lines((tmp_path / "game.jsonl").read_text().splitlines())
    assert replayed.errors == []
    (duty,) = replayed.duties
    totals = "  ".join(f"{p} {v:+d}" for p, v in duty.totals().items())
    assert f"totals: {totals}" in out
    assert (tmp_path / "card.html").read_text().startswith("<!doctype html>")


def test_demo_refuses_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for bad in (["--hands", "0"], ["--rate", "1.5"], ["--rate", "nan"]):
        with pytest.raises(SystemExit) as stop:
            main(["demo-terminal", *bad, "--out", str(tmp_path)])
        assert stop.value.code == 2
    assert "--hands: 0: expected an integer from 1 to 1000" in capsys.readouterr().err


def test_demo_says_when_its_output_folder_cannot_be_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("x")
    assert main(["demo-terminal", "--hands", "1", "--out", str(tmp_path / "file" / "demo")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mjref demo-terminal: cannot write ") and "Not a directory" in err
