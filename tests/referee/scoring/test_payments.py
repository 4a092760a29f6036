"""Payments (WMC-12.4, ZJ par 25, MCR base 8) and the follow-suit exemption."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.hands import WinBy, Wind
from referee.scoring.payments import follow_suit_liable, settle
from referee.tiles import parse_tile

E, S, W, N = Wind.E, Wind.S, Wind.W, Wind.N
T5m, T9p, TC = parse_tile("5m"), parse_tile("9p"), parse_tile("C")


def test_wmc_12_4_example_v70_on_a_discard() -> None:
    result = settle("wmc", 70, E, WinBy.DISCARD, discarder=W)
    assert result.deltas == {E: 210, S: -30, W: -150, N: -30}
    assert result.liable is W and "WMC-12.4" in result.rule


def test_wmc_12_4_small_hand_on_a_discard_everyone_pays_v() -> None:
    assert settle("wmc", 30, E, WinBy.DISCARD, discarder=W).deltas == {
        E: 90,
        S: -30,
        W: -30,
        N: -30,
    }


def test_wmc_12_4_self_drawn() -> None:
    assert settle("wmc", 160, S, WinBy.SELF).deltas == {E: -160, S: 480, W: -160, N: -160}


def test_zj_par_25() -> None:
    assert settle("zj33", 40, E, WinBy.DISCARD, discarder=N).deltas == {
        E: 120,
        S: -25,
        W: -25,
        N: -70,
    }
    assert settle("zj33", 25, E, WinBy.DISCARD, discarder=N).deltas[N] == -25


def test_mcr_base_8() -> None:
    assert settle("mcr", 10, E, WinBy.SELF).deltas == {E: 54, S: -18, W: -18, N: -18}
    assert settle("mcr", 10, E, WinBy.DISCARD, discarder=S).deltas == {E: 34, S: -18, W: -8, N: -8}


def test_wmc_12_4_follow_suit_first_discarder_is_liable() -> None:
    # E discards 9p; S then discards 5m safely; W follows suit with 5m and E wins on it
    history = [(E, T9p), (S, T5m), (W, T5m)]
    result = settle("wmc", 70, E, WinBy.DISCARD, discarder=W, discards=history)
    assert result.liable is S
    assert result.deltas == {E: 210, S: -150, W: -30, N: -30}
    assert "follow-suit" in result.rule


def test_wmc_12_4_follow_suit_winner_discarded_it_first_each_pays_v() -> None:
    history = [(E, T5m), (S, TC), (W, T5m)]
    result = settle("wmc", 70, E, WinBy.DISCARD, discarder=W, discards=history)
    assert result.liable is None
    assert result.deltas == {E: 210, S: -70, W: -70, N: -70}


def test_wmc_12_4_follow_suit_span_starts_at_the_winners_previous_discard() -> None:
    # S's 5m came before E's latest discard: outside the span, so W stays liable
    history = [(S, T5m), (W, TC), (N, TC), (E, T9p), (S, TC), (W, T5m)]
    assert follow_suit_liable(E, W, T5m, history) is W
    assert settle("wmc", 70, E, WinBy.DISCARD, discarder=W, discards=history).liable is W


def test_wmc_7_5_exemption_must_be_invoked() -> None:
    history = [(E, T9p), (S, T5m), (W, T5m)]
    result = settle("wmc", 70, E, WinBy.DISCARD, discarder=W, discards=history, follow_suit=False)
    assert result.liable is W


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (
            {"profile": "wmc", "value": 10, "winner": E, "win_by": WinBy.DISCARD},
            "needs a discarder",
        ),
        (
            {"profile": "wmc", "value": 10, "winner": E, "win_by": WinBy.DISCARD, "discarder": E},
            "other than the winner",
        ),
        (
            {"profile": "wmc", "value": 10, "winner": E, "win_by": WinBy.SELF, "discarder": S},
            "no discarder",
        ),
        ({"profile": "wmc", "value": -1, "winner": E, "win_by": WinBy.SELF}, "negative"),
        ({"profile": "riichi", "value": 1, "winner": E, "win_by": WinBy.SELF}, "unknown profile"),
    ],
)
def test_bad_requests_are_refused(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        settle(**kwargs)  # type: ignore[arg-type]


@given(
    st.sampled_from(["wmc", "zj33", "mcr"]),
    st.integers(min_value=0, max_value=480),
    st.sampled_from(list(Wind)),
    st.booleans(),
    st.integers(min_value=1, max_value=3),
    st.lists(st.tuples(st.sampled_from(list(Wind)), st.integers(0, 33)), max_size=40),
)
def test_payments_sum_to_zero_and_the_winner_gains(
    profile: str,
    value: int,
    winner: Wind,
    self_drawn: bool,
    offset: int,
    history: list[tuple[Wind, int]],
) -> None:
    discarder = None if self_drawn else Wind((winner + offset) % 4)
    win_by = WinBy.SELF if self_drawn else WinBy.DISCARD
    result = settle(profile, value, winner, win_by, discarder, history, win_tile=T5m)
    assert sum(result.deltas.values()) == 0
    assert result.deltas[winner] >= 0
    assert all(result.deltas[s] <= 0 for s in Wind if s is not winner)
