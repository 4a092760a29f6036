"""The ring of recorded segments on disk, indexed in SQLite by session time.

Segments (video, audio, stills) are files under the ring's folder; the index says which session,
kind and time range each covers and how big it is. When the ring is over its budget (bytes,
and/or hours of the session behind the newest segment) the oldest segments go first — except
those pinned (segments written later into a pinned range are pinned as they arrive). A pin
that waits for a decision (an alert's, a proposal's: ``holds`` names it) holds in every session
until :meth:`Ring.release` says it was decided (by then the dashboard keeps its clips); one
without (a win's) holds while its session is the ring's.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

KINDS = ("video", "audio", "still")
JOIN_GAP_S = 0.5  # ranges closer than this read as one in "what is kept"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS segments (
    id INTEGER PRIMARY KEY,
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    start REAL NOT NULL,
    end REAL NOT NULL,
    path TEXT NOT NULL UNIQUE,
    bytes INTEGER NOT NULL,
    pinned INTEGER NOT NULL DEFAULT 0  -- unused: what is pinned is read from the pins
);
CREATE INDEX IF NOT EXISTS segments_time ON segments (session, kind, start);
CREATE TABLE IF NOT EXISTS pins (
    id INTEGER PRIMARY KEY,
    session TEXT NOT NULL,
    start REAL NOT NULL,
    end REAL NOT NULL,
    reason TEXT NOT NULL
);
"""
_PIN_COLUMNS = {  # added to rings indexed before pins waited for decisions
    "holds": "TEXT NOT NULL DEFAULT ''",  # the decision it waits for ('': its session only)
    "released": "TEXT",  # what decided it (NULL: it holds)
}
# a pin that holds now, for the segment row ``s`` (the ring's session is the parameter)
_HELD = (
    "EXISTS (SELECT 1 FROM pins p WHERE p.session = s.session AND p.start < s.end"
    " AND p.end > s.start AND p.released IS NULL AND (p.holds != '' OR p.session = ?))"
)
_COLUMNS = "s.id, s.session, s.kind, s.start, s.end, s.path, s.bytes"


@dataclass(frozen=True, slots=True)
class Segment:
    id: int
    session: str
    kind: str
    start: float
    end: float
    path: Path  # absolute
    bytes: int
    pinned: bool  # a pin holds it now


@dataclass(frozen=True, slots=True)
class Budget:
    """At most ``bytes`` on disk and/or ``seconds`` of session time behind the newest segment;
    None: no limit of that kind."""

    bytes: int | None = None
    seconds: float | None = None

    @classmethod
    def of(cls, gb: float | None, hours: float | None) -> Budget:
        return cls(None if gb is None else int(gb * 1e9), None if hours is None else hours * 3600.0)


class Ring:
    """The index and the files it names; every method is safe from any thread."""

    def __init__(self, directory: Path, budget: Budget, session: str) -> None:
        self.dir = directory
        self.budget = budget
        self.session = session
        directory.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(directory / "index.sqlite", check_same_thread=False)
        self._db.executescript(_SCHEMA)
        have = {row[1] for row in self._db.execute("PRAGMA table_info(pins)")}
        for name, spec in _PIN_COLUMNS.items():
            if name not in have:
                self._db.execute(f"ALTER TABLE pins ADD COLUMN {name} {spec}")
        self._db.commit()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # a lost last row costs one segment only
        self.dropped = 0  # segments dropped by the budget since start

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._db:
            yield self._db

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---- writing -------------------------------------------------------------------------

    def add(self, kind: str, start: float, end: float, path: Path) -> Segment:
        """Index a finished segment file (under the ring's folder), then keep to the budget."""
        if kind not in KINDS:
            raise ValueError(f"segment kind {kind!r}: expected one of {', '.join(KINDS)}")
        rel = str(path.relative_to(self.dir))
        size = path.stat().st_size
        with self._tx() as db:
            if db.execute("SELECT 1 FROM segments WHERE path = ?", (rel,)).fetchone():
                raise ValueError(f"{rel} is indexed already: a segment is never written over")
            cur = db.execute(
                "INSERT INTO segments (session, kind, start, end, path, bytes)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (self.session, kind, start, end, rel, size),
            )
            seg_id = int(cur.lastrowid or 0)
            pinned = self._held(db, seg_id)
        self.enforce()
        return Segment(seg_id, self.session, kind, start, end, path, size, pinned)

    def pin(self, start: float, end: float, reason: str, holds: str = "") -> int:
        """Keep ``[start, end]`` of this session whatever the budget: until ``holds`` (the
        proposal id or ``alert@SEQ`` it waits for) is released, in any session; without one,
        while this session is the ring's. The count of segments it covers now."""
        with self._tx() as db:
            db.execute(
                "INSERT INTO pins (session, start, end, reason, holds) VALUES (?, ?, ?, ?, ?)",
                (self.session, start, end, reason, holds),
            )
            row = db.execute(
                "SELECT COUNT(*) FROM segments WHERE session = ? AND start < ? AND end > ?",
                (self.session, end, start),
            ).fetchone()
            return int(row[0])

    def release(self, session: str, holds: str, by: str) -> int:
        """``by`` decided what a pin of ``session`` waits for (``holds``): one such pin holds no
        more (none when ``by`` released one already: a decision heard twice counts once). The
        count released (0 or 1)."""
        with self._tx() as db:
            if db.execute(
                "SELECT 1 FROM pins WHERE session = ? AND holds = ? AND released = ?",
                (session, holds, by),
            ).fetchone():
                return 0
            cur = db.execute(
                "UPDATE pins SET released = ? WHERE id = (SELECT MIN(id) FROM pins"
                " WHERE session = ? AND holds = ? AND released IS NULL)",
                (by, session, holds),
            )
            return cur.rowcount

    def waiting(self, session: str | None = None) -> list[str]:
        """What this session's pins still wait for (a proposal id or ``alert@SEQ`` each)."""
        with self._tx() as db:
            rows = db.execute(
                "SELECT holds FROM pins WHERE session = ? AND holds != '' AND released IS NULL"
                " ORDER BY id",
                (session or self.session,),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def _held(self, db: sqlite3.Connection, seg_id: int) -> bool:
        row = db.execute(f"SELECT {_HELD} FROM segments s WHERE s.id = ?", (self.session, seg_id))
        return bool(row.fetchone()[0])

    def enforce(self) -> int:
        """Drop the oldest unpinned segments until the ring is within its budget: this
        session's older than the hours allowed, then by size a past session's first (only the
        pins still waiting for a decision hold there), then this session's oldest. The count
        dropped."""
        victims: list[tuple[int, str]] = []
        with self._tx() as db:
            keep = f"NOT {_HELD}"
            if self.budget.seconds is not None:
                newest = db.execute(
                    "SELECT MAX(end) FROM segments WHERE session = ?", (self.session,)
                ).fetchone()[0]
                if newest is not None:
                    victims += db.execute(
                        f"SELECT s.id, s.path FROM segments s WHERE {keep} AND s.session = ?"
                        " AND s.end < ?",
                        (self.session, self.session, newest - self.budget.seconds),
                    ).fetchall()
            if self.budget.bytes is not None:
                gone = {v[0] for v in victims}
                total = db.execute(
                    "SELECT COALESCE(SUM(bytes), 0) FROM segments"
                    f" WHERE id NOT IN ({','.join('?' * len(gone))})",
                    tuple(gone),
                ).fetchone()[0]
                if total > self.budget.bytes:
                    rows = db.execute(
                        f"SELECT s.id, s.path, s.bytes FROM segments s WHERE {keep}"
                        " ORDER BY s.session != ? DESC, s.end",
                        (self.session, self.session),
                    )
                    for seg_id, rel, size in rows:
                        if total <= self.budget.bytes:
                            break
                        if seg_id not in gone:
                            victims.append((seg_id, rel))
                            total -= size
            db.executemany("DELETE FROM segments WHERE id = ?", [(v[0],) for v in victims])
        for _, rel in victims:
            (self.dir / rel).unlink(missing_ok=True)
        self.dropped += len(victims)
        return len(victims)

    # ---- reading -------------------------------------------------------------------------

    def find(
        self, kind: str, start: float, end: float, session: str | None = None
    ) -> list[Segment]:
        """Segments of ``kind`` overlapping ``[start, end]``, in time order."""
        with self._tx() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS}, {_HELD} FROM segments s WHERE s.session = ? AND s.kind = ?"
                " AND s.start <= ? AND s.end >= ? ORDER BY s.start",
                (self.session, session or self.session, kind, end, start),
            ).fetchall()
        return [_segment(self.dir, r) for r in rows]

    def latest_still(self, t: float, session: str | None = None) -> Segment | None:
        """The still kept at or just before ``t`` (the table as it stood then)."""
        with self._tx() as db:
            row = db.execute(
                f"SELECT {_COLUMNS}, {_HELD} FROM segments s WHERE s.session = ?"
                " AND s.kind = 'still' AND s.start <= ? ORDER BY s.start DESC LIMIT 1",
                (self.session, session or self.session, t + 0.005),
            ).fetchone()
        return None if row is None else _segment(self.dir, row)

    def last_end(self, kind: str, session: str | None = None) -> float | None:
        """Where the newest segment of ``kind`` ends (None: none kept)."""
        with self._tx() as db:
            row = db.execute(
                "SELECT MAX(end) FROM segments WHERE session = ? AND kind = ?",
                (session or self.session, kind),
            ).fetchone()
        return None if row[0] is None else float(row[0])

    def kept(self, kind: str, session: str | None = None) -> list[tuple[float, float]]:
        """The time ranges of ``kind`` still on disk, joined where they touch."""
        with self._tx() as db:
            rows = db.execute(
                "SELECT start, end FROM segments WHERE session = ? AND kind = ? ORDER BY start",
                (session or self.session, kind),
            ).fetchall()
        out: list[tuple[float, float]] = []
        for start, end in rows:
            if out and start <= out[-1][1] + JOIN_GAP_S:
                out[-1] = (out[-1][0], max(out[-1][1], end))
            else:
                out.append((start, end))
        return out

    def usage(self) -> dict[str, float | int]:
        """Bytes, segments and pinned segments on disk (for the rig's status)."""
        with self._tx() as db:
            size, count, pinned = db.execute(
                f"SELECT COALESCE(SUM(s.bytes), 0), COUNT(*), COALESCE(SUM({_HELD}), 0)"
                " FROM segments s",
                (self.session,),
            ).fetchone()
        return {"bytes": size, "segments": count, "pinned": pinned, "dropped": self.dropped}


def _segment(directory: Path, row: tuple[int, str, str, float, float, str, int, int]) -> Segment:
    seg_id, session, kind, start, end, rel, size, pinned = row
    return Segment(seg_id, session, kind, start, end, directory / rel, size, bool(pinned))


def describe(ranges: list[tuple[float, float]], limit: int = 6) -> str:
    """``100.00-200.00, 350.00-360.00`` (the first and last few when there are many)."""
    if not ranges:
        return "nothing"
    parts = [f"{a:.2f}-{b:.2f}" for a, b in ranges]
    if len(parts) > limit:
        parts = [*parts[: limit // 2], f"… {len(parts) - limit} more …", *parts[-limit // 2 :]]
    return ", ".join(parts)
