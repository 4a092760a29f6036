"""A real pseudo-terminal pair: the 'table' writes the master, the 'host' opens the slave path
with pyserial, exactly as the driver opens a USB-CDC adapter."""

from __future__ import annotations

import os
import select
import time
import tty
from collections.abc import Iterator

import pytest
import serial

IO_TIMEOUT = 10.0  # generous: only reached if something is broken


class PtyPair:
    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)
        self.host = serial.Serial(self.path, 115200, timeout=IO_TIMEOUT)

    def table_write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self.master, view)
            view = view[n:]

    def host_read(self, n: int) -> bytes:
        """Exactly the ``n`` bytes the table wrote (the pty neither adds nor drops any)."""
        out = bytearray()
        deadline = time.monotonic() + IO_TIMEOUT
        while len(out) < n and time.monotonic() < deadline:
            out += self.host.read(n - len(out))
        assert len(out) == n, f"pty delivered {len(out)} of {n} bytes"
        return bytes(out)

    def pass_to_host(self, data: bytes) -> bytes:
        """Write on the table side in pieces the pty can hold, read all back on the host side."""
        out = bytearray()
        for i in range(0, len(data), 1024):
            chunk = data[i : i + 1024]
            self.table_write(chunk)
            out += self.host_read(len(chunk))
        return bytes(out)

    def pass_to_table(self, data: bytes) -> bytes:
        out = bytearray()
        for i in range(0, len(data), 1024):
            chunk = data[i : i + 1024]
            self.host.write(chunk)
            self.host.flush()
            while len(out) < i + len(chunk):
                ready, _, _ = select.select([self.master], [], [], IO_TIMEOUT)
                assert ready, "pty delivered nothing to the table"
                out += os.read(self.master, 65536)
        return bytes(out)

    def close(self) -> None:
        self.host.close()
        os.close(self.master)
        os.close(self._slave)


@pytest.fixture(scope="module")
def pty_pair() -> Iterator[PtyPair]:
    pair = PtyPair()
    yield pair
    pair.close()
