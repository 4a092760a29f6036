"""A readable hand-by-hand record of a session: what a player or an appeals referee reads.

The log is replayed through the duties (engine + clocks + penalty ledger), so the record shows
what the engine concluded, not only what was logged: the seats of each hand, every action
(refused ones marked), each claim, the findings and proposed penalties with their rule IDs, the
referees' decisions, each hand's result with its patterns and payments, and the running totals.
Observations (camera, voice) are the evidence behind the actions and are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.duties import RefereeTable
from referee.events import Event
from referee.game.alerts import Alert
from referee.game.state import TableState
from referee.hands import Wind
from referee.scoresheet import NO_RESULT
from referee.tiles import format_tiles, tile_name

QUIET = frozenset({"observation"})  # evidence, not play: left out of the record
_VERBS = {
    "draw": "draws",
    "replacement_draw": "draws a replacement",
    "discard": "discards",
    "discard_corrected": "discarded (the record corrected)",
    "flower": "sets aside the flower",
    "chow": "chows",
    "pung": "pungs",
    "kong": "kongs",
    "win": "declares a win",
    "hand_revealed": "shows",
    "tiles_exposed": "exposes",
    "wall_flipped": "flips a wall tile",
}


def text_record(events: Sequence[Event]) -> str:
    """The record of one session (its events in seq order) as plain text lines."""
    if not events:
        return ""
    first = events[0]
    duty = RefereeTable(first.table_id, first.session_id)
    lines: list[str] = []
    for ev in events:
        hands_before = len(duty.state.results)
        line = "" if ev.type in QUIET else _describe(ev, duty.state)  # seats as they were
        step = duty.apply(ev)
        st = duty.state
        if ev.type == "session_started":
            lines.append(
                f"Table {st.table_id} · session {st.session_id} · profile {st.profile.name}"
            )
            lines.append("Players (venue E S W N): " + ", ".join(st.players))
        elif ev.type == "wall_built" and st.hand is not None:
            lines.append("")
            lines.append(f"== Hand {st.hand.number + 1} · prevalent {st.prevalent.name} ==")
            lines.append("Seats: " + "  ".join(f"{w.name} {st.player_at(w)}" for w in Wind))
        elif line:
            refused = next((a for a in step.alerts if a.rejected), None)
            mark = f"  [refused: {refused.rule}]" if refused is not None else ""
            lines.append(f"  #{ev.seq:<4} {ev.ts:8.1f}s  {line}{mark}")
        for alert in step.alerts:
            if not alert.rejected:
                lines.append("         ! " + _alert(alert, st))
        for d in step.derived:
            if d.type == "proposal":
                lines.append("         → proposed: " + _proposal(d.payload))
        for result in st.results[hands_before:]:
            lines += _result(result.to_dict())
            lines.append("  Totals: " + _totals(duty))
    lines.append("")
    lines.append(
        f"Final totals after {duty.state.hands_played} hand(s) (confirmed penalties and "
        "corrections included): " + _totals(duty)
    )
    return "\n".join(lines) + "\n"


def _totals(duty: RefereeTable) -> str:
    totals = duty.totals()
    return "  ".join(f"{p} {totals.get(p, 0):+d}" for p in duty.state.players)


def _who(st: TableState, seat: Any) -> str:
    return f"{seat.name} {st.player_at(seat)}" if isinstance(seat, Wind) else str(seat)


def _describe(ev: Event, st: TableState) -> str:
    """One action in words; '' for events that are not worth a line (clocks, setup)."""
    p = ev.payload
    seat = getattr(p, "seat", None)
    if ev.type in _VERBS and seat is not None:
        tile = getattr(p, "tile", None)
        tiles = getattr(p, "tiles", None)
        what = ""
        if isinstance(tile, int):
            what = " " + tile_name(tile)
        elif ev.type in ("draw", "replacement_draw"):
            what = " (face down: not seen)"
        if tiles:
            what = " " + format_tiles(tiles)
        if ev.type == "kong":
            what = f" ({p.kind}){what}"  # type: ignore[attr-defined]
        claimed = st.hand.last_discard if st.hand is not None else None
        if ev.type == "pung" and not tiles and claimed is not None:
            what = " " + format_tiles([claimed[1]] * 3)
        if ev.type in ("chow", "pung") and claimed is not None:
            what += f" (from {claimed[0].name})"
        return f"{_who(st, seat)} {_VERBS[ev.type]}{what}"
    if ev.type == "call":
        return f'{_who(st, seat)} calls "{p.call}"'  # type: ignore[attr-defined]
    if ev.type == "exhaustive_draw":
        return "exhaustive draw (no win on the riverbed tile)"
    if ev.type == "dice_rolled":
        return f"{_who(st, seat)} rolls {p.dice}"  # type: ignore[attr-defined]
    if ev.type == "deal":
        return "tiles dealt" if p.hands else "tiles dealt face down (not seen)"  # type: ignore[attr-defined]
    if ev.type in ("penalty_decision", "penalty_proposed", "referee_decision", "hand_ruled"):
        data = p.model_dump(mode="json")
        return f"referee: {ev.type} " + ", ".join(f"{k}={v}" for k, v in data.items() if v)
    if ev.type == "dead_hand":
        return f"{_who(st, seat)} ruled a dead hand ({p.reason})"  # type: ignore[attr-defined]
    return ""


def _alert(a: Alert, st: TableState) -> str:
    who = f" {_who(st, a.seat)}" if a.seat is not None else ""
    return f"{a.rule} {a.severity}{who}: {a.message}"


def _proposal(p: dict[str, Any]) -> str:
    pts = f", {p['points']} points" if p.get("points") else ""
    return f"{p['rule']} {p['kind']} on {p['seat']}{pts} ({p['id']})"


def _result(r: dict[str, Any]) -> list[str]:
    shown = NO_RESULT if r["result"] == "unfinished" else r["result"].replace("_", " ")
    head = f"  Result of hand {r['hand'] + 1}: {shown}"
    if r.get("marks"):
        head += " (marked for a referee: " + ", ".join(r["marks"]) + ")"
    out = [head]
    if r["result"] == "win":
        how = "self-drawn" if r.get("discarder") is None else f"on {r['discarder']}'s discard"
        out.append(
            f"    {r['winner']} {r['winner_name']} wins on {r.get('win_tile')} ({how}), "
            f"{r['value']} points [{r.get('rule', '')}]".replace(" []", "")
        )
        for pat in r.get("patterns", []):
            count = f" ×{pat['count']}" if pat.get("count", 1) > 1 else ""
            out.append(
                f"      {pat['id']:<12} {pat['name']} {pat['name_zh']} {pat['points']}{count}"
            )
    if "by_player" in r:
        out.append("    Payments: " + "  ".join(f"{p} {d:+d}" for p, d in r["by_player"].items()))
    return out
