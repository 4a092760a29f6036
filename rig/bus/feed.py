"""Idempotent, in-order ingest of what rigs publish (BUS.md, "Consumers").

Every envelope is keyed by ``(table_id, session_id, stream, seq)`` — stream ``log`` for the
rig's logged events, ``engine`` for the engine's outputs — and delivered exactly once, in seq
order. A message past a hole is held; the hole (and a tail gap the retained ``state`` reveals)
is answered by a :class:`Resend` the caller sends as ``cmd/resend_from``. Sans-I/O: the caller
passes the time, so tests drive it in simulated time; :func:`follow` runs it on a bus.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from rig.bus import Bus, BusError, BusMessage, topic_filter

Stream = Literal["log", "engine"]
Key = tuple[str, str, Stream]


@dataclass(frozen=True, slots=True)
class Resend:
    """Ask ``table`` for its ``stream`` of ``session_id`` again from ``seq``."""

    table: str
    session_id: str
    stream: Stream
    seq: int

    def command(self) -> dict[str, Any]:
        return {"seq": self.seq, "stream": self.stream, "session_id": self.session_id}


@dataclass
class _Cursor:
    next: int = 0
    held: dict[int, dict[str, Any]] = field(default_factory=dict)
    known_last: int = -1  # from the retained state: what the rig says it has
    asked: tuple[int, float, int] | None = None  # (seq, when, how often) of the last request

    @property
    def gap(self) -> bool:
        return bool(self.held) or self.next <= self.known_last


def stream_of(envelope: dict[str, Any]) -> Stream:
    return "engine" if envelope.get("source") == "engine" else "log"


class Feed:
    """The consumer side of a venue's bus: exactly once, in order, gaps asked for again."""

    def __init__(self, *, retry_after: float = 1.0, retry_max: float = 8.0) -> None:
        self.retry_after = retry_after
        self.retry_max = retry_max
        self.cursors: dict[Key, _Cursor] = {}
        self._gapped: set[Key] = set()  # the cursors that may have a hole: all ``due`` looks at
        self.duplicates = 0
        self.resends = 0

    def position(self, table: str, session: str, stream: Stream = "log") -> int:
        """The next seq this feed lets through for the stream (0 for one never seen)."""
        cur = self.cursors.get((table, session, stream))
        return 0 if cur is None else cur.next

    def seek(self, table: str, session: str, next_seq: int, stream: Stream = "log") -> None:
        """Continue the stream at ``next_seq``: everything before it is taken as delivered (a
        consumer restarting from what it stored). What was held past a new hole is kept."""
        key: Key = (table, session, stream)
        cur = self.cursors.setdefault(key, _Cursor())
        cur.next = next_seq
        cur.held = {s: e for s, e in cur.held.items() if s >= next_seq}
        cur.asked = None
        self._mark(key, cur)

    def _mark(self, key: Key, cur: _Cursor) -> None:
        if cur.gap:
            self._gapped.add(key)

    def take(self, message: BusMessage, now: float) -> tuple[list[dict[str, Any]], list[Resend]]:
        """The envelopes this message lets through (in order) and the resends now due."""
        if message.kind == "state":
            self._state(message)
            return [], self.due(now)
        if message.kind not in ("events", "alerts"):
            return [], []
        env = message.payload
        seq, session = env.get("seq"), env.get("session_id")
        if not isinstance(seq, int) or not isinstance(session, str):
            return [env], []  # not part of a stream (a rig's own alert about an input)
        key: Key = (message.table, session, stream_of(env))
        cur = self.cursors.setdefault(key, _Cursor())
        if seq < cur.next or seq in cur.held:
            self.duplicates += 1
            return [], self.due(now)
        out: list[dict[str, Any]] = []
        if seq == cur.next and not cur.held:  # the usual case: next in line, nothing held
            cur.next += 1
            out.append(env)
        else:
            cur.held[seq] = env
            while cur.next in cur.held:
                out.append(cur.held.pop(cur.next))
                cur.next += 1
        if out and cur.asked is not None:  # a resend is coming in: not asked again yet
            cur.asked = (cur.next, now, 1)
        self._mark(key, cur)
        return out, self.due(now) if self._gapped else []

    def _state(self, message: BusMessage) -> None:
        st, session = message.payload, message.payload.get("session_id")
        if not isinstance(session, str):
            return
        for stream, last in (("log", st.get("last_seq")), ("engine", st.get("out_seq"))):
            if isinstance(last, int):
                top = last if stream == "log" else last - 1
                key: Key = (message.table, session, stream)  # type: ignore[assignment]
                cur = self.cursors.setdefault(key, _Cursor())
                cur.known_last = max(cur.known_last, top)
                self._mark(key, cur)

    def due(self, now: float) -> list[Resend]:
        """A resend per stream with a hole, unless the same one was asked for just now: again
        after ``retry_after``, then twice as long each time up to ``retry_max`` (a rig busy
        resending a long tail is not asked for it over and over)."""
        out: list[Resend] = []
        for key in sorted(self._gapped):
            table, session, stream = key
            cur = self.cursors[key]
            if not cur.gap:
                cur.asked = None
                self._gapped.discard(key)
                continue
            asked, tries = cur.asked, 1
            if asked is not None and asked[0] == cur.next:
                wait = min(self.retry_after * 2 ** (asked[2] - 1), self.retry_max)
                if now - asked[1] < wait:
                    continue
                tries = asked[2] + 1
            cur.asked = (cur.next, now, tries)
            self.resends += 1
            out.append(Resend(table, session, stream, cur.next))
        return out

    def complete(self) -> bool:
        """No hole anywhere and nothing the rigs' states announce is missing."""
        return not any(self.cursors[k].gap for k in self._gapped)


async def follow(
    bus: Bus,
    table: str | None = None,
    *,
    feed: Feed | None = None,
    clock: Callable[[], float] = time.monotonic,
    tick: float = 0.25,
) -> AsyncIterator[dict[str, Any]]:
    """Every envelope of ``table`` (or all tables) exactly once, in order; gaps are asked for
    with ``cmd/resend_from`` as they are seen (and again, backing off, until filled)."""
    feed = feed or Feed()
    sub = await bus.subscribe(
        topic_filter(bus.venue, table, "events"),
        topic_filter(bus.venue, table, "alerts"),
        topic_filter(bus.venue, table, "state"),
    )
    try:
        while True:
            message = await sub.get(tick)
            out: list[dict[str, Any]]
            if message is None:
                out, resends = [], feed.due(clock())
            else:
                out, resends = feed.take(message, clock())
            for r in resends:
                with contextlib.suppress(BusError):  # asked again at the next retry
                    await bus.send_command(r.table, "resend_from", r.command())
            for env in out:
                yield env
    finally:
        await sub.close()
