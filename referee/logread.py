"""Reading a game log as its sessions: each (table, session) on its own, in seq order.

A log that went through sensors, copies and hand edits can hold lines out of order, repeated,
in conflict with each other, not UTF-8, or from several sessions. Every reader (replay, sheet,
the store's import, the rig and the dashboard's ingest) goes through here, so that order is
always the seq order and nothing is dropped without a word (referee/EVENTS.md, "Reading a log").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from referee.events import Event, LogLineError, parse_line
from referee.game.alerts import SYS_ORDER, SYS_SEQ


@dataclass(frozen=True, slots=True)
class LogIssue:
    """Something the reader found in the record (not in the game): duplicates, conflicts, order.

    ``serious`` issues mean the record may not be what happened (a conflict): a replay that met
    one does not exit 0 (README, exit codes)."""

    rule: str
    message: str
    line: int
    seq: int
    serious: bool

    def __str__(self) -> str:
        return f"line {self.line}: [{self.rule}] {self.message}"


@dataclass(slots=True)
class SessionLog:
    """The events of one table session in seq order, each seq once, and what reading found."""

    table_id: str
    session_id: str
    events: list[Event] = field(default_factory=list)
    issues: list[LogIssue] = field(default_factory=list)


@dataclass(slots=True)
class LogRead:
    sessions: list[SessionLog]
    errors: list[LogLineError]  # malformed lines (not UTF-8, not JSON, not an event)

    @property
    def issues(self) -> list[LogIssue]:
        return [i for s in self.sessions for i in s.issues]


def decode_lines(lines: Iterable[bytes | str]) -> Iterator[tuple[int, str | LogLineError]]:
    """Number the lines (1-based) and decode each on its own: one bad byte costs one line."""
    for number, raw in enumerate(lines, start=1):
        if isinstance(raw, str):
            yield number, raw
            continue
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad = raw[exc.start : exc.start + 1].hex()
            yield (
                number,
                LogLineError(number, f"not UTF-8 text (byte 0x{bad} at column {exc.start + 1})"),
            )


def read_log(lines: Iterable[bytes | str]) -> LogRead:
    """Parse, group by (table, session) in order of first appearance, order each by seq and
    drop repeats: the same event again is ignored (info), another event under a seq already
    read is a conflict (the first one read is kept)."""
    errors: list[LogLineError] = []
    found: dict[tuple[str, str], list[tuple[int, Event]]] = {}
    for number, text in decode_lines(lines):
        if isinstance(text, LogLineError):
            errors.append(text)
            continue
        if not text.strip():
            continue
        try:
            event = parse_line(text, number)
        except LogLineError as exc:
            errors.append(exc)
            continue
        found.setdefault((event.table_id, event.session_id), []).append((number, event))
    return LogRead([_order(t, s, read) for (t, s), read in found.items()], errors)


def read_log_file(path: Path) -> LogRead:
    """Read a log file (OSError when it cannot be opened or read)."""
    with path.open("rb") as fh:
        return read_log(fh)


def _order(table_id: str, session_id: str, read: list[tuple[int, Event]]) -> SessionLog:
    out = SessionLog(table_id, session_id)
    highest: tuple[int, int] | None = None  # (seq, line) of the highest seq read so far
    kept: dict[int, tuple[int, Event]] = {}
    for number, event in read:
        seq = event.seq
        first = kept.get(seq)
        if first is not None:
            line, earlier = first
            if earlier == event:
                out.issues.append(
                    LogIssue(
                        SYS_SEQ,
                        f"seq {seq} repeated (the same event as line {line}): ignored",
                        number,
                        seq,
                        serious=False,
                    )
                )
            else:
                out.issues.append(
                    LogIssue(
                        SYS_SEQ,
                        f"seq {seq} holds another event than line {line} "
                        f"({event.type} vs {earlier.type}): line {line} kept, this one ignored",
                        number,
                        seq,
                        serious=True,
                    )
                )
            continue
        if highest is not None and seq < highest[0]:
            out.issues.append(
                LogIssue(
                    SYS_ORDER,
                    f"seq {seq} comes after seq {highest[0]} (line {highest[1]}): "
                    "replayed in seq order",
                    number,
                    seq,
                    serious=False,
                )
            )
        kept[seq] = (number, event)
        if highest is None or seq > highest[0]:
            highest = (seq, number)
    out.events = [kept[s][1] for s in sorted(kept)]
    return out
