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
    RECORD = "record"  # imported from a record of a game played elsewhere (referee.records)


class Payload(BaseModel):
    """Base of all payloads; ``TYPE`` is the envelope's ``type`` string."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    TYPE: ClassVar[str] = ""


# ---- session -------------------------------------------------------------------------------


class SessionStarted(Payload):
    """Players at their provisional places (venue E, S, W, N) before the seat draw (WMC-2.1)."""

    TYPE: ClassVar[str] = "session_started"
    profile: Literal["wmc", "zj33", "mcr", "mcr-botzone", "mcr-online"] = "wmc"
    players: tuple[str, str, str, str]
    follow_suit: bool = True  # WMC-12.4 exemption invoked by discarders (WMC-7.5)
    # MCR: the prevalent wind of the first round, for a record that starts mid-game (imports)
    prevalent: SeatField = Wind.E


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
    """The deal is complete (WMC-3.4). ``hands``: the tiles each seat got, when somebody saw
    them (an RFID table, a simulation, a referee); at a real table the deal goes face down and
    only ``counts`` are seen (the camera counting each rack), or nothing."""

    TYPE: ClassVar[str] = "deal"
    hands: dict[SeatField, TilesField] | None = None
    counts: dict[SeatField, Annotated[int, Field(ge=0, le=20)]] | None = None


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
    """A discard. ``penalty``: the tile came from the seat's penalty tiles (WMC-9.2).
    ``area``/``index``: where it landed, when the camera saw it — the river area (by seat) and
    the 0-based place in it (rows of 6, WMC-4.6); checked against the seat's own next place."""

    TYPE: ClassVar[str] = "discard"
    seat: SeatField
    tile: TileField
    penalty: bool = False
    area: SeatField | None = None
    index: Annotated[int, Field(ge=0)] | None = None


class DiscardCorrected(Payload):
    """The last discard was another tile than the record says (a sensor misread it, a referee
    put the record right): ``tile`` lies in the river, the recorded one is back in the hand.
    Only while that discard is the last thing that happened (no claim, no draw after it)."""

    TYPE: ClassVar[str] = "discard_corrected"
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
    """Pung of the last discard (WMC-5.3). ``tiles``: the set as exposed, including the discard,
    when seen — tiles that are no pung make a wrong meld (WMC-11.1 / 11.5); omitted, the pung is
    the discard and a pair from the hand."""

    TYPE: ClassVar[str] = "pung"
    seat: SeatField
    tiles: TilesField | None = None


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
    tiles: TilesField | None = None  # the four tiles as shown (exposed / concealed), when seen


class MeldCorrected(Payload):
    """A wrong meld put right before play moved on (WMC-11.1): ``tiles`` is the set as corrected
    (including the claimed discard); omitted, the claim (or concealed kong) is withdrawn. Either
    way the wrongly exposed hand tiles become live penalty tiles."""

    TYPE: ClassVar[str] = "meld_corrected"
    seat: SeatField
    tiles: TilesField | None = None


class WinOn(StrEnum):
    """What a win is on (WMC-7.2): the last discard (or a robbed added kong's tile, 5.6), or the
    tile the winner drew (self-drawn, a kong replacement included)."""

    DISCARD = "discard"
    DRAW = "draw"


class WinDeclared(Payload):
    """A win: on the last discard, on a robbed kong, or self-drawn (WMC-7.2). ``tile`` (the
    winning tile) and ``on`` are optional; when the log does not say, the rules decide (a
    player who drew but did not merge wins on the discard only by priority, WMC-4.2)."""

    TYPE: ClassVar[str] = "win"
    seat: SeatField
    tile: TileField | None = None
    on: WinOn | None = None


class HandRevealed(Payload):
    """The winner's concealed tiles as shown (WMC-7.4); checked against what the engine knows."""

    TYPE: ClassVar[str] = "hand_revealed"
    seat: SeatField
    tiles: TilesField


class RackCounted(Payload):
    """The tiles standing in a seat's rack, counted by the camera (their backs are all it sees):
    checked against the count the record implies (WMC-10.1)."""

    TYPE: ClassVar[str] = "rack_counted"
    seat: SeatField
    count: Annotated[int, Field(ge=0, le=20)]


class ExhaustiveDraw(Payload):
    """No win on the riverbed tile: the hand is drawn (WMC-6.3)."""

    TYPE: ClassVar[str] = "exhaustive_draw"


class DealCorrected(Payload):
    """WMC-3.5: a long deal found before the player's first discard — the excess ``tiles`` the
    referee took from the hand back into the wall (a point penalty). A short one is put right
    by the player's own ``draw`` from the wall."""

    TYPE: ClassVar[str] = "deal_corrected"
    seat: SeatField
    tiles: TilesField


class TilesExposed(Payload):
    """Tiles of a concealed hand shown illegally (knocked over, dropped, shown early): they
    become live penalty tiles (WMC-9.1). Also how a referee applies WMC-11.3 / 11.7 (the
    revealed tiles of an empty claim or win) and WMC-9.6 (tiles exposed in the deal)."""

    TYPE: ClassVar[str] = "tiles_exposed"
    seat: SeatField
    tiles: TilesField


class PenaltyTilesReturned(Payload):
    """A referee puts penalty tiles back into the concealed hand (a dismissed proposal)."""

    TYPE: ClassVar[str] = "penalty_tiles_returned"
    seat: SeatField
    tiles: TilesField


class WallFlipped(Payload):
    """A wall tile turned face up (WMC-4.9). ``next``: the next tile to draw (on one's own turn
    it must be taken as a live penalty tile); otherwise another wall tile (a warning)."""

    TYPE: ClassVar[str] = "wall_flipped"
    seat: SeatField
    tile: TileField | None = None
    next: bool = True


class DeadHand(Payload):
    """A referee rules a dead hand (WMC-10.2): ``long`` bars wins, claims and kongs; short, wins."""

    TYPE: ClassVar[str] = "dead_hand"
    seat: SeatField
    long: bool
    reason: str = ""


# ---- referee controls and player requests (clocks: WMC-13.1–13.4) ---------------------------


class TimedSeats(Payload):
    """The referee decides whom to time (WMC-13.3); default: all four."""

    TYPE: ClassVar[str] = "timed_seats"
    seats: tuple[SeatField, ...]


class TablePaused(Payload):
    """The referee stops the table clock (e.g. to rule on a claim)."""

    TYPE: ClassVar[str] = "table_paused"


class TableResumed(Payload):
    TYPE: ClassVar[str] = "table_resumed"


class ClockExtended(Payload):
    """Extra seconds for a seat: its running turn if on turn, else its hand bank."""

    TYPE: ClassVar[str] = "clock_extended"
    seat: SeatField
    seconds: Annotated[float, Field(gt=0)]


class ClockCleared(Payload):
    """The seat's running turn restarts now (after a referee's intervention)."""

    TYPE: ClassVar[str] = "clock_cleared"
    seat: SeatField


class PlayerPaused(Payload):
    """A player leaves the table with a referee's approval (WMC-13.4); the table clock stops."""

    TYPE: ClassVar[str] = "player_paused"
    seat: SeatField


class PlayerBack(Payload):
    TYPE: ClassVar[str] = "player_back"
    seat: SeatField


class PlayerLate(Payload):
    """A player arrived ``seconds`` late (WMC-13.4: counts as pause time)."""

    TYPE: ClassVar[str] = "player_late"
    seat: SeatField
    seconds: Annotated[float, Field(ge=0)]


class WaitRequested(Payload):
    """WMC-13.2: in the first 15 s, West or North asks South to wait (after East's discard), or
    North asks West (after South's); ``seat`` is who asks."""

    TYPE: ClassVar[str] = "wait_requested"
    seat: SeatField


class WaitReleased(Payload):
    TYPE: ClassVar[str] = "wait_released"


# ---- penalties and the score card (WMC-0.3, 8.1, 13.5) --------------------------------------

PenaltyKindName = Literal[
    "warning",
    "correction",
    "penalty_tiles",
    "points",
    "no_claims",
    "no_win",
    "forfeit",
    "disqualification",
]


class PenaltyProposed(Payload):
    """A penalty a referee proposes himself (the system's proposals are derived, not logged);
    its id is ``ref@<seq>``."""

    TYPE: ClassVar[str] = "penalty_proposed"
    referee: str
    seat: SeatField
    rule: str
    kind: PenaltyKindName
    points: Annotated[int, Field(ge=0)] = 0
    reason: str = ""


class PenaltyDecision(Payload):
    """A referee's decision on a proposal id: confirm, change (new ``points``), dismiss, or
    revoke a confirmed one — always a new event (WMC-0.3)."""

    TYPE: ClassVar[str] = "penalty_decision"
    proposal: str
    verdict: Literal["confirm", "change", "dismiss", "revoke"]
    referee: str
    reason: str = ""
    points: Annotated[int, Field(ge=0)] | None = None


class CardSigned(Payload):
    """A player signs the score card at the end of the half (WMC-8.1)."""

    TYPE: ClassVar[str] = "card_signed"
    player: str


class ScoreCorrected(Payload):
    """A correction to a recorded hand, confirmed by a referee (WMC-8.1); ``hand`` is 0-based."""

    TYPE: ClassVar[str] = "score_corrected"
    hand: Annotated[int, Field(ge=0)]
    player: str
    points: int
    reason: str
    referee: str


class HandRuled(Payload):
    """A referee's ruling on a hand the record could not settle (referee/EVENTS.md, "A damaged
    record"; WMC-7.8, 8.1): ``void`` takes its payments off the card; ``settle`` enters its
    result — a ``winner`` with the hand's ``value`` and the ``discarder`` (none: self-drawn),
    paid as WMC-12.4 says, or no winner and no ``payments``: a draw — or, for what the rules do
    not price, the ``payments`` themselves (points per player). ``hand`` is 0-based."""

    TYPE: ClassVar[str] = "hand_ruled"
    hand: Annotated[int, Field(ge=0)]
    ruling: Literal["void", "settle"]
    payments: dict[str, int] = Field(default_factory=dict)
    winner: str | None = None
    discarder: str | None = None  # with a winner: None is a self-drawn win
    value: Annotated[int, Field(ge=0)] | None = None
    reason: str
    referee: str


# ---- observations and decisions (logged; the engine keeps them out of the game state) -----


class Observation(Payload):
    """A raw sensor reading (vision, voice) that later events may cite as evidence."""

    TYPE: ClassVar[str] = "observation"
    sensor: str
    kind: str
    data: dict[str, Any] = Field(default_factory=dict)


ClaimWord = Literal["chow", "pung", "kong", "win", "selfdraw"]


class VoiceSetup(Payload):
    """How this session's claims are checked for the spoken call (WMC-5.2, 5.5), logged by the
    rig at start: ``voice`` — the microphones check each claim, kong and win after its exposure
    (a ``claim_check`` follows it; the exposure itself raises nothing); ``none`` — no audio
    input: nothing is checked, ``reason`` says why. Without this event, the ``call`` events
    before an exposure decide (a log written by hand, the simulator)."""

    TYPE: ClassVar[str] = "voice_setup"
    checks: Literal["voice", "none"]
    seats: tuple[SeatField | None, ...] = ()  # the seat of each microphone channel
    reason: str = ""


class ClaimCheck(Payload):
    """The microphones' answer for one claim, kong or win (WMC-5.2, 5.5, 5.7): was it said by
    that seat between the discard (or draw) and the exposure ``claim_seq``? ``spoken`` false →
    the engine's alert (``rule`` WMC-5.2, or WMC-5.5 for a kong said only after it was shown);
    null → uncertain, no alert (``reason`` says why). Times are on the session clock; the
    envelope's evidence cites the clip (``audio:START-END@SEAT``)."""

    TYPE: ClassVar[str] = "claim_check"
    claim_seq: Annotated[int, Field(ge=0)]
    seat: SeatField
    kind: ClaimWord
    spoken: bool | None
    word: ClaimWord | None = None
    conf: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    onset: float | None = None
    seat_heard: SeatField | None = None
    rule: Literal["WMC-5.2", "WMC-5.5"] | None = None
    reason: str = ""
    others: tuple[dict[str, Any], ...] = ()  # other seats heard in the window (WMC-5.7)


class ConductHeard(Payload):
    """A conduct sound the microphones heard (WMC-13.6): sustained ``talking`` at a seat outside
    calls, a ``slam``med tile, a ``phone`` ringing; times on the session clock, the clip in the
    envelope's evidence. The engine alerts it, except the winner's slam of the winning tile."""

    TYPE: ClassVar[str] = "conduct_heard"
    kind: Literal["talking", "slam", "phone"]
    seat: SeatField | None = None
    t_start: float
    t_end: float
    detail: str = ""


TableRule = Literal["TABLE-ERROR", "TABLE-LINK", "TABLE-MODE"]
"""Rule IDs of alerts about the automatic table (not WMC rules; see EVENTS.md):
TABLE-ERROR a fault the table reports (jam, count mismatch, …), TABLE-LINK the link to it
(offline, online, rebooted, events lost), TABLE-MODE a table set up for another game."""


class MachineAlert(BaseModel):
    """What a machine event asks a referee to look at; the engine raises it as an alert."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    rule: TableRule
    severity: Literal["info", "warning", "critical"]
    message: str


class MachineEvent(Payload):
    """A message from the automatic table (table_io), logged as the table said it.

    ``message`` is the table_io event kind (``hand_start``, ``dice_rolled``, ``table_alert``,
    ``link_state``, …), ``data`` its fields. Game events it implies (``wall_built``,
    ``dice_rolled``) are logged after it, citing it. ``alert``, when set, is raised by the engine
    (not rejected: the table's word stands), so that replay re-derives it.
    """

    TYPE: ClassVar[str] = "machine"
    message: str
    data: dict[str, Any] = Field(default_factory=dict)
    alert: MachineAlert | None = None


class RefereeDecision(Payload):
    """A referee's ruling on an alert or proposal (WMC-0.3): confirm, change or dismiss."""

    TYPE: ClassVar[str] = "referee_decision"
    referee: str
    decision: Literal["confirm", "change", "dismiss", "note"]
    about_seq: int | None = None
    reason: str = ""
    data: dict[str, Any] = Field(default_factory=dict)


_DUTY_PAYLOADS: tuple[type[Payload], ...] = (
    TimedSeats,
    TablePaused,
    TableResumed,
    ClockExtended,
    ClockCleared,
    PlayerPaused,
    PlayerBack,
    PlayerLate,
    WaitRequested,
    WaitReleased,
    PenaltyProposed,
    PenaltyDecision,
    CardSigned,
    ScoreCorrected,
    HandRuled,
)

_GAME_PAYLOADS: tuple[type[Payload], ...] = (
    SessionStarted,
    SeatDraw,
    WallBuilt,
    DiceRolled,
    Deal,
    DealCorrected,
    Draw,
    ReplacementDraw,
    FlowerSetAside,
    Discard,
    DiscardCorrected,
    Call,
    Chow,
    Pung,
    Kong,
    MeldCorrected,
    WinDeclared,
    HandRevealed,
    RackCounted,
    ExhaustiveDraw,
    Observation,
    VoiceSetup,
    ClaimCheck,
    ConductHeard,
    MachineEvent,
    RefereeDecision,
    TilesExposed,
    PenaltyTilesReturned,
    WallFlipped,
    DeadHand,
)
PAYLOADS: dict[str, type[Payload]] = {cls.TYPE: cls for cls in (*_GAME_PAYLOADS, *_DUTY_PAYLOADS)}
REFEREE_TYPES = frozenset(cls.TYPE for cls in _DUTY_PAYLOADS)
"""Types the game engine logs but ignores: the duties layer (clocks, penalties, card) acts."""


class Event(BaseModel):
    """The envelope (DESIGN.md). ``ts`` is seconds on the table clock (simulated or real)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = SCHEMA_VERSION
    table_id: str
    session_id: str
    seq: Annotated[int, Field(ge=0)]
    ts: Annotated[float, Field(allow_inf_nan=False)]
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


ENGINE_TYPES = frozenset(
    {
        "seats_assigned",
        "breaker_named",
        "wall_broken",
        "seabed_drawn",
        "dead_wall_adjusted",
        "draw_recalled",
        "no_replacement",
        "hand_scored",
        "hand_ended",
        "round_ended",
        "half_ended",
        "restriction_lifted",
        "alert",
        "proposal",
        "clock",
    }
)
"""Types of the engine's output events: what it derived, and ``alert`` (EVENTS.md)."""


class EngineEvent(BaseModel):
    """An engine output in the envelope of DESIGN.md: a derived event or an alert.

    ``seq`` numbers the engine's output stream of a session (0, 1, 2 … without gaps, its own
    sequence: ``(table_id, session_id, "engine", seq)`` is unique); ``cause`` is the seq of the
    input event that produced it, and ``ts`` that event's time. Outputs are a pure function of the
    input log, so replaying the log gives the same outputs with the same numbers: a consumer can
    ingest them idempotently, and a gap in ``seq`` means it missed some.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = SCHEMA_VERSION
    table_id: str
    session_id: str
    seq: Annotated[int, Field(ge=0)]
    ts: float
    source: Literal[Source.ENGINE] = Source.ENGINE
    type: str
    payload: dict[str, Any]
    cause: Annotated[int, Field(ge=0)]
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0
    evidence: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _known_type(self) -> EngineEvent:
        if self.type not in ENGINE_TYPES:
            raise ValueError(
                f"unknown engine event type {self.type!r}; expected one of "
                + ", ".join(sorted(ENGINE_TYPES))
            )
        return self

    def to_json(self) -> str:
        return self.model_dump_json()


_SHAPES: dict[type[BaseModel], tuple[dict[str, Any], int]] = {}
_setattr = object.__setattr__


def _shape(cls: type[BaseModel]) -> tuple[dict[str, Any], int]:
    """(defaults of the optional fields, number of fields) of a model class, computed once."""
    shape = _SHAPES.get(cls)
    if shape is None:
        fields = cls.model_fields
        defaults = {
            name: f.get_default(call_default_factory=True)
            for name, f in fields.items()
            if not f.is_required()
        }
        shape = _SHAPES[cls] = (defaults, len(fields))
    return shape


_FIELDS_SET: dict[tuple[type[BaseModel], tuple[str, ...]], set[str]] = {}


def _fields_set(cls: type[BaseModel], names: tuple[str, ...]) -> set[str]:
    """One shared ``fields_set`` per class and set of given fields.

    The models are frozen, so nothing mutates it in place (``model_copy`` copies it first);
    sharing it saves a set per event, which is most of the memory a long log holds.
    """
    found = _FIELDS_SET.get((cls, names))
    if found is None:
        found = _FIELDS_SET[(cls, names)] = set(names)
    return found


def construct(cls: type[_M], **fields: Any) -> _M:
    """Build a model from trusted values without validation — ``model_construct`` minus its
    per-call overhead (the simulator builds two models per event)."""
    defaults, size = _SHAPES.get(cls) or _shape(cls)
    obj = cls.__new__(cls)
    if len(fields) < size:  # the given fields first (in declaration order), then defaults
        for name, value in defaults.items():
            fields.setdefault(name, value)
    _setattr(obj, "__dict__", fields)
    _setattr(obj, "__pydantic_fields_set__", _fields_set(cls, tuple(fields)))
    _setattr(obj, "__pydantic_extra__", None)
    _setattr(obj, "__pydantic_private__", None)
    return obj


_EVENT_FIELDS_SET = _fields_set(Event, tuple(Event.model_fields))


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
    obj = Event.__new__(Event)
    _setattr(
        obj,
        "__dict__",
        {
            "v": SCHEMA_VERSION,
            "table_id": table_id,
            "session_id": session_id,
            "seq": seq,
            "ts": ts,
            "source": source,
            "type": payload.TYPE,
            "payload": payload,
            "confidence": confidence,
            "evidence": evidence,
        },
    )
    _setattr(obj, "__pydantic_fields_set__", _EVENT_FIELDS_SET)
    _setattr(obj, "__pydantic_extra__", None)
    _setattr(obj, "__pydantic_private__", None)
    return obj


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
        msg = exc.msg.removesuffix(" at")
        raise LogLineError(line, f"not JSON: {msg} at column {exc.colno}") from None
    try:
        return Event.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "event"
        raise LogLineError(line, f"{where}: {first['msg']}") from None
