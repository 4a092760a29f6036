"""The engine, rule by rule, on hand-written games (referee.game.script)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from script_kit import HANDS, rules
from script_kit import play as ok

from referee.game import shapes
from referee.game.script import Script
from referee.game.state import Phase
from referee.hands import Wind, WinningHand
from referee.scoring.result import ScoreResult

E_5P = "123m456m789mESWN5p"
E_C = "123m456m789mESWNC"


def flat_scorer(value: int) -> Callable[[WinningHand, str], ScoreResult]:
    """Valid for every winning shape, worth ``value``: isolates payments from patterns."""

    def score(hand: WinningHand, profile: str) -> ScoreResult:
        counts = [0] * 42
        for t in hand.concealed_with_win:
            counts[t] += 1
        ok = shapes.is_complete(counts, len(hand.melds))
        return ScoreResult(profile, ok, value if ok else 0, reason=None if ok else "no shape")

    return score


def started(value: int | None = None, **hands: str) -> Script:
    """The HANDS dealt (with overrides); the real WMC scorer unless a pinned ``value`` is given
    (only for tests about payments of that value)."""
    script = Script(scorer=flat_scorer(value) if value is not None else None)
    step = script.start(**{**HANDS, **hands})
    assert step.accepted, step.alerts
    return script


# ---- turns (WMC-4.x) ----------------------------------------------------------------------


def test_wmc_4_1_east_discards_first_and_turns_go_counter_clockwise() -> None:
    s = started()
    ok(s, "E discard P", "S draw 9s", "S discard 9s", "W draw 1s")
    assert s.table.state.hand is not None and s.table.state.hand.turn is Wind.W


def test_wmc_4_2_a_draw_out_of_turn_stands_and_makes_a_long_hand() -> None:
    s = started()
    ok(s, "E discard P")
    step = s.do("W draw 1s")  # the tile is in W's hand now: the record follows the table
    assert rules(step) == ["WMC-4.2", "WMC-10.1"] and not any(a.rejected for a in step.alerts)
    hand = s.table.state.hand
    assert hand is not None and hand.seats[Wind.W].dead == "long" and hand.turn is Wind.S
    ok(s, "S draw 9s")
    assert rules(s.do("S draw 8s")) == ["WMC-4.2", "WMC-10.1"]  # a second draw


def test_wmc_4_3_a_discard_before_drawing_stands_and_makes_a_short_hand() -> None:
    s = started()
    ok(s, "E discard P")
    assert rules(s.do("S discard 5p")) == ["WMC-4.3", "WMC-10.1"]
    hand = s.table.state.hand
    assert hand is not None and hand.seats[Wind.S].dead == "short" and hand.turn is Wind.W


def test_wmc_4_4_claims_end_once_the_next_player_drew_and_merged() -> None:
    s = started()
    ok(s, "E discard P", "S draw 9s", "S discard 9s", "W draw 1s")
    step = s.do("N pung")  # 9s is N's? no: claims on S's 9s after W drew → refused
    assert rules(step) == ["WMC-4.4"]


def test_wmc_4_4_an_unmerged_draw_goes_back_for_a_pung() -> None:
    s = started()
    ok(s, "E discard P", "S draw 7s", "S discard 7s")
    ok(s, "W draw 1s unmerged", "N call pung")
    step = s.do("N pung")
    assert step.accepted
    assert [d.type for d in step.derived] == ["draw_recalled"]
    hand = s.table.state.hand
    assert (
        hand is not None and hand.turn is Wind.N and hand.seats[Wind.W].counts[18] == 1
    )  # only his own 1s


def test_a_misread_discard_is_corrected_while_it_is_the_last_thing_that_happened() -> None:
    s = started()
    ok(s, "E discard P", "S draw 7s", "S discard 7s", "S misread 5p")
    hand = s.table.state.hand
    assert hand is not None and hand.last_discard == (Wind.S, 13)  # 5p
    me = hand.seats[Wind.S]
    assert me.river == [13] and me.counts[13] == 0 and me.counts[24] == 1  # 7s back in hand
    ok(s, "W call chow", "W chow 567p")
    refused = s.do("S misread 7s")  # play went on past S's discard: the record stands
    assert rules(refused) == ["SYS-record"] and not refused.accepted


def test_a_discard_is_not_corrected_to_a_tile_the_seat_does_not_hold() -> None:
    s = started()
    ok(s, "E discard P", "S draw 7s", "S discard 7s")
    step = s.do("S misread 9s")
    assert rules(step) == ["WMC-10.1"] and not step.accepted
    hand = s.table.state.hand
    assert hand is not None and hand.last_discard == (Wind.S, 24)
    assert hand.seats[Wind.S].counts[24] == 0  # state unchanged


# ---- claims and priority (WMC-5.x) --------------------------------------------------------


def test_wmc_5_2_an_unspoken_claim_is_flagged() -> None:
    s = started()
    ok(s, "E discard P", "S draw 7s", "S discard 7s")
    step = s.do("N pung")
    assert rules(step) == ["WMC-5.2"] and step.accepted


def test_wmc_5_4_chow_only_from_the_left_player() -> None:
    s = started()
    ok(s, "E discard P", "S draw 4s", "S discard 4s", "W call chow", "W chow 234s")
    s2 = started()
    ok(s2, "E discard P", "S draw 9s", "S discard 5p")  # N sits opposite S: no chow
    assert rules(s2.do("N chow 345p")) == ["WMC-5.4"]


def test_wmc_5_7_pung_outranks_chow() -> None:
    s = started(W="678p123s89s22sFFP")
    ok(s, "E discard P", "S draw 7s", "S discard 7s")
    ok(s, "W call chow", "N call pung")
    step = s.do("W chow 789s")
    assert rules(step) == ["WMC-5.7"] and not step.accepted
    ok(s, "N pung")


def test_wmc_5_7_win_outranks_pung() -> None:
    s = started(E=E_5P, N="55p66s77sCCC2p9pEE")
    ok(s, "E discard 5p", "N call pung", "S call win")
    assert rules(s.do("N pung")) == ["WMC-5.7"]
    assert s.do("S win").accepted
    assert s.table.state.results[-1].winner is Wind.S


def test_wmc_5_7_win_priority_1a_before_1b() -> None:
    s = started(E=E_5P, W="234p678p789s111s5p")  # S and W both wait on 5p
    ok(s, "E discard 5p", "W call win", "S call win")
    assert rules(s.do("W win")) == ["WMC-5.7"]  # S is East's next player: 1a
    assert s.do("S win").accepted


# ---- kongs (WMC-5.5, 5.6) -----------------------------------------------------------------


def test_wmc_5_5_concealed_kong_replacement_and_timing() -> None:
    s = started(E="1111m456m789mESWN")
    ok(s, "E call kong", "E kong concealed 1m", "E replacement 2m", "E discard E")
    hand = s.table.state.hand
    assert hand is not None and hand.wall.tail == 1 and hand.wall.live == 136 - 53 - 14 - 1


def test_wmc_5_5_no_concealed_kong_right_after_a_pung() -> None:
    s = started(E=E_C, N="5555s66s77sCC2p9pE")
    ok(s, "E discard C", "N call pung", "N pung")
    assert rules(s.do("N kong concealed 5s")) == ["WMC-5.5"]
    ok(s, "N discard 2p", "E draw 1s", "E discard 1s")


ROB = {"E": "123m456m789mESWN9s", "W": "678p123s78s22sFFP", "N": "99s55s66s3sCCC1pEE"}


def _to_added_kong(s: Script) -> None:
    ok(s, "E discard 9s", "N call pung", "N pung", "N discard 3s", "E draw 1s", "E discard 1s")
    ok(s, "S draw 2p", "S discard 2p", "W draw 4m", "W discard 4m", "N draw 9s", "N call kong")
    ok(s, "N kong added 9s")


def test_wmc_5_6_robbing_the_kong_is_a_win_on_a_discard_paid_by_the_konger() -> None:
    s = started(value=40, S="234m567m111p55p78s", **ROB)
    _to_added_kong(s)
    hand = s.table.state.hand
    assert hand is not None and hand.phase is Phase.REPLACE and hand.robbable is not None
    ok(s, "S call win", "S win")
    res = s.table.state.results[-1]
    assert res.discarder is Wind.N and "robbing_kong" in res.flags
    assert res.deltas == {Wind.E: -30, Wind.S: 120, Wind.W: -30, Wind.N: -60}
    assert s.table.state.hand is not None and s.table.state.hand.tiles_accounted() == 136


def test_wmc_5_6_a_false_robbing_win_is_refused_and_the_kong_stands() -> None:
    s = started(**ROB)
    _to_added_kong(s)
    assert rules(s.do("S win")) == ["WMC-11.6"]  # the shown hand becomes penalty tiles
    ok(s, "N replacement 8m", "N discard 8m")


def test_wmc_5_6_concealed_kong_cannot_be_robbed() -> None:
    s = started(E="1111m456m789mESWN")
    ok(s, "E call kong", "E kong concealed 1m")
    assert rules(s.do("S win")) == ["WMC-5.6"]


# ---- seabed, riverbed, exhaustive draw (WMC-6.x) ------------------------------------------


def _to_seabed(s: Script) -> None:
    hand = s.table.state.hand
    assert hand is not None
    hand.wall.head = hand.wall.size - hand.wall.dead_size - 1  # fast-forward: one live tile


def test_wmc_6_2_seabed_drawer_may_not_kong_and_riverbed_only_won_on() -> None:
    s = started()
    ok(s, "E discard P")
    _to_seabed(s)
    step = s.do("S draw 1p")
    assert [d.type for d in step.derived] == ["seabed_drawn"]
    assert rules(s.do("S kong concealed 1p")) == ["WMC-6.2"]
    ok(s, "S discard 5p")  # the riverbed tile
    assert rules(s.do("N pung")) == ["WMC-6.2"]
    assert rules(s.do("W chow 567p")) == ["WMC-6.2"]
    assert rules(s.do("W draw 1s")) == ["WMC-6.1"]


def test_wmc_6_3_exhaustive_draw_only_after_the_riverbed() -> None:
    s = started()
    ok(s, "E discard P")
    assert rules(s.do("exhaustive_draw")) == ["WMC-6.3"]
    _to_seabed(s)
    ok(s, "S draw 9s", "S discard 9s")
    step = s.do("exhaustive_draw")
    assert step.accepted
    st = s.table.state
    assert st.results[-1].exhaustive and set(st.scores.values()) == {0}
    assert st.dealer_place == 1  # WMC-2.4: the deal passes even after a draw


# ---- wins and payments (WMC-7.x, 12.x) ----------------------------------------------------


def test_wmc_11_6_false_win_play_continues_with_the_hand_as_penalty_tiles() -> None:
    s = started()
    ok(s, "E discard P")
    step = s.do("S win")  # S waits on 5p, not P
    assert rules(step) == ["WMC-11.6"] and "WMC-7.1" in step.alerts[0].message
    hand = s.table.state.hand
    assert hand is not None and len(hand.seats[Wind.S].penalty_live) == 13
    ok(s, "S draw 9s")


def _follow_suit_game(value: int) -> Script:
    s = started(value=value, E=E_5P, W="147m258m369mSW5pN", N="147p268p369pSW5pN")
    ok(s, "E discard 5p", "S draw 9s", "S discard 9s", "W draw 1s", "W discard 5p")
    ok(s, "N draw 2s", "N discard 5p", "S call win")
    return s


def test_wmc_12_4_follow_suit_first_discarder_in_span_is_liable() -> None:
    s = _follow_suit_game(70)
    assert s.do("S win").accepted
    res = s.table.state.results[-1]
    # Span: from S's previous discard (9s) to the winning 5p: W discarded 5p first → liable.
    assert res.liable is Wind.W and res.discarder is Wind.N
    assert res.deltas == {Wind.E: -30, Wind.S: 210, Wind.W: -150, Wind.N: -30}
    assert sum(res.deltas.values()) == 0


def test_wmc_12_4_value_at_most_30_each_pays_v() -> None:
    s = _follow_suit_game(30)
    assert s.do("S win").accepted
    assert s.table.state.results[-1].deltas == {Wind.E: -30, Wind.S: 90, Wind.W: -30, Wind.N: -30}


def test_wmc_12_4_self_drawn_each_pays_v() -> None:
    s = started(value=50)
    ok(s, "E discard P", "S draw 5p", "S call win", "S win")
    res = s.table.state.results[-1]
    assert res.deltas == {Wind.E: -50, Wind.S: 150, Wind.W: -50, Wind.N: -50}


def test_wmc_7_2_win_on_kong_replacement_is_self_drawn() -> None:
    s = started(value=50, E=E_C, S="PPP567m789p111p5p")
    ok(
        s,
        "E discard C",
        "S draw P",
        "S call kong",
        "S kong concealed P",
        "S replacement 5p",
        "S win",
    )
    res = s.table.state.results[-1]
    assert res.win_by is not None and str(res.win_by) == "self" and "win_on_kong" in res.flags


@pytest.mark.parametrize("seat", ["W", "N"])
def test_wmc_5_1_no_claim_of_a_tile_that_is_not_the_last_discard(seat: str) -> None:
    s = started()
    ok(s, "E discard P", "S draw 9s", "S discard 9s", "W draw 1s", "W discard 1s")
    step = s.do(f"{seat} chow 234s") if seat == "W" else s.do("N pung")
    assert step.alerts and not step.accepted
