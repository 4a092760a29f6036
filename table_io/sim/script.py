"""Scripted table sessions: endless, seeded hand cycles with dice, as a real table produces them."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from table_io.messages import (
    Button,
    ButtonPressed,
    Dealer,
    DiceResult,
    ErrorCode,
    Message,
    Mode,
    Seat,
    SetComplete,
    ShuffleStarted,
    TableError,
    WallRaised,
)

PLAYER_SEATS = (Seat.EAST, Seat.SOUTH, Seat.WEST, Seat.NORTH)


def hand_cycles(
    rng: random.Random,
    t_ms: Callable[[], int],
    *,
    error_rate: float = 0.02,
    rolls: int = 2,
) -> Iterator[Message]:
    """MODE, then per hand: START, SHUFFLE_STARTED, SET_COMPLETE, WALL_RAISED, the dice, and
    DEALER when the deal passes; now and then a jam or a lid opened mid-shuffle.

    The dice: ``rolls`` = 2 (WMC-3.3) — the dealer presses DICE and rolls; the player that roll
    counts to (the dealer counting as 1, counter-clockwise, WMC-2.2) is the breaker, who presses
    DICE and rolls again. ``rolls`` = 1 for tables whose house rules break on one roll.
    """
    yield Mode(t_ms(), 4)
    dealer = 0
    yield Dealer(t_ms(), PLAYER_SEATS[dealer])
    while True:
        yield ButtonPressed(t_ms(), Button.START, PLAYER_SEATS[dealer])
        yield ShuffleStarted(t_ms())
        if rng.random() < error_rate:
            code = rng.choice([ErrorCode.JAM, ErrorCode.LID_OPEN, ErrorCode.COUNT_MISMATCH])
            yield TableError(t_ms(), code, 0)
            yield ShuffleStarted(t_ms())
        yield SetComplete(t_ms())
        yield WallRaised(t_ms())
        roller = dealer
        for _ in range(rolls):
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            yield ButtonPressed(t_ms(), Button.DICE, PLAYER_SEATS[roller])
            yield DiceResult(t_ms(), d1, d2)
            roller = (roller + d1 + d2 - 1) % 4  # the counted player rolls next
        if rng.random() < 0.4:  # the deal passes (non-dealer win, as often happens)
            dealer = (dealer + 1) % 4
            yield Dealer(t_ms(), PLAYER_SEATS[dealer])
