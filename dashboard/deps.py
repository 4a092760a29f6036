"""Request guards: ``Depends(need(ROLES))`` = logged in (401), CSRF on unsafe methods (403),
one of the roles (403) — in that order, so every write endpoint refuses all three alike."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fastapi import HTTPException, Request

from dashboard.auth import COOKIE, CSRF_FIELD, CSRF_HEADER, UNSAFE, Role, same, session_user
from dashboard.services import services


@dataclass(frozen=True)
class Actor:
    name: str
    role: Role
    lang: str
    csrf: str
    address: str


def address(request: Request) -> str:
    return request.client.host if request.client else ""


def current(request: Request) -> Actor | None:
    svc = services(request)
    found = session_user(svc.factory, request.cookies.get(COOKIE), svc.clock())
    if found is None:
        return None
    user, sess = found
    return Actor(user.name, Role(user.role), user.lang, sess.csrf, address(request))


async def _csrf_of(request: Request) -> str:
    token = request.headers.get(CSRF_HEADER, "")
    if not token and request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/form-data")
    ):
        form = await request.form()
        value = form.get(CSRF_FIELD)
        token = value if isinstance(value, str) else ""
    return token


def need(roles: frozenset[Role]) -> Callable[[Request], Awaitable[Actor]]:
    async def guard(request: Request) -> Actor:
        actor = current(request)
        if actor is None:
            raise HTTPException(401, "log in first")
        if request.method in UNSAFE:
            token = await _csrf_of(request)
            if not token or not same(token, actor.csrf):
                raise HTTPException(
                    403, "CSRF token missing or wrong: send the X-CSRF-Token header"
                )
        if actor.role not in roles:
            raise HTTPException(
                403,
                f"a {actor.role.value} may not do this; it needs "
                + " or ".join(sorted(r.value for r in roles)),
            )
        return actor

    return guard
