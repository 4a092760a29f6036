"""`mjref rig [--config table.toml] [--check]`: run one table (or probe its devices and stop)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from pathlib import Path
from typing import Any

from referee.cli_support import float_in
from rig.config import ConfigError, RigConfig, load

EXIT_USAGE = 2


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rig",
        help="run one table: inputs → referee core → write-ahead log → bus",
        description=__doc__ + "\n\nThe configuration reference is in the README (The rig).",
    )
    parser.add_argument("--config", type=Path, default=None, help="table.toml (default: built in)")
    parser.add_argument("--check", action="store_true", help="probe each configured device")
    parser.add_argument(
        "--hear-table",
        type=float_in(0.0, above=True),
        default=None,
        metavar="SECONDS",
        help="with --check: record the players saying a call in turn, and save the table's "
        "cross-talk for the voice worker (voice.acoustics)",
    )
    parser.add_argument("--mqtt", default=None, metavar="URL", help="override bus.mqtt")
    parser.add_argument(
        "--seconds",
        type=float_in(0.0, above=True),
        default=None,
        help="stop after this long (default: run on)",
    )
    parser.set_defaults(handler=run)


def make_bus(cfg: RigConfig) -> Any:
    from rig.bus import topic
    from rig.bus.memory import MemoryBus
    from rig.bus.mqtt import MqttBus

    t = cfg.table
    if cfg.bus.mqtt is None:
        return MemoryBus(t.venue)
    offline: dict[str, object] = {
        "table_id": t.id,
        "session_id": t.session,
        "state": "offline",
        "reason": "lost",
    }
    return MqttBus(cfg.bus.mqtt, t.venue, will=(topic(t.venue, t.id, "status"), offline))


def run(args: argparse.Namespace) -> int:
    try:
        cfg = load(args.config)
        if args.mqtt is not None:
            from rig.config import parse

            data = cfg.model_dump(mode="json", exclude_none=True)
            data["bus"]["mqtt"] = args.mqtt
            cfg = parse(data, "--mqtt")
    except ConfigError as exc:
        for line in exc.problems:
            print(f"mjref rig: {line}", file=sys.stderr)
        return EXIT_USAGE
    if args.hear_table is not None and not args.check:
        print("mjref rig: --hear-table goes with --check", file=sys.stderr)
        return EXIT_USAGE
    if args.check:
        from rig.check import check, hear_table

        code: int = asyncio.run(check(cfg))
        if code == 0 and args.hear_table is not None:
            code = asyncio.run(hear_table(cfg, args.hear_table))
        return code
    return asyncio.run(serve(cfg, args.seconds))


async def serve(cfg: RigConfig, seconds: float | None = None) -> int:
    from rig.runtime import Rig

    bus = make_bus(cfg)
    rig = Rig(cfg, bus)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    where = cfg.bus.mqtt or "the in-process bus"
    print(
        f"rig {rig.table_id}/{rig.session_id}: {rig.recovered} logged events replayed from "
        f"{cfg.table.log}; inputs {', '.join(i.name for i in rig.inputs) or 'none'}; "
        f"publishing on {where}",
        flush=True,
    )
    await rig.start()
    t0 = loop.time()
    try:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.5):
                    await stop.wait()
            failure = rig.failed()
            if failure is not None:
                print(f"mjref rig: the core stopped: {failure}", file=sys.stderr)
                return 1
            if seconds is not None and loop.time() - t0 >= seconds:
                break
    finally:
        await rig.stop()
    return 0
