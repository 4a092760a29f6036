"""A tournament's seating for all rounds (dashboard.seating, #35): every player once a round at
a table of four, no pair twice where the rounds allow it, the winds evened out, team-mates apart,
fixed tables kept, the same seed the same seating, and a hand-made seating checked."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from dashboard.seating import Player, Seating, SeatingError, make_seating, read_seating
from rig.cli import main as mjref


def _players(n: int, **kw: object) -> list[Player]:
    return [Player(f"P{i:02d}", **kw) for i in range(n)]  # type: ignore[arg-type]


def _every_player_once_a_round(seating: Seating, players: list[Player]) -> None:
    for round_ in seating.rounds:
        seated = [p for table in round_ for p in table]
        assert sorted(seated) == sorted(p.id for p in players)
        assert all(len(table) == 4 for table in round_)


@pytest.mark.parametrize("n,rounds", [(16, 5), pytest.param(36, 7, marks=pytest.mark.slow)])
def test_nobody_meets_anyone_twice_and_the_winds_are_even(n: int, rounds: int) -> None:
    players = _players(n)
    seating = make_seating(players, rounds, seed=7)
    assert len(seating.rounds) == rounds
    _every_player_once_a_round(seating, players)
    assert max(seating.meetings().values()) == 1 and seating.repeats() == 0
    assert seating.wind_spread() <= 1  # 5 or 7 rounds over 4 winds: 2/1/1/1 at worst
    again = make_seating(players, rounds, seed=7)
    assert again == seating  # seeded: the same seating
    assert make_seating(players, rounds, seed=8) != seating


def test_more_rounds_than_a_seating_without_repeats_allows_spreads_the_repeats() -> None:
    seating = make_seating(_players(16), 6, seed=1)  # 16 players meet all 15 others by round 5
    assert seating.repeats() == 6 * 4 * 6 - 120  # each pair once, then as few again as can be
    assert max(seating.meetings().values()) == 2
    assert seating.wind_spread() <= 1


@pytest.mark.slow
def test_team_mates_sit_apart_when_asked() -> None:
    players = [Player(f"P{i:02d}", team=f"T{i // 4}") for i in range(36)]  # 9 teams of 4
    seating = make_seating(players, 7, seed=3, teams_apart=True)
    team = {p.id: p.team for p in players}
    for round_ in seating.rounds:
        for table in round_:
            assert len({team[p] for p in table}) == 4, table
    assert seating.repeats() == 0
    together = make_seating(players, 7, seed=3)  # not asked: nothing keeps them apart
    assert any(len({team[p] for p in t}) < 4 for r in together.rounds for t in r)


def test_a_fixed_table_is_kept_every_round() -> None:
    players = [Player(f"P{i:02d}", table=3 if i == 5 else None) for i in range(16)]
    seating = make_seating(players, 5, seed=2)
    assert all("P05" in round_[2] for round_ in seating.rounds)
    assert seating.repeats() == 0


def test_players_that_cannot_be_seated_are_told_why() -> None:
    with pytest.raises(SeatingError, match="18 players: a tournament seats tables of four"):
        make_seating(_players(18), 3)
    with pytest.raises(SeatingError, match="players listed twice: P01"):
        make_seating([*_players(7), Player("P01")], 3)
    with pytest.raises(SeatingError, match="fixed table 5: the tables are 1 to 4"):
        make_seating([Player("X", table=5), *_players(15)], 3)
    with pytest.raises(SeatingError, match="fixed table 1 is asked for by 5 players"):
        make_seating([*_players(5, table=1), *[Player(f"Q{i}") for i in range(11)]], 3)


def test_a_hand_made_seating_is_read_and_checked() -> None:
    players = _players(16)
    made = make_seating(players, 3, seed=4)
    assert read_seating(made.to_csv(), players) == made
    lines = made.to_csv().splitlines()
    first = lines[1].split(",")  # round 1, table 1
    lines[1] = ",".join([*first[:2], first[3], first[3], *first[4:]])  # a player twice
    lines.append("3,5,P00,P01,P02,Nobody")
    with pytest.raises(SeatingError) as told:
        read_seating("\n".join(lines), players)
    problems = told.value.problems
    assert f"round 1: seated twice: {first[3]}" in problems
    assert f"round 1: not seated: {first[2]}" in problems
    assert "line 14: 'Nobody' is not a player of the tournament" in problems
    assert "round 3: seated twice: P00, P01, P02" in problems
    fixed = [Player(p.id, table=2 if p.id == first[2] else None) for p in players]
    with pytest.raises(SeatingError, match=f"{first[2]} has fixed table 2, not 1"):
        read_seating(made.to_csv(), fixed)
    with pytest.raises(SeatingError, match="header: round,table,E,S,W,N"):
        read_seating("a,b\n", players)
    assert Counter(len(r) for r in made.rounds) == Counter({4: 3})


def test_the_seating_command_makes_and_checks_a_seating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    players = tmp_path / "players.csv"
    players.write_text(
        "id,team,table\n"
        + "".join(f"P{i:02d},T{i // 4},{'2' if i == 3 else ''}\n" for i in range(16)),
        encoding="utf-8",
    )
    out = tmp_path / "seating.csv"
    argv = ["seating", str(players), "--rounds", "5", "--out", str(out)]
    assert mjref(argv) == 0
    assert "16 players, 5 rounds: no pair meets twice" in capsys.readouterr().err
    rows = out.read_text(encoding="utf-8").splitlines()
    assert rows[0] == "round,table,E,S,W,N" and len(rows) == 1 + 5 * 4
    assert all("P03" in r for r in rows[1:] if r.split(",")[1] == "2")  # the fixed table
    assert mjref(["seating", str(players), "--check", str(out)]) == 0
    out.write_text(rows[0] + "\n" + "\n".join(rows[2:]) + "\n", encoding="utf-8")  # table lost
    assert mjref(["seating", str(players), "--check", str(out)]) == 2
    err = capsys.readouterr().err
    assert "mjref seating: round 1: not seated: " in err and "tables must be numbered" in err
    assert mjref(["seating", str(players)]) == 2
    assert "give --rounds N to make a seating, or --check" in capsys.readouterr().err
