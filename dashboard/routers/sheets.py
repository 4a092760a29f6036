"""Score cards (WMC-8.1): per table session and half, straight from the replayed duties."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Request
from pydantic import BaseModel, Field, ValidationError

from dashboard.auth import DECIDE, EVERYONE
from dashboard.commands import CommandResponse, send
from dashboard.deps import Actor, need
from dashboard.live import LiveState, result_item_id
from dashboard.services import services
from referee.events import HandRuled
from referee.scoresheet import ScoreCard, SheetError

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


class CorrectionRequest(BaseModel):
    """A referee's correction to one player's amount for a hand of this card (WMC-8.1)."""

    number: int = Field(ge=1, le=8, description="the hand's number on this card, 1-8")
    player: str = Field(min_length=1, max_length=64)
    points: int = Field(ge=-10_000, le=10_000, description="added to the player's amount")
    reason: str = Field(max_length=500)


class CorrectionResponse(BaseModel):
    sent: CommandResponse  # with its id and state (queued: the rig is away)


@router.post(
    "/{table_id}/{session_id}/{half}/corrections",
    response_model=CorrectionResponse,
    responses={
        404: {"description": "no such card or hand"},
        409: {"description": "the table has moved on to another session"},
    },
)
async def correct(
    table_id: str,
    session_id: str,
    half: int,
    body: CorrectionRequest,
    request: Request,
    actor: Actor = Depends(need(DECIDE)),
) -> CorrectionResponse:
    """A ``score_corrected`` event sent to the table, signed by the referee: the card shows it
    once the table has logged it (like a penalty decision, never an edit)."""
    svc = services(request)
    card = find_card(svc.live, table_id, session_id, half)
    row = next((r for r in card.rows if r.number == body.number), None)
    if row is None:
        raise HTTPException(404, f"hand {body.number} is not on this card yet")
    if body.player not in row.payments:
        players = ", ".join(row.payments)
        raise HTTPException(
            422, f"{body.player!r} did not play hand {body.number}; one of {players}"
        )
    if body.points == 0:
        raise HTTPException(422, "a correction of 0 points changes nothing")
    reason = body.reason.strip()
    if not reason:
        raise HTTPException(422, "a correction needs a reason (WMC-8.1)")
    now = svc.live.tables[table_id].session_id  # the session the table logs into
    if now != session_id:
        raise HTTPException(409, f"table {table_id} is in session {now} now, not {session_id}")
    payload = {
        "hand": row.hand,
        "player": body.player,
        "points": body.points,
        "reason": reason,
        "referee": actor.name,
    }
    command = await send(
        svc,
        actor,
        table_id,
        "score_corrected",
        payload,
        action="score_correction",
        target=f"{session_id}/{half}/{body.number}/{body.player}",
        reason=reason,
    )
    return CorrectionResponse(sent=command)


class RulingRequest(BaseModel):
    """A referee's ruling on a hand without a result (WMC-7.8): ``settle`` with the ``winner``,
    the ``discarder`` (none: self-drawn) and the ``value`` — or neither winner nor payments: a
    draw — or the ``payments`` themselves; or ``void``."""

    ruling: Literal["settle", "void"]
    winner: str | None = Field(None, min_length=1, max_length=64)
    discarder: str | None = Field(None, min_length=1, max_length=64)
    value: int | None = Field(None, ge=0, le=10_000, description="the hand's points (a win)")
    payments: dict[str, int] | None = Field(
        None, max_length=4, description="points per player, adding up to 0 (instead of a win)"
    )
    reason: str = Field(max_length=500)


@router.post(
    "/{table_id}/{session_id}/hands/{number}/ruling",
    response_model=CorrectionResponse,
    responses={
        404: {"description": "no such table session or hand"},
        409: {"description": "the hand has a result, or the table has moved on"},
        422: {"description": "the ruling does not hold (it says why)"},
    },
)
async def rule_hand(
    table_id: str,
    session_id: str,
    number: int,
    body: RulingRequest,
    request: Request,
    actor: Actor = Depends(need(DECIDE)),
) -> CorrectionResponse:
    """A ``hand_ruled`` event sent to the table, signed by the referee, for hand ``number``
    (1-based in the session) that the record left without a result: the card and the queue
    show it once the table has logged it (WMC-7.8, 8.1)."""
    svc = services(request)
    lt = svc.live.sessions.get((table_id, session_id))
    if lt is None:
        raise HTTPException(404, f"no session {session_id} of table {table_id}")
    results = lt.duty.state.results
    if not 1 <= number <= len(results):
        ended = f"hands 1-{len(results)} have ended" if results else "no hand has ended yet"
        raise HTTPException(
            404,
            f"hand {number} is not on the record of table {table_id} session {session_id}: {ended}",
        )
    result = results[number - 1]
    if not result.unfinished:
        raise HTTPException(
            409,
            f"hand {number} has a result ({result.outcome.replace('_', ' ')}): correct its "
            "amounts on the score card instead",
        )
    reason = body.reason.strip()
    if not reason:
        raise HTTPException(422, "a ruling needs a reason (WMC-8.1)")
    now = svc.live.tables[table_id].session_id  # the session the table logs into
    if now != session_id:
        raise HTTPException(409, f"table {table_id} is in session {now} now, not {session_id}")
    fields = body.model_dump(exclude_none=True) | {
        "hand": number - 1,
        "reason": reason,
        "referee": actor.name,
    }
    try:
        lt.duty.ruling(HandRuled.model_validate(fields))  # the core's own checks, before sending
    except (SheetError, ValidationError) as exc:
        raise HTTPException(422, f"hand {number}: {exc}") from exc
    command = await send(
        svc,
        actor,
        table_id,
        "hand_ruled",
        fields,
        action=f"hand_{body.ruling}",
        target=result_item_id(session_id, number - 1),  # its state shows on the queue's item
        reason=reason,
        session_id=session_id,
    )
    return CorrectionResponse(sent=command)
