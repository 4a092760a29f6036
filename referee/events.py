"""Typed events with the envelope of DESIGN.md; the log format is documented in EVENTS.md.

Every line of a game log is one :class:`Event`: ``{v, table_id, session_id, seq, ts, source,
type, payload, confidence, evidence}``. ``(table_id, session_id, seq)`` is unique, so ingest is
idempotent and gaps are visible. Payloads are typed per ``type`` (see :data:`PAYLOADS`); tiles
are written in the notation of :mod:`referee.tiles` (``"5m"``, ``"E"``) and seats as ``E S W N``.

Validation happens here, at the boundary (:func:`parse_line`); the engine trusts parsed events,
and the simulator builds them with ``model_construct`` (no validation) for speed.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializeAsAny,
    ValidationError,
    model_validator,
)

from referee.hands import Wind
from referee.tiles import NUM_FLOWERS, NUM_KINDS, Tile, format_tiles, parse_tiles, tile_name

SCHEMA_VERSION = 1
_M = TypeVar("_M", bound=BaseModel)

_TILE_BY_NAME: dict[str, Tile] = {tile_name(t): t for t in range(NUM_KINDS + NUM_FLOWERS)}


def _tile_in(value: Any) -> Tile:
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value < NUM_KINDS + NUM_FLOWERS:
            return value
    elif isinstance(value, str) and value in _TILE_BY_NAME:
        return _TILE_BY_NAME[value]
    raise ValueError(f"expected one tile such as '5m', 'E' or '3f', got {value!r}")


def _tiles_in(value: Any) -> tuple[Tile, ...]:
    if isinstance(value, str):
        return tuple(parse_tiles(value))
    if isinstance(value, list | tuple):
        return tuple(_tile_in(v) for v in value)
    raise ValueError(f"expected a tile string such as '234m55p', got {value!r}")


def _wind_in(value: Any) -> Wind:
    if isinstance(value, Wind):
        return value
    if isinstance(value, str) and value in Wind.__members__:
        return Wind[value]
    raise ValueError(f"expected a seat wind E, S, W or N, got {value!r}")


TileField = Annotated[Tile, BeforeValidator(_tile_in), PlainSerializer(tile_name)]
TilesField = Annotated[
    tuple[Tile, ...], BeforeValidator(_tiles_in), PlainSerializer(lambda t: format_tiles(t))
]
SeatField = Annotated[Wind, BeforeValidator(_wind_in), PlainSerializer(lambda w: w.name)]
Die = Annotated[int, Field(ge=1, le=6)]


class Source(StrEnum):
    """Who reported the event: sensors, the automatic table, a referee, the simulator, or us."""

    VISION = "vision"
    VOICE = "voice"
    TABLE = "table"
    REFEREE = "referee"
    SIMULATOR = "simulator"
    ENGINE = "engine"
    MANUAL = "manual"  # written by hand (tests, EVENTS.md examples)


class Payload(BaseModel):
    """Base of all payloads; ``TYPE`` is the envelope's ``type`` string."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    TYPE: ClassVar[str] = ""


# ---- session -------------------------------------------------------------------------------


class SessionStarted(Payload):
    """Players at their provisional places (venue E, S, W, N) before the seat draw (WMC-2.1)."""

    TYPE: ClassVar[str] = "session_started"
    profile: Literal["wmc", "zj33", "mcr"] = "wmc"
    players: tuple[str, str, str, str]
    follow_suit: bool = True  # WMC-12.4 exemption invoked by discarders (WMC-7.5)


class SeatDraw(Payload):
    """The seat draw (WMC-2.3); also the seat change after a round (WMC-8.2).

    ``roller`` rolls ``roll1``; the counted player rolls ``roll2``; that count names the first
    taker; players then take counter-clockwise. ``winds[i]`` is the wind taken by the i-th taker.
    Places are the provisional (or current) places, counter-clockwise from venue East.
    """

    TYPE: ClassVar[str] = "seat_draw"
    roller: Annotated[int, Field(ge=0, le=3)]
    roll1: Annotated[int, Field(ge=2, le=12)]
    roll2: Annotated[int, Field(ge=2, le=12)]
    winds: tuple[SeatField, SeatField, SeatField, SeatField]


# ---- hand setup ----------------------------------------------------------------------------


class WallBuilt(Payload):
    """The four walls stand (WMC-3.2). ``tiles``: wall contents in geometry order, when known.

    Geometry order: side E, S, W, N (by the seat sitting behind it); on each side stacks from
    the owner's right end leftwards; each stack top then bottom.
    """

    TYPE: ClassVar[str] = "wall_built"
    tiles: TilesField | None = None


class DiceRolled(Payload):
    """A roll of two dice: first the dealer's (names the breaker), then the breaker's (WMC-3.3)."""

    TYPE: ClassVar[str] = "dice_rolled"
    seat: SeatField
    dice: tuple[Die, Die]


class Deal(Payload):
    """The deal is complete (WMC-3.4). ``hands`` only when the wall's tiles are unknown."""

    TYPE: ClassVar[str] = "deal"
    hands: dict[SeatField, TilesField] | None = None


# ---- play ----------------------------------------------------------------------------------


class Draw(Payload):
    """A draw from the live wall. ``merged`` False: still held apart (claims may recall it, 4.4)."""

    TYPE: ClassVar[str] = "draw"
    seat: SeatField
    tile: TileField | None = None
    merged: bool = True


class ReplacementDraw(Payload):
    """A draw from the kong end after a kong (WMC-5.5) or a flower (MCR)."""

    TYPE: ClassVar[str] = "replacement_draw"
    seat: SeatField
    tile: TileField | None = None


class FlowerSetAside(Payload):
    """MCR: a flower laid face up; a replacement draw follows."""

    TYPE: ClassVar[str] = "flower"
    seat: SeatField
    tile: TileField


class Discard(Payload):
    TYPE: ClassVar[str] = "discard"
    seat: SeatField
    tile: TileField


class CallKind(StrEnum):
    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"
    WIN = "win"


class Call(Payload):
    """A spoken call (WMC-5.2): chow, pung, kong or win; the exposure follows as its own event."""

    TYPE: ClassVar[str] = "call"
    seat: SeatField
    call: CallKind


class Chow(Payload):
    """Chow of the last discard (WMC-5.4); ``tiles`` is the whole set including that discard."""

    TYPE: ClassVar[str] = "chow"
    seat: SeatField
    tiles: TilesField


class Pung(Payload):
    """Pung of the last discard (WMC-5.3)."""

    TYPE: ClassVar[str] = "pung"
    seat: SeatField


class KongKind(StrEnum):
    EXPOSED = "exposed"  # 大明槓: a discard onto a concealed pung
    ADDED = "added"  # 小明槓: the fourth tile onto an exposed pung
    CONCEALED = "concealed"  # 暗槓


class Kong(Payload):
    """A declared and shown kong (WMC-5.5); the replacement draw is a separate event."""

    TYPE: ClassVar[str] = "kong"
    seat: SeatField
    kind: KongKind
    tile: TileField


class WinDeclared(Payload):
    """A win: on the last discard, on a robbed kong, or self-drawn (WMC-7.2)."""

    TYPE: ClassVar[str] = "win"
    seat: SeatField


class HandRevealed(Payload):
    """The winner's concealed tiles as shown (WMC-7.4); checked against what the engine knows."""

    TYPE: ClassVar[str] = "hand_revealed"
    seat: SeatField
    tiles: TilesField


class ExhaustiveDraw(Payload):
    """No win on the riverbed tile: the hand is drawn (WMC-6.3)."""

    TYPE: ClassVar[str] = "exhaustive_draw"


# ---- observations and decisions (logged; the engine keeps them out of the game state) -----


class Observation(Payload):
    """A raw sensor reading (vision, voice) that later events may cite as evidence."""

    TYPE: ClassVar[str] = "observation"
    sensor: str
    kind: str
    data: dict[str, Any] = Field(default_factory=dict)


class MachineEvent(Payload):
    """A message from the automatic table (table_io), e.g. DICE_RESULT, SET_COMPLETE, ERROR."""

    TYPE: ClassVar[str] = "machine"
    message: str
    data: dict[str, Any] = Field(default_factory=dict)


class RefereeDecision(Payload):
    """A referee's ruling on an alert or proposal (WMC-0.3): confirm, change or dismiss."""

    TYPE: ClassVar[str] = "referee_decision"
    referee: str
    decision: Literal["confirm", "change", "dismiss", "note"]
    about_seq: int | None = None
    reason: str = ""
    data: dict[str, Any] = Field(default_factory=dict)


PAYLOADS: dict[str, type[Payload]] = {
    cls.TYPE: cls
    for cls in (
        SessionStarted,
        SeatDraw,
        WallBuilt,
        DiceRolled,
        Deal,
        Draw,
        ReplacementDraw,
        FlowerSetAside,
        Discard,
        Call,
        Chow,
        Pung,
        Kong,
        WinDeclared,
        HandRevealed,
        ExhaustiveDraw,
        Observation,
        MachineEvent,
        RefereeDecision,
    )
}


class Event(BaseModel):
    """The envelope (DESIGN.md). ``ts`` is seconds on the table clock (simulated or real)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = SCHEMA_VERSION
    table_id: str
    session_id: str
    seq: Annotated[int, Field(ge=0)]
    ts: float
    source: Source
    type: str
    payload: SerializeAsAny[Payload]
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0
    evidence: tuple[str, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _typed_payload(cls, data: Any) -> Any:
        if isinstance(data, dict) and not isinstance(data.get("payload"), Payload):
            kind = data.get("type")
            model = PAYLOADS.get(kind) if isinstance(kind, str) else None
            if model is None:
                known = ", ".join(sorted(PAYLOADS))
                raise ValueError(f"unknown event type {kind!r}; expected one of {known}")
            data = {**data, "payload": model.model_validate(data.get("payload") or {})}
        return data

    def to_json(self) -> str:
        return self.model_dump_json()


_DEFAULTS: dict[type[BaseModel], dict[str, Any]] = {}


def construct(cls: type[_M], **fields: Any) -> _M:
    """Build a model from trusted values without validation — ``model_construct`` minus its
    per-call overhead (the simulator builds two models per event)."""
    defaults = _DEFAULTS.get(cls)
    if defaults is None:
        defaults = _DEFAULTS[cls] = {
            name: f.get_default(call_default_factory=True)
            for name, f in cls.model_fields.items()
            if not f.is_required()
        }
    obj = cls.__new__(cls)
    values = {**defaults, **fields} if len(fields) < len(cls.model_fields) else fields
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "__pydantic_fields_set__", set(fields))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


def make_event(
    payload: Payload,
    *,
    seq: int,
    ts: float,
    table_id: str = "T1",
    session_id: str = "S1",
    source: Source = Source.SIMULATOR,
    confidence: float = 1.0,
    evidence: tuple[str, ...] = (),
) -> Event:
    """An envelope around a payload without re-validation (the payload is already typed)."""
    return construct(
        Event,
        v=SCHEMA_VERSION,
        table_id=table_id,
        session_id=session_id,
        seq=seq,
        ts=ts,
        source=source,
        type=payload.TYPE,
        payload=payload,
        confidence=confidence,
        evidence=evidence,
    )


class LogLineError(ValueError):
    """A malformed log line; ``line`` is 1-based."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}")


def parse_line(text: str, line: int = 0) -> Event:
    """Validate one JSON log line into an Event; errors name the line and the field."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogLineError(line, f"not JSON: {exc.msg} at column {exc.colno}") from None
    try:
        return Event.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "event"
        raise LogLineError(line, f"{where}: {first['msg']}") from None
