"""`mjref`: one console script; each package contributes its subcommands through ``register``.

It lives in ``rig`` (the composition root), so that the referee core loads no sensor package.
The command modules are named here, and a command loads only its own, so the packages above the
rig (``dashboard``, and ``venue`` with the demo) add their commands without the rig importing
them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# Modules exposing ``register(subparsers)``; each adds its subcommands (named here, so that a
# command loads only its own module: `mjref score` starts in a tenth of a second, not two).
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "referee.score_cli": ("score",),
    "referee.demo_cli": ("demo-terminal",),
    "table_io.cli": ("table",),
    "referee.sim_cli": ("simulate", "sheet", "replay"),
    "referee.records_cli": ("import", "export"),
    "voice.cli": ("voice",),
    "vision.cli": ("tiles",),
    "vision.camera_cli": ("vision",),
    "rig.rig_cli": ("rig",),
    "rig.bus_cli": ("bus",),
    "venue.review_cli": ("review",),
    "venue.demo": ("demo",),
    "dashboard.cli": ("dashboard", "users", "tokens"),
    "dashboard.seating_cli": ("seating",),
    "dashboard.tournament_cli": ("tournament",),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``command`` alone when it is one of ours, else of every command."""
    parser = argparse.ArgumentParser(
        prog="mjref",
        description="Referee assistant for tournament mahjong (WMC rules; MCR profile).",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    own = [m for m, names in COMMAND_MODULES.items() if command in names]
    for name in own or COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The command named first (before it only ``-h`` and the like can come)."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Exit codes (README "Exit codes"): 0 done, 1 done with findings, 2 usage or unreadable
    input, 3 an internal error, 130 interrupted, 141 the reader went away."""
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(_command(words))
    args = parser.parse_args(words)
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
