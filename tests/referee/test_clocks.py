"""Clocks per WMC-13.1 – 13.4, in simulated time: the boundaries of every limit."""

from __future__ import annotations

import pytest

from referee.clocks import Kind, TableClocks, started_steps
from referee.hands import Wind

E, S, W, N = Wind.E, Wind.S, Wind.W, Wind.N
DEAL = 1000.0
FREE = DEAL + 15.0  # the untimed first 15 s end here (WMC-13.2)


def dealt() -> TableClocks:
    clocks = TableClocks()
    clocks.deal_done(DEAL)
    return clocks


def points(proposals: list, kind: Kind | None = None) -> int:  # type: ignore[type-arg]
    return sum(p.points for p in proposals if kind is None or p.kind is kind)


@pytest.mark.parametrize(
    ("overrun", "steps"), [(0.0, 0), (0.01, 1), (15.0, 1), (15.01, 2), (30.0, 2), (-3.0, 0)]
)
def test_started_steps(overrun: float, steps: int) -> None:
    assert started_steps(overrun, 15.0) == steps


def test_wmc_13_2_first_15_s_after_the_deal_are_untimed() -> None:
    c = dealt()
    assert c.discard(E, FREE + 15.0) == []  # 30 s after the deal, 15 s of them timed
    c = dealt()
    assert points(c.discard(E, FREE + 15.01), Kind.TURN) == 5


@pytest.mark.parametrize(
    ("seconds", "expected"), [(15.0, 0), (15.01, 5), (30.0, 5), (30.01, 10), (44.9, 10)]
)
def test_wmc_13_1_turn_limit_boundaries(seconds: float, expected: int) -> None:
    c = dealt()
    c.discard(E, FREE)
    assert points(c.discard(S, FREE + seconds), Kind.TURN) == expected


def test_wmc_13_1_a_claimers_turn_runs_from_the_claimed_discard() -> None:
    c = dealt()
    c.discard(E, FREE)
    c.claim(W)  # W pungs E's discard 10 s later; his turn started at the discard
    out = c.discard(W, FREE + 20.0)
    assert [(p.seat, p.points) for p in out] == [(W, 5)]
    assert c.on_turn is N


def test_wmc_13_1_kong_replacement_starts_a_new_turn() -> None:
    c = dealt()
    c.discard(E, FREE)
    out = c.replacement_draw(S, FREE + 14.0)  # kong declared within the turn
    assert out == []
    assert points(c.discard(S, FREE + 28.0)) == 0  # a fresh 15 s after the replacement
    c.discard(W, FREE + 28.0 + 5.0)
    assert points(c.replacement_draw(N, FREE + 33.0 + 16.0), Kind.TURN) == 5


def test_wmc_13_1_hand_bank_and_both_penalties_at_once() -> None:
    c = dealt()
    t = FREE
    c.discard(E, t)
    # South uses 14 s per turn for 12 turns = 168 s (no penalty yet)
    for _ in range(12):
        t += 14.0
        assert c.discard(S, t) == []
        for seat in (W, N, E):
            t += 1.0
            c.discard(seat, t)
    # a 20-s turn: turn overrun 5 s (5 points) and bank 188 s > 180 (5 points) — both (13.1)
    t += 20.0
    out = c.discard(S, t)
    assert {(p.kind, p.points) for p in out} == {(Kind.TURN, 5), (Kind.BANK, 5)}
    for seat in (W, N, E):
        t += 1.0
        c.discard(seat, t)
    t += 10.0  # bank now 198 s: 18 s over, a second started 15 s → 5 more
    assert [(p.kind, p.points) for p in c.discard(S, t)] == [(Kind.BANK, 5)]


def test_wmc_13_3_over_80_points_in_a_hand_proposes_forfeit() -> None:
    c = dealt()
    c.discard(E, FREE)
    out = c.discard(S, FREE + 15.0 + 15.0 * 8)  # overrun 120 s: 8 steps = 40 turn points
    assert points(out, Kind.TURN) == 40
    assert not [p for p in out if p.kind is Kind.FORFEIT]
    t = FREE + 135.0
    for seat in (W, N, E):
        t += 1.0
        c.discard(seat, t)
    out = c.discard(S, t + 15.0 + 15.0 * 8 + 0.01)  # 45 turn + bank points → well over 80
    forfeits = [p for p in out if p.kind is Kind.FORFEIT]
    assert len(forfeits) == 1 and forfeits[0].rule == "WMC-13.3"
    assert c.seats[S].hand_points > 80


@pytest.mark.parametrize(
    ("second_turn", "total", "forfeit"), [(195.0, 80, False), (195.01, 85, True)]
)
def test_wmc_13_3_exactly_80_is_not_serious_overtime(
    second_turn: float, total: int, forfeit: bool
) -> None:
    c = dealt()
    c.discard(E, FREE)
    t = FREE + 20.0
    assert points(c.discard(S, t)) == 5  # a 20-s turn
    for seat in (W, N, E):
        c.discard(seat, t)
    # 195 s: turn 60 points; bank 215 s, 35 s over: 15 points → 5 + 60 + 15 = 80 exactly
    out = c.discard(S, t + second_turn)
    assert c.seats[S].hand_points == total
    assert bool([p for p in out if p.kind is Kind.FORFEIT]) is forfeit


def test_wmc_13_3_only_timed_seats_are_charged() -> None:
    c = dealt()
    c.set_timed({N})
    c.discard(E, FREE + 60.0)
    assert c.discard(S, FREE + 120.0) == []


def test_table_pause_stops_the_turn_clock() -> None:
    c = dealt()
    c.discard(E, FREE)
    c.pause_table(FREE + 5.0)
    c.resume_table(FREE + 65.0)
    assert c.discard(S, FREE + 75.0) == []  # 15 s of play around a 60-s pause
    views = {v.seat: v for v in c.view(FREE + 80.0)}
    assert views[W].on_turn and views[W].turn_left == pytest.approx(10.0)


def test_referee_extension_and_clear() -> None:
    c = dealt()
    c.discard(E, FREE)
    c.extend(S, 10.0)
    assert c.discard(S, FREE + 25.0) == []
    c.clear(W, FREE + 40.0)
    assert c.discard(W, FREE + 50.0) == []


def test_wmc_13_2_wait_requests() -> None:
    c = dealt()
    c.discard(E, DEAL + 3.0)
    granted, reason = c.wait_request(E, DEAL + 4.0)
    assert not granted and "West or North" in reason
    granted, _ = c.wait_request(N, DEAL + 4.0)
    assert granted
    c.wait_release(DEAL + 40.0)  # N held South 25 s past the untimed period: not South's time
    assert c.discard(S, DEAL + 50.0) == []
    granted, _ = c.wait_request(N, DEAL + 51.0)
    assert not granted  # after the first 15 s


def test_wmc_13_2_north_may_ask_west_after_souths_first_discard() -> None:
    c = dealt()
    c.discard(E, DEAL + 2.0)
    c.discard(S, DEAL + 4.0)
    assert not c.wait_request(W, DEAL + 5.0)[0]
    assert c.wait_request(N, DEAL + 5.0)[0]


@pytest.mark.parametrize(("seconds", "expected"), [(30.0, 5), (30.01, 10), (60.0, 10), (1.0, 5)])
def test_wmc_13_4_pause_costs_5_per_started_30_s(seconds: float, expected: int) -> None:
    c = dealt()
    c.player_pause(W, FREE)
    assert points(c.player_back(W, FREE + seconds), Kind.PAUSE) == expected


def test_wmc_13_4_lateness_and_the_150_threshold() -> None:
    c = TableClocks()
    out = c.lateness(N, 301.0, 0.0)
    assert points(out, Kind.LATENESS) == 55
    assert [p.kind for p in out if p.points == 0] == [Kind.ABSENT]
    out = c.lateness(N, 90.0 * 3, 10.0)  # 45 more → 100
    assert not [p for p in out if p.kind is Kind.FORFEIT]
    out = c.lateness(N, 300.0, 20.0)  # 50 more → exactly 150: not over
    assert c.seats[N].half_pause_points == 150 and not [p for p in out if p.kind is Kind.FORFEIT]
    out = c.lateness(N, 1.0, 30.0)
    assert [p.rule for p in out if p.kind is Kind.FORFEIT] == ["WMC-13.4"]
    c.new_half()
    assert c.seats[N].half_pause_points == 0


def test_live_view_counts_down() -> None:
    c = dealt()
    c.discard(E, FREE)
    views = {v.seat: v for v in c.view(FREE + 20.0)}
    assert views[S].on_turn and views[S].turn_left == pytest.approx(-5.0)
    assert views[S].bank_left == pytest.approx(160.0)
    assert not views[E].on_turn and views[E].turn_left == pytest.approx(15.0)
