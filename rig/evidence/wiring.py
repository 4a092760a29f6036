"""The rig's side of the evidence: the recorder and its clip server built from the config, the
evidence strings a sensor's event cites, the pins an alert, a proposal or a win sets, and their
release when the referee's decision on it is logged.

An alert is a line of the dashboard's queue (dashboard/live.py pairs each proposal with the
alert of its rule and seat; an alert left unpaired is a line of its own): a proposal's pin waits
for its ``penalty_decision``, an unpaired alert's (``alert@SEQ``) for its acknowledgement (a
``referee_decision`` note, ``data.ack`` and ``data.seqs``). Until then its moment is kept
whatever the budget, in any session; a win's, a rig's own finding's (``SYS-``) for the session.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from referee.events import EngineEvent, Event, PenaltyDecision, RefereeDecision, Source
from referee.evidence import video
from rig.config import EvidenceSection
from rig.evidence.recorder import Recorder
from rig.evidence.ring import Budget
from rig.evidence.server import EvidenceServer

CITE_BEFORE_S, CITE_AFTER_S = 5.0, 2.0  # the video a camera event cites around its time
LIVE_CAMERA_S = 5.0  # frames this recent: the camera is being recorded
DECIDING = ("confirm", "change", "dismiss")  # a penalty decision that closes its alert


class RigEvidence:
    def __init__(self, cfg: EvidenceSection, session: str) -> None:
        self.cfg = cfg
        self.recorder = Recorder(
            cfg.dir,
            session,
            Budget.of(cfg.budget_gb, cfg.budget_hours),
            cfg.segment_s,
            cfg.pin_before,
            cfg.pin_after,
        )
        self.server: EvidenceServer | None = None

    def start(self) -> None:
        if self.cfg.token and self.server is None:
            self.server = EvidenceServer(
                self.recorder, self.cfg.token, self.cfg.host, self.cfg.port
            ).start()

    def status(self) -> dict[str, Any]:
        out: dict[str, Any] = {"evidence": self.recorder.ring.usage()}
        if self.server is not None:
            out["evidence_url"] = self.server.url(self.cfg.advertise)
        return out

    def cite(self, source: Source, ts: float) -> tuple[str, ...]:
        """A camera event cites the video around it while ``video_file`` is being recorded
        (the camera worker's own events cite their video and still themselves)."""
        last = self.recorder.last_frame
        if source != Source.VISION or last is None or ts - last > LIVE_CAMERA_S:
            return ()
        return (video(max(0.0, ts - CITE_BEFORE_S), ts + CITE_AFTER_S),)

    def note(self, event: Event, outputs: list[EngineEvent]) -> None:
        """Pin the recordings around a win and around what raised an alert or a proposal (until
        it is decided); release an alert's once the decision on it is logged."""
        for holds, reason in _queued(event.seq, outputs):
            self.recorder.pin(event.ts, reason, holds)
        if event.type == "win":
            self.recorder.pin(event.ts, f"win at seq {event.seq}")
        for holds, by in _decided(event):
            self.recorder.release(holds, by, event.session_id)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        self.recorder.close()


def _queued(seq: int, outputs: list[EngineEvent]) -> Iterator[tuple[str, str]]:
    """(what the pin waits for, why) for each line the dashboard's queue shows of ``outputs``:
    a proposal (its id), an alert no proposal of its rule and seat took (``alert@SEQ``); a
    rig's own finding (``SYS-``), shown to no referee, holds for the session only ('')."""
    alerts = [o.payload for o in outputs if o.type == "alert"]
    for o in outputs:
        if o.type == "proposal":
            p = o.payload
            paired = next(
                (a for a in alerts if a.get("rule") == p["rule"] and a.get("seat") == p["seat"]),
                None,
            )
            if paired is not None:
                alerts.remove(paired)
            yield str(p["id"]), f"proposal {p['id']} of seq {seq}"
    for a in alerts:
        rule = str(a.get("rule", "?"))
        holds = "" if rule.startswith("SYS-") else f"alert@{seq}"
        yield holds, f"alert {rule} of seq {seq}"


def _decided(event: Event) -> Iterator[tuple[str, str]]:
    """(what a pin waits for, the decision that came) for a logged referee's decision: a
    proposal confirmed, changed or dismissed; an unpaired alert acknowledged (the queue's ids:
    a proposal's own, ``alert:SESSION:N`` for the others; a proposal acknowledged is still
    open)."""
    p = event.payload
    by = f"seq {event.seq}"
    if isinstance(p, PenaltyDecision) and p.verdict in DECIDING:
        yield p.proposal, by
    elif isinstance(p, RefereeDecision) and p.decision == "note":
        acked = [a for a in p.data.get("ack", ()) if isinstance(a, str)]
        seqs = p.data.get("seqs")
        if not isinstance(seqs, list) or len(seqs) != len(acked):
            seqs = [p.about_seq] if len(acked) == 1 else []  # an older dashboard's note
        for item, seq in zip(acked, seqs, strict=False):
            if isinstance(seq, int) and item.startswith("alert:"):  # a proposal waits on
                yield f"alert@{seq}", f"ack {item}"
