"""Each input in its own task, restarted with back-off when it fails; its health kept."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from rig.inputs.base import Health, HealthState, Input, Sink
from table_io.clock import Clock


@dataclass
class Supervisor:
    """Runs inputs, restarting each with exponential back-off; reports health changes."""

    clock: Clock
    backoff: tuple[float, float] = (0.2, 10.0)
    on_change: Callable[[str, Health], None] = lambda name, health: None
    health: dict[str, Health] = field(default_factory=dict)

    def set(self, name: str, state: HealthState, detail: str) -> None:
        h = self.health[name]
        if h.state != state or h.detail != detail:
            if h.state != state:
                h.since = self.clock.now()
            h.state, h.detail = state, detail
            self.on_change(name, h)

    async def supervise(self, inp: Input, sink: Sink) -> None:
        self.health[inp.name] = Health(since=self.clock.now())
        delay = self.backoff[0]
        while True:
            self.set(inp.name, "ok", "running")
            started = self.clock.now()
            try:
                await inp.run(sink)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any failure of a device: restart it, never stop the core
                h = self.health[inp.name]
                h.restarts += 1
                if self.clock.now() - started > 10 * self.backoff[1]:
                    delay = self.backoff[0]  # it ran a good while: start the back-off again
                state: HealthState = "down" if h.restarts > 3 else "degraded"
                self.set(inp.name, state, f"{type(exc).__name__}: {exc}"[:200])
                await self.clock.sleep(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            h = self.health[inp.name]
            h.finished = True
            self.set(inp.name, "ok", "finished")
            return

    def seen(self, name: str) -> None:
        h = self.health.get(name)
        if h is not None:
            h.last_seen = self.clock.now()


# ---- the inputs ------------------------------------------------------------------------------
