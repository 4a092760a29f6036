"""Microphones face chairs while the seat winds move round them: a simulated session's second
hand has its East at chair S, and the first hand's winds hold until the next wall is built (the
winner's slam, a late verdict on the winning claim)."""

from __future__ import annotations

from referee.duties import RefereeTable
from referee.game.sim import simulate
from rig.chairs import Chairs


def test_seat_winds_move_one_chair_each_hand_and_hold_until_the_next_wall() -> None:
    events = simulate(hands=3, seed=3)
    duty, chairs = RefereeTable(), Chairs()
    for ev in events:
        duty.apply(ev)
        chairs.follow(ev.ts, duty.state)
    walls = [e.ts for e in events if e.type == "wall_built"]
    wins = [e.ts for e in events if e.type in ("win", "draw_game", "hand_over")]
    assert len(walls) == 3 and wins, "the simulation changed: three walls and a hand end"

    first, second, third = (w + 1.0 for w in walls)
    assert [chairs.chair(s, first) for s in "ESWN"] == ["E", "S", "W", "N"]
    assert [chairs.chair(s, second) for s in "ESWN"] == ["S", "W", "N", "E"]
    assert [chairs.chair(s, third) for s in "ESWN"] == ["W", "N", "E", "S"]
    assert [chairs.seat(c, second) for c in "ESWN"] == ["N", "E", "S", "W"]
    for t in (first, second, third):  # there and back
        assert all(chairs.seat(chairs.chair(s, t), t) == s for s in "ESWN")

    after_first_win = next(t for t in wins if t > walls[0]) + 0.5
    assert after_first_win < walls[1]
    assert chairs.chair("E", after_first_win) == "E"  # still the first hand's winds


def test_with_nothing_followed_each_seat_wind_is_at_its_own_chair() -> None:
    chairs = Chairs()
    assert [chairs.chair(s, 1e9) for s in "ESWN"] == list("ESWN")
    assert [chairs.seat(c, 0.0) for c in "ESWN"] == list("ESWN")
