"""Machine events: what the referee core is told by the table, as typed pydantic models.

:func:`translate` is pure: one link output in, zero or more events out. The core will wrap these
in its envelope (``table_id, session_id, seq, ts, source="table", ...``); ``(table_id, boot_id,
machine_seq)`` identifies a table event, so ingest can be idempotent.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from table_io.link import (
    Delivered,
    EventsLost,
    LinkOffline,
    LinkOnline,
    Output,
    TableBooted,
)
from table_io.messages import (
    ButtonPressed,
    Capability,
    Dealer,
    DiceResult,
    ErrorCode,
    Mode,
    SetComplete,
    ShuffleStarted,
    TableError,
    WallRaised,
)

Severity = Literal["info", "warning", "critical"]
SeatName = Literal["E", "S", "W", "N", "console"]
ButtonName = Literal["start", "dice", "stop"]
_SEAT_NAMES: tuple[SeatName, ...] = ("E", "S", "W", "N")
_BUTTON_NAMES: tuple[ButtonName, ...] = ("start", "dice", "stop")


class _Base(TypedDict):
    table_id: str
    ts: float
    boot_id: int | None
    machine_seq: int | None
    t_device_ms: int | None


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    table_id: str
    ts: float  # host clock when the link delivered it
    boot_id: int | None = None
    machine_seq: int | None = None  # the table's seq (None for link-level events)
    t_device_ms: int | None = None  # the table's own uptime stamp: exact even after a replay


class HandStart(_Event):
    """The wall is up (on tables without a wall sensor: the set is complete): the hand begins."""

    kind: Literal["hand_start"] = "hand_start"
    trigger: Literal["wall_raised", "set_complete"]


class ShuffleBegan(_Event):
    kind: Literal["shuffle_began"] = "shuffle_began"


class DiceRolled(_Event):
    """Drives the wall break: count seats counter-clockwise from the dealer, dealer = 1."""

    kind: Literal["dice_rolled"] = "dice_rolled"
    d1: int = Field(ge=1, le=6)
    d2: int = Field(ge=1, le=6)

    @property
    def total(self) -> int:
        return self.d1 + self.d2

    @property
    def break_wall_offset(self) -> int:
        """Whose wall is broken, in seats counter-clockwise from the dealer (0 = the dealer's)."""
        return (self.total - 1) % 4


class DealerChanged(_Event):
    kind: Literal["dealer_changed"] = "dealer_changed"
    seat: SeatName


class PlayersChanged(_Event):
    kind: Literal["players_changed"] = "players_changed"
    players: Literal[3, 4]


class ButtonPress(_Event):
    kind: Literal["button"] = "button"
    button: ButtonName
    seat: SeatName


class TableAlert(_Event):
    """Anything a referee must look at: table faults, link trouble, a hole in the record."""

    kind: Literal["table_alert"] = "table_alert"
    severity: Severity
    code: str
    message: str


class LinkStateChanged(_Event):
    kind: Literal["link_state"] = "link_state"
    online: bool


MachineEvent = Annotated[
    HandStart
    | ShuffleBegan
    | DiceRolled
    | DealerChanged
    | PlayersChanged
    | ButtonPress
    | TableAlert
    | LinkStateChanged,
    Field(discriminator="kind"),
]

_ERRORS: dict[int, tuple[Severity, str, str]] = {
    ErrorCode.JAM: ("warning", "jam", "tile jam in the shuffler"),
    ErrorCode.COUNT_MISMATCH: ("critical", "count_mismatch", "tile count wrong: recount the set"),
    ErrorCode.LIFT_TIMEOUT: ("warning", "lift_timeout", "wall lift did not complete"),
    ErrorCode.MOTOR_STALL: ("critical", "motor_stall", "motor stalled: table out of service"),
    ErrorCode.LID_OPEN: ("warning", "lid_open", "centre lid opened during the shuffle"),
}


def translate(output: Output, table_id: str, capabilities: Capability) -> list[MachineEvent]:
    """Map one link output to machine events; ``capabilities`` come from the table's HELLO."""
    if isinstance(output, Delivered):
        return _from_delivered(output, table_id, capabilities)
    if isinstance(output, LinkOffline):
        return [
            LinkStateChanged(table_id=table_id, ts=output.at, online=False),
            TableAlert(
                table_id=table_id,
                ts=output.at,
                severity="warning",
                code="link_offline",
                message="no word from the automatic table for 3 s",
            ),
        ]
    if isinstance(output, LinkOnline):
        return [LinkStateChanged(table_id=table_id, ts=output.at, online=True)]
    if isinstance(output, TableBooted) and output.previous_boot is not None:
        return [
            TableAlert(
                table_id=table_id,
                ts=output.at,
                boot_id=output.boot_id,
                severity="warning",
                code="table_rebooted",
                message="the automatic table restarted; check the hand in progress",
            )
        ]
    if isinstance(output, EventsLost):
        return [
            TableAlert(
                table_id=table_id,
                ts=output.at,
                boot_id=output.boot_id,
                severity="critical",
                code="events_lost",
                message=f"table events {output.first_seq}–{output.last_seq} could not be recovered",
            )
        ]
    return []


def _from_delivered(d: Delivered, table_id: str, caps: Capability) -> list[MachineEvent]:
    m = d.message
    t_ms = getattr(m, "t_ms", None)
    base = _Base(
        table_id=table_id, ts=d.received_at, boot_id=d.boot_id, machine_seq=d.seq, t_device_ms=t_ms
    )
    if m is None:
        code = f"0x{d.frame.type:02x}"
        return [
            TableAlert(
                **base,
                severity="warning",
                code="undecodable_event",
                message=f"table sent an event this host cannot read (type {code})",
            )
        ]
    wall_sensor = bool(caps & Capability.WALL_SENSOR)
    if isinstance(m, WallRaised) and wall_sensor:
        return [HandStart(**base, trigger="wall_raised")]
    if isinstance(m, SetComplete) and not wall_sensor:
        return [HandStart(**base, trigger="set_complete")]
    if isinstance(m, ShuffleStarted):
        return [ShuffleBegan(**base)]
    if isinstance(m, DiceResult):
        return [DiceRolled(**base, d1=m.d1, d2=m.d2)]
    if isinstance(m, Dealer):
        return [DealerChanged(**base, seat=_SEAT_NAMES[m.seat])]
    if isinstance(m, Mode):
        return [PlayersChanged(**base, players=3 if m.players == 3 else 4)]
    if isinstance(m, ButtonPressed):
        seat: SeatName = _SEAT_NAMES[m.seat] if m.seat < 4 else "console"
        return [ButtonPress(**base, button=_BUTTON_NAMES[m.button - 1], seat=seat)]
    if isinstance(m, TableError):
        severity, code, text = _ERRORS.get(
            m.code, ("warning", f"model_{m.code:02x}", f"table fault 0x{m.code:02x}/{m.detail}")
        )
        return [TableAlert(**base, severity=severity, code=code, message=text)]
    return []
