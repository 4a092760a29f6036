"""The tile notation of shared/testdata: parse, format, round-trip, and errors that point."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee import tiles as T
from referee.tiles import NotationError, format_tiles, parse_tile, parse_tiles, tile_name


def test_thirty_four_kinds_and_eight_flowers() -> None:
    names = [tile_name(t) for t in range(42)]
    assert names[:9] == [f"{n}m" for n in range(1, 10)]
    assert names[9:18] == [f"{n}p" for n in range(1, 10)]
    assert names[18:27] == [f"{n}s" for n in range(1, 10)]
    assert names[27:34] == list("ESWNPFC")
    assert names[34:] == [f"{n}f" for n in range(1, 9)]
    assert len(set(names)) == 42


def test_digits_bind_to_the_next_suit_letter() -> None:
    assert parse_tiles("234m5s") == [1, 2, 3, 22]
    assert parse_tiles("2s2s6m") == [19, 19, 5]
    assert parse_tiles("EESSP FC") == [27, 27, 28, 28, 31, 32, 33]
    assert parse_tiles("13f") == [34, 36]


def test_categories() -> None:
    assert T.is_terminal(parse_tile("1m")) and T.is_terminal(parse_tile("9s"))
    assert not T.is_terminal(parse_tile("E"))  # WMC-1.2: honours are not terminals
    assert T.is_simple(parse_tile("5p")) and not T.is_simple(parse_tile("9p"))
    assert T.is_wind(parse_tile("N")) and T.is_dragon(parse_tile("F"))
    assert T.is_flower(parse_tile("8f")) and not T.is_flower(parse_tile("C"))


@given(st.lists(st.integers(min_value=0, max_value=41), max_size=20))
def test_format_then_parse_round_trips(tile_list: list[int]) -> None:
    assert parse_tiles(format_tiles(tile_list)) == tile_list


@given(st.lists(st.integers(min_value=0, max_value=41), min_size=1, max_size=20))
def test_single_names_concatenated_parse_back(tile_list: list[int]) -> None:
    assert parse_tiles("".join(tile_name(t) for t in tile_list)) == tile_list


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("12x", 2, "unexpected character 'x'"),
        ("m", 0, "suit letter 'm' has no number"),
        ("123", 0, "number 1 is not followed by m, p, s or f"),
        ("12E", 0, "number 1 is not followed"),
        ("10m", 1, "tile number 0"),
        ("9f", 0, "flower number 9"),
    ],
)
def test_errors_name_the_character_and_its_position(
    text: str, position: int, fragment: str
) -> None:
    with pytest.raises(NotationError, match=fragment) as info:
        parse_tiles(text)
    assert info.value.position == position
    assert f"at position {position}" in str(info.value)


def test_parse_tile_wants_exactly_one() -> None:
    with pytest.raises(NotationError, match="exactly one tile, found 2"):
        parse_tile("12m")
    with pytest.raises(ValueError, match="not a tile index"):
        tile_name(42)
