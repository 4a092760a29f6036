"""Evidence clips of a table: ``GET /api/tables/{table_id}/clips/{kind}`` — the dashboard's kept
copy (an alert's clips are kept as soon as its rig has them), else fetched from the table's rig;
when neither has it, the status and ``detail`` say why (the page shows "evidence not available"
with it)."""

from __future__ import annotations

import re
from typing import Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response

from dashboard.auth import EVERYONE
from dashboard.clips import ClipUnavailable, get_clip
from dashboard.deps import Actor, need
from dashboard.services import services
from referee.evidence import ClipRef

router = APIRouter(prefix="/api/tables", tags=["clips"])
MAX_CLIP_S = 600.0
_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


@router.get(
    "/{table_id}/clips/{kind}",
    response_class=Response,
    responses={
        200: {"content": {"audio/flac": {}, "video/mp4": {}, "image/jpeg": {}}},
        400: {"description": "a bad range"},
        404: {"description": "neither the dashboard nor the rig keeps it"},
        502: {"description": "the rig answered wrongly, and the dashboard keeps no copy"},
        503: {"description": "the rig is offline or serves no recordings, and no copy is kept"},
        504: {"description": "the rig did not answer in time, and no copy is kept"},
    },
)
async def clip(
    table_id: str,
    kind: Literal["audio", "video", "still"],
    request: Request,
    session: str = Query(..., min_length=1, max_length=64),
    start: float | None = Query(None, ge=0, le=1e7),
    end: float | None = Query(None, ge=0, le=1e7),
    t: float | None = Query(None, ge=0, le=1e7),
    _: Actor = Depends(need(EVERYONE)),
) -> Response:
    """A clip of the table's session (``start``/``end`` seconds of the session for audio and
    video, ``t`` for a still), as the rig recorded it."""
    if not _ID.match(table_id) or not _ID.match(session):
        raise HTTPException(400, "table and session ids are letters, digits and _ . - only")
    if kind == "still":
        if t is None:
            raise HTTPException(400, "a still needs t (seconds of the session)")
        ref = ClipRef("still", round(t, 2), round(t, 2))
    else:
        if start is None or end is None:
            raise HTTPException(400, f"a {kind} clip needs start and end (seconds)")
        if not end > start or end - start > MAX_CLIP_S:
            raise HTTPException(
                400, f"start={start} end={end}: expected end after start, {MAX_CLIP_S:g} s at most"
            )
        ref = ClipRef(kind, round(start, 2), round(end, 2))
    try:
        got = await get_clip(services(request), table_id, session, ref)
    except ClipUnavailable as exc:
        raise HTTPException(exc.status, exc.detail) from None
    return Response(
        got.data,
        media_type=got.media_type,
        headers={
            "X-Clip-Range": f"{got.start:.2f}-{got.end:.2f}",
            "Cache-Control": "private, max-age=3600",
        },
    )
