"""Standings across sessions, per player and per team, ordered by the organiser's tie-breaks.

Table points per session are WMC's 4-2-1-0 by the session's score (players level share the
points of the places they hold); ``score`` is the sum of the sessions' totals after confirmed
penalties and corrections (:meth:`RefereeTable.totals`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from referee.duties import RefereeTable

PLACE_POINTS = (4.0, 2.0, 1.0, 0.0)


@dataclass
class Line:
    name: str
    rank_points: float = 0.0
    score: int = 0
    wins: int = 0
    best_hand: int = 0
    sessions: int = 0
    members: list[str] = field(default_factory=list)

    def key(self, tiebreaks: Sequence[str]) -> tuple[object, ...]:
        out: list[object] = []
        for t in tiebreaks:
            out.append(self.name if t == "name" else -float(getattr(self, t)))
        return (*out, self.name)

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "rank_points": self.rank_points,
            "score": self.score,
            "wins": self.wins,
            "best_hand": self.best_hand,
            "sessions": self.sessions,
            **({"members": self.members} if self.members else {}),
        }


def place_points(totals: dict[str, int]) -> dict[str, float]:
    ordered = sorted(totals.items(), key=lambda kv: -kv[1])
    out: dict[str, float] = {}
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j][1] == ordered[i][1]:
            j += 1
        share = sum(PLACE_POINTS[i:j]) / (j - i)
        for name, _ in ordered[i:j]:
            out[name] = share
        i = j
    return out


def players(duties: Iterable[RefereeTable]) -> dict[str, Line]:
    lines: dict[str, Line] = {}
    for duty in duties:
        totals = duty.totals()
        if not duty.state.results:
            continue
        points = place_points(totals)
        for name, score in totals.items():
            line = lines.setdefault(name, Line(name))
            line.score += score
            line.rank_points += points.get(name, 0.0)
            line.sessions += 1
        for winner, value in duty.wins():
            line = lines.setdefault(winner, Line(winner))
            line.wins += 1
            line.best_hand = max(line.best_hand, value)
    return lines


def standings(
    duties: Iterable[RefereeTable], tiebreaks: Sequence[str], teams: dict[str, str]
) -> tuple[list[Line], list[Line]]:
    """(players, teams), each in standing order."""
    people = players(duties)
    squads: dict[str, Line] = {}
    for line in people.values():
        team = teams.get(line.name)
        if team is None:
            continue
        t = squads.setdefault(team, Line(team))
        t.rank_points += line.rank_points
        t.score += line.score
        t.wins += line.wins
        t.best_hand = max(t.best_hand, line.best_hand)
        t.sessions += line.sessions
        t.members.append(line.name)
    order = list(tiebreaks)
    return (
        sorted(people.values(), key=lambda x: x.key(order)),
        sorted(squads.values(), key=lambda x: x.key(order)),
    )
