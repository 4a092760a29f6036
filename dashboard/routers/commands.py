"""The referees' commands to a table and how each stands: queued (waiting for the table),
delivered, applied, failed (dashboard/outbox.py)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Query, Request

from dashboard.auth import EVERYONE
from dashboard.commands import CommandResponse, command_response
from dashboard.deps import Actor, need
from dashboard.services import services

router = APIRouter(prefix="/api/tables", tags=["commands"])


@router.get("/{table_id}/commands", response_model=list[CommandResponse])
def table_commands(
    table_id: str,
    request: Request,
    state: Literal["pending", "all"] = Query(
        "pending", description="pending: queued or delivered, not yet logged by the rig"
    ),
    actor: Actor = Depends(need(EVERYONE)),
) -> list[CommandResponse]:
    """The table's commands in the order they were made: those the rig has not logged yet
    (or all, with their outcome)."""
    outbox = services(request).outbox
    found = outbox.listing(table_id, pending_only=state == "pending")
    return [command_response(c, actor.lang) for c in found]
