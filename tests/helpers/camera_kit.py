"""A simulated game and small rendered clips for the camera tests (in memory, short)."""

from __future__ import annotations

from functools import lru_cache

from referee.events import Event
from referee.game.sim import Simulator

SEED = 3  # a hand with chows, pungs, a kong and a win


@lru_cache(maxsize=1)
def game() -> tuple[Event, ...]:
    sim = Simulator(seed=SEED)
    return tuple(sim.run(1))
