"""The live venue: one :class:`referee.duties.RefereeTable` per table session, fed with the
stored log events in seq order — so a restart that replays the database rebuilds exactly the
state the dashboard showed. Alerts and proposals are the duties' own (re-derived from the log,
never taken on trust from the wire); a referee's acknowledgement is a logged
``referee_decision`` (``note`` with ``data.ack``), so it too survives a restart.

A session corrected after the fact (the tournament's swap of two players, a hand corrected once
the table had moved on: :class:`Fix`) is re-derived whole from its log with the fix applied,
and goes on so: its sheets, penalties, alerts and standings all follow at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.duties import RESULT_RULE, RefereeTable
from referee.events import Event, RefereeDecision, SessionStarted
from referee.game.alerts import Alert
from referee.game.table import Derived, Step
from referee.hands import Wind
from referee.penalties import Entry
from referee.scoresheet import Correction

SEVERITY_RANK = {"info": 0, "warning": 1, "violation": 2, "critical": 3}


@dataclass(slots=True)
class AlertItem:
    """One line of the alert queue: a finding with (usually) the penalty proposed for it."""

    id: str  # the proposal id (RULE@SEQ:SEAT), or ``alert:<session>:<n>`` without one
    table_id: str
    session_id: str
    rule: str
    severity: str
    message: str
    seat: str | None
    player: str | None
    seq: int
    ts: float
    hand: int
    evidence: tuple[int, ...]
    rejected: bool
    proposal: str | None = None  # ledger id (its view: dashboard.views.alert_view)
    settles: int | None = None  # the hand (0-based) without a result it asks a referee to rule
    at: float | None = None  # when its event reached the dashboard (epoch s; None: not known)


@dataclass(frozen=True)
class Fix:
    """What the log of a session is read with after a correction: the players who really sat
    at the provisional places E, S, W, N (None: as logged), and corrections to its hands."""

    players: tuple[str, str, str, str] | None = None
    corrections: tuple[Correction, ...] = ()


@dataclass
class LiveTable:
    """One table session as the dashboard knows it."""

    table_id: str
    session_id: str
    duty: RefereeTable
    events: list[Event] = field(default_factory=list)  # the log, as the rig logged it
    items: list[AlertItem] = field(default_factory=list)
    acked: set[str] = field(default_factory=set)
    # by item id, the latest referee's command about it and how it stands (dashboard/outbox.py)
    commands: dict[str, dict[str, Any]] = field(default_factory=dict)
    state_ts: float = 0.0  # the rig's table clock from its retained state
    fix: Fix = Fix()
    arrived: list[float | None] = field(default_factory=list)  # per event: when it came in
    hand_starts: dict[int, float] = field(default_factory=dict)  # hand (0-based) → its first ts

    def rederived(self, fix: Fix) -> LiveTable:
        """This session replayed from its log with ``fix`` applied."""
        fresh = LiveTable(
            self.table_id,
            self.session_id,
            RefereeTable(self.table_id, self.session_id),
            state_ts=self.state_ts,
            fix=fix,
        )
        for event, at in zip(self.events, self.arrived, strict=True):
            fresh.apply(event, at)
        fresh.duty.corrections.extend(fix.corrections)
        return fresh

    def entry(self, proposal: str | None) -> Entry | None:
        return None if proposal is None else self.duty.ledger.entries.get(proposal)

    def player(self, hand: int, seat: str) -> str:
        """Who sat at ``seat`` in ``hand`` (the card's players once the hand is scored)."""
        st = self.duty.state
        if 0 <= hand < len(st.results):
            return st.results[hand].players[Wind[seat]]
        return st.player_at(Wind[seat])

    def item(self, item_id: str) -> AlertItem | None:
        return next((i for i in self.items if i.id == item_id), None)

    @property
    def line_up(self) -> tuple[str, ...]:
        """The players at the provisional places E, S, W, N, as the session is read (the log's
        ``session_started``, or the fix's)."""
        if self.fix.players is not None:
            return self.fix.players
        started = (e.payload for e in self.events if isinstance(e.payload, SessionStarted))
        return next(started, SessionStarted(players=("", "", "", ""))).players

    @property
    def last_seq(self) -> int:
        return self.events[-1].seq if self.events else -1

    def apply(self, event: Event, received: float | None = None) -> list[AlertItem]:
        """Feed one log event (``received``: when it reached the dashboard, the clock time its
        alerts show); the alert items it raised."""
        fed, p = event, event.payload
        if self.fix.players is not None and isinstance(p, SessionStarted):
            fed = event.model_copy(
                update={"payload": p.model_copy(update={"players": self.fix.players})}
            )
        step = self.duty.apply(fed)
        self.events.append(event)
        self.arrived.append(received)
        if (hand := self.duty.state.hand) is not None:
            self.hand_starts.setdefault(hand.number, event.ts)
        if isinstance(p, RefereeDecision) and p.decision == "note":
            acks = p.data.get("ack", [])
            self.acked.update(str(a) for a in acks if isinstance(a, str))
        proposals = [d.payload for d in step.derived if d.type == "proposal"]
        alerts = [a for a in step.alerts if not a.rule.startswith("SYS-")]
        new: list[AlertItem] = [self._without_result(event, d, alerts) for d in _unfinished(step)]
        for prop in proposals:
            alert = _take(alerts, prop["rule"], prop["seat"])
            new.append(self._item(prop["id"], event, alert, prop))
        for alert in alerts:
            new.append(
                self._item(
                    f"alert:{self.session_id}:{len(self.items) + len(new)}", event, alert, None
                )
            )
        for item in new:
            item.at = received
        self.items += new
        return new

    def _without_result(self, event: Event, ended: Derived, alerts: list[Alert]) -> AlertItem:
        """The item of a hand closed without a result (WMC-7.8): open until a referee's
        ``hand_ruled`` settles or voids it (``duty.rulings``)."""
        hand = int(ended.payload["hand"])
        alert = next((a for a in alerts if a.rule == RESULT_RULE), None)
        if alert is not None:
            alerts.remove(alert)
        item = self._item(result_item_id(self.session_id, hand), event, alert, None)
        item.hand, item.settles, item.rule = hand, hand, RESULT_RULE
        return item

    def _item(
        self, id_: str, event: Event, alert: Alert | None, prop: dict[str, Any] | None
    ) -> AlertItem:
        seat = alert.seat.name if alert is not None and alert.seat is not None else None
        if prop is not None:
            seat = prop["seat"]
        hand = int(prop["hand"]) if prop else self.duty.state.hands_played
        player = None if seat is None else self.player(hand, seat)
        evidence: tuple[int, ...] = tuple(prop["evidence"]) if prop else ()
        if alert is not None and not evidence:
            evidence = (alert.seq, *alert.evidence)
        return AlertItem(
            id=id_,
            table_id=self.table_id,
            session_id=self.session_id,
            rule=alert.rule if alert is not None else str(prop["rule"] if prop else "?"),
            severity=str(alert.severity) if alert is not None else "warning",
            message=alert.message if alert is not None else str(prop["reason"] if prop else ""),
            seat=seat,
            player=player,
            seq=event.seq,
            ts=event.ts,
            hand=hand,
            evidence=evidence,
            rejected=alert.rejected if alert is not None else False,
            proposal=str(prop["id"]) if prop else None,
        )


def result_item_id(session_id: str, hand: int) -> str:
    """The queue item of a hand (0-based) without a result: the same on every replay."""
    return f"hand:{session_id}:{hand}"


def _unfinished(step: Step) -> list[Derived]:
    return [
        d for d in step.derived if d.type == "hand_ended" and d.payload["result"] == "unfinished"
    ]


def _take(alerts: list[Alert], rule: str, seat: str) -> Alert | None:
    for i, a in enumerate(alerts):
        if a.rule == rule and a.seat is not None and a.seat.name == seat:
            return alerts.pop(i)
    return None


@dataclass
class Presence:
    table_id: str
    state: str  # online | offline
    changed: float  # when it became so (the dashboard's clock)
    body: dict[str, Any]


class LiveState:
    """Every table session seen; ``tables`` points at each table's latest session."""

    def __init__(self) -> None:
        self.sessions: dict[tuple[str, str], LiveTable] = {}
        self.tables: dict[str, LiveTable] = {}
        self.fixes: dict[tuple[str, str], Fix] = {}
        self.presence: dict[str, Presence] = {}
        self.rig_alerts: dict[str, list[dict[str, Any]]] = {}

    def apply(
        self, event: Event, received: float | None = None
    ) -> tuple[LiveTable, list[AlertItem]]:
        key = (event.table_id, event.session_id)
        table = self.sessions.get(key)
        if table is None:
            table = LiveTable(
                event.table_id,
                event.session_id,
                RefereeTable(event.table_id, event.session_id),
                fix=self.fixes.get(key, Fix()),
            )
            self.sessions[key] = table
        self.tables[event.table_id] = table
        return table, table.apply(event, received)

    def correct(self, table_id: str, session_id: str, fix: Fix) -> bool:
        """Read this session with ``fix`` from now on (re-derived at once when it has begun);
        whether anything changed."""
        key = (table_id, session_id)
        if self.fixes.get(key, Fix()) == fix:
            return False
        self.fixes[key] = fix
        old = self.sessions.get(key)
        if old is not None:
            new = old.rederived(fix)
            new.acked = old.acked
            new.commands = old.commands
            self.sessions[key] = new
            if self.tables.get(table_id) is old:
                self.tables[table_id] = new
        return True

    def items(self) -> list[tuple[LiveTable, AlertItem]]:
        return [(t, i) for t in self.sessions.values() for i in t.items]

    def find(self, item_id: str, table_id: str) -> tuple[LiveTable, AlertItem] | None:
        for (tid, _), table in self.sessions.items():
            if tid == table_id and (item := table.item(item_id)) is not None:
                return table, item
        return None

    def digest(self) -> dict[str, Any]:
        """What a restart must rebuild: per table session, the state and the ledger."""
        return {
            f"{t}/{s}": {
                "state": lt.duty.state.to_dict(),
                "ledger": [e.to_json() for e in lt.duty.ledger.entries.values()],
                "acked": sorted(lt.acked),
                "items": [i.id for i in lt.items],
            }
            for (t, s), lt in sorted(self.sessions.items())
        }
