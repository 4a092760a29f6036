"""What the tournament reports: standings (after each round, with the organiser's tie-breaks),
the federation's results sheet (the EMA's columns), every score card in one PDF."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from dashboard.live import LiveState
from dashboard.pdf import cards_pdf
from dashboard.standings import Line, players
from dashboard.tournament.model import Day
from dashboard.tournament.sessions import played

EMA_HEADER = ("rank", "name", "ema_id", "country", "table_points", "score")


def standings(
    day: Day, live: LiveState, tiebreaks: Sequence[str], upto: int | None = None
) -> list[Line]:
    """Every seated player's line over rounds 1..``upto`` (default all), the head referee's
    changes of results included, in standing order."""
    last = upto if upto is not None else len(day.plan.rounds)
    duties = [lt.duty for (r, _), lt in sorted(played(day, live).items()) if r <= last]
    lines = players(duties)
    for c in day.changes:
        if c.action == "result_changed" and c.round <= last:
            name = str(c.detail["player"])
            lines.setdefault(name, Line(name)).score += int(c.detail["points"])
    for (r, _), seats in day.seating.items():
        for name in seats.values():
            if r <= last:
                lines.setdefault(name, Line(name))
    order = list(tiebreaks)
    return sorted(lines.values(), key=lambda line: line.key(order))


def ema_csv(day: Day, lines: list[Line]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(EMA_HEADER)
    for rank, line in enumerate(lines, 1):
        e = day.plan.entrant(line.name)
        w.writerow(
            [
                rank,
                line.name,
                e.ema_id if e else "",
                e.country if e else "",
                f"{line.rank_points:g}",
                line.score,
            ]
        )
    return out.getvalue()


def all_cards_pdf(day: Day, live: LiveState) -> bytes:
    cards = [c for _, lt in sorted(played(day, live).items()) for c in lt.duty.cards()]
    return cards_pdf(cards, f"{day.plan.name}: score cards")
