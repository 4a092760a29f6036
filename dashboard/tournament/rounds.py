"""A round reaches the tables through the bus: each rig is told its players by seat
(``cmd/round``, rig/BUS.md), so nobody types names at a table; a pause or resume of the whole
round is each table's clock event (``cmd/event``). A rig that comes online while its round is in
play is told again (the command is idempotent at the rig)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dashboard.tournament.model import SEATS, Day
from rig.bus import Bus, BusError


def round_command(day: Day, round_: int, table: int) -> dict[str, Any]:
    seats = day.seating[(round_, table)]
    return {
        "session_id": day.plan.round(round_).session_id,
        "round": round_,
        "players": {s: seats[s] for s in SEATS},
        "tournament": day.plan.name,
    }


async def tell_tables(bus: Bus, day: Day, round_: int, tables: Iterable[int]) -> list[str]:
    """Send each table its round; the rigs the bus could not reach now (told again when they
    come online)."""
    missed = []
    for t in tables:
        rig = day.plan.tables[t]
        try:
            await bus.send_command(rig, "round", round_command(day, round_, t))
        except BusError:
            missed.append(rig)
    return missed


async def clock_event(
    bus: Bus, day: Day, round_: int, type_: str, tables: Iterable[int]
) -> list[str]:
    """A table clock event (``table_paused``, ``table_resumed``) at every table named."""
    missed = []
    for t in tables:
        rig = day.plan.tables[t]
        try:
            await bus.send_command(rig, "event", {"type": type_, "payload": {}})
        except BusError:
            missed.append(rig)
    return missed


async def rig_online(bus: Bus, day: Day | None, rig: str) -> None:
    """A rig came online: tell it the round in play, if it has a table in it."""
    if day is None or day.current is None:
        return
    table = day.plan.table_of_rig(rig)
    if table is not None and (day.current.number, table) in day.seating:
        await tell_tables(bus, day, day.current.number, [table])
