"""The score card (WMC-8.1) from a simulated half session agrees with the replayed totals."""

from __future__ import annotations

import json

import pytest

from referee.events import parse_line
from referee.game.sim import Simulator
from referee.game.table import Table
from referee.hands import Wind
from referee.penalties import Decision, PenaltyKind, PenaltyLedger, Proposal, Verdict
from referee.scoresheet import HANDS_PER_CARD, SheetError, build_cards, correction


def half_session(seed: int = 5) -> Table:
    """Simulate two rounds, then replay the log from its JSON lines into a fresh table."""
    sim = Simulator("wmc", seed)
    lines = [e.model_dump_json() for e in sim.run(HANDS_PER_CARD)]
    table = Table()
    for number, line in enumerate(lines, start=1):
        table.apply(parse_line(line, number))
    assert table.state.to_dict() == sim.table.state.to_dict()
    return table


def test_wmc_8_1_card_matches_the_replayed_totals() -> None:
    st = half_session().state
    [card] = build_cards(st.table_id, st.session_id, st.results)
    assert len(card.rows) == HANDS_PER_CARD
    assert card.totals == st.scores
    assert sum(card.totals.values()) == 0
    exported = json.loads(json.dumps(card.to_json()))
    assert exported["totals"] == st.scores and len(exported["hands"]) == 8


def test_confirmed_penalties_are_deducted_from_the_offender_only() -> None:
    st = half_session().state
    ledger = PenaltyLedger()
    for pid, hand in (("a", 2), ("b", 3)):
        ledger.propose(Proposal(pid, "WMC-13.1", Wind.N, PenaltyKind.POINTS, 5, "slow", hand, 1.0))
    ledger.decide(Decision("a", Verdict.CONFIRM, "ref-1", "", 2.0))  # b stays pending
    [card] = build_cards(st.table_id, st.session_id, st.results, ledger)
    offender = st.results[2].players[Wind.N]
    expected = dict(st.scores)
    expected[offender] -= 5
    assert card.totals == expected
    assert card.rows[2].penalty_rules == (f"WMC-13.1 {offender} −5",)


def test_wmc_8_1_corrections_need_a_referee_and_players_sign_at_the_end() -> None:
    st = half_session().state
    with pytest.raises(SheetError, match="referee"):
        correction(0, "Ann", 10, "miscounted", "")
    fix = correction(0, st.players[0], 10, "miscounted 3.1", "ref-2")
    [card] = build_cards(st.table_id, st.session_id, st.results, corrections=[fix])
    assert card.totals[st.players[0]] == st.scores[st.players[0]] + 10
    with pytest.raises(SheetError, match="does not play"):
        card.sign("Zed", 1.0)
    for p in card.players:
        card.sign(p, 100.0)
    assert card.signed and card.to_json()["signed"]


def test_a_card_cannot_be_signed_before_the_half_ends() -> None:
    st = half_session().state
    [card] = build_cards(st.table_id, st.session_id, st.results[:5])
    with pytest.raises(SheetError, match="5 of 8"):
        card.sign(card.players[0], 1.0)


def test_printable_card() -> None:
    st = half_session().state
    [card] = build_cards(st.table_id, st.session_id, st.results)
    page = card.to_html()
    assert page.startswith("<!doctype html>") and "記分卡" in page
    for player in st.players:
        assert player in page
    assert page.count("<tr>") >= HANDS_PER_CARD
