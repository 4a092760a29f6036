"""The winning-hand model refuses impossible hands with messages that say what is expected."""

from __future__ import annotations

from typing import Any

import pytest
from hand_builders import hand

from referee.hands import HandError, Meld, MeldKind, WinningHand
from referee.tiles import parse_tiles


def test_a_kong_counts_three() -> None:
    h = hand("234m678m1p", "1p", melds=["k:5555p", "9999s"], by="self")
    assert len(h.all_tiles) == 16
    assert h.is_closed is False
    assert hand("234m678m555p1p", "1p", melds=["k:9999s"]).is_closed


def test_fifth_copy_is_refused() -> None:
    with pytest.raises(HandError, match="5 copies of 5s"):
        hand("555s123m456m789p5s", "5s")


def test_wrong_count_names_the_numbers() -> None:
    with pytest.raises(HandError, match=r"12 concealed .* a winning hand has 13"):
        hand("123m456m789p22s4s", "4s")


@pytest.mark.parametrize(
    ("kind", "tiles", "fragment"),
    [
        (MeldKind.CHOW, "135m", "consecutive numbers"),
        (MeldKind.CHOW, "89m1p", "consecutive numbers"),
        (MeldKind.CHOW, "ESW", "consecutive numbers"),
        (MeldKind.PUNG, "556m", "3 identical tiles"),
        (MeldKind.KONG, "555m", "4 identical tiles"),
        (MeldKind.PUNG, "111f", "flowers cannot be in a set"),
    ],
)
def test_illegal_melds(kind: MeldKind, tiles: str, fragment: str) -> None:
    with pytest.raises(HandError, match=fragment):
        Meld(kind, tuple(parse_tiles(tiles)))


def test_only_a_kong_may_be_declared_concealed() -> None:
    with pytest.raises(HandError, match="only a kong"):
        Meld(MeldKind.PUNG, tuple(parse_tiles("555m")), concealed=True)


@pytest.mark.parametrize(
    ("by", "flag", "fragment"),
    [
        ("discard", "final_draw", "needs a self-drawn win"),
        ("self", "final_discard", "needs a win on a discard"),
        ("self", "robbing_kong", "needs a win on a discard"),
        ("self", "win_on_kong", "needs a kong"),
    ],
)
def test_flags_must_fit_the_win(by: str, flag: str, fragment: str) -> None:
    with pytest.raises(HandError, match=fragment):
        hand("123m456m789p22s34s", "5s", by=by, flags=[flag])


def test_heaven_is_east_only_and_earth_is_not_east() -> None:
    with pytest.raises(HandError, match="heaven"):
        hand("123m456m789p22s34s", "5s", by="self", seat="S", flags=["heaven"])
    with pytest.raises(HandError, match="earth"):
        hand("123m456m789p22s34s", "5s", seat="E", flags=["earth"])


def test_case_round_trip() -> None:
    h = hand("234m678m1p", "1p", melds=["k:5555p", "9999s"], by="self", flags=["win_on_kong"])
    assert WinningHand.from_case(h.to_case()) == h


@pytest.mark.parametrize(
    ("case", "fragment"),
    [
        (
            {"concealed": "12x", "win": "5s", "win_by": "self"},
            "'concealed': unexpected character 'x'.*at position 2",
        ),
        ({"concealed": 5, "win": "5s", "win_by": "self"}, "'concealed' must be a tile string"),
        ({"concealed": "123m", "win_by": "self"}, "'win' must be one tile"),
        ({"concealed": "123m", "win": "5s", "win_by": "ron"}, "win_by = 'ron'"),
        ({"concealed": "123m", "win": "5s", "win_by": "self", "seat": "X"}, "wind 'X'"),
        ({"concealed": "123m", "win": "5s", "win_by": "self", "flags": ["riichi"]}, "unknown flag"),
        ({"melds": [{"type": "pair", "tiles": "55m"}], "concealed": "1m"}, r"melds\[0\].type"),
        ({"melds": [{"type": "chow", "tiles": "135m"}], "concealed": "1m"}, r"melds\[0\]: chow"),
        (
            {"concealed": "123m456m789p22s34s", "win": "5s", "win_by": "self", "flowers": 9},
            "flowers = 9",
        ),
    ],
)
def test_case_errors_say_what_is_wrong(case: dict[str, Any], fragment: str) -> None:
    with pytest.raises(HandError, match=fragment):
        WinningHand.from_case(case)


def test_case_flowers_as_tiles() -> None:
    case = {"concealed": "123m456m789p22s34s", "win": "5s", "win_by": "self", "flowers": "137f"}
    assert WinningHand.from_case(case).flowers == 3
