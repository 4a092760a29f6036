"""Fast winning-shape checks on count arrays (WMC-7.1): complete hands and waits.

The engine asks the scorer for the value of a declared win; this module is the cheap pre-check
that the simulator's players (and priority checks on pending win calls, WMC-5.7) run many times
per hand. A regular hand splits into independent parts — three suits and the honours — each of
which must be sets only, except one that holds the pair; per-part results are cached by the
part's count tuple, so a check is a handful of dictionary look-ups.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from operator import itemgetter

from referee.tiles import TERMINALS_AND_HONOURS, Tile


@cache
def _suit_sets(key: tuple[int, ...]) -> bool:
    """Sets only (pungs and chows) for one suit's 9 counts."""
    i = next((k for k, c in enumerate(key) if c), -1)
    if i < 0:
        return True
    n = key[i]
    if n >= 3:
        rest = list(key)
        rest[i] -= 3
        if _suit_sets(tuple(rest)):
            return True
    if i <= 6 and key[i + 1] and key[i + 2]:
        rest = list(key)
        rest[i] -= 1
        rest[i + 1] -= 1
        rest[i + 2] -= 1
        return _suit_sets(tuple(rest))
    return False


@cache
def _suit_state(key: tuple[int, ...]) -> int:
    """1: sets only; 2: sets + one pair; 0: neither (one suit)."""
    total = sum(key)
    if total % 3 == 0:
        return 1 if _suit_sets(key) else 0
    if total % 3 == 2:
        for i, n in enumerate(key):
            if n >= 2:
                rest = list(key)
                rest[i] -= 2
                if _suit_sets(tuple(rest)):
                    return 2
    return 0


@cache
def _honour_state(key: tuple[int, ...]) -> int:
    pairs = 0
    for n in key:
        if n == 2:
            pairs += 1
        elif n not in (0, 3):
            return 0
    return 1 if pairs == 0 else 2 if pairs == 1 else 0


@cache
def _suit_adds(key: tuple[int, ...], honours: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Offsets whose addition makes the part sets-only (first) or sets+pair (second)."""
    state = _honour_state if honours else _suit_state
    w0: list[int] = []
    w1: list[int] = []
    for i, n in enumerate(key):
        if n >= 4:
            continue
        grown = list(key)
        grown[i] += 1
        s = state(tuple(grown))
        if s == 1:
            w0.append(i)
        elif s == 2:
            w1.append(i)
    return tuple(w0), tuple(w1)


_orphan_counts = itemgetter(*TERMINALS_AND_HONOURS)
_PARTS = ((0, 9, False), (9, 18, False), (18, 27, False), (27, 34, True))


def is_regular_complete(counts: Sequence[int]) -> bool:
    """4 sets + a pair among the concealed tiles (melds removed, so 3k + 2 tiles)."""
    pairs = 0
    for lo, hi, honours in _PARTS:
        key = tuple(counts[lo:hi])
        s = _honour_state(key) if honours else _suit_state(key)
        if s == 0:
            return False
        if s == 2:
            pairs += 1
    return pairs == 1


def is_seven_pairs(counts: Sequence[int]) -> bool:
    """Seven distinct pairs (a held four is a pung plus one tile, WMC-7.1)."""
    return list(counts[:34]).count(2) == 7


def is_thirteen_terminals(counts: Sequence[int]) -> bool:
    orphans = _orphan_counts(counts)
    return 0 not in orphans and sum(orphans) == 14 and sum(counts[:34]) == 14


def is_complete(counts: Sequence[int], melds: int) -> bool:
    """A winning shape (WMC-7.1) for ``counts`` = concealed tiles incl. the winning tile."""
    if is_regular_complete(counts):
        return True
    return melds == 0 and (is_seven_pairs(counts) or is_thirteen_terminals(counts))


def waits(counts: Sequence[int], melds: int) -> set[Tile]:
    """Tiles that would complete the hand (concealed counts without the winning tile)."""
    states: list[int] = []
    adds: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for lo, hi, honours in _PARTS:
        key = tuple(counts[lo:hi])
        states.append(_honour_state(key) if honours else _suit_state(key))
        adds.append(_suit_adds(key, honours))
    out: set[Tile] = set()
    broken = states.count(0)
    if broken <= 1:  # a regular win needs every other part whole
        pairs = states.count(2)
        for j, (lo, _hi, _h) in enumerate(_PARTS):
            state = states[j]
            if broken and state != 0:
                continue
            others_pairs = pairs - (state == 2)
            if others_pairs == 0:
                out.update(lo + i for i in adds[j][1])
            elif others_pairs == 1:
                out.update(lo + i for i in adds[j][0])
    if melds == 0:
        kinds = list(counts[:34])
        if kinds.count(1) == 1 and kinds.count(2) == 6:
            out.add(kinds.index(1))
        orphans = _orphan_counts(counts)
        if sum(orphans) == 13:
            missing = [t for t, n in zip(TERMINALS_AND_HONOURS, orphans, strict=True) if n == 0]
            if len(missing) == 1:
                out.add(missing[0])
            elif not missing:
                out.update(t for t, n in zip(TERMINALS_AND_HONOURS, orphans, strict=True) if n < 4)
    return out
