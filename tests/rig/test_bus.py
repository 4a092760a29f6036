"""The bus interface on both implementations (in-process and a real mosquitto), and the
consumer's exactly-once, in-order ingest with gap detection (rig/BUS.md)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from rig.bus import Bus, BusMessage, Kind, topic, topic_filter
from rig.bus.broker import LocalBroker
from rig.bus.feed import Feed, Resend
from rig.bus.memory import MemoryBus
from rig.bus.mqtt import MqttBus, parse_url


def env(seq: int, source: str = "table", session: str = "S1") -> dict[str, Any]:
    return {
        "v": 1,
        "table_id": "T1",
        "session_id": session,
        "seq": seq,
        "ts": float(seq),
        "source": source,
        "type": "observation",
        "payload": {},
    }


def msg(kind: Kind, payload: dict[str, Any]) -> BusMessage:
    m = BusMessage.parse(topic("hall", "T1", kind), json.dumps(payload))
    assert m is not None
    return m


BusFactory = Callable[[], Awaitable[Bus]]


@pytest.fixture(params=["memory", "mqtt"])
def make_bus(request: pytest.FixtureRequest) -> BusFactory:
    """Builds the bus inside the test's own event loop."""
    if request.param == "memory":

        async def memory() -> Bus:
            return MemoryBus("hall")

        return memory
    b: LocalBroker = request.getfixturevalue("broker")

    async def mqtt() -> Bus:
        m = MqttBus(b.url, "hall")
        await m.start()
        assert await m.wait_connected(10)
        return m

    return mqtt


def test_events_in_order_and_retained_state_for_a_late_subscriber(make_bus: BusFactory) -> None:
    asyncio.run(_events_and_state(make_bus))


def test_a_command_reaches_the_table_it_names(make_bus: BusFactory) -> None:
    asyncio.run(_command(make_bus))


async def _events_and_state(make_bus: BusFactory) -> None:
    bus = await make_bus()
    sub = await bus.subscribe(topic_filter("hall", "T1", "events"))
    for i in range(50):
        await bus.publish_event("T1", env(i))
    await bus.publish_state("T1", {"session_id": "S1", "last_seq": 49})
    got = [await sub.get(5) for _ in range(50)]
    assert [m.payload["seq"] for m in got if m is not None] == list(range(50))
    assert all(m is not None and m.kind == "events" and m.table == "T1" for m in got)
    late = await bus.subscribe(topic_filter("hall", None, "state"))
    state = await late.get(5)
    assert state is not None and state.retained and state.payload["last_seq"] == 49
    assert await sub.get(0.2) is None  # the state went to the state topic only
    await bus.close()


async def _command(make_bus: BusFactory) -> None:
    bus = await make_bus()
    t1 = await bus.subscribe(topic_filter("hall", "T1", "cmd"))
    t2 = await bus.subscribe(topic_filter("hall", "T2", "cmd"))
    await bus.send_command("T1", "resend_from", {"seq": 7})
    m = await t1.get(5)
    assert m is not None and (m.kind, m.name, m.payload) == ("cmd", "resend_from", {"seq": 7})
    assert await t2.get(0.2) is None
    await bus.close()


def test_mqtt_url_errors_name_the_expected_form() -> None:
    assert parse_url("mqtt://10.0.0.2:1884") == ("10.0.0.2", 1884)
    assert parse_url("broker.local") == ("broker.local", 1883)
    for bad in ("http://x", "mqtt://:1883", "mqtt://h:port"):
        with pytest.raises(ValueError, match=r"expected mqtt://HOST\[:PORT\]"):
            parse_url(bad)


def test_messages_outside_the_tree_are_not_bus_messages() -> None:
    assert BusMessage.parse("other/v1/hall/T1/events", "{}") is None
    assert BusMessage.parse("mjref/v1/hall/T1/events", "[1]") is None
    assert BusMessage.parse("mjref/v1/hall/T1/events", "not json") is None
    assert BusMessage.parse("mjref/v1/hall/T1/cmd", "{}") is None
    assert BusMessage.parse("mjref/v1/hall/T1/cmd/ping", "{}") is not None


# ---- the consumer ----------------------------------------------------------------------------


def test_feed_delivers_once_in_order_and_asks_for_a_hole() -> None:
    feed = Feed(retry_after=1.0)
    out, resend = feed.take(msg("events", env(0)), now=0.0)
    assert [e["seq"] for e in out] == [0] and resend == []
    out, resend = feed.take(msg("events", env(0)), now=0.1)  # a duplicate
    assert out == [] and feed.duplicates == 1
    out, resend = feed.take(msg("events", env(3)), now=0.2)  # 1 and 2 are missing
    assert out == [] and resend == [Resend("T1", "S1", "log", 1)]
    assert feed.take(msg("events", env(4)), now=0.3) == ([], [])  # asked already, not again yet
    assert feed.due(now=1.3) == [Resend("T1", "S1", "log", 1)]  # no answer: asked again
    assert feed.due(now=2.5) == []  # and then after twice as long (a rig busy resending)
    assert feed.due(now=3.4) == [Resend("T1", "S1", "log", 1)]
    out, _ = feed.take(msg("events", env(1)), now=3.5)
    assert [e["seq"] for e in out] == [1]
    out, resend = feed.take(msg("events", env(2)), now=3.6)
    assert [e["seq"] for e in out] == [2, 3, 4] and resend == [] and feed.complete()


def test_feed_keeps_streams_and_sessions_apart_and_sees_a_tail_gap_in_the_state() -> None:
    feed = Feed()
    assert feed.take(msg("events", env(0, source="engine")), 0.0)[0]
    assert feed.take(msg("events", env(0, session="S2")), 0.0)[0]
    out, resend = feed.take(msg("state", {"session_id": "S2", "last_seq": 2, "out_seq": 0}), 0.0)
    assert out == [] and resend == [Resend("T1", "S2", "log", 1)]
    assert not feed.complete()
    feed.take(msg("events", env(1, session="S2")), 0.1)
    feed.take(msg("events", env(2, session="S2")), 0.2)
    assert feed.complete()


def test_a_rig_alert_without_seq_passes_through() -> None:
    feed = Feed()
    alert = {"v": 1, "table_id": "T1", "source": "rig", "type": "alert", "payload": {}}
    assert feed.take(msg("alerts", alert), 0.0) == ([alert], [])


def test_a_feed_seeks_to_where_a_consumer_stands() -> None:
    """A consumer restarting from its store continues each stream after what it holds."""
    feed = Feed()
    assert feed.position("T1", "S1") == 0
    feed.seek("T1", "S1", 5)
    assert feed.position("T1", "S1") == 5 and feed.position("T1", "S1", "engine") == 0
    out, resend = feed.take(msg("events", env(3)), now=0.0)  # stored already
    assert out == [] and resend == [] and feed.duplicates == 1
    out, resend = feed.take(msg("events", env(7)), now=0.1)  # 5 and 6 missing
    assert out == [] and resend == [Resend("T1", "S1", "log", 5)]
    feed.seek("T1", "S1", 7)  # 5 and 6 came from elsewhere: what was held goes on
    assert [e["seq"] for e in feed.take(msg("events", env(8)), now=0.2)[0]] == [7, 8]
    assert feed.complete() and feed.position("T1", "S1") == 9


def test_a_resend_coming_in_is_not_asked_for_again() -> None:
    """Each answer that moves the stream on restarts the wait: a rig resending a long tail is
    not asked for the rest of it while it is still sending."""
    feed = Feed(retry_after=1.0)
    feed.take(msg("events", env(0)), now=0.0)
    assert feed.take(msg("events", env(9)), now=0.1)[1] == [Resend("T1", "S1", "log", 1)]
    for i, seq in enumerate(range(1, 6)):  # the resend streams in
        out, resend = feed.take(msg("events", env(seq)), now=0.5 + i * 0.5)
        assert [e["seq"] for e in out] == [seq] and resend == []
    assert feed.due(now=3.2) == []  # the last answer came at 2.5
    assert feed.due(now=3.6) == [Resend("T1", "S1", "log", 6)]  # it stopped: asked again


def test_a_tail_resend_coming_in_is_not_asked_for_again() -> None:
    """The same for a tail the retained state revealed (nothing held past it)."""
    feed = Feed(retry_after=1.0)
    feed.take(msg("events", env(0)), now=0.0)
    _, resend = feed.take(msg("state", {"session_id": "S1", "last_seq": 6}), now=0.1)
    assert resend == [Resend("T1", "S1", "log", 1)]
    for i, seq in enumerate(range(1, 4)):
        assert feed.take(msg("events", env(seq)), now=0.6 + i * 0.6)[1] == []
    assert feed.due(now=2.7) == []  # the last answer came at 1.8
    assert feed.due(now=3.0) == [Resend("T1", "S1", "log", 4)]
