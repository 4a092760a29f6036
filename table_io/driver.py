"""The asyncio driver: keeps a port open (reconnecting with back-off) around a :class:`HostLink`.

Consumers read :meth:`TableDriver.outputs` (delivered events and link alerts) and call
:meth:`TableDriver.request` for commands, which resolves with the table's reply — the same
request/response correlation by sequence number as zigpy-znp's API layer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator

from table_io.clock import Clock, MonotonicClock
from table_io.frames import Frame
from table_io.link import CommandTimeout, HostLink, LinkConfig, Output, Reply
from table_io.messages import Message
from table_io.uart import BAUDRATE, LinkProtocol, open_port

log = logging.getLogger(__name__)


class CommandFailed(Exception):
    """The table did not answer a command after all retransmissions."""


class TableDriver:
    def __init__(
        self,
        port: str,
        *,
        clock: Clock | None = None,
        config: LinkConfig | None = None,
        baudrate: int = BAUDRATE,
        tick: float = 0.005,
        backoff: tuple[float, float] = (0.05, 2.0),
        rng: random.Random | None = None,
    ) -> None:
        self.port = port
        self.clock: Clock = clock or MonotonicClock()
        self.link = HostLink(self.clock.now(), config)
        self._baudrate = baudrate
        self._tick = tick
        self._backoff = backoff
        self._rng = rng or random.Random()
        self._transport: asyncio.Transport | None = None
        self._lost: asyncio.Event = asyncio.Event()
        self._queue: asyncio.Queue[Output] = asyncio.Queue()
        self._waiters: dict[int, asyncio.Future[Message]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.connected = asyncio.Event()
        self.open_error: OSError | ValueError | None = None  # why the port last failed to open

    @property
    def stats(self) -> dict[str, int]:
        return self.link.stats.as_dict()

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._connect_loop(), name="table-connect"),
            asyncio.create_task(self._tick_loop(), name="table-tick"),
        ]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._transport is not None:
            self._transport.abort()
            self._transport = None

    async def __aenter__(self) -> TableDriver:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def next_output(self) -> Output:
        return await self._queue.get()

    async def outputs(self) -> AsyncIterator[Output]:
        while True:
            yield await self._queue.get()

    async def request(self, message: Message) -> Message:
        """Send a command and wait for its reply; raises :class:`CommandFailed` after retries."""
        seq = self.link.send(message, self.clock.now())
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._waiters[seq] = future
        self._flush()
        try:
            return await future
        finally:
            self._waiters.pop(seq, None)

    # --- internals ---------------------------------------------------------------------------

    async def _connect_loop(self) -> None:
        delay = self._backoff[0]
        while True:
            try:
                self._lost.clear()
                self._transport = await open_port(self.port, self._make_protocol, self._baudrate)
            except (OSError, ValueError) as exc:  # serial.SerialException is an OSError
                log.debug("cannot open %s: %s", self.port, exc)
                self.open_error = exc
                await self.clock.sleep(delay * (0.5 + self._rng.random()))
                delay = min(delay * 2, self._backoff[1])
                continue
            delay = self._backoff[0]
            self.open_error = None
            self.link.connection_made(self.clock.now())
            self.connected.set()
            self._flush()
            await self._lost.wait()
            self.connected.clear()
            self._transport = None
            self.link.connection_lost(self.clock.now())
            self._dispatch()
            await self.clock.sleep(self._backoff[0])

    def _make_protocol(self) -> LinkProtocol:
        return LinkProtocol(self._on_frames, self._on_lost, self.link.stats.decoder)

    def _on_frames(self, frames: list[Frame]) -> None:
        self.link.receive(frames, self.clock.now())
        self._flush()

    def _on_lost(self, exc: Exception | None) -> None:
        log.info("table port %s closed: %s", self.port, exc)
        self._lost.set()

    async def _tick_loop(self) -> None:
        while True:
            await self.clock.sleep(self._tick)
            self.link.tick(self.clock.now())
            self._flush()

    def _flush(self) -> None:
        data = self.link.take_bytes()
        transport = self._transport
        if data and transport is not None and not transport.is_closing():
            transport.write(data)
        self._dispatch()

    def _dispatch(self) -> None:
        for output in self.link.take_outputs():
            if isinstance(output, Reply | CommandTimeout):
                future = self._waiters.get(output.request_seq)
                if future is not None and not future.done():
                    if isinstance(output, Reply):
                        future.set_result(output.message)
                    else:
                        future.set_exception(CommandFailed(f"no reply to #{output.request_seq}"))
                continue
            self._queue.put_nowait(output)
