"""`mjref table simulate|monitor`: a FakeTable on a pty or TCP, and a live view of a table link."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from referee.cli_support import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    PORT,
    float_in,
    int_in,
    reason,
)

if TYPE_CHECKING:
    from table_io.driver import TableDriver


def register(subparsers: Any) -> None:
    table = subparsers.add_parser("table", help="the automatic-table link: simulate or monitor")
    commands = table.add_subparsers(dest="table_command", metavar="SUBCOMMAND")
    commands.required = True

    sim = commands.add_parser(
        "simulate", help="run a simulated table; prints its device path on the first line"
    )
    where = sim.add_mutually_exclusive_group()
    where.add_argument("--pty", action="store_true", help="serve on a pseudo-terminal (default)")
    where.add_argument(
        "--tcp", type=PORT, metavar="PORT", help="serve on TCP 127.0.0.1:PORT (0: any free port)"
    )
    sim.add_argument(
        "--events", type=int_in(0), default=None, metavar="N", help="events, then idle"
    )
    sim.add_argument("--seed", type=int, default=0, metavar="S")
    sim.add_argument(
        "--faults",
        default="",
        metavar="SPEC",
        help="per-frame probabilities, e.g. drop=0.01,corrupt=0.01,dup=0.01,garbage=0.01,split=0",
    )
    sim.add_argument(
        "--rate", type=float_in(0.0), default=20.0, help="events per second (0: flat out)"
    )
    sim.set_defaults(handler=run_simulate)

    mon = commands.add_parser(
        "monitor",
        help="print a table's events, one per line",
        description="Print a table's events, one per line. Exit 2 when the port cannot be "
        "opened, 1 when nothing answers within the link's silence limit (3 s).",
    )
    mon.add_argument("port", metavar="PORT", help="device path, or tcp://HOST:PORT")
    mon.add_argument("--json", action="store_true", help="one JSON object per line")
    mon.add_argument(
        "--until-idle",
        type=float_in(0.0, above=True),
        default=None,
        metavar="SECONDS",
        help="exit after SECONDS without a new event (statistics go to stderr)",
    )
    mon.add_argument("--start", choices=("log", "now"), default="log", help="replay the log?")
    mon.set_defaults(handler=run_monitor)


def run_simulate(args: argparse.Namespace) -> int:
    import signal

    from table_io.sim.endpoints import Endpoint, PtyEndpoint, TcpEndpoint
    from table_io.sim.fake_table import FakeTable
    from table_io.sim.faults import FaultSpec

    try:
        faults = FaultSpec.parse(args.faults)
    except ValueError as exc:
        print(f"mjref table simulate: {exc}", file=sys.stderr)
        return EXIT_USAGE

    async def script(table: FakeTable) -> None:
        if args.events is None:
            while True:
                await table.run_script(1_000_000, args.rate)
        await table.run_script(args.events, args.rate)
        print(f"emitted {args.events} events; idling", file=sys.stderr, flush=True)

    async def main() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        endpoint: Endpoint = TcpEndpoint(port=args.tcp) if args.tcp is not None else PtyEndpoint()
        table = FakeTable(endpoint, seed=args.seed, faults=faults)
        try:
            await table.start()
        except OSError as exc:  # the TCP port is taken, or no pseudo-terminal is left
            where = f"TCP 127.0.0.1:{args.tcp}" if args.tcp is not None else "a pseudo-terminal"
            print(
                f"mjref table simulate: cannot serve on {where}: {reason(exc)}"
                + (" (expected a free port; 0 picks one)" if args.tcp is not None else ""),
                file=sys.stderr,
            )
            return EXIT_USAGE
        try:
            print(table.path, flush=True)
            running = asyncio.create_task(script(table))
            await stop.wait()
            running.cancel()
        finally:
            await table.close()  # the pty and its symlink are removed on the way out
        return EXIT_OK

    return asyncio.run(main())


def run_monitor(args: argparse.Namespace) -> int:
    from table_io.driver import TableDriver
    from table_io.link import LinkConfig
    from table_io.uart import parse_tcp

    try:
        parse_tcp(args.port)
    except ValueError as exc:
        print(f"mjref table monitor: {exc}", file=sys.stderr)
        return EXIT_USAGE
    driver = TableDriver(args.port, config=LinkConfig(start=args.start))
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(monitor(driver, as_json=args.json, until_idle=args.until_idle))
    return EXIT_OK


async def monitor(driver: TableDriver, *, as_json: bool, until_idle: float | None) -> int:
    """Print delivered events (and link alerts on stderr) until ``until_idle`` s pass without
    one, or for ever. A link that never comes up ends it within the link's silence limit:
    2 when the port cannot be opened, 1 when it opens but nothing answers."""
    import json
    import time

    from table_io.link import Delivered, LinkOffline, LinkOnline
    from table_io.monitor import describe

    heard = False
    async with driver:
        while True:
            try:
                async with asyncio.timeout(until_idle):
                    output = await driver.next_output()
            except TimeoutError:
                if not heard:
                    return _never_up(driver, until_idle or 0.0)
                break
            heard = heard or isinstance(output, LinkOnline)
            if isinstance(output, LinkOffline) and not heard:
                return _never_up(driver, driver.link.config.offline_after)
            if not isinstance(output, Delivered):
                print(f"link: {output}", file=sys.stderr, flush=True)
                continue
            record = describe(output, time.time())
            if as_json:
                print(json.dumps(record), flush=True)
            else:
                fields = " ".join(f"{k}={v}" for k, v in record["fields"].items())
                print(f"{record['seq']:>8} {record['type']:<16} {fields}", flush=True)
    stats = " ".join(f"{k}={v}" for k, v in driver.stats.items())
    print(f"link statistics: {stats}", file=sys.stderr, flush=True)
    return EXIT_OK


def _never_up(driver: TableDriver, waited: float) -> int:
    error = driver.open_error
    if error is not None:
        why = reason(error) if isinstance(error, OSError) else str(error)
        print(
            f"mjref table monitor: cannot open {driver.port}: {why} "
            "(expected a serial device, or tcp://HOST:PORT of a table)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    print(
        f"mjref table monitor: nothing answers on {driver.port}: no frame in {waited:g} s "
        "(is the table on, and is this its port?)",
        file=sys.stderr,
    )
    return EXIT_FINDINGS


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
