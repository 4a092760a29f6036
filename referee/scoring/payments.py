"""Who pays what for a win: WMC (par 30), Zung Jung (par 25) and MCR (base 8).

WMC-12.4: the winner receives 3V. Self-drawn: each pays V. On a discard: V ≤ par → each pays V;
V > par → the two others pay the par, the liable discarder pays 3V − 2·par. Follow-suit
exemption (跟張免責): counting from the winner's previous discard (inclusive) up to the winning
discard, the FIRST player who discarded the winning tile is liable instead of the discarder; if
that first player is the winner, nobody is liable and each pays V.
MCR: self-drawn → each pays 8 + F; on a discard → each pays 8 and the discarder F more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.hands import WinBy, Wind
from referee.tiles import Tile

PAR = {"wmc": 30, "zj33": 25}
MCR_BASE = 8


@dataclass(frozen=True, slots=True)
class Settlement:
    """Score changes per seat (they sum to zero), who was liable, and the rule applied."""

    deltas: dict[Wind, int]
    liable: Wind | None
    rule: str


def follow_suit_liable(
    winner: Wind, discarder: Wind, win_tile: Tile, discards: Sequence[tuple[Wind, Tile]]
) -> Wind | None:
    """The seat liable under the follow-suit exemption (WMC-12.4); None when nobody is.

    ``discards`` is the hand's discard history in order. The span starts at the winner's latest
    discard before the winning tile (the start of the hand if he has none).
    """
    start = 0
    for index, (seat, _tile) in enumerate(discards):
        if seat is winner:
            start = index
    for seat, tile in discards[start:]:
        if tile == win_tile:
            return None if seat is winner else seat
    return discarder


def settle(
    profile: str,
    value: int,
    winner: Wind,
    win_by: WinBy,
    discarder: Wind | None = None,
    discards: Sequence[tuple[Wind, Tile]] = (),
    *,
    win_tile: Tile | None = None,
    follow_suit: bool = True,
) -> Settlement:
    """Payments for one win of hand value ``value`` (MCR: total fan including flowers).

    For a discard win the history and ``win_tile`` (default: the last discard) drive the
    follow-suit exemption, which the discarder must invoke (``follow_suit``; WMC-7.5).
    """
    if value < 0:
        raise ValueError(f"hand value {value} is negative; expected the scored total ≥ 0")
    others = [seat for seat in Wind if seat is not winner]
    deltas = dict.fromkeys(Wind, 0)
    if win_by is WinBy.DISCARD:
        if discarder is None or discarder is winner:
            raise ValueError(
                f"a win on a discard needs a discarder other than the winner {winner.name}, "
                f"got {discarder!r}"
            )
    elif discarder is not None:
        raise ValueError(f"a self-drawn win has no discarder, got {discarder.name}")

    if profile == "mcr":
        if win_by is WinBy.SELF:
            for seat in others:
                deltas[seat] = -(MCR_BASE + value)
            rule = "MCR: self-drawn, each pays 8 + fan"
        else:
            assert discarder is not None
            for seat in others:
                deltas[seat] = -MCR_BASE
            deltas[discarder] -= value
            rule = "MCR: each pays 8, the discarder pays the fan on top"
        deltas[winner] = -sum(deltas.values())
        return Settlement(deltas, discarder, rule)

    if profile not in PAR:
        raise ValueError(f"unknown profile {profile!r}: expected wmc, zj33 or mcr")
    par = PAR[profile]
    liable: Wind | None = None
    if win_by is WinBy.DISCARD:
        assert discarder is not None
        liable = discarder
        if follow_suit and discards:
            tile = win_tile if win_tile is not None else discards[-1][1]
            liable = follow_suit_liable(winner, discarder, tile, discards)
    if liable is None or value <= par:
        for seat in others:
            deltas[seat] = -value
        rule = "WMC-12.4: each pays V"
        if win_by is WinBy.DISCARD and liable is None:
            rule = "WMC-12.4: follow-suit exemption, the winner discarded it first: each pays V"
    else:
        for seat in others:
            deltas[seat] = -par
        deltas[liable] = -(3 * value - 2 * par)
        rule = f"WMC-12.4: others pay {par}, the liable discarder pays 3V − {2 * par}"
        if liable is not discarder:
            rule += f"; follow-suit exemption: {liable.name} discarded it first"
    deltas[winner] = 3 * value
    return Settlement(deltas, liable, rule)
