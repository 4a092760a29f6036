"""`mjref demo-terminal`: one simulated table refereed in the terminal, without the pipelines or
the dashboard (`mjref demo`, venue/demo.py, is the main job).

A half session (two rounds) is simulated with irregularities injected, fed event by event through
the referee core with its clocks and penalty proposals; alerts print as they are raised, with the
table's clock. At the end: results, pending proposals, and the score card written as HTML beside
the event log, both under ``build/demo/``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from referee.cli_support import EXIT_USAGE, cannot_write, float_in, int_in
from referee.duties import RefereeTable
from referee.game.inject import IrregularSimulator

SEVERITY_MARK = {"info": "·", "warning": "!", "violation": "!!", "critical": "!!!"}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo-terminal",
        help="referee a simulated table in the terminal (no pipelines, no dashboard)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--hands", type=int_in(1, 1000), default=8, help="hands to play, 1-1000 (default 8)"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--rate", type=float_in(0.0, 1.0), default=0.02, help="irregularity rate (0–1)"
    )
    parser.add_argument("--out", type=Path, default=Path("build/demo"), help="output folder")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except OSError as exc:  # the output folder cannot be made or written
        path = exc.filename if exc.filename is not None else args.out
        print(f"mjref demo-terminal: {cannot_write(path, exc)}", file=sys.stderr)
        return EXIT_USAGE


def _run(args: argparse.Namespace) -> int:
    args.out.mkdir(parents=True, exist_ok=True)
    log_path, card_path = args.out / "game.jsonl", args.out / "card.html"
    sim = IrregularSimulator("wmc", args.seed, rate=args.rate)
    duty = RefereeTable()
    print(f"table T1 — WMC rules — {args.hands} hands, irregularities at rate {args.rate}")
    with log_path.open("w", encoding="utf-8") as log:
        for event in sim.run(args.hands):
            log.write(event.model_dump_json() + "\n")
            ended = len(duty.state.results)
            step = duty.apply(event)
            for alert in step.alerts:
                mark = SEVERITY_MARK.get(str(alert.severity), "")
                seat = alert.seat.name if alert.seat is not None else "-"
                print(f"  {event.ts:8.1f}s {mark:>3} [{alert.rule}] {seat} {alert.message}")
            for result in duty.state.results[ended:]:
                print(_result_line(result.to_dict()))
    pending = duty.ledger.pending()
    print(f"\nproposals waiting for a referee: {len(pending)}")
    for entry in pending[:10]:
        p = entry.proposal
        print(f"  {p.id}: {p.kind} {p.points} — {p.reason}")
    cards = duty.cards()
    card_path.write_text("\n".join(c.to_html() for c in cards), encoding="utf-8")
    print("totals: " + "  ".join(f"{p} {v:+d}" for p, v in duty.totals().items()))
    print(f"event log: {log_path}   score card: {card_path}")
    print(f"replay it: ./run replay {log_path}   cards: ./run sheet {log_path}")
    return 0


def _result_line(h: dict[str, Any]) -> str:
    if h["result"] != "win":
        return f"hand {h['hand'] + 1}: exhaustive draw (WMC-6.3)"
    how = "self-drawn" if h["win_by"] == "self" else f"on {h['discarder']}'s discard"
    pats = ", ".join(f"{p['id']} {p['name']}" for p in h["patterns"])
    return f"hand {h['hand'] + 1}: {h['winner_name']} wins {how}, {h['value']} points ({pats})"
