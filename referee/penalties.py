"""Penalty proposals and referees' decisions (WMC-0.3, 13.5): the system proposes, referees decide.

A pure ledger: a proposal (from the engine, the clocks or a referee) gets decisions — confirm,
change the points, dismiss, each with a reason and the referee's id — and a confirmed penalty
may later be revoked by a new decision; nothing is ever edited or deleted. Confirmed point
penalties are what the score sheet deducts (WMC-13.5: from the offender only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from referee.hands import Wind


class PenaltyKind(StrEnum):
    """WMC-13.5, lightest to heaviest."""

    WARNING = "warning"
    CORRECTION = "correction"
    PENALTY_TILES = "penalty_tiles"
    POINTS = "points"
    NO_CLAIMS = "no_claims"
    NO_WIN = "no_win"
    FORFEIT = "forfeit"
    DISQUALIFICATION = "disqualification"


class Verdict(StrEnum):
    CONFIRM = "confirm"
    CHANGE = "change"
    DISMISS = "dismiss"
    REVOKE = "revoke"


class Status(StrEnum):
    PENDING = "pending"
    CONFIRMED = "confirmed"
    DISMISSED = "dismissed"
    REVOKED = "revoked"


class LedgerError(ValueError):
    """A decision that cannot apply; the message says why and what is expected."""


@dataclass(frozen=True, slots=True)
class Proposal:
    """What the system (or a referee) proposes. ``id`` is stable: re-proposing is a no-op."""

    id: str
    rule: str
    seat: Wind
    kind: PenaltyKind
    points: int
    reason: str
    hand: int  # index of the hand it belongs to (the score sheet row)
    ts: float
    evidence: tuple[int, ...] = ()  # seqs of the events behind it


@dataclass(frozen=True, slots=True)
class Decision:
    proposal_id: str
    verdict: Verdict
    referee: str
    reason: str
    ts: float
    points: int | None = None  # the new points for CHANGE


@dataclass(slots=True)
class Entry:
    proposal: Proposal
    decisions: list[Decision] = field(default_factory=list)

    @property
    def status(self) -> Status:
        status = Status.PENDING
        for d in self.decisions:
            if d.verdict in (Verdict.CONFIRM, Verdict.CHANGE):
                status = Status.CONFIRMED
            elif d.verdict is Verdict.DISMISS:
                status = Status.DISMISSED
            else:
                status = Status.REVOKED
        return status

    @property
    def points(self) -> int:
        """Points as decided: the last change, else the proposal's."""
        for d in reversed(self.decisions):
            if d.verdict is Verdict.CHANGE and d.points is not None:
                return d.points
        return self.proposal.points

    def to_json(self) -> dict[str, Any]:
        p = self.proposal
        return {
            "id": p.id,
            "rule": p.rule,
            "seat": p.seat.name,
            "kind": str(p.kind),
            "proposed_points": p.points,
            "points": self.points,
            "reason": p.reason,
            "hand": p.hand,
            "ts": p.ts,
            "evidence": list(p.evidence),
            "status": str(self.status),
            "decisions": [
                {
                    "verdict": str(d.verdict),
                    "referee": d.referee,
                    "reason": d.reason,
                    "ts": d.ts,
                    **({"points": d.points} if d.points is not None else {}),
                }
                for d in self.decisions
            ],
        }


class PenaltyLedger:
    """Every proposal and decision of one table's session, in order."""

    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}

    def propose(self, proposal: Proposal) -> bool:
        """Record a proposal; False if one with this id exists (idempotent replay)."""
        if proposal.id in self.entries:
            return False
        self.entries[proposal.id] = Entry(proposal)
        return True

    def decide(self, decision: Decision) -> Entry:
        entry = self.entries.get(decision.proposal_id)
        if entry is None:
            raise LedgerError(f"no proposal {decision.proposal_id!r} to decide on")
        if not decision.referee.strip():
            raise LedgerError("a decision needs the referee's id (WMC-0.3)")
        status = entry.status
        verdict = decision.verdict
        if verdict is Verdict.REVOKE:
            if status is not Status.CONFIRMED:
                raise LedgerError(
                    f"proposal {entry.proposal.id} is {status}: only a confirmed penalty can be "
                    "revoked"
                )
            if not decision.reason.strip():
                raise LedgerError("a revocation needs a reason")
        elif status in (Status.DISMISSED, Status.REVOKED):
            raise LedgerError(f"proposal {entry.proposal.id} is already {status}")
        if verdict is Verdict.CHANGE:
            if decision.points is None or decision.points < 0:
                raise LedgerError("a change needs the new points (a whole number ≥ 0)")
            if not decision.reason.strip():
                raise LedgerError("a change needs a reason")
        if verdict is Verdict.DISMISS and not decision.reason.strip():
            raise LedgerError("a dismissal needs a reason")
        entry.decisions.append(decision)
        return entry

    def pending(self) -> list[Entry]:
        return [e for e in self.entries.values() if e.status is Status.PENDING]

    def confirmed_points(self, hand: int | None = None) -> dict[Wind, int]:
        """Confirmed point deductions per seat (all hands, or one)."""
        out = dict.fromkeys(Wind, 0)
        for e in self.entries.values():
            if e.status is Status.CONFIRMED and (hand is None or e.proposal.hand == hand):
                out[e.proposal.seat] += e.points
        return out

    def confirmed(self, hand: int | None = None) -> list[Entry]:
        return [
            e
            for e in self.entries.values()
            if e.status is Status.CONFIRMED and (hand is None or e.proposal.hand == hand)
        ]
