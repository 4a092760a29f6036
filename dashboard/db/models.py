"""The tables. Events are stored as the rigs logged them; everything live is replayed from them."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    role: Mapped[str] = mapped_column(String(16))
    password_hash: Mapped[str] = mapped_column(String(255))
    lang: Mapped[str] = mapped_column(String(8), default="en")
    created: Mapped[float] = mapped_column(Float)


class LoginSession(Base):
    __tablename__ = "login_sessions"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # sha256 of the cookie
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf: Mapped[str] = mapped_column(String(64))
    created: Mapped[float] = mapped_column(Float)
    expires: Mapped[float] = mapped_column(Float)


class RigToken(Base):
    __tablename__ = "rig_tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created: Mapped[float] = mapped_column(Float)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)


class StoredEvent(Base):
    """One logged event of a rig (the ``log`` stream), unique on (table, session, seq)."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("table_id", "session_id", "seq", name="uq_event_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64))
    session_id: Mapped[str] = mapped_column(String(64))
    seq: Mapped[int] = mapped_column(Integer)
    ts: Mapped[float] = mapped_column(Float)
    type: Mapped[str] = mapped_column(String(32))
    body: Mapped[str] = mapped_column(Text)  # the envelope's JSON as logged
    received: Mapped[float] = mapped_column(Float)


class RigAlert(Base):
    """An alert a rig raised about its own inputs (RIG-INPUT): outside the game's streams."""

    __tablename__ = "rig_alerts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64), index=True)
    session_id: Mapped[str] = mapped_column(String(64))
    body: Mapped[str] = mapped_column(Text)
    received: Mapped[float] = mapped_column(Float)


class Presence(Base):
    """The last retained status of a table's rig."""

    __tablename__ = "presence"
    table_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    state: Mapped[str] = mapped_column(String(16))
    body: Mapped[str] = mapped_column(Text)
    changed: Mapped[float] = mapped_column(Float)  # when ``state`` last changed (our clock)


class AuditEntry(Base):
    __tablename__ = "audit"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[float] = mapped_column(Float, index=True)
    actor: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(32))
    table_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    target: Mapped[str | None] = mapped_column(String(128), nullable=True)
    reason: Mapped[str] = mapped_column(Text, default="")
    detail: Mapped[str] = mapped_column(Text, default="{}")
    address: Mapped[str] = mapped_column(String(64), default="")


class StoredClip(Base):
    """A clip of a rig's recording kept by the dashboard (fetched when its alert was decided),
    so the record outlives the rig's ring. ``start``/``end``: the range asked; ``covers_*``:
    what the rig had of it."""

    __tablename__ = "clips"
    __table_args__ = (Index("ix_clips_range", "table_id", "session_id", "kind", "start"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64))
    session_id: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(8))
    start: Mapped[float] = mapped_column(Float)
    end: Mapped[float] = mapped_column(Float)
    covers_start: Mapped[float] = mapped_column(Float)
    covers_end: Mapped[float] = mapped_column(Float)
    media_type: Mapped[str] = mapped_column(String(32))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    alert_id: Mapped[str] = mapped_column(String(128), default="")
    fetched: Mapped[float] = mapped_column(Float)


# ---- the tournament (#35): made once by ``mjref tournament create``; what happens on the day
# (rounds started, paused, extended, ended; corrections) is appended to the audit, never edited


class TournamentRow(Base):
    __tablename__ = "tournament"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(128))
    rules: Mapped[str] = mapped_column(String(8))
    starts: Mapped[str] = mapped_column(String(10), default="")  # ISO dates
    ends: Mapped[str] = mapped_column(String(10), default="")
    venue: Mapped[str] = mapped_column(String(128), default="")
    seed: Mapped[int] = mapped_column(Integer, default=0)
    pins: Mapped[bool] = mapped_column(Boolean, default=True)  # players log in with a PIN
    created: Mapped[float] = mapped_column(Float)


class EntrantRow(Base):
    __tablename__ = "entrants"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    ema_id: Mapped[str] = mapped_column(String(32), default="")
    country: Mapped[str] = mapped_column(String(64), default="")
    team: Mapped[str] = mapped_column(String(64), default="")
    substitute: Mapped[bool] = mapped_column(Boolean, default=False)
    pin_hash: Mapped[str] = mapped_column(String(255), default="")


class RoundRow(Base):
    __tablename__ = "rounds"
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[str] = mapped_column(String(64))
    minutes: Mapped[int] = mapped_column(Integer)  # the round's time limit


class TableRow(Base):
    __tablename__ = "tournament_tables"
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    rig: Mapped[str] = mapped_column(String(64), unique=True)  # the rig's table id on the bus


class SeatRow(Base):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("round", "table", "seat", name="uq_seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round: Mapped[int] = mapped_column(ForeignKey("rounds.number", ondelete="CASCADE"))
    table: Mapped[int] = mapped_column(ForeignKey("tournament_tables.number", ondelete="CASCADE"))
    seat: Mapped[str] = mapped_column(String(1))
    entrant: Mapped[str] = mapped_column(ForeignKey("entrants.name", ondelete="CASCADE"))


class PlayerSession(Base):
    """A player's login (name + PIN) to their own page: apart from the staff's sessions."""

    __tablename__ = "player_sessions"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # sha256 of the cookie
    entrant: Mapped[str] = mapped_column(ForeignKey("entrants.name", ondelete="CASCADE"))
    created: Mapped[float] = mapped_column(Float)
    expires: Mapped[float] = mapped_column(Float)


class RigCommand(Base):
    """A referee's command to a table (``cmd/event``), kept until the rig has logged it:
    ``queued`` (not sent yet: the rig is offline or the send failed) → ``delivered`` (handed to
    the bus while the rig was online) → ``applied`` (its logged event came back), or ``failed``
    (the rig refused it; ``reason`` says why). ``n`` orders a table's commands as they are sent."""

    __tablename__ = "rig_commands"
    __table_args__ = (Index("ix_rig_commands_table_state", "table_id", "state"),)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    id: Mapped[str] = mapped_column(String(64), unique=True)  # rig.bus.commands.new_id
    table_id: Mapped[str] = mapped_column(String(64))
    session_id: Mapped[str] = mapped_column(String(64))  # the table's session when decided
    type: Mapped[str] = mapped_column(String(32))
    body: Mapped[str] = mapped_column(Text)  # the cmd/event payload's JSON
    actor: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(Text, default="")  # the alert's id (ids, comma-separated)
    state: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text, default="")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[float] = mapped_column(Float)
    sent: Mapped[float | None] = mapped_column(Float, nullable=True)  # the last send
    done: Mapped[float | None] = mapped_column(Float, nullable=True)  # applied or failed at
    logged_session: Mapped[str | None] = mapped_column(String(64), nullable=True)
    logged_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
