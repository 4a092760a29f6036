"""The server-rendered pages (Jinja2): venue, alerts, table, score sheets, standings, audit,
and the login form. Each page's small script (static/app.js) follows ``/ws`` and, when something
it shows changes, fetches the page again and replaces in place only the parts (``data-key``)
whose HTML changed."""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, Form, HTTPException, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from dashboard import views
from dashboard.auth import AUDIT, CONTROL, DECIDE, EVERYONE, LOGIN_CSRF_COOKIE, REVOKE
from dashboard.deps import Actor, current, need
from dashboard.i18n import translator
from dashboard.routers.audit import entries
from dashboard.routers.session import login
from dashboard.routers.sheets import all_cards, find_card
from dashboard.routers.standings import compute
from dashboard.rules import summary
from dashboard.services import services

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=Path(__file__).parent.parent / "templates")
templates.env.filters["clocktime"] = lambda ts: time.strftime("%H:%M:%S", time.localtime(ts))
templates.env.filters["minsec"] = lambda s: f"{int(s // 60)}:{int(s % 60):02d}"

FACES = {"m": "萬", "p": "筒", "s": "索", "f": "花"}
HONOURS = {"E": "東", "S": "南", "W": "西", "N": "北", "P": "白", "F": "發", "C": "中"}


def face(name: str) -> tuple[str, str]:
    """(top, bottom) text of a tile face: ``5p`` → (5, 筒), ``C`` → (中, '')."""
    if name in HONOURS:
        return HONOURS[name], ""
    return name[:-1], FACES.get(name[-1], name[-1])


templates.env.globals["face"] = face


def page(request: Request, actor: Actor, name: str, **context: Any) -> HTMLResponse:
    svc = services(request)
    return templates.TemplateResponse(
        request,
        name,
        {
            "actor": actor,
            "t": translator(actor.lang),
            "rule_text": lambda rule: summary(rule, actor.lang),
            "can_decide": actor.role in DECIDE,
            "can_revoke": actor.role in REVOKE,
            "can_control": actor.role in CONTROL,
            "can_audit": actor.role in AUDIT | DECIDE,
            "now": svc.clock(),
            "open_alerts": views.open_total(svc.live),  # the Alerts badge (base.html)
            "commands_of": svc.outbox.recent,  # a table's commands and how they stand
            **context,
        },
    )


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, next: str = "/") -> Response:
    token = request.cookies.get(LOGIN_CSRF_COOKIE) or secrets.token_urlsafe(24)
    response = templates.TemplateResponse(
        request,
        "login.html",
        {
            "t": translator("en"),
            "csrf": token,
            "next": next if next.startswith("/") else "/",
            "error": None,
        },
    )
    response.set_cookie(LOGIN_CSRF_COOKIE, token, httponly=True, samesite="strict", path="/")
    return response


@router.post("/login", response_class=HTMLResponse)
def login_post(
    request: Request,
    name: str = Form(""),
    password: str = Form(""),
    csrf_token: str = Form(""),
    next: str = Form("/"),
) -> Response:
    target = next if next.startswith("/") and not next.startswith("//") else "/"
    redirect = RedirectResponse(target, status_code=303)
    try:
        login(services(request), request, redirect, name, password, csrf_token)
    except HTTPException as exc:
        response = templates.TemplateResponse(
            request,
            "login.html",
            {
                "t": translator("en"),
                "csrf": request.cookies.get(LOGIN_CSRF_COOKIE, ""),
                "next": target,
                "error": exc.detail,
            },
            status_code=exc.status_code,
        )
        return response
    return redirect


@router.get("/", response_class=HTMLResponse)
def overview(
    request: Request,
    sort: str = "alerts",
    only: str = "",
    actor: Actor = Depends(need(EVERYONE)),
) -> Response:
    svc = services(request)
    cards = views.cards(
        svc.live,
        svc.settings.hands_per_session,
        svc.clock(),
        "table" if sort == "table" else "alerts",
    )
    if only == "alerts":
        cards = [c for c in cards if c["open_alerts"]]
    return page(request, actor, "overview.html", cards=cards, sort=sort, only=only, view="overview")


@router.get("/alerts", response_class=HTMLResponse)
def alerts(
    request: Request, status: str = "open", actor: Actor = Depends(need(EVERYONE))
) -> Response:
    items = views.queue(services(request).live, "all" if status == "all" else "open")
    return page(request, actor, "alerts.html", items=items, status=status, view="alerts")


@router.get("/tables/{table_id}", response_class=HTMLResponse)
def table(table_id: str, request: Request, actor: Actor = Depends(need(EVERYONE))) -> Response:
    svc = services(request)
    if table_id not in svc.live.tables:
        raise HTTPException(404, f"no table {table_id!r} has reported")
    data = views.detail(svc.live, table_id, svc.settings.hands_per_session, svc.clock())
    return page(request, actor, "table.html", table=data, view="table")


@router.get("/sheets", response_class=HTMLResponse)
def sheets(request: Request, actor: Actor = Depends(need(EVERYONE))) -> Response:
    cards = [c.to_json() for c in all_cards(services(request).live)]
    return page(request, actor, "sheets.html", cards=cards, view="sheets")


@router.get("/sheets/{table_id}/{session_id}/{half}", response_class=HTMLResponse)
def sheet(
    table_id: str,
    session_id: str,
    half: int,
    request: Request,
    actor: Actor = Depends(need(EVERYONE)),
) -> Response:
    card = find_card(services(request).live, table_id, session_id, half).to_json()
    return page(request, actor, "sheet.html", card=card, view="sheets")


@router.get("/standings", response_class=HTMLResponse)
def standings(request: Request, actor: Actor = Depends(need(EVERYONE))) -> Response:
    return page(request, actor, "standings.html", s=compute(services(request)), view="standings")


@router.get("/audit", response_class=HTMLResponse)
def audit(request: Request, actor: Actor = Depends(need(AUDIT | DECIDE))) -> Response:
    return page(request, actor, "audit.html", entries=entries(services(request)), view="audit")


@router.get("/logout", response_class=HTMLResponse)
def logout_page(request: Request) -> Response:
    actor = current(request)
    if actor is None:
        return RedirectResponse("/login", status_code=303)
    return page(request, actor, "logout.html", view="logout")
