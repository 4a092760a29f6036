"""Rules fidelity (issue 17): situations where the engine disagreed with WMC.md and the seed
text behind it (../shared/seeds/002…, 000… where 002 is silent), one test per rule."""

from __future__ import annotations

from script_kit import HANDS

from referee.events import DealCorrected, TilesExposed
from referee.game.script import Script
from referee.game.table import Step
from referee.hands import Wind
from referee.tiles import parse_tile


def started(**hands: str) -> Script:
    script = Script()
    step = script.start(**{**HANDS, **hands})
    assert step.accepted and not step.alerts, step.alerts
    return script


def found(step: Step) -> list[tuple[str, str, bool]]:
    return [(a.rule, a.seat.name if a.seat else "", a.rejected) for a in step.alerts]


def ok(script: Script, *lines: str) -> None:
    for line in lines:
        step = script.do(line)
        assert step.accepted and not step.alerts, (line, step.alerts)


def test_wmc_1_1_a_fifth_copy_drawn_from_an_unseen_wall_is_refused() -> None:
    """WMC-1.1: four of each tile. S holds 111p and draws the fourth; a fifth 1p named by a
    replacement draw (or a draw) cannot exist, whatever source names it."""
    s = started()
    ok(s, "E discard P", "S draw 1p", "S call kong", "S kong concealed 1p")
    assert found(s.do("S replacement 1p")) == [("WMC-1.1", "S", True)]
    ok(s, "S replacement 3s", "S discard 3s")
    assert found(s.do("W draw 1p")) == [("WMC-1.1", "W", True)]
    hand = s.table.state.hand
    assert hand is not None and hand.seats[Wind.W].counts[parse_tile("1p")] == 0


def test_wmc_5_1_a_pung_of_an_older_discard_cites_the_last_discard_rule() -> None:
    """WMC-5.1: only the last discard can be claimed (002: 只有对最后刚打出的一张牌可以鸣牌).
    N's pair of E may not pung East's E once S has discarded after it."""
    s = started()
    ok(s, "E discard E", "S draw 9s", "S discard 9s")
    assert found(s.do("N pung EEE")) == [("WMC-5.1", "N", True)]
    ok(s, "W draw 1s")


def test_wmc_11_6_a_dead_hand_showing_a_win_is_a_false_win_not_an_empty_win() -> None:
    """WMC-10.2: a short hand cannot win. The win event is the hand shown, so a win that may
    not stand is a false win (WMC-11.6; 002: 宣布和牌…并公开了全手牌…称为错和), not an empty win
    (11.7, the hand not shown) at the next draw: one offence, one finding."""
    s = started()
    ok(s, "E discard P")
    assert [a.rule for a in s.do("S discard 2m").alerts] == ["WMC-4.3", "WMC-10.1"]
    ok(s, "W draw 1s", "W discard 1s", "N draw 5p", "N discard 5p", "S call win")
    step = s.do("S win")  # S waits on 5p, but is dead
    assert found(step) == [("WMC-11.6", "S", False)] and "WMC-10.2" in step.alerts[0].message
    hand = s.table.state.hand
    assert hand is not None and hand.seats[Wind.S].penalty_live  # the shown hand
    ok(s, "E draw 3m")  # no WMC-11.7


def test_wmc_9_5_a_win_completing_a_pair_with_a_penalty_tile_is_a_wrong_claim() -> None:
    """WMC-9.3: no single-wait pair with a penalty tile on a discard; 9.5: trying it is a wrong
    claim (002: 企图用罚张来进行被禁止的鸣牌，则当作错鸣（错吃、错碰、错杠、错和）处理) —
    handled as a false win, with no empty win (11.7) at the next draw."""
    s = started()
    ok(s, "E discard P")
    step = s.push(TilesExposed(seat=Wind.S, tiles=(parse_tile("5p"),)))
    assert found(step) == [("WMC-9.1", "S", False)]
    ok(s, "S draw 9s", "S discard 9s", "W draw 1s", "W discard 1s", "N draw 5p")
    ok(s, "N discard 5p", "S call win")
    step = s.do("S win")
    assert found(step) == [("WMC-9.5", "S", False)] and "WMC-9.3" in step.alerts[0].message
    ok(s, "E draw 3m")


def test_wmc_10_2_a_long_hands_refused_pung_is_not_also_an_empty_claim() -> None:
    """WMC-10.2: a long hand may not claim; the refused pung is the one finding — no empty
    claim (WMC-11.3) for the same call at the next draw."""
    s = started()
    ok(s, "E discard P")
    assert [a.rule for a in s.do("W draw 1s").alerts] == ["WMC-4.2", "WMC-10.1"]
    ok(s, "S draw F", "S discard F", "W call pung")
    assert found(s.do("W pung")) == [("WMC-10.2", "W", True)]
    ok(s, "W draw 3m")


# S can chow East's 5p with 46p; N holds a pair of 5p.
CHOW_OR_PUNG = {"E": "123m456m789mESWN5p", "S": "234m567m789s46p11p", "N": "55s66s77sCCC55pEE"}


def test_wmc_5_4_a_chow_exposed_too_fast_may_still_be_punged_by_priority() -> None:
    """WMC-5.4: say "chow", wait about 1 s, then expose; exposed too fast, others may still pung
    (002: 于叫吃前、同时或之后太快亮牌或打牌，则他家有权按"鸣牌优先规条"把牌碰、杠了去)."""
    s = started(**CHOW_OR_PUNG)
    ok(s, "E discard 5p")
    said = s.do("S call chow").cause
    assert said is not None
    assert s.do("S chow 456p", at=said.ts + 0.4).alerts == []  # the chow stands for now
    ok(s, "N call pung")
    step = s.do("N pung")
    assert found(step) == [("WMC-5.4", "S", False)] and step.alerts[0].severity == "info"
    hand = s.table.state.hand
    assert hand is not None and hand.turn is Wind.N and not hand.seats[Wind.S].melds
    assert hand.seats[Wind.S].counts[parse_tile("4p")] == 1 and hand.seats[Wind.S].size == 13
    assert [str(m.kind) for m in hand.seats[Wind.N].melds] == ["pung"]
    ok(s, "N discard E", "E draw 3m")


def test_wmc_5_4_a_chow_exposed_after_the_wait_ends_pung_claims() -> None:
    s = started(**CHOW_OR_PUNG)
    ok(s, "E discard 5p")
    said = s.do("S call chow").cause
    assert said is not None
    assert s.do("S chow 456p", at=said.ts + 1.5).alerts == []
    assert found(s.do("N call pung")) == [("WMC-5.1", "N", True)]
    assert found(s.do("N pung")) == [("WMC-5.1", "N", True)]


def test_wmc_5_2_an_unspoken_chow_has_no_priority_over_a_pung() -> None:
    """WMC-5.2: an unspoken claim has no priority; 5.4 (002: 如果无扬声叫吃…他家有权…碰、杠)."""
    s = started(**CHOW_OR_PUNG)
    ok(s, "E discard 5p")
    assert found(s.do("S chow 456p")) == [("WMC-5.2", "S", False)]
    ok(s, "N call pung")
    step = s.do("N pung")
    assert found(step) == [("WMC-5.2", "S", False)] and step.alerts[0].severity == "info"
    hand = s.table.state.hand
    assert hand is not None and hand.turn is Wind.N and hand.seats[Wind.S].size == 13


# W waits on 2s (a single wait), N holds a pair of 2s, S discards one.
TOUCHED = {
    "S": "234m567m789p111p2s",
    "W": "678p345s789s2sFFF",
    "N": "55s66s77sCCC22sEE",
}


def touched_wall() -> Script:
    """S discards 2s; W draws 1m without merging; N calls pung."""
    s = started(**TOUCHED)
    ok(s, "E discard P", "S draw 9s", "S discard 2s", "W draw 1m unmerged", "N call pung")
    return s


def test_wmc_4_2_a_win_keeps_priority_after_touching_the_wall() -> None:
    """WMC-4.2: touching the wall waives claims on the last discard, but a win still keeps
    priority over another's claim (002: 一旦伸手触摸了墙头的牌，便当作放弃鸣牌的权利。
    但如果有他家鸣牌，则仍有权按照"鸣牌优先规条"优先和牌). The win event names no tile: the rules
    decide — complete on S's 2s, not with the 1m drawn."""
    s = touched_wall()
    ok(s, "W call win")
    step = s.do("W win")
    assert found(step) == [("WMC-4.2", "W", False)] and step.alerts[0].severity == "info"
    [scored] = [d.payload for d in step.derived if d.type == "hand_scored"]
    assert (scored["winner"], scored["win_by"], scored["discarder"]) == ("W", "discard", "S")
    assert scored["win_tile"] == "2s"
    hand = s.table.state.hand
    assert hand is not None and hand.seats[Wind.W].counts[parse_tile("1m")] == 0  # back


def test_wmc_4_2_the_win_event_may_name_its_tile_and_what_it_is_on() -> None:
    s = touched_wall()
    ok(s, "W call win")
    step = s.do("W win 2s on discard")
    assert found(step) == [("WMC-4.2", "W", False)]
    assert any(d.type == "hand_scored" for d in step.derived)
    s = touched_wall()
    assert found(s.do("W win 4m")) == [("WMC-7.2", "W", True)]  # not held, not the discard
    s = touched_wall()
    assert found(s.do("W win on draw"))[0][:2] == ("WMC-11.6", "W")  # 1m completes nothing


def test_wmc_4_2_without_another_claim_a_win_on_the_discard_was_waived() -> None:
    s = started(**TOUCHED)
    ok(s, "E discard P", "S draw 9s", "S discard 2s", "W draw 1m unmerged")
    step = s.do("W win on discard")
    assert found(step) == [("WMC-11.6", "W", False)] and "WMC-4.2" in step.alerts[0].message


def dealt(**hands: str) -> tuple[Script, Step]:
    script = Script()
    return script, script.start(**{**HANDS, **hands})


def test_wmc_3_5_a_short_deal_stands_and_is_topped_up_from_the_wall_free() -> None:
    """WMC-3.5 (000, 配牌相公: 在自己打第一張牌前發覺自己的配牌少了，可以立即免罰更正，
    從墻頭取牌補足): the deal stands as dealt; the player takes the missing tile, free."""
    s, step = dealt(S="234m567m789p111p")  # 12 tiles
    assert found(step) == [("WMC-3.5", "S", False)] and step.alerts[0].severity == "warning"
    ok(s, "S draw 3m")  # the missing tile, before his first discard: no finding
    ok(s, "E discard P", "S draw 9s", "S discard 9s", "W draw 1s", "W discard 1s")


def test_wmc_3_5_a_wrong_deal_found_at_the_first_discard_is_a_dead_hand() -> None:
    """WMC-3.5: found after one's own first discard, the wrong count cannot be corrected: a dead
    hand (WMC-10.1; 000: 如果選手在自己已打了第一張牌后才發覺手牌數目不符，便不能更正，
    當作大/小相公繼續這局) — and play continues."""
    s, step = dealt(W="678p123s789s22sFFP")  # 14 tiles
    assert found(step) == [("WMC-3.5", "W", False)]
    deal_seq = step.alerts[0].seq
    ok(s, "E discard E", "S draw 9s", "S discard 9s", "W draw 1s")
    step = s.do("W discard 1s")
    assert found(step) == [("WMC-10.1", "W", False)] and step.alerts[0].evidence == (deal_seq,)
    hand = s.table.state.hand
    assert hand is not None and hand.seats[Wind.W].dead == "long"
    ok(s, "N draw 3s", "N discard 3s")


def test_wmc_3_5_a_long_deal_corrected_before_the_first_discard_costs_points() -> None:
    """WMC-3.5: long before one's first discard — the referee returns the excess into the wall
    with a point penalty (000: 裁判員可以從其手牌隨機取走多余張數…但會扣分處罰)."""
    s, _step = dealt(W="678p123s789s22sFFP")
    step = s.push(DealCorrected(seat=Wind.W, tiles=(parse_tile("P"),)))
    assert found(step) == [("WMC-3.5", "W", False)]
    assert (step.alerts[0].penalty, step.alerts[0].points) == ("points", 10)
    ok(s, "E discard E", "S draw 9s", "S discard 9s", "W draw 1s", "W discard 1s")
    assert found(s.push(DealCorrected(seat=Wind.W, tiles=(parse_tile("2s"),)))) == [
        ("WMC-3.5", "W", True)
    ]
