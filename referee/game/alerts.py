"""Alerts: what the engine tells referees. Each cites the rule it applies (shared/rules)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from referee.hands import Wind


def proposal_id(rule: str, seq: int, seat: Wind, tag: str = "") -> str:
    """``RULE@SEQ:SEAT`` (plus ``:tag`` when one event gives several of a rule to one seat): the
    stable id of the proposal an alert gives — and of the restriction the engine applied with
    it, which a referee's dismissal lifts (EVENTS.md)."""
    return f"{rule}@{seq}:{seat.name}" + (f":{tag}" if tag else "")


# Not WMC rules: the record itself needs a referee (referee/EVENTS.md, "A damaged record").
SYS_SEQ = "SYS-seq"  # a seq repeated, in conflict, or missing (a gap)
SYS_ORDER = "SYS-order"  # a line read after a higher seq (replayed in seq order)
SYS_CLOCK = "SYS-clock"  # the table clock ran backwards
SYS_HAND = "SYS-hand"  # a hand without a result in the record (a new wall came first)
SYS_END = "SYS-end"  # the record ends inside a hand
SYS_RECORD = "SYS-record"  # a correction of the record refused: play went on past what it names
SYS_PARTED = "SYS-parted"  # events refused in a row: the record may have parted from the table
RECORD_RULES = frozenset({SYS_SEQ, SYS_CLOCK, SYS_HAND, SYS_END})
"""A replay that raised one of these did not get the whole record: it does not exit 0."""
DAMAGE_RULES = (SYS_SEQ, SYS_HAND)
"""Marks after which a hand's findings may come from the hole in the record, not a player."""


def damage_mark(marks: list[str]) -> str:
    """The first mark of damage to a hand's record ("" when it has none)."""
    return next((m for m in marks if m.split("@")[0] in DAMAGE_RULES), "")


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    VIOLATION = "violation"
    CRITICAL = "critical"


@dataclass(frozen=True, slots=True)
class Alert:
    """One finding. ``seq`` is the event that caused it; ``rejected`` if that event was refused.

    ``evidence``: seqs of earlier events behind it (the call of an empty claim, the exposure of
    a penalty tile). ``penalty``/``points``: the penalty the rules fix for it (a
    :class:`referee.penalties.PenaltyKind` value), which the duties layer proposes to a referee.
    """

    rule: str
    severity: Severity
    message: str
    seq: int
    seat: Wind | None = None
    rejected: bool = True
    evidence: tuple[int, ...] = ()
    penalty: str = ""
    points: int = 0
    # The mark (``SYS-seq@SEQ``) of damage to this hand's record before this finding: the
    # finding may come from the hole, not from a player, so no penalty is proposed for it.
    damaged: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule,
            "severity": str(self.severity),
            "message": self.message,
            "seq": self.seq,
            "seat": self.seat.name if self.seat is not None else None,
            "rejected": self.rejected,
        }
        if self.evidence:
            out["evidence"] = list(self.evidence)
        if self.penalty:
            out["penalty"] = self.penalty
            out["points"] = self.points
        if self.damaged:
            out["damaged"] = self.damaged
        return out

    def __str__(self) -> str:
        who = f" {self.seat.name}" if self.seat is not None else ""
        return f"[{self.rule}] {self.severity}{who} @{self.seq}: {self.message}"
