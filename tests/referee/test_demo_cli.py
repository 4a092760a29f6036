"""`mjref demo` referees a simulated table end to end and leaves a replayable log and a card."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.sim_cli import replay_lines
from rig.cli import main


def test_demo_writes_a_log_that_replays_and_a_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["demo", "--hands", "3", "--seed", "7", "--rate", "0.05", "--out", str(tmp_path)]) == 0
    )
    out = capsys.readouterr().out
    assert "[WMC-" in out and "hand 3:" in out
    replayed = replay_lines((tmp_path / "game.jsonl").read_text().splitlines())
    assert replayed.errors == []
    (duty,) = replayed.duties
    totals = "  ".join(f"{p} {v:+d}" for p, v in duty.totals().items())
    assert f"totals: {totals}" in out
    assert (tmp_path / "card.html").read_text().startswith("<!doctype html>")


def test_demo_refuses_bad_arguments(tmp_path: Path) -> None:
    assert main(["demo", "--hands", "0", "--out", str(tmp_path)]) == 2
