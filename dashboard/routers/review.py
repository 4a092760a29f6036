"""Review: pick a table session (live or finished), step through its events on a timeline with
the table drawn at each point, the clip and still of that moment, the alerts and decisions as
marks, and each hand's result. Pages under ``/review``, JSON under ``/api/review``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response

from dashboard import review
from dashboard.auth import EVERYONE
from dashboard.deps import Actor, need
from dashboard.i18n import translator
from dashboard.live import LiveTable
from dashboard.routers.pages import page, templates
from dashboard.services import services

router = APIRouter(tags=["review"])
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "no such table session"}}


def _session(request: Request, table_id: str, session_id: str) -> LiveTable:
    lt = review.find(services(request).live, table_id, session_id)
    if lt is None:
        raise HTTPException(404, f"no session {session_id!r} of table {table_id!r} is stored")
    return lt


def _state(lt: LiveTable, seq: int) -> dict[str, Any]:
    try:
        return review.state_at(lt, seq)
    except LookupError as exc:
        raise HTTPException(404, str(exc)) from None


@router.get("/api/review")
def list_sessions(request: Request, _: Actor = Depends(need(EVERYONE))) -> list[dict[str, Any]]:
    """The table sessions that can be reviewed."""
    return review.sessions(services(request).live)


@router.get("/api/review/{table_id}/{session_id}", responses=NOT_FOUND)
def get_timeline(
    table_id: str, session_id: str, request: Request, _: Actor = Depends(need(EVERYONE))
) -> dict[str, Any]:
    """The session's events, hands (with results) and the alert and decision marks."""
    return review.timeline(_session(request, table_id, session_id))


@router.get("/api/review/{table_id}/{session_id}/state", responses=NOT_FOUND)
def get_state(
    table_id: str,
    session_id: str,
    request: Request,
    seq: int = Query(..., ge=0),
    _: Actor = Depends(need(EVERYONE)),
) -> dict[str, Any]:
    """The table after event ``seq``, replayed from the log: seats, wall, scores, clips."""
    return _state(_session(request, table_id, session_id), seq)


@router.get("/review", response_class=HTMLResponse, include_in_schema=False)
def review_list(request: Request, actor: Actor = Depends(need(EVERYONE))) -> Response:
    items = review.sessions(services(request).live)
    return page(request, actor, "review_list.html", sessions=items, view="review")


@router.get("/review/{table_id}/{session_id}", response_class=HTMLResponse, include_in_schema=False)
def review_page(
    table_id: str,
    session_id: str,
    request: Request,
    seq: int | None = Query(None, ge=0),
    actor: Actor = Depends(need(EVERYONE)),
) -> Response:
    lt = _session(request, table_id, session_id)
    line = review.timeline(lt)
    at = line["first"] if seq is None else seq
    return page(request, actor, "review.html", line=line, state=_state(lt, at), view="review")


@router.get(
    "/review/{table_id}/{session_id}/board", response_class=HTMLResponse, include_in_schema=False
)
def review_board(
    table_id: str,
    session_id: str,
    request: Request,
    seq: int = Query(..., ge=0),
    actor: Actor = Depends(need(EVERYONE)),
) -> Response:
    """The board at ``seq`` as an HTML fragment (the review page swaps it in)."""
    state = _state(_session(request, table_id, session_id), seq)
    return templates.TemplateResponse(
        request, "_board.html", {"state": state, "t": translator(actor.lang), "lang": actor.lang}
    )
