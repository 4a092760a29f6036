"""The append-only event store: SQLite in WAL mode with synchronous=FULL.

An append returns only after its transaction is durable, so an acknowledged event survives a
crash (SIGKILL, power loss after fsync); ``(table_id, session_id, seq)`` is the primary key, so
a resend after a crash never duplicates — an identical event is acknowledged again, a different
one under the same key is refused. A snapshot of the table state is stored after each hand so
that replay can start from the latest one; the events alone always suffice.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from referee.events import Event
from referee.game.table import Table

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    table_id   TEXT    NOT NULL,
    session_id TEXT    NOT NULL,
    seq        INTEGER NOT NULL,
    ts         REAL    NOT NULL,
    type       TEXT    NOT NULL,
    body       TEXT    NOT NULL,
    PRIMARY KEY (table_id, session_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    table_id   TEXT    NOT NULL,
    session_id TEXT    NOT NULL,
    seq        INTEGER NOT NULL,
    hand       INTEGER NOT NULL,
    body       TEXT    NOT NULL,
    PRIMARY KEY (table_id, session_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS current_session (
    table_id   TEXT    NOT NULL PRIMARY KEY,
    session_id TEXT    NOT NULL,
    configured TEXT    NOT NULL
) WITHOUT ROWID;
"""


class StoreConflict(ValueError):
    """A different event already holds this (table, session, seq)."""


class EventStore:
    """One SQLite file; safe for one writer and many readers (WAL)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(_SCHEMA)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- writing -----------------------------------------------------------------------------

    def append(self, event: Event) -> bool:
        """Durably store one event; True if new, False if this exact event was already there."""
        return self.append_many([event]) == 1

    def append_many(self, events: Iterable[Event]) -> int:
        """Store events in one transaction; returns how many were new. All or nothing."""
        rows = [
            (e.table_id, e.session_id, e.seq, e.ts, e.type, e.model_dump_json()) for e in events
        ]
        new = 0
        cur = self.db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            for row in rows:
                cur.execute("INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?)", row)
                if cur.rowcount == 1:
                    new += 1
                    continue
                (body,) = cur.execute(
                    "SELECT body FROM events WHERE table_id=? AND session_id=? AND seq=?",
                    row[:3],
                ).fetchone()
                if json.loads(body) != json.loads(row[5]):
                    raise StoreConflict(
                        f"seq {row[2]} of {row[0]}/{row[1]} already holds a different event"
                    )
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        return new

    def save_snapshot(
        self, table_id: str, session_id: str, seq: int, hand: int, state: dict[str, Any]
    ) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?, ?)",
            (table_id, session_id, seq, hand, json.dumps(state, separators=(",", ":"))),
        )

    def set_current(self, table_id: str, session_id: str, configured: str) -> None:
        """The session ``table_id`` is in now (a rig told to switch, cmd/round), and the session
        its configuration named then (a later edit of the configuration is a newer decision)."""
        self.db.execute(
            "INSERT OR REPLACE INTO current_session VALUES (?, ?, ?)",
            (table_id, session_id, configured),
        )

    # ---- reading -----------------------------------------------------------------------------

    def current(self, table_id: str) -> tuple[str, str] | None:
        """``(session_id, configured)`` as :meth:`set_current` last stored them; None if never."""
        row = self.db.execute(
            "SELECT session_id, configured FROM current_session WHERE table_id=?", (table_id,)
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def last_seq(self, table_id: str, session_id: str) -> int:
        """The highest stored seq, −1 if none."""
        (seq,) = self.db.execute(
            "SELECT COALESCE(MAX(seq), -1) FROM events WHERE table_id=? AND session_id=?",
            (table_id, session_id),
        ).fetchone()
        return int(seq)

    def events(self, table_id: str, session_id: str, from_seq: int = 0) -> Iterator[Event]:
        """Stored events in seq order (validated again: the store is a boundary too)."""
        for (body,) in self.db.execute(
            "SELECT body FROM events WHERE table_id=? AND session_id=? AND seq>=? ORDER BY seq",
            (table_id, session_id, from_seq),
        ):
            yield Event.model_validate_json(body)

    def evidence(self, table_id: str, source: str) -> Iterator[list[str]]:
        """The ``evidence`` of every event ``source`` logged at ``table_id``, in any session (read
        from the stored JSON, without validating whole events: cheap at a rig's start)."""
        for (text,) in self.db.execute(
            "SELECT json_extract(body, '$.evidence') FROM events "
            "WHERE table_id=? AND json_extract(body, '$.source')=?",
            (table_id, source),
        ):
            items = json.loads(text) if text else []
            yield [str(e) for e in items] if isinstance(items, list) else []

    def seqs(self, table_id: str, session_id: str) -> list[int]:
        return [
            int(s)
            for (s,) in self.db.execute(
                "SELECT seq FROM events WHERE table_id=? AND session_id=? ORDER BY seq",
                (table_id, session_id),
            )
        ]

    def latest_snapshot(self, table_id: str, session_id: str) -> tuple[int, dict[str, Any]] | None:
        row = self.db.execute(
            "SELECT seq, body FROM snapshots WHERE table_id=? AND session_id=? "
            "ORDER BY seq DESC LIMIT 1",
            (table_id, session_id),
        ).fetchone()
        if row is None:
            return None
        return int(row[0]), json.loads(row[1])

    def sessions(self) -> list[tuple[str, str]]:
        return [
            (str(t), str(s))
            for t, s in self.db.execute(
                "SELECT DISTINCT table_id, session_id FROM events ORDER BY table_id, session_id"
            )
        ]


def record(store: EventStore, events: Iterable[Event], *, snapshots: bool = True) -> int:
    """Apply events to a fresh engine and store each durably; a snapshot after every hand."""
    table: Table | None = None
    n = 0
    for ev in events:
        if table is None:
            table = Table(ev.table_id, ev.session_id)
        step = table.apply(ev)
        store.append(ev)
        n += 1
        if snapshots and any(d.type == "hand_ended" for d in step.derived):
            st = step.state
            store.save_snapshot(ev.table_id, ev.session_id, ev.seq, st.hands_played, st.to_dict())
    return n


def replay(store: EventStore, table_id: str, session_id: str) -> Table:
    """The table after every stored event of a session."""
    table = Table(table_id, session_id)
    for ev in store.events(table_id, session_id):
        table.apply(ev)
    return table
