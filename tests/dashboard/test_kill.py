"""Resilience: ``mjref dashboard`` on MQTT, killed (SIGKILL) mid-session and started again,
shows the same tables and alerts — rebuilt from the database alone."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from dashkit import PASSWORD, prepare

from dashboard.simrig import SimRig, game
from rig.bus.broker import BrokerUnavailable, LocalBroker, free_port
from rig.bus.mqtt import MqttBus

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def start(data: Path, broker: str, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from rig.cli import main; raise SystemExit(main())",
            "dashboard",
            "--data",
            str(data),
            "--mqtt",
            broker,
            "--port",
            str(port),
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def session(port: int) -> httpx.Client:
    c = httpx.Client(base_url=f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + 30
    while True:
        try:
            if c.get("/healthz").status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError("the dashboard did not start")
        time.sleep(0.05)  # a real process starting
    c.get("/login")
    r = c.post(
        "/api/session",
        json={"name": "viewer", "password": PASSWORD},
        headers={"X-CSRF-Token": c.cookies["mjref_login_csrf"]},
    )
    assert r.status_code == 200
    return c


def seen(c: httpx.Client) -> dict[str, Any]:
    table = c.get("/api/tables/T1").json()
    table.pop("health")
    return {
        "table": table,
        "alerts": c.get("/api/alerts?status=all").json(),
        "sheets": c.get("/api/sheets").json(),
        "standings": c.get("/api/standings").json(),
    }


def test_killed_dashboard_rebuilds_the_same_state(tmp_path: Path) -> None:
    try:
        broker = LocalBroker().start()
    except BrokerUnavailable as exc:
        pytest.skip(str(exc))
    data = tmp_path / "data"
    prepare(None, data)
    port = free_port()
    dash = start(data, broker.url, port)
    try:
        c = session(port)
        events = game("T1", "S1", seed=3, hands=3)

        async def play() -> int:
            async with MqttBus(broker.url, "local") as bus:
                assert await bus.wait_connected(10)  # type: ignore[attr-defined]
                rig = SimRig(bus, "T1", "S1", events)
                await rig.start()
                await rig.play(len(events))
                await rig.publish_state()
                return len(rig.log)

        total = asyncio.run(play())
        deadline = time.monotonic() + 30
        while c.get("/api/tables/T1").json().get("last_seq") != total - 1:
            assert time.monotonic() < deadline, "the dashboard did not ingest the session"
            time.sleep(0.1)
        before, again = None, seen(c)
        while again != before:  # the engine's outputs may still be coming in: settled twice
            assert time.monotonic() < deadline, "the dashboard's state did not settle"
            time.sleep(0.3)
            before, again = again, seen(c)
        assert before is not None
        assert before["alerts"] and before["sheets"]
        dash.kill()
        dash.wait(10)
        dash = start(data, broker.url, port)
        after = seen(session(port))
        assert after == before
    finally:
        dash.kill()
        dash.wait(10)
        broker.close()
