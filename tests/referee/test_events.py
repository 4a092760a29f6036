"""The event envelope and payloads: JSON round trip, boundary validation, line-numbered errors."""

from __future__ import annotations

import json

import pytest

from referee.events import PAYLOADS, Event, LogLineError, parse_line
from referee.game.sim import simulate


def test_every_simulated_event_round_trips_through_json() -> None:
    events = simulate("mcr", hands=2, seed=5) + simulate("wmc", hands=2, seed=5)
    seen = set()
    for ev in events:
        back = parse_line(ev.model_dump_json())
        assert back == Event.model_validate_json(ev.model_dump_json())
        assert back.model_dump_json() == ev.model_dump_json()
        seen.add(ev.type)
    assert {"wall_built", "dice_rolled", "deal", "draw", "discard", "call"} <= seen


def test_envelope_fields_match_design() -> None:
    ev = simulate("wmc", hands=1, seed=1)[0]
    data = json.loads(ev.model_dump_json())
    assert list(data) == [
        "v",
        "table_id",
        "session_id",
        "seq",
        "ts",
        "source",
        "type",
        "payload",
        "confidence",
        "evidence",
    ]


def test_a_hand_written_line_parses_with_tile_notation() -> None:
    line = (
        '{"table_id":"T9","session_id":"S","seq":3,"ts":12.5,"source":"vision",'
        '"type":"discard","payload":{"seat":"W","tile":"5p"},"confidence":0.93,'
        '"evidence":["frame:1234"]}'
    )
    ev = parse_line(line, 1)
    assert (ev.payload.seat, ev.payload.tile) == (2, 13)  # type: ignore[attr-defined]
    assert ev.v == 1 and ev.evidence == ("frame:1234",)


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("{not json", "not JSON"),
        (
            '{"table_id":"T","session_id":"S","seq":0,"ts":0,"source":"vision","type":"dance",'
            '"payload":{}}',
            "unknown event type",
        ),
        (
            '{"table_id":"T","session_id":"S","seq":0,"ts":0,"source":"vision","type":"discard",'
            '"payload":{"seat":"X","tile":"5p"}}',
            "seat wind",
        ),
        (
            '{"table_id":"T","session_id":"S","seq":-1,"ts":0,"source":"vision","type":"exhaustive_draw",'
            '"payload":{}}',
            "seq",
        ),
    ],
)
def test_malformed_lines_name_their_line(line: str, fragment: str) -> None:
    with pytest.raises(LogLineError) as info:
        parse_line(line, 7)
    assert info.value.line == 7 and "line 7" in str(info.value) and fragment in str(info.value)


def test_payload_registry_is_complete() -> None:
    assert all(name == cls.TYPE for name, cls in PAYLOADS.items())
    assert {"observation", "machine", "referee_decision", "hand_revealed"} <= set(PAYLOADS)
