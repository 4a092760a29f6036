"""Running the camera pipeline on a video into the core, and scoring it against rendered truth."""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from referee.events import Event, parse_line
from referee.fusion import Fusion
from referee.game.seen import table_knows
from referee.game.table import Table
from referee.records.walk import as_corrected
from referee.tiles import tile_name
from vision.camera import TableReader
from vision.capture import CaptureError, read_file
from vision.synth.table_state import ACTION_TYPES

SETTLED_S = 1.5  # a frame is settled when the table has been at rest this long (the arm gone)
MATCH_S = 6.0  # a reconstructed action matches a true one of the same kind within this time
FIRST_READING_S = 1.0  # walls reported this soon after reading starts stood from the start


@dataclass
class RunResult:
    fusion: Fusion
    reader: TableReader
    frames: int = 0
    seconds: float = 0.0
    slots_right: int = 0
    slots_seen: int = 0
    hidden_changed: int = 0
    states: list[dict[str, str]] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)  # wrong slots by "zone missing|..."


def engine_from(setup: Iterable[Event]) -> tuple[Table, int]:
    table = Table()
    seq = -1
    for event in setup:
        table.apply(event)
        seq = event.seq
    return table, seq + 1


@dataclass
class Others:
    """Events of the table's other sources (the table link's walls and dice, a referee's
    entries), followed by fusion when the video reaches their time and numbered on in its
    record, as the rig's sequencer numbers them."""

    fusion: Fusion
    waiting: list[Event]
    followed: list[Event] = field(default_factory=list)

    def until(self, t: float) -> list[Event]:
        """Follow the events up to ``t``; returns them as numbered in the record."""
        now: list[Event] = []
        while self.waiting and self.waiting[0].ts <= t:
            event = self.waiting.pop(0).model_copy(update={"seq": self.fusion.next_seq})
            self.fusion.follow(event)
            now.append(event)
        self.followed += now
        return now


def split_setup(
    setup: Sequence[Event], start: float | None = None
) -> tuple[list[Event], list[Event], float]:
    """A setup log cut where its video starts: the events before the first frame (for the
    engine), those told later (:class:`Others`), and the first frame's time on the log's clock.
    A log with a deal (a simulation's, a referee's entries) starts its video at the deal, and
    what follows it is the camera's to see; a hidden one (players, seats, each hand's wall and
    dice: ``referee.game.seen.TABLE_KNOWS``) at ``start``, else when the first wall was broken
    (its second roll): the camera sees the deal go face down into the racks."""
    events = list(setup)
    deal = next((i for i, e in enumerate(events) if e.type == "deal"), None)
    if deal is not None and start is None:
        return events[: deal + 1], [], events[deal].ts
    if start is None:
        rolls = [i for i, e in enumerate(events) if e.type == "dice_rolled"]
        start = events[rolls[1]].ts if len(rolls) > 1 else (events[-1].ts if events else 0.0)
    cut = sum(e.ts <= start for e in events)
    return events[:cut], events[cut:], start


def walls_rise_s(
    frames: Iterable[tuple[int, float, np.ndarray]], reader: TableReader, within_s: float = 120.0
) -> float | None:
    """Seconds into a video at which the first hand's walls are first seen rising: a recording
    that starts before the machine raised them (a session filmed from its start). None when
    the walls stand from the first reading (the video starts later: the time cannot be told
    from it) or none rose within ``within_s``."""
    first: float | None = None
    read_at: float | None = None  # the first reading, which finds what stood from the start
    for number, t, frame in frames:
        first = t if first is None else first
        if t - first > within_s:
            return None
        seen = reader.process(frame, t, number)
        if read_at is None and reader.gate.whole is not None:
            read_at = t
        if any(o.zone == "wall" and o.count for o in seen):
            assert read_at is not None
            return t - first if t - read_at > FIRST_READING_S else None
    return None


def holds_play(setup: Sequence[Event]) -> bool:
    """A setup log that goes on past its first deal: a whole record (a simulation's, another
    rig's), whose play is the camera's to see, and whose next hands' walls and dice are the
    table link's to tell: given as it was, every hand after the first was lost."""
    deal = next((i for i, e in enumerate(setup) if e.type == "deal"), len(setup))
    return any(e.type in ACTION_TYPES for e in setup[deal + 1 :])


def video_clock(
    setup: Sequence[Event], video: Path | None, reader: TableReader, start: float | None = None
) -> tuple[list[Event], list[Event], float, list[str]]:
    """:func:`split_setup` for a video: a whole record is cut to what a table tells its rig
    (:func:`holds_play`), and where nothing says when the video starts (no ``start``, no deal
    told) the walls rising in it put its first frame on the log's clock (a session filmed from
    its start). Also what was decided, to say. ``reader``: a fresh one, for the walls."""
    notes: list[str] = []
    events = list(setup)
    if holds_play(events):
        events = table_knows(events)
        notes.append(
            "a whole record (its play goes on past the deal): the camera is told only what a "
            "table tells the rig (players, seats, each hand's wall and dice)"
        )
    built = next((e.ts for e in events if e.type == "wall_built"), None)
    told_deal = any(e.type == "deal" for e in events)
    if start is None and video is not None and built is not None and not told_deal:
        try:
            rise = walls_rise_s(read_file(video), reader)
        except CaptureError:
            rise = None  # the run itself says what is wrong with the file
        if rise is not None:
            start = built - rise
            notes.append(
                f"the walls rise {rise:.1f} s into the video: its first frame is "
                f"{start:.1f} s on the setup log's clock (--start to set it)"
            )
    before, later, t0 = split_setup(events, start)
    return before, later, t0, notes


def run_frames(
    frames: Iterable[tuple[int, float, np.ndarray]],
    reader: TableReader,
    fusion: Fusion,
    truth: dict[int, dict[str, Any]] | None = None,
    on_frame: Callable[[int, float, np.ndarray], object] | None = None,
) -> RunResult:
    """Feed frames through reader and fusion; with truth, count right slots on settled frames."""
    result = RunResult(fusion, reader)
    start = time.perf_counter()
    last_change, previous = -1e9, None
    last_t: float | None = None
    for number, t, frame in frames:
        last_t = t
        for obs in reader.process(frame, t, number):
            fusion.observe(obs)
        reader.name(fusion.take_named())
        result.frames += 1
        if on_frame is not None:
            on_frame(number, t, frame)
        line = truth.get(number) if truth else None
        if line is None:
            continue
        tiles: dict[str, str] = line["tiles"]
        if tiles != previous:
            last_change, previous = line["t"], tiles
        if line["t"] - last_change < SETTLED_S:
            continue
        got = reader.slot_labels()
        hidden = set(line["hidden"])
        for key in set(tiles) | set(got):
            if key in hidden:
                continue
            result.slots_seen += 1
            want, have = tiles.get(key), got.get(key)
            if want == have:
                result.slots_right += 1
            else:
                result.errors[f"{key.split('/')[1]} {_error_kind(want, have)}"] += 1
    result.seconds = time.perf_counter() - start
    if last_t is not None:
        fusion.flush(last_t)  # the end of the input: what waits for a legal order is an alert
    return result


def _error_kind(want: str | None, have: str | None) -> str:
    """Why a slot is wrong: a tile not seen, one seen where none lies, or the wrong reading."""
    if have is None:
        return "missing"
    if want is None:
        return "junk"
    if want.rstrip("^") == have.rstrip("^"):
        return "sideways"
    return "back-vs-face" if "back" in (want, have) else "confused"


def read_truth(
    path: Path,
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[int, dict[str, Any]]]:
    header: dict[str, Any] = {}
    actions: list[dict[str, Any]] = []
    frames: dict[int, dict[str, Any]] = {}
    try:
        for text in path.read_text().splitlines():
            line = json.loads(text)
            kind = line.get("kind")
            if kind == "header":
                header = line
            elif kind == "action":
                actions.append(line)
            elif kind == "frame":
                frames[int(line["i"])] = line
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(
            f"{path}: not a truth file ({exc}); expected the JSON lines that "
            "`mjref vision render --truth` writes"
        ) from None
    if not header:
        raise ValueError(f"{path}: no header line; expected a truth file of `mjref vision render`")
    return header, actions, frames


def setup_events(header: dict[str, Any]) -> list[Event]:
    return [parse_line(json.dumps(e), i + 1) for i, e in enumerate(header.get("setup", []))]


def action_key(event: Event) -> tuple[str, str, str | None]:
    p = event.payload
    seat = p.seat.name  # type: ignore[attr-defined]
    if event.type in ("draw", "replacement_draw", "win", "chow", "pung"):
        return event.type, seat, None
    tile = getattr(p, "tile", None)
    return event.type, seat, tile_name(tile) if isinstance(tile, int) else None


def score(result: RunResult, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """slot_accuracy, action_precision, action_recall, latency_median_s, fps; ``by_kind``:
    (found, true) actions of each kind."""
    got = [
        e
        for e in as_corrected(result.fusion.events)
        if e.type in ("draw", "replacement_draw", "discard", "chow", "pung", "kong", "win")
    ]
    used: set[int] = set()
    latencies: list[float] = []
    right = 0
    by_kind: dict[str, list[int]] = {}  # kind → [found, true]
    for a in actions:
        want = (a["type"], a["seat"], a["tile"] if a["type"] in ("discard", "kong") else None)
        tally = by_kind.setdefault(a["type"], [0, 0])
        tally[1] += 1
        for i, e in enumerate(got):
            if i in used or action_key(e) != want or abs(e.ts - a["t"]) > MATCH_S:
                continue
            used.add(i)
            right += 1
            tally[0] += 1
            latencies.append(max(0.0, e.ts - a["t"]))
            break
    return {
        "slot_accuracy": result.slots_right / result.slots_seen if result.slots_seen else 0.0,
        "action_precision": right / len(got) if got else 0.0,
        "action_recall": right / len(actions) if actions else 0.0,
        "latency_median_s": statistics.median(latencies) if latencies else float("nan"),
        "fps": result.frames / result.seconds if result.seconds else 0.0,
        "frames": result.frames,
        "alerts": len(result.fusion.alerts),
        "classified": result.reader.reads,
        "by_kind": {k: (v[0], v[1]) for k, v in by_kind.items()},
    }
