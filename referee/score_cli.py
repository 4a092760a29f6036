"""`mjref score`: score hands — JSON lines on stdin for machines, one hand for people."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from referee.cli_support import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, int_in
from referee.hands import Flag, HandError, Meld, WinBy, Wind, WinningHand
from referee.scoring import PROFILE_NAMES, ScoreResult, score
from referee.scoring.payments import settle
from referee.tiles import NotationError, format_tiles, parse_tile, parse_tiles, tile_name

EXAMPLES = """examples:
  mjref score "234m234m666p88s34s" --win 5s --discard --seat E
  mjref score "PPP234m5s" --meld CCC --meld FFF --win 5s --profile zj33
  mjref score "234m678m1p" --concealed-kong 5555p --meld 9999s --win 1p --self --flag win_on_kong
  mjref score --profile mcr --json < hands.jsonl      (one case per line, testdata schema)

exit codes: 0 every hand scored, 1 some line could not be scored (its JSON line says why),
2 a usage error or no hand case on stdin
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a winning hand (WMC, Zung Jung, MCR)",
        description="Score winning hands. With TILES: one hand given on the command line. "
        "Without TILES and with --json: hand cases as JSON lines on stdin "
        "(the schema of shared/testdata), one JSON line out per case.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "tiles",
        nargs="?",
        help="concealed tiles, e.g. 234m234m666p88s34s (no --win: the last is the winning tile)",
    )
    parser.add_argument("--profile", choices=PROFILE_NAMES, default="wmc")
    parser.add_argument("--json", action="store_true", help="JSON output")
    parser.add_argument("--win", metavar="TILE", help="the winning tile, e.g. 5s")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--discard", action="store_true", help="won on a discard (default)")
    how.add_argument("--self", action="store_true", help="self-drawn win")
    parser.add_argument("--seat", default="E", help="seat wind E S W N (default E)")
    parser.add_argument("--prevalent", default="E", help="prevalent wind, MCR only (default E)")
    parser.add_argument(
        "--meld",
        action="append",
        default=[],
        metavar="TILES",
        help="an exposed set: 123p (chow), CCC (pung), 9999s (kong); repeat per set",
    )
    parser.add_argument(
        "--concealed-kong", action="append", default=[], metavar="TILES", help="e.g. 5555p"
    )
    parser.add_argument(
        "--flag",
        action="append",
        default=[],
        choices=[f.value for f in Flag],
        help="situational flag; repeat per flag",
    )
    parser.add_argument(
        "--flowers", type=int_in(0, 8), default=0, help="number of flowers, 0-8 (MCR)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.tiles is None:
        if not args.json:
            print("mjref score: give TILES, or --json with hand cases on stdin", file=sys.stderr)
            return EXIT_USAGE
        return score_stream(sys.stdin.buffer, sys.stdout, args.profile)
    try:
        hand = hand_from_args(args)
    except (HandError, NotationError) as exc:
        print(f"mjref score: {exc}", file=sys.stderr)
        return EXIT_USAGE
    result = score(hand, args.profile)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        print(render(hand, result))
    return EXIT_OK


def score_stream(source: Iterable[bytes], sink: TextIO, profile: str) -> int:
    """One JSON line out per case in; a bad case gets an error line and the rest go on.
    0 when every case was scored, 1 when some could not be, 2 when there was no case at all."""
    cases = failed = 0
    for number, line in enumerate(source, start=1):
        if not line.strip():
            continue
        out = score_case_line(line, number, profile)
        cases += 1
        failed += "error" in out
        sink.write(json.dumps(out, ensure_ascii=False) + "\n")
        sink.flush()
    if not cases:
        print("mjref score: no hand case on stdin (expected JSON lines)", file=sys.stderr)
        return EXIT_USAGE
    if failed:
        print(f"mjref score: {failed} of {cases} case(s) could not be scored", file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_OK


def score_case_line(raw: bytes, number: int, profile: str) -> dict[str, Any]:
    case_id: Any = f"line {number}"
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return {"id": case_id, "error": f"line {number} is not UTF-8 text (byte {exc.start})"}
    try:
        case = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"id": case_id, "error": f"line {number} is not valid JSON: {exc.msg}"}
    except RecursionError:
        return {"id": case_id, "error": f"line {number}: JSON nested too deep for a hand case"}
    if not isinstance(case, dict):
        return {"id": case_id, "error": f"line {number}: expected a JSON object (a hand case)"}
    case_id = case.get("id", case_id)
    try:
        hand = WinningHand.from_case(case)
        result = score(hand, profile)
    except HandError as exc:
        return {"id": case_id, "error": str(exc)}
    return {"id": case_id, **result.to_json()}


def hand_from_args(args: argparse.Namespace) -> WinningHand:
    concealed = parse_tiles(args.tiles)
    if args.win is not None:
        win = parse_tile(args.win)
    elif concealed:
        win = concealed.pop()
    else:
        raise HandError("no tiles given")
    melds = [Meld.parse(text) for text in args.meld]
    melds += [Meld.parse(text, concealed=True) for text in args.concealed_kong]
    return WinningHand(
        concealed=tuple(concealed),
        win_tile=win,
        win_by=WinBy.SELF if args.self else WinBy.DISCARD,
        melds=tuple(melds),
        seat=Wind.parse(args.seat),
        prevalent=Wind.parse(args.prevalent),
        flowers=args.flowers,
        flags=frozenset(Flag(f) for f in args.flag),
    )


def render(hand: WinningHand, result: ScoreResult) -> str:
    """The breakdown a referee reads out: tiles, arrangement, patterns, total, payments."""
    how = "self-drawn" if hand.self_drawn else "on a discard"
    melds = "  ".join(f"[{m}]" for m in hand.melds)
    lines = [
        f"Hand: {format_tiles(hand.concealed)} {melds}  + {tile_name(hand.win_tile)} ({how}), "
        f"seat {hand.seat.name}"
        + (f", flags {', '.join(sorted(hand.flags))}" if hand.flags else ""),
        f"Profile: {result.profile}",
    ]
    if result.arrangement:
        lines.append(f"Counted as: {result.arrangement}")
    width = max((len(p.name) for p in result.patterns), default=0)
    for p in result.patterns:
        times = f" × {p.count}" if p.count > 1 else ""
        lines.append(f"  {p.id:<6} {p.name:<{width}}  {p.name_zh}  {p.points}{times}")
    lines.extend(f"  note: {note}" for note in result.notes)
    if result.limit:
        lines.append(f"  {result.limit}")
    if not result.valid:
        lines.append(f"NOT A WINNING HAND: {result.reason}")
        return "\n".join(lines)
    unit = "fan" if result.profile == "mcr" else "points"
    lines.append(f"Total: {result.total} {unit}")
    lines.append("Payments: " + _payment_line(hand, result))
    return "\n".join(lines)


def _payment_line(hand: WinningHand, result: ScoreResult) -> str:
    """What each seat pays, from the same settle() the game uses (any other seat discarding)."""
    if hand.self_drawn:
        paid = settle(result.profile, result.total, hand.seat, WinBy.SELF)
        return f"each of the three pays {-paid.deltas[_next(hand.seat)]} ({paid.rule})"
    discarder = _next(hand.seat)
    paid = settle(result.profile, result.total, hand.seat, WinBy.DISCARD, discarder)
    by_discarder, by_other = -paid.deltas[discarder], -paid.deltas[_next(discarder)]
    if by_discarder == by_other:
        return f"each of the three pays {by_other} ({paid.rule})"
    exemption = "" if result.profile == "mcr" else "; the discarder may invoke follow-suit"
    return (
        f"the discarder pays {by_discarder}, the other two {by_other} each ({paid.rule}{exemption})"
    )


def _next(seat: Wind) -> Wind:
    return Wind((seat + 1) % 4)
