"""The messages of the table link and their payload codecs (one frozen dataclass per type).

Every payload is fixed big-endian fields except HELLO's two length-prefixed UTF-8 strings.
Decoding is strict — wrong length, unknown enum value, bad UTF-8 raise :class:`PayloadError` —
so that a frame that passed its CRC but not this check is counted, never half-believed.
"""

from __future__ import annotations

import struct
from dataclasses import astuple, dataclass
from enum import IntEnum, IntFlag
from typing import ClassVar, Self

from table_io.frames import MAX_PAYLOAD


class PayloadError(ValueError):
    """A frame's payload does not decode as its type says."""


class MsgType(IntEnum):
    """Frame ``type`` byte. 0x01–0x3F from the table, 0x40–0x5F from the host, 0x7E–0x7F both."""

    HELLO = 0x01
    STATUS = 0x02
    BUTTON = 0x10
    SHUFFLE_STARTED = 0x11
    SET_COMPLETE = 0x12
    WALL_RAISED = 0x13
    DICE_RESULT = 0x14
    DEALER = 0x15
    MODE = 0x16
    ERROR = 0x17
    PING = 0x40
    GET_STATUS = 0x41
    RESEND_FROM = 0x42
    HOLD = 0x43
    RELEASE = 0x44
    BEEP = 0x45
    SET_DISPLAY = 0x46
    ACK = 0x7E
    NACK = 0x7F


class TableState(IntEnum):
    IDLE = 0
    SHUFFLING = 1
    SET_READY = 2
    WALL_UP = 3
    HALTED = 4
    ERROR = 5


class Button(IntEnum):
    START = 1
    DICE = 2
    STOP = 3


class Seat(IntEnum):
    """Seat of a button; winds as seated, CONSOLE for the table's own panel."""

    EAST = 0
    SOUTH = 1
    WEST = 2
    NORTH = 3
    CONSOLE = 0xFF


class ErrorCode(IntEnum):
    """Known ERROR codes; 0x80–0xFF are model-specific and carry the maker's code in ``detail``."""

    JAM = 1
    COUNT_MISMATCH = 2
    LIFT_TIMEOUT = 3
    MOTOR_STALL = 4
    LID_OPEN = 5
    MODEL_SPECIFIC = 0x80


class NackReason(IntEnum):
    UNKNOWN_TYPE = 1
    BAD_PAYLOAD = 2
    BUSY = 3
    LOG_GONE = 4  # RESEND_FROM asked for events the device log no longer holds


class Capability(IntFlag):
    """HELLO capability bits: what this adapter can sense or do."""

    NONE = 0
    WALL_SENSOR = 0x0001  # reports WALL_RAISED (else SET_COMPLETE is the hand start)
    DICE_SENSOR = 0x0002  # reports DICE_RESULT
    SEAT_BUTTONS = 0x0004  # BUTTON carries the seat
    HOLD = 0x0008  # honours HOLD/RELEASE
    BEEPER = 0x0010
    DISPLAY = 0x0020  # has score displays for SET_DISPLAY
    THREE_PLAYER = 0x0040


@dataclass(frozen=True, slots=True)
class Message:
    """Base of all messages: a fixed layout given by ``FORMAT`` unless a subclass overrides."""

    TYPE: ClassVar[MsgType]
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">")

    def encode_payload(self) -> bytes:
        return self.FORMAT.pack(*astuple(self))

    @classmethod
    def decode_payload(cls, payload: bytes) -> Self:
        if len(payload) != cls.FORMAT.size:
            raise PayloadError(f"{cls.TYPE.name}: {len(payload)} bytes, want {cls.FORMAT.size}")
        try:
            return cls(*cls.FORMAT.unpack(payload))
        except ValueError as exc:  # enum conversion in __post_init__
            raise PayloadError(f"{cls.TYPE.name}: {exc}") from None


# --- from the table -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello(Message):
    """Sent at boot and on request: who the table is and which stream (boot, log range) it has."""

    TYPE: ClassVar[MsgType] = MsgType.HELLO
    _FIXED: ClassVar[struct.Struct] = struct.Struct(">BIHII")
    protocol: int
    boot_id: int
    capabilities: Capability
    log_first: int  # oldest seq the device log can still resend
    last_seq: int  # newest seq assigned (0: none yet)
    model: str
    firmware: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "capabilities", Capability(self.capabilities))

    def encode_payload(self) -> bytes:
        model, firmware = self.model.encode(), self.firmware.encode()
        fixed = self._FIXED.pack(
            self.protocol, self.boot_id, int(self.capabilities), self.log_first, self.last_seq
        )
        out = fixed + bytes([len(model)]) + model + bytes([len(firmware)]) + firmware
        if len(out) > MAX_PAYLOAD:
            raise ValueError("HELLO strings too long")
        return out

    @classmethod
    def decode_payload(cls, payload: bytes) -> Self:
        size = cls._FIXED.size
        if len(payload) < size + 2:
            raise PayloadError("HELLO too short")
        fixed = cls._FIXED.unpack_from(payload)
        pos = size
        strings: list[str] = []
        for _ in range(2):
            if pos >= len(payload):
                raise PayloadError("HELLO string missing")
            n = payload[pos]
            raw = payload[pos + 1 : pos + 1 + n]
            if len(raw) != n:
                raise PayloadError("HELLO string truncated")
            try:
                strings.append(raw.decode())
            except UnicodeDecodeError:
                raise PayloadError("HELLO string is not UTF-8") from None
            pos += 1 + n
        if pos != len(payload):
            raise PayloadError("HELLO has trailing bytes")
        return cls(*fixed, *strings)


@dataclass(frozen=True, slots=True)
class Status(Message):
    """State and counters. Sent unsolicited each second as the HEARTBEAT, or to answer GET_STATUS.

    ``last_seq`` lets the host notice a lost tail event even when no newer event follows it.
    """

    TYPE: ClassVar[MsgType] = MsgType.STATUS
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">IBBIIIIII")
    t_ms: int
    state: TableState
    held: bool
    boot_id: int
    log_first: int
    last_seq: int
    rx_crc_errors: int
    tx_retransmits: int
    errors: int  # ERROR events since boot

    def __post_init__(self) -> None:
        object.__setattr__(self, "state", TableState(self.state))
        if self.held not in (0, 1):
            raise ValueError("held must be 0 or 1")
        object.__setattr__(self, "held", bool(self.held))


@dataclass(frozen=True, slots=True)
class ButtonPressed(Message):
    TYPE: ClassVar[MsgType] = MsgType.BUTTON
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">IBB")
    t_ms: int
    button: Button
    seat: Seat

    def __post_init__(self) -> None:
        object.__setattr__(self, "button", Button(self.button))
        object.__setattr__(self, "seat", Seat(self.seat))


@dataclass(frozen=True, slots=True)
class ShuffleStarted(Message):
    TYPE: ClassVar[MsgType] = MsgType.SHUFFLE_STARTED
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">I")
    t_ms: int


@dataclass(frozen=True, slots=True)
class SetComplete(Message):
    """The next set is stacked inside the table (the hand can begin)."""

    TYPE: ClassVar[MsgType] = MsgType.SET_COMPLETE
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">I")
    t_ms: int


@dataclass(frozen=True, slots=True)
class WallRaised(Message):
    """The lift brought the four walls up to the table surface."""

    TYPE: ClassVar[MsgType] = MsgType.WALL_RAISED
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">I")
    t_ms: int


@dataclass(frozen=True, slots=True)
class DiceResult(Message):
    TYPE: ClassVar[MsgType] = MsgType.DICE_RESULT
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">IBB")
    t_ms: int
    d1: int
    d2: int

    def __post_init__(self) -> None:
        if not (1 <= self.d1 <= 6 and 1 <= self.d2 <= 6):
            raise ValueError("dice must be 1..6")


@dataclass(frozen=True, slots=True)
class Dealer(Message):
    """The table's dealer lamp moved (tables with a dealer indicator)."""

    TYPE: ClassVar[MsgType] = MsgType.DEALER
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">IB")
    t_ms: int
    seat: Seat

    def __post_init__(self) -> None:
        seat = Seat(self.seat)
        if seat is Seat.CONSOLE:
            raise ValueError("the dealer is a player seat")
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True)
class Mode(Message):
    TYPE: ClassVar[MsgType] = MsgType.MODE
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">IB")
    t_ms: int
    players: int

    def __post_init__(self) -> None:
        if self.players not in (3, 4):
            raise ValueError("players must be 3 or 4")


@dataclass(frozen=True, slots=True)
class TableError(Message):
    """A mechanical fault. ``code`` is an :class:`ErrorCode` or a model-specific 0x80–0xFF."""

    TYPE: ClassVar[MsgType] = MsgType.ERROR
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">IBH")
    t_ms: int
    code: int
    detail: int = 0  # the maker's own code for model-specific errors, else 0

    def __post_init__(self) -> None:
        if not (1 <= self.code <= 5 or 0x80 <= self.code <= 0xFF):
            raise ValueError(f"unknown error code {self.code}")


# --- from the host --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ping(Message):
    TYPE: ClassVar[MsgType] = MsgType.PING


@dataclass(frozen=True, slots=True)
class GetStatus(Message):
    TYPE: ClassVar[MsgType] = MsgType.GET_STATUS


@dataclass(frozen=True, slots=True)
class ResendFrom(Message):
    """Replay logged events from ``seq``: ``count`` of them, or all since when 0."""

    TYPE: ClassVar[MsgType] = MsgType.RESEND_FROM
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">IH")
    seq: int
    count: int = 0


@dataclass(frozen=True, slots=True)
class Hold(Message):
    """Do not start the next shuffle until RELEASE (a referee is clearing an alert)."""

    TYPE: ClassVar[MsgType] = MsgType.HOLD


@dataclass(frozen=True, slots=True)
class Release(Message):
    TYPE: ClassVar[MsgType] = MsgType.RELEASE


@dataclass(frozen=True, slots=True)
class Beep(Message):
    TYPE: ClassVar[MsgType] = MsgType.BEEP
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">BH")
    count: int = 1
    duration_ms: int = 100


@dataclass(frozen=True, slots=True)
class SetDisplay(Message):
    """Scores for the four seat displays (E, S, W, N); signed, as scores go negative."""

    TYPE: ClassVar[MsgType] = MsgType.SET_DISPLAY
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">iiii")
    east: int
    south: int
    west: int
    north: int


# --- both directions -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ack(Message):
    """Acknowledges the peer's frame whose seq is in the header (cumulative for table events)."""

    TYPE: ClassVar[MsgType] = MsgType.ACK


@dataclass(frozen=True, slots=True)
class Nack(Message):
    TYPE: ClassVar[MsgType] = MsgType.NACK
    FORMAT: ClassVar[struct.Struct] = struct.Struct(">B")
    reason: NackReason

    def __post_init__(self) -> None:
        object.__setattr__(self, "reason", NackReason(self.reason))


TABLE_EVENTS: tuple[type[Message], ...] = (
    ButtonPressed,
    ShuffleStarted,
    SetComplete,
    WallRaised,
    DiceResult,
    Dealer,
    Mode,
    TableError,
)
"""Messages the table logs with a sequence number and sends with ACK_REQ."""

HOST_COMMANDS: tuple[type[Message], ...] = (
    Ping,
    GetStatus,
    ResendFrom,
    Hold,
    Release,
    Beep,
    SetDisplay,
)

ALL_MESSAGES: tuple[type[Message], ...] = (
    Hello,
    Status,
    *TABLE_EVENTS,
    *HOST_COMMANDS,
    Ack,
    Nack,
)

__all__ = [
    *(cls.__name__ for cls in ALL_MESSAGES),
    "Button",
    "Capability",
    "ErrorCode",
    "Message",
    "MsgType",
    "NackReason",
    "PayloadError",
    "Seat",
    "TableState",
    "decode_message",
]

REGISTRY: dict[int, type[Message]] = {cls.TYPE: cls for cls in ALL_MESSAGES}


def decode_message(type_: int, payload: bytes) -> Message:
    """Decode a payload by its frame type; raises :class:`PayloadError` for anything invalid."""
    cls = REGISTRY.get(type_)
    if cls is None:
        raise PayloadError(f"unknown message type 0x{type_:02x}")
    return cls.decode_payload(payload)
