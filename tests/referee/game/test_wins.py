"""Wins end to end with the REAL scorers (no stubs): the flags the engine derives from play
reach the scorer, the values are the pattern sums of the scoring tables, and the payments
follow WMC-12.4 (MCR's rule for the MCR profile)."""

from __future__ import annotations

from script_kit import play, rules

from referee.game.script import Script
from referee.hands import Wind

# Dealt hands (an unseen wall): E holds 14, the others 13; no tile more than 4 times.
W_HAND = "678p123s789s22sFF"
N_HAND = "55s66s77sCCC2p9pEE"


def test_wmc_9_4_1_heaven_east_wins_on_the_dealt_14_and_each_pays_v() -> None:
    s = Script()
    s.start(E="123m456m789m123p55p", S="234m567m789p111p5p", W=W_HAND, N=N_HAND)
    play(s, "E call win", "E win")
    res = s.table.state.results[-1]
    assert res.flags == ("heaven",) and res.win_by is not None and str(res.win_by) == "self"
    names = {p.name: p.points for p in res.patterns}
    # SCORING-WMC: 1.1 All Sequences 5, 1.2 Concealed Hand 5, 7.1 Nine-Tile Straight 40,
    # 9.4.1 Blessing of Heaven 155 — added, never multiplied (WMC-12.1).
    assert names == {
        "All Sequences": 5,
        "Concealed Hand": 5,
        "Nine-Tile Straight": 40,
        "Blessing of Heaven": 155,
    }
    assert res.value == 205
    # WMC-12.4, self-drawn: each pays V; the winner receives 3V.
    assert res.deltas == {Wind.E: 615, Wind.S: -205, Wind.W: -205, Wind.N: -205}
    assert s.table.state.scores == {"Ann": 615, "Bo": -205, "Chen": -205, "Dai": -205}


def test_wmc_9_4_2_earth_on_easts_first_discard_discarder_pays_3v_minus_60() -> None:
    s = Script()
    s.start(E="123m456m789mESWN5p", S="234m567m789p111p5p", W=W_HAND, N=N_HAND)
    play(s, "E discard 5p", "S call win", "S win")
    res = s.table.state.results[-1]
    assert res.flags == ("earth",) and res.discarder is Wind.E
    assert {p.name: p.points for p in res.patterns} == {
        "Concealed Hand": 5,
        "Blessing of Earth": 155,
    }
    assert res.value == 160
    # WMC-12.4, on a discard with V > 30: the two others pay 30, the discarder 3V − 60.
    assert res.deltas == {Wind.E: -420, Wind.S: 480, Wind.W: -30, Wind.N: -30}
    assert res.liable is Wind.E and sum(res.deltas.values()) == 0


def test_wmc_9_4_2_no_earth_on_a_later_discard_and_v_at_most_30_each_pays_v() -> None:
    s = Script()
    s.start(E="123m456m789mESWN5p", S="234m567m789p111p5p", W=W_HAND, N=N_HAND)
    play(s, "E discard N", "S draw 9s", "S discard 9s", "W draw 1s", "W discard F")
    play(s, "N draw 3s", "N discard 2p", "E draw 4p", "E discard 5p", "S call win", "S win")
    res = s.table.state.results[-1]
    assert (
        res.flags == ()
        and [(p.id, p.points, p.count) for p in res.patterns] == [("1.2", 5, 1)]
        and res.value == 5
    )
    # WMC-12.4, on a discard with V ≤ 30: each pays V.
    assert res.deltas == {Wind.E: -5, Wind.S: 15, Wind.W: -5, Wind.N: -5}


def test_wmc_12_3_a_hand_without_a_pattern_is_a_false_win_and_play_continues() -> None:
    s = Script()
    s.start(
        E="1m147p258s36mEEWWP",
        S="23m456p999s78mNNC",
        W="147m258p369pSSWF",
        N="1s4s7s2p5p8p3p6p9m9mEEF",
    )
    play(s, "E discard 1m", "S call chow", "S chow 123m", "S discard C")
    play(s, "W draw 9m", "W discard 9m", "S call win")
    before = s.table.state.to_dict()
    # 123m (claimed) 456p 999s 789m NN: no pattern — a chicken hand may not win in WMC.
    step = s.do("S win")
    assert rules(step) == ["WMC-11.6"] and "WMC-12.3" in step.alerts[0].message
    assert "false win" in step.alerts[0].message and step.alerts[0].seat is Wind.S
    after = s.table.state.to_dict()
    assert after["alerts"][:-1] == before["alerts"] and after["results"] == []
    assert after["scores"] == before["scores"]
    assert after["hand"]["seats"]["S"]["penalty_live"] == before["hand"]["seats"]["S"]["concealed"]
    assert s.do("N draw 1s").accepted  # WMC-11.6: play continues


def test_mcr_last_of_kind_the_fourth_copy_with_three_shown_reaches_the_scorer() -> None:
    s = Script("mcr")
    s.start(
        E="9s123m456m789pEESW", S="123s456s78s222s55s", W="147m258p368sNNWC", N="99s147p258m3sSSWF"
    )
    # N pungs E's 9s (three 9s shown); E draws the last 9s and discards it; S wins on it.
    play(s, "E discard 9s", "N call pung", "N pung", "N discard F", "E draw 9s", "E discard 9s")
    play(s, "S call win", "S win")
    res = s.table.state.results[-1]
    assert res.flags == ("last_of_kind",)
    names = {p.name: p.points for p in res.patterns}
    assert names["Last Tile"] == 4 and names["Full Flush"] == 24 and names["Pure Straight"] == 16
    assert res.value == sum(p.subtotal for p in res.patterns) == 48
    # MCR: each pays 8, the discarder pays the fan on top.
    assert res.deltas == {Wind.E: -56, Wind.S: 72, Wind.W: -8, Wind.N: -8}


def test_mcr_no_last_of_kind_while_a_copy_is_unseen() -> None:
    s = Script("mcr")
    s.start(
        E="9s123m456m789pEESW", S="123s456s78s222s55s", W="147m258p368sNNWC", N="9s147p258m3sSSWFE"
    )
    play(s, "E discard 9s", "S call win", "S win")
    res = s.table.state.results[-1]
    assert "last_of_kind" not in res.flags
    assert "Last Tile" not in {p.name for p in res.patterns}
