"""Rule profiles of the engine: what differs between WMC and MCR tables (MCR.md), and between
official MCR and the online platforms whose records we import (``mcr-botzone``, ``mcr-online``).

A platform profile only drops what a platform has no use for (dice, a wall to break, a seat
draw) or states the platform's own rule where it has one; the official profiles are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Profile:
    """Table geometry and rule switches; ``scoring`` names the scorer and settlement."""

    name: str
    stacks_per_side: int  # WMC-3.2: 17; MCR: 18
    dead_wall: int  # WMC-6.1: 14 tiles are never drawn; MCR plays the wall out
    flowers: bool  # MCR: 8 flowers, replaced from the wall end
    prevalent_wind: bool  # WMC-2.4: none; MCR: the round's wind
    scoring: str = ""  # the scoring profile (default: ``name``)
    dice: bool = True  # WMC-2.3 seat draw and WMC-3.3 break; a platform deals without dice
    seat_walls: bool = False  # Botzone: each seat deals and draws from its own quarter
    false_win_fine: int = 0  # Botzone: a false win ends the hand, the offender pays each other

    @property
    def total_tiles(self) -> int:
        return self.stacks_per_side * 8

    @property
    def scorer(self) -> str:
        return self.scoring or self.name


WMC = Profile("wmc", 17, 14, flowers=False, prevalent_wind=False)
ZJ33 = Profile("zj33", 17, 14, flowers=False, prevalent_wind=False)
MCR = Profile("mcr", 18, 0, flowers=True, prevalent_wind=True)
MCR_BOTZONE = Profile(
    "mcr-botzone",
    17,
    0,
    flowers=False,
    prevalent_wind=True,
    scoring="mcr",
    dice=False,
    seat_walls=True,
    false_win_fine=10,
)
"""Botzone's judge (../shared/testdata/records/README.md §3): 136 tiles, no flowers, no dice or
dead wall; each seat is dealt 13 from its own 34-tile quarter and draws only from it (kong
replacements too); the hand is drawn when the seat due to draw has none left. A false win ends
the hand: the offender −30, each other player +10. The fans and the settlement are MCR's."""
MCR_ONLINE = Profile(
    "mcr-online", 18, 0, flowers=True, prevalent_wind=True, scoring="mcr", dice=False
)
"""MCR as an online server deals it (the 2017 records): the whole MCR set and its rules, but no
dice, no seat draw and no wall to see — the server names every tile."""
PROFILES: dict[str, Profile] = {p.name: p for p in (WMC, ZJ33, MCR, MCR_BOTZONE, MCR_ONLINE)}


def profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(PROFILES)
        raise ValueError(f"unknown profile {name!r}: expected one of {known}") from None
