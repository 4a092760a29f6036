"""Wall geometry: dice counting, the break, the deal order, draws from both ends.

Geometry (fixed per hand): side ``w`` is the wall in front of seat wind ``w``; on each side the
stacks are numbered from the owner's RIGHT end leftwards (0 … S−1); a stack holds a top and a
bottom tile. Geometry position of a tile = ``(side * S + stack) * 2 + (0 top | 1 bottom)``.

After the break the wall is one line in drawing order (clockwise, WMC-3.3): the live wall head
first, the kong end last. Live draws take from the front; replacement draws (kong, MCR flower)
take from the back, top tile first (WMC-5.5). The last ``dead_wall`` undrawn tiles at the back
are never drawn (WMC-6.1); each replacement therefore moves the boundary one tile forward, which
is exactly WMC-6.4: half a stack left at the kong end sends its lower tile to the dead wall and
leaves the upper one as the seabed.
"""

from __future__ import annotations

from referee.game.profile import Profile
from referee.tiles import Tile

UNKNOWN = -1  # a wall tile nobody has seen


def counted_seat(roller: int, total: int) -> int:
    """WMC-2.2: count the roller as 1, counter-clockwise (seat index + 1 is the right player)."""
    return (roller + total - 1) % 4


def clockwise_stacks(breaker: int, stacks_per_side: int) -> list[int]:
    """Global stack indices clockwise from the breaker's rightmost stack (WMC-3.3).

    Leftwards along the breaker's wall, then on to the breaker's left neighbour (seat − 1),
    whose rightmost stack counts next (e.g. as 18 in a 17-stack wall).
    """
    out: list[int] = []
    for k in range(4 * stacks_per_side):
        side = (breaker - k // stacks_per_side) % 4
        out.append(side * stacks_per_side + k % stacks_per_side)
    return out


class Wall:
    """One hand's wall. ``tiles`` is in geometry order (UNKNOWN where unseen)."""

    __slots__ = (
        "breaker",
        "dead_size",
        "head",
        "known",
        "number",
        "order",
        "size",
        "stacks_per_side",
        "tail",
        "tiles",
    )

    def __init__(self, profile: Profile, tiles: list[Tile] | None = None) -> None:
        self.stacks_per_side = profile.stacks_per_side
        self.size = profile.total_tiles
        self.dead_size = profile.dead_wall
        self.tiles: list[Tile] = list(tiles) if tiles is not None else [UNKNOWN] * self.size
        self.known = tiles is not None  # the wall's contents were recorded when it was built
        self.order: list[int] = []  # geometry positions in drawing order, set by break_at
        self.head = 0  # tiles taken from the front (live draws and the deal)
        self.tail = 0  # tiles taken from the back (replacement draws)
        self.breaker = -1
        self.number = 0

    @property
    def is_broken(self) -> bool:
        return bool(self.order)

    def break_at(self, breaker: int, number: int) -> None:
        """WMC-3.3: ``number`` stacks from the breaker's right end form the kong end."""
        stacks = clockwise_stacks(breaker, self.stacks_per_side)
        n = number % len(stacks)
        line = stacks[n:] + stacks[:n]
        self.order = [2 * g + half for g in line for half in (0, 1)]
        self.breaker = breaker
        self.number = number
        self.head = 0
        self.tail = 0

    # ---- counts ------------------------------------------------------------------------------

    @property
    def remaining(self) -> int:
        """Tiles still standing (live and dead)."""
        return self.size - self.head - self.tail

    @property
    def live(self) -> int:
        """Tiles that may still be drawn from the front (WMC-6.1)."""
        return max(0, self.size - self.head - self.tail - self.dead_size)

    def is_last_live(self) -> bool:
        """The next live draw is the seabed (WMC-6.1)."""
        return self.live == 1

    # ---- positions ---------------------------------------------------------------------------

    def deal_positions(self) -> list[tuple[int, int]]:
        """WMC-3.4 as (seat, index in drawing order): 3 × 4 tiles each, then East's jump.

        East takes the 1st and 5th of the next five tiles; South, West, North one each.
        """
        out: list[tuple[int, int]] = []
        for rnd in range(3):
            for seat in range(4):
                start = rnd * 16 + seat * 4
                out.extend((seat, start + i) for i in range(4))
        out += [(0, 48), (0, 52), (1, 49), (2, 50), (3, 51)]
        return out

    def tail_index(self, k: int) -> int:
        """Index in drawing order of the k-th replacement tile: last stack first, top first.

        With no dead wall (MCR) head and tail meet, so the tail is taken strictly backwards.
        """
        if not self.dead_size:
            return self.size - 1 - k
        stack_from_back = k // 2
        return self.size - 2 * (stack_from_back + 1) + (k % 2)

    def next_live_position(self) -> int:
        return self.order[self.head]

    def position(self, index: int, seat: int) -> int:
        """Geometry position of the tile ``seat`` takes at drawing-order ``index``."""
        return self.order[index]

    def live_for(self, seat: int) -> int:
        """Tiles ``seat`` may still draw: the live wall (one wall for all four seats)."""
        return self.live

    def next_position(self, seat: int, replacement: bool = False) -> int:
        """Where the next live (or replacement) draw by ``seat`` comes from."""
        return self.next_tail_position() if replacement else self.next_live_position()

    def next_tail_position(self) -> int:
        return self.order[self.tail_index(self.tail)]

    def take(self, position: int) -> Tile:
        """Remove the tile at a geometry position; returns what was there (maybe UNKNOWN)."""
        tile = self.tiles[position]
        self.tiles[position] = UNKNOWN
        return tile

    def stack_heights(self) -> list[int]:
        """Per global stack: tiles still standing (for rendering)."""
        standing = [2] * (self.size // 2)
        if not self.order:
            return standing
        taken = set(self.order[: self.head])
        taken.update(self.order[self.tail_index(k)] for k in range(self.tail))
        for pos in taken:
            standing[pos // 2] -= 1
        return standing


class SeatWalls(Wall):
    """Botzone's wall: four quarters, one per seat, each dealt and drawn from by its owner only.

    Geometry: seat ``s`` owns positions ``s·Q … s·Q + Q − 1`` (Q = size / 4), in drawing order —
    first its deal (East 14: its first draw is dealt with the hand), then its draws and kong
    replacements. No dice, no break, no dead wall: a seat whose quarter is empty cannot draw, and
    the hand is drawn when the seat due to draw has none left (README §3 of the records).
    """

    __slots__ = ("dealt", "quarter", "taken")

    def __init__(self, profile: Profile, tiles: list[Tile] | None = None) -> None:
        super().__init__(profile, tiles)
        self.quarter = self.size // 4
        self.order = list(range(self.size))  # no break: the quarters are the drawing order
        self.dealt = [14, 13, 13, 13]
        self.taken = list(self.dealt)  # per seat: the next index in its quarter

    def deal_positions(self) -> list[tuple[int, int]]:
        return [(s, s * self.quarter + k) for s in range(4) for k in range(self.dealt[s])]

    def position(self, index: int, seat: int) -> int:
        return seat * self.quarter + min(self.taken[seat], self.quarter - 1)

    def live_for(self, seat: int) -> int:
        return self.quarter - self.taken[seat]

    def next_position(self, seat: int, replacement: bool = False) -> int:
        return self.position(0, seat)

    def take(self, position: int) -> Tile:
        seat, k = divmod(position, self.quarter)
        if k >= self.taken[seat]:
            self.taken[seat] = k + 1
        return super().take(position)


def make_wall(profile: Profile, tiles: list[Tile] | None = None) -> Wall:
    """The wall a profile plays with: one shared wall, or Botzone's four quarters. Without
    dice nobody breaks it: its geometry order is the drawing order."""
    if profile.seat_walls:
        return SeatWalls(profile, tiles)
    wall = Wall(profile, tiles)
    if not profile.dice:
        wall.order = list(range(wall.size))
    return wall
