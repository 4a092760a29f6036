"""`mjref simulate` / `mjref replay` and the text rendering."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee import sim_cli
from referee.game.render import render
from referee.game.sim import Simulator
from rig.cli import main


def _run(*argv: str) -> int:
    return main(list(argv))


@pytest.mark.parametrize("profile", ["wmc", "mcr"])
def test_simulate_then_replay_json(
    profile: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "g.jsonl"
    assert (
        _run("simulate", "--profile", profile, "--hands", "4", "--seed", "3", "--out", str(log))
        == 0
    )
    capsys.readouterr()
    assert _run("replay", str(log), "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands_played"] == 4 and data["alerts"] == [] and len(data["hands"]) == 4
    assert sum(data["scores"].values()) == 0


def test_replay_reports_a_malformed_line_and_replays_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "g.jsonl"
    _run("simulate", "--hands", "1", "--seed", "4", "--out", str(log))
    lines = log.read_text().splitlines()
    lines.insert(3, '{"broken": ')
    log.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert _run("replay", str(log)) == 1
    out = capsys.readouterr()
    assert "line 4" in out.err
    assert "hand 1" in out.out


def test_render_shows_walls_hands_rivers_and_turn() -> None:
    sim = Simulator("wmc", 2)
    for _ev, _ in zip(sim.run(1), range(40), strict=False):
        pass
    text = render(sim.table.state)
    assert "▶" in text and "river" in text and "live" in text
    assert render(sim.table.state, show_concealed=False).count("tiles]") == 4


def test_the_hand_written_example_in_events_md_replays() -> None:
    text = (Path(sim_cli.__file__).parent / "EVENTS.md").read_text(encoding="utf-8")
    block = text.split("## A complete hand, written by hand (unseen wall)\n```\n")[1]
    replayed = sim_cli.replay_lines(block.split("```")[0].splitlines())
    assert replayed.complete()
    (duty,) = replayed.duties
    state = duty.state
    assert state.alerts == [] and state.results[-1].winner_name == "Bo"
    assert sum(state.scores.values()) == 0
