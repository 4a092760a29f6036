"""`mjref table monitor` on a port with no table behind it: it says so and exits non-zero, within
the link's silence limit — never a hang, never exit 0 with empty statistics."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_io.cli import monitor
from table_io.clock import FakeClock
from table_io.driver import TableDriver
from table_io.link import LinkConfig

ROOT = Path(__file__).resolve().parents[2]
LIMIT = LinkConfig().offline_after
WAIT = 20.0  # real I/O only: opening a pty on a loaded box


@pytest.fixture
def quiet_pty() -> Iterator[str]:
    """A real pseudo-terminal pair with nothing on the table's side."""
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        yield os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)


async def _watch(port: str, clock: FakeClock, *, opened: bool) -> tuple[int, list[bool]]:
    """Monitor ``port`` in simulated time; whether it had ended just before and after LIMIT."""
    driver = TableDriver(port, clock=clock)
    task = asyncio.create_task(monitor(driver, as_json=False, until_idle=None))
    async with asyncio.timeout(WAIT):
        while not (driver.connected.is_set() if opened else driver.open_error is not None):
            await asyncio.sleep(0.01)  # the port's open is real I/O; simulated time stands still
    ended = []
    await clock.advance(LIMIT - 0.05)
    ended.append(task.done())
    await clock.advance(0.1)
    code = await asyncio.wait_for(task, WAIT)
    ended.append(True)
    return code, ended


def test_a_port_where_nothing_answers_is_reported_at_the_silence_limit(
    quiet_pty: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, ended = asyncio.run(_watch(quiet_pty, FakeClock(), opened=True))
    assert (code, ended) == (1, [False, True])
    err = capsys.readouterr().err.strip()
    assert err == (
        f"mjref table monitor: nothing answers on {quiet_pty}: no frame in {LIMIT:g} s "
        "(is the table on, and is this its port?)"
    )


def test_a_port_that_cannot_be_opened_is_named_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "ttyUSB9")
    code, ended = asyncio.run(_watch(missing, FakeClock(), opened=False))
    assert (code, ended) == (2, [False, True])
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"mjref table monitor: cannot open {missing}: No such file or directory")
    assert "statistics" not in err


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_the_command_on_ports_with_no_table(tmp_path: Path, quiet_pty: str) -> None:
    regular = tmp_path / "not-a-tty"
    regular.write_text("hello\n")
    expected = {
        quiet_pty: (1, "nothing answers"),
        "/dev/null": (2, "cannot open /dev/null: "),
        str(regular): (2, f"cannot open {regular}: "),
        str(tmp_path): (2, "Is a directory"),
        f"tcp://127.0.0.1:{_closed_port()}": (2, "Connection refused"),
        "tcp://127.0.0.1:70000": (2, "expected tcp://HOST:PORT with PORT from 1 to 65535"),
    }
    runs = {
        port: subprocess.Popen(
            [sys.executable, "-m", "rig.cli", "table", "monitor", port],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for port in expected
    }
    for port, proc in runs.items():
        out, err = proc.communicate(timeout=60)
        code, words = expected[port]
        assert (proc.returncode, out) == (code, ""), err
        assert len(err.strip().splitlines()) == 1 and words in err, err
