"""Score cards (WMC-8.1): per table session and half, straight from the replayed duties."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Request
from pydantic import BaseModel

from dashboard.auth import EVERYONE
from dashboard.deps import Actor, need
from dashboard.live import LiveState
from dashboard.services import services
from referee.scoresheet import ScoreCard

router = APIRouter(prefix="/api/sheets", tags=["sheets"])


class SheetSummary(BaseModel):
    table_id: str
    session_id: str
    half: int
    players: list[str]
    hands: int
    totals: dict[str, int]
    signed: bool


class SheetResponse(BaseModel):
    table_id: str
    session_id: str
    half: int
    players: list[str]
    hands: list[dict[str, Any]]
    totals: dict[str, int]
    corrections: list[dict[str, Any]]
    signatures: dict[str, float]
    signed: bool


def all_cards(live: LiveState) -> list[ScoreCard]:
    return [c for _, lt in sorted(live.sessions.items()) for c in lt.duty.cards()]


def find_card(live: LiveState, table_id: str, session_id: str, half: int) -> ScoreCard:
    lt = live.sessions.get((table_id, session_id))
    cards = lt.duty.cards() if lt is not None else []
    if not 1 <= half <= len(cards):
        raise HTTPException(404, f"no card for table {table_id}, session {session_id}, half {half}")
    return cards[half - 1]


@router.get("", response_model=list[SheetSummary])
def list_sheets(request: Request, _: Actor = Depends(need(EVERYONE))) -> list[SheetSummary]:
    return [
        SheetSummary(
            table_id=c.table_id,
            session_id=c.session_id,
            half=c.half,
            players=list(c.players),
            hands=len(c.rows),
            totals=c.totals,
            signed=c.signed,
        )
        for c in all_cards(services(request).live)
    ]


@router.get(
    "/{table_id}/{session_id}/{half}",
    response_model=SheetResponse,
    responses={404: {"description": "no such card"}},
)
def get_sheet(
    table_id: str, session_id: str, half: int, request: Request, _: Actor = Depends(need(EVERYONE))
) -> SheetResponse:
    card = find_card(services(request).live, table_id, session_id, half)
    return SheetResponse(**card.to_json())
