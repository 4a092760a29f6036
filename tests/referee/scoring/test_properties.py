"""Properties over random legal winning hands (referee.samples): bounds, limits, symmetry."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.hands import Meld, WinningHand
from referee.samples import random_winning_hand
from referee.scoring import score
from referee.scoring.patterns import LIMIT


def permute_suits(h: WinningHand, order: tuple[int, int, int]) -> WinningHand:
    """Relabel the three suits (characters/dots/bamboo) by ``order``; honours stay."""

    def move(tile: int) -> int:
        return order[tile // 9] * 9 + tile % 9 if tile < 27 else tile

    return WinningHand(
        concealed=tuple(move(t) for t in h.concealed),
        win_tile=move(h.win_tile),
        win_by=h.win_by,
        melds=tuple(
            Meld(m.kind, tuple(move(t) for t in m.tiles), concealed=m.concealed) for m in h.melds
        ),
        seat=h.seat,
        flags=h.flags,
    )


@settings(max_examples=400, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from(["wmc", "zj33"]))
@pytest.mark.slow
def test_totals_respect_minimum_and_limits(rng: random.Random, profile: str) -> None:
    h = random_winning_hand(rng)
    result = score(h, profile)
    assert result.arrangement is not None  # a generated win always has a shape
    values = [p.points for p in result.patterns]
    raw = sum(p.subtotal for p in result.patterns)
    singles = [v for v in values if v >= LIMIT]
    if singles:
        assert result.total == max(singles)  # WMC-12.3 役滿貫: the highest alone
    elif raw >= LIMIT:
        assert result.total == LIMIT  # WMC-12.3 數滿貫
    elif result.patterns:
        assert result.total == raw
    assert 0 <= result.total <= 480
    if profile == "wmc":
        assert result.valid == (result.total >= 5)  # WMC-12.3 minimum
    else:
        assert result.valid and result.total >= 1  # ZJ chicken hand = 1
    assert len({p.id for p in result.patterns}) == len(result.patterns)
    series = [".".join(p.id.split(".")[:2]) for p in result.patterns]
    assert len(series) == len(set(series))  # WMC-12.2: one pattern per series


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False), st.permutations([0, 1, 2]))
@pytest.mark.slow
def test_permuting_the_suits_never_changes_a_wmc_total(
    rng: random.Random, order: list[int]
) -> None:
    h = random_winning_hand(rng)
    a, b = score(h, "wmc"), score(permute_suits(h, (order[0], order[1], order[2])), "wmc")
    assert (a.valid, a.total) == (b.valid, b.total)
    assert sorted(p.id for p in a.patterns) == sorted(p.id for p in b.patterns)


@settings(max_examples=200, deadline=None)
@given(st.randoms(use_true_random=False))
def test_wmc_and_zj33_differ_only_through_the_value_table(rng: random.Random) -> None:
    h = random_winning_hand(rng)
    wmc, zj = score(h, "wmc"), score(h, "zj33")
    differing = {"2.1.2", "3.2.1", "3.3.1"}
    if not wmc.patterns and not zj.patterns:
        assert zj.total == 1 and not wmc.valid
    elif not ({p.id for p in wmc.patterns} | {p.id for p in zj.patterns}) & differing:
        assert wmc.total == zj.total
