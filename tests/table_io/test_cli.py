"""`mjref table simulate` and `mjref table monitor` as separate processes over a real pty."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _simulate(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "table_io.cli", "table", "simulate", *args],
        cwd=ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("where", [["--pty"], ["--tcp", "0"]])
@pytest.mark.slow
def test_simulate_then_monitor(where: list[str]) -> None:
    if where[0] == "--tcp":
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            where = ["--tcp", str(s.getsockname()[1])]
    sim = _simulate(
        *where,
        "--events",
        "30",
        "--seed",
        "1",
        "--rate",
        "0",
        "--faults",
        "drop=0.05,corrupt=0.05,dup=0.05,garbage=0.05",
    )
    try:
        assert sim.stdout is not None
        port = sim.stdout.readline().strip()
        assert port.startswith("/") or port.startswith("tcp://")
        mon = subprocess.run(
            [
                sys.executable,
                "-m",
                "table_io.cli",
                "table",
                "monitor",
                port,
                "--json",
                "--until-idle",
                "2",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert mon.returncode == 0, mon.stderr
        records = [json.loads(line) for line in mon.stdout.splitlines()]
        assert [r["seq"] for r in records] == list(range(1, 31))
        assert all({"seq", "type", "time"} <= r.keys() for r in records)
        assert records[0]["type"] == "MODE"
        assert "link statistics:" in mon.stderr and "crc_errors=" in mon.stderr
    finally:
        sim.send_signal(signal.SIGTERM)
        sim.wait(timeout=30)
    if port.startswith("/"):
        assert not os.path.exists(port)  # the simulator cleans its device link up


def test_register_adds_the_table_command() -> None:
    import argparse

    from table_io.cli import register, run_monitor, run_simulate

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["table", "simulate", "--tcp", "5000", "--events", "3"])
    assert args.handler is run_simulate and args.tcp == 5000 and args.events == 3
    args = parser.parse_args(["table", "monitor", "/dev/ttyACM0", "--json", "--until-idle", "2"])
    assert args.handler is run_monitor and args.json and args.until_idle == 2.0


def test_simulate_on_a_busy_port_says_so() -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = subprocess.run(
            [sys.executable, "-m", "rig.cli", "table", "simulate", "--tcp", str(port)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip() == (
        f"mjref table simulate: cannot serve on TCP 127.0.0.1:{port}: Address already in use "
        "(expected a free port; 0 picks one)"
    )
