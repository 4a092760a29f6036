"""A referee's command to a table (``cmd/event``) and what becomes of it (rig/BUS.md).

The dashboard keeps each command until the rig has logged it, so it may send one more than once
(the rig was away, a send failed, the rig came back): the command carries an ``id``; the rig
logs its event with ``command:<id>`` in the envelope's ``evidence`` and drops a command whose id
it has logged already, so it is logged once. The dashboard sees the id come back in the logged
event (applied), or in the rig alert that refuses the command (failed). Pure: no I/O.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

PREFIX = "command:"
ID_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,64}")
ID_EXPECTED = "1 to 64 letters, digits or _ . -"


def new_id() -> str:
    """A fresh command id (unique across dashboards and restarts)."""
    return uuid.uuid4().hex


def event_command(type_: str, payload: Mapping[str, Any], command_id: str) -> dict[str, Any]:
    """The ``cmd/event`` payload: log an event of ``type_`` as the referee's, once."""
    return {"id": command_id, "type": type_, "payload": dict(payload)}


def command_id(command: Mapping[str, Any]) -> str | None:
    """The id a ``cmd/event`` carries (None: an older sender's, logged every time it comes);
    ValueError names a malformed one."""
    cid = command.get("id")
    if cid is None:
        return None
    if not isinstance(cid, str) or not ID_PATTERN.fullmatch(cid):
        raise ValueError(f"id = {cid!r}; expected a command id of {ID_EXPECTED}")
    return cid


def cite(command_id: str) -> str:
    """The evidence item that ties a logged event to the command that asked for it."""
    return PREFIX + command_id


def cited(evidence: Iterable[object]) -> str | None:
    """The command id an event's evidence cites, if any."""
    for item in evidence:
        if isinstance(item, str) and item.startswith(PREFIX):
            return item[len(PREFIX) :]
    return None


@dataclass(frozen=True, slots=True)
class Refusal:
    """A command the rig could not take (a bad payload, the core refused it), as its rig alert
    (``RIG-INPUT``, ``input: "commands"``) reports it: the command's id and why."""

    command: str
    reason: str


def refusal_fields(command_id: str | None) -> dict[str, str]:
    """What a rig alert's payload adds to name the command it refuses."""
    return {} if command_id is None else {"command": command_id}


def refusal(alert_payload: Mapping[str, Any]) -> Refusal | None:
    """The refused command a rig alert's payload names; None for any other rig alert."""
    cid = alert_payload.get("command")
    if alert_payload.get("input") != "commands" or not isinstance(cid, str):
        return None
    return Refusal(cid, str(alert_payload.get("message", "")))
