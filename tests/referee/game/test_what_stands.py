"""WMC-0.4: an irregular action that happened stands — applied, its consequence ruled and cited —
and play goes on from where the table is. Each test plays "the action happened, play went on":
the record's tile counts stay the table's (read from the events alone), the ruling cites the
rule, and no later legal event is refused. The independent checker's D7, D8 and D9 (issue 32)."""

from __future__ import annotations

from script_kit import HANDS, play, rules

from referee.events import TilesExposed
from referee.game.racks import RackCount
from referee.game.script import Script
from referee.game.state import HandState, Phase
from referee.hands import Wind
from referee.tiles import parse_tile


def started(**hands: str) -> Script:
    s = Script()
    assert s.start(**{**HANDS, **hands}).accepted
    return s


def hand_of(s: Script) -> HandState:
    hand = s.table.state.hand
    assert hand is not None
    return hand


def counts_agree(s: Script) -> None:
    """Every seat's count in the record is the table's, event by event."""
    racks = RackCount()
    replay = Script()
    for ev in s.events:
        replay.table.apply(ev)
        racks.apply(ev)
        assert racks.parted(replay.table.state.hand) == [], (ev.seq, ev.type, racks.counts)


def test_d7_a_concealed_kong_then_a_discard_without_the_replacement_is_a_short_hand() -> None:
    """嚴禁「先打後摸」: the discard stands (WMC-4.3), East is a tile short — a dead hand
    (WMC-10.1) — the replacement stays in the kong end, and the next players play on."""
    s = started(E="1111m456m789mESWN")
    play(s, "E call kong", "E kong concealed 1m")
    step = s.do("E discard E")
    assert rules(step) == ["WMC-4.3", "WMC-10.1"] and not any(a.rejected for a in step.alerts)
    assert "kong's replacement" in step.alerts[0].message
    hand = hand_of(s)
    assert hand.seats[Wind.E].dead == "short" and hand.turn is Wind.S
    assert hand.phase is Phase.WINDOW and hand.wall.tail == 0  # nothing drawn from the kong end
    play(s, "S draw 9s", "S discard 9s", "W draw 1s", "W discard 1s", "N draw 3s", "N discard 3s")
    play(s, "E draw 3m", "E discard 3m", "S draw 4s")  # the short hand plays on, cannot win
    counts_agree(s)


def test_d7_an_added_kong_then_a_discard_closes_the_robbing_and_plays_on() -> None:
    s = started(E="123m456m789mESWN9s", N="99s55s66s3sCCC1pEE", W="678p123s78s22sFFP")
    play(s, "E discard 9s", "N call pung", "N pung", "N discard 3s", "E draw 1s", "E discard 1s")
    play(s, "S draw 2p", "S discard 2p", "W draw 4m", "W discard 4m", "N draw 9s", "N call kong")
    play(s, "N kong added 9s")
    step = s.do("N discard C")
    assert rules(step) == ["WMC-4.3", "WMC-10.1"] and not any(a.rejected for a in step.alerts)
    hand = hand_of(s)
    assert hand.robbable is None and hand.seats[Wind.N].dead == "short" and hand.turn is Wind.E
    play(s, "E draw 2s", "E discard 2s", "S draw 3p", "S discard 3p")
    counts_agree(s)


def test_the_kongs_replacement_taken_from_the_live_wall_stands_with_a_warning() -> None:
    """WMC-4.9: the wrong tile drawn stands; the count is right, so no dead hand."""
    s = started(E="1111m456m789mESWN")
    play(s, "E call kong", "E kong concealed 1m")
    head = hand_of(s).wall.head
    step = s.do("E draw 2m")
    assert [(a.rule, a.severity.value, a.rejected) for a in step.alerts] == [
        ("WMC-4.9", "warning", False)
    ]
    hand = hand_of(s)
    assert hand.wall.head == head + 1 and hand.wall.tail == 0 and not hand.seats[Wind.E].dead
    play(s, "E discard E", "S draw 9s", "S discard 9s", "W draw 1s")
    counts_agree(s)


def test_d8_a_discard_before_the_previous_player_drew_is_a_short_hand_and_play_resumes() -> None:
    """W discards while S is still to draw: W is a tile short (WMC-4.3, 10.1); S is still on
    turn, and East's discard is still the one that may be claimed."""
    s = started()
    play(s, "E discard P")
    step = s.do("W discard 1s")
    assert rules(step) == ["WMC-4.3", "WMC-10.1"] and not any(a.rejected for a in step.alerts)
    assert "out of turn" in step.alerts[0].message
    hand = hand_of(s)
    assert hand.seats[Wind.W].dead == "short" and hand.seats[Wind.W].size == 12
    assert hand.turn is Wind.S and hand.last_discard == (Wind.E, parse_tile("P"))
    assert hand.seats[Wind.W].river == [parse_tile("1s")]
    play(s, "S draw 9s", "S discard 9s", "W draw 4p", "W discard 4p", "N draw 3s")
    counts_agree(s)


def test_d8_a_discard_during_easts_turn_leaves_east_on_turn() -> None:
    s = started()
    step = s.do("S discard 5p")
    assert rules(step) == ["WMC-4.3", "WMC-10.1"] and not any(a.rejected for a in step.alerts)
    assert hand_of(s).turn is Wind.E and hand_of(s).phase is Phase.DISCARD
    play(s, "E discard P", "S draw 9s", "S discard 9s", "W draw 1s")
    counts_agree(s)


def test_d9_seven_pairs_pairing_a_penalty_tile_on_a_discard_cites_wmc_9_4() -> None:
    """WMC-9.4 is the rule for Seven Pairs (9.3 is the sets'): the win is a wrong claim (9.5),
    a false win, and play goes on."""
    s = started(S="11m33m55m77p99p88s4s")
    play(s, "E discard P")
    assert rules(s.push(TilesExposed(seat=Wind.S, tiles=(parse_tile("4s"),)))) == ["WMC-9.1"]
    play(s, "S draw 9s", "S discard 9s", "W draw 4s", "W discard 4s", "S call win")
    step = s.do("S win")
    [alert] = step.alerts
    assert (alert.rule, alert.rejected) == ("WMC-9.5", False)
    assert "WMC-9.4" in alert.message and "WMC-9.3" not in alert.message
    play(s, "N draw 3s")
