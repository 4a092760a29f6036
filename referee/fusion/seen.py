"""What the camera reports of a zone, and what one reading of a change names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from referee.events import Payload
from referee.hands import Wind
from referee.tiles import Tile, tile_name

UNSEEN_P = 0.001  # the likelihood of a tile the camera did not name among a slot's readings


@dataclass(frozen=True)
class SlotSeen:
    """One slot as the camera reads it: ``tile`` None = face down; ``alternatives``: the
    other tiles it might be, each with its probability, likeliest first."""

    index: int
    tile: Tile | None
    sideways: bool = False
    confidence: float = 1.0
    alternatives: tuple[tuple[Tile, float], ...] = ()

    def likelihood(self, tile: Tile) -> float:
        """How likely the camera thinks this slot holds ``tile``."""
        if tile == self.tile:
            return self.confidence
        return dict(self.alternatives).get(tile, UNSEEN_P)

    def readings(self) -> list[tuple[Tile, float]]:
        """The tiles this slot may hold, likeliest first (none for a face-down tile)."""
        if self.tile is None:
            return []
        return [(self.tile, self.confidence), *self.alternatives]


class Option(NamedTuple):
    """What one reading of a change names: its actions, its likelihood, and the tile it puts
    in each slot of the observed zone that it read."""

    actions: list[Payload]  # none: the readings the camera did not name, weighed together
    likelihood: float
    tiles: tuple[tuple[int, Tile, bool], ...] = ()  # (slot, tile, sideways)


@dataclass(frozen=True)
class ZoneSeen:
    """What one zone shows now (``zone``: wall, hand, river, meld, penalty); ``seat``: the
    table edge as the camera sees it (E, S, W, N), which fusion names by the seat wind sitting
    there this hand; ``count`` is what cannot be named (wall stacks standing, standing tiles)."""

    ts: float
    seat: Wind
    zone: str
    slots: tuple[SlotSeen, ...] = ()
    count: int | None = None
    evidence: str = ""

    def to_data(self) -> dict[str, object]:
        return {
            "seat": self.seat.name,
            "zone": self.zone,
            "count": self.count,
            "slots": [
                [
                    s.index,
                    tile_name(s.tile) if s.tile is not None else "back",
                    s.sideways,
                    round(s.confidence, 3),
                    *([[[tile_name(t), p] for t, p in s.alternatives]] if s.alternatives else []),
                ]
                for s in self.slots
            ],
            "evidence": self.evidence,
        }


@dataclass(frozen=True)
class FusionAlert:
    rule: str
    message: str
    ts: float
    seat: Wind | None
    evidence: tuple[str, ...]
