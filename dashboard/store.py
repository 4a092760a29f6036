"""What the ingest and the routers write and read, in plain functions over a Session factory."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, cast

from sqlalchemy import Engine, Table, select, text
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import Session, sessionmaker

from dashboard.db.models import AuditEntry, Presence, RigAlert, StoredEvent
from referee.events import Event


def insert_events(factory: sessionmaker[Session], events: Iterable[tuple[Event, float]]) -> int:
    """Store log events, each with when it reached the dashboard (the time its alerts show, the
    same after a restart); one already there (same table, session, seq) is skipped. The count
    newly stored comes back. The statement's text is the same whatever the batch (the ingest's
    hot path: a multi-row VALUES built per batch cost more to compile and parse than to run)."""
    rows = [
        {
            "table_id": ev.table_id,
            "session_id": ev.session_id,
            "seq": ev.seq,
            "ts": ev.ts,
            "type": ev.type,
            "body": ev.model_dump_json(),
            "received": received,
        }
        for ev, received in events
    ]
    if not rows:
        return 0
    with factory() as db:
        engine = db.get_bind()
        assert isinstance(engine, Engine)
        if engine.dialect.name == "postgresql":  # one statement, a column per array
            columns = {c: [r[c] for r in rows] for c in rows[0]}
            result = db.execute(_PG_INSERT, columns)
        else:
            result = db.execute(_SQLITE_INSERT, rows)
        stored = len(result.all())
        db.commit()
        return stored


_EVENTS = cast(Table, StoredEvent.__table__)
_SQLITE_INSERT = (
    sqlite.insert(_EVENTS)
    .on_conflict_do_nothing(index_elements=["table_id", "session_id", "seq"])
    .returning(_EVENTS.c.seq)
)
_PG_INSERT = text(
    "INSERT INTO events (table_id, session_id, seq, ts, type, body, received) "
    "SELECT * FROM unnest(CAST(:table_id AS text[]), CAST(:session_id AS text[]), "
    "CAST(:seq AS integer[]), CAST(:ts AS double precision[]), CAST(:type AS text[]), "
    "CAST(:body AS text[]), CAST(:received AS double precision[])) "
    "ON CONFLICT (table_id, session_id, seq) DO NOTHING RETURNING seq"
)


def stored_events(factory: sessionmaker[Session]) -> Iterator[Event]:
    """Every stored event, per table session in seq order."""
    for event, _ in stored_log(factory):
        yield event


def stored_log(factory: sessionmaker[Session]) -> Iterator[tuple[Event, float]]:
    """Every stored event with when it was received, per table session in seq order (what a
    restart replays: the alerts keep the clock time they showed)."""
    with factory() as db:
        q = select(StoredEvent.body, StoredEvent.received).order_by(
            StoredEvent.table_id, StoredEvent.session_id, StoredEvent.seq
        )
        for body, received in db.execute(q).yield_per(2000):
            yield Event.model_validate_json(body), float(received)


def events_of(factory: sessionmaker[Session], table_id: str, session_id: str) -> list[str]:
    with factory() as db:
        q = (
            select(StoredEvent.body)
            .where(StoredEvent.table_id == table_id, StoredEvent.session_id == session_id)
            .order_by(StoredEvent.seq)
        )
        return [b for (b,) in db.execute(q)]


def save_presence(
    factory: sessionmaker[Session], table_id: str, state: str, body: dict[str, Any], now: float
) -> float:
    """Upsert the table's status; ``changed`` moves only when the state does. Returns it."""
    with factory() as db:
        row = db.get(Presence, table_id)
        if row is None:
            row = Presence(table_id=table_id, state=state, body="{}", changed=now)
            db.add(row)
        elif row.state != state:
            row.state, row.changed = state, now
        row.body = json.dumps(body)
        changed = row.changed
        db.commit()
        return changed


def presences(factory: sessionmaker[Session]) -> list[Presence]:
    with factory() as db:
        return list(db.scalars(select(Presence)))


def save_rig_alert(factory: sessionmaker[Session], env: dict[str, Any], received: float) -> None:
    with factory() as db:
        db.add(
            RigAlert(
                table_id=str(env.get("table_id", "?")),
                session_id=str(env.get("session_id", "")),
                body=json.dumps(env),
                received=received,
            )
        )
        db.commit()


def rig_alerts(factory: sessionmaker[Session]) -> list[RigAlert]:
    with factory() as db:
        return list(db.scalars(select(RigAlert).order_by(RigAlert.id)))


def audit(
    factory: sessionmaker[Session],
    at: float,
    actor: str,
    action: str,
    *,
    table_id: str | None = None,
    target: str | None = None,
    reason: str = "",
    detail: dict[str, Any] | None = None,
    address: str = "",
) -> None:
    with factory() as db:
        db.add(
            AuditEntry(
                at=at,
                actor=actor,
                action=action,
                table_id=table_id,
                target=target,
                reason=reason,
                detail=json.dumps(detail or {}, sort_keys=True),
                address=address,
            )
        )
        db.commit()
