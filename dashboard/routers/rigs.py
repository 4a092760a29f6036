"""Rigs that post over HTTP: a per-table bearer token, which writes its own table only."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Header, HTTPException, Request
from pydantic import BaseModel, Field

from dashboard.auth import token_table
from dashboard.services import services

router = APIRouter(prefix="/api/rigs", tags=["rigs"])


class EventsRequest(BaseModel):
    events: list[dict[str, Any]] = Field(min_length=1, max_length=1000)


class EventsResponse(BaseModel):
    accepted: int


@router.post(
    "/{table_id}/events",
    response_model=EventsResponse,
    responses={401: {"description": "no token"}, 403: {"description": "wrong table"}},
)
def post_events(
    table_id: str,
    body: EventsRequest,
    request: Request,
    authorization: str = Header("", max_length=200),
) -> EventsResponse:
    """Log events of ``table_id`` (envelopes as on the bus), ingested like bus messages."""
    svc = services(request)
    token = authorization.removeprefix("Bearer ").strip()
    allowed = token_table(svc.factory, token) if token else None
    if allowed is None:
        raise HTTPException(
            401,
            "a rig token is needed: Authorization: Bearer mjt_…",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if allowed != table_id or any(e.get("table_id") != table_id for e in body.events):
        raise HTTPException(403, f"this token writes table {allowed} only")
    svc.ingest.submit(table_id, body.events)
    return EventsResponse(accepted=len(body.events))
