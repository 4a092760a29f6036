"""What the ingest and the routers write and read, in plain functions over a Session factory."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker

from dashboard.db.models import AuditEntry, Presence, RigAlert, StoredEvent
from referee.events import Event


def insert_events(factory: sessionmaker[Session], events: Iterable[Event], received: float) -> int:
    """Store log events; one already there (same table, session, seq) is skipped. The count
    newly stored comes back."""
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
        for ev in events
    ]
    if not rows:
        return 0
    with factory() as db:
        engine = db.get_bind()
        assert isinstance(engine, Engine)
        dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
        stmt = dialect.insert(StoredEvent).values(rows)
        stmt = stmt.on_conflict_do_nothing(index_elements=["table_id", "session_id", "seq"])
        result = db.execute(stmt)
        db.commit()
        return max(int(getattr(result, "rowcount", 0) or 0), 0)


def stored_events(factory: sessionmaker[Session]) -> Iterator[Event]:
    """Every stored event, per table session in seq order (what a restart replays)."""
    with factory() as db:
        q = select(StoredEvent.body).order_by(
            StoredEvent.table_id, StoredEvent.session_id, StoredEvent.seq
        )
        for (body,) in db.execute(q).yield_per(2000):
            yield Event.model_validate_json(body)


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
