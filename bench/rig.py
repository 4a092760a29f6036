"""Rig benchmark: events from a rig's input to an MQTT subscriber in another process.

    python bench/rig.py [--events 20000] [--rate 2000] [--seconds 10] [--json]

One rig (the real runtime: supervisor, core with RefereeTable, SQLite write-ahead log with
synchronous=FULL, publisher) runs in this process with a synthetic input that submits
``observation`` events, each citing its submission time; a private mosquitto carries them to a
subscriber process that ingests them with the consumer of rig/BUS.md (exactly once, in order) and
records when each arrived. Two runs:

- **throughput**: ``--events`` submitted at once; events/s from the first submission to the last
  arrival at the subscriber (every event logged, published and received).
- **latency**: ``--rate`` events/s for ``--seconds``; p50/p99 of submission → arrival and the
  rig process's CPU (one core = 100 %) at that rate;
- **one table**: a table's 1 event/s for ``--table-seconds``: the rig's CPU per table.

Targets (issue 16): ≥ 2,000 events/s and p99 ≤ 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.events import Observation, Source
from rig.bus.broker import LocalBroker
from rig.config import parse
from rig.inputs import Draft, Input, Sink
from rig.rig_cli import make_bus
from rig.runtime import Rig

SUBSCRIBER = """
import asyncio, json, sys, time
sys.path.insert(0, sys.argv[3])
from rig.bus.feed import follow
from rig.bus.mqtt import MqttBus

async def main(url, n, table):
    bus = MqttBus(url, "bench")
    await bus.start()
    await bus.wait_connected(10)
    print("ready", flush=True)
    arrived = []
    async for env in follow(bus, table):
        if env.get("source") == "engine" or env.get("type") != "observation":
            continue
        arrived.append((env["seq"], float(env["evidence"][0][5:]), time.time()))
        if len(arrived) == n:
            break
    json.dump(arrived, sys.stdout)
    await bus.close()

asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[4]))
"""


class Synthetic(Input):
    """``n`` observations at ``rate`` per second (0: all at once), each citing when sent."""

    name = "synthetic"

    def __init__(self, n: int, rate: float) -> None:
        self.n, self.rate = n, rate
        self.go = asyncio.Event()  # set once the rig is connected to the broker

    async def run(self, sink: Sink) -> None:
        await self.go.wait()
        start = time.monotonic()
        for i in range(self.n):
            if self.rate > 0:
                wait = start + i / self.rate - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
            payload = Observation(sensor="bench", kind="tick", data={"i": i})
            sink.submit(self.name, Draft(payload, Source.VISION, 1.0, (f"sent:{time.time():.6f}",)))


async def one_run(
    broker: LocalBroker, table: str, n: int, rate: float, tmp: Path
) -> dict[str, float]:
    root = str(Path(__file__).resolve().parents[1])
    sub = subprocess.Popen(
        [sys.executable, "-c", SUBSCRIBER, broker.url, str(n), root, table],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert sub.stdout is not None
    assert (await asyncio.to_thread(sub.stdout.readline)).strip() == "ready"
    log = tmp / f"{table}.sqlite"
    cfg = parse(
        {"table": {"id": table, "venue": "bench", "log": str(log)}, "bus": {"mqtt": broker.url}}
    )
    rig = Rig(cfg, make_bus(cfg))
    synthetic = Synthetic(n, rate)
    rig.inputs = [synthetic]
    await rig.start()
    await rig.bus.wait_connected(10)  # type: ignore[attr-defined]
    await asyncio.sleep(0.5)  # the retained status and state go out first
    cpu0, wall0 = time.process_time(), time.monotonic()
    synthetic.go.set()
    out, _ = await asyncio.to_thread(sub.communicate)
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    await rig.stop()
    arrived = json.loads(out)
    seqs = [s for s, _, _ in arrived]
    assert len(set(seqs)) == n == len(seqs) and seqs == sorted(seqs), (
        "lost, duplicated or out of order"
    )
    lat = sorted(a - s for _, s, a in arrived)
    first_sent = min(s for _, s, _ in arrived)
    last_arrival = max(a for _, _, a in arrived)
    return {
        "events": n,
        "events_per_s": n / (last_arrival - first_sent),
        "p50_ms": 1000 * statistics.median(lat),
        "p99_ms": 1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))],
        "cpu_percent": 100 * cpu / wall,
        "cpu_ms_per_event": 1000 * cpu / n,
    }


async def bench(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    with LocalBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        flat = await one_run(broker, "B1", args.events, 0.0, Path(tmp))
        paced = await one_run(broker, "B2", int(args.rate * args.seconds), args.rate, Path(tmp))
        table = await one_run(broker, "B3", int(args.table_seconds), 1.0, Path(tmp))
    return {"throughput": flat, "latency": paced, "one_table": table}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--rate", type=float, default=2000.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--table-seconds", type=float, default=10.0, help="the 1 event/s run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    res = asyncio.run(bench(args))
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    t, p = res["throughput"], res["latency"]
    print(
        f"throughput: {t['events']} events at once → {t['events_per_s']:,.0f} events/s "
        f"(input → log → MQTT → subscriber), {t['cpu_ms_per_event']:.3f} CPU ms each"
    )
    print(
        f"latency at {args.rate:g} events/s for {args.seconds:g} s: p50 {p['p50_ms']:.1f} ms, "
        f"p99 {p['p99_ms']:.1f} ms; rig CPU {p['cpu_percent']:.0f} % of a core"
    )
    one = res["one_table"]
    print(
        f"CPU per table at 1 event/s (status and state included): {one['cpu_percent']:.2f} % "
        f"of a core; p99 {one['p99_ms']:.1f} ms"
    )
    ok = t["events_per_s"] >= 2000 and p["p99_ms"] <= 50
    print(f"target: >= 2,000 events/s and p99 <= 50 ms: {'PASS' if ok else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
