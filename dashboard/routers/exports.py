"""Exports an organiser pastes into a federation's sheet: score cards (CSV, PDF), the penalty
log (CSV), game records (our JSONL log), standings (CSV)."""

from __future__ import annotations

import csv
import io

from fastapi import APIRouter, Depends, HTTPException, Request, Response

from dashboard import store
from dashboard.auth import EVERYONE
from dashboard.deps import Actor, need
from dashboard.pdf import card_pdf
from dashboard.routers.sheets import all_cards, find_card
from dashboard.routers.standings import compute
from dashboard.services import services

router = APIRouter(prefix="/export", tags=["exports"])


def _csv(rows: list[list[object]], name: str) -> Response:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.get("/sheets.csv", response_class=Response)
def sheets_csv(request: Request, _: Actor = Depends(need(EVERYONE))) -> Response:
    """One line per player and hand: table, session, half, hand, player, amount, penalty,
    running total."""
    rows: list[list[object]] = [
        ["table", "session", "half", "hand", "player", "amount", "penalty", "total", "signed"]
    ]
    for card in all_cards(services(request).live):
        for r in card.rows:
            for p in card.players:
                rows.append(
                    [
                        card.table_id,
                        card.session_id,
                        card.half,
                        r.number,
                        p,
                        r.payments.get(p, 0),
                        r.penalties.get(p, 0),
                        r.totals.get(p, 0),
                        p in card.signatures,
                    ]
                )
    return _csv(rows, "score-sheets.csv")


@router.get(
    "/sheets/{table_id}/{session_id}/{half}.pdf",
    response_class=Response,
    responses={404: {"description": "no such card"}},
)
def sheet_pdf(
    table_id: str, session_id: str, half: int, request: Request, _: Actor = Depends(need(EVERYONE))
) -> Response:
    card = find_card(services(request).live, table_id, session_id, half)
    return Response(
        card_pdf(card),
        media_type="application/pdf",
        headers={
            "Content-Disposition": f'attachment; filename="card-{table_id}-{session_id}-{half}.pdf"'
        },
    )


@router.get("/penalties.csv", response_class=Response)
def penalties_csv(request: Request, _: Actor = Depends(need(EVERYONE))) -> Response:
    rows: list[list[object]] = [
        [
            "table",
            "session",
            "proposal",
            "rule",
            "seat",
            "player",
            "hand",
            "kind",
            "proposed_points",
            "points",
            "status",
            "decided_by",
            "reason",
        ]
    ]
    for (tid, sid), lt in sorted(services(request).live.sessions.items()):
        for e in lt.duty.ledger.entries.values():
            p = e.proposal
            last = e.decisions[-1] if e.decisions else None
            player = lt.player(p.hand, p.seat.name)
            rows.append(
                [
                    tid,
                    sid,
                    p.id,
                    p.rule,
                    p.seat.name,
                    player,
                    p.hand + 1,
                    str(p.kind),
                    p.points,
                    e.points,
                    str(e.status),
                    last.referee if last else "",
                    last.reason if last else "",
                ]
            )
    return _csv(rows, "penalties.csv")


@router.get(
    "/records/{table_id}/{session_id}.jsonl",
    response_class=Response,
    responses={404: {"description": "no such session"}},
)
def record(
    table_id: str, session_id: str, request: Request, _: Actor = Depends(need(EVERYONE))
) -> Response:
    lines = store.events_of(services(request).factory, table_id, session_id)
    if not lines:
        raise HTTPException(404, f"no events stored for table {table_id}, session {session_id}")
    return Response(
        "\n".join(lines) + "\n",
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{table_id}-{session_id}.jsonl"'},
    )


@router.get("/standings.csv", response_class=Response)
def standings_csv(request: Request, _: Actor = Depends(need(EVERYONE))) -> Response:
    s = compute(services(request))
    rows: list[list[object]] = [
        ["kind", "place", "name", "rank_points", "score", "wins", "best_hand", "sessions"]
    ]
    for kind, lines in (("player", s.players), ("team", s.teams)):
        for x in lines:
            rows.append(
                [kind, x.place, x.name, x.rank_points, x.score, x.wins, x.best_hand, x.sessions]
            )
    return _csv(rows, "standings.csv")
