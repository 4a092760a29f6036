"""The melds a claim can make, and how well the camera's reading of the cells fits each."""

from __future__ import annotations

import itertools
import math

from referee.events import Chow, Kong, KongKind, Payload, Pung
from referee.fusion.seen import Option, SlotSeen
from referee.hands import Wind
from referee.tiles import Tile

MELD_CELLS = 4


def by_meld(cells: dict[int, SlotSeen]) -> dict[int, list[SlotSeen]]:
    """A meld zone's cells by meld, each meld's in cell order."""
    out: dict[int, list[SlotSeen]] = {}
    for i in sorted(cells):
        out.setdefault(i // MELD_CELLS, []).append(cells[i])
    return out


def claimed_cell(seat: Wind, source: Wind, size: int) -> int | None:
    """The cell of a meld of ``size`` where the tile claimed from ``source`` lies sideways:
    left for the left player's, middle for the opposite one's, right for the right one's."""
    return {3: 0, 2: 1, 1: size - 1}.get((source - seat) % 4)


def claims(
    seat: Wind,
    cells: list[SlotSeen],
    source: Wind,
    claimed: Tile,
    before: list[Payload],
    weight: float = 1.0,
) -> list[Option]:
    """The melds ``cells`` can be as ``seat``'s claim of ``claimed`` from ``source`` (after
    the actions ``before``), each weighed by how the camera read the cells (times ``weight``:
    how likely ``before`` is)."""
    at = claimed_cell(seat, source, len(cells))  # where its sideways tile lies
    turned = [c.index % MELD_CELLS for c in cells if c.sideways]
    if at is None or turned not in ([], [at]):
        return []  # not the source's tile (yet): an alert if it stays so
    options = []
    for tiles in claims_of(claimed, len(cells)):
        # the cells in the order the camera read best, the claimed tile sideways at its
        # source's side (where the camera may have missed the sideways mark)
        orders = [o for o in set(itertools.permutations(tiles)) if o[at] == claimed]
        order = max(orders, key=lambda o: likelihood(cells, o))
        if len(tiles) == 4:
            action: Payload = Kong(seat=seat, kind=KongKind.EXPOSED, tile=claimed, tiles=tiles)
        elif len(set(tiles)) == 1:
            action = Pung(seat=seat, tiles=tiles)
        else:
            action = Chow(seat=seat, tiles=tiles)
        named = tuple(
            (c.index, t, k == at) for k, (c, t) in enumerate(zip(cells, order, strict=True))
        )
        options.append(Option([*before, action], weight * likelihood(cells, order), named))
    return options


def claims_of(tile: Tile, size: int) -> list[tuple[Tile, ...]]:
    """The melds of ``size`` tiles that a claim of ``tile`` can make (sorted tiles)."""
    if size == 4:
        return [(tile,) * 4]
    out: list[tuple[Tile, ...]] = [(tile,) * 3]
    if tile < 27:  # a suited tile: the runs through it, within its suit
        rank = tile % 9
        out += [tuple(range(tile - k, tile - k + 3)) for k in range(3) if 0 <= rank - k <= 6]
    return out


def likelihood(cells: list[SlotSeen], tiles: tuple[Tile, ...]) -> float:
    return math.prod(c.likelihood(t) for c, t in zip(cells, tiles, strict=True))
