"""Evidence clips: fetched from a table's rig on demand (as NVRs do), kept in the dashboard's
database once an alert is decided, so the record outlives the rig's ring.

The rig names its clip server in its retained status (``evidence_url``) and trusts only the
dashboard's token (``MJREF_DASH_EVIDENCE_TOKEN``). An alert's clips are what its evidence cites:
``audio:``/``video:``/``still:`` strings on the alert or on the events it cites by seq; when it
cites none, the video, audio and still around the alert's own time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from dashboard.db.models import StoredClip
from dashboard.evidence import alert_clips
from dashboard.live import AlertItem, LiveTable
from referee.evidence import ClipRef

if TYPE_CHECKING:
    from dashboard.services import Services

log = logging.getLogger(__name__)
EPS = 0.006  # times are kept to 2 decimals
MEDIA_TYPES = {"audio": "audio/flac", "video": "video/mp4", "still": "image/jpeg"}


class ClipUnavailable(Exception):
    """Why a clip cannot be had: the HTTP status to answer with and a reason."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


@dataclass(frozen=True, slots=True)
class Clip:
    data: bytes
    media_type: str
    start: float  # what it covers
    end: float


# ---- the dashboard's stored copies -----------------------------------------------------------


def stored(
    factory: sessionmaker[Session], table_id: str, session_id: str, ref: ClipRef
) -> Clip | None:
    """A kept copy covering ``ref`` (the first kept, when several do)."""
    with factory() as db:
        row = db.scalars(
            select(StoredClip)
            .where(
                StoredClip.table_id == table_id,
                StoredClip.session_id == session_id,
                StoredClip.kind == ref.kind,
                StoredClip.start <= ref.start + EPS,
                StoredClip.end >= ref.end - EPS,
            )
            .order_by(StoredClip.id)
            .limit(1)
        ).first()
        if row is None:
            return None
        return Clip(row.data, row.media_type, row.covers_start, row.covers_end)


def keep(
    factory: sessionmaker[Session],
    table_id: str,
    session_id: str,
    ref: ClipRef,
    clip: Clip,
    alert_id: str,
    now: float,
) -> None:
    with factory() as db:
        db.add(
            StoredClip(
                table_id=table_id,
                session_id=session_id,
                kind=ref.kind,
                start=ref.start,
                end=ref.end,
                covers_start=clip.start,
                covers_end=clip.end,
                media_type=clip.media_type,
                data=clip.data,
                alert_id=alert_id,
                fetched=now,
            )
        )
        db.commit()


def session_clips(
    factory: sessionmaker[Session], table_id: str, session_id: str
) -> list[StoredClip]:
    with factory() as db:
        q = (
            select(StoredClip)
            .where(StoredClip.table_id == table_id, StoredClip.session_id == session_id)
            .order_by(StoredClip.id)
        )
        return list(db.scalars(q))


# ---- fetching from the rig -------------------------------------------------------------------


def rig_url(presence_body: dict[str, Any] | None, state: str | None) -> str:
    """The rig's clip server, or ClipUnavailable(503) saying why there is none."""
    if presence_body is None:
        raise ClipUnavailable(503, "this table's rig has not been seen: no clip server known")
    if state != "online":
        raise ClipUnavailable(503, f"this table's rig is {state}: its recordings cannot be had")
    url = presence_body.get("evidence_url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ClipUnavailable(503, "this table's rig serves no recordings (evidence is off)")
    return url.rstrip("/")


def _get(url: str, token: str, timeout: float) -> tuple[bytes, str, str]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.read(), r.headers.get("Content-Type", ""), r.headers.get("X-Clip-Range", "")
    except urllib.error.HTTPError as exc:
        detail = _detail(exc.read())
        if exc.code == 404:
            raise ClipUnavailable(404, f"the rig: {detail}") from None
        if exc.code == 401:
            raise ClipUnavailable(
                502, "the rig refused the dashboard's evidence token (MJREF_DASH_EVIDENCE_TOKEN)"
            ) from None
        if exc.code == 400:
            raise ClipUnavailable(400, f"the rig: {detail}") from None
        raise ClipUnavailable(502, f"the rig answered {exc.code}: {detail}") from None
    except TimeoutError:
        raise ClipUnavailable(504, f"the rig did not answer within {timeout:g} s") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ClipUnavailable(503, f"the rig cannot be reached: {reason}") from None


def _detail(body: bytes) -> str:
    try:
        detail = json.loads(body).get("detail")
    except (ValueError, AttributeError):
        detail = None
    return str(detail) if detail else body[:200].decode("utf-8", "replace")


async def fetch(base: str, token: str, ref: ClipRef, session_id: str, timeout: float) -> Clip:
    """The clip from the rig's server (in a thread: the app's loop keeps serving)."""
    if not token:
        raise ClipUnavailable(503, "no evidence token is set (MJREF_DASH_EVIDENCE_TOKEN)")
    query: dict[str, str] = {"session": session_id}
    if ref.kind == "still":
        path, query["t"] = "/stills", f"{ref.start:.2f}"
    else:
        path = f"/clips/{ref.kind}"
        query |= {"start": f"{ref.start:.2f}", "end": f"{ref.end:.2f}"}
    url = f"{base}{path}?{urllib.parse.urlencode(query)}"
    data, media_type, covers = await asyncio.to_thread(_get, url, token, timeout)
    if media_type != MEDIA_TYPES[ref.kind]:
        raise ClipUnavailable(502, f"the rig sent {media_type or 'no type'} for a {ref.kind}")
    start, end = ref.start, ref.end
    if covers:
        a, _, b = covers.partition("-")
        with contextlib.suppress(ValueError):
            start, end = float(a), float(b)
    return Clip(data, media_type, start, end)


# ---- what the routers call ------------------------------------------------------------------


async def get_clip(svc: Services, table_id: str, session_id: str, ref: ClipRef) -> Clip:
    """The dashboard's kept copy, else the rig's (ClipUnavailable saying why not)."""
    kept = await asyncio.to_thread(stored, svc.factory, table_id, session_id, ref)
    if kept is not None:
        return kept
    presence = svc.live.presence.get(table_id)
    base = rig_url(
        None if presence is None else presence.body, None if presence is None else presence.state
    )
    s = svc.settings
    return await fetch(base, s.evidence_token, ref, session_id, s.clip_timeout)


def keep_in_background(svc: Services, decided: list[tuple[LiveTable, AlertItem]]) -> None:
    """Keep the decided alerts' clips after the decision is answered (a slow or absent rig
    never holds a referee up); the task is in ``svc.background`` until it is done."""

    async def run() -> None:
        for table, item in decided:
            await keep_alert_clips(svc, table, item)

    task = asyncio.create_task(run(), name="keep clips")
    svc.background.add(task)
    task.add_done_callback(svc.background.discard)


async def keep_alert_clips(svc: Services, table: LiveTable, item: AlertItem) -> dict[str, str]:
    """Fetch and keep the clips an alert cites (at its decision); what became of each. A clip
    the rig cannot give is noted, never an error of the decision."""
    out: dict[str, str] = {}
    for ref in alert_clips(table, item):
        key = ref.format()
        try:
            if await asyncio.to_thread(stored, svc.factory, item.table_id, item.session_id, ref):
                out[key] = "kept already"
                continue
            clip = await get_clip(svc, item.table_id, item.session_id, ref)
            await asyncio.to_thread(
                keep, svc.factory, item.table_id, item.session_id, ref, clip, item.id, svc.clock()
            )
            out[key] = "kept"
        except ClipUnavailable as exc:
            log.warning("alert %s: clip %s not kept: %s", item.id, key, exc.detail)
            out[key] = exc.detail
    return out
