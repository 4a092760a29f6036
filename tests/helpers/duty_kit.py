"""A hand-written game fed to the referee's duties in simulated time (one action per line)."""

from __future__ import annotations

from script_kit import HANDS

from referee.duties import RefereeTable
from referee.events import Deal as DealEvent
from referee.events import (
    DiceRolled,
    Event,
    Payload,
    SeatDraw,
    SessionStarted,
    Source,
    WallBuilt,
    make_event,
)
from referee.game.script import parse_action
from referee.game.table import Step
from referee.hands import Wind
from referee.tiles import parse_tiles

DEAL_TS = 100.0


class Duty:
    """Pushes events with explicit timestamps into a :class:`RefereeTable`."""

    def __init__(self) -> None:
        self.ref = RefereeTable()
        self.seq = 0
        self.ts = 0.0
        self.events: list[Event] = []  # the log so far, for replays

    def push(self, payload: Payload, ts: float | None = None) -> Step:
        self.ts = self.ts + 1.0 if ts is None else ts
        ev = make_event(payload, seq=self.seq, ts=self.ts, source=Source.MANUAL)
        self.seq += 1
        self.events.append(ev)
        return self.ref.apply(ev)

    def do(self, line: str, ts: float | None = None) -> Step:
        return self.push(parse_action(line), ts)

    def at(self, seconds_after_deal: float, line: str) -> Step:
        return self.do(line, DEAL_TS + seconds_after_deal)

    @staticmethod
    def found(step: Step) -> list[tuple[str, str | None]]:
        """(rule, seat) of each alert of a step."""
        return [(a.rule, a.seat.name if a.seat is not None else None) for a in step.alerts]

    @staticmethod
    def proposals(step: Step) -> list[dict[str, object]]:
        return [d.payload for d in step.derived if d.type == "proposal"]


def dealt(**hands: str) -> Duty:
    """A session, seat draw, unseen wall, break, and the deal at ``DEAL_TS``."""
    d = Duty()
    d.push(SessionStarted(players=("Ann", "Bo", "Chen", "Dai")))
    d.push(SeatDraw(roller=0, roll1=5, roll2=5, winds=(Wind.E, Wind.S, Wind.W, Wind.N)))
    d.push(WallBuilt())
    d.push(DiceRolled(seat=Wind.E, dice=(3, 2)))
    d.push(DiceRolled(seat=Wind.E, dice=(1, 1)))
    given = {**HANDS, **hands}
    step = d.push(
        DealEvent(hands={Wind[k]: tuple(parse_tiles(v)) for k, v in given.items()}), DEAL_TS
    )
    assert step.accepted, step.alerts
    return d


def first_end_lost(events: list[Event]) -> list[Event]:
    """A log whose first hand's end (and what followed it up to the next wall) never reached
    the record, numbered without a gap as a live sequencer would: the next wall closes that
    hand without a result (referee/EVENTS.md, "A damaged record")."""
    ended = next(i for i, e in enumerate(events) if e.type in ("win", "exhaustive_draw"))
    second_wall = [e for e in events if e.type == "wall_built"][1]
    keep = [e for i, e in enumerate(events) if i < ended or e.seq >= second_wall.seq]
    return [e.model_copy(update={"seq": n}) for n, e in enumerate(keep)]
