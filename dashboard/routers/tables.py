"""Tables: the venue's cards, one table in full, and the referee's clock controls."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from pydantic import BaseModel, Field

from dashboard import views
from dashboard.auth import CONTROL, EVERYONE
from dashboard.commands import CommandResponse, send
from dashboard.deps import Actor, need
from dashboard.services import services

router = APIRouter(prefix="/api/tables", tags=["tables"])

Seat = Literal["E", "S", "W", "N"]


class CardResponse(BaseModel):
    table_id: str
    session_id: str
    players: list[str]
    hand: dict[str, Any]
    turn: str | None
    clocks: list[dict[str, Any]]
    clocks_state: str = Field(description="live, or unavailable while the rig is offline")
    alerts: dict[str, int]
    open_alerts: int
    worst: str | None
    health: dict[str, Any]
    totals: dict[str, int]
    last_seq: int


class TableResponse(CardResponse):
    seats: list[dict[str, Any]]
    wall: int | None
    phase: str | None
    events: list[dict[str, Any]]
    items: list[dict[str, Any]]


class ControlRequest(BaseModel):
    action: Literal["pause", "resume", "extend", "late", "clear"]
    seat: Seat | None = None
    seconds: float | None = Field(None, gt=0, le=3600)


class ControlResponse(BaseModel):
    sent: CommandResponse  # with its id and state (queued: the rig is away)


@router.get("", response_model=list[CardResponse])
def list_tables(
    request: Request,
    sort: Literal["alerts", "table"] = "alerts",
    _: Actor = Depends(need(EVERYONE)),
) -> list[CardResponse]:
    svc = services(request)
    return [
        CardResponse(**c)
        for c in views.cards(svc.live, svc.settings.hands_per_session, svc.clock(), sort)
    ]


@router.get(
    "/{table_id}", response_model=TableResponse, responses={404: {"description": "no such table"}}
)
def get_table(table_id: str, request: Request, _: Actor = Depends(need(EVERYONE))) -> TableResponse:
    svc = services(request)
    if table_id not in svc.live.tables:
        raise HTTPException(404, f"no table {table_id!r} has reported")
    return TableResponse(
        **views.detail(svc.live, table_id, svc.settings.hands_per_session, svc.clock())
    )


_EVENTS = {
    "pause": "table_paused",
    "resume": "table_resumed",
    "extend": "clock_extended",
    "late": "player_late",
    "clear": "clock_cleared",
}


@router.post(
    "/{table_id}/controls",
    response_model=ControlResponse,
    responses={404: {"description": "no such table"}},
)
async def control(
    table_id: str, body: ControlRequest, request: Request, actor: Actor = Depends(need(CONTROL))
) -> ControlResponse:
    """Pause/resume the table clock (WMC-13.1), extend a turn, clear it, mark a player late
    (WMC-13.4): each a referee event sent to the table."""
    svc = services(request)
    if table_id not in svc.live.tables:
        raise HTTPException(404, f"no table {table_id!r} has reported")
    payload: dict[str, Any] = {}
    if body.action in ("extend", "late", "clear"):
        if body.seat is None:
            raise HTTPException(422, f"{body.action} needs the seat (E, S, W or N)")
        payload["seat"] = body.seat
    if body.action in ("extend", "late"):
        if body.seconds is None:
            raise HTTPException(422, f"{body.action} needs the seconds")
        payload["seconds"] = body.seconds
    command = await send(
        svc,
        actor,
        table_id,
        _EVENTS[body.action],
        payload,
        action=f"control_{body.action}",
        target=body.seat,
    )
    return ControlResponse(sent=command)


class EventResponse(BaseModel):
    seq: int
    ts: float
    source: str
    type: str
    payload: dict[str, Any]
    evidence: list[str]


@router.get(
    "/{table_id}/events",
    response_model=list[EventResponse],
    responses={404: {"description": "no such table"}},
)
def get_events(
    table_id: str,
    request: Request,
    seqs: str = Query("", max_length=2000, pattern=r"^[0-9,]*$"),
    _: Actor = Depends(need(EVERYONE)),
) -> list[EventResponse]:
    """The events behind an alert (its evidence seqs, comma-separated) of the current session."""
    svc = services(request)
    lt = svc.live.tables.get(table_id)
    if lt is None:
        raise HTTPException(404, f"no table {table_id!r} has reported")
    wanted = {int(s) for s in seqs.split(",") if s}
    return [
        EventResponse(
            seq=e.seq,
            ts=e.ts,
            source=str(e.source),
            type=e.type,
            payload=e.payload.model_dump(mode="json"),
            evidence=list(e.evidence),
        )
        for e in lt.events
        if e.seq in wanted
    ]
