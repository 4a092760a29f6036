"""``mjref tournament create|seating|check|export``: the tournament beside the web pages, through
the same services and the same database (``--data DIR`` or ``--db URL``).

``create`` checks everything before it writes anything: the players' list (header
``name,ema_id,country,team``; a count to seat that is a multiple of four, substitutes apart; no
name or EMA number twice), the rules, the seating (made by the seeded search, or ``--seating``
a hand-made one). The players' PINs are written once to ``--pins-out`` (only their hashes are
kept).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from dashboard.live import LiveState
    from dashboard.tournament.model import Day

from referee.cli_support import EXIT_FINDINGS, EXIT_USAGE, int_in


def register(subparsers: Any) -> None:
    from dashboard.cli import _common

    p = subparsers.add_parser(
        "tournament",
        help="a tournament: create it, its seating, the check before the report, the exports",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="tournament_command", metavar="ACTION", required=True)
    c = sub.add_parser("create", help="a new tournament from PLAYERS.csv")
    _common(c)
    c.add_argument("--name", required=True)
    c.add_argument("--rules", required=True, choices=("wmc", "mcr"))
    c.add_argument("--players", required=True, type=Path, metavar="PLAYERS.csv")
    c.add_argument("--rounds", required=True, type=int_in(1, 30))
    c.add_argument("--seed", type=int_in(0), default=0, help="the seating search's seed")
    c.add_argument("--minutes", type=int_in(10, 600), default=120, help="a round's time limit")
    c.add_argument("--rigs", help="the rigs of tables 1, 2 … (comma-separated; default T1,T2 …)")
    c.add_argument("--seating", type=Path, metavar="SEATING.csv", help="a hand-made seating")
    c.add_argument("--teams-apart", action="store_true", help="never seat team-mates together")
    c.add_argument("--no-pins", action="store_true", help="players open their page by name")
    c.add_argument(
        "--pins-out",
        type=Path,
        metavar="F",
        help="the players' PINs (default: DATA/player-pins.csv)",
    )
    c.add_argument("--starts", default="", metavar="DATE")
    c.add_argument("--ends", default="", metavar="DATE")
    c.add_argument("--venue", default="")
    c.set_defaults(handler=create)
    s = sub.add_parser("seating", help="every round's seating (CSV, or --json)")
    _common(s)
    s.add_argument("--json", action="store_true")
    s.set_defaults(handler=seating)
    k = sub.add_parser("check", help="exit 0 when ready to report, else 1 and what is missing")
    _common(k)
    k.set_defaults(handler=check)
    e = sub.add_parser("export", help="the federation's results sheet")
    e.add_argument("format", choices=("ema",))
    _common(e)
    e.add_argument("--out", required=True, type=Path, metavar="FILE.csv")
    e.set_defaults(handler=export)


def _fail(message: str) -> int:
    print(f"mjref tournament: {message}", file=sys.stderr)
    return EXIT_USAGE


def create(args: argparse.Namespace) -> int:
    from dashboard.seating import SeatingError, make_seating, read_seating
    from dashboard.tournament.entrants import read_entrants, seating_players
    from dashboard.tournament.model import TournamentError
    from dashboard.tournament.store import NewTournament
    from dashboard.tournament.store import create as write

    try:
        entrants, fixed = read_entrants(args.players.read_text(encoding="utf-8"))
        players = seating_players(entrants, fixed)
        if args.seating is not None:
            plan = read_seating(args.seating.read_text(encoding="utf-8"), players)
            if len(plan.rounds) != args.rounds:
                raise TournamentError(
                    [f"{args.seating} seats {len(plan.rounds)} rounds, not --rounds {args.rounds}"]
                )
        else:
            plan = make_seating(players, args.rounds, args.seed, teams_apart=args.teams_apart)
    except OSError as exc:
        return _fail(f"{exc.filename}: {exc.strerror}")
    except (TournamentError, SeatingError) as exc:
        for problem in exc.problems:
            print(f"mjref tournament: {problem}", file=sys.stderr)
        return EXIT_USAGE
    rigs = tuple(r.strip() for r in args.rigs.split(",")) if args.rigs else ()
    new = NewTournament(
        args.name,
        args.rules,
        entrants,
        plan,
        args.minutes,
        rigs,
        args.seed,
        args.starts,
        args.ends,
        args.venue,
        not args.no_pins,
    )
    pins_out = args.pins_out or (args.data or Path("dashboard-data")) / "player-pins.csv"
    try:
        from dashboard.cli import _open

        _, factory = _open(args, migrate=True)  # a new database is made here
        pins = write(factory, new, time.time())
    except TournamentError as exc:
        return _fail(str(exc))
    except ValueError as exc:
        return _fail(str(exc))
    if pins:
        pins_out.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(pins_out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("name,pin\n" + "".join(f"{n},{p}\n" for n, p in pins.items()))
    seated = sum(not e.substitute for e in entrants)
    print(
        f"tournament {args.name!r}: {len(entrants)} players ({seated} seated), {args.rounds} "
        f"rounds of {seated // 4} tables, {plan.repeats()} repeated pairs"
        + (f"; PINs in {pins_out}" if pins else "")
    )
    return 0


def _day(args: argparse.Namespace) -> tuple[sessionmaker[Session], Day]:
    """The database's session factory and its tournament (LookupError: none there)."""
    from dashboard.cli import _open
    from dashboard.tournament.store import load

    _, factory = _open(args)
    day = load(factory)
    if day is None:
        raise LookupError("no tournament here: `mjref tournament create` first")
    return factory, day


def _day_and_live(args: argparse.Namespace) -> tuple[Day, LiveState]:
    """The tournament and the venue's sessions as the dashboard would show them (the stored
    events replayed as at its start, the day's corrections applied)."""
    from dashboard.ingest import replay
    from dashboard.live import LiveState
    from dashboard.tournament.sessions import apply_fixes

    factory, day = _day(args)
    live = LiveState()
    replay(factory, live)
    apply_fixes(live, day)
    return day, live


def _guarded(fn: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        from sqlalchemy.exc import SQLAlchemyError

        from dashboard.db.migrate import SchemaOutdated

        try:
            code: int = fn(args)
            return code
        except (LookupError, SchemaOutdated, ValueError) as exc:
            return _fail(str(exc))
        except SQLAlchemyError as exc:
            return _fail(f"cannot open the database: {str(exc).splitlines()[0]}")

    return run


@_guarded
def seating(args: argparse.Namespace) -> int:
    from dashboard.seating import Seating
    from dashboard.tournament.model import SEATS

    _, day = _day(args)
    rounds = [
        [tuple(s[w] for w in SEATS) for _, s in day.tables(r.number)] for r in day.plan.rounds
    ]
    repeats = Seating(tuple(tuple(r) for r in rounds)).repeats()  # type: ignore[arg-type]
    if args.json:
        out = {
            "rounds": [
                {
                    "round": r.number,
                    "tables": [
                        {"table": day.plan.tables[t], "seats": seats}
                        for t, seats in day.tables(r.number)
                    ],
                }
                for r in day.plan.rounds
            ],
            "repeated_pairs": repeats,
        }
        print(json.dumps(out, ensure_ascii=False))
    else:
        sys.stdout.write("round,table,E,S,W,N\n")
        for r in day.plan.rounds:
            for t, seats in day.tables(r.number):
                sys.stdout.write(
                    ",".join([str(r.number), str(t), *(seats[w] for w in SEATS)]) + "\n"
                )
    return 0


@_guarded
def check(args: argparse.Namespace) -> int:
    from dashboard.tournament.check import check as problems_of

    day, live = _day_and_live(args)
    problems = problems_of(day, live)
    for p in problems:
        print(f"{p.what}  ({p.link})")
    if problems:
        print(f"not ready to report: {len(problems)} problem(s)", file=sys.stderr)
        return EXIT_FINDINGS
    print(f"{day.plan.name}: ready to report")
    return 0


@_guarded
def export(args: argparse.Namespace) -> int:
    from dashboard.settings import TIEBREAKS
    from dashboard.tournament.reports import ema_csv, standings

    day, live = _day_and_live(args)
    text = ema_csv(day, standings(day, live, TIEBREAKS))
    args.out.write_text(text, encoding="utf-8")
    print(f"{len(text.splitlines()) - 1} players written to {args.out}")
    return 0
