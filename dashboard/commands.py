"""Referee actions become events sent to the table (``cmd/event``): the table's log, and so
the dashboard's record, changes only when the rig logs them and they come back."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException

from dashboard import store
from dashboard.deps import Actor
from dashboard.services import Services
from rig.bus import BusError


async def send(
    svc: Services,
    actor: Actor,
    table_id: str,
    type_: str,
    payload: dict[str, Any],
    *,
    action: str,
    target: str | None = None,
    reason: str = "",
) -> dict[str, Any]:
    command = {"type": type_, "payload": payload}
    try:
        await svc.bus.send_command(table_id, "event", command)
    except BusError as exc:
        raise HTTPException(503, f"the bus cannot reach table {table_id} now: {exc}") from exc
    store.audit(
        svc.factory,
        svc.clock(),
        actor.name,
        action,
        table_id=table_id,
        target=target,
        reason=reason,
        detail=command,
        address=actor.address,
    )
    return command
