"""A hand nobody can see into: the wall and the deal face down, every draw face down, tiles known
only once shown (a discard, a meld, a kong, the winner's hand). The engine rules every check when
its evidence becomes visible, and a hidden record gives the results of its full twin."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from script_kit import play, rules

from referee.game.script import Script
from referee.game.seen import TABLE_KNOWS, as_seen
from referee.game.sim import simulate
from referee.game.state import HandResult
from referee.game.table import Table
from referee.hands import Wind
from referee.logread import read_log_file
from referee.tiles import parse_tile
from rig.cli import main


def outcome(r: HandResult, *, tile: bool = True) -> tuple[object, ...]:
    """A hand's result; ``tile=False`` leaves out the winning tile (unseen when self-drawn)."""
    won = r.win_tile if tile else None
    return (r.outcome, r.winner, r.win_by, r.discarder, won, r.value, r.deltas, r.flags)


def replay(events: list) -> tuple[Table, list]:  # type: ignore[type-arg]
    table = Table()
    refused = []
    for ev in events:
        refused += [(ev.seq, ev.type, a.message) for a in table.apply(ev).alerts if a.rejected]
    return table, refused


@pytest.mark.parametrize(
    ("profile", "seeds", "drawn_apart"),
    [
        ("wmc", range(100), True),
        ("wmc", range(40), False),
        ("zj33", range(30), True),
        ("mcr", range(30), True),
    ],
)
@pytest.mark.slow
def test_hidden_record_gives_the_results_of_its_full_twin(
    profile: str, seeds: range, drawn_apart: bool
) -> None:
    kinds: Counter[str] = Counter()
    robbed = hands = 0
    for seed in seeds:
        full = simulate(profile, 8, seed=seed)
        seen = as_seen(full, drawn_apart=drawn_apart)
        assert not any(
            getattr(ev.payload, "tiles", None) for ev in seen if ev.type in ("wall_built",)
        )
        assert all(getattr(ev.payload, "tile", None) is None for ev in seen if ev.type == "draw")
        truth, _ = replay(full)
        hidden, refused = replay(seen)
        assert refused == [], (seed, refused[:3])  # no legal event of a hidden record is refused
        assert [outcome(r, tile=drawn_apart) for r in hidden.state.results] == [
            outcome(r, tile=drawn_apart) for r in truth.state.results
        ], seed
        assert hidden.state.scores == truth.state.scores
        kinds.update(str(ev.payload.kind) for ev in full if ev.type == "kong")  # type: ignore[attr-defined]
        robbed += sum("robbing_kong" in r.flags for r in truth.state.results)
        hands += len(truth.state.results)
    assert hands == 8 * len(seeds)
    assert {"exposed", "added", "concealed"} <= set(kinds)  # the corpus has every kind of kong
    if profile == "wmc" and drawn_apart:
        assert robbed >= 1  # and a robbed kong


def test_a_hidden_deal_holds_counts_and_a_face_down_draw_adds_one_unseen_tile() -> None:
    s = Script()
    s.start()
    seats = s.table.state.hand.seats  # type: ignore[union-attr]
    assert [(sum(x.counts), x.hidden) for x in seats] == [(0, 14), (0, 13), (0, 13), (0, 13)]
    play(s, "E discard 1m", "S draw")
    assert seats[0].hidden == 13 and seats[1].hidden == 14
    assert s.table.state.hand.to_dict()["seats"]["S"]["hidden"] == 14  # type: ignore[union-attr]


def test_a_fifth_visible_copy_cannot_come_out_of_a_hand() -> None:
    s = Script()
    s.start()
    play(s, "E discard 1m", "S draw", "S discard 1m", "W draw", "W discard 1m", "N draw")
    play(s, "N discard 1m", "E draw")
    step = s.do("E discard 1m")
    assert rules(step) == ["WMC-1.1"] and not step.accepted
    assert "all 4 copies are in sight" in step.alerts[0].message


def test_an_exposure_needs_the_tiles_no_count_of_the_visible_ones_denies() -> None:
    s = Script()
    s.start()
    play(s, "E discard 5p", "S draw", "S discard 5p", "W draw", "W discard 5p")
    # North would need two more 5p: with three in sight, at most one can be in his rack.
    s.do("N call pung")
    step = s.do("N pung")
    assert rules(step) == ["WMC-1.1"] and not step.accepted
    assert rules(s.do("N draw")) == ["WMC-11.3"]  # the call was not made good
    # A chow of what may still be in the rack stands, and its tiles are seen from now on.
    play(s, "N discard 7p")
    s.do("E call chow")
    step = s.do("E chow 678p")
    assert step.accepted
    assert s.table.state.hand.seats[0].hidden == 14 - 1 - 2  # type: ignore[union-attr]


def test_a_concealed_kong_is_checked_when_its_tiles_are_shown() -> None:
    s = Script()
    s.start()
    play(s, "E discard 3s", "S draw", "S discard 9m", "W draw", "W discard 9m", "N draw")
    play(s, "N discard 1p", "E draw", "E call kong")
    assert not s.do("E kong concealed 9m").accepted  # two 9m lie in the rivers
    play(s, "E kong concealed 8m", "E replacement", "E discard 8s")
    assert s.table.state.hand.seats[0].hidden == 14 - 1 + 1 - 4 + 1 - 1  # type: ignore[union-attr]


WINNER = "234m567m789p99s55p"  # South's 13 concealed tiles: waits on 5p or 9s


def test_a_win_is_ruled_when_the_hand_is_shown() -> None:
    s = Script()
    s.start()
    play(s, "E discard 5p", "S call win")
    step = s.do("S win")
    assert step.accepted and not step.alerts and not s.table.state.results  # waits for the hand
    step = s.do(f"S reveal {WINNER}5p")
    assert [d.type for d in step.derived] == ["hand_scored", "hand_ended"]
    res = s.table.state.results[-1]
    assert (res.winner, res.discarder, res.win_tile) == (Wind.S, Wind.E, parse_tile("5p"))


def test_the_winners_own_discards_cannot_be_in_the_hand_shown() -> None:
    s = Script()
    s.start()
    play(s, "E discard 9s", "S draw", "S discard 9s", "W draw", "W discard 9s", "N draw")
    play(s, "N discard 2p", "E draw", "E discard 5p", "S call win", "S win")
    step = s.do(f"S reveal {WINNER}5p")
    assert "WMC-1.1" in rules(step)
    found = next(a for a in step.alerts if a.rule == "WMC-1.1")
    assert "2 9s with 3 in sight" in found.message and found.seat is Wind.S


def test_a_false_win_shown_at_the_reveal_becomes_penalty_tiles_and_play_goes_on() -> None:
    s = Script()
    s.start()
    play(s, "E discard 5p", "S call win", "S win")
    step = s.do("S reveal 134m567m789p99s55p5p")
    win = s.events[-2]
    assert rules(step) == ["WMC-11.6"] and step.alerts[0].seq == win.seq  # cites the win
    south = s.table.state.hand.seats[1]  # type: ignore[union-attr]
    assert len(south.penalty_live) == 13 and south.hidden == 0
    assert not s.table.state.results
    play(s, "S draw")  # the discard was not taken: South is next to draw


def test_a_reveal_of_the_wrong_count_is_said_and_the_win_is_false() -> None:
    s = Script()
    s.start()
    play(s, "E discard 5p", "S call win", "S win")
    step = s.do("S reveal 567m789p99s55p5p")
    assert rules(step) == ["WMC-7.4", "WMC-11.6"]


@pytest.mark.parametrize("then", ["S draw", "end"])
def test_a_win_whose_hand_is_never_shown_is_told(then: str) -> None:
    s = Script()
    s.start()
    play(s, "E discard 5p", "W call win", "W win")
    step = s.table.end_of_log() if then == "end" else s.do(then)
    assert "WMC-7.4" in rules(step)
    told = next(a for a in step.alerts if a.rule == "WMC-7.4")
    assert told.seat is Wind.W and told.severity == "critical" and not told.rejected


def test_a_self_drawn_win_unnamed_counts_the_drawn_tile_that_scores_most() -> None:
    s = Script()
    s.start()
    play(s, "E discard 1m", "S draw", "S call win", "S win")
    step = s.do(f"S reveal {WINNER}9s")
    assert [d.type for d in step.derived] == ["hand_scored", "hand_ended"]
    res = s.table.state.results[-1]
    assert str(res.win_by) == "self" and res.winner is Wind.S


def test_the_deal_and_the_rack_counts_are_checked_from_the_camera() -> None:
    s = Script()
    step = s.start(counts={"E": 14, "S": 12, "W": 13, "N": 13})
    assert rules(step) == ["WMC-3.5"] and step.alerts[0].seat is Wind.S
    play(s, "E discard 1m", "W rack 13", "S rack 12")  # as the record says: nothing to tell
    step = s.do("W rack 14")  # a tile went into West's rack unseen: a long hand
    assert rules(step) == ["WMC-10.1"] and s.table.state.hand.seats[2].dead == "long"  # type: ignore[union-attr]
    play(s, "S draw")
    step = s.do("S discard 2m")  # still one short at his first discard: a dead hand
    assert rules(step) == ["WMC-10.1"] and step.alerts[0].evidence == (5,)


def test_what_the_tiles_in_sight_decide_is_ruled_when_the_win_is_declared() -> None:
    s = Script()
    s.start()
    play(s, "E discard 5p")
    step = s.do("E win")  # his own discard lies: nothing he may win on, hand shown or not
    assert rules(step) == ["WMC-5.1"] and not step.accepted
    assert s.table.state.hand.pending_win is None  # type: ignore[union-attr]
    assert rules(s.do("S win on draw")) == ["WMC-7.2"]  # not his turn: not self-drawn


def test_a_hand_shown_without_the_tile_it_wins_on_is_refused_and_the_win_waits() -> None:
    s = Script()
    s.start()
    play(s, "E discard 5p", "S call win", "S win")
    step = s.do("S reveal 234m567m789p999s11s")  # 14 tiles, no 5p: no hand of a win on 5p
    assert rules(step) == ["WMC-7.4"] and not step.accepted
    assert s.table.state.hand.pending_win is not None  # type: ignore[union-attr]
    step = s.do(f"S reveal {WINNER}5p")
    assert [d.type for d in step.derived] == ["hand_scored", "hand_ended"]


def test_simulate_writes_what_the_sensors_see_and_what_a_rig_is_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full, seen, setup = (tmp_path / f"{v}.jsonl" for v in ("full", "seen", "setup"))
    for view, out in (("full", full), ("seen", seen), ("setup", setup)):
        args = ["simulate", "--hands", "3", "--seed", "4", "--view", view, "--out", str(out)]
        assert main(args) == 0
    told = read_log_file(setup).sessions[0].events
    assert {e.type for e in told} == set(TABLE_KNOWS)
    assert [e.seq for e in told] == list(range(len(told)))  # a log of its own, no gap
    assert sum(e.type == "wall_built" for e in told) == 3
    assert all(e.payload.tiles is None for e in told if e.type == "wall_built")  # type: ignore[attr-defined]
    capsys.readouterr()
    assert main(["replay", str(full), "--json"]) == 0
    truth = json.loads(capsys.readouterr().out)
    assert main(["replay", str(seen), "--json"]) == 0
    hidden = json.loads(capsys.readouterr().out)
    assert hidden["hands"] == truth["hands"] and hidden["scores"] == truth["scores"]
