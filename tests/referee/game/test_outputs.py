"""The engine's outputs — derived events and alerts — as envelope events (EVENTS.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from referee.events import ENGINE_TYPES, EngineEvent, Event, parse_line
from referee.game.script import Script
from referee.game.sim import simulate
from referee.game.table import Table

ENVELOPE = [
    "v",
    "table_id",
    "session_id",
    "seq",
    "ts",
    "source",
    "type",
    "payload",
    "cause",
    "confidence",
    "evidence",
]


def outputs_of(events: list[Event]) -> list[EngineEvent]:
    table = Table(events[0].table_id, events[0].session_id)
    out: list[EngineEvent] = []
    for ev in events:
        out += table.apply(ev).outputs()
    return out


def test_derived_events_are_envelope_events_citing_their_cause() -> None:
    events = simulate("wmc", hands=5, seed=4, table_id="T7", session_id="half-2")
    by_seq = {ev.seq: ev for ev in events}
    outs = outputs_of(events)
    assert [o.seq for o in outs] == list(range(len(outs)))  # its own gap-free stream
    assert {o.type for o in outs} >= {
        "seats_assigned",
        "breaker_named",
        "wall_broken",
        "hand_scored",
        "hand_ended",
        "round_ended",
    }
    for o in outs:
        data = json.loads(o.to_json())
        assert list(data) == ENVELOPE and data["source"] == "engine"
        assert (o.table_id, o.session_id) == ("T7", "half-2")
        cause = by_seq[o.cause]
        assert o.ts == cause.ts and o.evidence == cause.evidence
        assert EngineEvent.model_validate_json(o.to_json()) == o  # a consumer parses it back
    scored = [o for o in outs if o.type == "hand_scored"]
    assert all(by_seq[o.cause].type == "win" for o in scored)
    assert all(sum(o.payload["payments"].values()) == 0 for o in scored)


def test_replaying_the_log_gives_the_same_outputs_with_the_same_numbers() -> None:
    events = simulate("mcr", hands=2, seed=9)
    again = [parse_line(e.model_dump_json()) for e in events]
    assert [o.to_json() for o in outputs_of(again)] == [o.to_json() for o in outputs_of(events)]


def test_alerts_are_outputs_with_rule_and_severity() -> None:
    s = Script()
    s.start(
        E="123m456m789mESWNP",
        S="234m567m789p111p5p",
        W="678p123s789s22sFF",
        N="55s66s77sCCC2p9pEE",
    )
    step = s.do("E discard 9s")  # a tile he does not hold: cannot have happened
    [alert] = step.outputs()
    assert step.cause is not None
    assert alert.type == "alert" and alert.cause == step.cause.seq
    assert alert.payload == {
        "rule": "WMC-10.1",
        "severity": "violation",
        "message": "E does not hold 9s",
        "seq": alert.cause,
        "seat": "E",
        "rejected": True,
    }
    before = s.table.state.out_seq
    assert s.do("E discard P").outputs() == [] and s.table.state.out_seq == before


def test_unknown_engine_types_are_refused() -> None:
    assert "alert" in ENGINE_TYPES
    with pytest.raises(ValidationError, match="unknown engine event type"):
        EngineEvent(table_id="T", session_id="S", seq=0, ts=0.0, type="dance", payload={}, cause=0)


def test_mjref_replay_outputs_prints_engine_events(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("".join(e.model_dump_json() + "\n" for e in simulate("wmc", 1, seed=2)))
    run = subprocess.run(
        [sys.executable, "-m", "rig.cli", "replay", str(log), "--outputs"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = run.stdout.splitlines()
    assert lines and all(EngineEvent.model_validate_json(line) for line in lines)
    assert json.loads(lines[-1])["type"] == "hand_ended"


def test_a_duplicate_input_is_answered_but_stays_out_of_the_state_and_the_outputs() -> None:
    events = simulate("wmc", hands=1, seed=6)
    table = Table()
    for ev in events[:10]:
        table.apply(ev)
    before = table.state.to_dict()
    step = table.apply(events[5])  # a resend of seq 5
    assert [a.rule for a in step.alerts] == ["SYS-seq"] and not step.accepted
    assert step.outputs() == [] and table.state.to_dict() == before
