"""Table-link benchmark: events through a real pty with drop, corruption and duplication.

    python bench/table_link.py [--events 100000] [--drop 0.01] [--corrupt 0.01] [--dup 0.01]

The FakeTable and the driver share one process and one event loop (one pty in between), so the
figures are a floor for a rig, where the adapter is a separate device. Latency runs from the
moment the table logs an event to its in-order delivery on the host. The table sends as fast as
its 64-event window allows (a real table makes about one event a second).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_io.driver import TableDriver
from table_io.link import Delivered
from table_io.messages import Message
from table_io.sim.endpoints import PtyEndpoint
from table_io.sim.fake_table import FakeTable
from table_io.sim.faults import FaultSpec


async def bench(args: argparse.Namespace) -> int:
    n = args.events
    emitted: dict[int, float] = {}

    def on_emit(seq: int, _m: Message, _t: float) -> None:
        emitted[seq] = time.perf_counter()

    faults = FaultSpec(drop=args.drop, corrupt=args.corrupt, dup=args.dup)
    table = FakeTable(PtyEndpoint(), seed=args.seed, faults=faults, on_emit=on_emit)
    latencies: list[float] = []
    seen: dict[int, int] = {}
    in_order = True
    async with table, TableDriver(table.path) as driver:
        await driver.connected.wait()
        start = time.perf_counter()
        script = asyncio.create_task(table.run_script(n))
        last = 0
        async with asyncio.timeout(max(60.0, n / 500)):
            while len(seen) < n:
                out = await driver.next_output()
                if not isinstance(out, Delivered):
                    continue
                now = time.perf_counter()
                seen[out.seq] = seen.get(out.seq, 0) + 1
                in_order &= out.seq == last + 1
                last = out.seq
                latencies.append(now - emitted[out.seq])
        elapsed = time.perf_counter() - start
        await script
        await asyncio.sleep(0.3)  # anything delivered late would be a duplicate: count it
        while not driver._queue.empty():
            out = driver._queue.get_nowait()
            if isinstance(out, Delivered):
                seen[out.seq] = seen.get(out.seq, 0) + 1
        stats = driver.stats
    exactly_once = sum(1 for s in range(1, n + 1) if seen.get(s) == 1) / n * 100
    latencies.sort()
    p99 = latencies[int(0.99 * (len(latencies) - 1))] * 1000
    counts = table.injector.counts
    print(f"events            {n}")
    print(f"faults injected   drop={counts.drop} corrupt={counts.corrupt} dup={counts.dup}")
    print(f"exactly once      {exactly_once:.3f} %  (in order: {in_order})")
    print(f"throughput        {n / elapsed:,.0f} events/s")
    print(f"latency           p50 {statistics.median(latencies) * 1000:.2f} ms, p99 {p99:.2f} ms,"
          f" max {latencies[-1] * 1000:.1f} ms")  # fmt: skip
    keys = ("crc_errors", "cobs_errors", "resyncs", "duplicates", "resend_requests",
            "retransmitted_in")  # fmt: skip
    print("link counters     " + " ".join(f"{k}={stats[k]}" for k in keys))
    ok = exactly_once == 100.0 and in_order
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--drop", type=float, default=0.01)
    parser.add_argument("--corrupt", type=float, default=0.01)
    parser.add_argument("--dup", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=1)
    return asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
