"""Opening a table port (serial device or TCP) as an asyncio transport + a resyncing protocol."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from table_io.frames import DecoderStats, Frame, FrameDecoder

BAUDRATE = 115200


class LinkProtocol(asyncio.Protocol):
    """Decodes frames from whatever chunks arrive; a fresh decoder per connection, shared stats."""

    def __init__(
        self,
        on_frames: Callable[[list[Frame]], None],
        on_lost: Callable[[Exception | None], None],
        stats: DecoderStats,
    ) -> None:
        self._decoder = FrameDecoder(stats)
        self._on_frames = on_frames
        self._on_lost = on_lost
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        frames = self._decoder.feed(data)
        if frames:
            self._on_frames(frames)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self._on_lost(exc)


def parse_tcp(port: str) -> tuple[str, int] | None:
    """``tcp://host:port`` (or ``socket://``) → (host, port); None for a serial device path.
    A malformed address is a ValueError saying what is expected."""
    for scheme in ("tcp://", "socket://"):
        if port.startswith(scheme):
            host, _, number = port[len(scheme) :].rpartition(":")
            if not number.isdigit() or not 0 < int(number) <= 65535:
                raise ValueError(f"{port}: expected {scheme}HOST:PORT with PORT from 1 to 65535")
            return host or "127.0.0.1", int(number)
    return None


async def open_port(
    port: str, factory: Callable[[], LinkProtocol], baudrate: int = BAUDRATE
) -> asyncio.Transport:
    """Open ``port`` (a device path or ``tcp://host:port``) with a protocol from ``factory``."""
    loop = asyncio.get_running_loop()
    tcp = parse_tcp(port)
    if tcp is not None:
        transport, _ = await loop.create_connection(factory, tcp[0], tcp[1])
        return transport
    import serial_asyncio_fast  # heavy-ish; only when a serial port is used

    serial_transport, _ = await serial_asyncio_fast.create_serial_connection(
        loop, factory, port, baudrate=baudrate, bytesize=8, parity="N", stopbits=1
    )
    return serial_transport
