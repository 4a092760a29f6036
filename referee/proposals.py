"""From findings to penalty proposals (WMC-13.5): which penalty the rules fix for each finding.

The engine and the clocks find irregularities; this module turns each into a ledger
:class:`~referee.penalties.Proposal` with a stable id — the same log always gives the same ids,
so a referee's decision event can name the proposal it rules on, and replay re-derives both.
"""

from __future__ import annotations

from referee.clocks import ClockProposal, Kind
from referee.game.alerts import Alert, Severity, proposal_id
from referee.penalties import PenaltyKind, Proposal

UNSPOKEN_REPEAT_POINTS = 10
"""WMC-5.2: repeated unspoken claims get a point penalty; the rules fix no amount, so the
proposal says 10 and the referee changes it if the event rules otherwise."""

__all__ = ["UNSPOKEN_REPEAT_POINTS", "from_alert", "from_clock", "proposal_id"]

_CLOCK_KINDS = {Kind.FORFEIT: PenaltyKind.FORFEIT, Kind.ABSENT: PenaltyKind.FORFEIT}


def from_alert(alert: Alert, hand: int, ts: float, unspoken_before: int) -> Proposal | None:
    """The proposal an engine alert carries (its ``penalty``), or WMC-5.2's escalation:
    the first unspoken claim of a player is a warning, a repeated one a point penalty. None for
    a finding in a damaged record (``alert.damaged``): a referee looks at the hand first."""
    seat = alert.seat
    if seat is None or alert.damaged:
        return None
    evidence = (alert.seq, *alert.evidence)
    if alert.rule == "WMC-5.2" and not alert.rejected:
        repeated = unspoken_before >= 1
        return Proposal(
            proposal_id(alert.rule, alert.seq, seat),
            alert.rule,
            seat,
            PenaltyKind.POINTS if repeated else PenaltyKind.WARNING,
            UNSPOKEN_REPEAT_POINTS if repeated else 0,
            alert.message + (f" (unspoken claim no. {unspoken_before + 1})" if repeated else ""),
            hand,
            ts,
            evidence,
        )
    if not alert.penalty:
        return None
    return Proposal(
        proposal_id(alert.rule, alert.seq, seat),
        alert.rule,
        seat,
        PenaltyKind(alert.penalty),
        alert.points,
        alert.message,
        hand,
        ts,
        evidence,
    )


def from_clock(found: ClockProposal, seq: int, hand: int) -> tuple[Alert, Proposal]:
    """A clock finding as an alert (for the dashboard) and its proposal (for the ledger)."""
    kind = _CLOCK_KINDS.get(found.kind, PenaltyKind.POINTS)
    severity = Severity.CRITICAL if kind is PenaltyKind.FORFEIT else Severity.VIOLATION
    alert = Alert(
        found.rule,
        severity,
        found.message,
        seq,
        found.seat,
        rejected=False,
        penalty=str(kind),
        points=found.points,
    )
    tag = str(found.kind).replace(" ", "_")
    proposal = Proposal(
        proposal_id(found.rule, seq, found.seat, tag),
        found.rule,
        found.seat,
        kind,
        found.points,
        found.message,
        hand,
        found.ts,
        (seq,),
    )
    return alert, proposal
