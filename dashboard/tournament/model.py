"""The tournament as a value: what creation fixed (:class:`Plan`) and what the day changed
(:class:`Change`, one audit entry each, never an edit), folded into :class:`Day` — pure, so the
dashboard, the check and the reports all read the same state from the same entries.

A round's seating is the plan's, then every change of its players in the order they were made:
a swap of two players (same table: their seats; two tables: their tables), a substitute for a
player over some rounds, a withdrawal from a round on (a substitute takes the seats).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

SEATS = ("E", "S", "W", "N")

ROUND_ACTIONS = (
    "round_started",
    "round_paused",
    "round_resumed",
    "round_extended",
    "round_ended",
    "table_confirmed",
)
CORRECTIONS = ("players_swapped", "player_replaced", "hand_corrected", "result_changed")
ACTIONS = frozenset({*ROUND_ACTIONS, *CORRECTIONS})
"""The audit actions that make the tournament's day (a correction needs its reason)."""


class TournamentError(ValueError):
    """A tournament, or a change to it, that breaks the rules; every problem named."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Entrant:
    name: str
    ema_id: str = ""
    country: str = ""
    team: str = ""
    substitute: bool = False


@dataclass(frozen=True)
class RoundPlan:
    number: int
    session_id: str  # the rigs' session for this round
    minutes: int


Seats = dict[str, str]  # seat wind (provisional place) → player


@dataclass(frozen=True)
class Plan:
    name: str
    rules: str
    entrants: tuple[Entrant, ...]
    rounds: tuple[RoundPlan, ...]
    tables: dict[int, str]  # table number → the rig's table id
    seating: dict[tuple[int, int], Seats]  # (round, table) → seats
    starts: str = ""
    ends: str = ""
    venue: str = ""
    pins: bool = True

    def entrant(self, name: str) -> Entrant | None:
        return next((e for e in self.entrants if e.name == name), None)

    def round(self, number: int) -> RoundPlan:
        return self.rounds[number - 1]

    def table_of_rig(self, rig: str) -> int | None:
        return next((n for n, r in self.tables.items() if r == rig), None)


@dataclass(frozen=True)
class Change:
    """One audit entry of the day: who did what to which round (and table), and why."""

    id: int
    at: float
    actor: str
    action: str
    round: int
    table: int | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    reason: str = ""


@dataclass
class RoundState:
    number: int
    status: str = "planned"  # planned | running | paused | ended
    started: float | None = None
    ended: float | None = None
    paused_since: float | None = None
    paused_s: float = 0.0
    extra_minutes: dict[int | None, int] = field(default_factory=dict)  # None: every table
    extra_hands: dict[int | None, int] = field(default_factory=dict)
    confirmed: dict[int, str] = field(default_factory=dict)  # table → the referee who did

    def minutes_for(self, table: int, base: int) -> int:
        return base + self.extra_minutes.get(None, 0) + self.extra_minutes.get(table, 0)

    def hands_for(self, table: int, base: int) -> int:
        return base + self.extra_hands.get(None, 0) + self.extra_hands.get(table, 0)

    def played_s(self, now: float) -> float:
        """Seconds of play so far (pauses excluded)."""
        if self.started is None:
            return 0.0
        end = self.ended if self.ended is not None else now
        paused = self.paused_s + (end - self.paused_since if self.paused_since else 0.0)
        return max(0.0, end - self.started - paused)


@dataclass
class Day:
    plan: Plan
    changes: list[Change]
    rounds: dict[int, RoundState]
    seating: dict[tuple[int, int], Seats]  # the seats after every change of players
    touched: set[tuple[int, int]]  # sessions whose players a correction changed

    @property
    def current(self) -> RoundState | None:
        """The round in play (running or paused), else None."""
        return next((r for r in self.rounds.values() if r.status in ("running", "paused")), None)

    def next_round(self) -> int | None:
        return next((n for n, r in sorted(self.rounds.items()) if r.status == "planned"), None)

    def table_of(self, round_: int, player: str) -> int | None:
        for (r, t), seats in self.seating.items():
            if r == round_ and player in seats.values():
                return t
        return None

    def tables(self, round_: int) -> list[tuple[int, Seats]]:
        return sorted((t, s) for (r, t), s in self.seating.items() if r == round_)

    def by_name(self, round_: int) -> list[tuple[str, int, str]]:
        """(player, table, seat) of a round, in name order: where everyone sits."""
        seated = [(p, t, s) for t, seats in self.tables(round_) for s, p in seats.items()]
        return sorted(seated, key=lambda x: x[0].casefold())

    def session(self, rig: str, session_id: str) -> tuple[int, int] | None:
        """(round, table) of a rig's session, or None outside the tournament."""
        table = self.plan.table_of_rig(rig)
        rnd = next((r.number for r in self.plan.rounds if r.session_id == session_id), None)
        return None if table is None or rnd is None else (rnd, table)

    def hand_corrections(self, round_: int, table: int) -> list[Change]:
        return [
            c
            for c in self.changes
            if c.action == "hand_corrected" and c.round == round_ and c.table == table
        ]


def fold(plan: Plan, changes: Iterable[Change]) -> Day:
    """The day after ``changes`` (in the order they were made)."""
    done = list(changes)
    rounds = {r.number: RoundState(r.number) for r in plan.rounds}
    seating = {k: dict(v) for k, v in plan.seating.items()}
    touched: set[tuple[int, int]] = set()
    for c in done:
        rs = rounds.get(c.round)
        if rs is None:
            continue
        if c.action == "round_started":
            rs.status, rs.started = "running", c.at
        elif c.action == "round_paused" and rs.status == "running":
            rs.status, rs.paused_since = "paused", c.at
        elif c.action == "round_resumed" and rs.status == "paused":
            rs.paused_s += c.at - (rs.paused_since or c.at)
            rs.status, rs.paused_since = "running", None
        elif c.action == "round_ended":
            if rs.paused_since is not None:
                rs.paused_s += c.at - rs.paused_since
                rs.paused_since = None
            rs.status, rs.ended = "ended", c.at
        elif c.action == "round_extended":
            minutes, hands = int(c.detail.get("minutes", 0)), int(c.detail.get("hands", 0))
            rs.extra_minutes[c.table] = rs.extra_minutes.get(c.table, 0) + minutes
            rs.extra_hands[c.table] = rs.extra_hands.get(c.table, 0) + hands
        elif c.action == "table_confirmed" and c.table is not None:
            rs.confirmed[c.table] = c.actor
        elif c.action == "players_swapped":
            a, b = str(c.detail["a"]), str(c.detail["b"])
            touched |= _rename(seating, c.round, c.round, {a: b, b: a})
        elif c.action == "player_replaced":
            out, into = str(c.detail["out"]), str(c.detail["in"])
            last = c.detail.get("through") or len(plan.rounds)
            touched |= _rename(seating, c.round, int(last), {out: into})
    return Day(plan, done, rounds, seating, touched)


def _rename(
    seating: dict[tuple[int, int], Seats], first: int, last: int, names: dict[str, str]
) -> set[tuple[int, int]]:
    hit = set()
    for (r, t), seats in seating.items():
        if first <= r <= last and any(p in names for p in seats.values()):
            seating[(r, t)] = {s: names.get(p, p) for s, p in seats.items()}
            hit.add((r, t))
    return hit
