"""The asyncio driver against a FakeTable over a real pty (and TCP): faults, unplugging, reboots."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from table_io.clock import FakeClock
from table_io.driver import TableDriver
from table_io.link import Delivered, LinkOffline, LinkOnline, Output, TableBooted
from table_io.messages import Ack, DiceResult, GetStatus, Hold, Release, Status
from table_io.sim.endpoints import Endpoint, PtyEndpoint, TcpEndpoint
from table_io.sim.fake_table import FakeTable
from table_io.sim.faults import FaultSpec

T = TypeVar("T")
WAIT = 20.0  # generous: real I/O on a loaded 2-core CI box


def run(coro: Awaitable[T]) -> T:
    return asyncio.run(asyncio.wait_for(coro, 60))  # type: ignore[arg-type]


async def collect(driver: TableDriver, until: Callable[[list[Output]], bool]) -> list[Output]:
    seen: list[Output] = []
    async with asyncio.timeout(WAIT):
        while not until(seen):
            seen.append(await driver.next_output())
    return seen


def seqs(outputs: list[Output]) -> list[int]:
    return [o.seq for o in outputs if isinstance(o, Delivered)]


def n_delivered(n: int) -> Callable[[list[Output]], bool]:
    return lambda seen: len(seqs(seen)) >= n


async def _faulty_run(endpoint: Endpoint, spec: str, n: int) -> list[Output]:
    async with (
        FakeTable(endpoint, seed=3, faults=FaultSpec.parse(spec)) as table,
        TableDriver(table.path) as driver,
    ):
        script = asyncio.create_task(table.run_script(n))
        seen = await collect(driver, n_delivered(n))
        await script
        return seen


def test_every_event_once_in_order_through_a_faulty_pty() -> None:
    spec = "drop=0.03,corrupt=0.03,dup=0.03,garbage=0.03,split=0.03"
    seen = run(_faulty_run(PtyEndpoint(), spec, 1500))
    assert seqs(seen) == list(range(1, 1501))


def test_every_event_once_in_order_over_tcp() -> None:
    seen = run(_faulty_run(TcpEndpoint(), "drop=0.02,dup=0.02,corrupt=0.02", 500))
    assert seqs(seen) == list(range(1, 501))


def test_delivered_messages_are_the_scripted_ones() -> None:
    async def scenario() -> None:
        emitted: dict[int, object] = {}
        table = FakeTable(PtyEndpoint(), seed=9, on_emit=lambda s, m, _t: emitted.setdefault(s, m))
        async with table, TableDriver(table.path) as driver:
            await table.run_script(40)
            seen = await collect(driver, n_delivered(40))
            assert {o.seq: o.message for o in seen if isinstance(o, Delivered)} == emitted

    run(scenario())


def test_reconnects_after_the_port_vanishes_and_loses_nothing() -> None:
    async def scenario() -> None:
        async with (
            FakeTable(PtyEndpoint(), seed=4) as table,
            TableDriver(table.path, backoff=(0.02, 0.2)) as driver,
        ):
            await table.run_script(20)
            await collect(driver, n_delivered(20))
            await table.unplug()
            for _ in range(15):  # events happen while the adapter is gone
                table.emit(DiceResult(0, 4, 2))
            await asyncio.sleep(0.3)  # the driver retries with back-off meanwhile
            await table.replug()
            seen = await collect(driver, n_delivered(15))
            assert seqs(seen) == list(range(21, 36))
            assert driver.link.stats.disconnects >= 1
            assert driver.link.stats.connects >= 2

    run(scenario())


def test_reboot_mid_hand_is_reported() -> None:
    async def scenario() -> None:
        async with FakeTable(PtyEndpoint(), seed=5) as table, TableDriver(table.path) as driver:
            await table.run_script(5)
            await collect(driver, n_delivered(5))
            table.reboot()
            await table.run_script(3)
            seen = await collect(driver, n_delivered(3))
            assert any(isinstance(o, TableBooted) and o.previous_boot for o in seen)
            assert seqs(seen) == [1, 2, 3]

    run(scenario())


def test_requests_are_correlated_with_their_replies() -> None:
    async def scenario() -> None:
        spec = FaultSpec(drop=0.2)  # replies get lost too: retransmission must cover it
        async with (
            FakeTable(PtyEndpoint(), seed=6, faults=spec) as table,
            TableDriver(table.path) as driver,
        ):
            await driver.connected.wait()
            replies = await asyncio.gather(
                driver.request(Hold()), driver.request(GetStatus()), driver.request(Release())
            )
            assert replies[0] == Ack() and replies[2] == Ack()
            assert isinstance(replies[1], Status) and replies[1].held
            assert not table.device.held

    run(scenario())


def test_hold_keeps_the_next_hand_from_starting() -> None:
    async def scenario() -> None:
        async with FakeTable(PtyEndpoint(), seed=8) as table, TableDriver(table.path) as driver:
            await driver.connected.wait()
            await driver.request(Hold())
            script = asyncio.create_task(table.run_script(10))
            await collect(driver, n_delivered(2))  # MODE and DEALER come; START waits
            await asyncio.sleep(0.2)
            assert not script.done() and table.device.seq == 2
            await driver.request(Release())
            await script

    run(scenario())


def test_offline_alert_in_simulated_time() -> None:
    """Timers run on a FakeClock; real sleeps below only let pty bytes move, never time a check."""

    async def advance(clock: FakeClock, seconds: float) -> None:
        for _ in range(round(seconds / 0.05)):
            await clock.advance(0.05)
            await asyncio.sleep(0.002)  # let bytes cross the pty; sim time stands still

    async def scenario() -> None:
        clock = FakeClock()
        async with (
            FakeTable(PtyEndpoint(), clock=clock, seed=2) as table,
            TableDriver(table.path, clock=clock) as driver,
        ):
            await collect(driver, lambda seen: any(isinstance(o, LinkOnline) for o in seen))
            await advance(clock, 5.0)  # heartbeats keep it online
            assert not any(isinstance(o, LinkOffline) for o in _drain(driver))
            table.stall(100.0)
            await asyncio.sleep(0.1)
            heard = driver.link.last_heard
            await advance(clock, heard + 2.9 - clock.now())
            assert not any(isinstance(o, LinkOffline) for o in _drain(driver))
            await advance(clock, 0.2)
            [alert] = [o for o in _drain(driver) if isinstance(o, LinkOffline)]
            assert alert.last_heard == heard
            assert 3.0 <= alert.at - heard <= 3.0 + 0.06

    run(scenario())


def _drain(driver: TableDriver) -> list[Output]:
    out: list[Output] = []
    while not driver._queue.empty():
        out.append(driver._queue.get_nowait())
    return out
