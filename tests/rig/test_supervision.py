"""Supervision in simulated time: a failing input is restarted with back-off and reported
(ok / degraded / down, since, restarts) without stopping the core; an input silent past its
limit raises a RIG-INPUT alert citing it, and a second one when it is heard again."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from rig.bus import topic_filter
from rig.bus.memory import MemoryBus
from rig.config import parse
from rig.inputs import Health, Input, Sink, Supervisor
from rig.runtime import Rig
from table_io.clock import FakeClock


class Flaky(Input):
    name = "flaky"

    def __init__(self, clock: FakeClock, failures: int) -> None:
        self.clock = clock
        self.failures = failures
        self.starts: list[float] = []

    async def run(self, sink: Sink) -> None:
        self.starts.append(self.clock.now())
        if len(self.starts) <= self.failures:
            raise OSError("device unplugged")


def test_a_failing_input_restarts_with_backoff_and_is_reported() -> None:
    async def scenario() -> None:
        clock = FakeClock(0.0)
        seen: list[tuple[str, int]] = []

        def changed(name: str, h: Health) -> None:
            seen.append((h.state, h.restarts))

        sup = Supervisor(clock, (1.0, 4.0), changed)
        flaky = Flaky(clock, failures=5)
        task = asyncio.create_task(sup.supervise(flaky, sink=None))  # type: ignore[arg-type]
        await asyncio.sleep(0)  # it starts at t = 0
        for _ in range(40):
            await clock.advance(0.5)
        await task
        assert flaky.starts == [0.0, 1.0, 3.0, 7.0, 11.0, 15.0]  # 1, 2, 4, then capped at 4 s
        h = sup.health["flaky"]
        assert (h.state, h.restarts, h.finished, h.detail) == ("ok", 5, True, "finished")
        assert ("degraded", 1) in seen and ("down", 4) in seen  # more than 3 failures: down
        assert h.to_json()["restarts"] == 5

    asyncio.run(scenario())


def test_a_silent_camera_is_alerted_and_its_return_too(tmp_path: Path) -> None:
    camera = tmp_path / "cam.jsonl"
    camera.write_text("", encoding="utf-8")
    payload = {"sensor": "camera", "kind": "zone", "data": {}}
    line = {"table_id": "X", "session_id": "X", "seq": 0, "ts": 0, "source": "vision",
            "type": "observation", "payload": payload}  # fmt: skip

    async def scenario() -> None:
        clock = FakeClock(0.0)
        cfg = parse(
            {
                "table": {"log": str(tmp_path / "t.sqlite")},
                "camera": {"file": str(camera), "follow": True, "silent_after": 30},
            }
        )
        bus = MemoryBus()
        rig = Rig(cfg, bus, clock=clock)
        alerts = await bus.subscribe(topic_filter("local", "T1", "alerts"))
        await rig.start()
        for _ in range(20):
            await clock.advance(1.0)
        assert await alerts.get(0.05) is None  # 20 s of silence: within the limit
        for _ in range(15):
            await clock.advance(1.0)
        await asyncio.sleep(0.01)
        m = await alerts.get(1)
        assert m is not None
        p = m.payload["payload"]
        assert (p["rule"], p["input"], p["severity"]) == ("RIG-INPUT", "camera", "warning")
        assert "silent for 3" in p["message"] and "limit 30 s" in p["message"]
        assert rig.status()["inputs"]["camera"]["health"] == "degraded"
        with camera.open("a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
        for _ in range(5):
            await clock.advance(0.1)
        await rig.idle(5)
        back = await alerts.get(1)
        assert back is not None and back.payload["payload"]["severity"] == "info"
        assert rig.status()["inputs"]["camera"]["health"] == "ok"
        ev = next(iter(rig.store.events("T1", "S1")))
        assert ev.type == "observation" and ev.evidence == ("camera:1",)
        await rig.stop()

    asyncio.run(scenario())


def test_metrics_over_http_and_in_the_status(tmp_path: Path) -> None:
    import urllib.request

    from referee.events import Observation, Source
    from rig.bus.broker import free_port
    from rig.inputs import Draft

    port = free_port()

    async def scenario() -> tuple[str, dict[str, object]]:
        cfg = parse({"table": {"log": str(tmp_path / "m.sqlite")}, "metrics": {"port": port}})
        rig = Rig(cfg, MemoryBus())
        await rig.start()
        for i in range(5):
            rig.submit(
                "test", Draft(Observation(sensor="t", kind="k", data={"i": i}), Source.VISION)
            )
        assert await rig.idle(10)
        url = f"http://127.0.0.1:{port}/metrics"
        text = await asyncio.to_thread(
            lambda: urllib.request.urlopen(url, timeout=10).read().decode()
        )
        figures = rig.status()["metrics"]
        await rig.stop()
        return text, figures

    text, figures = asyncio.run(scenario())
    assert "mjref_rig_events_total 5.0" in text
    assert "mjref_rig_publish_lag_seconds_count" in text and "mjref_rig_memory_mb" in text
    assert figures["events"] == 5
    assert set(figures) >= {"events_per_s", "publish_lag_p99_ms", "cpu_percent", "memory_mb"}
