"""Who may do what: users with roles (argon2 passwords, session cookies, CSRF on every unsafe
method, login throttling) and rigs with per-table tokens."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import deque
from collections.abc import Callable
from enum import StrEnum

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from dashboard.db.models import LoginSession, RigToken, User

COOKIE = "mjref_session"
LOGIN_CSRF_COOKIE = "mjref_login_csrf"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class Role(StrEnum):
    HEAD_REFEREE = "head_referee"
    REFEREE = "referee"
    SCOREKEEPER = "scorekeeper"
    VIEWER = "viewer"


DECIDE = frozenset({Role.HEAD_REFEREE, Role.REFEREE})  # acknowledge, confirm, change, dismiss
REVOKE = frozenset({Role.HEAD_REFEREE})  # undo a confirmed penalty (WMC-0.3: final word)
CONTROL = frozenset({Role.HEAD_REFEREE, Role.REFEREE})  # clocks: pause, extend, late
AUDIT = frozenset({Role.HEAD_REFEREE, Role.SCOREKEEPER})
ORGANISE = frozenset({Role.HEAD_REFEREE})  # a tournament's rounds, seating, players, results
EVERYONE = frozenset(Role)

_hasher = PasswordHasher()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def check_password(stored: str, password: str) -> bool:
    try:
        return _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


class UserError(ValueError):
    """A user or token that cannot be made; the message says why."""


def add_user(
    factory: sessionmaker[Session], name: str, role: str, password: str, now: float
) -> User:
    if role not in {r.value for r in Role}:
        raise UserError(
            f"role {role!r} unknown; expected one of {', '.join(r.value for r in Role)}"
        )
    if not name.strip() or len(name) > 64:
        raise UserError("a user name needs 1–64 characters")
    if len(password) < 8:
        raise UserError("a password needs at least 8 characters")
    with factory() as db:
        if db.scalar(select(User).where(User.name == name)) is not None:
            raise UserError(f"user {name!r} exists already")
        user = User(
            name=name, role=role, password_hash=hash_password(password), lang="en", created=now
        )
        db.add(user)
        db.commit()
        return user


def issue_token(factory: sessionmaker[Session], table_id: str, now: float) -> str:
    """A new rig token for ``table_id``; only its hash is kept (shown once)."""
    if not table_id.strip() or len(table_id) > 64 or "/" in table_id:
        raise UserError("a table id needs 1–64 characters and no '/'")
    token = f"mjt_{secrets.token_urlsafe(32)}"
    with factory() as db:
        db.add(RigToken(table_id=table_id, token_hash=digest(token), created=now, revoked=False))
        db.commit()
    return token


def token_table(factory: sessionmaker[Session], token: str) -> str | None:
    """The table a rig token may write, or None for an unknown or revoked one."""
    with factory() as db:
        row = db.scalar(select(RigToken).where(RigToken.token_hash == digest(token)))
        return None if row is None or row.revoked else row.table_id


def open_session(
    factory: sessionmaker[Session], user: User, now: float, hours: float
) -> tuple[str, str]:
    """(cookie value, CSRF token) of a new login session."""
    cookie, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    with factory() as db:
        db.add(
            LoginSession(
                id=digest(cookie),
                user_id=user.id,
                csrf=csrf,
                created=now,
                expires=now + hours * 3600,
            )
        )
        db.commit()
    return cookie, csrf


def session_user(
    factory: sessionmaker[Session], cookie: str | None, now: float
) -> tuple[User, LoginSession] | None:
    if not cookie:
        return None
    with factory() as db:
        row = db.get(LoginSession, digest(cookie))
        if row is None or row.expires < now:
            return None
        user = db.get(User, row.user_id)
        return None if user is None else (user, row)


def close_session(factory: sessionmaker[Session], cookie: str) -> None:
    with factory() as db:
        row = db.get(LoginSession, digest(cookie))
        if row is not None:
            db.delete(row)
            db.commit()


class LoginThrottle:
    """At most ``failures`` wrong passwords per (name, address) in ``window`` seconds; then
    that pair waits until the oldest failure leaves the window."""

    def __init__(self, failures: int, window: float, clock: Callable[[], float]) -> None:
        self.failures, self.window, self.clock = failures, window, clock
        self._seen: dict[tuple[str, str], deque[float]] = {}

    def _recent(self, key: tuple[str, str]) -> deque[float]:
        q = self._seen.setdefault(key, deque())
        now = self.clock()
        while q and now - q[0] >= self.window:
            q.popleft()
        return q

    def wait(self, name: str, address: str) -> float:
        """Seconds until this pair may try again (0: now)."""
        q = self._recent((name.lower(), address))
        if len(q) < self.failures:
            return 0.0
        return max(self.window - (self.clock() - q[0]), 0.0)

    def failed(self, name: str, address: str) -> None:
        self._recent((name.lower(), address)).append(self.clock())

    def succeeded(self, name: str, address: str) -> None:
        self._seen.pop((name.lower(), address), None)
