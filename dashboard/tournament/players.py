"""Players' own logins (name + PIN, or the name alone where the organiser chose no PINs): a
player sees their own table only, so these sessions are apart from the staff's and give no
role."""

from __future__ import annotations

import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from dashboard.auth import check_password, digest
from dashboard.db.models import EntrantRow, PlayerSession

PLAYER_COOKIE = "mjref_player"


def log_in(
    factory: sessionmaker[Session], name: str, pin: str, pins: bool, now: float, hours: float
) -> str | None:
    """A new player session's cookie, or None for an unknown name or a wrong PIN."""
    with factory() as db:
        row = db.scalar(select(EntrantRow).where(EntrantRow.name == name))
        if row is None or (pins and not check_password(row.pin_hash, pin)):
            return None
        cookie = secrets.token_urlsafe(32)
        db.add(
            PlayerSession(
                id=digest(cookie), entrant=row.name, created=now, expires=now + hours * 3600
            )
        )
        db.commit()
        return cookie


def player_of(factory: sessionmaker[Session], cookie: str | None, now: float) -> str | None:
    if not cookie:
        return None
    with factory() as db:
        row = db.get(PlayerSession, digest(cookie))
        return None if row is None or row.expires < now else row.entrant
