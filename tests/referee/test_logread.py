"""Reading a log: every session on its own, seq order, repeats and conflicts told apart."""

from __future__ import annotations

import json

from referee.game.sim import Simulator
from referee.logread import read_log


def _lines(seed: int = 3, hands: int = 2, table: str = "T1", session: str = "S1") -> list[str]:
    sim = Simulator("wmc", seed, table_id=table, session_id=session)
    return [ev.model_dump_json() for ev in sim.run(hands)]


def test_swapped_lines_are_read_in_seq_order_and_named() -> None:
    lines = _lines()
    lines[50], lines[51] = lines[51], lines[50]
    read = read_log(lines)
    (log,) = read.sessions
    assert [e.seq for e in log.events] == list(range(len(lines)))
    (issue,) = log.issues
    assert issue.rule == "SYS-order" and issue.seq == 50 and issue.line == 52
    assert not issue.serious


def test_a_repeated_line_is_ignored_and_a_conflict_is_kept_apart() -> None:
    lines = _lines()
    conflict = json.loads(lines[20])
    conflict["ts"] += 1000.0
    damaged = [*lines[:31], lines[30], *lines[31:], json.dumps(conflict)]
    (log,) = read_log(damaged).sessions
    assert [e.seq for e in log.events] == list(range(len(lines)))
    assert log.events[20].model_dump_json() == lines[20]  # the first one read is kept
    repeat, clash = log.issues
    assert (repeat.seq, repeat.serious, repeat.line) == (30, False, 32)
    assert "same event as line 31" in repeat.message
    assert (clash.seq, clash.serious) == (20, True)
    assert "line 21 kept" in clash.message


def test_two_sessions_in_one_file_are_both_read() -> None:
    first = _lines(seed=1, session="S1")
    second = _lines(seed=2, session="S2")
    other_table = _lines(seed=3, table="T9")
    read = read_log([*first, *second, *other_table])
    assert [(s.table_id, s.session_id) for s in read.sessions] == [
        ("T1", "S1"),
        ("T1", "S2"),
        ("T9", "S1"),
    ]
    assert [len(s.events) for s in read.sessions] == [len(first), len(second), len(other_table)]
    assert not read.issues and not read.errors


def test_bytes_that_are_not_utf8_cost_their_line_only() -> None:
    lines = [line.encode() for line in _lines()]
    lines[5] = b"\xff\xfe" + lines[5]
    read = read_log(lines)
    (err,) = read.errors
    assert err.line == 6 and "not UTF-8" in str(err) and "0xff" in str(err)
    assert len(read.sessions[0].events) == len(lines) - 1


def test_blank_and_malformed_lines_are_reported_with_their_numbers() -> None:
    lines = _lines()
    read = read_log([lines[0], "", "   ", "{not json", '{"seq": 1}', *lines[1:]])
    assert [e.line for e in read.errors] == [4, 5]
    assert len(read.sessions[0].events) == len(lines)
