"""Alerts: what the engine tells referees. Each cites the rule it applies (shared/rules)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from referee.hands import Wind


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    VIOLATION = "violation"
    CRITICAL = "critical"


@dataclass(frozen=True, slots=True)
class Alert:
    """One finding. ``seq`` is the event that caused it; ``rejected`` if that event was refused."""

    rule: str
    severity: Severity
    message: str
    seq: int
    seat: Wind | None = None
    rejected: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": str(self.severity),
            "message": self.message,
            "seq": self.seq,
            "seat": self.seat.name if self.seat is not None else None,
            "rejected": self.rejected,
        }

    def __str__(self) -> str:
        who = f" {self.seat.name}" if self.seat is not None else ""
        return f"[{self.rule}] {self.severity}{who} @{self.seq}: {self.message}"
