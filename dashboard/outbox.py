"""The referees' commands to the tables, kept until each rig has logged them (DESIGN.md).

A decision, a correction or a clock command is stored first (``rig_commands``), then sent
(``cmd/event``, carrying its id: rig/bus/commands.py) if the rig is online: ``queued`` →
``delivered``. One for a rig that is offline, or whose send failed, stays ``queued``; when the
rig is back (its status online again) every command of that table not yet applied is sent again,
in the order they were made — the rig logs each id once, so a second copy costs nothing. The
state becomes ``applied`` when the rig's logged event citing the id comes back through the
ingest, and ``failed`` (with the reason) when the rig refuses the command or its core refuses
the logged event (a rejected alert at that seq). Each change shows on the alert it is about
(``LiveTable.commands``) and on the table's pages (the hub).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import case, select, update
from sqlalchemy.orm import Session, sessionmaker

from dashboard.db.models import RigCommand
from dashboard.hub import Hub
from dashboard.live import AlertItem, LiveState
from referee.events import Event, Source
from rig.bus import Bus, BusError
from rig.bus.commands import Refusal, cited, event_command, new_id

State = Literal["queued", "delivered", "applied", "failed"]
STATES: tuple[State, ...] = ("queued", "delivered", "applied", "failed")
PENDING: tuple[State, ...] = ("queued", "delivered")
RESEND_AFTER = 10.0  # seconds a delivered command may go unlogged before it is sent again


@dataclass(frozen=True, slots=True)
class Command:
    """One stored command as the API and the pages show it."""

    id: str
    table_id: str
    session_id: str
    type: str
    payload: dict[str, Any]
    actor: str
    action: str
    target: str
    state: State
    reason: str
    attempts: int
    created: float
    sent: float | None
    done: float | None

    @property
    def pending(self) -> bool:
        return self.state in PENDING

    @property
    def about(self) -> list[str]:
        """The alert items it decides or acknowledges (its target, comma-separated)."""
        if not (self.action.startswith("decision_") or self.action == "acknowledge"):
            return []
        return [t for t in self.target.split(",") if t]

    def brief(self) -> dict[str, Any]:
        """What an alert card shows of it."""
        return {
            "id": self.id,
            "state": self.state,
            "reason": self.reason,
            "action": self.action,
            "pending": self.pending,
        }

    @property
    def body(self) -> dict[str, Any]:
        """The ``cmd/event`` payload sent to the rig."""
        return event_command(self.type, self.payload, self.id)


def _state(text: str) -> State:
    for state in STATES:
        if state == text:
            return state
    raise ValueError(f"command state {text!r}; expected one of {', '.join(STATES)}")


def _command(row: RigCommand) -> Command:
    body = json.loads(row.body)
    return Command(
        row.id,
        row.table_id,
        row.session_id,
        row.type,
        body.get("payload", {}),
        row.actor,
        row.action,
        row.target,
        _state(row.state),
        row.reason,
        row.attempts,
        row.created,
        row.sent,
        row.done,
    )


def _outcome(ev: Event, items: Sequence[AlertItem]) -> tuple[State, str]:
    """What became of the command a logged event carries out: failed where the core refused
    the event (a rejected alert at its seq: its message), else applied."""
    refused = [i.message for i in items if i.rejected and i.seq == ev.seq]
    return ("failed", "; ".join(refused)) if refused else ("applied", "")


class Outbox:
    """The venue's commands to its rigs: stored, sent, followed to their outcome (one per
    dashboard; the database is the record, ``waiting`` only spares a query per status)."""

    def __init__(
        self,
        bus: Bus,
        factory: sessionmaker[Session],
        live: LiveState,
        hub: Hub,
        clock: Callable[[], float],
        *,
        resend_after: float = RESEND_AFTER,
    ) -> None:
        self.bus, self.factory, self.live, self.hub, self.clock = bus, factory, live, hub, clock
        self.resend_after = resend_after
        self.waiting: set[str] = set()  # tables with a command not yet applied or failed
        self._locks: dict[str, asyncio.Lock] = {}

    # ---- making and sending ------------------------------------------------------------------

    async def send(
        self,
        table_id: str,
        type_: str,
        payload: dict[str, Any],
        *,
        actor: str,
        action: str,
        target: str = "",
        session_id: str = "",
    ) -> Command:
        """Store a command, then send it (and any older one of the table still queued, first)
        unless the rig is known to be offline; the command as it stands then."""
        row = RigCommand(
            id=new_id(),
            table_id=table_id,
            session_id=session_id,
            type=type_,
            body=json.dumps({"type": type_, "payload": payload}, separators=(",", ":")),
            actor=actor,
            action=action,
            target=target,
            state="queued",
            reason="",
            attempts=0,
            created=self.clock(),
        )
        cmd = await asyncio.to_thread(self._insert, row)
        self.waiting.add(table_id)
        self._show(cmd)
        if not self._offline(table_id):
            await self._deliver(table_id, lambda c: c.state == "queued")
        return await asyncio.to_thread(self.get, cmd.id) or cmd

    async def rig_online(self, table_id: str, *, back: bool) -> None:
        """A status from an online rig. Back (it was away): every command not yet applied is
        sent again, in order; else a queued one, or one delivered over ``resend_after`` seconds
        ago and still not logged, is."""
        if table_id not in self.waiting:
            return
        if back:
            await self._deliver(table_id, lambda c: True)
            return
        stale = self.clock() - self.resend_after
        await self._deliver(
            table_id, lambda c: c.state == "queued" or c.sent is None or c.sent <= stale
        )

    async def resume(self) -> None:
        """After a restart: send what waits to each rig not known to be offline (one that is
        away after all takes it again when it is back)."""
        for table_id in sorted(self.waiting):
            if not self._offline(table_id):
                await self._deliver(table_id, lambda c: True)

    def _offline(self, table_id: str) -> bool:
        presence = self.live.presence.get(table_id)
        return presence is not None and presence.state != "online"

    async def _deliver(self, table_id: str, which: Callable[[Command], bool]) -> None:
        """Send the table's pending commands that ``which`` picks, oldest first; a send the bus
        refuses stops the rest (they stay in order, queued)."""
        async with self._locks.setdefault(table_id, asyncio.Lock()):
            for cmd in await asyncio.to_thread(self.pending, table_id):
                if not which(cmd):
                    continue
                try:
                    await self.bus.send_command(table_id, "event", cmd.body)
                except BusError:
                    return
                sent = await asyncio.to_thread(self._mark_sent, cmd.id, self.clock())
                if sent is not None:
                    self._show(sent)

    # ---- what comes back ---------------------------------------------------------------------

    async def settle(self, logged: Sequence[tuple[Event, list[AlertItem]]]) -> None:
        """Log events from the ingest, each with the alert items it raised: a referee's event
        citing a command makes it applied, or failed where the core refused it (a rejected
        alert at its seq)."""
        for ev, items in logged:
            cid = cited(ev.evidence) if ev.source is Source.REFEREE else None
            if cid is None:
                continue
            state, reason = _outcome(ev, items)
            cmd = await asyncio.to_thread(self._finish, ev.table_id, cid, state, reason, ev)
            if cmd is not None:
                await self._done(cmd)

    async def refuse(self, table_id: str, refusal: Refusal) -> None:
        """The rig refused a command (its rig alert names it): failed, with its reason."""
        cid, reason = refusal.command, refusal.reason
        cmd = await asyncio.to_thread(self._finish, table_id, cid, "failed", reason)
        if cmd is not None:
            await self._done(cmd)

    async def _done(self, cmd: Command) -> None:
        self._show(cmd)
        if not await asyncio.to_thread(self.pending, cmd.table_id):
            self.waiting.discard(cmd.table_id)

    # ---- reading -----------------------------------------------------------------------------

    def restore(self) -> None:
        """After the live state is replayed: what the replayed log shows applied (the ingest
        stopped before it said so) is marked so; each alert shows its latest command."""
        open_ids = {c.id for c in self.listing(None, pending_only=True)}
        for lt in self.live.sessions.values():
            for ev in lt.events:
                cid = cited(ev.evidence) if ev.source is Source.REFEREE else None
                if cid in open_ids:
                    state, reason = _outcome(ev, lt.items)
                    self._finish(ev.table_id, str(cid), state, reason, ev)
        for cmd in self.listing(None):
            self._attach(cmd)
            if cmd.pending:
                self.waiting.add(cmd.table_id)

    def get(self, command_id: str) -> Command | None:
        with self.factory() as db:
            row = db.scalars(select(RigCommand).where(RigCommand.id == command_id)).first()
            return None if row is None else _command(row)

    def pending(self, table_id: str) -> list[Command]:
        """The table's commands not yet applied or failed, in the order they were made."""
        return self.listing(table_id, pending_only=True)

    def recent(self, table_id: str, done: int = 5) -> list[Command]:
        """What a table's page shows: every command not yet logged, and the last ``done``
        applied or failed, in the order they were made."""
        every = self.listing(table_id)
        finished = {c.id for c in [c for c in every if not c.pending][-done:]} if done else set()
        return [c for c in every if c.pending or c.id in finished]

    def listing(self, table_id: str | None, *, pending_only: bool = False) -> list[Command]:
        """Commands (of one table, or all) in the order they were made."""
        with self.factory() as db:
            q = select(RigCommand).order_by(RigCommand.n)
            if table_id is not None:
                q = q.where(RigCommand.table_id == table_id)
            if pending_only:
                q = q.where(RigCommand.state.in_(PENDING))
            return [_command(r) for r in db.scalars(q)]

    # ---- storing -----------------------------------------------------------------------------

    def _insert(self, row: RigCommand) -> Command:
        with self.factory() as db:
            db.add(row)
            db.commit()
            return _command(row)

    def _mark_sent(self, command_id: str, at: float) -> Command | None:
        """Sent once more: a queued one is delivered (one update, so that an outcome the rig
        reported meanwhile is never overwritten)."""
        with self.factory() as db:
            db.execute(
                update(RigCommand)
                .where(RigCommand.id == command_id)
                .values(
                    attempts=RigCommand.attempts + 1,
                    sent=at,
                    state=case((RigCommand.state == "queued", "delivered"), else_=RigCommand.state),
                )
            )
            db.commit()
        return self.get(command_id)

    def _finish(
        self, table_id: str, command_id: str, state: State, reason: str, ev: Event | None = None
    ) -> Command | None:
        """A pending command of ``table_id`` applied or failed (one already so, or another
        table's, is left as it is)."""
        values: dict[str, Any] = {"state": state, "reason": reason[:2000], "done": self.clock()}
        if ev is not None:
            values |= {"logged_session": ev.session_id, "logged_seq": ev.seq}
        with self.factory() as db:
            done = db.execute(
                update(RigCommand)
                .where(
                    RigCommand.id == command_id,
                    RigCommand.table_id == table_id,
                    RigCommand.state.in_(PENDING),
                )
                .values(**values)
                .returning(RigCommand.n)
            ).first()
            db.commit()
        return self.get(command_id) if done is not None else None

    # ---- showing -----------------------------------------------------------------------------

    def _show(self, cmd: Command) -> None:
        self._attach(cmd)
        self.hub.changed(cmd.table_id)

    def _attach(self, cmd: Command) -> None:
        lt = self.live.sessions.get((cmd.table_id, cmd.session_id))
        if lt is None:
            return
        for item_id in cmd.about:
            shown = lt.commands.get(item_id)
            if shown is not None and shown["id"] == cmd.id and cmd.pending > shown["pending"]:
                continue  # a send read before the outcome came: the outcome stands
            if lt.item(item_id) is not None:
                lt.commands[item_id] = cmd.brief()
