"""The penalty workflow: proposal → referee decision → score sheet; corrections are new records."""

from __future__ import annotations

import pytest

from referee.hands import Wind
from referee.penalties import (
    Decision,
    LedgerError,
    PenaltyKind,
    PenaltyLedger,
    Proposal,
    Status,
    Verdict,
)


def proposal(pid: str = "41:WMC-13.1:S", points: int = 5, hand: int = 0) -> Proposal:
    return Proposal(pid, "WMC-13.1", Wind.S, PenaltyKind.POINTS, points, "slow turn", hand, 10.0)


def decide(verdict: Verdict, points: int | None = None, reason: str = "seen on video") -> Decision:
    return Decision("41:WMC-13.1:S", verdict, "ref-7", reason, 20.0, points)


def test_wmc_0_3_a_proposal_waits_for_a_referee() -> None:
    ledger = PenaltyLedger()
    assert ledger.propose(proposal())
    assert not ledger.propose(proposal())  # replaying the same proposal changes nothing
    assert [e.status for e in ledger.pending()] == [Status.PENDING]
    assert ledger.confirmed_points() == dict.fromkeys(Wind, 0)


def test_confirm_change_dismiss() -> None:
    ledger = PenaltyLedger()
    ledger.propose(proposal())
    entry = ledger.decide(decide(Verdict.CHANGE, points=10, reason="second offence"))
    assert entry.status is Status.CONFIRMED and entry.points == 10
    assert ledger.confirmed_points()[Wind.S] == 10
    other = PenaltyLedger()
    other.propose(proposal())
    other.decide(decide(Verdict.DISMISS, reason="the clock was paused"))
    assert other.confirmed_points()[Wind.S] == 0
    with pytest.raises(LedgerError, match="already dismissed"):
        other.decide(decide(Verdict.CONFIRM))


def test_a_revocation_is_a_new_decision() -> None:
    ledger = PenaltyLedger()
    ledger.propose(proposal())
    ledger.decide(decide(Verdict.CONFIRM))
    entry = ledger.decide(decide(Verdict.REVOKE, reason="appeal upheld by head referee"))
    assert entry.status is Status.REVOKED
    assert [d.verdict for d in entry.decisions] == [Verdict.CONFIRM, Verdict.REVOKE]
    assert ledger.confirmed_points()[Wind.S] == 0
    assert entry.to_json()["decisions"][1]["verdict"] == "revoke"


@pytest.mark.parametrize(
    ("decision", "fragment"),
    [
        (Decision("nope", Verdict.CONFIRM, "ref-7", "", 1.0), "no proposal 'nope'"),
        (Decision("41:WMC-13.1:S", Verdict.CONFIRM, " ", "", 1.0), "referee's id"),
        (Decision("41:WMC-13.1:S", Verdict.CHANGE, "ref-7", "why", 1.0), "new points"),
        (Decision("41:WMC-13.1:S", Verdict.CHANGE, "ref-7", "", 1.0, 5), "needs a reason"),
        (Decision("41:WMC-13.1:S", Verdict.DISMISS, "ref-7", "", 1.0), "needs a reason"),
        (Decision("41:WMC-13.1:S", Verdict.REVOKE, "ref-7", "x", 1.0), "only a confirmed"),
    ],
)
def test_bad_decisions_are_refused_and_change_nothing(decision: Decision, fragment: str) -> None:
    ledger = PenaltyLedger()
    ledger.propose(proposal())
    with pytest.raises(LedgerError, match=fragment):
        ledger.decide(decision)
    assert ledger.entries["41:WMC-13.1:S"].decisions == []
