"""`mjref`: one console script; each package contributes its subcommands through ``register``.

It lives in ``rig`` (the composition root), so that the referee core loads no sensor package.
The command modules are named here and loaded when the parser is built, so the packages above
the rig (``dashboard``, and ``venue`` with the demo) add their commands without the rig importing
them.
"""

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
    "referee.records_cli",
    "voice.cli",
    "vision.cli",
    "vision.camera_cli",
    "rig.rig_cli",
    "rig.bus_cli",
    "venue.review_cli",
    "venue.demo",
    "dashboard.cli",
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
    """Exit codes (README "Exit codes"): 0 done, 1 done with findings, 2 usage or unreadable
    input, 3 an internal error, 130 interrupted, 141 the reader went away."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # last resort: commands report their own errors; this is a bug
        if os.environ.get("MJREF_DEBUG"):
            raise
        message, code = _last_resort(exc)
        print(f"mjref {args.command}: {message}", file=sys.stderr)
    return code


def _last_resort(exc: Exception) -> tuple[str, int]:
    """One line and an exit code for an exception no command caught."""
    if isinstance(exc, UnicodeDecodeError):
        return f"the input is not UTF-8 text (byte {exc.start}: {exc.reason})", 2
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename is not None else ""
        return f"{where}{exc.strerror or exc}", 2
    return (
        f"internal error: {type(exc).__name__}: {exc} "
        "(please report it with the command; MJREF_DEBUG=1 shows where)"
    ), 3


if __name__ == "__main__":
    sys.exit(main())
