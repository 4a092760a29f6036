"""Read a winning hand laid out in a row from tile detections: concealed tiles, then melds set
apart by gaps, optionally the winning tile set apart at the end; flowers counted."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from referee.hands import HandError, Meld
from referee.tiles import Tile, format_tiles, is_flower
from vision.classes import BACK
from vision.detect import Detection

GAP_FACTOR = 0.45  # a gap wider than this share of a tile's width separates groups


@dataclass(frozen=True)
class ReadHand:
    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    win: Tile | None  # set apart at the end of the row, if it was
    flowers: tuple[Tile, ...]
    groups: tuple[tuple[Tile, ...], ...]  # as seen, for display

    def describe(self) -> str:
        parts = [format_tiles(g) for g in self.groups]
        return "  |  ".join(parts)


def group_row(dets: Sequence[Detection]) -> list[list[Detection]]:
    """Order along the row's long axis and split where the gap between tiles is wide."""
    if not dets:
        return []
    cx = np.array([(d.x1 + d.x2) / 2 for d in dets])
    cy = np.array([(d.y1 + d.y2) / 2 for d in dets])
    horizontal = np.ptp(cx) >= np.ptp(cy)
    key = cx if horizontal else cy
    order = np.argsort(key)
    size = float(np.median([min(d.x2 - d.x1, d.y2 - d.y1) for d in dets]))
    groups: list[list[Detection]] = [[dets[int(order[0])]]]
    for prev, cur in itertools.pairwise(order):
        a, b = dets[int(prev)], dets[int(cur)]
        gap = (b.x1 - a.x2) if horizontal else (b.y1 - a.y2)
        if gap > GAP_FACTOR * size:
            groups.append([])
        groups[-1].append(b)
    return groups


def read_hand(dets: Sequence[Detection]) -> ReadHand:
    """First group = concealed tiles; later groups of 3–4 = melds; a lone last tile = the win."""
    tiles_only = [d for d in dets if d.cls != BACK]
    groups = [[d.cls for d in g] for g in group_row(tiles_only)]
    flowers = tuple(t for g in groups for t in g if is_flower(t))
    groups = [[t for t in g if not is_flower(t)] for g in groups]
    groups = [g for g in groups if g]
    if not groups:
        raise HandError("no tiles read in the photo")
    win: Tile | None = None
    if len(groups) > 1 and len(groups[-1]) == 1:
        win = groups[-1][0]
        body = groups[:-1]
    else:
        body = groups
    concealed = list(body[0])
    melds: list[Meld] = []
    for g in body[1:]:
        if len(g) in (3, 4):
            melds.append(Meld.parse(format_tiles(g)))
        else:
            concealed += g  # not a set: keep the tiles with the hand
    return ReadHand(tuple(concealed), tuple(melds), win, flowers, tuple(tuple(g) for g in groups))
