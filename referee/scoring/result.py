"""What every scoring profile returns: the total, the counted patterns, and why a hand fails."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.decompose import Arrangement


@dataclass(frozen=True, slots=True)
class PatternScore:
    """One counted pattern (or MCR fan): ``points`` per occurrence, ``count`` occurrences."""

    id: str
    name: str
    name_zh: str
    points: int
    count: int = 1

    @property
    def subtotal(self) -> int:
        return self.points * self.count

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "name_zh": self.name_zh,
            "points": self.points,
            "count": self.count,
        }


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """The value of a declared win under one profile.

    ``valid`` is False for a false win (no winning shape, WMC-7.1; under the minimum, WMC-12.3 /
    MCR 8 fan); ``reason`` then says why, citing the rule. ``limit`` names a limit that applied.
    ``arrangement`` is the counted arrangement (freedom of count, WMC-7.6); its text is built
    only when shown.
    """

    profile: str
    valid: bool
    total: int
    patterns: tuple[PatternScore, ...] = ()
    reason: str | None = None
    limit: str | None = None
    arrangement: Arrangement | None = None
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "valid": self.valid,
            "total": self.total,
            "patterns": [p.to_json() for p in self.patterns],
        }
        if self.reason:
            out["reason"] = self.reason
        if self.limit:
            out["limit"] = self.limit
        if self.arrangement:
            out["arrangement"] = str(self.arrangement)
        return out
