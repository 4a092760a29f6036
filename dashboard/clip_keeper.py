"""A copy of every alert's clips, kept as soon as its rig has them: the evidence of an
undecided alert is then served while its rig is offline, or after its ring moved on.

One task sweeps the alert queue every ``every`` seconds (a decision keeps its alert's clips at
once: dashboard/clips.py ``keep_in_background``). A clip whose copy is whole is done; one the
rig had only part of (the segment around the alert still being recorded) or none of is tried
again later, each time twice as late, up to ``tries`` answers; a rig that is offline or serves
no clips is not asked (no try spent) until it is back.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dashboard.clips import ClipUnavailable, keep_ref
from dashboard.evidence import alert_clips
from referee.evidence import ClipRef

if TYPE_CHECKING:
    from dashboard.services import Services

log = logging.getLogger(__name__)
NOT_ANSWERED = (503, 504)  # the rig away, or too slow: no try spent
LONGEST_WAIT_S = 60.0

Key = tuple[str, str, ClipRef]  # table, session, clip


@dataclass
class _Pending:
    tries: int = 0
    due: float = 0.0


class ClipKeeper:
    def __init__(self, svc: Services, every: float = 2.0, tries: int = 8) -> None:
        self.svc = svc
        self.every = every
        self.tries = tries
        self.done: set[Key] = set()  # whole, or tried as often as it is worth
        self.settled: set[tuple[str, str, str]] = set()  # alerts whose clips are all done
        self.pending: dict[Key, _Pending] = {}

    async def run(self) -> None:
        while True:
            try:
                await self.sweep()
            except Exception:  # the database away a moment: the next sweep tries again
                log.exception("keeping alerts' clips failed")
            await asyncio.sleep(self.every)

    async def sweep(self) -> int:
        """Try each alert's clip that is due; how many copies are whole now."""
        whole = 0
        for table, item in self.svc.live.items():
            alert = (item.table_id, item.session_id, item.id)
            if alert in self.settled or not self._serving(item.table_id):
                continue  # all kept; or asked when its rig is back (no try spent)
            keys = [(item.table_id, item.session_id, ref) for ref in alert_clips(table, item)]
            for key in keys:
                p = self.pending.setdefault(key, _Pending()) if key not in self.done else None
                if p is not None and p.due <= time.monotonic():
                    whole += await self._try(key, item.id, p)
            if all(key in self.done for key in keys):
                self.settled.add(alert)
        return whole

    def _serving(self, table_id: str) -> bool:
        presence = self.svc.live.presence.get(table_id)
        return (
            presence is not None
            and presence.state == "online"
            and "evidence_url" in presence.body
            and bool(self.svc.settings.evidence_token)
        )

    async def _try(self, key: Key, alert_id: str, p: _Pending) -> int:
        table_id, session_id, ref = key
        try:
            clip = await keep_ref(self.svc, table_id, session_id, ref, alert_id)
        except ClipUnavailable as exc:
            if exc.status in NOT_ANSWERED:
                p.due = time.monotonic() + self.every  # the rig away: asked again, no try spent
                return 0
            ok = False
        else:
            ok = clip.whole(ref)
        if ok:
            self.done.add(key)
            self.pending.pop(key, None)
            return 1
        p.tries += 1
        if p.tries >= self.tries:  # what it has is what the rig recorded of it
            self.done.add(key)
            self.pending.pop(key, None)
        else:
            p.due = time.monotonic() + min(self.every * 2**p.tries, LONGEST_WAIT_S)
        return 0
