"""The tournament's table sessions in the live state: which live session is which round's table,
and the corrections of the day applied to them (re-derived, never edited)."""

from __future__ import annotations

from dashboard.live import Fix, LiveState, LiveTable
from dashboard.tournament.model import SEATS, Day
from referee.scoresheet import Correction


def fixes(day: Day) -> dict[tuple[str, str], Fix]:
    """Per (rig, session): the players the corrections seat there, and the hands corrected."""
    out: dict[tuple[str, str], Fix] = {}
    for (r, t), seats in day.seating.items():
        players = tuple(seats[s] for s in SEATS) if (r, t) in day.touched else None
        corrections = tuple(
            Correction(
                int(c.detail["hand"]),
                str(c.detail["player"]),
                int(c.detail["points"]),
                c.reason,
                c.actor,
            )
            for c in day.hand_corrections(r, t)
        )
        if players is not None or corrections:
            key = (day.plan.tables[t], day.plan.round(r).session_id)
            out[key] = Fix(players, corrections)  # type: ignore[arg-type]
    return out


def apply_fixes(live: LiveState, day: Day) -> list[tuple[str, str]]:
    """Bring the live state in line with the day's corrections; the sessions re-derived."""
    return [key for key, fix in fixes(day).items() if live.correct(*key, fix)]


def played(day: Day, live: LiveState) -> dict[tuple[int, int], LiveTable]:
    """(round, table) → the live session the table's rig logged for that round."""
    out = {}
    for (rig, session_id), lt in live.sessions.items():
        where = day.session(rig, session_id)
        if where is not None:
            out[where] = lt
    return out
