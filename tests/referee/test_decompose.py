"""Arrangements of a winning hand: every split, every choice of the winning tile's set."""

from __future__ import annotations

import random

from hand_builders import hand
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.decompose import PAIR, SetKind, Shape, decompose, regular_splits
from referee.samples import random_winning_hand
from referee.tiles import parse_tiles


def counts(text: str) -> tuple[int, ...]:
    c = [0] * 34
    for t in parse_tiles(text):
        c[t] += 1
    return tuple(c)


def test_ambiguous_runs_give_every_split() -> None:
    # 111222333m + 55p: three pungs, or three 123m chows
    splits = regular_splits(counts("111222333m55p"))
    kinds = sorted(tuple(k for k, _ in sets) for sets, _ in splits)
    assert kinds == [(SetKind.CHOW,) * 3, (SetKind.PUNG,) * 3]


def test_pair_choice_is_part_of_the_split() -> None:
    # 11123m: only 11m + 123m (111m would leave 23m)
    splits = regular_splits(counts("11123m"))
    assert splits == ((((SetKind.CHOW, 0),), 0),)


def test_discard_win_enumerates_the_set_it_completes() -> None:
    # 3s completes either the chow 234s or the pung 333s: both readings are offered (WMC-7.6)
    arrangements = decompose(hand("333s24s555m777m99p", "3s"))
    won = {arr.sets[arr.win_in].kind for arr in arrangements if arr.win_in != PAIR}
    assert won == {SetKind.CHOW, SetKind.PUNG}
    for arr in arrangements:
        for index, s in enumerate(arr.sets):
            if s.kind is SetKind.PUNG:
                # a pung completed by the discard is exposed; the others stay concealed
                assert s.concealed == (index != arr.win_in)


def test_self_drawn_keeps_every_pung_concealed() -> None:
    for arr in decompose(hand("333s24s555m777m99p", "3s", by="self")):
        assert all(s.concealed for s in arr.sets if s.kind is SetKind.PUNG)


def test_melds_come_first_and_keep_their_state() -> None:
    arr = decompose(hand("234m678m1p", "1p", melds=["k:5555p", "9999s"], by="self"))[0]
    assert [(s.kind, s.concealed, s.melded) for s in arr.sets[:2]] == [
        (SetKind.KONG, True, True),
        (SetKind.KONG, False, True),
    ]


def test_seven_pairs_and_four_identical_tiles() -> None:
    shapes = {a.shape for a in decompose(hand("1111m2233p5566s7s", "7s"))}
    assert Shape.SEVEN_PAIRS in shapes
    strict = decompose(hand("1111m2233p5566s7s", "7s"), four_as_two_pairs=False)
    assert Shape.SEVEN_PAIRS not in {a.shape for a in strict}


def test_seven_pairs_that_is_also_regular() -> None:
    shapes = {a.shape for a in decompose(hand("223344m223344p5s", "5s"))}
    assert shapes == {Shape.REGULAR, Shape.SEVEN_PAIRS}


def test_thirteen_terminals() -> None:
    assert [a.shape for a in decompose(hand("19m19p19sESWNPFC", "C"))] == [Shape.THIRTEEN_TERMINALS]


def test_no_shape() -> None:
    assert decompose(hand("123m456m789p22s46s", "9s")) == []


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False))
def test_every_generated_win_has_an_arrangement_using_all_tiles(rng: random.Random) -> None:
    h = random_winning_hand(rng)
    arrangements = decompose(h)
    assert arrangements
    for arr in arrangements:
        if arr.shape is Shape.REGULAR:
            used: list[int] = [arr.pair, arr.pair] if arr.pair is not None else []
            for s in arr.sets:
                if s.kind is SetKind.CHOW:
                    used += [s.tile, s.tile + 1, s.tile + 2]
                else:
                    used += [s.tile] * (4 if s.kind is SetKind.KONG else 3)
            assert sorted(used) == sorted(h.all_tiles)
