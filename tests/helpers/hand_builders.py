"""Build a hand in one line from the notation: the test suites' common vocabulary."""

from __future__ import annotations

from collections.abc import Iterable

from referee.hands import Flag, Meld, WinBy, Wind, WinningHand
from referee.tiles import parse_tile, parse_tiles


def hand(
    concealed: str,
    win: str,
    *,
    melds: Iterable[Meld | str] = (),
    by: str = "discard",
    seat: str = "E",
    prevalent: str = "E",
    flags: Iterable[str] = (),
    flowers: int = 0,
) -> WinningHand:
    """``hand("123m456m789p22s3s", "3s", melds=["CCC"], by="self")``; "k:5555p" = concealed kong."""
    built: list[Meld] = []
    for m in melds:
        if isinstance(m, Meld):
            built.append(m)
        elif m.startswith("k:"):
            built.append(Meld.parse(m[2:], concealed=True))
        else:
            built.append(Meld.parse(m))
    return WinningHand(
        concealed=tuple(parse_tiles(concealed)),
        win_tile=parse_tile(win),
        win_by=WinBy(by),
        melds=tuple(built),
        seat=Wind[seat],
        prevalent=Wind[prevalent],
        flowers=flowers,
        flags=frozenset(Flag(f) for f in flags),
    )
