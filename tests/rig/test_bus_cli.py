"""`mjref bus tail` and `mjref bus send` against a real mosquitto, and `mjref rig` answering a
command sent that way (a referee's event logged with source ``referee``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from rig.bus import topic_filter
from rig.bus.broker import LocalBroker
from rig.bus.mqtt import MqttBus
from rig.bus_cli import command_payload
from rig.cli import main as mjref
from rig.config import parse
from rig.rig_cli import make_bus
from rig.runtime import Rig


def test_command_payload_forms() -> None:
    assert command_payload(["seq=5", "stream=engine"]) == {"seq": 5, "stream": "engine"}
    assert command_payload(['{"type": "table_paused"}']) == {"type": "table_paused"}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        command_payload(["seq"])


def test_send_and_bad_arguments(broker: LocalBroker, capsys: pytest.CaptureFixture[str]) -> None:
    async def scenario() -> tuple[int, dict[str, object] | None]:
        bus = MqttBus(broker.url, "hall")
        await bus.start()
        assert await bus.wait_connected(10)
        sub = await bus.subscribe(topic_filter("hall", "T1", "cmd"))
        code = await asyncio.to_thread(
            mjref,
            ["bus", "send", "--mqtt", broker.url, "--venue", "hall", "T1", "resend_from", "seq=3"],
        )
        m = await sub.get(10)
        await bus.close()
        return code, None if m is None else m.payload

    assert asyncio.run(scenario()) == (0, {"seq": 3})
    assert mjref(["bus", "send", "--mqtt", broker.url, "T1", "reboot"]) == 2
    assert mjref(["bus", "send", "--mqtt", "http://x", "T1", "ping"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'reboot'; expected one of resend_from, event, ping" in err
    assert "expected mqtt://HOST[:PORT]" in err


@pytest.mark.slow
def test_tail_shows_a_rig_obeying_a_referee_command(
    tmp_path: Path, broker: LocalBroker, capsys: pytest.CaptureFixture[str]
) -> None:
    async def scenario() -> list[tuple[str, str]]:
        cfg = parse(
            {
                "table": {"id": "T5", "venue": "hall", "log": str(tmp_path / "t5.sqlite")},
                "bus": {"mqtt": broker.url, "state_every": 0.05},
            }
        )
        rig = Rig(cfg, make_bus(cfg))
        await rig.start()
        tail = asyncio.create_task(
            asyncio.to_thread(
                mjref, ["bus", "tail", "--mqtt", broker.url, "--venue", "hall", "--seconds", "4"]
            )
        )
        await asyncio.sleep(1.0)  # the tail subscribes (a real process start-up, not simulated)
        event = {"type": "session_started", "payload": {"players": ["A", "B", "C", "D"]}}
        code = await asyncio.to_thread(
            mjref,
            [
                "bus",
                "send",
                "--mqtt",
                broker.url,
                "--venue",
                "hall",
                "T5",
                "event",
                json.dumps(event),
            ],
        )
        assert code == 0
        assert await tail == 0
        logged = [(e.type, str(e.source)) for e in rig.store.events("T5", "S1")]
        await rig.stop()
        return logged

    assert asyncio.run(scenario()) == [("session_started", "referee")]
    out = capsys.readouterr().out.splitlines()
    assert any(x.startswith("T5 status online") for x in out), out
    assert any(x.startswith("T5 cmd/event ") for x in out)
    assert any(x.startswith("T5 events S1 log#0 referee session_started") for x in out), out
    assert any(x.startswith("T5 state last_seq=0") for x in out)
