"""Penalty workflow and the score card through the log (WMC-0.3, 8.1, 13.5)."""

from __future__ import annotations

import json
from pathlib import Path

from referee.duties import RefereeTable
from referee.events import (
    CardSigned,
    Event,
    Payload,
    PenaltyDecision,
    PenaltyProposed,
    ScoreCorrected,
    Source,
    make_event,
)
from referee.game.inject import IrregularSimulator, truths
from referee.hands import Wind
from referee.penalties import Status
from rig.cli import main


def half_session(seed: int = 11) -> list[Event]:
    return list(IrregularSimulator("wmc", seed, rate=0.05).run(8))


def referee_events(events: list[Event], payloads: list[Payload]) -> list[Event]:
    last = events[-1]
    return [
        make_event(p, seq=last.seq + 1 + i, ts=last.ts + 1 + i, source=Source.REFEREE)
        for i, p in enumerate(payloads)
    ]


def replay(events: list[Event]) -> RefereeTable:
    duty = RefereeTable()
    for ev in events:
        duty.apply(ev)
    return duty


def test_decisions_confirm_change_dismiss_revoke_and_the_card_follows() -> None:
    events = half_session()
    assert truths(events)
    first = replay(events)
    points = [e for e in first.ledger.entries.values() if e.proposal.points > 0]
    assert len(points) >= 3
    a, b, c = (e.proposal.id for e in points[:3])
    decisions: list[Payload] = [
        PenaltyDecision(proposal=a, verdict="confirm", referee="R1"),
        PenaltyDecision(proposal=b, verdict="change", referee="R1", reason="fair", points=2),
        PenaltyDecision(proposal=c, verdict="dismiss", referee="R2", reason="the clock stalled"),
        PenaltyDecision(proposal=a, verdict="revoke", referee="R2", reason="appeal upheld"),
        PenaltyDecision(proposal=a, verdict="confirm", referee="R2"),  # revoked: refused
        PenaltyProposed(referee="R1", seat=Wind.N, rule="WMC-13.6", kind="points", points=20),
    ]
    log = events + referee_events(events, decisions)
    prop_id = f"ref@{log[-1].seq}"
    log += referee_events(log, [PenaltyDecision(proposal=prop_id, verdict="confirm", referee="R1")])
    duty = replay(log)
    status = {pid: duty.ledger.entries[pid].status for pid in (a, b, c, prop_id)}
    assert status == {
        a: Status.REVOKED,
        b: Status.CONFIRMED,
        c: Status.DISMISSED,
        prop_id: Status.CONFIRMED,
    }
    assert duty.ledger.entries[b].points == 2
    refused = [al for al in duty.state.alerts if al.rule == "WMC-0.3"]
    assert len(refused) == 1 and "revoked" in refused[0].message
    [card] = duty.cards()
    assert card.totals == duty.totals()
    by_engine = dict(duty.state.scores)
    for entry in duty.ledger.confirmed():
        by_engine[duty._player(entry.proposal.hand, entry.proposal.seat)] -= entry.points
    assert card.totals == by_engine and sum(by_engine.values()) == -22


def test_sign_off_and_referee_confirmed_correction_then_the_sheet_cli(tmp_path: Path) -> None:
    events = half_session(seed=4)
    duty0 = replay(events)
    players = duty0.state.players
    early = referee_events(events[:40], [CardSigned(player=players[0])])
    assert replay([*events[:40], *early]).state.alerts[-1].rule == "WMC-8.1"  # not yet
    extra = [
        ScoreCorrected(hand=2, player=players[1], points=8, reason="3.1 missed", referee="R3"),
        *[CardSigned(player=p) for p in players],
    ]
    for e in duty0.ledger.entries.values():
        if e.proposal.points:
            extra.append(PenaltyDecision(proposal=e.proposal.id, verdict="confirm", referee="R3"))
    log = events + referee_events(events, extra)
    duty = replay(log)
    [card] = duty.cards()
    assert card.signed and card.corrections[0].referee == "R3"
    assert card.totals == duty.totals()
    path = tmp_path / "half.jsonl"
    path.write_text("".join(e.to_json() + "\n" for e in log), encoding="utf-8")
    html = tmp_path / "card.html"
    # the early sign-off was refused (WMC-8.1): the card is written, and the exit code says so
    assert main(["sheet", str(path), "--html", str(html)]) == 1
    assert "記分卡" in html.read_text(encoding="utf-8")
    out = tmp_path / "sheet.json"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["sheet", str(path), "--json"]) == 1
    data = json.loads(buf.getvalue())
    assert data["totals"] == duty.totals() == data["cards"][0]["totals"]
    assert data["cards"][0]["signed"]
    out.write_text(buf.getvalue())


def test_simulate_with_irregularities_writes_the_truth(tmp_path: Path) -> None:
    path = tmp_path / "irr.jsonl"
    assert (
        main(
            [
                "simulate",
                "--hands",
                "4",
                "--seed",
                "2",
                "--irregularities",
                "0.1",
                "--out",
                str(path),
            ]
        )
        == 0
    )
    text = path.read_text(encoding="utf-8")
    assert "injected:WMC-" in text
