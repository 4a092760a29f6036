"""What every input shares: its drafts for the core, the sink it submits to, its health."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from referee.events import Payload, Source
from table_io.link import Output

HealthState = Literal["ok", "degraded", "down"]


@dataclass(frozen=True, slots=True)
class Draft:
    """One event-to-be from an input; the core gives it its seq and its time."""

    payload: Payload
    source: Source
    confidence: float = 1.0
    evidence: tuple[str, ...] = ()


Submission = Draft | Output


class Sink(Protocol):
    def submit(self, name: str, item: Submission) -> None: ...

    def alive(self, name: str) -> None: ...

    def alert(self, name: str, severity: str, message: str) -> None: ...


@dataclass
class Health:
    state: HealthState = "down"
    since: float = 0.0
    restarts: int = 0
    detail: str = "starting"
    last_seen: float | None = None
    finished: bool = False
    silent: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "health": self.state,
            "since": round(self.since, 3),
            "restarts": self.restarts,
            "detail": self.detail,
            "last_seen": None if self.last_seen is None else round(self.last_seen, 3),
            "finished": self.finished,
        }


class Input(ABC):
    """One device; ``run`` returns when a finite source ends and raises when the device fails."""

    name: str
    silent_after: float | None = None

    @abstractmethod
    async def run(self, sink: Sink) -> None: ...
