"""Dashboard load: simulated rigs over MQTT into the dashboard (its own process) on PostgreSQL,
with WebSocket clients; latency from a rig publishing an event to every client receiving the
alert it raised.

    python bench/dashboard_load.py [--rigs 100] [--rate 5] [--clients 20] [--seconds 30]
                                   [--connections N] [--settle S]
                                   [--db sqlite|postgresql] [--restart-broker]

Needs mosquitto and (for --db postgresql, the default) PostgreSQL; the broker and the
database are private, on free ports, in temp folders. Prints p50/p95/max latency, what the
database holds against what the rigs logged (nothing lost or duplicated), and the dashboard
process's CPU and peak memory. The goal: p95 ≤ 250 ms at 100 rigs × 5 events/s, 20 clients.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "helpers")]

import httpx  # noqa: E402
import websockets  # noqa: E402
from pgcluster import PgCluster, PostgresUnavailable  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from dashboard.db import make_engine, session_factory  # noqa: E402
from dashboard.db.models import StoredEvent  # noqa: E402
from dashboard.simrig import SimRig, game  # noqa: E402
from rig.bus.broker import BrokerUnavailable, LocalBroker, free_port  # noqa: E402
from rig.bus.mqtt import MqttBus  # noqa: E402

PASSWORD = "bench password 1"
TICKS = os.sysconf("SC_CLK_TCK")


def say(text: str) -> None:
    print(text, flush=True)


def mjref(*args: str, stdin: str | None = None) -> None:
    cmd = [sys.executable, "-c", "from rig.cli import main; raise SystemExit(main())", *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(cmd, check=True, input=stdin, text=True, env=env, capture_output=True)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def within(metrics: str, name: str, share: float) -> str:
    """The smallest bucket bound of a Prometheus histogram that holds ``share`` of it."""
    buckets = []
    for line in metrics.splitlines():
        if line.startswith(name + "{"):
            le = line.split('le="', 1)[1].split('"', 1)[0]
            buckets.append((float(le), float(line.rsplit(" ", 1)[1])))
    total = buckets[-1][1] if buckets else 0.0
    bound = next((le for le, n in buckets if total and n >= share * total), None)
    return "?" if bound is None else f"{bound * 1000:.0f} ms"


async def client(url: str, cookie: str, got: list[tuple[str, int, float]]) -> None:
    async with websockets.connect(url, additional_headers={"Cookie": cookie}, max_size=2**22) as ws:
        got.append(("", -1, 0.0))  # connected
        async for text in ws:
            now = time.perf_counter()
            msg = json.loads(text)
            if msg.get("type") == "alert":
                item = msg["item"]
                got.append((item["table_id"], item["seq"], now))


def clients_process(url: str, cookie: str, n: int, out: str, ready: Any, stop: Any) -> None:
    """The browsers: a process of their own, so that receiving does not slow the rigs (the
    clock, CLOCK_MONOTONIC, is the machine's: times compare across processes)."""

    async def main() -> None:
        got: list[tuple[str, int, float]] = []
        tasks = [asyncio.create_task(client(url, cookie, got)) for _ in range(n)]
        while sum(1 for t, s, _ in got if s == -1) < n:
            await asyncio.sleep(0.05)
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.1)
        for t in tasks:
            t.cancel()
        Path(out).write_text(json.dumps([g for g in got if g[1] >= 0]))

    asyncio.run(main())


async def run(args: argparse.Namespace) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="mjref-dashload-"))
    cluster = None
    dash: subprocess.Popen[bytes] | None = None
    try:
        broker = LocalBroker().start()
    except BrokerUnavailable as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    try:
        if args.db == "postgresql":
            try:
                cluster = PgCluster().start()
            except PostgresUnavailable as exc:
                print(f"bench: {exc}; try --db sqlite", file=sys.stderr)
                return 2
            db = cluster.create_database("dashload")
        else:
            db = f"sqlite:///{tmp / 'dash.sqlite'}"
        say("starting: broker and database up; migrating")
        mjref("dashboard", "migrate", "--db", db)
        mjref(
            "users",
            "add",
            "bench",
            "--role",
            "viewer",
            "--password-stdin",
            "--db",
            db,
            stdin=PASSWORD + "\n",
        )
        port = free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        dash_log = tmp / "dashboard.log"  # a file: a pipe nobody reads fills and stalls it
        dash = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from rig.cli import main; raise SystemExit(main())",
                "dashboard",
                "--db",
                db,
                "--mqtt",
                broker.url,
                "--venue",
                "bench",
                "--port",
                str(port),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=dash_log.open("wb"),
        )
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base) as http:
            up = time.monotonic() + 120  # a busy machine imports slowly
            while time.monotonic() < up and dash.poll() is None:
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get("/healthz")).status_code == 200:
                        break
                await asyncio.sleep(0.1)
            else:
                print(
                    "bench: the dashboard did not start:",
                    dash_log.read_text(errors="replace")[-500:],
                )
                return 1
            await http.get("/login")
            resp = await http.post(
                "/api/session",
                json={"name": "bench", "password": PASSWORD},
                headers={"X-CSRF-Token": http.cookies["mjref_login_csrf"]},
            )
            resp.raise_for_status()
            cookie = f"mjref_session={http.cookies['mjref_session']}"
            print(
                f"dashboard pid {dash.pid} on {args.db}; {args.rigs} rigs × {args.rate} "
                f"events/s, {args.clients} WebSocket clients, {args.seconds:.0f} s"
            )
            ctx = multiprocessing.get_context("spawn")
            ready, stop = ctx.Event(), ctx.Event()
            received = tmp / "received.json"
            ws_url = f"ws://127.0.0.1:{port}/ws"
            browsers = ctx.Process(
                target=clients_process,
                args=(ws_url, cookie, args.clients, str(received), ready, stop),
            )
            browsers.start()
            if not await asyncio.to_thread(ready.wait, 60):
                raise RuntimeError("the WebSocket clients did not connect")
            say("clients connected; simulating the sessions")
            needed = int(args.rate * args.seconds) + 10
            buses = [MqttBus(broker.url, "bench") for _ in range(min(args.connections, args.rigs))]
            for bus in buses:
                await bus.start()
                if not await bus.wait_connected(30):
                    raise RuntimeError("the simulated rigs could not reach the broker")
            rigs: list[SimRig] = []
            for i in range(args.rigs):
                events = game(f"T{i + 1:03d}", "S1", seed=i, hands=2, rate=0.05)[:needed]
                rigs.append(SimRig(buses[i % len(buses)], f"T{i + 1:03d}", "S1", events))
            for rig in rigs:
                await rig.start()
            say(f"rigs connected over {len(buses)} MQTT connections; load running")
            cpu0, t0 = cpu_seconds(dash.pid), time.perf_counter()
            period = 1.0 / args.rate
            restarted = False

            async def drive(rig: SimRig, offset: float) -> None:
                await asyncio.sleep(offset)
                start = time.perf_counter()
                n = 0
                while rig.remaining and time.perf_counter() - t0 < args.seconds:
                    await rig.play(1)
                    n += 1
                    if n % args.rate == 0:
                        await rig.publish_state()
                    await asyncio.sleep(max(0.0, start + n * period - time.perf_counter()))
                await rig.publish_state()

            async def restart_broker() -> None:
                nonlocal restarted
                await asyncio.sleep(args.seconds / 2)
                broker.stop()
                await asyncio.sleep(2)
                broker.start()
                restarted = True

            jobs = [drive(r, i * period / args.rigs) for i, r in enumerate(rigs)]
            if args.restart_broker:
                jobs.append(restart_broker())
            await asyncio.gather(*jobs)
            sent = sum(len(r.log) for r in rigs)
            engine = make_engine(db)
            factory = session_factory(engine)
            settle0 = time.monotonic()
            stored, told = 0, settle0
            while time.monotonic() < settle0 + args.settle:
                for r in rigs:
                    await r.publish_state()  # the tail gap, if any, is seen and asked for
                with factory() as s:
                    stored = int(s.scalar(select(func.count()).select_from(StoredEvent)) or 0)
                if stored >= sent:
                    break
                if time.monotonic() - told >= 10:
                    told = time.monotonic()
                    say(f"settling: {stored} of {sent} stored after {told - settle0:.0f} s")
                await asyncio.sleep(2.0)
            wall = time.perf_counter() - t0
            cpu = cpu_seconds(dash.pid) - cpu0
            await asyncio.sleep(1.0)  # the last pushes
            stop.set()
            await asyncio.to_thread(browsers.join, 30)
            got = [tuple(g) for g in json.loads(received.read_text())]
            with factory() as s:
                keys = s.execute(select(StoredEvent.table_id, StoredEvent.seq)).all()
            engine.dispose()
            expected = {(r.table_id, e.seq) for r in rigs for e in r.log}
            have = set(map(tuple, keys))
            lost = len(expected - have)
            short = sorted({t for t, _ in expected - have})
            links = [f"{b.connects}{'' if b.connected.is_set() else ' (down)'}" for b in buses]
            dup = len(keys) - len(have)
            sent_at = {(r.table_id, seq): t for r in rigs for seq, t in r.sent.items()}
            per_client: dict[tuple[str, int], int] = {}
            lat = []
            for table, seq, t in got:
                per_client[(table, seq)] = per_client.get((table, seq), 0) + 1
                if (table, seq) in sent_at:
                    lat.append((t - sent_at[(table, seq)]) * 1000)
            inside = within(
                (await http.get("/metrics")).text, "mjref_dash_ingest_seconds_bucket", 0.95
            )
            for r in rigs:
                with contextlib.suppress(Exception):
                    await r.stop()
            for bus in buses:
                await bus.close()
        lat.sort()
        p = (lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]) if lat else (lambda q: 0.0)
        print(
            f"events logged by rigs {sent}, stored {len(have)}, lost {lost}, "
            f"duplicated {dup}" + (" (broker restarted mid-load)" if restarted else "")
        )
        print(f"rig MQTT connections, connects each: {', '.join(links)}")
        if short:
            print(
                f"tables missing events: {', '.join(short[:20])}{' …' if len(short) > 20 else ''}"
            )
        print(
            f"alerts pushed: {len(per_client)} distinct, {len(got)} deliveries to "
            f"{args.clients} clients"
        )
        print(
            f"latency rig publish → client receive (ms): p50 {p(0.5):.1f}  p95 {p(0.95):.1f}"
            f"  max {lat[-1] if lat else 0:.1f}  (n={len(lat)})"
        )
        print(
            f"dashboard CPU {cpu:.1f} s over {wall:.1f} s ({100 * cpu / wall:.0f} % of one "
            f"core, {1000 * cpu / max(sent, 1):.2f} ms an event), peak RSS "
            f"{peak_rss_mb(dash.pid):.0f} MB"
        )
        print(
            f"inside the dashboard (bus message received → pushed): 95 % within {inside}"
            " (its histogram's bucket)"
        )
        if lat:
            goal = "met" if p(0.95) <= 250 else "NOT met"
            if args.restart_broker:  # what waited out the outage is late by design
                goal = "not judged (the broker was down 2 s: a run without --restart-broker)"
            print(f"mean {statistics.fmean(lat):.1f} ms; goal p95 ≤ 250 ms: {goal}")
        if dash.poll() is not None:
            print(f"the dashboard exited ({dash.returncode}); its log:")
            print(dash_log.read_text(errors="replace")[-2000:])
        return 0 if lost == 0 and dup == 0 else 1
    finally:
        if dash is not None and dash.poll() is None:
            dash.terminate()
            try:
                dash.wait(15)
            except subprocess.TimeoutExpired:
                dash.kill()
        broker.close()
        if cluster is not None:
            cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rigs", type=int, default=100)
    ap.add_argument("--rate", type=int, default=5, help="events per second per rig")
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument(
        "--connections",
        type=int,
        default=100,
        help="MQTT connections the simulated rigs share (a venue has one per rig; fewer keep "
        "the bench's own process from being the bottleneck on a small machine)",
    )
    ap.add_argument(
        "--settle",
        type=float,
        default=120.0,
        help="seconds to wait after the load for gaps to be filled before counting",
    )
    ap.add_argument("--db", choices=("postgresql", "sqlite"), default="postgresql")
    ap.add_argument(
        "--restart-broker",
        action="store_true",
        help="stop the broker for 2 s mid-load (gap recovery)",
    )
    args = ap.parse_args()
    if min(args.rigs, args.rate, args.clients, args.connections) < 1 or args.seconds <= 0:
        print(
            "--rigs, --rate, --clients, --connections must be ≥ 1, --seconds > 0", file=sys.stderr
        )
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up broker and database
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
