"""Injected time: the link's timers read a :class:`Clock`, so tests run them in simulated time."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class MonotonicClock:
    """The real clock: ``time.monotonic`` and ``asyncio.sleep``."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class FakeClock:
    """Simulated time: ``sleep`` returns once :meth:`advance` passes its deadline."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._timers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._ids = itertools.count()

    def now(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._timers, (self._now + max(seconds, 0.0), next(self._ids), future))
        await future

    async def advance(self, seconds: float) -> None:
        """Move time forward, waking each sleeper at its own deadline, in order."""
        target = self._now + seconds
        while self._timers and self._timers[0][0] <= target:
            deadline, _, future = heapq.heappop(self._timers)
            self._now = max(self._now, deadline)
            if not future.done():
                future.set_result(None)
            for _ in range(3):
                await asyncio.sleep(0)
        self._now = target
        await asyncio.sleep(0)
