"""The tournament's pages: the organiser's day (rounds and their controls, corrections, the
check), a round's printable seating (by table and by name), the hall's display, and each
player's own page — which, while a round is in play, shows the player's own table only."""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, Depends, Form, HTTPException, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from dashboard.auth import EVERYONE, LOGIN_CSRF_COOKIE, ORGANISE, same
from dashboard.deps import Actor, address, need
from dashboard.i18n import translator
from dashboard.routers.pages import page, templates
from dashboard.routers.tournament import day_json, standings_json, the_day
from dashboard.services import services
from dashboard.tournament.check import check
from dashboard.tournament.model import SEATS, Day
from dashboard.tournament.players import PLAYER_COOKIE, log_in, player_of
from dashboard.tournament.reports import standings
from dashboard.tournament.sessions import played

router = APIRouter(include_in_schema=False)


@router.get("/tournament", response_class=HTMLResponse)
def tournament(request: Request, actor: Actor = Depends(need(EVERYONE))) -> Response:
    svc = services(request)
    day = the_day(svc)
    return page(
        request,
        actor,
        "tournament.html",
        d=day_json(day, svc),
        problems=check(day, svc.live),
        can_organise=actor.role in ORGANISE,
        view="tournament",
    )


@router.get("/tournament/standings", response_class=HTMLResponse)
def tournament_standings(
    request: Request, upto: int | None = None, actor: Actor = Depends(need(EVERYONE))
) -> Response:
    """The standings after round ``upto`` (default: every round), with the tie-breaks."""
    svc = services(request)
    day = the_day(svc)
    last = _round(day, upto) if upto is not None else len(day.rounds)
    s = {**standings_json(svc, day, last), "teams": []}
    rounds = list(day.rounds)
    return page(request, actor, "standings.html", s=s, rounds=rounds, upto=last, view="tournament")


def _round(day: Day, number: int) -> int:
    if number not in day.rounds:
        raise HTTPException(404, f"round {number} unknown; the rounds are 1 to {len(day.rounds)}")
    return number


@router.get("/tournament/rounds/{number}/seating", response_class=HTMLResponse)
def seating_list(number: int, request: Request, actor: Actor = Depends(need(EVERYONE))) -> Response:
    """Printable: the round's tables, then every player by name with table and seat."""
    day = the_day(services(request))
    r = _round(day, number)
    return templates.TemplateResponse(
        request,
        "seating_print.html",
        {
            "name": day.plan.name,
            "round": r,
            "tables": day.tables(r),
            "by_name": day.by_name(r),
            "seats": SEATS,
            "rigs": day.plan.tables,
        },
    )


@router.get("/hall", response_class=HTMLResponse)
def hall(request: Request) -> Response:
    """The hall's screen (no login): the round, its time, where everyone sits, and the
    standings after the last round ended — never a table's live state."""
    svc = services(request)
    day = the_day(svc)
    current = day.current
    shown = current.number if current else day.next_round()
    ended = [n for n, rs in sorted(day.rounds.items()) if rs.status == "ended"]
    lines = standings(day, svc.live, svc.settings.tiebreaks, ended[-1]) if ended else []
    left = None
    if current is not None:
        limit = day.plan.round(current.number).minutes + current.extra_minutes.get(None, 0)
        left = max(0, int(limit * 60 - current.played_s(svc.clock())))
    return templates.TemplateResponse(
        request,
        "hall.html",
        {
            "name": day.plan.name,
            "round": shown,
            "status": day.rounds[shown].status if shown else "",
            "left": left,
            "seats": day.by_name(shown) if shown else [],
            "lines": lines[:40],
            "after": ended[-1] if ended else None,
        },
    )


@router.get("/player", response_class=HTMLResponse)
def player_page(request: Request) -> Response:
    svc = services(request)
    day = the_day(svc)
    name = player_of(svc.factory, request.cookies.get(PLAYER_COOKIE), svc.clock())
    if name is None:
        return _player_login(request, day, None, 200)
    return templates.TemplateResponse(request, "player.html", _player_view(day, svc, name))


def _player_view(day: Day, svc: Any, name: str) -> dict[str, Any]:
    sessions = played(day, svc.live)
    rounds = []
    for rp in day.plan.rounds:
        rs = day.rounds[rp.number]
        mine = day.table_of(rp.number, name)
        tables = []
        for t, seats in day.tables(rp.number):
            if t != mine and rs.status != "ended":
                continue  # another table during its round: hidden from players
            lt = sessions.get((rp.number, t))
            totals = lt.duty.totals() if lt else {}
            tables.append(
                {
                    "table": t,
                    "seats": seats,
                    "mine": t == mine,
                    "hands": lt.duty.state.hands_played if lt else 0,
                    "totals": {s: totals.get(p, 0) for s, p in seats.items()},
                }
            )
        rounds.append({"round": rp.number, "status": rs.status, "table": mine, "tables": tables})
    return {"name": day.plan.name, "player": name, "rounds": rounds, "seats": SEATS}


def _player_login(request: Request, day: Day, error: str | None, status: int) -> Response:
    token = request.cookies.get(LOGIN_CSRF_COOKIE) or secrets.token_urlsafe(24)
    response = templates.TemplateResponse(
        request,
        "player_login.html",
        {
            "name": day.plan.name,
            "pins": day.plan.pins,
            "csrf": token,
            "error": error,
            "t": translator("en"),
        },
        status_code=status,
    )
    response.set_cookie(LOGIN_CSRF_COOKIE, token, httponly=True, samesite="strict", path="/")
    return response


@router.post("/player", response_class=HTMLResponse)
def player_login(
    request: Request, name: str = Form(""), pin: str = Form(""), csrf_token: str = Form("")
) -> Response:
    svc = services(request)
    day = the_day(svc)
    where, key = address(request), f"player:{name}"  # apart from the staff's names
    expected = request.cookies.get(LOGIN_CSRF_COOKIE, "")
    if not csrf_token or not expected or not same(csrf_token, expected):
        return _player_login(request, day, "the form expired: log in again", 403)
    wait = svc.throttle.wait(key, where)
    if wait:
        return _player_login(request, day, f"too many tries: wait {wait:.0f} s", 429)
    cookie = log_in(
        svc.factory,
        name.strip(),
        pin.strip(),
        day.plan.pins,
        svc.clock(),
        svc.settings.session_hours,
    )
    if cookie is None:
        svc.throttle.failed(key, where)
        return _player_login(request, day, "wrong name or PIN", 401)
    svc.throttle.succeeded(key, where)
    response = RedirectResponse("/player", status_code=303)
    response.set_cookie(
        PLAYER_COOKIE,
        cookie,
        httponly=True,
        samesite="strict",
        secure=svc.settings.secure_cookies,
        path="/",
    )
    return response
