"""The 2017 tab-separated hands: the three samples agree; flowers, dealer and header pinned."""

from __future__ import annotations

from pathlib import Path

import pytest
from record_logs import records_dir

from referee.hands import Wind
from referee.records import RecordError, mjdata, payload_dict
from referee.records.check import check, replay

HEAD = "./2017/2017-01-01/1.xml\n南\t0\t['荒庄-0']\t\t荒庄\n"
DEAL = (
    "0\t['W1','W1','W1','W2','W3','W4','W5','W6','W7','W8','W9','W9','W9']\t0\n"
    "1\t['B1','B1','B1','B2','B3','B4','B5','B6','B7','B8','B9','B9','B9','J1']\t0\n"
    "2\t['T1','T1','T1','T2','T3','T4','T5','T6','T7','T8','T9','T9','T9']\t2\n"
    "3\t['F1','F1','F2','F2','F3','F3','F4','F4','J1','J2','J2','J3','J3']\t0\n"
)


def _samples() -> list[Path]:
    return sorted((records_dir() / "mjdata2017").glob("*/*.txt"))


def test_every_sample_hand_imports_replays_and_agrees() -> None:
    files = _samples()
    assert len(files) == 3
    for path in files:
        record = mjdata.parse(path.read_text(encoding="utf-8"), path.stem)
        assert check(record).line() == f"{path.stem}, ok"
        table, refused = replay(record)
        assert refused == [] and table.state.alerts == []


def test_the_sample_results_are_the_records() -> None:
    """MO: self-drawn by seat 0 for 93 = 3·(8+23), 花牌-2; PLAY: seat 0 on seat 3's W3, 57;
    LIU: drawn after all 144 tiles."""
    got = {}
    for path in _samples():
        table, _ = replay(mjdata.parse(path.read_text(encoding="utf-8"), path.stem))
        result = table.state.results[0]
        hand = table.state.hand
        assert hand is not None
        got[path.parent.name] = (
            result.outcome,
            result.winner_name,
            max(result.deltas.values(), default=0),
        )
        if path.parent.name == "LIU":
            assert hand.wall.remaining == 0
            assert sum(len(s.flowers) for s in hand.seats) == 8
    assert got == {
        "LIU": ("exhaustive_draw", None, 0),
        "MO": ("win", "P0", 93),
        "PLAY": ("win", "P0", 57),
    }


def test_the_dealer_is_the_seat_dealt_14_and_sits_east() -> None:
    record = mjdata.parse(HEAD + DEAL + "1\t打牌\t['J1']\t\n", "x")
    start = payload_dict(record.events[0])
    assert start["players"] == ["P1", "P2", "P3", "P0"]
    assert start["prevalent"] == "S"  # 南
    assert payload_dict(record.events[-2]) == {
        "type": "discard",
        "seat": "E",
        "tile": "C",
        "penalty": False,
        "area": None,
        "index": None,
    }


def test_deal_flowers_are_an_inferred_exchange_with_unseen_faces_and_the_hands_last_tiles() -> None:
    body = "1\t打牌\t['J1']\t\n2\t摸牌\t['H1']\t\n2\t补花\t['H1']\t\n2\t补花后摸牌\t['J1']\t\n"
    record = mjdata.parse(HEAD + DEAL + body, "x")
    deal = payload_dict(record.events[2])
    # seat 2 (South) was dealt 2 flowers: the faces are those never shown in play (H1 is: 2f, 3f),
    # the replacements its hand's last two tiles (T9 T9)
    assert deal["hands"]["S"] == "11123456789s23f"
    exchange = record.events[3:7]
    assert [payload_dict(ev) for ev in exchange] == [
        {"type": "flower", "seat": "S", "tile": "2f"},
        {"type": "replacement_draw", "seat": "S", "tile": "9s"},
        {"type": "flower", "seat": "S", "tile": "3f"},
        {"type": "replacement_draw", "seat": "S", "tile": "9s"},
    ]
    assert all("inferred:flower-exchange" in ev.evidence for ev in exchange)
    play = [payload_dict(ev) for ev in record.events[7:11]]
    assert play == [
        {
            "type": "discard",
            "seat": "E",
            "tile": "C",
            "penalty": False,
            "area": None,
            "index": None,
        },
        {"type": "draw", "seat": "S", "tile": "1f", "merged": True},
        {"type": "flower", "seat": "S", "tile": "1f"},
        {"type": "replacement_draw", "seat": "S", "tile": "C"},
    ]
    table, refused = replay(record)
    assert [a.rule for a in refused] == ["WMC-6.3"]  # only the 荒庄 with 87 tiles still to draw
    hand = table.state.hand
    assert hand is not None and sorted(hand.seats[Wind.S].flowers) == [34, 35, 36]


def test_a_win_line_that_does_not_end_a_won_hand_is_kept_as_an_observation() -> None:
    body = "1\t打牌\t['J1']\t\n2\t和牌\t['J1']\tJ1\t1\n2\t摸牌\t['H1']\t\n"
    record = mjdata.parse(HEAD + DEAL + body, "x")
    kinds = [ev.type for ev in record.events]
    assert "win" not in kinds
    seen = next(ev for ev in record.events if ev.type == "observation")
    assert payload_dict(seen)["kind"] == "win_not_accepted"
    assert record.events[-1].type == "exhaustive_draw"


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        (HEAD.replace("荒庄\n", "赢了\n") + DEAL + "1\t打牌\t['J1']\t\n", 2, "header"),
        (HEAD + DEAL.replace("'W9']\t0", "'W9'\t0") + "1\t打牌\t['J1']\t\n", 3, "tile list"),
        (HEAD + DEAL + "1\t打牌\t['X1']\t\n", 7, "unknown tile 'X1'"),
        (HEAD + DEAL + "1\t打牌\t['J1']\t\n5\t摸牌\t['W1']\t\n", 8, "seat '5'"),
        (HEAD + DEAL + "1\t听牌\t['J1']\t\n", 7, "unknown action '听牌'"),
        (HEAD.replace("荒庄\n", "自摸\n") + DEAL + "1\t打牌\t['J1']\t\n", 7, "no 和牌 line ends"),
    ],
)
def test_a_malformed_line_names_its_number(text: str, line: int, says: str) -> None:
    with pytest.raises(RecordError) as err:
        mjdata.parse(text, "x")
    assert err.value.line == line
    assert says in str(err.value)


def test_the_header_is_the_expected_result() -> None:
    head = "./x.xml\n东\t57\t['小于五-12','断幺九-2','坎张-1','花牌-2']\t\t和牌\n"
    body = "1\t打牌\t['J1']\t\n0\t和牌\t['J1']\tJ1\t1\n"
    expected = mjdata.parse(head + DEAL + body, "x").expected
    assert expected.result == "win" and expected.winner is Wind.N  # seat 0, dealer seat 1
    assert expected.fans == {37: 12, 68: 2, 78: 1, 81: 2}  # 断幺九 = 68 断幺
    assert (expected.total, expected.winner_points) == (17, 57)
