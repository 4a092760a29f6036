"""SIGKILL of the rig process at random points (several seeds) → restart → the state equals a
replay of the acknowledged log, the sequence resumes without a gap, and a subscriber sees every
event once; the broker announces the killed rig with its last-will ``offline`` status. A clean
stop publishes every event it logged, even with its window of unacknowledged publishes full."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.duties import RefereeTable
from referee.events import Observation, Source
from referee.store import EventStore
from rig import runtime
from rig.bus import Kind, topic_filter
from rig.bus.broker import LocalBroker
from rig.bus.feed import Feed, follow
from rig.bus.memory import MemoryBus
from rig.bus.mqtt import MqttBus
from rig.config import parse
from rig.inputs import Draft
from rig.runtime import Rig, state_digest
from table_io.sim.endpoints import PtyEndpoint
from table_io.sim.fake_table import FakeTable

REPO = Path(__file__).resolve().parents[2]
WAIT = 120.0  # generous: only reached when something is broken (a loaded machine is slow;
# the feed asks again for a missing tail after 1, 2, 4 … 8 s, so a catch-up can take tens of s)


def start_rig(config: Path, out: Path) -> subprocess.Popen[bytes]:
    """The rig as its own process, printing into ``out`` (a file: never a pipe left unread)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with out.open("wb") as f:
        return subprocess.Popen(
            [sys.executable, "-m", "rig.cli", "rig", "--config", str(config)],
            stdout=f,
            stderr=subprocess.STDOUT,
            env=env,
        )


def replay_digests(db: Path, at: set[int]) -> dict[int, str]:
    """The state digest after each seq in ``at``, from one replay of the log."""
    duty = RefereeTable("T3", "S1")
    out = {-1: state_digest(duty)}  # a state published before the first event
    with EventStore(db) as store:
        for ev in store.events("T3", "S1"):
            duty.apply(ev)
            if ev.seq in at:
                out[ev.seq] = state_digest(duty)
    return out


def printed(out: Path) -> Callable[[], bool]:
    return lambda: b"\n" in out.read_bytes()


async def until_async(cond: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not cond():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)  # waiting on real I/O (the rig process, the broker)


@pytest.mark.slow
def test_sigkill_at_random_points_loses_and_duplicates_nothing(
    tmp_path: Path, broker: LocalBroker
) -> None:
    asyncio.run(asyncio.wait_for(_crashes(tmp_path, broker, seeds=(1, 2, 3)), 360))


async def _crashes(tmp: Path, broker: LocalBroker, seeds: tuple[int, ...]) -> None:
    fake = FakeTable(PtyEndpoint(str(tmp)), seed=11)
    await fake.start()
    db = tmp / "t3.sqlite"
    config = tmp / "table.toml"
    config.write_text(
        f'[table]\nid = "T3"\nvenue = "hall"\nlog = "{db}"\n'
        f'[bus]\nmqtt = "{broker.url}"\nstate_every = 0.05\nstatus_every = 0.5\n'
        f'[table_link]\nport = "{fake.path}"\n',
        encoding="utf-8",
    )
    bus = MqttBus(broker.url, "hall")
    await bus.start()
    assert await bus.wait_connected(WAIT)
    feed = Feed(retry_after=0.3)
    got: list[dict[str, Any]] = []
    states: list[dict[str, Any]] = []
    offline: list[dict[str, Any]] = []

    async def collect() -> None:
        async for env in follow(bus, "T3", feed=feed):
            got.append(env)

    async def watch() -> None:
        sub = await bus.subscribe(
            topic_filter("hall", "T3", "status"), topic_filter("hall", "T3", "state")
        )
        async for m in sub:
            if m.kind == "state":
                states.append(m.payload)
            elif m.payload.get("state") == "offline":
                offline.append(m.payload)

    def past(n: int) -> Callable[[], bool]:
        return lambda: bool(states) and states[-1]["last_seq"] > n

    def more_offline(n: int) -> Callable[[], bool]:
        return lambda: len(offline) > n

    tasks = [asyncio.create_task(collect()), asyncio.create_task(watch())]
    script = asyncio.create_task(fake.run_script(100_000, rate=100))
    rig: subprocess.Popen[bytes] | None = None
    try:
        for seed in seeds:
            rng = random.Random(seed)
            with EventStore(db) as store:
                before = store.last_seq("T3", "S1")
            rig = start_rig(config, tmp / f"rig-{seed}-a.log")
            await until_async(past(before + 5), "events")
            await asyncio.sleep(rng.uniform(0.05, 0.8))  # a random point of the table's stream
            n_offline = len(offline)
            rig.send_signal(signal.SIGKILL)
            await asyncio.to_thread(rig.wait)
            with EventStore(db) as store:
                acked = store.seqs("T3", "S1")
            assert acked == list(range(len(acked)))  # the log has no gap
            out = tmp / f"rig-{seed}-b.log"
            rig = start_rig(config, out)
            await until_async(printed(out), "the restarted rig's first line")
            first = out.read_text().splitlines()[0]
            assert f"{len(acked)} logged events replayed" in first, first
            await until_async(more_offline(n_offline), "the killed rig's last will")
            await until_async(past(len(acked) + 3), "new events after the restart")
            if seed != seeds[-1]:
                rig.send_signal(signal.SIGTERM)
                assert await asyncio.to_thread(rig.wait, 20) == 0  # a clean stop
                rig = None
        script.cancel()

        def received() -> int:
            return sum(e["source"] != "engine" for e in got)

        def caught_up() -> bool:
            with EventStore(db) as store:
                return feed.complete() and received() == store.last_seq("T3", "S1") + 1

        # the last rig runs on, as at a venue: it answers the subscriber's resend requests for
        # what the killed ones logged but never published
        assert rig is not None
        await until_async(caught_up, "the subscriber to catch up")
        rig.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(rig.wait, 20) == 0  # a clean stop
        rig = None
        with EventStore(db) as store:
            final = [e.seq for e in store.events("T3", "S1")]
        replayed = replay_digests(db, {st["last_seq"] for st in states})
        for st in states:  # every state the rigs published is the replay of their log
            assert st["digest"] == replayed[st["last_seq"]], st["last_seq"]
        await until_async(
            lambda: feed.complete() and received() == len(final), "what the clean stop published"
        )
    finally:
        script.cancel()
        if rig is not None:
            rig.kill()
            rig.wait()
        for t in tasks:
            t.cancel()
        await bus.close()
        await fake.close()
    inputs = [e["seq"] for e in got if e["source"] != "engine"]
    assert inputs == final == list(range(len(final)))  # once each, in order, no gap
    assert len(offline) >= len(seeds)  # each SIGKILL: the broker sent the rig's last will


class SlowAcks(MemoryBus):
    """A broker that acknowledges nothing until ``acks`` is set: the publisher's window fills."""

    def __init__(self) -> None:
        super().__init__()
        self.acks = asyncio.Event()

    async def publish(self, topic_: str, text: str, kind: Kind) -> None:
        await self.acks.wait()
        await super().publish(topic_, text, kind)


def test_a_clean_stop_publishes_what_waited_for_the_publishers_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The event the publisher had taken from the outbox while its window of unacknowledged
    publishes was full went out too: after a clean stop no rig is left to resend it."""
    monkeypatch.setattr(runtime, "IN_FLIGHT", 2)

    async def scenario() -> tuple[list[int], list[int]]:
        bus = SlowAcks()
        sub = await bus.subscribe(topic_filter("local", "T1", "events"))
        rig = Rig(parse({"table": {"log": str(tmp_path / "s.sqlite")}}), bus)
        await rig.start()
        for i in range(6):
            rig.submit(
                "test", Draft(Observation(sensor="t", kind="k", data={"i": i}), Source.VISION)
            )
        while rig.store.last_seq("T1", "S1") < 5 or len(rig._inflight) < 2:
            await asyncio.sleep(0.01)  # all logged, the window full, the rest waiting for it
        stopping = asyncio.create_task(rig.stop())
        publisher = next(t for t in rig._tasks if t.get_name() == "publisher")
        while not publisher.done():
            await asyncio.sleep(0.01)
        bus.acks.set()
        await stopping
        published = []
        while (m := await sub.get(0.05)) is not None:
            published.append(m.payload["seq"])
        with EventStore(tmp_path / "s.sqlite") as store:
            return published, store.seqs("T1", "S1")

    published, logged = asyncio.run(scenario())
    assert logged == list(range(6))
    assert sorted(published) == logged
