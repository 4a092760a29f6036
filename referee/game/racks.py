"""The table's tile counts, read from what happened and nothing else: the yardstick for the record.

A :class:`RackCount` follows each seat's count (WMC-10.1: concealed tiles plus three per set, a
kong counting three) from the events alone — a draw adds one, a discard takes one, a claim adds
the discard, a kong from the hand uses one — without the engine's rules or state. Where the
engine refuses an event that happened, or applies one that did not, its count for that seat
parts from this one: benches and tests compare the two after every event (issue 32: an
irregularity that happened stands, so the record must keep following the table).
"""

from __future__ import annotations

from referee.events import (
    Chow,
    Deal,
    Discard,
    Draw,
    Event,
    FlowerSetAside,
    Kong,
    KongKind,
    MeldCorrected,
    Pung,
    ReplacementDraw,
    WallBuilt,
    WallFlipped,
)
from referee.game.state import HandState, Phase
from referee.hands import Wind

DEALT = 13
"""Each seat's deal; East, the dealer, takes one more."""


class RackCount:
    """Each seat's tile count as the table has it, event by event, for one hand at a time."""

    def __init__(self) -> None:
        self.counts: dict[Wind, int] = {}
        self._claimed: dict[Wind, bool] = {}  # a wrong claim's withdrawal gives the tile back
        self._taker: Wind | None = None  # who holds the last discard (a chow punged gives it up)

    def apply(self, ev: Event) -> None:
        """Follow one event that happened (leave out those that did not)."""
        p = ev.payload
        if isinstance(p, WallBuilt):
            self.counts = {}
            return
        if isinstance(p, Deal):
            counts = p.counts or {}
            hands = p.hands or {}
            self.counts = {
                w: len(hands[w]) if w in hands else counts.get(w, DEALT + (w is Wind.E))
                for w in Wind
            }
            return
        if not self.counts:
            return
        if isinstance(p, Draw | ReplacementDraw):
            self.counts[p.seat] += 1
        elif isinstance(p, WallFlipped) and p.next:
            self.counts[p.seat] += 1  # his next tile, taken as a live penalty tile (WMC-4.9)
        elif isinstance(p, Discard | FlowerSetAside):
            self.counts[p.seat] -= 1
            self._taker = None
        elif isinstance(p, Chow | Pung) or (isinstance(p, Kong) and p.kind is KongKind.EXPOSED):
            if self._taker is not None and self._taker is not p.seat:
                self.counts[self._taker] -= 1  # a claim by priority takes the discard from him
            self.counts[p.seat] += 0 if isinstance(p, Kong) else 1  # a kong counts three
            self._claimed[p.seat] = True
            self._taker = p.seat
        elif isinstance(p, Kong):
            self.counts[p.seat] -= 1  # four tiles from the hand, counted three
            self._claimed[p.seat] = False
        elif isinstance(p, MeldCorrected) and not p.tiles and self._claimed.get(p.seat):
            self.counts[p.seat] -= 1  # withdrawn: the discard is claimable again
            self._taker = None

    def parted(self, hand: HandState | None) -> list[Wind]:
        """The seats whose count in the record (the engine's hand in play) is not the table's."""
        if hand is None or hand.phase is Phase.IDLE or not self.counts:
            return []
        return [w for w, n in self.counts.items() if hand.seats[w].size != n]
