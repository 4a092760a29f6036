"""What every router reaches through ``request.app.state.services``: one object per app."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from fastapi import Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from dashboard.auth import LoginThrottle
from dashboard.hub import Hub
from dashboard.ingest import Ingest
from dashboard.live import LiveState
from dashboard.metrics import DashMetrics
from dashboard.outbox import Outbox
from dashboard.settings import Settings
from rig.bus import Bus


@dataclass
class Services:
    settings: Settings
    engine: Engine
    factory: sessionmaker[Session]
    bus: Bus
    live: LiveState
    hub: Hub
    ingest: Ingest
    outbox: Outbox  # the referees' commands to the rigs, kept until logged
    metrics: DashMetrics
    throttle: LoginThrottle
    clock: Callable[[], float] = time.time
    started: float = field(default_factory=time.time)
    background: set[asyncio.Task[None]] = field(default_factory=set)  # e.g. keeping clips


def services(request: Request) -> Services:
    svc: Services = request.app.state.services
    return svc
