"""Bus → live state → clients, and → database. One task applies events in order and pushes
their alerts at once; a writer task stores them behind it, in order, in batches of whatever
arrived while it wrote (so a busy venue costs fewer, larger transactions, and the push does
not wait on the database). The rigs' logs are the record: an event applied but not yet stored
when the dashboard dies is asked for again after the restart (the retained state shows the
tail gap), and a failed write is retried, never dropped.

Idempotent on ``(table_id, session_id, seq)``: :class:`rig.bus.feed.Feed` lets each log event
through once, in seq order, and asks ``cmd/resend_from`` for holes; the insert skips a key
already stored. Only the ``log`` stream is taken: the engine's outputs are re-derived here by
replaying the log through :class:`referee.duties.RefereeTable` (EVENTS.md: outputs are a pure
function of the log), so the rig's ``engine`` stream and the retained state's ``out_seq`` are
not followed. A restart replays the database and tells the feed where each stream stands.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError
from sqlalchemy.orm import Session, sessionmaker

from dashboard import store
from dashboard.hub import Hub
from dashboard.live import AlertItem, LiveState, LiveTable, Presence
from dashboard.metrics import DashMetrics
from dashboard.outbox import Outbox
from dashboard.views import alert_view
from referee.events import Event
from rig.bus import Bus, BusError, BusMessage, topic, topic_filter
from rig.bus.commands import cited, refusal
from rig.bus.feed import Feed

log = logging.getLogger(__name__)
BATCH = 500


class Ingest:
    def __init__(
        self,
        bus: Bus,
        factory: sessionmaker[Session],
        live: LiveState,
        hub: Hub,
        metrics: DashMetrics,
        clock: Callable[[], float] = time.time,
        *,
        tick: float = 0.25,
        outbox: Outbox | None = None,
    ) -> None:
        self.bus, self.factory, self.live, self.hub = bus, factory, live, hub
        self.metrics = metrics
        self.clock = clock
        self.tick = tick
        self.feed = Feed()
        self.queue: asyncio.Queue[tuple[BusMessage, float]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._pump: asyncio.Task[None] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._unstored: list[tuple[Event, float]] = []  # applied (when), waiting for the writer
        self._writing = 0  # the writer's batch in flight
        self._wake = asyncio.Event()
        self.refused = 0
        self.retry_write = 1.0
        self.gather = 0.05  # the writer waits this long for a batch to form (not the push)
        self.on_online: Callable[[str], Awaitable[None]] | None = None  # a rig came online
        self.outbox = outbox  # the referees' commands: applied or failed as their events come

    # ---- restart ------------------------------------------------------------------------------

    def restore(self) -> int:
        """Replay the database into the live state; the feed continues after what is stored."""
        count = replay(self.factory, self.live)
        for (tid, sid), table in self.live.sessions.items():
            self.feed.seek(tid, sid, table.last_seq + 1)
        for p in store.presences(self.factory):
            self.live.presence[p.table_id] = Presence(
                p.table_id, p.state, p.changed, json.loads(p.body)
            )
        for a in store.rig_alerts(self.factory):
            self.live.rig_alerts.setdefault(a.table_id, []).append(json.loads(a.body))
        return count

    # ---- running ------------------------------------------------------------------------------

    async def start(self) -> None:
        sub = await self.bus.subscribe(
            *(
                topic_filter(self.bus.venue, None, k)
                for k in ("events", "alerts", "state", "status")
            )
        )

        async def pump() -> None:
            async for message in sub:
                self.queue.put_nowait((message, time.perf_counter()))

        self._pump = asyncio.create_task(pump(), name="ingest pump")
        self._task = asyncio.create_task(self._run(), name="ingest")
        self._writer = asyncio.create_task(self._write(), name="ingest writer")

    async def stop(self) -> None:
        """Stop taking messages; what was applied is stored before the writer stops."""
        takers = [t for t in (self._pump, self._task) if t is not None]
        for task in takers:
            task.cancel()
        await asyncio.gather(*takers, return_exceptions=True)  # a cancel of stop() itself stays
        if self._writer is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._drained(), 10)
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer

    @property
    def backlog(self) -> int:
        """Events applied to the live state and not yet stored."""
        return len(self._unstored) + self._writing

    async def _drained(self) -> None:
        while self.backlog:
            await asyncio.sleep(0.01)

    def submit(self, table_id: str, envelopes: list[dict[str, Any]]) -> None:
        """Envelopes posted over HTTP by a rig (its token checked): the same path as the bus."""
        for env in envelopes:
            t = topic(self.bus.venue, table_id, "events")
            self.queue.put_nowait(
                (BusMessage(t, self.bus.venue, table_id, "events", None, env), time.perf_counter())
            )

    async def _run(self) -> None:
        while True:
            try:  # not wait_for: on 3.11 it swallows a cancel that meets a message (gh-86296)
                async with asyncio.timeout(self.tick):
                    first = await self.queue.get()
            except TimeoutError:
                await self._resend(self.feed.due(time.monotonic()))
                continue
            batch = [first]
            while len(batch) < BATCH and not self.queue.empty():
                batch.append(self.queue.get_nowait())
            try:
                await self._handle(batch)
            except Exception:  # a presence or rig alert not stored: logged, the next goes on
                log.exception("ingest batch failed")

    async def _handle(self, batch: list[tuple[BusMessage, float]]) -> None:
        ready: list[tuple[dict[str, Any], float]] = []
        resends = []
        now = self.clock()
        for message, t_in in batch:
            if message.kind == "status":
                await self._status(message, now)
                continue
            if message.kind == "state":
                self._state(message)
                message = _without_engine(message)
            elif message.payload.get("source") == "engine":
                continue  # re-derived here from the log
            elif message.kind == "alerts" and not isinstance(message.payload.get("seq"), int):
                await self._rig_alert(message, now)
                continue
            before = self.feed.duplicates
            out, due = self.feed.take(message, time.monotonic())
            self.metrics.duplicates.inc(self.feed.duplicates - before)
            ready += [(env, t_in) for env in out]
            resends += due
        events: list[tuple[Event, float]] = []
        for env, t_in in ready:
            try:
                events.append((Event.model_validate(env), t_in))
            except ValidationError as exc:
                self.refused += 1
                first = exc.errors()[0]
                where = ".".join(str(x) for x in first["loc"])
                text = f"event seq {env.get('seq')} refused: {where}: {first['msg']}"
                log.warning("%s: %s", env.get("table_id"), text)
                table_id = str(env.get("table_id", "?"))
                alert = {
                    "table_id": table_id,
                    "session_id": str(env.get("session_id", "")),
                    "source": "dashboard",
                    "type": "alert",
                    "payload": {"rule": "SYS-ingest", "severity": "critical", "message": text},
                }
                t = topic(self.bus.venue, table_id, "alerts")
                await self._rig_alert(
                    BusMessage(t, self.bus.venue, table_id, "alerts", None, alert), now
                )
        commanded = []
        for ev, t_in in events:
            table, items = self.live.apply(ev, now)
            self._push(table, items)
            self.hub.changed(ev.table_id)
            self.metrics.ingest_seconds.observe(time.perf_counter() - t_in)
            if cited(ev.evidence) is not None:
                commanded.append((ev, items))
        if events:  # in the writer's backlog before any await: a stop then loses nothing
            self._unstored += [(e, now) for e, _ in events]
            self._wake.set()
        if commanded and self.outbox is not None:
            await self.outbox.settle(commanded)
        await self._resend(resends)

    async def _write(self) -> None:
        """Store what was applied, oldest first; a failed batch is written again."""
        while True:
            await self._wake.wait()
            await asyncio.sleep(self.gather)
            self._wake.clear()
            while self._unstored:
                batch, self._unstored = self._unstored[:BATCH], self._unstored[BATCH:]
                self._writing = len(batch)
                try:
                    stored = await asyncio.to_thread(store.insert_events, self.factory, batch)
                except Exception:  # the database away: kept, and tried again
                    log.exception("storing %d events failed; trying again", len(batch))
                    self._unstored[:0] = batch
                    await asyncio.sleep(self.retry_write)
                    continue
                finally:
                    self._writing = 0
                self.metrics.ingested.inc(stored)

    def _push(self, table: LiveTable, items: list[AlertItem]) -> None:
        for item in items:
            self.hub.send({"type": "alert", "item": alert_view(table, item)})

    def _state(self, message: BusMessage) -> None:
        table = self.live.tables.get(message.table)
        ts = message.payload.get("ts")
        if table is not None and isinstance(ts, int | float):
            table.state_ts = float(ts)

    async def _status(self, message: BusMessage, now: float) -> None:
        body = message.payload
        state = "online" if body.get("state") == "online" else "offline"
        before = self.live.presence.get(message.table)
        changed = await asyncio.to_thread(
            store.save_presence, self.factory, message.table, state, body, now
        )
        self.live.presence[message.table] = Presence(message.table, state, changed, body)
        self.hub.changed(message.table)
        back = before is None or before.state != "online"
        if state == "online" and self.outbox is not None:  # its commands first, then its round
            await self.outbox.rig_online(message.table, back=back)
        if state == "online" and back and self.on_online:
            await self.on_online(message.table)

    async def _rig_alert(self, message: BusMessage, now: float) -> None:
        env = {**message.payload, "table_id": message.table, "received": now}
        await asyncio.to_thread(store.save_rig_alert, self.factory, env, now)
        self.live.rig_alerts.setdefault(message.table, []).append(env)
        self.hub.send({"type": "rig_alert", "table_id": message.table, "alert": env})
        payload = env.get("payload")
        refused = refusal(payload) if isinstance(payload, dict) else None
        if refused is not None and self.outbox is not None:
            await self.outbox.refuse(message.table, refused)

    async def _resend(self, resends: list[Any]) -> None:
        for r in resends:
            self.metrics.resends.inc()
            with contextlib.suppress(BusError):
                await self.bus.send_command(r.table, "resend_from", r.command())


def replay(factory: sessionmaker[Session], live: LiveState) -> int:
    """Every stored event into ``live``, per table session in seq order, each session up to a
    hole (an event never stored: the feed asks for it again); how many were applied."""
    count = 0
    for ev, received in store.stored_log(factory):
        table = live.sessions.get((ev.table_id, ev.session_id))
        if table is not None and ev.seq != table.last_seq + 1:
            continue
        live.apply(ev, received)
        count += 1
    return count


def _without_engine(message: BusMessage) -> BusMessage:
    """The retained state without ``out_seq``: the engine stream is not followed here."""
    payload = {k: v for k, v in message.payload.items() if k != "out_seq"}
    return BusMessage(
        message.topic,
        message.venue,
        message.table,
        message.kind,
        message.name,
        payload,
        message.retained,
    )
