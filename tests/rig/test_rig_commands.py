"""A referee's command (``cmd/event``) carries its id: the rig logs it once however often it
comes (the dashboard sends it again until it sees it logged), across a restart and a session
switch, cites the id in the logged event's evidence, and names the id when it refuses one.

A real rig with no devices, in simulated time, on the in-process bus and over MQTT (a private
mosquitto)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from referee.events import Event
from rig.bus import Bus, Subscription, topic_filter
from rig.bus.broker import LocalBroker
from rig.bus.commands import Refusal, cite, event_command, refusal
from rig.bus.memory import MemoryBus
from rig.bus.mqtt import MqttBus
from rig.config import parse
from rig.runtime import Rig
from table_io.clock import FakeClock

PAUSE = event_command("table_paused", {}, "c-pause-1")
PLAYERS = {"E": "Ann", "S": "Bo", "W": "Chen", "N": "Dai"}
_marks = itertools.count()

BusMaker = Callable[[], Bus]


@pytest.fixture(params=["memory", "mqtt"])
def make_bus(request: pytest.FixtureRequest) -> BusMaker:
    """The rig's bus and its client's (the dashboard's side): the in-process bus (one, shared,
    as in one process), or a connection of each to a private broker."""
    if request.param == "memory":
        shared = MemoryBus("hall")
        return lambda: shared
    b: LocalBroker = request.getfixturevalue("broker")
    return lambda: MqttBus(b.url, "hall")


@asynccontextmanager
async def started(tmp: Path, make_bus: BusMaker) -> AsyncIterator[tuple[Rig, Bus]]:
    """A started rig of table T1 on its log in ``tmp`` and a connected client of its bus."""
    table = {"id": "T1", "session": "S1", "venue": "hall", "log": str(tmp / "t1.sqlite")}
    cfg = parse({"table": table, "bus": {"state_every": 0.01}})
    rig = Rig(cfg, make_bus(), clock=FakeClock(0.0))
    await rig.start()
    client = make_bus()
    for bus in {rig.bus, client}:
        if isinstance(bus, MqttBus):
            if bus is client:
                await bus.start()
            assert await bus.wait_connected(10)
    assert await rig.idle()
    try:
        yield rig, client
    finally:
        await rig.stop()
        if client is not rig.bus:
            await client.close()


async def taken(rig: Rig, client: Bus, *commands: dict[str, Any]) -> None:
    """Send ``commands`` (cmd/event), then a marker note on the same topic, and wait until the
    marker is logged: every command before it has been taken (logged, dropped or refused)."""
    mark = f"c-mark-{next(_marks)}"
    note = {"referee": "r", "decision": "note", "reason": mark}
    for command in (*commands, event_command("referee_decision", note, mark)):
        await client.send_command("T1", "event", command)
    for _ in range(1000):
        if any(cite(mark) in e.evidence for e in rig.store.events("T1", rig.session_id)):
            break
        await asyncio.sleep(0.01)
    assert await rig.idle()


def logged(rig: Rig, type_: str, session: str = "S1") -> list[Event]:
    return [e for e in rig.store.events("T1", session) if e.type == type_]


def run(main: Callable[[], Any]) -> None:
    asyncio.run(asyncio.wait_for(main(), 30))


def test_a_command_sent_twice_is_logged_once_citing_its_id_even_after_a_restart(
    tmp_path: Path, make_bus: BusMaker
) -> None:
    async def main() -> None:
        async with started(tmp_path, make_bus) as (rig, client):
            await taken(rig, client, PAUSE, PAUSE)  # the dashboard sent it again
            paused = logged(rig, "table_paused")
            assert len(paused) == 1
            assert paused[0].source == "referee" and paused[0].evidence == (cite("c-pause-1"),)
            await taken(rig, client, event_command("table_resumed", {}, "c-resume-1"))
            assert len(logged(rig, "table_resumed")) == 1  # another id: logged
        async with started(tmp_path, make_bus) as (rig, client):  # restarted on its log
            await taken(rig, client, PAUSE)
            assert len(logged(rig, "table_paused")) == 1

    run(main)


def test_a_command_logged_before_a_session_switch_is_not_logged_again_after_it(
    tmp_path: Path,
) -> None:
    bus = MemoryBus("hall")

    async def main() -> None:
        async with started(tmp_path, lambda: bus) as (rig, client):
            await taken(rig, client, PAUSE)
            await client.send_command("T1", "round", {"session_id": "S2", "players": PLAYERS})
            assert await rig.idle() and rig.session_id == "S2"
            await taken(rig, client, PAUSE)
            assert len(logged(rig, "table_paused", "S1")) == 1
            assert logged(rig, "table_paused", "S2") == []

    run(main)


def rig_alerts(alerts: Subscription) -> list[dict[str, Any]]:
    out = []
    while not alerts.queue.empty():
        m = alerts.queue.get_nowait()
        assert m is not None
        if m.payload["source"] == "rig":
            out.append(m.payload["payload"])
    return out


def test_a_refused_command_is_answered_naming_its_id(tmp_path: Path) -> None:
    bus = MemoryBus("hall")

    async def main() -> None:
        async with started(tmp_path, lambda: bus) as (rig, client):
            alerts = await client.subscribe(topic_filter("hall", "T1", "alerts"))
            await taken(
                rig,
                client,
                {"id": "c-bad-1", "type": "no_such_event", "payload": {}},
                {"id": "c-bad-2", "type": "clock_extended", "payload": {"seconds": 10}},
                {"id": "not an id!", "type": "table_paused", "payload": {}},
            )
            said = rig_alerts(alerts)
            assert len(said) == 3 and all(p["input"] == "commands" for p in said)
            assert [refusal(p) for p in said[:2]] == [
                Refusal("c-bad-1", said[0]["message"]),
                Refusal("c-bad-2", said[1]["message"]),
            ]
            assert "unknown event type 'no_such_event'" in said[0]["message"]
            assert "seat" in said[1]["message"]  # the payload's missing field is named
            assert refusal(said[2]) is None  # no id to name: a malformed one is not one
            assert "expected a command id of 1 to 64 letters" in said[2]["message"]
            assert logged(rig, "table_paused") == [] and logged(rig, "clock_extended") == []

    run(main)
