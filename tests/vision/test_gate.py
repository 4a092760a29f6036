"""The change gate on its own (gate views made by hand): what it reads again and what it hides."""

from __future__ import annotations

import numpy as np

from vision.gate import GATE_SCALE, Gate
from vision.zones import HALF, pixel_box, slot

SIDE = round(2 * HALF * GATE_SCALE)


def _box(seat: str, zone: str, index: int) -> tuple[int, int, int, int]:
    s = slot(seat, zone, index)
    return pixel_box((s.x - s.w / 2, s.y - s.h / 2, s.x + s.w / 2, s.y + s.h / 2), GATE_SCALE)


def _settled_gate(table: np.ndarray) -> Gate:
    gate = Gate()
    for i in range(4):  # 0.6 s at rest: the background is the table
        assert gate.ready(table, i * 0.2) == (i == 3)
    for key in gate.update(table, 0.6):
        gate.accept(key, table)
    return gate


def test_a_slot_read_under_an_arm_is_read_again_once_the_zone_looks_as_before() -> None:
    """An arm from East's edge hides East's river slots 3-5; a patch of its sleeve over slot 0
    is not joined to it (as a sleeve as dark as the felt is not), so slot 0 is read, and the
    zone is not accepted while the arm lies on it. Once everything has gone the zone looks as
    at its reference again, yet slot 0 must be read again: it was read as the sleeve."""
    table = np.ones((SIDE, SIDE), np.float32)
    gate = _settled_gate(table)
    arm = table.copy()
    x1, y1, _, _ = _box("E", "river", 3)
    _, _, x2, _ = _box("E", "river", 5)
    arm[y1:, x1:x2] = 0.3  # from the table's East edge (the bottom) up over slots 3-5
    u1, v1, u2, v2 = _box("E", "river", 0)
    arm[v1:v2, u1:u2] = 0.5
    assert ("E", "river") in gate.update(arm, 1.0)
    hidden = gate.occluded("E", "river")
    assert {3, 4, 5} <= hidden and 0 not in hidden
    read = gate.changed_slots("E", "river", arm) - hidden
    assert 0 in read
    gate.read("E", "river", arm, read)  # (not accepted: an arm lies on the zone)
    assert ("E", "river") in gate.update(table, 1.2)
    assert 0 in gate.changed_slots("E", "river", table)


def test_a_noisy_camera_raises_the_motion_threshold_and_still_sees_a_tile_put_down() -> None:
    """A dim venue's sensor or a compressed stream: a still table whose every pixel flickers
    (σ 0.02 of the table's brightness, where ours flickers 0.01) was never calm, so reading
    never started and the start waited for the busy-table fallback. The gate measures that
    noise before it starts, reads from the calm table, and a tile put down still changes its
    zone, while the flicker alone changes none."""
    rng = np.random.default_rng(0)
    table = np.ones((SIDE, SIDE), np.float32)

    def noisy(view: np.ndarray) -> np.ndarray:
        out: np.ndarray = view + rng.normal(0.0, 0.02, view.shape).astype(np.float32)
        return out

    gate = Gate()
    started = next(i for i in range(20) if gate.ready(noisy(table), i * 0.2))
    assert started * 0.2 <= 1.0  # calm after 0.6 s, not the 4 s wait of a busy table
    assert gate.motion > 0.1  # 6 σ of a difference of two noisy views (σ √2 · 0.02)
    for key in gate.update(noisy(table), 1.2):
        gate.accept(key, table)
    assert gate.update(noisy(table), 1.4) == []
    tile = table.copy()
    x1, y1, x2, y2 = _box("E", "river", 0)
    tile[y1:y2, x1:x2] = 1.8  # an ivory face on the felt
    assert ("E", "river") in gate.update(noisy(tile), 1.6)


def test_a_sleeve_as_bright_as_the_felt_but_not_its_colour_is_an_arm() -> None:
    """A black sleeve over a dark blue felt: in grey it is the felt, so the slots under it were
    read (as backs, the discard there as a tile nobody could read). The colour view sees it
    from the table's edge, and its slots are hidden."""
    table = np.ones((SIDE, SIDE), np.float32)
    felt = np.broadcast_to(np.array([0.8, 1.0, 1.3], np.float32), (SIDE, SIDE, 3)).copy()
    sleeve = felt.copy()
    x1, y1, _, _ = _box("E", "river", 3)
    _, _, x2, _ = _box("E", "river", 5)
    sleeve[y1:, x1:x2] = (1.05, 1.0, 0.95)  # as bright, in grey, as the felt
    gate = Gate()
    for i in range(4):
        gate.ready(table, i * 0.2, felt)
    for key in gate.update(table, 0.6, felt):
        gate.accept(key, table)
    gate.update(table, 1.0, sleeve)
    assert {3, 4, 5} <= gate.occluded("E", "river")


def test_tiles_laid_by_the_edge_and_joined_to_it_thinly_are_no_arm_once_at_rest() -> None:
    """A pung laid down by East's edge, joined to it by a thin change (a compressed stream's
    blocks round the new tiles, the standing hand's outline): once the arm has gone and it has
    been still for a second, it is tiles, and the meld is read (it was hidden as an arm until
    the background took it in, 8 s, and the pung came 9 s late). An arm held still over the
    river, which crosses the edge as wide as a forearm, stays an arm."""
    table = np.ones((SIDE, SIDE), np.float32)
    gate = _settled_gate(table)
    laid = table.copy()
    x1, y1, _, y2 = _box("E", "meld", 0)
    _, _, x2, _ = _box("E", "meld", 2)
    laid[y1:y2, x1:x2] = 1.8  # three faces up
    laid[y2:, x1 + 4 : x1 + 8] = 1.3  # a thin change from the meld to the edge
    gate.update(laid, 1.0)
    assert gate.occluded("E", "meld")  # just laid: as likely an arm still there
    gate.update(laid, 2.2)
    assert not gate.occluded("E", "meld")
    resting = table.copy()
    u1, v1, _, _ = _box("E", "river", 2)
    resting[v1:, u1 : u1 + 20] = 0.3  # a sleeve 80 mm wide from the edge over the river
    gate.update(resting, 3.0)
    gate.update(resting, 4.4)
    assert 2 in gate.occluded("E", "river")
