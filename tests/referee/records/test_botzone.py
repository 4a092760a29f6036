"""Botzone's text format: every sample match imports and agrees; each format detail is pinned."""

from __future__ import annotations

from typing import Any

import pytest
from record_logs import records_dir

from referee.events import Event
from referee.hands import Wind
from referee.records import botzone, payload_dict
from referee.records.check import check, replay, summary

DEALS = """\
Player 0 Deal W1 W1 W1 W2 W3 W4 W5 W6 W7 W8 W9 W9 W9
Player 1 Deal B1 B1 B1 B2 B3 B4 B5 B6 B7 B8 B9 B9 B9
Player 2 Deal T1 T1 T1 T2 T3 T4 T5 T6 T7 T8 T9 T9 J3
Player 3 Deal F1 F1 F2 F2 F3 F3 F4 F4 J1 J1 J2 J2 J3
"""


def _match(body: str, *, match_id: str = "m1", wind: int = 0, end: str = "Huang") -> str:
    score = "Score 0 0 0 0" if end == "Huang" else "Score -17 51 -17 -17"
    return f"Match {match_id}\nWind {wind}\n{DEALS}Player 0 Draw J3\n{body}{end}\n{score}\n\n"


def _acts(events: list[Event]) -> list[dict[str, Any]]:
    return [payload_dict(ev) for ev in events[3:]]


def _sample() -> botzone.Imported:
    text = (records_dir() / "botzone-sample.txt").read_text(encoding="utf-8")
    return botzone.parse(text)


def test_every_sample_match_imports_replays_and_agrees() -> None:
    imported = _sample()
    assert imported.errors == []
    assert len(imported.records) == 16
    verdicts = [check(record) for record in imported.records]
    assert [v.line() for v in verdicts] == [f"{r.id}, ok" for r in imported.records]
    assert summary(verdicts) == "records 16, agree 16, engine refused 0, differ 0"
    kinds = [replay(r)[0].state.results[0].outcome for r in imported.records]
    assert kinds.count("win") == 14 and kinds.count("exhaustive_draw") == 2
    for record in imported.records:  # the record's players, seats and profile
        start = record.events[0].payload.model_dump()
        assert start["profile"] == "mcr-botzone"
        assert start["players"] == ("P0", "P1", "P2", "P3")


def test_the_deal_gives_east_its_first_draw_last() -> None:
    events = botzone.parse(_match("Player 0 Play W9\n")).records[0].events
    assert [ev.type for ev in events[:3]] == ["session_started", "wall_built", "deal"]
    hands = payload_dict(events[2])["hands"]
    assert hands["E"] == "1112345678999mP"  # 13 dealt + the first Draw (J3 white = P), last
    assert hands["S"] == "1112345678999p"
    assert hands["N"] == "EESSWWNNCCFFP"  # J1 red C, J2 green F, J3 white P


@pytest.mark.parametrize(("wind", "prevalent"), [(0, "E"), (1, "S"), (2, "W"), (3, "N")])
def test_the_wind_line_is_the_prevalent_wind_in_the_order_e_s_w_n(
    wind: int, prevalent: str
) -> None:
    events = botzone.parse(_match("Player 0 Play W9\n", wind=wind)).records[0].events
    assert payload_dict(events[0])["prevalent"] == prevalent


def test_the_wind_line_scores_prevalent_and_seat_wind_as_the_record_does() -> None:
    """Match …04371: Wind 3, player 3 (North) pungs F4: both 圈风刻 and 门风刻 (README §1);
    …0437b: Wind 2, player 3 pungs F3: 圈风刻 only — so Wind is E S W N, not E N W S."""
    by_id = {r.id: r for r in _sample().records}
    for match, fans in (("61602cb45ddc087351c04371", {60, 61}), ("61602cb45ddc087351c0437b", {60})):
        result = replay(by_id[match])[0].state.results[0]
        ids = {int(p.id.removeprefix("MCR-")) for p in result.patterns}
        assert ids & {60, 61} == fans
        assert check(by_id[match]).status == "ok"


def test_chi_names_the_middle_tile_of_the_run_and_claims_the_previous_play() -> None:
    body = (
        "Player 0 Play W9\nPlayer 1 Chi W8\nPlayer 1 Play B1\nPlayer 2 Chi B2\nPlayer 2 Play T1\n"
    )
    acts = _acts(botzone.parse(_match(body)).records[0].events)
    assert acts[1:3] == [
        {"type": "call", "seat": "S", "call": "chow"},
        {"type": "chow", "seat": "S", "tiles": "789m"},
    ]
    assert {"type": "chow", "seat": "W", "tiles": "123p"} in acts  # the claimed B1 at the low end


def test_a_chi_whose_run_misses_the_discard_is_malformed() -> None:
    imported = botzone.parse(_match("Player 0 Play W9\nPlayer 1 Chi W5\nPlayer 1 Play B1\n"))
    assert imported.records == []
    assert [e.line for e in imported.errors] == [9]
    assert "does not hold the discard" in str(imported.errors[0])


def test_ignored_claims_are_calls_that_lost_in_turn_order_any_case() -> None:
    body = "Player 0 Play W9\nPlayer 2 Peng W9 Ignore Player 1 CHI W8\nPlayer 2 Play T1\n"
    acts = _acts(botzone.parse(_match(body)).records[0].events)
    assert acts[1:4] == [
        {"type": "call", "seat": "S", "call": "chow"},  # next after the discarder: first
        {"type": "call", "seat": "W", "call": "pung"},
        {"type": "pung", "seat": "W", "tiles": None},
    ]


def test_a_draw_after_ones_own_kong_is_its_replacement() -> None:
    body = "Player 0 AnGang W1\nPlayer 0 Draw B5\nPlayer 0 Play B5\nPlayer 1 Draw T5\n"
    acts = _acts(botzone.parse(_match(body)).records[0].events)
    assert acts[:4] == [
        {"type": "call", "seat": "E", "call": "kong"},
        {"type": "kong", "seat": "E", "kind": "concealed", "tile": "1m", "tiles": None},
        {"type": "replacement_draw", "seat": "E", "tile": "5p"},
        {
            "type": "discard",
            "seat": "E",
            "tile": "5p",
            "penalty": False,
            "area": None,
            "index": None,
        },
    ]
    assert acts[4] == {"type": "draw", "seat": "S", "tile": "5s", "merged": True}


def test_a_self_drawn_hu_wins_on_the_draw_whatever_tile_it_names() -> None:
    body = "Player 0 Play W9\nPlayer 1 Draw B3\nPlayer 1 Hu W9\n"
    text = _match(body, end="Fan 8 无番和*1")
    acts = _acts(botzone.parse(text).records[0].events)
    assert acts[-2:] == [
        {"type": "call", "seat": "S", "call": "win"},
        {"type": "win", "seat": "S", "tile": None, "on": None},  # the engine decides (WMC-7.2)
    ]


def test_the_quirk_in_the_sample_self_drawn_wins_score_the_drawn_tile() -> None:
    """Match …04362: 'Player 2 Draw B3', 'Player 2 Hu B5' (B5 the last Play): the engine wins
    self-drawn on 3p, and its fans and payments agree with the record's."""
    record = next(r for r in _sample().records if r.id == "61602cb45ddc087351c04362")
    result = replay(record)[0].state.results[0]
    assert (result.winner, str(result.win_by), result.win_tile) == (Wind.W, "self", 11)
    assert check(record).status == "ok"


def test_huang_is_the_exhaustive_draw_when_the_seat_due_to_draw_has_no_tile_left() -> None:
    huang = [r for r in _sample().records if r.expected.result == "exhaustive_draw"]
    assert len(huang) == 2
    for record in huang:
        table, refused = replay(record)
        assert refused == []
        hand = table.state.hand
        assert hand is not None and hand.wall.live > 0  # tiles remain in other quarters …
        due = Wind((record.events[-2].payload.seat + 1) % 4)  # type: ignore[attr-defined]
        assert hand.wall.live_for(due) == 0  # … but not in the quarter of the seat due to draw


def test_botzone_has_no_flowers() -> None:
    text = _match("Player 0 Play W9\n").replace("W9 W9 W9\nPlayer 1", "W9 W9 H1\nPlayer 1")
    imported = botzone.parse(text)
    assert imported.records == []
    assert str(imported.errors[0]).startswith("line 3: unknown tile 'H1'")


def test_a_malformed_line_is_reported_by_number_and_the_other_matches_still_import() -> None:
    good = _match("Player 0 Play W9\n", match_id="a")
    bad = _match("Player 0 Play W9\nPlayer 1 Draw X7\n", match_id="b")
    text = good + bad + _match("Player 0 Play W9\n", match_id="c")
    imported = botzone.parse(text)
    assert [r.id for r in imported.records] == ["a", "c"]
    assert [(e.line, str(e)) for e in imported.errors] == [
        (20, "line 20: unknown tile 'X7': expected one of W1–W9, B1–B9, T1–T9, F1–F4, J1–J3")
    ]
    assert imported.records[1].line == 24


def test_a_truncated_match_and_an_unknown_verb_are_malformed() -> None:
    imported = botzone.parse("Match x\nWind 0\nPlayer 0 Deal W1\n\n" + _match("Player 0 Ting W9\n"))
    assert [e.line for e in imported.errors] == [3, 12]
    assert "unknown action 'Ting'" in str(imported.errors[1])


def test_the_fan_and_score_lines_are_the_expected_result() -> None:
    text = _match("Player 0 Play W9\nPlayer 1 Hu W9\n", end="Fan 9 混一色*1+嵌张*1+喜相逢*2")
    expected = botzone.parse(text).records[0].expected
    assert expected.result == "win" and expected.winner is Wind.S
    assert expected.fans == {49: 6, 78: 1, 70: 2}  # 嵌张 is our 78 坎张; ×2 counted
    assert expected.total == 9
    assert expected.payments == {Wind.E: -17, Wind.S: 51, Wind.W: -17, Wind.N: -17}
