"""Rule profiles of the engine: what differs between WMC and MCR tables (MCR.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Profile:
    """Table geometry and rule switches; ``name`` is also the scoring profile."""

    name: str
    stacks_per_side: int  # WMC-3.2: 17; MCR: 18
    dead_wall: int  # WMC-6.1: 14 tiles are never drawn; MCR plays the wall out
    flowers: bool  # MCR: 8 flowers, replaced from the wall end
    prevalent_wind: bool  # WMC-2.4: none; MCR: the round's wind

    @property
    def total_tiles(self) -> int:
        return self.stacks_per_side * 8


WMC = Profile("wmc", 17, 14, flowers=False, prevalent_wind=False)
ZJ33 = Profile("zj33", 17, 14, flowers=False, prevalent_wind=False)
MCR = Profile("mcr", 18, 0, flowers=True, prevalent_wind=True)
PROFILES: dict[str, Profile] = {p.name: p for p in (WMC, ZJ33, MCR)}


def profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}: expected wmc, zj33 or mcr") from None
