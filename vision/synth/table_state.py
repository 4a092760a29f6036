"""What lies on the table after each event of a game log: the physical layout a camera sees.

The log is replayed through the referee engine, and after each event the hand's state is laid
out in the slots of vision/zones: river tiles in rows of 6, melds with the claimed tile sideways
(left, middle or right cell for a tile from the left, opposite or right player), concealed kongs
with the outer two face down, penalty tiles face up, wall stacks as they stand, the standing hand
as a count, the last roll's two dice in the middle, and at a win the winner's hand laid down
face up.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from referee.events import Event
from referee.game.state import HandState
from referee.game.table import Table
from referee.hands import Meld, Relative
from referee.tiles import tile_name
from vision.zones import MELD_CELLS, SEATS, STACKS

ACTION_TYPES = ("draw", "replacement_draw", "discard", "chow", "pung", "kong", "win")


@dataclass(frozen=True)
class Placed:
    """A tile in a slot: its name (``back`` when face down) and whether it lies sideways."""

    tile: str
    sideways: bool = False


@dataclass
class Layout:
    """The physical table: lying tiles by slot key, wall stack heights, standing-hand counts."""

    tiles: dict[str, Placed] = field(default_factory=dict)
    wall: dict[str, int] = field(default_factory=dict)  # SEAT/wall/i → 0, 1 or 2 tiles
    standing: dict[str, int] = field(default_factory=dict)  # seat → tiles standing
    dice: tuple[int, int] | None = None  # the last roll, lying in the middle of the table


@dataclass(frozen=True)
class Action:
    """A physical action and its time: what the camera should reconstruct."""

    t: float
    type: str
    seat: str
    tile: str | None
    edge: str  # the table edge the player sits at (his place this hand, WMC-2.4)

    def to_json(self) -> dict[str, object]:
        return {"t": self.t, "type": self.type, "seat": self.seat, "tile": self.tile}


def meld_cells(meld: Meld) -> list[Placed]:
    """The tiles of a meld from the player's left: the claimed one sideways at its source's side;
    a concealed kong shows its middle two."""
    names = [tile_name(t) for t in meld.tiles]
    if meld.concealed:
        return [Placed("back"), Placed(names[1]), Placed(names[2]), Placed("back")]
    if meld.claimed_from is None or meld.claimed_tile is None:
        return [Placed(n) for n in names]
    rest = list(names)
    rest.remove(tile_name(meld.claimed_tile))
    at = {Relative.LEFT: 0, Relative.OPPOSITE: 1, Relative.RIGHT: len(names) - 1}[meld.claimed_from]
    cells = [Placed(n) for n in rest]
    cells.insert(at, Placed(tile_name(meld.claimed_tile), sideways=True))
    return cells


def edge_of(hand: HandState, seat: str) -> str:
    """The table edge a seat wind sits at in this hand: the dealer at his place's (WMC-2.4)."""
    return SEATS[(hand.dealer_place + SEATS.index(seat)) % 4]


def layout_of(hand: HandState | None, winner: str | None = None) -> Layout:
    out = Layout()
    if hand is None:  # a new wall stands from wall_built (the machine raised it), unbroken
        return out
    heights = hand.wall.stack_heights()
    for side, wind in enumerate(SEATS):  # each seat's wall and tiles at its place's edge
        seat = hand.seats[side]
        seat_name = edge_of(hand, wind)
        per_side = hand.wall.stacks_per_side
        for i in range(min(per_side, STACKS)):
            out.wall[f"{seat_name}/wall/{i}"] = heights[side * per_side + i]
        for i, t in enumerate(seat.river):
            out.tiles[f"{seat_name}/river/{i}"] = Placed(tile_name(t))
        for m, meld in enumerate(seat.melds[:4]):
            for c, placed in enumerate(meld_cells(meld)):
                out.tiles[f"{seat_name}/meld/{m * MELD_CELLS + c}"] = placed
        for i, t in enumerate(seat.penalty[:6]):
            out.tiles[f"{seat_name}/penalty/{i}"] = Placed(tile_name(t))
        concealed = seat.concealed
        if wind == winner:
            for i, t in enumerate(concealed[:14]):
                out.tiles[f"{seat_name}/hand/{i}"] = Placed(tile_name(t))
        else:
            out.standing[seat_name] = len(concealed)
    return out


def replay_layouts(events: Iterable[Event]) -> list[tuple[float, Action | None, Layout]]:
    """(time, the action of the event or None, the layout after it) for each event."""
    table = Table()
    out: list[tuple[float, Action | None, Layout]] = []
    winner: str | None = None
    dice: tuple[int, int] | None = None
    for event in events:
        if event.type == "wall_built":
            winner, dice = None, None
        table.apply(event)
        if event.type == "dice_rolled":
            dice = tuple(event.payload.dice)  # type: ignore[attr-defined]
        payload = event.payload
        seat = getattr(payload, "seat", None)
        seat_name = seat.name if seat is not None and hasattr(seat, "name") else seat
        if event.type == "win":
            winner = str(seat_name)
        action = None
        if event.type in ACTION_TYPES and isinstance(seat_name, str):
            tile = getattr(payload, "tile", None)
            hand = table.state.hand
            if event.type in ("chow", "pung") and hand is not None:
                melds = hand.seats["ESWN".index(seat_name)].melds
                tile = melds[-1].claimed_tile if melds else None
            edge = edge_of(hand, seat_name) if hand is not None else seat_name
            action = Action(event.ts, event.type, seat_name, _name(tile), edge)
        layout = layout_of(table.state.hand, winner)
        layout.dice = dice
        out.append((event.ts, action, layout))
    return out


def _name(tile: object) -> str | None:
    if tile is None:
        return None
    if isinstance(tile, int):
        return tile_name(tile)
    if isinstance(tile, tuple | list):
        return "".join(tile_name(t) for t in tile)
    return str(tile)
