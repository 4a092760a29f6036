"""Every arrangement of a winning hand (WMC-7.1, 7.6): the input to freedom of count.

A regular hand is 4 sets + a pair; the concealed tiles may split several ways, and on a discard
win the winning tile may complete any set or the pair that holds it — which decides whether a
pung of that tile is concealed (SCORING: a pung completed by a discard is exposed). Seven Pairs
(optionally with four identical tiles as two pairs) and Thirteen Terminals are the irregular shapes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from functools import lru_cache

from referee.hands import MeldKind, WinningHand
from referee.tiles import TERMINALS_AND_HONOURS, Tile, format_tiles, tile_name

PAIR = -1  # ``Arrangement.win_in`` when the winning tile completes the pair


class SetKind(IntEnum):
    CHOW = 0
    PUNG = 1
    KONG = 2


class Shape(StrEnum):
    REGULAR = "regular"
    SEVEN_PAIRS = "seven_pairs"
    THIRTEEN_TERMINALS = "thirteen_terminals"


@dataclass(frozen=True, slots=True)
class TileSet:
    """One set of an arrangement. ``tile`` is the lowest tile.

    ``concealed``: for pungs and kongs, all tiles drawn by the player (the concealed-pung rule;
    a declared concealed kong counts); for chows, not claimed. ``melded``: laid before the win.
    """

    kind: SetKind
    tile: Tile
    concealed: bool
    melded: bool = False

    @property
    def is_triplet(self) -> bool:
        return self.kind is not SetKind.CHOW

    def __str__(self) -> str:
        tiles = (
            (self.tile, self.tile + 1, self.tile + 2)
            if self.kind is SetKind.CHOW
            else (self.tile,) * (4 if self.kind is SetKind.KONG else 3)
        )
        if self.kind is SetKind.CHOW and not self.melded:
            return format_tiles(tiles)
        state = "concealed" if self.concealed else "exposed"
        return f"{format_tiles(tiles)}({state})"


@dataclass(frozen=True, slots=True)
class Arrangement:
    """One way to read the hand. ``win_in`` indexes ``sets`` (or is PAIR) for regular hands."""

    shape: Shape
    sets: tuple[TileSet, ...] = ()
    pair: Tile | None = None
    pairs: tuple[Tile, ...] = ()
    win_in: int = PAIR

    def __str__(self) -> str:
        if self.shape is Shape.THIRTEEN_TERMINALS:
            return "thirteen terminals"
        if self.shape is Shape.SEVEN_PAIRS:
            return "seven pairs " + " ".join(tile_name(t) * 2 for t in self.pairs)
        assert self.pair is not None
        parts = [str(s) for s in self.sets] + [tile_name(self.pair) * 2]
        won = "pair" if self.win_in == PAIR else str(self.sets[self.win_in])
        return " ".join(parts) + f"; winning tile completes {won}"


# A split of concealed tiles: (sets as (kind, lowest tile), pair tile).
Split = tuple[tuple[tuple[SetKind, Tile], ...], Tile]


@lru_cache(maxsize=1 << 16)
def regular_splits(counts: tuple[int, ...]) -> tuple[Split, ...]:
    """All distinct ways to split a 34-count array into sets (chow/pung) and exactly one pair."""
    found: set[Split] = set()
    work = list(counts)
    for pair in range(34):
        if work[pair] < 2:
            continue
        work[pair] -= 2
        for sets in _sets_only(tuple(work)):
            found.add((sets, pair))
        work[pair] += 2
    return tuple(sorted(found))


@lru_cache(maxsize=1 << 16)
def _sets_only(counts: tuple[int, ...]) -> tuple[tuple[tuple[SetKind, Tile], ...], ...]:
    """All ways to split counts into chows and pungs only (sorted set lists)."""
    first = next((i for i, n in enumerate(counts) if n), -1)
    if first < 0:
        return ((),)
    results: list[tuple[tuple[SetKind, Tile], ...]] = []
    work = list(counts)
    if work[first] >= 3:
        work[first] -= 3
        results.extend(((SetKind.PUNG, first), *rest) for rest in _sets_only(tuple(work)))
        work[first] += 3
    if first < 27 and first % 9 <= 6 and work[first + 1] and work[first + 2]:
        for i in range(3):
            work[first + i] -= 1
        results.extend(((SetKind.CHOW, first), *rest) for rest in _sets_only(tuple(work)))
    return tuple(results)


def decompose(
    hand: WinningHand, *, four_as_two_pairs: bool = True, every_choice: bool = True
) -> list[Arrangement]:
    """Every arrangement of the hand, with every choice of the set the winning tile completes.

    ``four_as_two_pairs``: whether Seven Pairs may hold four identical tiles (SCORING 10.2).
    ``every_choice=False`` keeps one choice per split, the one that leaves the most pungs
    concealed: the choice changes nothing else, and a concealed pung never scores less.
    An empty list means no winning shape (a false win, WMC-7.1).
    """
    counts = [0] * 34
    for tile in hand.concealed:
        counts[tile] += 1
    counts[hand.win_tile] += 1
    arrangements: list[Arrangement] = []
    win = hand.win_tile
    melded = tuple(
        TileSet(_SET_KIND[m.kind], m.first, concealed=m.concealed, melded=True) for m in hand.melds
    )
    for split_sets, pair in regular_splits(tuple(counts)):
        seen: set[tuple[SetKind, Tile]] = set()
        choices: list[int] = [PAIR] if pair == win else []
        for index, (kind, tile) in enumerate(split_sets):
            holds_win = tile == win or (kind is SetKind.CHOW and tile < win <= tile + 2)
            if holds_win and (kind, tile) not in seen:
                seen.add((kind, tile))
                choices.append(index)
        if not every_choice and len(choices) > 1:
            keep = [c for c in choices if c == PAIR or split_sets[c][0] is SetKind.CHOW]
            choices = keep[:1] or choices[:1]
        for choice in choices:
            sets = tuple(
                TileSet(kind, tile, concealed=hand.self_drawn or i != choice)
                for i, (kind, tile) in enumerate(split_sets)
            )
            arrangements.append(
                Arrangement(
                    Shape.REGULAR,
                    sets=melded + sets,
                    pair=pair,
                    win_in=PAIR if choice == PAIR else len(melded) + choice,
                )
            )
    if not hand.melds:
        if all(n in (0, 2) or (n == 4 and four_as_two_pairs) for n in counts):
            pairs = tuple(t for t, n in enumerate(counts) for _ in range(n // 2))
            arrangements.append(Arrangement(Shape.SEVEN_PAIRS, pairs=pairs))
        if all(counts[t] for t in TERMINALS_AND_HONOURS) and sum(
            counts[t] for t in TERMINALS_AND_HONOURS
        ) == sum(counts):
            arrangements.append(Arrangement(Shape.THIRTEEN_TERMINALS))
    return arrangements


_SET_KIND = {MeldKind.CHOW: SetKind.CHOW, MeldKind.PUNG: SetKind.PUNG, MeldKind.KONG: SetKind.KONG}
