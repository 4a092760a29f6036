"""``mjref seating PLAYERS.csv --rounds N``: a tournament's seating for every round, as CSV
(round, table, E, S, W, N), made before the day; ``--check SEATING.csv`` checks a hand-made one.

PLAYERS.csv has a header with ``id`` and, optionally, ``team`` and ``table`` (a fixed table for a
player who needs one). What the seating achieves goes to standard error: pairs that meet more
than once, and how even the winds are.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path
from typing import Any

from dashboard.seating import Player, Seating, SeatingError, make_seating, read_seating
from referee.cli_support import EXIT_USAGE, int_in


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "seating",
        help="a tournament's seating for all rounds (or --check a hand-made one)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("players", type=Path, metavar="PLAYERS.csv")
    p.add_argument("--rounds", type=int_in(1, 100), help="rounds to seat (not with --check)")
    p.add_argument("--seed", type=int_in(0), default=0, help="the search's seed (default 0)")
    p.add_argument("--teams-apart", action="store_true", help="never seat team-mates together")
    p.add_argument("--check", type=Path, metavar="SEATING.csv", help="check this seating instead")
    p.add_argument("--out", type=Path, metavar="F", help="write the seating here (default stdout)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if (args.rounds is None) == (args.check is None):
        return _usage("give --rounds N to make a seating, or --check SEATING.csv, not both")
    try:
        players = read_players(args.players.read_text(encoding="utf-8"))
        if args.check is not None:
            seating = read_seating(args.check.read_text(encoding="utf-8"), players)
        else:
            seating = make_seating(players, args.rounds, args.seed, teams_apart=args.teams_apart)
    except OSError as exc:
        return _usage(f"{exc.filename}: {exc.strerror}")
    except SeatingError as exc:
        for problem in exc.problems:
            print(f"mjref seating: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if args.out is not None:
        args.out.write_text(seating.to_csv(), encoding="utf-8")
    else:
        sys.stdout.write(seating.to_csv())
    print(summary(seating, players, args.teams_apart), file=sys.stderr)
    return 0


def read_players(text: str) -> list[Player]:
    """Players from CSV (header ``id`` [, ``team``] [, ``table``])."""
    rows = list(csv.DictReader(io.StringIO(text)))
    fields = set(rows[0]) if rows else set()
    if "id" not in fields or fields - {"id", "team", "table"}:
        raise SeatingError(["the players' header must be id, with team and table if wanted"])
    out, problems = [], []
    for n, row in enumerate(rows, 2):
        pid = (row.get("id") or "").strip()
        team = (row.get("team") or "").strip() or None
        table = (row.get("table") or "").strip()
        if not pid:
            problems.append(f"line {n}: a player without an id")
        elif table and not table.isdigit():
            problems.append(f"line {n}: table {table!r} must be a table number")
        else:
            out.append(Player(pid, team, int(table) if table else None))
    if problems:
        raise SeatingError(problems)
    return out


def summary(seating: Seating, players: list[Player], teams_apart: bool) -> str:
    rounds, repeats = len(seating.rounds), seating.repeats()
    met = "no pair meets twice" if repeats == 0 else f"{repeats} second meetings"
    line = (
        f"{len(players)} players, {rounds} rounds: {met}; each player's winds within "
        f"{seating.wind_spread()} of each other"
    )
    if teams_apart:
        team = {p.id: p.team for p in players}

        def mates(pair: frozenset[str]) -> bool:
            a, b = pair
            return team[a] is not None and team[a] == team[b]

        together = sum(n for pair, n in seating.meetings().items() if mates(pair))
        line += f"; team-mates at one table {together} times"
    return line


def _usage(message: str) -> int:
    print(f"mjref seating: {message}", file=sys.stderr)
    return EXIT_USAGE
