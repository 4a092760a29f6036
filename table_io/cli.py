"""`mjref table simulate|monitor`: a FakeTable on a pty or TCP, and a live view of a table link."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from typing import Any


def register(subparsers: Any) -> None:
    table = subparsers.add_parser("table", help="the automatic-table link: simulate or monitor")
    commands = table.add_subparsers(dest="table_command", metavar="SUBCOMMAND")
    commands.required = True

    sim = commands.add_parser(
        "simulate", help="run a simulated table; prints its device path on the first line"
    )
    where = sim.add_mutually_exclusive_group()
    where.add_argument("--pty", action="store_true", help="serve on a pseudo-terminal (default)")
    where.add_argument("--tcp", type=int, metavar="PORT", help="serve on TCP 127.0.0.1:PORT")
    sim.add_argument("--events", type=int, default=None, metavar="N", help="events, then idle")
    sim.add_argument("--seed", type=int, default=0, metavar="S")
    sim.add_argument(
        "--faults",
        default="",
        metavar="SPEC",
        help="per-frame probabilities, e.g. drop=0.01,corrupt=0.01,dup=0.01,garbage=0.01,split=0",
    )
    sim.add_argument("--rate", type=float, default=20.0, help="events per second (0: flat out)")
    sim.set_defaults(handler=run_simulate)

    mon = commands.add_parser("monitor", help="print a table's events, one per line")
    mon.add_argument("port", metavar="PORT", help="device path, or tcp://HOST:PORT")
    mon.add_argument("--json", action="store_true", help="one JSON object per line")
    mon.add_argument(
        "--until-idle",
        type=float,
        default=None,
        metavar="SECONDS",
        help="exit after SECONDS without a new event (statistics go to stderr)",
    )
    mon.add_argument("--start", choices=("log", "now"), default="log", help="replay the log?")
    mon.set_defaults(handler=run_monitor)


def run_simulate(args: argparse.Namespace) -> int:
    import asyncio
    import signal

    from table_io.sim.endpoints import Endpoint, PtyEndpoint, TcpEndpoint
    from table_io.sim.fake_table import FakeTable
    from table_io.sim.faults import FaultSpec

    try:
        faults = FaultSpec.parse(args.faults)
    except ValueError as exc:
        print(f"mjref table simulate: {exc}", file=sys.stderr)
        return 2

    async def script(table: FakeTable) -> None:
        if args.events is None:
            while True:
                await table.run_script(1_000_000, args.rate)
        await table.run_script(args.events, args.rate)
        print(f"emitted {args.events} events; idling", file=sys.stderr, flush=True)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        endpoint: Endpoint = TcpEndpoint(port=args.tcp) if args.tcp is not None else PtyEndpoint()
        async with FakeTable(endpoint, seed=args.seed, faults=faults) as table:
            print(table.path, flush=True)
            running = asyncio.create_task(script(table))
            await stop.wait()  # the pty and its symlink are removed on the way out
            running.cancel()

    asyncio.run(main())
    return 0


def run_monitor(args: argparse.Namespace) -> int:
    import asyncio
    import json
    import time

    from table_io.driver import TableDriver
    from table_io.link import Delivered, LinkConfig
    from table_io.monitor import describe

    async def main() -> None:
        driver = TableDriver(args.port, config=LinkConfig(start=args.start))
        async with driver:
            while True:
                try:
                    output = await asyncio.wait_for(driver.next_output(), args.until_idle)
                except TimeoutError:
                    break
                if not isinstance(output, Delivered):
                    print(f"link: {output}", file=sys.stderr, flush=True)
                    continue
                record = describe(output, time.time())
                if args.json:
                    print(json.dumps(record), flush=True)
                else:
                    fields = " ".join(f"{k}={v}" for k, v in record["fields"].items())
                    print(f"{record['seq']:>8} {record['type']:<16} {fields}", flush=True)
        stats = " ".join(f"{k}={v}" for k, v in driver.stats.items())
        print(f"link statistics: {stats}", file=sys.stderr, flush=True)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Stand-alone entry (``python -m table_io.cli table ...``) until `mjref` lists this module."""
    parser = argparse.ArgumentParser(prog="mjref")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    register(subparsers)
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
