"""Standings per player and team, live from the replayed sessions."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel

from dashboard.auth import EVERYONE
from dashboard.deps import Actor, need
from dashboard.services import Services, services
from dashboard.standings import Line, standings

router = APIRouter(prefix="/api/standings", tags=["standings"])


class LineResponse(BaseModel):
    place: int
    name: str
    rank_points: float
    score: int
    wins: int
    best_hand: int
    sessions: int
    members: list[str] = []


class StandingsResponse(BaseModel):
    tiebreaks: list[str]
    players: list[LineResponse]
    teams: list[LineResponse]


def _lines(lines: list[Line]) -> list[LineResponse]:
    return [LineResponse(place=i + 1, **line.to_json()) for i, line in enumerate(lines)]  # type: ignore[arg-type]


def compute(svc: Services) -> StandingsResponse:
    people, teams = standings(
        (lt.duty for lt in svc.live.sessions.values()), svc.settings.tiebreaks, svc.settings.teams
    )
    return StandingsResponse(
        tiebreaks=list(svc.settings.tiebreaks), players=_lines(people), teams=_lines(teams)
    )


@router.get("", response_model=StandingsResponse)
def get_standings(request: Request, _: Actor = Depends(need(EVERYONE))) -> StandingsResponse:
    return compute(services(request))
