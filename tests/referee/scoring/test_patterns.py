"""Each of the 44 patterns (SCORING-WMC.md): a hand that has it and a near miss that does not."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hand_builders import hand

from referee.hands import WinningHand
from referee.scoring import score
from referee.scoring.patterns import PATTERNS
from referee.scoring.wmc import ZJ33, ZjProfile, score_zj


@dataclass(frozen=True)
class H:
    concealed: str
    win: str
    melds: tuple[str, ...] = ()
    by: str = "discard"
    seat: str = "E"
    flags: tuple[str, ...] = field(default=())

    def build(self) -> WinningHand:
        return hand(
            self.concealed, self.win, melds=self.melds, by=self.by, seat=self.seat, flags=self.flags
        )


def counted(h: WinningHand, profile: ZjProfile = ZJ33) -> dict[str, int]:
    result = score_zj(h, profile)
    return {p.id: p.count for p in result.patterns}


# pattern id → (a hand that has it, a near miss that does not)
CASES: dict[str, tuple[H, H]] = {
    "1.1": (H("123m456m789p234s5s", "5s"), H("123m456m789p222s5s", "5s")),
    "1.2": (H("123m456m789p222s5s", "5s"), H("456m789p222s5s", "5s", ("123m",))),
    "1.3": (H("234m456m678p222s5s", "5s"), H("234m456m678p222s9s", "9s")),
    "2.1.1": (H("123m456m678mEEE5m", "5m"), H("123m456m678pEEE5m", "5m")),
    "2.1.2": (H("123m456m678m222m5m", "5m"), H("123m456m678mEEE5m", "5m")),
    "2.2": (
        H("1112345678999m", "5m"),
        H("1112345678999m", "5m", by="self", flags=("heaven",)),  # WMC-7.7
    ),
    "3.1": (H("123m456m789p5s", "5s", ("CCC",)), H("123m456m789p5s", "5s", ("EEE",), seat="S")),
    "3.2.1": (H("123m456pP", "P", ("CCC", "FFF")), H("123m456p5s", "5s", ("CCC", "FFF"))),
    "3.2.2": (H("123m5sPPP", "5s", ("CCC", "FFF")), H("123m456pP", "P", ("CCC", "FFF"))),
    "3.3.1": (H("123m456pW", "W", ("EEE", "SSS")), H("123m456p5s", "5s", ("EEE", "SSS"))),
    "3.3.2": (H("123m5sWWW", "5s", ("EEE", "SSS")), H("123m456pW", "W", ("EEE", "SSS"))),
    "3.3.3": (H("123mWWWN", "N", ("EEE", "SSS")), H("123m5sWWW", "5s", ("EEE", "SSS"))),
    "3.3.4": (H("WWWNNN5s", "5s", ("EEE", "SSS")), H("123mWWWN", "N", ("EEE", "SSS"))),
    "3.4": (H("WWWCCCP", "P", ("EEE", "SSS")), H("WWWCCC1m", "1m", ("EEE", "SSS"))),
    "4.1": (H("222m333p444s9s", "9s", ("CCC",)), H("234m333p444s9s", "9s", ("CCC",))),
    "4.2.1": (
        H("555m77m99m", "7m", ("FFF", "222p"), by="self"),
        H("555m77m99m", "7m", ("FFF", "222p")),  # 777m completed by a discard is exposed
    ),
    "4.2.2": (H("555m777m999m1s", "1s", ("234p",)), H("555m777m99m11s", "9m", ("234p",))),
    "4.2.3": (H("111m555p777s333p8m", "8m"), H("111m555p777s33p88m", "3p")),
    "4.3.1": (H("234m678m555p1p", "1p", ("9999s",)), H("234m678m555p1p", "1p", ("999s",))),
    "4.3.2": (
        H("234m678m1p", "1p", ("k:5555p", "9999s")),
        H("234m678m1p", "1p", ("k:5555p", "999s")),
    ),
    "4.3.3": (
        H("234m1p", "1p", ("k:5555p", "9999s", "2222s")),
        H("234m1p", "1p", ("k:5555p", "9999s", "222s")),
    ),
    "4.3.4": (
        H("1p", "1p", ("k:5555p", "9999s", "2222s", "EEEE")),
        H("1p", "1p", ("k:5555p", "9999s", "2222s", "EEE")),
    ),
    "5.1.1": (H("234m234m678p999s5s", "5s"), H("234m345m678p999s5s", "5s")),
    "5.1.2": (H("234m234m567p567p5s", "5s"), H("234m234m567p678p5s", "5s")),
    "5.1.3": (
        H("234m5s", "5s", ("234m", "234m", "EEE")),
        H("345m5s", "5s", ("234m", "234m", "EEE")),
    ),
    "5.1.4": (
        H("234m5s", "5s", ("234m", "234m", "234m")),
        H("345m5s", "5s", ("234m", "234m", "234m")),
    ),
    "6.1": (H("345m345p345s678m2p", "2p"), H("345m345p456s678m2p", "2p")),
    "6.2.1": (H("444p123s789s4s", "4s", ("444m",)), H("444p123s789s5s", "5s", ("444m",))),
    "6.2.2": (H("444p444s789s5s", "5s", ("444m",)), H("444p666s789s5s", "5s", ("444m",))),
    "7.1": (H("123m456m789m99s55s", "5s"), H("123m456m789p99s55s", "5s")),
    "7.2.1": (H("444m555m666m123p9p", "9p"), H("444m555m777m123p9p", "9p")),
    "7.2.2": (H("555m666m777m9p", "9p", ("444m",)), H("555m666m777m9p", "9p", ("222m",))),
    "8.1.1": (H("111s123m789p9m", "9m", ("CCC",)), H("111s123m678p9m", "9m", ("CCC",))),
    "8.1.2": (H("111s123m789p9m", "9m", ("999p",)), H("111s123m789p9m", "9m", ("CCC",))),
    "8.1.3": (H("111m999pEE11s", "1s", ("CCC",)), H("123m999pEE11s", "1s", ("CCC",))),
    "8.1.4": (H("111m999p99s11s", "1s", ("111p",)), H("111m999p99s11s", "1s", ("EEE",))),
    "9.1.1": (
        H("123m456m789p22s34s", "5s", by="self", flags=("final_draw",)),
        H("123m456m789p22s34s", "5s", by="self"),
    ),
    "9.1.2": (
        H("123m456m789p22s34s", "5s", flags=("final_discard",)),
        H("123m456m789p22s34s", "5s"),
    ),
    "9.2": (
        H("234m678m1p", "1p", ("k:5555p", "9999s"), by="self", flags=("win_on_kong",)),
        H("234m678m1p", "1p", ("k:5555p", "9999s"), by="self"),
    ),
    "9.3": (
        H("123m456m789p22s34s", "5s", flags=("robbing_kong",)),
        H("123m456m789p22s34s", "5s"),
    ),
    "9.4.1": (
        H("123m456m789p22s34s", "5s", by="self", flags=("heaven",)),
        # SCORING 9.4.1: not after a concealed kong (profile option, on by default)
        H("456m789p22s34s", "5s", ("k:1111m",), by="self", flags=("heaven",)),
    ),
    "9.4.2": (
        H("123m456m789p22s34s", "5s", seat="S", flags=("earth",)),
        H("123m456m789p22s34s", "5s", seat="S"),
    ),
    "10.1": (H("19m19p19sESWNPFC", "C"), H("19m19p19sESWNPF5s", "C")),
    "10.2": (H("2s2s6m6m1p1p7p7pPPWWN", "N"), H("2s2s6m6m1p1p7p7pPPWWN", "W")),
}


def test_every_pattern_has_a_case() -> None:
    assert set(CASES) == set(PATTERNS)


@pytest.mark.parametrize("pid", sorted(CASES))
def test_pattern_positive(pid: str) -> None:
    positive, _ = CASES[pid]
    assert pid in counted(positive.build()), score_zj(positive.build(), ZJ33)


@pytest.mark.parametrize("pid", sorted(CASES))
def test_pattern_near_miss(pid: str) -> None:
    _, near_miss = CASES[pid]
    assert pid not in counted(near_miss.build()), score_zj(near_miss.build(), ZJ33)


def test_value_honour_counts_per_set() -> None:
    # SCORING 3.1: 10 per set — three dragon pungs and the seat wind
    h = hand("EEE5s", "5s", melds=["CCC", "FFF", "PPP"])
    assert counted(h)["3.1"] == 4


def test_prevailing_wind_is_not_a_value_honour() -> None:
    # WMC-2.4: no prevailing wind; South pung for an East seat scores nothing
    assert "3.1" not in counted(hand("123m456m789p5s", "5s", melds=["SSS"], prevalent="S"))


def test_one_pattern_per_series() -> None:
    # WMC-12.2: Pure Lesser and Mixed Lesser, Two Identical Sequences Twice and once: highest only
    h = hand("123m123m789p789p9s", "9s")
    ids = counted(h)
    assert "5.1.2" in ids and "5.1.1" not in ids
    assert "8.1.2" in ids and "8.1.1" not in ids


def test_different_series_add_even_when_implied() -> None:
    # WMC-12.2: Four Concealed Triplets always adds Concealed Hand and All Triplets
    result = score(hand("111m555p777s333p8m", "8m"), "wmc")
    assert {p.id for p in result.patterns} >= {"4.2.3", "1.2", "4.1"}
    assert result.total == 160


def test_seven_pairs_never_with_identical_sequences() -> None:
    # WMC-7.6: 5.1.2 and 10.2 come from different arrangements and never mix
    result = score(hand("223344m223344p5s", "5s"), "zj33")
    ids = {p.id for p in result.patterns}
    assert not ({"10.2", "5.1.2"} <= ids)


def test_seven_pairs_with_four_identical_tiles_is_an_option() -> None:
    h = hand("1111m2233p5566s7s", "7s")
    assert "10.2" in counted(h)
    strict = ZjProfile("zj33", minimum=0, chicken_points=1, four_as_two_pairs=False)
    assert not score_zj(h, strict).valid  # no other shape: a false win (WMC-7.1)


def test_seven_pairs_is_not_a_concealed_hand() -> None:
    ids = counted(hand("2s2s6m6m1p1p7p7pPPWWN", "N"))
    assert "1.2" not in ids


def test_thirteen_terminals_counts_nothing_from_category_8() -> None:
    assert counted(hand("19m19p19sESWNPFC", "C")) == {"10.1": 1}


def test_nine_gates_self_drawn_needs_the_drawn_tile_kept_apart() -> None:
    kept = hand("1112345678999m", "5m", by="self")
    mixed = hand("1112345678999m", "5m", by="self", flags=["drawn_tile_not_apart"])
    assert "2.2" in counted(kept)
    assert "2.2" not in counted(mixed)  # WMC-7.7


def test_freedom_of_count_takes_the_best_arrangement() -> None:
    # 222333444m: three identical chows (5.1.3 = 120, +1.1) or three consecutive concealed
    # triplets (7.2.1 = 100, +4.2.2 = 30); the winner counts the better one, never both (WMC-7.6)
    result = score(hand("222333444m678p5s", "5s"), "wmc")
    ids = {p.id for p in result.patterns}
    assert result.total == 140
    assert {"7.2.1", "4.2.2", "1.2", "1.3"} == ids


def test_winning_tile_choice_decides_concealed_pung() -> None:
    # 666m + 7p on a discard: 77p pair completed → 666m stays concealed only if self-drawn
    discard = counted(hand("666m77p88s234s567s", "7p"))
    self_drawn = counted(hand("666m77p88s234s567s", "7p", by="self"))
    assert "4.2.1" not in discard
    assert "4.2.1" in self_drawn


def test_discard_completing_a_chow_keeps_the_pung_concealed() -> None:
    # 3s may complete 234s or the pung 333s; the player picks the chow so 333s stays concealed
    ids = counted(hand("333s24s555m777m99p", "3s"))
    assert "4.2.2" in ids


def test_single_pattern_limit_counts_alone() -> None:
    result = score(hand("SSSWWW123mN", "N", melds=["EEE"]), "wmc")
    assert result.total == 320
    assert result.limit is not None and "single" in result.limit


def test_compound_limit() -> None:
    result = score(hand("111m222m333m555m9m", "9m", by="self"), "wmc")
    assert sum(p.subtotal for p in result.patterns) > 320
    assert result.total == 320
    assert result.limit is not None and "compound" in result.limit


def test_wmc_minimum_and_zj_chicken_hand() -> None:
    chicken = hand("456s12s99m", "3s", melds=["777p", "234m"])
    wmc = score(chicken, "wmc")
    assert not wmc.valid and wmc.reason is not None and "WMC-12.3" in wmc.reason
    zj = score(chicken, "zj33")
    assert zj.valid and zj.total == 1 and not zj.patterns


def test_profile_values_differ_where_the_table_says() -> None:
    pure = hand("123m456m678m222m5m", "5m")
    assert {p.id: p.points for p in score(pure, "wmc").patterns}["2.1.2"] == 100
    assert {p.id: p.points for p in score(pure, "zj33").patterns}["2.1.2"] == 80


def test_no_winning_shape_is_a_false_win() -> None:
    result = score(hand("123m456m789p22s46s", "9s"), "wmc")
    assert not result.valid and result.total == 0
    assert result.reason is not None and "WMC-7.1" in result.reason


def test_unknown_profile_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown profile 'riichi'"):
        score(hand("123m456m789p22s34s", "5s"), "riichi")
