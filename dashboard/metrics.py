"""Prometheus figures of the dashboard, on a registry of its own (one per app)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram


class DashMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.ingested = Counter("mjref_dash_events_ingested", "log events stored", registry=r)
        self.duplicates = Counter("mjref_dash_duplicates", "events seen again", registry=r)
        self.resends = Counter("mjref_dash_resends", "cmd/resend_from sent", registry=r)
        self.pushed = Counter("mjref_dash_pushed", "messages pushed to clients", registry=r)
        self.clients = Gauge("mjref_dash_clients", "connected live clients", registry=r)
        self.tables = Gauge("mjref_dash_tables", "tables with a live state", registry=r)
        self.requests = Counter(
            "mjref_dash_requests", "HTTP requests", ["method", "status"], registry=r
        )
        self.ingest_seconds = Histogram(
            "mjref_dash_ingest_seconds", "bus message to push", registry=r
        )
