"""Claims on a discard: who may claim what, and which claim wins (WMC-5.1–5.7).

Pure functions on seats and count arrays, so that the engine, the simulator's players and the
tests share one definition of priority.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.events import CallKind
from referee.hands import Relative, Wind
from referee.tiles import Tile, is_suited


def relative(claimer: Wind, discarder: Wind) -> Relative:
    """Where the discarder sits, seen from the claimer (left = previous player, 上家)."""
    return Relative((claimer - discarder) % 4)


def rank(call: CallKind, claimer: Wind, discarder: Wind) -> tuple[int, int]:
    """WMC-5.7, lower is stronger: 1a win by the next player, 1b opposite, 1c left;
    2 pung / exposed kong; 3 chow."""
    if call is CallKind.WIN:
        return (0, (claimer - discarder) % 4)
    if call is CallKind.CHOW:
        return (2, 0)
    return (1, 0)


def chow_options(counts: Sequence[int], tile: Tile) -> list[tuple[Tile, Tile, Tile]]:
    """Chows the tile can complete from the concealed counts (WMC-5.4)."""
    if not is_suited(tile):
        return []
    out: list[tuple[Tile, Tile, Tile]] = []
    for start in (tile - 2, tile - 1, tile):
        if start < 0 or start // 9 != tile // 9 or start % 9 > 6:
            continue
        others = [t for t in (start, start + 1, start + 2) if t != tile]
        if all(counts[t] >= 1 for t in others):
            out.append((start, start + 1, start + 2))
    return out


def can_chow(claimer: Wind, discarder: Wind, counts: Sequence[int], tile: Tile) -> bool:
    return relative(claimer, discarder) is Relative.LEFT and bool(chow_options(counts, tile))


def can_pung(counts: Sequence[int], tile: Tile) -> bool:
    return counts[tile] >= 2


def can_exposed_kong(counts: Sequence[int], tile: Tile) -> bool:
    return counts[tile] >= 3
