"""Irregularities per rule ID through the event stream: alert, seat, severity, evidence and
the proposed penalty (a ledger proposal with a stable id)."""

from __future__ import annotations

from collections.abc import Callable

from duty_kit import Duty

from referee.events import DeadHand, Discard, TilesExposed, WallFlipped
from referee.hands import Wind
from referee.tiles import parse_tile

Deal = Callable[..., Duty]


def test_wmc_4_2_draw_out_of_turn_is_a_long_hand_that_may_not_claim(deal: Deal) -> None:
    d = deal()
    d.do("E discard P")
    step = d.do("W draw 1s")
    assert Duty.found(step) == [("WMC-4.2", "W"), ("WMC-10.1", "W")]
    assert [p["kind"] for p in Duty.proposals(step)] == ["no_claims"]
    assert Duty.proposals(step)[0]["id"] == f"WMC-10.1@{step.alerts[0].seq}:W"
    d.do("S draw 7s")
    d.do("S discard 7s")
    step = d.do("W pung")  # hypothetically holds 7s? no: a long hand may not claim at all
    assert Duty.found(step) == [("WMC-10.2", "W")] and step.alerts[0].rejected


def test_wmc_4_3_discard_before_drawing_is_a_short_hand_that_may_not_win(deal: Deal) -> None:
    d = deal()
    d.do("E discard P")
    step = d.do("S discard 2m")
    assert Duty.found(step) == [("WMC-4.3", "S"), ("WMC-10.1", "S")]
    assert step.alerts[1].severity == "critical"
    assert [p["kind"] for p in Duty.proposals(step)] == ["no_win"]
    d.do("W draw 1s")
    d.do("W discard 1s")
    d.do("N draw 5p")
    d.do("N discard 5p")  # S waits on 5p, but a short hand cannot win
    assert Duty.found(d.do("S win")) == [("WMC-11.6", "S")]  # shown, may not stand (10.2)


def test_wmc_4_6_discard_out_of_river_order(deal: Deal) -> None:
    d = deal()
    step = d.push(Discard(seat=Wind.E, tile=parse_tile("P"), index=3))
    assert Duty.found(step) == [("WMC-4.6", "E")] and step.alerts[0].severity == "warning"
    d.do("S draw 9s")
    step = d.push(Discard(seat=Wind.S, tile=parse_tile("9s"), area=Wind.W))
    assert Duty.found(step) == [("WMC-4.6", "S")]
    hand = d.ref.state.hand
    assert hand is not None and hand.seats[Wind.S].river[-1] == parse_tile("9s")


def test_wmc_4_9_the_next_wall_tile_flipped_on_ones_turn_is_a_live_penalty_tile(
    deal: Deal,
) -> None:
    d = deal()
    d.do("E discard P")
    step = d.push(WallFlipped(seat=Wind.N, tile=parse_tile("3s")))  # not N's turn: warning
    assert Duty.found(step) == [("WMC-4.9", "N")] and Duty.proposals(step)[0]["kind"] == "warning"
    step = d.push(WallFlipped(seat=Wind.S, tile=parse_tile("3s")))
    assert Duty.found(step) == [("WMC-4.9", "S")]
    assert Duty.proposals(step)[0]["kind"] == "penalty_tiles"
    hand = d.ref.state.hand
    assert hand is not None and hand.seats[Wind.S].penalty_live == [parse_tile("3s")]
    assert d.push(Discard(seat=Wind.S, tile=parse_tile("3s"), penalty=True)).accepted


def test_wmc_5_2_unspoken_claim_warning_then_point_penalty_when_repeated(deal: Deal) -> None:
    d = deal(W="678p123s789s22sPF")
    d.do("E discard P")
    d.do("S draw 7s")
    d.do("S discard 7s")
    first = d.do("N pung")
    assert Duty.found(first) == [("WMC-5.2", "N")]
    assert [(p["kind"], p["points"]) for p in Duty.proposals(first)] == [("warning", 0)]
    d.do("N discard 2p")
    d.do("E draw 2s")
    d.do("E discard 2s")
    second = d.do("W pung")  # W's pair of 2s — again unspoken
    assert Duty.found(second) == [("WMC-5.2", "W")]
    assert Duty.proposals(second)[0]["kind"] == "warning"  # counted per player: W's first


def test_wmc_5_2_repeated_by_the_same_player_proposes_points(deal: Deal) -> None:
    d = deal(N="55s66s77sCC2p9pEEE")
    d.do("E discard P")
    d.do("S draw 7s")
    d.do("S discard 7s")
    d.do("N pung")
    d.do("N discard 2p")
    d.do("E draw C")
    d.do("E discard C")
    step = d.do("N pung")
    assert [(p["kind"], p["points"]) for p in Duty.proposals(step)] == [("points", 10)]


def test_wmc_5_4_chow_from_a_non_left_player_withdrawn_at_once_is_wmc_11_1(
    deal: Deal,
) -> None:
    d2 = deal(N="55s66s77sCC4p6p9pEE")
    d2.do("E discard P")
    d2.do("S draw 9s")
    d2.do("S discard 5p")
    d2.do("N call chow")
    step = d2.do("N chow 456p")  # the record follows the table: it lies there until corrected
    assert Duty.found(step) == [("WMC-5.4", "N")] and not step.alerts[0].rejected
    assert step.alerts[0].severity == "violation" and Duty.proposals(step) == []
    chow = step.alerts[0].seq
    step = d2.do("N correct")  # withdrawn at once (WMC-11.1)
    assert Duty.found(step) == [("WMC-11.1", "N")] and step.alerts[0].evidence == (chow,)
    assert Duty.proposals(step)[0]["kind"] == "penalty_tiles"
    hand = d2.ref.state.hand
    assert hand is not None and sorted(hand.seats[Wind.N].penalty_live) == [
        parse_tile("4p"),
        parse_tile("6p"),
    ]
    assert hand.last_discard == (Wind.S, parse_tile("5p"))  # the discard lies again
    assert d2.do("W draw 1s").alerts == []  # play moves on: nothing more to find


def test_wmc_5_5_added_kong_shown_without_the_call(deal: Deal) -> None:
    # W holds no 9s: with E's and N's, the 9s N draws is the fourth (WMC-1.1)
    d = deal(N="99s55s66s3sCCC1pEE", E="123m456m789mESWN9s", W="678p123s788s22sFF")
    d.do("E discard 9s")
    d.do("N call pung")
    d.do("N pung")
    d.do("N discard 3s")
    for seat, tile in (("E", "1s"), ("S", "2p"), ("W", "4m")):
        d.do(f"{seat} draw {tile}")
        d.do(f"{seat} discard {tile}")
    d.do("N draw 9s")
    step = d.do("N kong added 9s")
    assert Duty.found(step) == [("WMC-5.5", "N")] and step.alerts[0].severity == "warning"


def test_wmc_5_5_replacement_drawn_before_the_kong_was_shown(deal: Deal) -> None:
    d = deal(E="1111m456m789mESWN")
    d.do("E call kong")
    step = d.do("E replacement 2m")
    assert Duty.found(step) == [("WMC-5.5", "E")]
    assert Duty.proposals(step)[0]["kind"] == "no_claims"  # may be ruled a long hand
    assert d.do("E kong concealed 1m").alerts == []
    assert d.do("E discard E").accepted


def test_wmc_5_7_a_chow_out_of_priority_is_refused(deal: Deal) -> None:
    d = deal(W="678p123s89s22sFFP")
    d.do("E discard P")
    d.do("S draw 7s")
    d.do("S discard 7s")
    d.do("N call pung")
    d.do("W call chow")
    step = d.do("W chow 789s")
    assert Duty.found(step) == [("WMC-5.7", "W")] and step.alerts[0].rejected
    assert d.do("N pung").accepted


def test_wmc_9_penalty_tiles_live_then_dead_and_never_in_a_set(deal: Deal) -> None:
    d = deal()
    step = d.push(TilesExposed(seat=Wind.N, tiles=(parse_tile("C"), parse_tile("9p"))))
    assert Duty.found(step) == [("WMC-9.1", "N")]
    d.do("E discard P")
    d.do("S draw 2s")
    d.do("S discard 2s")
    d.do("W draw 3p")
    d.do("W discard 3p")
    d.do("N draw 4s")
    assert d.push(Discard(seat=Wind.N, tile=parse_tile("9p"), penalty=True)).accepted  # live
    hand = d.ref.state.hand
    assert hand is not None and hand.seats[Wind.N].penalty_dead == [parse_tile("C")]  # 9.2
    d.do("E draw C")
    d.do("E discard C")
    assert d.do("N pung").accepted  # two concealed C: the dead penalty C is not needed
    d.do("N discard 4s")
    d.do("E draw 1p")
    d.do("E discard 1p")
    d.do("S draw 8m")
    d.do("S discard 8m")
    d.do("W draw 9m")
    d.do("W discard 9m")
    d.do("N draw 6p")
    step = d.push(Discard(seat=Wind.N, tile=parse_tile("C"), penalty=True))
    assert Duty.found(step) == [("WMC-9.2", "N")] and step.alerts[0].rejected


def test_wmc_9_5_a_pung_that_needs_a_penalty_tile_is_a_wrong_claim(deal: Deal) -> None:
    d = deal()
    d.push(TilesExposed(seat=Wind.N, tiles=(parse_tile("E"),)))
    d.do("E discard E")
    step = d.do("N pung")
    assert Duty.found(step) == [("WMC-9.5", "N")] and step.alerts[0].rejected


def test_wmc_10_2_referee_ruled_long_hand_may_not_kong(deal: Deal) -> None:
    d = deal(E="1111m456m789mESWN")
    d.push(DeadHand(seat=Wind.E, long=True, reason="replacement before the kong"))
    assert Duty.found(d.do("E kong concealed 1m")) == [("WMC-10.2", "E")]


def test_wmc_11_3_and_11_7_empty_claim_and_empty_win_cite_the_call(deal: Deal) -> None:
    d = deal()
    d.do("E discard P")
    d.do("W call pung")
    d.do("N call win")
    step = d.do("S draw 9s")
    assert Duty.found(step) == [("WMC-11.3", "W"), ("WMC-11.7", "N")]
    draw = step.alerts[0].seq
    assert [a.evidence for a in step.alerts] == [(draw - 2,), (draw - 1,)]
    assert {p["kind"] for p in Duty.proposals(step)} == {"penalty_tiles"}


def test_wmc_11_4_empty_kong_on_ones_own_turn_is_information_only(deal: Deal) -> None:
    d = deal()
    d.do("E call kong")
    step = d.do("E discard P")
    assert Duty.found(step) == [("WMC-11.4", "E")] and step.alerts[0].severity == "info"
    assert Duty.proposals(step) == []


def test_wmc_11_6_false_win_shown_hand_becomes_penalty_tiles(deal: Deal) -> None:
    d = deal()
    d.do("E discard P")
    d.do("S call win")
    step = d.do("S win")
    assert Duty.found(step) == [("WMC-11.6", "S")]
    assert Duty.proposals(step)[0]["kind"] == "penalty_tiles"
    hand = d.ref.state.hand
    assert hand is not None and len(hand.seats[Wind.S].penalty_live) == 13
    assert d.do("S draw 9s").accepted  # play continues
    assert d.push(Discard(seat=Wind.S, tile=parse_tile("2m"), penalty=True)).accepted
    assert hand.seats[Wind.S].penalty_dead and not hand.seats[Wind.S].penalty_live
