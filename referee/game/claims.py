"""Claims on a discard: who may claim what, and which claim wins (WMC-5.1–5.7).

Pure functions on seats and count arrays, so that the engine, the simulator's players and the
tests share one definition of priority.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.events import CallKind
from referee.hands import Relative, Wind
from referee.tiles import Tile, is_suited

WINDS: tuple[Wind, Wind, Wind, Wind] = (Wind.E, Wind.S, Wind.W, Wind.N)
"""Seat winds by index: ``WINDS[i]`` is ``Wind(i)`` without the Enum call (hot paths)."""
NEXT: tuple[Wind, Wind, Wind, Wind] = (Wind.S, Wind.W, Wind.N, Wind.E)
"""The next player counter-clockwise (the discarder's right, 下家): ``NEXT[s] == Wind((s+1)%4)``."""
_RELATIVE = (Relative.LEFT, Relative.LEFT, Relative.OPPOSITE, Relative.RIGHT)


def relative(claimer: Wind, discarder: Wind) -> Relative:
    """Where the discarder sits, seen from the claimer (left = previous player, 上家)."""
    r = (claimer - discarder) % 4
    if not r:
        raise ValueError(f"{claimer.name} cannot claim from himself")
    return _RELATIVE[r]


def rank(call: CallKind, claimer: Wind, discarder: Wind) -> tuple[int, int]:
    """WMC-5.7, lower is stronger: 1a win by the next player, 1b opposite, 1c left;
    2 pung / exposed kong; 3 chow."""
    if call is CallKind.WIN:
        return (0, (claimer - discarder) % 4)
    if call is CallKind.CHOW:
        return (2, 0)
    return (1, 0)


def _chow_table(tile: Tile) -> tuple[tuple[tuple[Tile, Tile, Tile], Tile, Tile], ...]:
    """The runs a suited tile can belong to, each with the two other tiles it needs."""
    out: list[tuple[tuple[Tile, Tile, Tile], Tile, Tile]] = []
    for start in (tile - 2, tile - 1, tile):
        if start < 0 or start // 9 != tile // 9 or start % 9 > 6:
            continue
        a, b = (t for t in (start, start + 1, start + 2) if t != tile)
        out.append(((start, start + 1, start + 2), a, b))
    return tuple(out)


_CHOWS = tuple(_chow_table(t) for t in range(27))


def chow_options(counts: Sequence[int], tile: Tile) -> list[tuple[Tile, Tile, Tile]]:
    """Chows the tile can complete from the concealed counts (WMC-5.4)."""
    if not is_suited(tile):
        return []
    return [run for run, a, b in _CHOWS[tile] if counts[a] >= 1 and counts[b] >= 1]
