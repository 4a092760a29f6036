"""Tile kinds and the text notation of shared/testdata (WMC-1.1, MCR flowers).

A tile is a plain ``int`` index so that hands are cheap tuples and count arrays:

====== ========================================= ===========
index  tiles                                     notation
====== ========================================= ===========
0–8    characters 萬 1–9                          ``1m``–``9m``
9–17   dots 筒 1–9                                ``1p``–``9p``
18–26  bamboo 索 1–9                              ``1s``–``9s``
27–30  winds 東南西北                             ``E S W N``
31–33  dragons 白 發 中 (white, green, red)       ``P F C``
34–41  flowers 春夏秋冬梅蘭竹菊 (MCR only)        ``1f``–``8f``
====== ========================================= ===========

In the notation digits bind to the next suit letter (``234m5s`` = 2m 3m 4m 5s); honours are
single letters. Flowers follow the suit rule with the letter ``f``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Tile = int

SUITS = "mps"
HONOURS = "ESWNPFC"
FLOWER_SUIT = "f"

EAST, SOUTH, WEST, NORTH = 27, 28, 29, 30
WHITE, GREEN, RED = 31, 32, 33
FIRST_FLOWER = 34
NUM_KINDS = 34  # playing-tile kinds (WMC-1.1)
NUM_FLOWERS = 8
ALL_KINDS: tuple[Tile, ...] = tuple(range(NUM_KINDS))
WINDS: tuple[Tile, ...] = (EAST, SOUTH, WEST, NORTH)
DRAGONS: tuple[Tile, ...] = (WHITE, GREEN, RED)
TERMINALS: tuple[Tile, ...] = (0, 8, 9, 17, 18, 26)
TERMINALS_AND_HONOURS: tuple[Tile, ...] = (*TERMINALS, *range(27, 34))

_SUIT_CHARS = SUITS + FLOWER_SUIT


class NotationError(ValueError):
    """A tile string that does not follow the notation; says which character and where."""

    def __init__(self, text: str, position: int, message: str) -> None:
        self.text = text
        self.position = position
        super().__init__(f"{message} at position {position} in {text!r}")


def is_suited(tile: Tile) -> bool:
    return 0 <= tile < 27


def is_honour(tile: Tile) -> bool:
    return 27 <= tile < 34


def is_wind(tile: Tile) -> bool:
    return 27 <= tile <= 30


def is_dragon(tile: Tile) -> bool:
    return 31 <= tile <= 33


def is_flower(tile: Tile) -> bool:
    return FIRST_FLOWER <= tile < FIRST_FLOWER + NUM_FLOWERS


def is_terminal(tile: Tile) -> bool:
    """Suit 1 or 9 (WMC-1.2); honours are not terminals."""
    return is_suited(tile) and tile % 9 in (0, 8)


def is_simple(tile: Tile) -> bool:
    return is_suited(tile) and 1 <= tile % 9 <= 7


def suit_of(tile: Tile) -> int:
    """0 characters, 1 dots, 2 bamboo; only for suited tiles."""
    return tile // 9


def number_of(tile: Tile) -> int:
    """1–9 for suited tiles (and 1–8 for flowers)."""
    if is_flower(tile):
        return tile - FIRST_FLOWER + 1
    return tile % 9 + 1


def make(suit: int, number: int) -> Tile:
    return suit * 9 + number - 1


def tile_name(tile: Tile) -> str:
    """The single-tile notation: ``5m``, ``E``, ``C``, ``3f``."""
    if is_suited(tile):
        return f"{tile % 9 + 1}{SUITS[tile // 9]}"
    if is_honour(tile):
        return HONOURS[tile - 27]
    if is_flower(tile):
        return f"{number_of(tile)}{FLOWER_SUIT}"
    raise ValueError(f"not a tile index: {tile!r} (expected 0–41)")


def parse_tiles(text: str) -> list[Tile]:
    """Parse ``"234m5sEE"`` into tile indices, in the order written.

    Spaces are ignored. Errors name the offending character and its 0-based position.
    """
    tiles: list[Tile] = []
    pending: list[tuple[int, int]] = []  # (digit, position) waiting for their suit letter
    for pos, ch in enumerate(text):
        if ch.isspace():
            continue
        if ch.isdigit():
            pending.append((int(ch), pos))
        elif ch in _SUIT_CHARS:
            if not pending:
                raise NotationError(text, pos, f"suit letter {ch!r} has no number before it")
            for digit, dpos in pending:
                if ch == FLOWER_SUIT:
                    if not 1 <= digit <= NUM_FLOWERS:
                        raise NotationError(text, dpos, f"flower number {digit} is not 1–8")
                    tiles.append(FIRST_FLOWER + digit - 1)
                else:
                    if digit == 0:
                        raise NotationError(text, dpos, "tile number 0 is not 1–9")
                    tiles.append(make(SUITS.index(ch), digit))
            pending.clear()
        elif ch in HONOURS:
            if pending:
                raise NotationError(
                    text, pending[0][1], f"number {pending[0][0]} is not followed by m, p, s or f"
                )
            tiles.append(27 + HONOURS.index(ch))
        else:
            raise NotationError(
                text, pos, f"unexpected character {ch!r} (expected 1–9, m p s f, or E S W N P F C)"
            )
    if pending:
        raise NotationError(
            text, pending[0][1], f"number {pending[0][0]} is not followed by m, p, s or f"
        )
    return tiles


def parse_tile(text: str) -> Tile:
    """Exactly one tile, e.g. ``"5s"`` or ``"C"``."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise NotationError(text, 0, f"expected exactly one tile, found {len(tiles)}")
    return tiles[0]


def format_tiles(tiles: Iterable[Tile]) -> str:
    """The compact notation: ``[1, 2, 3, 22, 27]`` → ``"234m5sE"``.

    Order is kept; consecutive tiles of the same suit share one letter.
    ``parse_tiles(format_tiles(t)) == list(t)`` for every sequence of valid tiles.
    """
    out: list[str] = []
    run_suit: str | None = None
    for tile in tiles:
        if is_honour(tile):
            if run_suit is not None:
                out.append(run_suit)
                run_suit = None
            out.append(HONOURS[tile - 27])
            continue
        name = tile_name(tile)
        digit, suit = name[:-1], name[-1]
        if run_suit is not None and run_suit != suit:
            out.append(run_suit)
        out.append(digit)
        run_suit = suit
    if run_suit is not None:
        out.append(run_suit)
    return "".join(out)


def sort_tiles(tiles: Iterable[Tile]) -> list[Tile]:
    return sorted(tiles)


def counts_of(tiles: Sequence[Tile]) -> list[int]:
    """A 42-long count array (34 kinds + 8 flowers)."""
    counts = [0] * (NUM_KINDS + NUM_FLOWERS)
    for tile in tiles:
        counts[tile] += 1
    return counts


def minus(a: Iterable[Tile], b: Iterable[Tile]) -> list[Tile]:
    """Multiset difference ``a − b``, sorted: what ``a`` holds beyond ``b``."""
    rest = list(a)
    for t in b:
        if t in rest:
            rest.remove(t)
    return sorted(rest)
