"""Driving a real dashboard in tests: a migrated database, the app on the in-process bus, a
logged-in client with its CSRF token, simulated tables on the app's own event loop."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from dashboard.app import create_app
from dashboard.auth import add_user
from dashboard.db import make_engine, session_factory
from dashboard.db.migrate import upgrade
from dashboard.settings import Settings
from dashboard.simrig import SimRig
from rig.bus import Bus
from rig.bus.memory import MemoryBus
from rig.bus.mqtt import MqttBus

PASSWORD = "correct horse battery"
ROLES = ("head_referee", "referee", "scorekeeper", "viewer")


def prepare(db: str | None, data: Path) -> Settings:
    data.mkdir(parents=True, exist_ok=True)
    settings = Settings(data=data, db=db, login_failures=3)
    engine = make_engine(settings.db_url)
    upgrade(engine)
    factory = session_factory(engine)
    for role in ROLES:
        add_user(factory, role, role, PASSWORD, time.time())
    engine.dispose()
    return settings


class Dash:
    """A started app (``with Dash(...) as d``) with a client per role; on the in-process bus,
    or ``mqtt`` (a broker's URL): the dashboard and each rig with a connection of their own."""

    def __init__(self, settings: Settings, mqtt: str | None = None) -> None:
        self.settings = settings
        self.mqtt = mqtt
        self.bus: Bus = MqttBus(mqtt, settings.venue) if mqtt else MemoryBus(settings.venue)
        self.app = create_app(settings, bus=self.bus, flush_every=0.05)
        self.client = TestClient(self.app)
        self.rigs: list[SimRig] = []

    def __enter__(self) -> Dash:
        self.client.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        for rig in self.rigs:
            self.call(rig.stop)
            if rig.bus is not self.bus:
                self.call(rig.bus.close)
        self.client.__exit__(*exc)

    @property
    def svc(self) -> Any:
        return self.app.state.services

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a coroutine function on the app's event loop."""
        portal = self.client.portal
        assert portal is not None
        return portal.call(fn, *args)

    def login(self, role: str) -> tuple[TestClient, str]:
        """A new client logged in as ``role``; its CSRF token."""
        c = TestClient(self.app, base_url="http://testserver")
        c.portal = self.client.portal  # the app's loop (its bus), not a fresh one per request
        c.get("/login")
        r = c.post(
            "/api/session",
            json={"name": role, "password": PASSWORD},
            headers={"X-CSRF-Token": c.cookies.get("mjref_login_csrf", "")},
        )
        assert r.status_code == 200, r.text
        return c, str(r.json()["csrf"])

    def rig(self, table: str, events: list[Any], session: str = "S1") -> SimRig:
        rig = SimRig(self.bus, table, session, events)
        self.call(rig.start)
        self.rigs.append(rig)
        return rig

    def wait(self, ok: Callable[[], bool], timeout: float = 10.0) -> None:
        """Wait on the app's ingest (real work on another thread) until ``ok()`` and what it
        applied is stored (the writer runs behind the live state)."""
        deadline = time.monotonic() + timeout
        while not (ok() and self.svc.ingest.backlog == 0):
            if time.monotonic() > deadline:
                raise AssertionError("timed out waiting for the dashboard")
            time.sleep(0.01)

    def seq(self, table: str) -> int:
        lt = self.svc.live.tables.get(table)
        return -1 if lt is None else int(lt.last_seq)


class LiveServer:
    """The app served by uvicorn on a free port in a thread of its own (browser tests); the
    simulated tables run on the server's event loop through :meth:`call`."""

    def __init__(self, settings: Settings) -> None:
        import asyncio
        import socket
        import threading

        import uvicorn

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.bus = MemoryBus(settings.venue)
        self.app = create_app(settings, bus=self.bus, flush_every=0.1)
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on"
        )
        self.server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_until_complete, args=(self.server.serve(),), daemon=True
        )
        self.rigs: list[SimRig] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def svc(self) -> Any:
        return self.app.state.services

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the dashboard did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        for rig in self.rigs:
            self.call(rig.stop)
        self.server.should_exit = True
        self.thread.join(10)

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        import asyncio

        return asyncio.run_coroutine_threadsafe(fn(*args), self.loop).result(30)

    def rig(self, table: str, events: list[Any], session: str = "S1") -> SimRig:
        rig = SimRig(self.bus, table, session, events)
        self.call(rig.start)
        self.rigs.append(rig)
        return rig

    def seq(self, table: str) -> int:
        lt = self.svc.live.tables.get(table)
        return -1 if lt is None else int(lt.last_seq)

    def wait(self, ok: Callable[[], bool], timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while not (ok() and self.svc.ingest.backlog == 0):
            if time.monotonic() > deadline:
                raise AssertionError("timed out waiting for the dashboard")
            time.sleep(0.02)
