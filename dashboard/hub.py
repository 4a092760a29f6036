"""Live push: every connected client gets every message (alerts at once; table changes
coalesced to one per table per ``flush_every``, so a busy venue does not flood a tablet).
Each message also carries the venue's ``summary`` as it stands when sent (the open alerts'
count: the pages' Alerts badge shows the server's figure, never one counted in the browser)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

from dashboard.metrics import DashMetrics


class Hub:
    def __init__(self, metrics: DashMetrics, flush_every: float = 0.5) -> None:
        self.metrics = metrics
        self.flush_every = flush_every
        self.clients: set[asyncio.Queue[str]] = set()
        self._dirty: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self.summary: Callable[[], dict[str, Any]] = dict  # merged into every message

    def connect(self) -> asyncio.Queue[str]:
        q: asyncio.Queue[str] = asyncio.Queue(maxsize=10_000)
        self.clients.add(q)
        self.metrics.clients.set(len(self.clients))
        return q

    def disconnect(self, q: asyncio.Queue[str]) -> None:
        self.clients.discard(q)
        self.metrics.clients.set(len(self.clients))

    def send(self, message: dict[str, Any]) -> None:
        text = json.dumps({**message, **self.summary()}, separators=(",", ":"))
        for q in list(self.clients):
            try:
                q.put_nowait(text)
            except asyncio.QueueFull:  # a client that stopped reading: dropped, it reconnects
                self.disconnect(q)
        self.metrics.pushed.inc(len(self.clients))

    def changed(self, table_id: str) -> None:
        self._dirty.add(table_id)

    async def start(self) -> None:
        self._task = asyncio.create_task(self._flusher(), name="hub flusher")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _flusher(self) -> None:
        while True:
            await asyncio.sleep(self.flush_every)
            if self._dirty:
                tables, self._dirty = sorted(self._dirty), set()
                self.send({"type": "tables", "tables": tables})
