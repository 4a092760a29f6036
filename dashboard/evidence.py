"""Which recordings an alert cites, and the dashboard's URL for each (pure: no I/O).

An alert's clips are the ``audio:``/``video:``/``still:`` strings on the alert or on the events
it cites by seq (referee/evidence.py); when it cites none, the video, audio and still around the
alert's own time.
"""

from __future__ import annotations

import logging
import urllib.parse
from typing import TYPE_CHECKING, Any

from referee.evidence import ClipRef, clips_in, is_clip

if TYPE_CHECKING:
    from dashboard.live import AlertItem, LiveTable

log = logging.getLogger(__name__)
AROUND_BEFORE_S, AROUND_AFTER_S = 10.0, 2.0  # an alert that cites no recording: this around it


def alert_clips(table: LiveTable, item: AlertItem) -> list[ClipRef]:
    """The recordings an alert's evidence names, in order, once each."""
    found: list[ClipRef] = []
    for ref in item.evidence:
        if isinstance(ref, str) and is_clip(ref):
            found += clips_in([ref])
        elif isinstance(ref, int) and 0 <= ref < len(table.events):
            ev = table.events[ref]
            if ev.seq == ref:
                found += _valid(ev.evidence)
    if not found:
        start = max(0.0, round(item.ts - AROUND_BEFORE_S, 2))
        end = round(item.ts + AROUND_AFTER_S, 2)
        t = round(item.ts, 2)
        found = [ClipRef("video", start, end), ClipRef("audio", start, end), ClipRef("still", t, t)]
    return list(dict.fromkeys(found))


def _valid(evidence: tuple[str, ...]) -> list[ClipRef]:
    out = []
    for ref in evidence:
        try:
            out += clips_in([ref])
        except ValueError:
            log.warning("evidence %r is not a recording the dashboard can fetch", ref)
    return out


def clip_url(table_id: str, session_id: str, ref: ClipRef) -> str:
    """The dashboard's own URL for a clip (the alert view and the review page use only this)."""
    query: dict[str, str] = {"session": session_id}
    if ref.kind == "still":
        query["t"] = f"{ref.start:.2f}"
    else:
        query |= {"start": f"{ref.start:.2f}", "end": f"{ref.end:.2f}"}
    path = urllib.parse.quote(table_id)
    return f"/api/tables/{path}/clips/{ref.kind}?{urllib.parse.urlencode(query)}"


def clip_links(table: LiveTable, item: AlertItem) -> list[dict[str, Any]]:
    return [
        {
            "kind": r.kind,
            "start": r.start,
            "end": r.end,
            "seat": r.seat,
            "url": clip_url(item.table_id, item.session_id, r),
        }
        for r in alert_clips(table, item)
    ]
