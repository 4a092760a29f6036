"""Stabiliser: a slot changes only when the same reading is seen over several readings.

Each slot keeps its committed reading and the recent candidates; a new reading is committed
once it wins ``agree`` of the last ``window`` readings. An occluded slot is not read at all:
occlusion is a state (shown, counted) and never deletes or changes a tile. The confidence of a
committed slot is the share of readings that agreed times the recognizer's mean confidence.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

Reading = tuple[str, bool]  # (label or "empty"/"back", sideways)


@dataclass
class SlotState:
    reading: Reading = ("empty", False)
    confidence: float = 1.0
    recent: list[tuple[Reading, float]] = field(default_factory=list)
    occluded: bool = False

    @property
    def pending(self) -> bool:
        return bool(self.recent)


@dataclass
class Stabiliser:
    agree: int = 2
    window: int = 3
    slots: dict[str, SlotState] = field(default_factory=dict)

    def state(self, key: str) -> SlotState:
        return self.slots.setdefault(key, SlotState())

    def occlude(self, key: str, hidden: bool) -> None:
        self.state(key).occluded = hidden

    def see(self, key: str, reading: Reading, conf: float) -> bool:
        """One reading of a slot; True when it changes the committed state."""
        s = self.state(key)
        s.occluded = False
        if reading == s.reading and not s.recent:
            return False
        s.recent = [*s.recent, (reading, conf)][-self.window :]
        votes = Counter(r for r, _ in s.recent)
        best, n = votes.most_common(1)[0]
        if n < self.agree:
            return False
        confs = [c for r, c in s.recent if r == best]
        changed = best != s.reading
        s.reading = best
        s.confidence = n / len(s.recent) * sum(confs) / len(confs)
        s.recent = []
        return changed
