"""`mjref`: one console script; each package contributes its subcommands through ``register``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# Modules exposing ``register(subparsers)``; each adds its subcommands and their handlers.
COMMAND_MODULES: tuple[str, ...] = (
    "referee.score_cli",
    "referee.demo_cli",
    "table_io.cli",
    "referee.sim_cli",
    "voice.cli",
    "vision.cli",
    "vision.camera_cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mjref",
        description="Referee assistant for tournament mahjong (WMC rules; MCR profile).",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
