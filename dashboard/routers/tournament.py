"""The tournament's API: the day (rounds, seating, tables), the round controls, the corrections,
the check and the reports. Every control and correction is one audit entry with who and why;
the tables hear of it through the bus."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response
from pydantic import BaseModel, Field

from dashboard.auth import DECIDE, EVERYONE, ORGANISE
from dashboard.deps import Actor, need
from dashboard.services import Services, services
from dashboard.tournament import store as tstore
from dashboard.tournament.check import check
from dashboard.tournament.model import Day, TournamentError
from dashboard.tournament.reports import all_cards_pdf, ema_csv, standings
from dashboard.tournament.rounds import clock_event, tell_tables
from dashboard.tournament.sessions import apply_fixes, played

router = APIRouter(tags=["tournament"])
NO_TOURNAMENT: dict[int | str, dict[str, Any]] = {
    404: {"description": "no tournament on this dashboard"}
}


def the_day(svc: Services) -> Day:
    day = tstore.load(svc.factory)
    if day is None:
        raise HTTPException(404, "no tournament here: `mjref tournament create` makes one")
    return day


def day_json(day: Day, svc: Services) -> dict[str, Any]:
    now = svc.clock()
    sessions = played(day, svc.live)
    rounds = []
    for rp in day.plan.rounds:
        rs = day.rounds[rp.number]
        tables = []
        for t, seats in day.tables(rp.number):
            rig = day.plan.tables[t]
            presence = svc.live.presence.get(rig)
            lt = sessions.get((rp.number, t))
            tables.append(
                {
                    "table": t,
                    "rig": rig,
                    "seats": seats,
                    "confirmed_by": rs.confirmed.get(t),
                    "rig_online": presence is not None and presence.state == "online",
                    "rig_session": presence.body.get("session_id") if presence else None,
                    "hands_played": lt.duty.state.hands_played if lt else 0,
                    "hands": rs.hands_for(t, svc.settings.hands_per_session),
                    "minutes": rs.minutes_for(t, rp.minutes),
                }
            )
        rounds.append(
            {
                "round": rp.number,
                "session_id": rp.session_id,
                "status": rs.status,
                "minutes": rp.minutes,
                "played_s": round(rs.played_s(now), 1),
                "tables": tables,
            }
        )
    return {
        "name": day.plan.name,
        "rules": day.plan.rules,
        "starts": day.plan.starts,
        "ends": day.plan.ends,
        "venue": day.plan.venue,
        "current": day.current.number if day.current else None,
        "next": day.next_round(),
        "players": [
            {
                "name": e.name,
                "ema_id": e.ema_id,
                "country": e.country,
                "team": e.team,
                "substitute": e.substitute,
            }
            for e in day.plan.entrants
        ],
        "rounds": rounds,
    }


@router.get("/api/tournament", responses=NO_TOURNAMENT)
def get_tournament(request: Request, _: Actor = Depends(need(EVERYONE))) -> dict[str, Any]:
    svc = services(request)
    return day_json(the_day(svc), svc)


class RoundControl(BaseModel):
    action: Literal["start", "pause", "resume", "extend", "end"]
    table: int | None = Field(None, ge=1, description="extend: one table (default: all)")
    minutes: int = Field(0, ge=0, le=600)
    hands: int = Field(0, ge=0, le=8)
    reason: str = Field("", max_length=500)


async def record(svc: Services, actor: Actor, day: Day, action: str, round_: int, **kw: Any) -> Day:
    try:
        after = tstore.record(
            svc.factory, day, svc.clock(), actor.name, action, round_, address=actor.address, **kw
        )
    except TournamentError as exc:
        raise HTTPException(409, str(exc)) from exc  # the day as it stands refuses it
    for rig, _ in apply_fixes(svc.live, after):
        svc.hub.changed(rig)
    return after


@router.post("/api/tournament/rounds/{round_}/controls", responses=NO_TOURNAMENT)
async def round_control(
    round_: int, body: RoundControl, request: Request, actor: Actor = Depends(need(ORGANISE))
) -> dict[str, Any]:
    """Start, pause, resume, extend (minutes or hands, all tables or one) or end a round. A
    started round tells each table its players; pause and resume stop every table's clock."""
    svc = services(request)
    day = the_day(svc)
    detail = {"minutes": body.minutes, "hands": body.hands} if body.action == "extend" else {}
    table = body.table if body.action == "extend" else None
    day = await record(
        svc,
        actor,
        day,
        _ACTIONS[body.action],
        round_,
        table=table,
        detail=detail,
        reason=body.reason,
    )
    tables = [t for t, _ in day.tables(round_)]
    missed: list[str] = []
    if body.action == "start":
        missed = await tell_tables(svc.bus, day, round_, tables)
    elif body.action in ("pause", "resume"):
        kind = "table_paused" if body.action == "pause" else "table_resumed"
        missed = await clock_event(svc.bus, day, round_, kind, tables)
    for rig in day.plan.tables.values():
        svc.hub.changed(rig)
    return {"round": round_, "status": day.rounds[round_].status, "unreachable": missed}


_ACTIONS = {
    "start": "round_started",
    "pause": "round_paused",
    "resume": "round_resumed",
    "extend": "round_extended",
    "end": "round_ended",
}


@router.post("/api/tournament/rounds/{round_}/tables/{table}/confirm", responses=NO_TOURNAMENT)
async def confirm_table(
    round_: int, table: int, request: Request, actor: Actor = Depends(need(DECIDE))
) -> dict[str, Any]:
    """The table's referee confirms the players sit as the seating says."""
    svc = services(request)
    day = await record(svc, actor, the_day(svc), "table_confirmed", round_, table=table)
    return {"round": round_, "table": table, "confirmed_by": day.rounds[round_].confirmed[table]}


class CorrectionBody(BaseModel):
    """A correction after the fact (never an edit): ``swap`` two players of a round (their
    seats, or their tables), ``replace`` a player from a round on (``through``: to that round;
    a withdrawal leaves it empty), ``hand``: a hand's amount for a player, ``result``: a
    player's result for the round (the head referee)."""

    kind: Literal["swap", "replace", "hand", "result"]
    round: int = Field(ge=1)
    table: int | None = Field(None, ge=1)
    a: str | None = Field(None, max_length=64)
    b: str | None = Field(None, max_length=64)
    out: str | None = Field(None, max_length=64)
    into: str | None = Field(None, max_length=64, description="replace: who sits instead")
    through: int | None = Field(None, ge=1)
    hand: int | None = Field(None, ge=0, description="hand: 0-based in the session")
    player: str | None = Field(None, max_length=64)
    points: int | None = Field(None, ge=-100_000, le=100_000)
    reason: str = Field(max_length=500)


@router.post("/api/tournament/corrections", responses=NO_TOURNAMENT)
async def correct(
    body: CorrectionBody, request: Request, actor: Actor = Depends(need(DECIDE))
) -> dict[str, Any]:
    svc = services(request)
    if body.kind != "hand" and actor.role not in ORGANISE:
        raise HTTPException(403, f"a {body.kind} correction is the head referee's")
    day = the_day(svc)
    action, detail = {
        "swap": ("players_swapped", {"a": body.a, "b": body.b}),
        "replace": ("player_replaced", {"out": body.out, "in": body.into, "through": body.through}),
        "hand": (
            "hand_corrected",
            {"hand": body.hand, "player": body.player, "points": body.points},
        ),
        "result": ("result_changed", {"player": body.player, "points": body.points}),
    }[body.kind]
    table = body.table if body.kind == "hand" else None
    if body.kind == "hand":
        _hand_of(svc, day, body)
    after = await record(
        svc, actor, day, action, body.round, table=table, detail=detail, reason=body.reason
    )
    return {"changes": len(after.changes), "action": action}


def _hand_of(svc: Services, day: Day, body: CorrectionBody) -> None:
    """A hand's correction names a hand the table has played, and one of its players."""
    lt = played(day, svc.live).get((body.round, body.table or 0))
    if lt is None:
        raise HTTPException(404, f"round {body.round} table {body.table} has logged no session")
    results = lt.duty.state.results
    if body.hand is None or body.hand >= len(results):
        raise HTTPException(422, f"hand {body.hand}: the session has hands 0 to {len(results) - 1}")
    if body.player not in results[body.hand].players:
        who = ", ".join(results[body.hand].players)
        raise HTTPException(422, f"{body.player!r} did not play hand {body.hand}; one of {who}")
    if not body.points:
        raise HTTPException(422, "a correction of 0 points changes nothing")


@router.get("/api/tournament/check", responses=NO_TOURNAMENT)
def get_check(request: Request, _: Actor = Depends(need(EVERYONE))) -> dict[str, Any]:
    svc = services(request)
    problems = check(the_day(svc), svc.live)
    return {"ready": not problems, "problems": [p.to_json() for p in problems]}


@router.get("/api/tournament/standings", responses=NO_TOURNAMENT)
def get_standings(
    request: Request,
    upto: int | None = Query(None, ge=1, description="after this round (default: all)"),
    _: Actor = Depends(need(EVERYONE)),
) -> dict[str, Any]:
    svc = services(request)
    return standings_json(svc, the_day(svc), upto)


def standings_json(svc: Services, day: Day, upto: int | None) -> dict[str, Any]:
    lines = standings(day, svc.live, svc.settings.tiebreaks, upto)
    return {
        "upto": upto or len(day.plan.rounds),
        "tiebreaks": list(svc.settings.tiebreaks),
        "players": [{"place": i, **line.to_json()} for i, line in enumerate(lines, 1)],
    }


@router.get("/export/tournament/ema.csv", response_class=Response, responses=NO_TOURNAMENT)
def export_ema(request: Request, _: Actor = Depends(need(EVERYONE))) -> Response:
    """The federation's results sheet: rank, name, EMA number, country, table points, score."""
    svc = services(request)
    day = the_day(svc)
    text = ema_csv(day, standings(day, svc.live, svc.settings.tiebreaks))
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="results-ema.csv"'},
    )


@router.get("/export/tournament/cards.pdf", response_class=Response, responses=NO_TOURNAMENT)
def export_cards(request: Request, _: Actor = Depends(need(EVERYONE))) -> Response:
    svc = services(request)
    return Response(
        all_cards_pdf(the_day(svc), svc.live),
        media_type="application/pdf",
        headers={"Content-Disposition": 'attachment; filename="score-cards.pdf"'},
    )
