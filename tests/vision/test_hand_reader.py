from __future__ import annotations

import pytest

from referee.hands import HandError
from referee.tiles import format_tiles, parse_tiles
from vision.detect import Detection
from vision.hand_reader import read_hand


def row(*groups: str, vertical: bool = False) -> list[Detection]:
    """Tiles 30 px wide, 2 px apart; 40 px between groups."""
    dets, pos = [], 0.0
    for g in groups:
        for t in parse_tiles(g):
            a, b = (0.0, 40.0)
            box = (a, pos, b, pos + 30) if vertical else (pos, a, pos + 30, b)
            dets.append(Detection(*box, cls=t, conf=0.9))
            pos += 32
        pos += 40
    return dets[::-1]  # detection order is not row order


def test_concealed_then_melds_then_a_lone_winning_tile() -> None:
    read = read_hand(row("234m666p88s2s", "CCC", "5555p", "2s"))
    assert read.concealed == tuple(parse_tiles("234m666p88s2s"))
    assert [format_tiles(m.tiles) for m in read.melds] == ["CCC", "5555p"]
    assert read.win == parse_tiles("2s")[0]


def test_vertical_rows_and_flowers() -> None:
    read = read_hand(row("123m456m789m1f11p", vertical=True))
    assert format_tiles(read.concealed) == "123456789m11p"
    assert read.flowers == tuple(parse_tiles("1f")) and read.win is None


def test_nothing_read() -> None:
    with pytest.raises(HandError, match="no tiles"):
        read_hand([])
