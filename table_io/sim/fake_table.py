"""FakeTable: a :class:`TableDevice` wired to an endpoint, a clock and a fault injector.

Besides per-frame faults it can stall (firmware hang: nothing in, nothing out), reboot mid-hand
(new boot id, log lost) and vanish (the port disappears and comes back under the same name).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable

from table_io.clock import Clock, MonotonicClock
from table_io.messages import Button, ButtonPressed, Message
from table_io.sim.device import DeviceConfig, TableDevice
from table_io.sim.endpoints import Endpoint
from table_io.sim.faults import FaultInjector, FaultSpec
from table_io.sim.script import hand_cycles


class FakeTable:
    def __init__(
        self,
        endpoint: Endpoint,
        *,
        clock: Clock | None = None,
        seed: int = 0,
        faults: FaultSpec | None = None,
        config: DeviceConfig | None = None,
        tick: float = 0.01,
        on_emit: Callable[[int, Message, float], None] | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.clock: Clock = clock or MonotonicClock()
        self.rng = random.Random(seed)
        self.device = TableDevice(config, random.Random(self.rng.getrandbits(64)))
        self.injector = FaultInjector(
            faults or FaultSpec(), random.Random(self.rng.getrandbits(64))
        )
        self.script = hand_cycles(
            random.Random(self.rng.getrandbits(64)), lambda: self.device.t_ms(self.clock.now())
        )
        self._tick = tick
        self._on_emit = on_emit
        self._stalled_until = float("-inf")
        self._progress = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def path(self) -> str:
        return self.endpoint.path

    async def start(self) -> None:
        await self.endpoint.open(self._on_data)
        self.device.boot(self.clock.now())
        self.flush()
        self._task = asyncio.create_task(self._tick_loop(), name="fake-table-tick")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.endpoint.close()

    async def __aenter__(self) -> FakeTable:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- events ------------------------------------------------------------------------------

    def emit(self, message: Message) -> int:
        now = self.clock.now()
        seq = self.device.emit(message, now)
        if self._on_emit is not None:
            self._on_emit(seq, message, now)
        self.flush()
        return seq

    async def run_script(self, count: int, rate: float = 0.0) -> None:
        """Emit ``count`` scripted events: ``rate`` per second, or as fast as the window allows."""
        for _ in range(count):
            message = next(self.script)
            if isinstance(message, ButtonPressed) and message.button is Button.START:
                while self.device.held:  # HOLD: the next hand waits for the referee
                    await self.clock.sleep(self._tick)
            if rate > 0:
                await self.clock.sleep(1.0 / rate)
            else:
                await self._wait_window()
            self.emit(message)

    async def _wait_window(self) -> None:
        while not self.device.window_open or self.endpoint.buffered() > 4096:
            self._progress.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.05):
                    await self._progress.wait()

    # --- faults ------------------------------------------------------------------------------

    def stall(self, seconds: float) -> None:
        """Hang the firmware: nothing is read or sent until ``seconds`` have passed."""
        self._stalled_until = self.clock.now() + seconds

    @property
    def stalled(self) -> bool:
        return self.clock.now() < self._stalled_until

    def reboot(self) -> None:
        """Power-cycle mid-hand: the log and its numbering are gone; a HELLO announces the boot."""
        self.device.boot(self.clock.now())
        self.flush()

    async def unplug(self) -> None:
        await self.endpoint.vanish()

    async def replug(self) -> None:
        await self.endpoint.open(self._on_data)
        self.flush()

    # --- plumbing ----------------------------------------------------------------------------

    def _on_data(self, data: bytes) -> None:
        if self.stalled:
            return
        self.device.receive(data, self.clock.now())
        self.flush()
        self._progress.set()

    def flush(self) -> None:
        frames = self.device.take()
        if self.stalled:
            return
        for frame in frames:
            for chunk in self.injector.apply(frame):
                self.endpoint.write(chunk)

    async def _tick_loop(self) -> None:
        while True:
            await self.clock.sleep(self._tick)
            if not self.stalled:
                self.device.tick(self.clock.now())
                self.flush()
