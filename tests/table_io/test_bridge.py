"""The automatic table as a source of referee events (table_io.bridge; issue 5 item 4).

Unit tests feed link outputs (table_io.link) through table_io's pure ``translate`` and the bridge
into an engine; the last test runs a FakeTable over a real pty through the driver, in simulated
time, and checks that the hand's wall break is the one the table's dice give (WMC-3.3).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

import pytest

from referee.events import (
    EngineEvent,
    Event,
    Payload,
    SeatDraw,
    SessionStarted,
    Source,
    make_event,
    parse_line,
)
from referee.game.state import Phase
from referee.game.table import Table
from referee.game.wall import counted_seat
from referee.hands import Wind
from referee.sources import Sequencer
from table_io.bridge import TableBridge, TableSource
from table_io.clock import FakeClock
from table_io.driver import TableDriver
from table_io.events import MachineEvent as TableEvent
from table_io.events import translate
from table_io.frames import Flags, Frame
from table_io.link import Delivered, EventsLost, LinkOffline, LinkOnline, Output, TableBooted
from table_io.messages import (
    Capability,
    DiceResult,
    ErrorCode,
    Hello,
    Message,
    Mode,
    SetComplete,
    TableError,
    WallRaised,
)
from table_io.sim.endpoints import PtyEndpoint
from table_io.sim.fake_table import FakeTable

BOOT = 0x1234ABCD
PLAYERS = ("Ann", "Bo", "Chen", "Dai")


class Rig:
    """One table's log: a referee tablet starts the session, the table link does the rest."""

    def __init__(self, capabilities: Capability = Capability.WALL_SENSOR) -> None:
        self.engine = Table("T1", "S1")
        self.sequencer = Sequencer()
        self.log: list[Event] = []
        self.source = TableSource(
            TableBridge("T1", "S1", self.sequencer),
            self.engine,
            capabilities=capabilities,
            sink=lambda ev, _step: self.log.append(ev),
        )
        self.table_seq = itertools.count(1)
        self.referee(SessionStarted(players=PLAYERS))
        self.referee(SeatDraw(roller=0, roll1=5, roll2=5, winds=(Wind.E, Wind.S, Wind.W, Wind.N)))

    def referee(self, payload: Payload) -> None:
        ev = make_event(payload, seq=self.sequencer.take(), ts=0.0, source=Source.REFEREE)
        self.log.append(ev)
        assert self.engine.apply(ev).accepted

    def table(self, message: Message, seq: int | None = None) -> list[Event]:
        seq = next(self.table_seq) if seq is None else seq
        frame = Frame(message.TYPE, seq, Flags.ACK_REQ, message.encode_payload())
        steps = self.source.handle(Delivered(BOOT, seq, message, frame, 10.0 + seq))
        return [ev for ev, _ in steps]

    def alerts(self) -> list[tuple[str, str]]:
        return [(a.rule, str(a.severity)) for a in self.engine.state.alerts]


def test_wall_raised_starts_the_hand_and_the_table_dice_break_the_wall() -> None:
    rig = Rig()
    assert rig.table(SetComplete(1)) == []  # with a wall sensor, WALL_RAISED starts the hand
    events = rig.table(WallRaised(2))
    assert [e.type for e in events] == ["machine", "wall_built"]
    machine, wall = events
    assert machine.source is Source.TABLE and machine.evidence == (f"table:{BOOT:08x}:2",)
    assert wall.evidence == (f"seq:{machine.seq}", f"table:{BOOT:08x}:2")
    hand = rig.engine.state.hand
    assert hand is not None and hand.phase is Phase.ROLL_DEALER
    rig.table(DiceResult(3, 3, 4))  # 7: the dealer's opposite (West) breaks (WMC-2.2)
    rig.table(DiceResult(4, 6, 5))  # the breaker's 11: break number 7 + 11 = 18
    assert (hand.wall.breaker, hand.wall.number) == (Wind.W, 18)
    dice = [e for e in rig.log if e.type == "dice_rolled"]
    assert [e.payload.seat for e in dice] == [Wind.E, Wind.W]  # type: ignore[attr-defined]
    assert _broken(rig.engine) and rig.alerts() == []


def test_set_complete_starts_the_hand_on_a_table_without_a_wall_sensor() -> None:
    rig = Rig(Capability.NONE)
    assert [e.type for e in rig.table(SetComplete(1))] == ["machine", "wall_built"]
    assert rig.table(WallRaised(2)) == []  # no second hand start


@pytest.mark.parametrize("first", list(itertools.product(range(1, 7), repeat=2)))
def test_wmc_3_3_every_dealer_roll_names_the_breaker_who_rolls_second(
    first: tuple[int, int],
) -> None:
    rig = Rig()
    rig.table(WallRaised(1))
    for second in itertools.product(range(1, 7), repeat=2):
        hand = rig.engine.state.hand
        assert hand is not None
        rig.engine.state.hand = None  # each pair of rolls on a fresh wall
        rig.engine.state.hands_played = 0
        rig.table(WallRaised(1))
        rig.table(DiceResult(1, *first))
        rig.table(DiceResult(2, *second))
        hand = rig.engine.state.hand
        assert hand is not None and hand.phase is Phase.DEAL
        breaker = counted_seat(0, sum(first))
        assert (hand.wall.breaker, hand.wall.number) == (breaker, sum(first) + sum(second))
    assert rig.alerts() == []


def test_a_third_roll_is_refused_by_the_engine() -> None:
    rig = Rig()
    rig.table(WallRaised(1))
    rig.table(DiceResult(2, 1, 1))
    rig.table(DiceResult(3, 2, 2))
    rig.table(DiceResult(4, 5, 5))
    assert rig.alerts() == [("WMC-3.3", "violation")]


@pytest.mark.parametrize(
    ("code", "severity"),
    [
        (ErrorCode.JAM, "warning"),
        (ErrorCode.COUNT_MISMATCH, "critical"),
        (ErrorCode.MOTOR_STALL, "critical"),
        (0x91, "warning"),
    ],
)
def test_table_errors_raise_table_error_alerts(code: int, severity: str) -> None:
    rig = Rig()
    [event] = rig.table(TableError(5, code, 7))
    assert event.type == "machine" and event.payload.alert is not None  # type: ignore[attr-defined]
    [alert] = rig.engine.state.alerts
    assert (alert.rule, str(alert.severity), alert.rejected) == ("TABLE-ERROR", severity, False)
    assert alert.seq == event.seq


def test_link_offline_online_reboot_and_lost_events_raise_table_link_alerts() -> None:
    rig = Rig()
    outputs: list[Output] = [
        LinkOffline(20.0, 17.0),
        LinkOnline(21.0),
        TableBooted(BOOT + 1, BOOT, None, 22.0),
        EventsLost(BOOT + 1, 5, 9, 23.0),
    ]
    for output in outputs:
        rig.source.handle(output)
    assert rig.alerts() == [
        ("TABLE-LINK", "warning"),
        ("TABLE-LINK", "info"),
        ("TABLE-LINK", "warning"),
        ("TABLE-LINK", "critical"),
    ]
    assert [e.payload.message for e in rig.log[2:]] == [  # type: ignore[attr-defined]
        "link_state",
        "table_alert",
        "link_state",
        "table_alert",
        "table_alert",
    ]


def test_a_three_player_table_raises_table_mode() -> None:
    rig = Rig()
    rig.table(Mode(1, 3))
    assert rig.alerts() == [("TABLE-MODE", "warning")]
    rig.table(Mode(2, 4))
    assert len(rig.alerts()) == 1


def test_a_wall_raised_teaches_that_the_table_has_a_wall_sensor() -> None:
    rig = Rig(Capability.NONE)  # the HELLO was missed
    assert [e.type for e in rig.table(SetComplete(1))] == ["machine", "wall_built"]
    assert rig.table(WallRaised(2)) == [] and rig.alerts() == []
    assert rig.source.capabilities & Capability.WALL_SENSOR


def test_capabilities_come_from_the_hello() -> None:
    rig = Rig(Capability.NONE)
    hello = Hello(1, BOOT, Capability.WALL_SENSOR, 1, 0, "AM-4", "1.0")
    rig.source.handle(TableBooted(BOOT, None, hello, 1.0))
    assert rig.source.capabilities & Capability.WALL_SENSOR
    assert rig.table(SetComplete(1)) == []  # the wall sensor decides the hand start


def test_a_table_event_delivered_again_is_logged_once() -> None:
    rig = Rig()
    assert len(rig.table(WallRaised(1), seq=4)) == 2
    assert rig.table(WallRaised(1), seq=4) == [] and rig.table(SetComplete(1), seq=3) == []
    assert len(rig.table(DiceResult(1, 2, 3), seq=5)) == 2


def test_after_a_restart_the_bridge_resumes_from_the_log() -> None:
    rig = Rig()
    rig.table(WallRaised(1))
    rig.table(DiceResult(2, 3, 4))
    restarted = TableBridge("T1", "S1", Sequencer())
    restarted.resume(parse_line(e.model_dump_json()) for e in rig.log)
    assert restarted.sequencer.next == len(rig.log)
    state = rig.engine.state
    for seq, message in ((1, WallRaised(1)), (2, DiceResult(2, 3, 4))):
        [event] = translate_one(message, seq)
        assert restarted.convert(event, state) == []  # the table's log replayed: no duplicate
    [event] = translate_one(DiceResult(3, 5, 5), 3)
    assert [e.seq for e in restarted.convert(event, state)] == [len(rig.log), len(rig.log) + 1]


def translate_one(message: Message, seq: int) -> list[TableEvent]:
    frame = Frame(message.TYPE, seq, Flags.ACK_REQ, message.encode_payload())
    return translate(Delivered(BOOT, seq, message, frame, 1.0), "T1", Capability.WALL_SENSOR)


def test_the_log_replays_to_the_same_state_with_the_same_alerts_and_outputs() -> None:
    rig = Rig()
    rig.table(TableError(1, ErrorCode.JAM, 0))
    rig.table(WallRaised(2))
    rig.table(DiceResult(3, 6, 6))
    rig.table(DiceResult(4, 1, 2))
    rig.source.handle(LinkOffline(30.0, 27.0))
    live = rig.engine.state.to_dict()
    replayed = Table()
    outputs: list[EngineEvent] = []
    for ev in rig.log:
        outputs += replayed.apply(parse_line(ev.model_dump_json())).outputs()
    assert replayed.state.to_dict() == live
    assert [o.seq for o in outputs] == list(range(len(outputs)))
    assert [(o.type, o.payload.get("rule")) for o in outputs if o.type == "alert"] == [
        ("alert", "TABLE-ERROR"),
        ("alert", "TABLE-LINK"),
    ]


# ---- over a real pty, in simulated time -----------------------------------------------------


async def _until(clock: FakeClock, done: Callable[[], bool], step: float = 0.0) -> None:
    """Let bytes cross the pty (real scheduling) and, with ``step``, move simulated time."""
    async with asyncio.timeout(20):  # only reached if something is broken
        while not done():
            if step:
                await clock.advance(step)
            await asyncio.sleep(0.002)


def test_fake_table_over_a_pty_drives_the_wall_break_and_the_alerts() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        emitted: list[Message] = []
        fake = FakeTable(
            PtyEndpoint(), clock=clock, seed=11, on_emit=lambda _s, m, _t: emitted.append(m)
        )
        rig = Rig(Capability.NONE)  # until the HELLO says otherwise
        engine = rig.engine

        def rolls() -> list[DiceResult]:
            return [m for m in emitted if isinstance(m, DiceResult)]

        async with fake, TableDriver(fake.path, clock=clock) as driver:
            pump = asyncio.create_task(rig.source.run(driver.outputs()))
            await fake.run_script(4)  # MODE, DEALER, START, SHUFFLE_STARTED
            fake.emit(TableError(fake.device.t_ms(clock.now()), ErrorCode.JAM, 0))
            while len(rolls()) < 2:  # … SET_COMPLETE, WALL_RAISED, the two rolls
                await fake.run_script(1)
            await _until(clock, lambda: engine.state.last_seq >= 0 and _broken(engine))
            first, second = rolls()
            hand = engine.state.hand
            assert hand is not None
            # WMC-3.3: the dealer's roll names the breaker, the sum of both rolls the break.
            breaker = counted_seat(0, first.d1 + first.d2)
            number = first.d1 + first.d2 + second.d1 + second.d2
            assert (hand.wall.breaker, hand.wall.number) == (breaker, number)
            assert hand.dice == [(first.d1, first.d2), (second.d1, second.d2)]
            # The table's own idea of who rolled second (its DICE button) agrees.
            buttons = [m for m in emitted if getattr(m, "button", None) == 2]
            assert int(buttons[-1].seat) == breaker  # type: ignore[attr-defined]
            assert rig.source.capabilities & Capability.WALL_SENSOR  # HELLO or WALL_RAISED
            assert [e.type for e in rig.log].count("wall_built") == 1
            assert ("TABLE-ERROR", "warning") in rig.alerts()

            # The table hangs: 3 s of silence → offline (TABLE-LINK); it recovers → online.
            fake.stall(4.0)
            silent_from = driver.link.last_heard
            await _until(clock, lambda: ("TABLE-LINK", "warning") in rig.alerts(), 0.05)
            assert clock.now() - silent_from >= 3.0
            await _until(clock, lambda: ("TABLE-LINK", "info") in rig.alerts(), 0.05)
            pump.cancel()
            with pytest.raises(asyncio.CancelledError):
                await pump

        replayed = Table()
        for ev in rig.log:
            replayed.apply(parse_line(ev.model_dump_json()))
        assert replayed.state.to_dict() == engine.state.to_dict()
        assert [e.seq for e in rig.log] == list(range(len(rig.log)))

    asyncio.run(scenario())


def _broken(engine: Table) -> bool:
    hand = engine.state.hand
    return hand is not None and hand.phase is Phase.DEAL
