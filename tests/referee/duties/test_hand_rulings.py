"""A hand the record left without a result is the referees' to settle or void (WMC-7.8): an
alert that names it, "no result (to settle)" on the card (never a draw's 0 / 0 / 0 / 0), then a
``hand_ruled`` event that enters the result (a win priced by WMC-12.4, a draw) or voids it —
the card, the totals and a replay of the log all agree."""

from __future__ import annotations

from typing import Any

import pytest
from duty_kit import first_end_lost

from referee.duties import RefereeTable
from referee.events import PAYLOADS, Event, Source, make_event
from referee.game.sim import Simulator
from referee.scoresheet import NO_RESULT


def _first_end_lost() -> list[Event]:
    """Three hands; the first one's end never reached the record."""
    return first_end_lost(list(Simulator("wmc", 5).run(3)))


def _ruling(seq: int, **payload: Any) -> Event:
    body = PAYLOADS["hand_ruled"].model_validate(
        {"reason": "camera clip", "referee": "R1"} | payload
    )
    return make_event(body, seq=seq, ts=9_000.0 + seq, source=Source.REFEREE)


def _replayed(events: list[Event]) -> RefereeTable:
    duty = RefereeTable()
    for e in events:
        duty.apply(e)
    return duty


@pytest.fixture
def log() -> list[Event]:
    return _first_end_lost()


def test_wmc_7_8_a_hand_without_a_result_is_an_alert_and_no_result_on_the_card(
    log: list[Event],
) -> None:
    duty = _replayed(log)
    second_wall = [e for e in log if e.type == "wall_built"][1]
    (alert,) = [a for a in duty.state.alerts if a.rule == "WMC-7.8"]
    assert alert.severity == "critical" and not alert.rejected
    assert alert.seq == second_wall.seq and alert.message.startswith("hand 1 has no result")
    assert duty.unsettled() == [0]
    row = duty.cards()[0].rows[0]
    assert row.status == "no_result" and set(row.amounts.values()) == {"—"}
    page = duty.cards()[0].to_html()
    first = page.split("<tr><td>1</td>")[1].split("</tr>")[0]
    assert NO_RESULT in first and "<td>0</td>" not in first
    assert duty.cards()[0].to_json()["hands"][0]["status"] == "no_result"


def test_wmc_7_8_a_referee_settles_a_win_on_a_discard_and_replay_agrees(
    log: list[Event],
) -> None:
    duty = _replayed(log)
    a, b, c, d = duty.state.results[0].players
    before = duty.totals()
    ruling = _ruling(len(log), hand=0, ruling="settle", winner=a, discarder=b, value=40)
    step = duty.apply(ruling)
    assert not [x for x in step.alerts if x.rejected]
    # WMC-12.4: V = 40 > 30 — the two others pay 30, the discarder 3·40 − 60 = 60
    paid = {a: 120, b: -60, c: -30, d: -30}
    row = duty.cards()[0].rows[0]
    assert row.status == "settled" and (row.winner, row.discarder, row.value) == (a, b, 40)
    assert row.payments == paid and row.amounts[a] == "+120"
    assert {p: duty.totals()[p] - before[p] for p in paid} == paid
    assert duty.unsettled() == []
    again = _replayed([*log, ruling])
    assert again.cards()[0].to_json() == duty.cards()[0].to_json()
    assert again.totals() == duty.totals()


def test_wmc_7_8_self_drawn_and_draw_settlements(log: list[Event]) -> None:
    duty = _replayed(log)
    a, b, c, d = duty.state.results[0].players
    duty.apply(_ruling(len(log), hand=0, ruling="settle", winner=c, value=8))
    row = duty.cards()[0].rows[0]
    assert row.discarder is None and row.payments == {a: -8, b: -8, c: 24, d: -8}
    duty.apply(_ruling(len(log) + 1, hand=0, ruling="settle"))  # a later ruling replaces it
    row = duty.cards()[0].rows[0]
    assert row.status == "settled" and row.winner is None
    assert row.payments == dict.fromkeys((a, b, c, d), 0) and "draw" in duty.cards()[0].to_html()


def test_wmc_7_8_a_referee_voids_the_hand_and_replay_agrees(log: list[Event]) -> None:
    duty = _replayed(log)
    before = duty.totals()
    ruling = _ruling(len(log), hand=0, ruling="void")
    duty.apply(ruling)
    row = duty.cards()[0].rows[0]
    assert row.status == "voided" and set(row.amounts.values()) == {"void"}
    assert duty.totals() == before and duty.unsettled() == []
    first = duty.cards()[0].to_html().split("<tr><td>1</td>")[1].split("</tr>")[0]
    assert "void" in first and NO_RESULT not in first
    again = _replayed([*log, ruling])
    assert again.cards()[0].to_json() == duty.cards()[0].to_json()


def test_wmc_7_8_rulings_that_make_no_sense_are_refused_and_change_nothing(
    log: list[Event],
) -> None:
    duty = _replayed(log)
    a, b, *_ = duty.state.results[0].players
    bad: list[dict[str, Any]] = [
        {"hand": 1, "ruling": "void"},  # hand 2 has a result and no mark
        {"hand": 0, "ruling": "settle", "winner": "Nobody", "value": 8},
        {"hand": 0, "ruling": "settle", "winner": a, "discarder": a, "value": 8},
        {"hand": 0, "ruling": "settle", "winner": a},  # no value
        {"hand": 0, "ruling": "settle", "discarder": b, "value": 8},  # no winner
        {"hand": 0, "ruling": "void", "winner": a, "value": 8},
        {"hand": 0, "ruling": "settle", "winner": a, "value": 8, "payments": {a: 8, b: -8}},
    ]
    before = duty.cards()[0].to_json()
    for n, payload in enumerate(bad, start=len(log)):
        step = duty.apply(_ruling(n, **payload))
        assert [x.rule for x in step.alerts if x.rejected] == ["WMC-8.1"], payload
    assert duty.cards()[0].to_json() == before and duty.unsettled() == [0]
