"""Recorded games for the records tests: where the samples are, and the part of a log a
record format keeps, per hand, for round-trip comparisons."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from referee.events import Event
from referee.game.table import Table
from referee.records import payload_dict
from referee.tiles import NUM_KINDS, format_tiles

REPO = Path(__file__).resolve().parents[2]


def records_dir() -> Path:
    """../shared/testdata/records (or under $MJREF_SHARED); the test is skipped without it."""
    root = Path(os.environ.get("MJREF_SHARED", REPO.parent / "shared"))
    path = root / "testdata" / "records"
    if not path.is_dir():
        pytest.skip(f"{path} not found: the recorded games live in shared/ beside the repo")
    return path


_SETUP = ("session_started", "seat_draw", "wall_built", "dice_rolled", "observation")
_EXCHANGE = ("flower", "replacement_draw")


def hands(events: Sequence[Event], *, calls: bool = True) -> list[dict[str, Any]]:
    """Per hand: the prevalent wind, the hands once the opening flowers are replaced (sorted)
    with the number of flowers each seat set aside, every later event's type and payload (the
    calls too unless ``calls`` is False), and the engine's result by seat (names left out:
    a record names players by seat)."""
    table = Table(events[0].table_id, events[0].session_id)
    out: list[dict[str, Any]] = []
    exchange = False
    for ev in events:
        hand = table.state.hand
        if exchange and ev.type not in _EXCHANGE and hand is not None:
            out[-1]["deal"] = {
                s: [
                    format_tiles(t for t in range(NUM_KINDS) for _ in range(me.counts[t])),
                    len(me.flowers),
                ]
                for s, me in zip("ESWN", hand.seats, strict=True)
            }
            exchange = False
        table.apply(ev)
        if ev.type == "wall_built":
            out.append({"prevalent": table.state.prevalent.name, "acts": []})
        elif ev.type == "deal":
            exchange = True
        elif ev.type not in _SETUP and not exchange and (calls or ev.type != "call"):
            out[-1]["acts"].append(payload_dict(ev))
    for entry, result in zip(out, table.state.results, strict=False):
        entry["result"] = {
            k: v
            for k, v in result.to_dict().items()
            if k not in ("hand", "dealer", "winner_name", "by_player")
        }
    return out
