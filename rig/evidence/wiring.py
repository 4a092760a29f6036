"""The rig's side of the evidence: the recorder and its clip server built from the config, the
evidence strings a sensor's event cites, the pins an alert, a proposal or a win sets."""

from __future__ import annotations

from typing import Any

from referee.events import EngineEvent, Event, Source
from referee.evidence import video
from rig.config import EvidenceSection
from rig.evidence.recorder import Recorder
from rig.evidence.ring import Budget
from rig.evidence.server import EvidenceServer

PINNED_OUTPUTS = ("alert", "proposal")
CITE_BEFORE_S, CITE_AFTER_S = 5.0, 2.0  # the video a camera event cites around its time
LIVE_CAMERA_S = 5.0  # frames this recent: the camera is being recorded


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
        """Pin the recordings around a win and around what raised an alert or a proposal."""
        reasons = [f"{o.type} of seq {event.seq}" for o in outputs if o.type in PINNED_OUTPUTS]
        if event.type == "win":
            reasons.append(f"win at seq {event.seq}")
        if reasons:
            self.recorder.pin(event.ts, "; ".join(reasons))

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        self.recorder.close()
