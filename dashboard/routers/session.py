"""Logging in and out (JSON API; the login page posts the same form), and the user's language."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import select

from dashboard import store
from dashboard.auth import (
    COOKIE,
    EVERYONE,
    LOGIN_CSRF_COOKIE,
    check_password,
    close_session,
    open_session,
    same,
)
from dashboard.db.models import User
from dashboard.deps import Actor, address, need
from dashboard.services import Services, services

router = APIRouter(prefix="/api/session", tags=["session"])


class LoginRequest(BaseModel):
    name: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=256)


class SessionResponse(BaseModel):
    name: str
    role: str
    lang: str
    csrf: str


class LangRequest(BaseModel):
    lang: Literal["en", "zh"]


def login(
    svc: Services, request: Request, response: Response, name: str, password: str, login_csrf: str
) -> SessionResponse:
    """Check the pre-login CSRF cookie, the throttle and the password; set the session cookie.
    Every attempt is audited (never with the password)."""
    cookie = request.cookies.get(LOGIN_CSRF_COOKIE, "")
    if not cookie or not login_csrf or not same(cookie, login_csrf):
        raise HTTPException(403, "CSRF token missing or wrong: load /login first")
    where = address(request)
    wait = svc.throttle.wait(name, where)
    if wait > 0:
        store.audit(svc.factory, svc.clock(), name, "login_throttled", address=where)
        raise HTTPException(
            429,
            f"too many failed logins: try again in {wait:.0f} s",
            headers={"Retry-After": str(int(wait) + 1)},
        )
    with svc.factory() as db:
        user = db.scalar(select(User).where(User.name == name))
    if user is None or not check_password(user.password_hash, password):
        svc.throttle.failed(name, where)
        store.audit(svc.factory, svc.clock(), name, "login_failed", address=where)
        raise HTTPException(401, "wrong name or password")
    svc.throttle.succeeded(name, where)
    token, csrf = open_session(svc.factory, user, svc.clock(), svc.settings.session_hours)
    response.set_cookie(
        COOKIE,
        token,
        httponly=True,
        samesite="strict",
        secure=svc.settings.secure_cookies,
        max_age=int(svc.settings.session_hours * 3600),
        path="/",
    )
    store.audit(svc.factory, svc.clock(), user.name, "login", address=where)
    return SessionResponse(name=user.name, role=user.role, lang=user.lang, csrf=csrf)


@router.post(
    "",
    response_model=SessionResponse,
    responses={
        401: {"description": "wrong name or password"},
        403: {"description": "CSRF"},
        429: {"description": "throttled"},
    },
)
def post_session(body: LoginRequest, request: Request, response: Response) -> SessionResponse:
    """Log in; send the ``mjref_login_csrf`` cookie's value as ``X-CSRF-Token``."""
    return login(
        services(request),
        request,
        response,
        body.name,
        body.password,
        request.headers.get("x-csrf-token", ""),
    )


@router.get("", response_model=SessionResponse)
def get_session(actor: Actor = Depends(need(EVERYONE))) -> SessionResponse:
    return SessionResponse(name=actor.name, role=actor.role.value, lang=actor.lang, csrf=actor.csrf)


@router.delete("", status_code=204, response_class=Response)
def delete_session(request: Request, actor: Actor = Depends(need(EVERYONE))) -> Response:
    svc = services(request)
    close_session(svc.factory, request.cookies.get(COOKIE, ""))
    store.audit(svc.factory, svc.clock(), actor.name, "logout", address=actor.address)
    response = Response(status_code=204)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.put("/lang", response_model=SessionResponse)
def put_lang(
    body: LangRequest, request: Request, actor: Actor = Depends(need(EVERYONE))
) -> SessionResponse:
    """The interface language of this user (English or simplified Chinese)."""
    svc = services(request)
    with svc.factory() as db:
        user = db.scalar(select(User).where(User.name == actor.name))
        if user is not None:
            user.lang = body.lang
            db.commit()
    return SessionResponse(name=actor.name, role=actor.role.value, lang=body.lang, csrf=actor.csrf)
