"""The rig's figures (events/s, publish lag, CPU, memory, input health) for ``status`` and for
``/metrics`` in the Prometheus text format (prometheus-client, on its own registry)."""

from __future__ import annotations

import resource
import time
from collections import deque

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

HEALTH = {"ok": 0, "degraded": 1, "down": 2}


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            pages = int(f.read().split()[1])
        return pages * resource.getpagesize() / 2**20
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.events = Counter("mjref_rig_events", "events logged", registry=self.registry)
        self.published = Counter(
            "mjref_rig_published", "messages published", registry=self.registry
        )
        self.publish_errors = Counter(
            "mjref_rig_publish_errors", "publish attempts that failed", registry=self.registry
        )
        self.lag = Histogram(
            "mjref_rig_publish_lag_seconds",
            "from an input's submission to its events on the bus",
            buckets=(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0, 5.0),
            registry=self.registry,
        )
        self.health = Gauge(
            "mjref_rig_input_health", "0 ok, 1 degraded, 2 down", ["input"], registry=self.registry
        )
        self.cpu = Gauge("mjref_rig_cpu_percent", "CPU of the rig process", registry=self.registry)
        self.rss = Gauge("mjref_rig_memory_mb", "resident memory", registry=self.registry)
        self._recent: deque[float] = deque(maxlen=5000)
        self._times: deque[tuple[float, int]] = deque(maxlen=64)
        self._count = 0
        self._cpu_mark = (time.monotonic(), time.process_time())

    def serve(self, port: int) -> None:
        start_http_server(port, addr="127.0.0.1", registry=self.registry)

    def logged(self, n: int) -> None:
        self._count += n
        self.events.inc(n)

    def delivered(self, lag: float) -> None:
        self._recent.append(lag)
        self.lag.observe(lag)

    def figures(self) -> dict[str, float | int]:
        """What ``status`` carries; also refreshes the CPU and memory gauges."""
        now = time.monotonic()
        self._times.append((now, self._count))
        t0, n0 = self._times[0]
        rate = (self._count - n0) / (now - t0) if now > t0 else 0.0
        wall0, cpu0 = self._cpu_mark
        cpu_now = time.process_time()
        cpu = 100.0 * (cpu_now - cpu0) / (now - wall0) if now > wall0 else 0.0
        self._cpu_mark = (now, cpu_now)
        self.cpu.set(cpu)
        rss = _rss_mb()
        self.rss.set(rss)
        lags = sorted(self._recent)

        def pct(q: float) -> float:
            return 1000 * lags[min(len(lags) - 1, int(q * len(lags)))] if lags else 0.0

        return {
            "events": self._count,
            "events_per_s": round(rate, 2),
            "publish_lag_p50_ms": round(pct(0.5), 2),
            "publish_lag_p99_ms": round(pct(0.99), 2),
            "cpu_percent": round(cpu, 1),
            "memory_mb": round(rss, 1),
        }
