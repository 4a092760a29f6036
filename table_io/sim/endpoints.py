"""Where the simulated table's bytes go: a pseudo-terminal pair or a TCP server.

The pty end gets a stable symlink (like a udev rule's ``/dev/mjref-table``) so that "the port
vanished" and "it came back" can be simulated: the pty is torn down and a new one appears under
the same name, as a USB-CDC adapter re-enumerates.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import tempfile
import tty
from collections.abc import Callable
from typing import Protocol

WRITE_BUFFER_LIMIT = 1 << 20  # past this a real UART would simply have lost the bytes


class Endpoint(Protocol):
    path: str
    dropped_bytes: int

    async def open(self, on_data: Callable[[bytes], None]) -> None: ...

    def write(self, data: bytes) -> None: ...

    def buffered(self) -> int: ...

    async def vanish(self) -> None: ...

    async def close(self) -> None: ...


class PtyEndpoint:
    """The table on the master side of a pty; the host opens :attr:`path` with pyserial."""

    def __init__(self, link_dir: str | None = None, name: str = "table") -> None:
        # a folder given is the caller's (the demo's table reuses its own for every session):
        # only one made here is removed on close
        self._own_dir = link_dir is None
        self._dir = link_dir or tempfile.mkdtemp(prefix="mjref-table-")
        self.path = os.path.join(self._dir, name)
        self.dropped_bytes = 0
        self._master = -1
        self._slave = -1
        self._buf = bytearray()
        self._on_data: Callable[[bytes], None] = lambda _: None

    @property
    def device(self) -> str:
        """The pty slave behind :attr:`path` (``/dev/pts/N``)."""
        return os.path.realpath(self.path)

    async def open(self, on_data: Callable[[bytes], None]) -> None:
        self._on_data = on_data
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line discipline, before anyone opens it
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.path + ".new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.path)
        asyncio.get_running_loop().add_reader(master, self._read)

    def _read(self) -> None:
        try:
            data = os.read(self._master, 65536)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno == errno.EIO:  # no reader on the other side: nothing to read
                return
            raise
        if data:
            self._on_data(data)

    def write(self, data: bytes) -> None:
        if self._master < 0:
            self.dropped_bytes += len(data)
            return
        if self._buf:
            self._queue(data)
            return
        try:
            written = os.write(self._master, data)
        except BlockingIOError:
            written = 0
        except OSError:
            self.dropped_bytes += len(data)
            return
        if written < len(data):
            self._queue(data[written:])

    def _queue(self, data: bytes) -> None:
        if len(self._buf) + len(data) > WRITE_BUFFER_LIMIT:
            self.dropped_bytes += len(data)
            return
        if not self._buf:
            asyncio.get_running_loop().add_writer(self._master, self._write_ready)
        self._buf += data

    def _write_ready(self) -> None:
        try:
            written = os.write(self._master, self._buf)
        except BlockingIOError:
            return
        except OSError:
            written = len(self._buf)
        del self._buf[:written]
        if not self._buf:
            asyncio.get_running_loop().remove_writer(self._master)

    def buffered(self) -> int:
        return len(self._buf)

    async def vanish(self) -> None:
        """Unplug: the device node and its symlink disappear; the host's reads fail."""
        self._teardown()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)

    def _teardown(self) -> None:
        if self._master < 0:
            return
        loop = asyncio.get_running_loop()
        loop.remove_reader(self._master)
        loop.remove_writer(self._master)
        self._buf.clear()
        os.close(self._master)
        os.close(self._slave)
        self._master = self._slave = -1

    async def close(self) -> None:
        await self.vanish()
        if self._own_dir:
            with contextlib.suppress(OSError):
                os.rmdir(self._dir)


class TcpEndpoint:
    """The table as a TCP server (one host at a time; a new connection replaces the old)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self.path = ""
        self.dropped_bytes = 0
        self._server: asyncio.Server | None = None
        self._client: asyncio.Transport | None = None
        self._on_data: Callable[[bytes], None] = lambda _: None

    async def open(self, on_data: Callable[[bytes], None]) -> None:
        self._on_data = on_data
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: _TcpClient(self), self.host, self.port, reuse_address=True
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self.path = f"tcp://{self.host}:{self.port}"

    def write(self, data: bytes) -> None:
        client = self._client
        if client is None or client.is_closing():
            self.dropped_bytes += len(data)
            return
        if client.get_write_buffer_size() > WRITE_BUFFER_LIMIT:
            self.dropped_bytes += len(data)
            return
        client.write(data)

    def buffered(self) -> int:
        client = self._client
        return client.get_write_buffer_size() if client is not None else 0

    async def vanish(self) -> None:
        if self._client is not None:
            self._client.abort()
            self._client = None
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def close(self) -> None:
        await self.vanish()


class _TcpClient(asyncio.Protocol):
    def __init__(self, owner: TcpEndpoint) -> None:
        self._owner = owner
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        if self._owner._client is not None:
            self._owner._client.abort()
        self._transport = transport
        self._owner._client = transport

    def data_received(self, data: bytes) -> None:
        self._owner._on_data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._owner._client is self._transport:
            self._owner._client = None
