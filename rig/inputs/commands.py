"""A referee's command from the bus as a draft for the core."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from referee.events import PAYLOADS, Source
from rig.bus.commands import cite, cited, command_id
from rig.config import NAME
from rig.inputs.base import Draft

PLACES = ("E", "S", "W", "N")
NAME_MAX = 64


def referee_draft(command: dict[str, Any]) -> Draft:
    """A referee's command from the bus (``cmd/event``): a payload of a known type, logged with
    source ``referee`` (a decision, a clock adjustment, a pause …) and, when the command has an
    ``id``, ``command:<id>`` in its evidence (rig/bus/commands.py: logged once, seen applied);
    ValueError names the fault."""
    cid = command_id(command)
    kind = command.get("type")
    model = PAYLOADS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise ValueError(f"unknown event type {kind!r}; expected one of {', '.join(PAYLOADS)}")
    payload = model.model_validate(command.get("payload") or {})
    evidence = tuple(str(e) for e in command.get("evidence", ()))
    evidence = tuple(e for e in evidence if cited((e,)) is None)  # only the command's own id
    if cid is not None:
        evidence += (cite(cid),)
    return Draft(payload, Source.REFEREE, 1.0, evidence)


@dataclass(frozen=True, slots=True)
class RoundCall:
    """The dashboard's ``cmd/round``: this table plays ``session_id`` with these players at
    their provisional places (venue E, S, W, N). ``round`` and ``tournament`` are told for the
    record; the session and the players are what the rig acts on."""

    session_id: str
    players: tuple[str, str, str, str]
    round: int | None = None
    tournament: str | None = None


def round_call(command: dict[str, Any]) -> RoundCall:
    """``cmd/round``'s payload checked; ValueError names what is wrong and what is expected."""
    session = command.get("session_id")
    if not isinstance(session, str) or not re.fullmatch(NAME, session):
        raise ValueError(
            f"session_id = {session!r}; expected a session name of letters, digits and _ . -"
        )
    players = command.get("players")
    if not isinstance(players, dict) or sorted(players) != sorted(PLACES):
        got = sorted(players) if isinstance(players, dict) else players
        raise ValueError(
            f"players = {got!r}; expected an object with exactly the places E, S, W, N, "
            "each a player's name"
        )
    names = tuple(players[p] for p in PLACES)
    for place, name in zip(PLACES, names, strict=True):
        if not isinstance(name, str) or not 1 <= len(name) <= NAME_MAX or not name.strip():
            raise ValueError(
                f"players.{place} = {name!r}; expected a name of 1 to {NAME_MAX} characters, "
                "not only spaces"
            )
    if len(set(names)) < 4:
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"players: {', '.join(twice)} named twice; expected four players")
    rnd, tournament = command.get("round"), command.get("tournament")
    return RoundCall(
        session,
        (names[0], names[1], names[2], names[3]),
        rnd if isinstance(rnd, int) and not isinstance(rnd, bool) else None,
        tournament if isinstance(tournament, str) else None,
    )
