"""`mjref simulate` and `mjref replay`: make a legal game log, and replay any log to its result."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from referee.cli_support import EXIT_OK, EXIT_USAGE, cannot_write, float_in, int_in
from referee.duties import RefereeTable
from referee.events import EngineEvent, LogLineError, parse_line
from referee.game.inject import IrregularSimulator
from referee.game.render import render
from referee.game.sim import Simulator
from referee.game.table import Table

IDENTIFIER = re.compile(r"[A-Za-z0-9_-]{1,32}")
MAX_HANDS = 10_000  # about two minutes of simulation; more is a typo, not a game


def register(subparsers: Any) -> None:
    sim = subparsers.add_parser("simulate", help="simulate a legal game and write its event log")
    sim.add_argument("--profile", choices=("wmc", "zj33", "mcr"), default="wmc")
    sim.add_argument("--hands", type=int_in(0, MAX_HANDS), default=8, help="hands to play")
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--table", type=_identifier, default="T1")
    sim.add_argument("--session", type=_identifier, default="S1")
    sim.add_argument("--out", type=Path, help="write the JSONL log here (default: stdout)")
    sim.add_argument(
        "--irregularities",
        type=float_in(0.0, 1.0),
        default=0.0,
        metavar="RATE",
        help="inject irregularities at this rate per decision point, the ground truth as "
        "'injected:RULE:SEAT:KIND' in the event's evidence (WMC profile)",
    )
    sim.set_defaults(handler=run_simulate)

    sheet = subparsers.add_parser(
        "sheet", help="replay a log with the referee's duties and export its score cards (8.1)"
    )
    sheet.add_argument("log", type=Path)
    sheet.add_argument("--json", action="store_true", help="print the cards and penalties as JSON")
    sheet.add_argument("--html", type=Path, help="write the printable cards to this HTML file")
    sheet.set_defaults(handler=run_sheet)

    rep = subparsers.add_parser("replay", help="replay an event log (JSONL) to its final state")
    rep.add_argument("log", type=Path)
    rep.add_argument("--json", action="store_true", help="print the final state as JSON")
    rep.add_argument("--render", action="store_true", help="also draw the last table state")
    rep.add_argument(
        "--outputs",
        action="store_true",
        help="print the engine's outputs (derived events and alerts) as JSONL instead",
    )
    rep.set_defaults(handler=run_replay)


def _identifier(text: str) -> str:
    """A table or session id: what a referee can read and a log can hold."""
    if not IDENTIFIER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r}: expected 1-32 letters, digits, '-' or '_'")
    return text


def run_simulate(args: argparse.Namespace) -> int:
    sim: Simulator
    if args.irregularities:
        sim = IrregularSimulator(args.profile, args.seed, rate=args.irregularities)
        sim.retarget(args.table, args.session)
    else:
        sim = Simulator(args.profile, args.seed, table_id=args.table, session_id=args.session)
    if args.out is None:
        _write_events(sim, args.hands, sys.stdout)
        return EXIT_OK
    try:
        with args.out.open("w", encoding="utf-8") as out:
            _write_events(sim, args.hands, out)
    except OSError as exc:
        print(f"mjref simulate: {cannot_write(args.out, exc)}", file=sys.stderr)
        return EXIT_USAGE
    st = sim.table.state
    print(f"wrote {sim.seq} events, {st.hands_played} hands to {args.out}", file=sys.stderr)
    return EXIT_OK


def _write_events(sim: Simulator, hands: int, out: TextIO) -> None:
    for ev in sim.run(hands):
        out.write(ev.model_dump_json())
        out.write("\n")


def replay_lines(
    lines: Iterable[str], outputs: list[EngineEvent] | None = None
) -> tuple[RefereeTable | None, list[LogLineError]]:
    """Replay JSONL text into the engine plus clocks and penalty proposals; malformed lines are
    collected (with line numbers) and skipped. The engine's outputs (EVENTS.md) are appended to
    ``outputs`` when it is given."""
    duty: RefereeTable | None = None
    errors: list[LogLineError] = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            ev = parse_line(text, number)
        except LogLineError as exc:
            errors.append(exc)
            continue
        if duty is None:
            duty = RefereeTable(ev.table_id, ev.session_id)
        step = duty.apply(ev)
        if outputs is not None:
            outputs.extend(step.outputs())
    return duty, errors


def summary(table: Table) -> dict[str, Any]:
    st = table.state
    return {
        "table_id": st.table_id,
        "session_id": st.session_id,
        "profile": st.profile.name,
        "hands_played": st.hands_played,
        "scores": dict(st.scores),
        "hands": [r.to_dict() for r in st.results],
        "alerts": [a.to_json() for a in st.alerts],
    }


def replay_file(
    path: Path, outputs: list[EngineEvent] | None = None
) -> tuple[RefereeTable, list[LogLineError]] | int:
    """Replay a log file, reporting malformed lines on stderr; an exit code when nothing could
    be replayed (2: unreadable file, 1: no valid event)."""
    try:
        with path.open(encoding="utf-8") as fh:
            duty, errors = replay_lines(fh, outputs)
    except OSError as exc:
        print(f"cannot read {path}: {exc}", file=sys.stderr)
        return 2
    for err in errors:
        print(f"{path}:{err}", file=sys.stderr)
    if duty is None:
        print("no valid events in the log", file=sys.stderr)
        return 1
    return duty, errors


def run_replay(args: argparse.Namespace) -> int:
    outputs: list[EngineEvent] | None = [] if args.outputs else None
    replayed = replay_file(args.log, outputs)
    if isinstance(replayed, int):
        return replayed
    duty, errors = replayed
    table = duty.table
    if outputs is not None:
        for out in outputs:
            print(out.to_json())
        return 1 if errors else 0
    data = summary(table)
    data["malformed_lines"] = [{"line": e.line, "error": str(e)} for e in errors]
    if args.json:
        json.dump(data, sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        _print_text(data)
        if args.render:
            print(render(table.state))
    return 1 if errors else 0


def _print_text(data: dict[str, Any]) -> None:
    print(
        f"table {data['table_id']} session {data['session_id']} [{data['profile']}] "
        f"— {data['hands_played']} hands"
    )
    for name, score in data["scores"].items():
        print(f"  {name:<10} {score:+6d}")
    for h in data["hands"]:
        if h["result"] != "win":
            print(f"hand {h['hand'] + 1} (dealer {h['dealer']}): exhaustive draw (WMC-6.3)")
            continue
        how = "self-drawn" if h["win_by"] == "self" else f"on {h['discarder']}'s discard"
        pats = ", ".join(
            f"{p['id']} {p['name']} {p['points']}" + (f"×{p['count']}" if p["count"] > 1 else "")
            for p in h["patterns"]
        )
        pay = " ".join(f"{k} {v:+d}" for k, v in h["payments"].items())
        print(
            f"hand {h['hand'] + 1} (dealer {h['dealer']}): {h['winner_name']} ({h['winner']}) "
            f"wins {how} with {h['win_tile']}, {h['value']} — {pats}"
        )
        print(f"    payments {pay}; {h['rule']}")
    print(f"alerts: {len(data['alerts'])}")
    for a in data["alerts"]:
        print(f"  [{a['rule']}] {a['severity']} {a['seat'] or ''} @{a['seq']}: {a['message']}")


def run_sheet(args: argparse.Namespace) -> int:
    replayed = replay_file(args.log)
    if isinstance(replayed, int):
        return replayed
    duty, errors = replayed
    cards = duty.cards()
    if args.html:
        try:
            args.html.write_text("\n".join(c.to_html() for c in cards), encoding="utf-8")
        except OSError as exc:
            print(f"mjref sheet: {cannot_write(args.html, exc)}", file=sys.stderr)
            return EXIT_USAGE
        print(f"wrote {len(cards)} card(s) to {args.html}", file=sys.stderr)
    totals = duty.totals()
    data: dict[str, Any] = {
        "cards": [c.to_json() for c in cards],
        "penalties": [e.to_json() for e in duty.ledger.entries.values()],
        "totals": totals,
    }
    if args.json:
        json.dump(data, sys.stdout, ensure_ascii=False, indent=1)
        print()
    elif not args.html:
        for card in cards:
            print(f"card {card.half}: " + "  ".join(f"{p} {v:+d}" for p, v in card.totals.items()))
            print(f"  signed by {', '.join(card.signatures) or 'nobody yet'}")
        for e in duty.ledger.entries.values():
            p = e.proposal
            print(f"  [{p.rule}] {p.id} {p.kind} {e.points} — {e.status}")
        print("totals: " + "  ".join(f"{p} {v:+d}" for p, v in totals.items()))
    return 1 if errors else 0
