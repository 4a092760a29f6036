"""Records of games played elsewhere (Botzone, an online MCR server) as our game logs.

Pure data conversion: text in, :class:`~referee.events.Event` lists out (and back). Each
record becomes one session with the platform's profile (``mcr-botzone``, ``mcr-online``), the
record's players as seats and the prevalent wind; what the record says about the result (fans,
points per seat) travels beside the log as :class:`Expected`, for ``mjref import --check``.
A malformed line is a :class:`RecordError` naming its line; the other records still import.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.events import Event, Payload, Source, make_event
from referee.hands import Wind
from referee.scoring.mcr_fans import FAN_BY_ENGINE_NAME, FAN_BY_NUMBER
from referee.tiles import FIRST_FLOWER, NUM_KINDS, Tile

# The platforms' tile codes: W characters, B dots, T bamboo, F winds E S W N, J red green white,
# H flowers 1–8 (2017 records only).
_SUITS = {"W": 0, "B": 9, "T": 18}
_DRAGONS = {1: 33, 2: 32, 3: 31}  # J1 red (C), J2 green (F), J3 white (P)
TILE_OF: dict[str, Tile] = {}
for _letter, _base in _SUITS.items():
    for _n in range(1, 10):
        TILE_OF[f"{_letter}{_n}"] = _base + _n - 1
for _n in range(1, 5):
    TILE_OF[f"F{_n}"] = 27 + _n - 1
for _n, _t in _DRAGONS.items():
    TILE_OF[f"J{_n}"] = _t
for _n in range(1, 9):
    TILE_OF[f"H{_n}"] = FIRST_FLOWER + _n - 1
CODE_OF: dict[Tile, str] = {t: code for code, t in TILE_OF.items()}
del _letter, _base, _n, _t


class RecordError(ValueError):
    """A malformed record line; ``line`` is 1-based in the file."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}")


def tile_of(code: str, line: int, *, flowers: bool = False) -> Tile:
    """A platform tile code as our tile; a bad code is a RecordError naming the line."""
    tile = TILE_OF.get(code)
    if tile is None or (tile >= NUM_KINDS and not flowers):
        kinds = "W1–W9, B1–B9, T1–T9, F1–F4, J1–J3" + (", H1–H8" if flowers else "")
        raise RecordError(line, f"unknown tile {code!r}: expected one of {kinds}")
    return tile


@dataclass(frozen=True, slots=True)
class Expected:
    """What the record says the hand came to: ``result`` ``win`` / ``exhaustive_draw`` /
    ``false_win``; the winner's seat; ``fans`` as fan number → points (value × count, the
    record's own subtotals); ``total`` the fan total; ``payments`` per seat when the record has
    all four (Botzone), else ``winner_points`` only (the 2017 records)."""

    result: str
    winner: Wind | None = None
    fans: dict[int, int] = field(default_factory=dict)
    unknown_fans: tuple[str, ...] = ()
    total: int | None = None
    payments: dict[Wind, int] | None = None
    winner_points: int | None = None


@dataclass(slots=True)
class Record:
    """One imported hand: its id, the log, what the record says, and the line it starts on."""

    id: str
    events: list[Event]
    expected: Expected
    line: int = 1


@dataclass(slots=True)
class Imported:
    """The records of one file, and the malformed ones (reported by line, skipped)."""

    records: list[Record] = field(default_factory=list)
    errors: list[RecordError] = field(default_factory=list)


class LogBuilder:
    """Numbers the events of one record: seq from 0, ts one second apart (the records keep no
    time), source ``record``, evidence the record line each event comes from."""

    def __init__(self, table_id: str, session_id: str) -> None:
        self.table_id = table_id
        self.session_id = session_id
        self.events: list[Event] = []

    def add(self, payload: Payload, line: int, *notes: str) -> None:
        seq = len(self.events)
        self.events.append(
            make_event(
                payload,
                seq=seq,
                ts=float(seq),
                table_id=self.table_id,
                session_id=self.session_id,
                source=Source.RECORD,
                evidence=(f"line:{line}", *notes),
            )
        )


def payload_dict(ev: Event) -> dict[str, Any]:
    """An event's type and payload as plain JSON data (for comparing logs)."""
    return {"type": ev.type, **ev.payload.model_dump(mode="json")}


# Fan names as the platforms write them, where they differ from MCR.md's table (mcr_fans).
_FAN_ALIASES = {"嵌张": 78, "断幺九": 68}


def fan_number(name_zh: str) -> int | None:
    """The MCR fan number of a platform's Chinese fan name (None if unknown)."""
    fan = FAN_BY_ENGINE_NAME.get(name_zh)
    return fan.number if fan is not None else _FAN_ALIASES.get(name_zh)


def fan_name(number: int, *, platform: str) -> str:
    """The Chinese name a platform writes for a fan (``botzone`` or ``mjdata``)."""
    if platform == "botzone" and number == 78:
        return "嵌张"
    if platform == "mjdata" and number == 68:
        return "断幺九"
    return FAN_BY_NUMBER[number].name_zh
