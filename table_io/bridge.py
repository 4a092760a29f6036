"""The automatic table as a source of referee events (issue 5, item 4; moved here by issue 16).

table_io turns serial bytes into typed machine events (:data:`table_io.events.MachineEvent`,
pure :func:`table_io.events.translate`); this adapter, on the sensor's side, turns each of them
into events of the referee log (``referee.events``) and applies them to a
:class:`~referee.game.table.Table`. The core never learns table_io's types: a sensor may import
the core, never the other way round (the import contracts in pyproject.toml).

Per machine event (the mapping is documented in referee/EVENTS.md, "Events from the table"):

1. One ``machine`` event (source ``table``) records what the table said: ``message`` is the
   table_io kind, ``data`` its fields; ``evidence`` = ``table:<boot_id>:<machine_seq>``. Faults
   and link trouble carry an ``alert`` that the engine raises — rule ``TABLE-ERROR`` (the table
   reports a fault), ``TABLE-LINK`` (offline, back online, rebooted, events lost) or
   ``TABLE-MODE`` (the table is set for three players). These are not WMC rules: the rules were
   not broken, the equipment needs a referee.
2. Then the game events it implies (source ``table``), citing the machine event (``seq:<n>``):
   the hand start (WALL_RAISED on tables with a wall sensor, else SET_COMPLETE) → ``wall_built``
   (WMC-3.2, tiles unseen); a DICE_RESULT → ``dice_rolled`` by the dealer (East) while the engine
   waits for the dealer's roll, by the breaker the dealer's roll named while it waits for the
   breaker's (WMC-3.3, counting as WMC-2.2). So the table's dice name the breaker and the break
   number, and the live wall starts where they say.

A table event seen again (same boot and table seq, e.g. the link replaying its log after the
rig restarted) is dropped, so ingest is idempotent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable

from referee.events import (
    DiceRolled,
    Event,
    MachineAlert,
    MachineEvent,
    Payload,
    Source,
    TableRule,
    WallBuilt,
    make_event,
)
from referee.game.claims import WINDS
from referee.game.state import Phase, TableState
from referee.game.table import Step, Table
from referee.game.wall import counted_seat
from referee.hands import Wind
from referee.sources import Sequencer
from table_io.events import (
    DiceRolled as TableDice,
)
from table_io.events import (
    HandStart,
    LinkStateChanged,
    PlayersChanged,
    TableAlert,
    translate,
)
from table_io.events import (
    MachineEvent as TableEvent,
)
from table_io.link import Delivered, Output, TableBooted
from table_io.messages import Capability, WallRaised

LINK_CODES = frozenset({"link_offline", "table_rebooted", "events_lost"})
"""TableAlert codes about the link and the record (rule TABLE-LINK); others are TABLE-ERROR."""


def machine_alert(event: TableEvent) -> MachineAlert | None:
    """The alert a machine event raises, if any (TABLE-ERROR, TABLE-LINK, TABLE-MODE)."""
    if isinstance(event, TableAlert):
        rule: TableRule = "TABLE-LINK" if event.code in LINK_CODES else "TABLE-ERROR"
        return MachineAlert(
            rule=rule, severity=event.severity, message=f"{event.message} ({event.code})"
        )
    if isinstance(event, LinkStateChanged) and event.online:
        return MachineAlert(
            rule="TABLE-LINK", severity="info", message="the automatic table is back online"
        )
    if isinstance(event, PlayersChanged) and event.players != 4:
        return MachineAlert(
            rule="TABLE-MODE",
            severity="warning",
            message=f"the table is set for {event.players} players; a WMC table seats four",
        )
    return None


def machine_payload(event: TableEvent) -> MachineEvent:
    """The ``machine`` payload recording a machine event as the table reported it."""
    data = event.model_dump(mode="json", exclude={"table_id", "ts", "kind"})
    return MachineEvent(message=event.kind, data=data, alert=machine_alert(event))


def table_ref(event: TableEvent) -> tuple[str, ...]:
    """Evidence naming the table event: ``table:<boot_id as 8 hex digits>:<machine_seq>``."""
    if event.boot_id is None or event.machine_seq is None:
        return ()
    return (f"table:{event.boot_id:08x}:{event.machine_seq}",)


def roller(state: TableState) -> Wind:
    """Who rolls now (WMC-3.3): the breaker once the dealer rolled, else the dealer (East)."""
    hand = state.hand
    if hand is not None and hand.phase is Phase.ROLL_BREAKER and hand.dice:
        first = hand.dice[0]
        return WINDS[counted_seat(0, first[0] + first[1])]
    return Wind.E


class TableBridge:
    """Machine events of one table → referee events of one session's log (see the module doc)."""

    def __init__(self, table_id: str, session_id: str, sequencer: Sequencer | None = None) -> None:
        self.table_id = table_id
        self.session_id = session_id
        self.sequencer = sequencer or Sequencer()
        self._last: dict[int, int] = {}  # boot_id → highest table seq logged

    def resume(self, logged: Iterable[Event]) -> None:
        """After a restart: remember the table events the log already holds (and continue its
        numbering), so that the link replaying the table's log duplicates nothing."""
        for ev in logged:
            self.sequencer.next = max(self.sequencer.next, ev.seq + 1)
            payload = ev.payload
            if isinstance(payload, MachineEvent):
                boot, mseq = payload.data.get("boot_id"), payload.data.get("machine_seq")
                if isinstance(boot, int) and isinstance(mseq, int):
                    self._last[boot] = max(self._last.get(boot, 0), mseq)

    def _event(self, payload: Payload, ts: float, evidence: tuple[str, ...]) -> Event:
        return make_event(
            payload,
            seq=self.sequencer.take(),
            ts=ts,
            table_id=self.table_id,
            session_id=self.session_id,
            source=Source.TABLE,
            evidence=evidence,
        )

    def convert(self, event: TableEvent, state: TableState) -> list[Event]:
        """The log events for one machine event, given the engine's state before it."""
        boot, mseq = event.boot_id, event.machine_seq
        if boot is not None and mseq is not None:
            if mseq <= self._last.get(boot, 0):
                return []  # already logged (a replay of the table's log)
            self._last[boot] = mseq
        ref = table_ref(event)
        machine = self._event(machine_payload(event), event.ts, ref)
        out = [machine]
        cites = (f"seq:{machine.seq}", *ref)
        if isinstance(event, HandStart):
            out.append(self._event(WallBuilt(), event.ts, cites))
        elif isinstance(event, TableDice):
            dice = DiceRolled(seat=roller(state), dice=(event.d1, event.d2))
            out.append(self._event(dice, event.ts, cites))
        return out

    def feed(self, event: TableEvent, table: Table) -> list[tuple[Event, Step]]:
        """Convert and apply, one event after the other (each sees the state the last left)."""
        steps: list[tuple[Event, Step]] = []
        for ev in self.convert(event, table.state):
            steps.append((ev, table.apply(ev)))
        return steps


class TableSource:
    """A table link's outputs → machine events → the log and the engine.

    ``handle`` takes one :data:`table_io.link.Output` (from ``TableDriver.next_output()``).
    The capabilities that decide the hand-start trigger come from the table's HELLO. A host that
    missed the HELLO (it is sent once, at power-on) starts hands on SET_COMPLETE until the table
    sends a WALL_RAISED: from the next hand on, the wall sensor's WALL_RAISED starts them.
    """

    def __init__(
        self,
        bridge: TableBridge,
        table: Table,
        *,
        capabilities: Capability = Capability.NONE,
        sink: Callable[[Event, Step], None] | None = None,
    ) -> None:
        self.bridge = bridge
        self.table = table
        self.capabilities = capabilities
        self.sink = sink

    def machine_events(self, output: Output) -> list[TableEvent]:
        """The machine events of one output, keeping track of the table's capabilities."""
        if isinstance(output, TableBooted) and output.hello is not None:
            self.capabilities = output.hello.capabilities
        machines = translate(output, self.bridge.table_id, self.capabilities)
        if isinstance(output, Delivered) and isinstance(output.message, WallRaised):
            self.capabilities |= Capability.WALL_SENSOR  # it has one (after this hand's start)
        return machines

    def handle(self, output: Output) -> list[tuple[Event, Step]]:
        steps: list[tuple[Event, Step]] = []
        for machine in self.machine_events(output):
            steps += self.bridge.feed(machine, self.table)
        if self.sink is not None:
            for ev, step in steps:
                self.sink(ev, step)
        return steps

    async def run(self, outputs: AsyncIterator[Output]) -> None:
        """Handle a driver's outputs (``TableDriver.outputs()``) until cancelled."""
        async for output in outputs:
            self.handle(output)
