"""Random legal winning hands from a seeded ``random.Random``: for property tests and benchmarks.

One generator serves both: hypothesis tests draw it through ``st.randoms()``; benchmarks seed it.
"""

from __future__ import annotations

import random

from referee.hands import Flag, Meld, MeldKind, Relative, WinBy, Wind, WinningHand
from referee.tiles import ALL_KINDS, TERMINALS_AND_HONOURS, Tile, is_suited


def random_winning_hand(
    rng: random.Random,
    *,
    irregular_rate: float = 0.06,
    meld_rate: float = 0.35,
    kong_rate: float = 0.08,
    flags: bool = True,
    max_flowers: int = 0,
) -> WinningHand:
    """A legal winning hand: regular (4 sets + pair), Seven Pairs or Thirteen Terminals."""
    roll = rng.random()
    if roll < irregular_rate / 6:
        return _thirteen_terminals(rng, max_flowers)
    if roll < irregular_rate:
        return _seven_pairs(rng, max_flowers, flags)
    return _regular(rng, meld_rate, kong_rate, flags, max_flowers)


def _regular(
    rng: random.Random, meld_rate: float, kong_rate: float, flags: bool, max_flowers: int
) -> WinningHand:
    counts = [0] * 34
    sets = [_random_set(rng, counts, kong_rate) for _ in range(4)]
    pair = rng.choice([t for t in ALL_KINDS if counts[t] <= 2])

    melds: list[Meld] = []
    concealed: list[Tile] = [pair, pair]
    for kind, tile in sets:
        tiles = _set_tiles(kind, tile)
        if kind is MeldKind.KONG:
            melds.append(Meld(kind, tiles, concealed=rng.random() < 0.4))
        elif rng.random() < meld_rate:
            claimed_from = Relative.LEFT if kind is MeldKind.CHOW else rng.choice(list(Relative))
            melds.append(
                Meld(kind, tiles, claimed_from=claimed_from, claimed_tile=rng.choice(tiles))
            )
        else:
            concealed.extend(tiles)
    win = concealed.pop(rng.randrange(len(concealed)))
    win_by = WinBy.SELF if rng.random() < 0.4 else WinBy.DISCARD
    seat = rng.choice(list(Wind))
    hand_flags: set[Flag] = set()
    if flags:
        has_kong = any(m.kind is MeldKind.KONG for m in melds)
        if win_by is WinBy.SELF:
            if rng.random() < 0.1:
                hand_flags.add(Flag.FINAL_DRAW)
            if has_kong and rng.random() < 0.3:
                hand_flags.add(Flag.WIN_ON_KONG)
            if seat is Wind.E and all(m.concealed for m in melds) and rng.random() < 0.05:
                hand_flags.add(Flag.HEAVEN)
        else:
            r = rng.random()
            if r < 0.08:
                hand_flags.add(Flag.FINAL_DISCARD)
            elif r < 0.12:
                hand_flags.add(Flag.ROBBING_KONG)
            elif r < 0.15 and seat is not Wind.E and not melds:
                hand_flags.add(Flag.EARTH)
    return WinningHand(
        concealed=tuple(concealed),
        win_tile=win,
        win_by=win_by,
        melds=tuple(melds),
        seat=seat,
        prevalent=rng.choice(list(Wind)),
        flowers=rng.randint(0, max_flowers),
        flags=frozenset(hand_flags),
    )


def _random_set(rng: random.Random, counts: list[int], kong_rate: float) -> tuple[MeldKind, Tile]:
    while True:
        r = rng.random()
        if r < 0.55:
            start = rng.choice([t for t in range(27) if t % 9 <= 6])
            if all(counts[start + i] < 4 for i in range(3)):
                for i in range(3):
                    counts[start + i] += 1
                return MeldKind.CHOW, start
        else:
            tile = rng.choice(ALL_KINDS)
            kind = MeldKind.KONG if r > 1 - kong_rate else MeldKind.PUNG
            need = 4 if kind is MeldKind.KONG else 3
            if counts[tile] + need <= 4:
                counts[tile] += need
                return kind, tile


def _set_tiles(kind: MeldKind, tile: Tile) -> tuple[Tile, ...]:
    if kind is MeldKind.CHOW:
        assert is_suited(tile)
        return (tile, tile + 1, tile + 2)
    return (tile,) * (4 if kind is MeldKind.KONG else 3)


def _seven_pairs(rng: random.Random, max_flowers: int, flags: bool) -> WinningHand:
    kinds = rng.sample(ALL_KINDS, 7)
    tiles = [t for t in kinds for _ in range(2)]
    win = tiles.pop(rng.randrange(len(tiles)))
    win_by = WinBy.SELF if rng.random() < 0.4 else WinBy.DISCARD
    hand_flags = (
        {Flag.FINAL_DRAW} if flags and win_by is WinBy.SELF and rng.random() < 0.1 else set()
    )
    return WinningHand(
        concealed=tuple(tiles),
        win_tile=win,
        win_by=win_by,
        seat=rng.choice(list(Wind)),
        prevalent=rng.choice(list(Wind)),
        flowers=rng.randint(0, max_flowers),
        flags=frozenset(hand_flags),
    )


def _thirteen_terminals(rng: random.Random, max_flowers: int) -> WinningHand:
    tiles = [*TERMINALS_AND_HONOURS, rng.choice(TERMINALS_AND_HONOURS)]
    win = tiles.pop(rng.randrange(len(tiles)))
    return WinningHand(
        concealed=tuple(tiles),
        win_tile=win,
        win_by=WinBy.SELF if rng.random() < 0.4 else WinBy.DISCARD,
        seat=rng.choice(list(Wind)),
        prevalent=rng.choice(list(Wind)),
        flowers=rng.randint(0, max_flowers),
    )
