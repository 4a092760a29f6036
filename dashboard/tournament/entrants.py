"""The players' list (PLAYERS.csv): header ``name,ema_id,country,team``, and optionally
``substitute`` (yes for a player who sits only in place of another) and ``table`` (a fixed table
for a player who needs one). Every problem is named with its line."""

from __future__ import annotations

import csv
import io
from collections import Counter

from dashboard.seating import SEATS_A_TABLE, Player
from dashboard.tournament.model import Entrant, TournamentError

HEADER = ("name", "ema_id", "country", "team")
OPTIONAL = ("substitute", "table")
YES = {"yes", "y", "true", "1", "x"}


def read_entrants(text: str) -> tuple[list[Entrant], dict[str, int]]:
    """The entrants, and the fixed tables asked for (name → 1-based table)."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    header = [h.strip().lower() for h in next(reader, [])]
    if tuple(header[:4]) != HEADER or set(header[4:]) - set(OPTIONAL):
        raise TournamentError(
            [
                f"PLAYERS.csv header is {','.join(header) or 'missing'}; expected "
                f"{','.join(HEADER)} (then, if wanted, {' and '.join(OPTIONAL)})"
            ]
        )
    out: list[Entrant] = []
    fixed: dict[str, int] = {}
    problems: list[str] = []
    for line, row in enumerate(reader, 2):
        if not any(cell.strip() for cell in row):
            continue
        cells = dict(zip(header, (c.strip() for c in row), strict=False))
        name = cells.get("name", "")
        if not name or len(name) > 64:
            problems.append(f"line {line}: a player's name needs 1-64 characters")
            continue
        table = cells.get("table", "")
        if table and not table.isdigit():
            problems.append(f"line {line}: table {table!r} must be a table number")
        elif table:
            fixed[name] = int(table)
        out.append(
            Entrant(
                name,
                cells.get("ema_id", ""),
                cells.get("country", ""),
                cells.get("team", ""),
                cells.get("substitute", "").lower() in YES,
            )
        )
    problems += _duplicates(out)
    seated = [e for e in out if not e.substitute]
    if len(seated) % SEATS_A_TABLE or not seated:
        problems.append(
            f"{len(seated)} players to seat (substitutes apart): tables of four need a multiple "
            "of 4; mark the others substitute=yes"
        )
    if problems:
        raise TournamentError(problems)
    return out, fixed


def _duplicates(entrants: list[Entrant]) -> list[str]:
    problems = []
    for what, values in (
        ("name", [e.name for e in entrants]),
        ("EMA number", [e.ema_id for e in entrants if e.ema_id]),
    ):
        twice = sorted(v for v, n in Counter(values).items() if n > 1)
        if twice:
            problems.append(f"{what} listed twice: {', '.join(twice)}")
    return problems


def seating_players(entrants: list[Entrant], fixed: dict[str, int]) -> list[Player]:
    """The players the seating search places (substitutes sit only in place of another)."""
    return [Player(e.name, e.team or None, fixed.get(e.name)) for e in entrants if not e.substitute]
