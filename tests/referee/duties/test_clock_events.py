"""WMC-13.1–13.4 through the event stream: the clocks fed by the log, in simulated time."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from duty_kit import DEAL_TS, Duty

from referee.events import (
    ClockExtended,
    PlayerBack,
    PlayerLate,
    PlayerPaused,
    TablePaused,
    TableResumed,
    TimedSeats,
    WaitReleased,
    WaitRequested,
)
from referee.hands import Wind

Deal = Callable[..., Duty]
TILES = ["3p", "4p", "4s", "3p", "4p", "4s", "3p", "4p", "4s", "1m", "1m", "1m"]


def clock_alerts(d: Duty, line: str, at: float) -> list[tuple[str, str | None, int]]:
    step = d.at(at, line)
    return [
        (a.rule, a.seat.name if a.seat is not None else None, a.points)
        for a in step.alerts
        if a.rule.startswith("WMC-13")
    ]


@pytest.mark.parametrize(("seconds", "points"), [(15.0, 0), (15.01, 5), (30.0, 5), (30.01, 10)])
def test_wmc_13_1_turn_limit_boundaries(deal: Deal, seconds: float, points: int) -> None:
    d = deal()
    d.at(15, "E discard P")  # the first 15 s are untimed: E used none
    d.at(16, "S draw 9s")
    got = clock_alerts(d, "S discard 9s", 15 + seconds)
    assert got == ([("WMC-13.1", "S", points)] if points else [])


@pytest.mark.parametrize(("discard_at", "points"), [(30.0, 0), (30.01, 5)])
def test_wmc_13_2_the_first_15_s_after_the_deal_are_untimed(
    deal: Deal, discard_at: float, points: int
) -> None:
    d = deal()
    got = clock_alerts(d, "E discard P", discard_at)
    assert got == ([("WMC-13.1", "E", points)] if points else [])


def test_wmc_13_1_a_kong_mid_turn_starts_a_new_turn_at_the_replacement(deal: Deal) -> None:
    d = deal(S="1111p234m567m789p")
    d.at(15, "E discard P")
    d.at(20, "S draw 9s")
    d.at(22, "S call kong")
    d.at(24, "S kong concealed 1p")
    assert clock_alerts(d, "S replacement 3s", 25) == []  # 10 s: the first turn ends here
    assert clock_alerts(d, "S discard 9s", 40) == []  # 15 s exactly since the replacement


def test_wmc_13_1_a_claimers_turn_runs_from_the_claimed_discard(deal: Deal) -> None:
    d = deal()
    d.at(15, "E discard P")
    d.at(16, "S draw 7s")
    d.at(17, "S discard 7s")
    d.at(25, "N call pung")
    d.at(26, "N pung")
    assert clock_alerts(d, "N discard 2p", 33) == [("WMC-13.1", "N", 5)]  # 16 s since 7s


def _round(d: Duty, start: float, s_turn: float, tiles: list[str]) -> tuple[float, list]:  # type: ignore[type-arg]
    """S draws and discards taking ``s_turn`` s; then W, N, E take 2 s each. Returns the
    time and S's clock alerts."""
    t = start
    d.do(f"S draw {tiles[0]}", t + 1)
    t += s_turn
    step = d.do(f"S discard {tiles[0]}", t)
    got = [(a.rule, a.points, a.penalty) for a in step.alerts if a.rule.startswith("WMC-13")]
    for seat, tile in zip("WNE", tiles[1:4], strict=True):
        d.do(f"{seat} draw {tile}", t + 1)
        t += 2
        d.do(f"{seat} discard {tile}", t)
    return t, got


def test_wmc_13_1_turn_and_bank_overruns_both_apply_and_13_3_over_80_is_forfeit(
    deal: Deal,
) -> None:
    d = deal()
    d.at(15, "E discard P")
    t = DEAL_TS + 15
    t, got = _round(d, t, 170.0, TILES[0:4])  # 155 s over the turn: 11 started steps
    assert got == [("WMC-13.1", 55, "points")]
    t, got = _round(d, t, 20.0, TILES[4:8])  # 5 s over the turn AND 10 s over the bank
    assert got == [("WMC-13.1", 5, "points"), ("WMC-13.1", 5, "points")]
    t, got = _round(d, t, 25.0, TILES[8:12])  # turn +5, bank 35 s over → +10: exactly 80
    assert got == [("WMC-13.1", 5, "points"), ("WMC-13.1", 10, "points")]
    assert d.ref.clocks.seats[Wind.S].hand_points == 80
    d.do("S draw 6s", t + 1)
    step = d.do("S discard 6s", t + 16)  # 1 s over: 85 > 80 → forfeit proposal (WMC-13.3)
    rules = [(a.rule, a.penalty) for a in step.alerts]
    assert ("WMC-13.3", "forfeit") in rules
    assert any(p["rule"] == "WMC-13.3" and p["kind"] == "forfeit" for p in Duty.proposals(step))


@pytest.mark.parametrize(("seconds", "points"), [(30.0, 5), (30.01, 10)])
def test_wmc_13_4_pause_costs_5_per_started_30_s(deal: Deal, seconds: float, points: int) -> None:
    d = deal()
    d.at(15, "E discard P")
    d.push(PlayerPaused(seat=Wind.N), DEAL_TS + 20)
    step = d.push(PlayerBack(seat=Wind.N), DEAL_TS + 20 + seconds)
    assert [(a.rule, a.seat, a.points) for a in step.alerts] == [("WMC-13.4", Wind.N, points)]
    d.at(21 + seconds, "S draw 9s")  # the table clock stood still while N was away
    assert clock_alerts(d, "S discard 9s", 22 + seconds) == []


def test_wmc_13_4_over_150_points_in_a_half_is_forfeit(deal: Deal) -> None:
    d = deal()
    for i in range(3):  # 300 s late each: 10 started 30-s periods = 50 points
        step = d.push(PlayerLate(seat=Wind.W, seconds=300.0), DEAL_TS + 1 + i)
        assert [(a.rule, a.points, a.penalty) for a in step.alerts] == [("WMC-13.4", 50, "points")]
    assert d.ref.clocks.seats[Wind.W].half_pause_points == 150  # exactly 150: no forfeit yet
    step = d.push(PlayerLate(seat=Wind.W, seconds=1.0), DEAL_TS + 5)
    assert [(a.rule, a.penalty) for a in step.alerts] == [
        ("WMC-13.4", "points"),
        ("WMC-13.4", "forfeit"),
    ]


def test_wmc_13_4_over_5_minutes_late_may_be_ruled_absent(deal: Deal) -> None:
    d = deal()
    step = d.push(PlayerLate(seat=Wind.S, seconds=301.0), DEAL_TS + 1)
    assert [a.penalty for a in step.alerts] == ["points", "forfeit"]


def test_wmc_13_2_west_asks_south_to_wait_and_the_wait_is_not_timed(deal: Deal) -> None:
    d = deal()
    d.at(5, "E discard P")
    assert d.push(WaitRequested(seat=Wind.W), DEAL_TS + 6).alerts == []
    d.at(50, "S draw 9s")  # the draw releases the wait
    assert clock_alerts(d, "S discard 9s", 60) == []  # 10 s timed (15→60 minus 15→50)


def test_wmc_13_2_only_west_or_north_may_ask_after_easts_discard(deal: Deal) -> None:
    d = deal()
    d.at(5, "E discard P")
    step = d.push(WaitRequested(seat=Wind.E), DEAL_TS + 6)
    assert Duty.found(step) == [("WMC-13.2", "E")] and step.alerts[0].rejected
    d.push(WaitRequested(seat=Wind.N), DEAL_TS + 7)
    d.push(WaitReleased(), DEAL_TS + 20)
    d.at(21, "S draw 9s")
    assert clock_alerts(d, "S discard 9s", 35) == []  # timed 15 → 35 minus the wait 15 → 20


def test_wmc_13_3_the_referee_decides_whom_to_time(deal: Deal) -> None:
    d = deal()
    d.push(TimedSeats(seats=(Wind.E, Wind.W, Wind.N)), DEAL_TS + 1)
    d.at(15, "E discard P")
    d.at(16, "S draw 9s")
    assert clock_alerts(d, "S discard 9s", 60) == []  # S is not timed


def test_referee_extension_and_table_pause(deal: Deal) -> None:
    d = deal()
    d.at(15, "E discard P")
    d.push(ClockExtended(seat=Wind.S, seconds=10.0), DEAL_TS + 16)
    d.push(TablePaused(), DEAL_TS + 17)
    d.push(TableResumed(), DEAL_TS + 47)  # 30 s of referee time: not S's
    d.at(48, "S draw 9s")
    assert clock_alerts(d, "S discard 9s", 15 + 30 + 25) == []  # 25 s of 15 + 10


def test_the_live_view_shows_turn_time_and_bank_per_seat(deal: Deal) -> None:
    d = deal()
    d.at(15, "E discard P")
    view = {v.seat: v for v in d.ref.view(DEAL_TS + 25)}
    assert view[Wind.S].on_turn and view[Wind.S].turn_left == pytest.approx(5.0)
    assert view[Wind.S].bank_left == pytest.approx(170.0)
    assert view[Wind.E].bank_left == pytest.approx(180.0) and not view[Wind.E].on_turn
    assert view[Wind.S].to_json()["player"] == "Bo"
