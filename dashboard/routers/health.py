"""``/healthz`` (no auth: load balancers and systemd ask it) and ``/metrics`` (Prometheus)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel

from dashboard.services import services

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: str
    database: str
    bus: str
    tables: int


@router.get("/healthz", response_model=Health)
def healthz(request: Request) -> Health:
    svc = services(request)
    return Health(
        status="ok",
        database=svc.engine.dialect.name,
        bus=type(svc.bus).__name__,
        tables=len(svc.live.tables),
    )


@router.get("/metrics", response_class=Response)
def metrics(request: Request) -> Response:
    svc = services(request)
    svc.metrics.tables.set(len(svc.live.tables))
    return Response(generate_latest(svc.metrics.registry), media_type=CONTENT_TYPE_LATEST)
