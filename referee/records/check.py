"""Replay an imported record through the engine and compare its result with the record's.

The record's ``Fan``/``Score`` lines (Botzone) or header (2017 records) are the platform's
verdict; the engine's is a pure function of the log. A refused action is a finding (our bug or
the record's); so is any difference in the result, the fans or the points.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.game.alerts import Alert
from referee.game.state import HandResult
from referee.game.table import Table
from referee.hands import Wind
from referee.records import Expected, Record
from referee.scoring.mcr_fans import FAN_BY_NUMBER


@dataclass(frozen=True, slots=True)
class Verdict:
    """``ok``, ``refused`` (the engine refused an action) or ``differs``, with the details."""

    record: str
    status: str
    details: tuple[str, ...] = ()

    def line(self) -> str:
        if self.status == "ok":
            return f"{self.record}, ok"
        return f"{self.record}, {self.status}: " + "; ".join(self.details)


def replay(record: Record) -> tuple[Table, list[Alert]]:
    """The engine after the record's log, and the actions it refused."""
    first = record.events[0]
    table = Table(first.table_id, first.session_id)
    refused: list[Alert] = []
    for ev in record.events:
        refused.extend(a for a in table.apply(ev).alerts if a.rejected)
    return table, refused


def check(record: Record) -> Verdict:
    table, refused = replay(record)
    if refused:
        return Verdict(
            record.id,
            "refused",
            tuple(f"seq {a.seq} [{a.rule}] {a.message}" for a in refused),
        )
    results = table.state.results
    if len(results) != 1:
        return Verdict(record.id, "differs", (f"the log ended {len(results)} hands, not 1",))
    details = differences(record.expected, results[0])
    return Verdict(record.id, "differs" if details else "ok", tuple(details))


def differences(want: Expected, got: HandResult) -> list[str]:
    """What the engine's result says otherwise than the record (empty: they agree)."""
    out: list[str] = []
    if got.outcome != want.result:
        out.append(f"result {got.outcome}, the record {want.result}")
        return out
    if want.result == "win":
        if got.winner is not want.winner:
            out.append(f"winner {_seat(got.winner)}, the record {_seat(want.winner)}")
        out += _fans(want, got)
        if want.total is not None and got.value != want.total:
            out.append(f"fan total {got.value}, the record {want.total}")
    elif want.result == "false_win" and got.false_win is not want.winner:
        out.append(f"false win by {_seat(got.false_win)}, the record {_seat(want.winner)}")
    deltas = {w: got.deltas.get(w, 0) for w in Wind}
    if want.payments is not None and deltas != want.payments:
        ours = " ".join(f"{deltas[w]:+d}" for w in Wind)
        theirs = " ".join(f"{want.payments[w]:+d}" for w in Wind)
        out.append(f"payments E S W N {ours}, the record {theirs}")
    if want.winner_points is not None and got.winner is not None:
        points = got.deltas.get(got.winner, 0)
        if points != want.winner_points:
            out.append(f"winner's points {points:+d}, the record {want.winner_points:+d}")
    return out


def _fans(want: Expected, got: HandResult) -> list[str]:
    ours: dict[int, int] = {}
    for p in got.patterns:
        number = int(p.id.removeprefix("MCR-"))
        ours[number] = ours.get(number, 0) + p.points * p.count
    out = [f"fan {name!r} is not in the MCR table" for name in want.unknown_fans]
    for number in sorted(set(ours) | set(want.fans)):
        mine, theirs = ours.get(number, 0), want.fans.get(number, 0)
        if mine != theirs:
            fan = FAN_BY_NUMBER[number]
            out.append(f"{fan.id} {fan.name_zh} {fan.name}: {mine} fan, the record {theirs}")
    return out


def _seat(seat: Wind | None) -> str:
    return seat.name if seat is not None else "nobody"


def summary(verdicts: list[Verdict]) -> str:
    agree = sum(v.status == "ok" for v in verdicts)
    refused = sum(v.status == "refused" for v in verdicts)
    differ = sum(v.status == "differs" for v in verdicts)
    return f"records {len(verdicts)}, agree {agree}, engine refused {refused}, differ {differ}"
