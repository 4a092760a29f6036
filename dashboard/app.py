"""The app factory: ``create_app(settings)`` wires storage, the bus, the ingest and the routers.

It refuses a database with unapplied migrations (:class:`dashboard.db.migrate.SchemaOutdated`,
naming the command), and rebuilds the live state from the stored events before it serves.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from dashboard import views
from dashboard.auth import LoginThrottle
from dashboard.clip_keeper import ClipKeeper
from dashboard.db import make_engine, session_factory
from dashboard.db.migrate import require_current
from dashboard.hub import Hub
from dashboard.ingest import Ingest
from dashboard.live import LiveState
from dashboard.metrics import DashMetrics
from dashboard.outbox import Outbox
from dashboard.routers import (
    alerts,
    audit,
    clips,
    commands,
    exports,
    health,
    pages,
    review,
    rigs,
    session,
    sheets,
    standings,
    tables,
    tournament,
    tournament_pages,
    ws,
)
from dashboard.services import Services
from dashboard.settings import Settings
from dashboard.tournament import store as tournament_store
from dashboard.tournament.rounds import rig_online
from dashboard.tournament.sessions import apply_fixes
from rig.bus import Bus
from rig.bus.memory import MemoryBus

STATIC = Path(__file__).parent / "static"
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self' ws: wss:; frame-ancestors 'none'"
)


def db_hint(settings: Settings) -> str:
    """The CLI arguments that name this database again (for messages)."""
    return f" --db {settings.db}" if settings.db else f" --data {settings.data}"


def make_bus(settings: Settings) -> Bus:
    if settings.mqtt:
        from rig.bus.mqtt import MqttBus

        return MqttBus(settings.mqtt, settings.venue)
    return MemoryBus(settings.venue)


def create_app(
    settings: Settings,
    *,
    bus: Bus | None = None,
    clock: Callable[[], float] = time.time,
    flush_every: float = 0.5,
) -> FastAPI:
    problems = settings.check()
    if problems:
        raise ValueError("; ".join(problems))
    if settings.db is None:
        settings.data.mkdir(parents=True, exist_ok=True)
    engine = make_engine(settings.db_url)
    require_current(engine, db_hint(settings))
    factory = session_factory(engine)
    metrics = DashMetrics()
    live = LiveState()
    hub = Hub(metrics, flush_every)
    hub.summary = lambda: {"open_alerts": views.open_total(live)}
    the_bus = bus or make_bus(settings)
    outbox = Outbox(the_bus, factory, live, hub, clock)
    ingest = Ingest(the_bus, factory, live, hub, metrics, clock, outbox=outbox)
    svc = Services(
        settings=settings,
        engine=engine,
        factory=factory,
        bus=the_bus,
        live=live,
        hub=hub,
        ingest=ingest,
        outbox=outbox,
        metrics=metrics,
        throttle=LoginThrottle(settings.login_failures, settings.login_window, clock),
        clock=clock,
    )

    async def tell_round(rig: str) -> None:
        await rig_online(the_bus, tournament_store.load(factory), rig)

    ingest.on_online = tell_round

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        ingest.restore()
        outbox.restore()  # after the replay: what the log shows applied is marked so
        day = tournament_store.load(factory)
        if day is not None:  # the day's corrections, as the restored sessions are read
            apply_fixes(live, day)
        await hub.start()
        await the_bus.start()
        await ingest.start()
        await outbox.resume()  # what waited for a rig while the dashboard was down
        keeping = asyncio.create_task(ClipKeeper(svc).run(), name="clip keeper")
        svc.background.add(keeping)  # every alert's clips copied as soon as its rig has them
        try:
            yield
        finally:
            for task in set(svc.background):  # clips still being kept: the next decision's
                task.cancel()
            await ingest.stop()
            await hub.stop()
            await the_bus.close()
            engine.dispose()

    app = FastAPI(
        title="mjref dashboard",
        version="1",
        lifespan=lifespan,
        description="Referees' dashboard and venue service (WMC rules): alerts, decisions, "
        "tables, score sheets, standings, audit.",
    )
    app.state.services = svc
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for module in (
        health,
        session,
        tables,
        alerts,
        commands,
        clips,
        sheets,
        standings,
        audit,
        exports,
        rigs,
        review,
        tournament,
        tournament_pages,
        ws,
        pages,
    ):
        app.include_router(module.router)

    @app.middleware("http")
    async def headers(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        metrics.requests.labels(request.method, str(response.status_code)).inc()
        return response

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        wants_page = request.method == "GET" and not request.url.path.startswith(
            ("/api/", "/export/")
        )
        if exc.status_code == 401 and wants_page:
            return RedirectResponse(f"/login?next={request.url.path}", status_code=303)
        return JSONResponse(
            {"detail": exc.detail},
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    return app
