"""`mjref bus tail` / `mjref bus send`: see what flows on a venue's MQTT bus, command a table.

``tail`` prints one line per message (``--json``: one JSON object per line); ``--ordered``
prints each table's events exactly once and in order, asking rigs for what it missed
(``cmd/resend_from``), as the dashboard ingests them. ``send T NAME [JSON | KEY=VALUE …]``
publishes ``cmd/NAME`` to table T, e.g. ``mjref bus send T1 resend_from seq=0`` or
``mjref bus send T1 event '{"type": "table_paused", "payload": {}}'``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from referee.cli_support import float_in
from rig.bus import COMMANDS, BusMessage, topic_filter

DEFAULT_MQTT = "mqtt://127.0.0.1:1883"
EXIT_USAGE = 2


def register(subparsers: Any) -> None:
    bus = subparsers.add_parser("bus", help="the venue's MQTT bus: tail it, send a command")
    commands = bus.add_subparsers(dest="bus_command", metavar="SUBCOMMAND")
    commands.required = True
    for name, helptext, handler in (
        ("tail", "print what flows on the bus", run_tail),
        ("send", "send a command to a table (cmd/NAME)", run_send),
    ):
        sub = commands.add_parser(name, help=helptext, description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
        sub.add_argument("--mqtt", default=DEFAULT_MQTT, metavar="URL", help="the broker")
        sub.add_argument("--venue", default="local", help="the venue's topic level")
        sub.set_defaults(handler=handler)
        if name == "tail":
            sub.add_argument("--table", default=None, metavar="T", help="one table (default all)")
            sub.add_argument("--json", action="store_true", help="one JSON object per line")
            sub.add_argument("--ordered", action="store_true", help="events once, in order")
            sub.add_argument(
                "--seconds",
                type=float_in(0.0, above=True),
                default=None,
                help="stop after this long",
            )
        else:
            sub.add_argument("table", metavar="T")
            sub.add_argument("name", metavar="NAME", help=f"one of {', '.join(COMMANDS)}")
            sub.add_argument("args", nargs="*", metavar="JSON|KEY=VALUE")


def command_payload(args: list[str]) -> dict[str, Any]:
    """A JSON object, or KEY=VALUE pairs (a value is read as JSON where it parses)."""
    if len(args) == 1 and args[0].lstrip().startswith("{"):
        obj = json.loads(args[0])
        if not isinstance(obj, dict):
            raise ValueError("the command must be a JSON object")
        return obj
    out: dict[str, Any] = {}
    for pair in args:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise ValueError(f"{pair!r}: expected KEY=VALUE or one JSON object")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def line(message: BusMessage) -> str:
    p = message.payload
    where = f"{message.table} {message.kind}{'/' + message.name if message.name else ''}"
    if message.kind in ("events", "alerts"):
        stream = "engine" if p.get("source") == "engine" else "log"
        seq = f"{p.get('session_id')} {stream}#{p.get('seq', '-')}"
        body = json.dumps(p.get("payload"), ensure_ascii=False)
        return f"{where} {seq} {p.get('source')} {p.get('type')} {body}"
    if message.kind == "status":
        inputs = " ".join(f"{k}={v.get('health')}" for k, v in (p.get("inputs") or {}).items())
        return f"{where} {p.get('state')} last_seq={p.get('last_seq')} {inputs}".rstrip()
    if message.kind == "state":
        seqs = f"last_seq={p.get('last_seq')} out_seq={p.get('out_seq')}"
        return f"{where} {seqs} phase={p.get('phase')}"
    return f"{where} {json.dumps(p, ensure_ascii=False)}"


async def _tail(args: argparse.Namespace) -> int:
    from rig.bus.feed import follow
    from rig.bus.mqtt import MqttBus

    bus = MqttBus(args.mqtt, args.venue)
    await bus.start()
    if not await bus.wait_connected(5):
        print(f"mjref bus: no broker at {args.mqtt}", file=sys.stderr)
        await bus.close()
        return 1

    async def printing() -> None:
        if args.ordered:
            async for env in follow(bus, args.table):
                print(json.dumps(env, ensure_ascii=False), flush=True)
            return
        sub = await bus.subscribe(topic_filter(args.venue, args.table))
        async for m in sub:
            if args.json:
                obj = {"topic": m.topic, "retained": m.retained, "payload": m.payload}
                print(json.dumps(obj, ensure_ascii=False), flush=True)
            else:
                print(line(m), flush=True)

    task = asyncio.create_task(printing())
    try:
        await asyncio.wait({task}, timeout=args.seconds)
    finally:
        task.cancel()
        await asyncio.wait({task})
        await bus.close()
    return 0


async def _send(args: argparse.Namespace, payload: dict[str, Any]) -> int:
    from rig.bus import BusError
    from rig.bus.mqtt import MqttBus

    bus = MqttBus(args.mqtt, args.venue)
    await bus.start()
    try:
        if not await bus.wait_connected(5):
            print(f"mjref bus: no broker at {args.mqtt}", file=sys.stderr)
            return 1
        await bus.send_command(args.table, args.name, payload)
    except BusError as exc:
        print(f"mjref bus: {exc}", file=sys.stderr)
        return 1
    finally:
        await bus.close()
    return 0


def _url_ok(url: str) -> bool:
    from rig.bus.mqtt import parse_url

    try:
        parse_url(url)
    except ValueError as exc:
        print(f"mjref bus: --mqtt {exc}", file=sys.stderr)
        return False
    return True


def run_tail(args: argparse.Namespace) -> int:
    if not _url_ok(args.mqtt):
        return EXIT_USAGE
    code: int = asyncio.run(_tail(args))
    return code


def run_send(args: argparse.Namespace) -> int:
    if not _url_ok(args.mqtt):
        return EXIT_USAGE
    if args.name not in COMMANDS:
        print(f"mjref bus: unknown command {args.name!r}; expected one of {', '.join(COMMANDS)}",
              file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    try:
        payload = command_payload(args.args)
    except ValueError as exc:
        print(f"mjref bus: {exc}", file=sys.stderr)
        return EXIT_USAGE
    code: int = asyncio.run(_send(args, payload))
    return code
