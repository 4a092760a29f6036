"""Link outputs become typed machine events for the referee core."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from table_io.events import (
    DiceRolled,
    HandStart,
    LinkStateChanged,
    MachineEvent,
    TableAlert,
    translate,
)
from table_io.frames import Flags, Frame
from table_io.link import Delivered, EventsLost, LinkOffline, LinkOnline, TableBooted
from table_io.messages import Capability, DiceResult, Message, SetComplete, TableError, WallRaised

WALL = Capability.WALL_SENSOR


def delivered(message: Message | None, seq: int = 7, type_: int = 0x14) -> Delivered:
    frame = Frame(message.TYPE if message else type_, seq, Flags.ACK_REQ, b"")
    return Delivered(42, seq, message, frame, 12.5)


def test_wall_raised_starts_the_hand_on_tables_with_a_wall_sensor() -> None:
    [event] = translate(delivered(WallRaised(900)), "T1", WALL)
    assert isinstance(event, HandStart) and event.trigger == "wall_raised"
    assert (event.machine_seq, event.boot_id, event.t_device_ms) == (7, 42, 900)
    assert translate(delivered(SetComplete(800)), "T1", WALL) == []


def test_set_complete_starts_the_hand_without_a_wall_sensor() -> None:
    [event] = translate(delivered(SetComplete(800)), "T1", Capability.NONE)
    assert isinstance(event, HandStart) and event.trigger == "set_complete"


@pytest.mark.parametrize(("d1", "d2", "offset"), [(1, 1, 1), (2, 3, 0), (6, 6, 3), (4, 3, 2)])
def test_dice_give_the_wall_to_break(d1: int, d2: int, offset: int) -> None:
    [event] = translate(delivered(DiceResult(1, d1, d2)), "T1", WALL)
    assert isinstance(event, DiceRolled)
    assert event.total == d1 + d2 and event.break_wall_offset == offset


@pytest.mark.parametrize(
    ("code", "severity", "name"),
    [(1, "warning", "jam"), (2, "critical", "count_mismatch"), (0x91, "warning", "model_91")],
)
def test_table_errors_raise_alerts(code: int, severity: str, name: str) -> None:
    [alert] = translate(delivered(TableError(5, code, 3)), "T1", WALL)
    assert isinstance(alert, TableAlert)
    assert (alert.severity, alert.code) == (severity, name)


def test_link_outputs() -> None:
    offline = translate(LinkOffline(20.0, 17.0), "T1", WALL)
    assert [type(e) for e in offline] == [LinkStateChanged, TableAlert]
    assert translate(LinkOnline(21.0), "T1", WALL) == [
        LinkStateChanged(table_id="T1", ts=21.0, online=True)
    ]
    assert translate(TableBooted(1, None, None, 1.0), "T1", WALL) == []
    [reboot] = translate(TableBooted(2, 1, None, 1.0), "T1", WALL)
    assert isinstance(reboot, TableAlert) and reboot.code == "table_rebooted"
    [lost] = translate(EventsLost(2, 5, 9, 1.0), "T1", WALL)
    assert isinstance(lost, TableAlert) and lost.severity == "critical"


def test_undecodable_events_are_not_silently_dropped() -> None:
    [alert] = translate(delivered(None, type_=0x33), "T1", WALL)
    assert isinstance(alert, TableAlert) and alert.code == "undecodable_event"


def test_events_serialise_and_parse_back_by_kind() -> None:
    adapter: TypeAdapter[MachineEvent] = TypeAdapter(MachineEvent)
    for output in (delivered(DiceResult(1, 2, 3)), LinkOffline(1.0, None)):
        for event in translate(output, "T9", WALL):
            assert adapter.validate_json(event.model_dump_json()) == event
