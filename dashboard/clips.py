"""Evidence clips: fetched from a table's rig on demand (as NVRs do), and a copy of every
alert's kept in the dashboard's database as soon as the rig has it (dashboard/clip_keeper.py,
the first view, the decision), so the record outlives the rig's ring and is served while the
rig is offline.

The rig names its clip server in its retained status (``evidence_url``) and trusts only the
dashboard's token (``MJREF_DASH_EVIDENCE_TOKEN``). An alert's clips are what its evidence cites:
``audio:``/``video:``/``still:`` strings on the alert or on the events it cites by seq; when it
cites none, the video, audio and still around the alert's own time. A copy taken while the rig
had recorded only part of a clip's range is served when nothing better can be had, and taken
again until it is whole.
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
from dashboard.live import AlertItem, LiveState, LiveTable
from referee.evidence import ClipRef

if TYPE_CHECKING:
    from dashboard.services import Services

log = logging.getLogger(__name__)
EPS = 0.006  # times are kept to 2 decimals
WHOLE_S = 1.0  # a copy that lacks less than this of its range at either end is whole (a frame)
MEDIA_TYPES = {"audio": "audio/flac", "video": "video/mp4", "still": "image/jpeg"}
NO_COPY = "; the dashboard keeps no copy of it"


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

    def whole(self, ref: ClipRef) -> bool:
        """Whether it covers ``ref`` (a still: the one kept as of its time)."""
        if ref.kind == "still":
            return True
        return self.start <= ref.start + WHOLE_S and self.end >= ref.end - WHOLE_S

    def covers(self) -> float:
        return self.end - self.start


# ---- the dashboard's stored copies -----------------------------------------------------------


def stored(
    factory: sessionmaker[Session], table_id: str, session_id: str, ref: ClipRef
) -> Clip | None:
    """A kept copy of a range holding ``ref`` (the one that covers most of it, when several)."""
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
            .order_by((StoredClip.covers_end - StoredClip.covers_start).desc(), StoredClip.id)
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
) -> bool:
    """Keep ``clip`` as the copy of ``ref``: in place of a copy of the same range that covers
    less, never of one that covers more. Whether it was kept."""
    with factory() as db:
        row = db.scalars(
            select(StoredClip).where(
                StoredClip.table_id == table_id,
                StoredClip.session_id == session_id,
                StoredClip.kind == ref.kind,
                StoredClip.start.between(ref.start - EPS, ref.start + EPS),
                StoredClip.end.between(ref.end - EPS, ref.end + EPS),
            )
        ).first()
        if row is None:
            row = StoredClip(
                table_id=table_id,
                session_id=session_id,
                kind=ref.kind,
                start=ref.start,
                end=ref.end,
                alert_id=alert_id,
            )
            db.add(row)
        elif row.covers_end - row.covers_start >= clip.covers() - EPS:
            return False
        row.covers_start, row.covers_end = clip.start, clip.end
        row.media_type, row.data, row.fetched = clip.media_type, clip.data, now
        db.commit()
        return True


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


async def from_rig(svc: Services, table_id: str, session_id: str, ref: ClipRef) -> Clip:
    """The clip from the table's rig (ClipUnavailable saying why not)."""
    presence = svc.live.presence.get(table_id)
    base = rig_url(
        None if presence is None else presence.body, None if presence is None else presence.state
    )
    s = svc.settings
    return await fetch(base, s.evidence_token, ref, session_id, s.clip_timeout)


async def get_clip(svc: Services, table_id: str, session_id: str, ref: ClipRef) -> Clip:
    """The dashboard's whole copy, else the rig's (an alert's is kept: its first view), else
    the copy of part of it; ClipUnavailable saying why neither has it."""
    kept = await asyncio.to_thread(stored, svc.factory, table_id, session_id, ref)
    if kept is not None and kept.whole(ref):
        return kept
    try:
        clip = await from_rig(svc, table_id, session_id, ref)
    except ClipUnavailable as exc:
        if kept is not None:
            return kept
        raise ClipUnavailable(exc.status, exc.detail + NO_COPY) from None
    if kept is not None and kept.covers() > clip.covers():
        return kept
    item = alert_citing(svc.live, table_id, session_id, ref)
    if item is not None:
        await asyncio.to_thread(
            keep, svc.factory, table_id, session_id, ref, clip, item.id, svc.clock()
        )
    return clip


def alert_citing(live: LiveState, table_id: str, session_id: str, ref: ClipRef) -> AlertItem | None:
    """The first alert of that session whose clips include ``ref`` (None: no alert's)."""
    table = live.sessions.get((table_id, session_id))
    if table is None:
        return None
    return next((i for i in table.items if ref in alert_clips(table, i)), None)


async def keep_ref(
    svc: Services, table_id: str, session_id: str, ref: ClipRef, alert_id: str
) -> Clip:
    """Keep the rig's copy of ``ref`` for an alert unless a whole one is kept already; the copy
    now kept (``whole`` tells whether it is all of it). ClipUnavailable: the rig had none, and
    the dashboard has no copy of it."""
    kept = await asyncio.to_thread(stored, svc.factory, table_id, session_id, ref)
    if kept is not None and kept.whole(ref):
        return kept
    try:
        clip = await from_rig(svc, table_id, session_id, ref)
    except ClipUnavailable:
        if kept is not None:
            return kept
        raise
    done = await asyncio.to_thread(
        keep, svc.factory, table_id, session_id, ref, clip, alert_id, svc.clock()
    )
    return clip if done or kept is None else kept


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
    """Fetch and keep the clips an alert cites (at its decision) unless whole copies are kept
    already; what became of each. A clip the rig cannot give is noted, never an error of the
    decision."""
    out: dict[str, str] = {}
    for ref in alert_clips(table, item):
        key = ref.format()
        try:
            clip = await keep_ref(svc, item.table_id, item.session_id, ref, item.id)
            out[key] = "kept" if clip.whole(ref) else f"kept {clip.start:.2f}-{clip.end:.2f}"
        except ClipUnavailable as exc:
            log.warning("alert %s: clip %s not kept: %s", item.id, key, exc.detail)
            out[key] = exc.detail
    return out
