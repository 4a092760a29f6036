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
