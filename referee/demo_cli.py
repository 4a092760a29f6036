"""`mjref demo`: the main job. Until the dashboard exists it says what it will run."""

from __future__ import annotations

import argparse
from typing import Any

PLAN = """mjref demo — the referee assistant on one machine (embedded defaults).

Not yet assembled: the demo will start the referees' dashboard on localhost and a full simulated
table (automatic-table link, camera and microphone replayed from recordings) feeding the referee
core, with alerts and penalty proposals on the dashboard.

Available now:
  ./run score "234m234m666p88s34s" --win 5s --discard --seat E   score a hand (WMC, ZJ, MCR)
  ./run test                                                     the whole test suite
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="run the dashboard with a simulated table")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print(PLAN, end="")
    return 0
