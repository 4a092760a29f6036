"""Exports an organiser pastes into a federation's sheet: score cards (CSV, PDF), the penalty
log (CSV), game records (our JSONL log), standings (CSV), a whole session as a ZIP (its log and
the clips kept of its alerts)."""

from __future__ import annotations

import csv
import io
import json
import zipfile

from fastapi import APIRouter, Depends, HTTPException, Request, Response

from dashboard import store
from dashboard.auth import EVERYONE
from dashboard.clips import session_clips
from dashboard.deps import Actor, need
from dashboard.pdf import card_pdf
from dashboard.routers.sheets import all_cards, find_card
from dashboard.routers.standings import compute
from dashboard.services import services
from referee.scoresheet import NO_RESULT

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
    running total, signed, and the hand's result (``no result (to settle)`` with no amount, for
    a hand without one that no referee has settled; ``void``; ``settled``)."""
    rows: list[list[object]] = [
        [
            "table",
            "session",
            "half",
            "hand",
            "player",
            "amount",
            "penalty",
            "total",
            "signed",
            "result",
        ]
    ]
    for card in all_cards(services(request).live):
        for r in card.rows:
            result = NO_RESULT if r.status == "no_result" else r.status.replace("_", " ")
            for p in card.players:
                rows.append(
                    [
                        card.table_id,
                        card.session_id,
                        card.half,
                        r.number,
                        p,
                        "" if r.status == "no_result" else r.payments.get(p, 0),
                        r.penalties.get(p, 0),
                        r.totals.get(p, 0),
                        p in card.signatures,
                        result,
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


EXTENSIONS = {"audio/flac": "flac", "video/mp4": "mp4", "image/jpeg": "jpg"}


@router.get(
    "/sessions/{table_id}/{session_id}.zip",
    response_class=Response,
    responses={404: {"description": "no such session"}},
)
def session_zip(
    table_id: str, session_id: str, request: Request, _: Actor = Depends(need(EVERYONE))
) -> Response:
    """``log.jsonl`` (the session's log as the rig wrote it), ``clips/`` (each clip kept of its
    alerts) and ``clips/index.json`` (which alert, kind and time range each file is)."""
    svc = services(request)
    lines = store.events_of(svc.factory, table_id, session_id)
    if not lines:
        raise HTTPException(404, f"no events stored for table {table_id}, session {session_id}")
    buf = io.BytesIO()
    index = []
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("log.jsonl", "\n".join(lines) + "\n")
        for clip in session_clips(svc.factory, table_id, session_id):
            name = f"clips/{clip.kind}-{clip.start:.2f}-{clip.end:.2f}-{clip.id}."
            name += EXTENSIONS.get(clip.media_type, "bin")
            z.writestr(name, clip.data, zipfile.ZIP_STORED)  # already compressed
            index.append(
                {
                    "file": name,
                    "alert": clip.alert_id,
                    "kind": clip.kind,
                    "start": clip.start,
                    "end": clip.end,
                    "covers": [clip.covers_start, clip.covers_end],
                }
            )
        z.writestr("clips/index.json", json.dumps(index, indent=1))
    return Response(
        buf.getvalue(),
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{table_id}-{session_id}.zip"'},
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
