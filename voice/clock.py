"""Injected time (same shape as the rest of the rig: ``now()`` on a monotonic scale)."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale."""
        ...


class MonotonicClock:
    def now(self) -> float:
        return time.monotonic()


class ManualClock:
    """Simulated time for tests and replays."""

    def __init__(self, start: float = 0.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds
