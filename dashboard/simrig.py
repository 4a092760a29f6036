"""A simulated table on the bus, for the dashboard's tests and its bench
(bench/dashboard_load.py): it plays a recorded or simulated log, logs referees' ``cmd/event`` as
new events (source ``referee``; each command id once, cited in the evidence), serves
``cmd/resend_from`` and publishes retained status and state — the rig's side of the bus
(rig/runtime.py) without devices, so the dashboard can be driven end to end. (The demo,
venue/demo.py, runs real rigs instead.) Told a tournament's round (``cmd/round``), it moves to
the round's session with the players it names and plays the session ``deal`` gives it for
them."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable
from typing import Any

from referee.events import PAYLOADS, Event, Source, make_event
from referee.game.inject import IrregularSimulator
from rig.bus import Bus, BusError, BusMessage, topic_filter
from rig.bus.commands import cite, cited, command_id


def game(
    table_id: str,
    session_id: str,
    seed: int,
    hands: int = 8,
    rate: float = 0.02,
    players: tuple[str, str, str, str] | None = None,
) -> list[Event]:
    """A simulated session with irregularities (so there are alerts to decide), with the
    table's own player names."""
    events = list(IrregularSimulator("wmc", seed, rate=rate).run(hands))
    names = players or tuple(f"{table_id}-{c}" for c in "ABCD")
    out = []
    for ev in events:
        ev = ev.model_copy(update={"table_id": table_id, "session_id": session_id})
        if ev.type == "session_started":
            ev = ev.model_copy(
                update={"payload": ev.payload.model_copy(update={"players": tuple(names)})}
            )
        out.append(ev)
    return out


class SimRig:
    def __init__(
        self,
        bus: Bus,
        table_id: str,
        session_id: str,
        script: Iterable[Event],
        *,
        inputs: dict[str, dict[str, Any]] | None = None,
        deal: Callable[[str, tuple[str, ...]], list[Event]] | None = None,
    ) -> None:
        self.bus, self.table_id, self.session_id = bus, table_id, session_id
        self.script = list(script)
        self.log: list[Event] = []
        self.logs: dict[str, list[Event]] = {}  # earlier sessions' logs
        self.deal = deal  # (session, players E S W N) → the session a round plays
        self.sent: dict[int, float] = {}  # seq → perf_counter at publish (latency benches)
        self.hold: set[int] = set()  # seqs logged but not published (to make gaps)
        self.inputs = inputs or {
            "camera": {"health": "ok", "since": 0.0, "detail": "running"},
            "voice": {"health": "ok", "since": 0.0, "detail": "running"},
            "table": {"health": "ok", "since": 0.0, "detail": "running"},
        }
        self._task: asyncio.Task[None] | None = None
        self.commands: list[BusMessage] = []
        self.status_extra: dict[str, Any] = {}  # more status (a real rig's evidence_url)

    @property
    def remaining(self) -> int:
        return len(self.script)

    async def start(self) -> None:
        sub = await self.bus.subscribe(topic_filter(self.bus.venue, self.table_id, "cmd"))
        self._task = asyncio.create_task(self._serve(sub), name=f"simrig {self.table_id}")
        await self.publish_status("online")

    async def stop(self, state: str = "offline") -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.publish_status(state)

    async def publish_status(self, state: str) -> None:
        with contextlib.suppress(BusError):
            await self._status(state)

    async def _status(self, state: str) -> None:
        await self.bus.publish_status(
            self.table_id,
            {
                "table_id": self.table_id,
                "session_id": self.session_id,
                "state": state,
                "since": time.time(),
                "last_seq": len(self.log) - 1,
                "inputs": self.inputs,
                **self.status_extra,
            },
        )

    async def publish_state(self) -> None:
        last = self.log[-1] if self.log else None
        state = {
            "table_id": self.table_id,
            "session_id": self.session_id,
            "last_seq": len(self.log) - 1,
            "ts": last.ts if last else 0.0,
        }
        with contextlib.suppress(BusError):
            await self.bus.publish_state(self.table_id, state)

    def _append(self, event: Event) -> Event:
        ev = event.model_copy(
            update={
                "seq": len(self.log),
                "table_id": self.table_id,
                "session_id": self.session_id,
                "ts": max(event.ts, self.log[-1].ts if self.log else 0.0),
            }
        )
        self.log.append(ev)
        return ev

    async def _publish(self, ev: Event) -> None:
        """Publish a logged event; with the broker away it stays logged only, and the
        dashboard asks for it again (``resend_from``) once it sees the gap."""
        self.sent.setdefault(ev.seq, time.perf_counter())  # the first try: outages count
        with contextlib.suppress(BusError):
            await self.bus.publish_event(self.table_id, ev.model_dump_json())

    async def play(self, n: int = 1) -> list[Event]:
        """Log and publish the next ``n`` scripted events."""
        out = []
        for _ in range(min(n, len(self.script))):
            ev = self._append(self.script.pop(0))
            out.append(ev)
            if ev.seq not in self.hold:
                await self._publish(ev)
        return out

    async def play_until(self, predicate: Any, limit: int = 100_000) -> list[Event]:
        """Play until an event satisfies ``predicate`` (that event included)."""
        out: list[Event] = []
        while self.script and len(out) < limit:
            out += await self.play(1)
            if predicate(out[-1]):
                break
        return out

    async def _serve(self, sub: Any) -> None:
        async for message in sub:
            self.commands.append(message)
            p = message.payload
            if message.name == "event":
                cid = command_id(p)
                if cid is not None and cid in self.logged_commands():
                    continue  # sent again (the dashboard keeps it until it sees it): logged once
                model = PAYLOADS[p["type"]]
                payload = model.model_validate(p.get("payload") or {})
                last = self.log[-1].ts if self.log else 0.0
                evidence = () if cid is None else (cite(cid),)
                ev = self._append(
                    make_event(payload, seq=0, ts=last, source=Source.REFEREE, evidence=evidence)
                )
                if ev.seq not in self.hold:
                    await self._publish(ev)
            elif message.name == "resend_from":
                session = p.get("session_id") or self.session_id
                log = self.log if session == self.session_id else self.logs.get(session, [])
                for ev in log[int(p["seq"]) :]:
                    await self._publish(ev)
            elif message.name == "round":
                await self._round(p)

    def logged_commands(self) -> set[str]:
        """The command ids its logs cite (as a rig's: each command is logged once)."""
        logs = [self.log, *self.logs.values()]
        return {cid for log in logs for ev in log if (cid := cited(ev.evidence)) is not None}

    async def _round(self, p: dict[str, Any]) -> None:
        """Move to the round's session (once: the dashboard tells a rig again when it comes
        online) and take its script."""
        session, players = str(p["session_id"]), tuple(p["players"][s] for s in "ESWN")
        if session == self.session_id and (self.log or self.script):
            return
        if self.log:
            self.logs[self.session_id] = self.log
        self.session_id, self.log = session, []
        script = self.deal(session, players) if self.deal else []
        self.script = [  # the players come from the round, as a rig logs them: a referee's entry
            e.model_copy(update={"source": Source.REFEREE}) if e.type == "session_started" else e
            for e in script
        ]
        await self.publish_status("online")
