"""The automatic table's link as an input."""

from __future__ import annotations

import asyncio

from rig.inputs.base import Input, Sink
from table_io.clock import Clock
from table_io.driver import TableDriver


class TableLinkInput(Input):
    """The automatic table over serial or tcp (table_io's driver, which reconnects by itself)."""

    name = "table_link"

    def __init__(self, port: str, clock: Clock, silent_after: float) -> None:
        self.port = port
        self.clock = clock
        self.silent_after = silent_after

    async def run(self, sink: Sink) -> None:
        async with TableDriver(self.port, clock=self.clock) as driver:
            beat = asyncio.create_task(self._heartbeats(driver, sink))
            try:
                async for output in driver.outputs():
                    sink.alive(self.name)
                    sink.submit(self.name, output)
            finally:
                beat.cancel()

    async def _heartbeats(self, driver: TableDriver, sink: Sink) -> None:
        """A quiet table is alive while the link hears its heartbeats (no output then)."""
        while True:
            await self.clock.sleep(0.5)
            if driver.link.online:
                sink.alive(self.name)
