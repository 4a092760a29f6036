"""`mjref simulate` and `mjref replay`: make a legal game log, and replay any log to its result."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from referee.cli_support import EXIT_OK, EXIT_USAGE, cannot_write, float_in, int_in
from referee.duties import RefereeTable
from referee.events import EngineEvent, Event, LogLineError
from referee.game.alerts import RECORD_RULES
from referee.game.inject import IrregularSimulator
from referee.game.render import render
from referee.game.seen import as_seen, table_knows
from referee.game.sim import Simulator
from referee.game.table import Table
from referee.logread import SessionLog, read_log

IDENTIFIER = re.compile(r"[A-Za-z0-9_-]{1,32}")
VIEWS = ("full", "seen", "setup")
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
    sim.add_argument(
        "--view",
        choices=VIEWS,
        default="full",
        help="full: every tile (the truth); seen: as a real table's sensors see it (the wall, "
        "deal and draws face down, the winner's hand shown); setup: what a rig is told (players, "
        "seats, each hand's wall and dice: `mjref vision run --setup`)",
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
    if args.irregularities and args.profile != "wmc":
        # the injector knows the WMC rules only: elsewhere it loops or breaks the wall
        print(
            f"mjref simulate: --irregularities works with --profile wmc only, not {args.profile}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.irregularities:
        sim = IrregularSimulator(args.profile, args.seed, rate=args.irregularities)
        sim.retarget(args.table, args.session)
    else:
        sim = Simulator(args.profile, args.seed, table_id=args.table, session_id=args.session)
    if args.out is None:
        _write_events(sim, args.hands, sys.stdout, args.view)
        return EXIT_OK
    try:
        with args.out.open("w", encoding="utf-8") as out:
            written = _write_events(sim, args.hands, out, args.view)
    except OSError as exc:
        print(f"mjref simulate: {cannot_write(args.out, exc)}", file=sys.stderr)
        return EXIT_USAGE
    st = sim.table.state
    print(f"wrote {written} events, {st.hands_played} hands to {args.out}", file=sys.stderr)
    return EXIT_OK


def _write_events(sim: Simulator, hands: int, out: TextIO, view: str = "full") -> int:
    events: Iterable[Event] = sim.run(hands)
    if view != "full":
        events = (as_seen if view == "seen" else table_knows)(list(events))
    n = 0
    for ev in events:
        out.write(ev.model_dump_json())
        out.write("\n")
        n += 1
    return n


@dataclass(slots=True)
class Replayed:
    """A log replayed: each (table, session) it holds with its referee table, in the order the
    log first names them, and the lines that could not be read."""

    sessions: list[tuple[SessionLog, RefereeTable]]
    errors: list[LogLineError]

    @property
    def duties(self) -> list[RefereeTable]:
        return [duty for _log, duty in self.sessions]

    def complete(self) -> bool:
        """True when the whole record was read and applied: no malformed line, no conflict, no
        refused or missing event, no hand left without a result (README, exit codes)."""
        if self.errors:
            return False
        for log, duty in self.sessions:
            if any(i.serious for i in log.issues):
                return False
            if any(a.rejected or a.rule in RECORD_RULES for a in duty.state.alerts):
                return False
        return True


def replay_lines(
    lines: Iterable[bytes | str], outputs: list[EngineEvent] | None = None
) -> Replayed:
    """Replay JSONL lines into the engine plus clocks and penalty proposals, every session on
    its own and in seq order (referee.logread); malformed lines are collected with their line
    numbers. The engine's outputs (EVENTS.md) are appended to ``outputs`` when it is given."""
    read = read_log(lines)
    sessions: list[tuple[SessionLog, RefereeTable]] = []
    for log in read.sessions:
        duty = RefereeTable(log.table_id, log.session_id)
        steps = [duty.apply(ev) for ev in log.events]
        steps.append(duty.end_of_log())
        if outputs is not None:
            for step in steps:
                outputs.extend(step.outputs())
        sessions.append((log, duty))
    return Replayed(sessions, read.errors)


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


def replay_file(path: Path, outputs: list[EngineEvent] | None = None) -> Replayed | int:
    """Replay a log file, reporting what reading found on stderr; an exit code when nothing
    could be replayed (2: unreadable file, 1: no valid event)."""
    try:
        with path.open("rb") as fh:
            replayed = replay_lines(fh, outputs)
    except OSError as exc:
        print(f"cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    for err in replayed.errors:
        print(f"{path}:{err}", file=sys.stderr)
    for log, _duty in replayed.sessions:
        for issue in log.issues:
            print(f"{path}:{issue}", file=sys.stderr)
    if not replayed.sessions:
        print(f"{path}: no valid events in the log", file=sys.stderr)
        return 1
    if len(replayed.sessions) > 1:
        names = ", ".join(f"{log.table_id}/{log.session_id}" for log, _ in replayed.sessions)
        print(
            f"{path}: {len(replayed.sessions)} sessions, each replayed on its own: {names}",
            file=sys.stderr,
        )
    return replayed


def run_replay(args: argparse.Namespace) -> int:
    outputs: list[EngineEvent] | None = [] if args.outputs else None
    replayed = replay_file(args.log, outputs)
    if isinstance(replayed, int):
        return replayed
    code = 0 if replayed.complete() else 1
    if outputs is not None:
        for out in outputs:
            print(out.to_json())
        return code
    malformed = [{"line": e.line, "error": str(e)} for e in replayed.errors]
    found = []
    for log, duty in replayed.sessions:
        data = summary(duty.table)
        data["log_issues"] = [
            {"line": i.line, "seq": i.seq, "rule": i.rule, "message": i.message} for i in log.issues
        ]
        found.append(data)
    if args.json:
        doc: dict[str, Any] = found[0] if len(found) == 1 else {"sessions": found}
        doc["malformed_lines"] = malformed
        json.dump(doc, sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        for data, duty in zip(found, replayed.duties, strict=True):
            _print_text(data)
            if args.render:
                print(render(duty.state))
    return code


def _print_text(data: dict[str, Any]) -> None:
    print(
        f"table {data['table_id']} session {data['session_id']} [{data['profile']}] "
        f"— {data['hands_played']} hands"
    )
    for name, score in data["scores"].items():
        print(f"  {name:<10} {score:+6d}")
    for h in data["hands"]:
        if h["result"] == "unfinished":
            print(
                f"hand {h['hand'] + 1} (dealer {h['dealer']}): no result in the record, "
                f"marked for a referee ({', '.join(h['marks'])})"
            )
            continue
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
        doubt = (
            f" (record damaged at {a['damaged']}: no penalty proposed)" if "damaged" in a else ""
        )
        print(
            f"  [{a['rule']}] {a['severity']} {a['seat'] or ''} @{a['seq']}: {a['message']}{doubt}"
        )


def run_sheet(args: argparse.Namespace) -> int:
    replayed = replay_file(args.log)
    if isinstance(replayed, int):
        return replayed
    duties = replayed.duties
    cards = [card for duty in duties for card in duty.cards()]
    if args.html:
        try:
            args.html.write_text("\n".join(c.to_html() for c in cards), encoding="utf-8")
        except OSError as exc:
            print(f"mjref sheet: {cannot_write(args.html, exc)}", file=sys.stderr)
            return EXIT_USAGE
        print(f"wrote {len(cards)} card(s) to {args.html}", file=sys.stderr)
    sheets = [_sheet(duty) for duty in duties]
    if args.json:
        sheet = sheets[0] if len(sheets) == 1 else {"sessions": sheets}
        json.dump(sheet, sys.stdout, ensure_ascii=False, indent=1)
        print()
    elif not args.html:
        for duty in duties:
            st = duty.state
            if len(duties) > 1:
                print(f"table {st.table_id} session {st.session_id}")
            for card in duty.cards():
                totals = "  ".join(f"{p} {v:+d}" for p, v in card.totals.items())
                print(f"card {card.half}: {totals}")
                print(f"  signed by {', '.join(card.signatures) or 'nobody yet'}")
            for e in duty.ledger.entries.values():
                p = e.proposal
                print(f"  [{p.rule}] {p.id} {p.kind} {e.points} — {e.status}")
            print("totals: " + "  ".join(f"{p} {v:+d}" for p, v in duty.totals().items()))
    return 0 if replayed.complete() else 1


def _sheet(duty: RefereeTable) -> dict[str, Any]:
    st = duty.state
    return {
        "table_id": st.table_id,
        "session_id": st.session_id,
        "cards": [c.to_json() for c in duty.cards()],
        "penalties": [e.to_json() for e in duty.ledger.entries.values()],
        "totals": duty.totals(),
    }
