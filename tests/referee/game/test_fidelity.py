"""Rules fidelity (issue 17): situations where the engine disagreed with WMC.md and the seed
text behind it (../shared/seeds/002…, 000… where 002 is silent), one test per rule."""

from __future__ import annotations

from referee.game.script import Script
from referee.game.table import Step
from referee.hands import Wind
from referee.tiles import parse_tile

HANDS = {
    "E": "123m456m789mESWNP",
    "S": "234m567m789p111p5p",
    "W": "678p123s789s22sFF",
    "N": "55s66s77sCCC2p9pEE",
}


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
