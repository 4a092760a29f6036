"""The ``mcr`` profile: conversion to pymahjonggb, worked MCR hands, engine quirks, errors.

Expected fans below were worked out from the 81-fan table (shared/rules/MCR.md, seed 003) before
being run; the comments give the count.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from MahjongGB import MahjongFanCalculator

from referee.hands import Flag, HandError, Meld, MeldKind, Relative, WinBy, Wind, WinningHand
from referee.samples import random_winning_hand
from referee.scoring.mcr import (
    MINIMUM_REASON,
    NO_SHAPE_REASON,
    TILE_TO_ENGINE,
    engine_args,
    engine_pack,
    score_mcr,
)
from referee.scoring.mcr_fans import (
    CONCEALED_AND_MELDED_KONG,
    FAN_BY_ENGINE_NAME,
    FAN_BY_NUMBER,
    FANS,
    UnknownFanError,
    fan_for_engine_name,
    pattern_from_engine,
)
from referee.scoring.result import ScoreResult
from referee.tiles import parse_tile, parse_tiles, tile_name

# ---------------------------------------------------------------- helpers


def hand(
    concealed: str,
    win: str,
    win_by: str = "discard",
    melds: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> WinningHand:
    case: dict[str, Any] = {"concealed": concealed, "win": win, "win_by": win_by}
    case["melds"] = melds or []
    case.update(extra)
    return WinningHand.from_case(case)


def fans(result: ScoreResult) -> dict[str, int]:
    """Pattern id → count, e.g. ``{"MCR-43": 1}``."""
    return {p.id: p.count for p in result.patterns}


# A hand with no fan at all: melded 234m, 678p and 222s, 567s completed on a two-sided wait, pair
# of East (an honour, so no No Honours; no dragon, so no All Types; all suits, so no voided suit).
CHICKEN_MELDS: list[dict[str, Any]] = [
    {"type": "chow", "tiles": "234m", "from": "left", "claimed": "2m"},
    {"type": "chow", "tiles": "678p", "claimed": "7p"},
    {"type": "pung", "tiles": "222s", "from": "opposite"},
]


def chicken(**extra: Any) -> WinningHand:
    return hand("67sEE", "5s", melds=CHICKEN_MELDS, **extra)


# ---------------------------------------------------------------- the fan table


def test_fan_table_has_81_fans_in_order_with_official_values() -> None:
    assert [f.number for f in FANS] == list(range(1, 82))
    per_value = Counter(f.points for f in FANS)
    assert per_value == {
        88: 7,
        64: 6,
        48: 2,
        32: 3,
        24: 9,
        16: 6,
        12: 5,
        8: 9,
        6: 7,
        4: 4,
        2: 10,
        1: 13,
    }
    assert len({f.name for f in FANS}) == len({f.name_zh for f in FANS}) == 81
    assert FAN_BY_NUMBER[62].name_zh == "门前清"
    assert FAN_BY_NUMBER[62].id == "MCR-62"
    assert (FAN_BY_NUMBER[43].name, FAN_BY_NUMBER[43].points) == ("Chicken Hand", 8)
    assert (FAN_BY_NUMBER[81].name, FAN_BY_NUMBER[81].points) == ("Flower Tiles", 1)


def test_engine_names_map_onto_the_table() -> None:
    assert fan_for_engine_name("门前清").number == 62
    # The engine's names for the three wait fans differ from the official ones.
    assert fan_for_engine_name("独听・边张").number == 77
    assert fan_for_engine_name("独听・嵌张").number == 78
    assert fan_for_engine_name("独听・单钓").number == 79
    assert fan_for_engine_name("明暗杠") is CONCEALED_AND_MELDED_KONG
    assert CONCEALED_AND_MELDED_KONG.number not in {f.number for f in FANS}
    p = pattern_from_engine("门前清", 1)
    assert (p.id, p.name, p.name_zh, p.points, p.count) == (
        "MCR-62",
        "Concealed Hand",
        "门前清",
        2,
        1,
    )
    assert pattern_from_engine("门前清", 1) is p  # shared, immutable


def test_unknown_engine_fan_is_a_clear_error() -> None:
    with pytest.raises(UnknownFanError, match="not in the MCR table"):
        fan_for_engine_name("不存在")


# ---------------------------------------------------------------- conversion


@pytest.mark.parametrize(
    ("tile", "code"),
    [
        ("1m", "W1"),
        ("9m", "W9"),
        ("1p", "B1"),
        ("5p", "B5"),
        ("9p", "B9"),
        ("1s", "T1"),
        ("9s", "T9"),
        ("E", "F1"),
        ("S", "F2"),
        ("W", "F3"),
        ("N", "F4"),
        ("C", "J1"),  # red
        ("F", "J2"),  # green
        ("P", "J3"),  # white
    ],
)
def test_tile_codes(tile: str, code: str) -> None:
    assert TILE_TO_ENGINE[parse_tile(tile)] == code


def test_tile_code_table_covers_exactly_the_34_playing_tiles() -> None:
    assert sorted(TILE_TO_ENGINE) == list(range(34))
    assert len(set(TILE_TO_ENGINE.values())) == 34
    assert parse_tile("1f") not in TILE_TO_ENGINE


@pytest.mark.parametrize(("claimed", "offer"), [(None, 1), ("3p", 1), ("4p", 2), ("5p", 3)])
def test_chow_pack_is_middle_tile_and_claimed_position(claimed: str | None, offer: int) -> None:
    meld = Meld(
        MeldKind.CHOW,
        tuple(parse_tiles("345p")),
        claimed_from=Relative.LEFT,
        claimed_tile=parse_tile(claimed) if claimed else None,
    )
    assert engine_pack(meld) == ("CHI", "B4", offer)


@pytest.mark.parametrize(
    ("source", "offer"),
    [(None, 1), (Relative.LEFT, 1), (Relative.OPPOSITE, 2), (Relative.RIGHT, 3)],
)
def test_pung_and_melded_kong_offer_is_the_source(source: Relative | None, offer: int) -> None:
    pung = Meld(MeldKind.PUNG, tuple(parse_tiles("777s")), claimed_from=source)
    kong = Meld(MeldKind.KONG, (31,) * 4, claimed_from=source)
    assert engine_pack(pung) == ("PENG", "T7", offer)
    assert engine_pack(kong) == ("GANG", "J3", offer)


def test_concealed_kong_offer_is_zero() -> None:
    kong = Meld(MeldKind.KONG, (27,) * 4, concealed=True)
    assert engine_pack(kong) == ("GANG", "F1", 0)


def test_engine_args_flags_winds_and_no_flowers() -> None:
    h = hand(
        "56sEE",
        "7s",
        "self",
        melds=[*CHICKEN_MELDS[:2], {"type": "kong", "tiles": "2222s", "from": "right"}],
        seat="N",
        prevalent="S",
        flowers=5,
        flags=["win_on_kong", "final_draw"],
    )
    args = engine_args(h)
    assert args[0] == (("CHI", "W3", 1), ("CHI", "B7", 2), ("GANG", "T2", 3))
    assert args[1] == ("T5", "T6", "F1", "F1")
    assert args[2] == "T7"
    # flowerCount 0, isSelfDrawn, is4thTile, isAboutKong, isWallLast, seat, prevalent, verbose
    assert args[3:] == (0, True, False, True, True, Wind.N, Wind.S, True)

    plain = engine_args(hand("234m567p999sNNNE", "E"))
    assert plain[0] == ()
    assert plain[3:] == (0, False, False, False, False, Wind.E, Wind.E, True)
    robbed = engine_args(hand("67sEE", "5s", melds=CHICKEN_MELDS, flags=["robbing_kong"]))
    assert robbed[6:8] == (True, False)
    last = engine_args(hand("67sEE", "5s", melds=CHICKEN_MELDS, flags=["final_discard"]))
    assert last[5:8] == (False, False, True)
    fourth = engine_args(hand("67sEE", "5s", melds=CHICKEN_MELDS, flags=["last_of_kind"]))
    assert fourth[5:8] == (True, False, False)


def test_dragon_and_wind_codes_reach_the_right_fans() -> None:
    # All Green needs the GREEN dragon (our F → J2): 223344s 666s 888s + F pair on a single wait.
    green = score_mcr(hand("223344s666888sF", "F"))
    assert fans(green) == {
        "MCR-3": 1,  # All Green 88
        "MCR-62": 1,  # Concealed Hand 2
        "MCR-66": 1,  # Two Concealed Pungs 2
        "MCR-69": 1,  # Pure Double Chow 1
        "MCR-79": 1,  # Single Wait 1
    }
    assert green.total == 94
    # Reversible Tiles needs the WHITE dragon (our P → J3); the same hand with red is not.
    assert "MCR-40" in fans(score_mcr(hand("123345p456999sP", "P")))
    assert "MCR-40" not in fans(score_mcr(hand("123345p456999sC", "C")))
    # Seat South, prevalent West: pungs of S and W score Seat Wind and Prevalent Wind.
    winds = score_mcr(hand("234m567pSSSWWWN", "N", seat="S", prevalent="W"))
    assert {"MCR-60", "MCR-61"} <= fans(winds).keys()
    assert "MCR-73" not in fans(winds)  # the wind pungs are not also Pung of Honours


# ---------------------------------------------------------------- worked hands


def test_chicken_hand_is_exactly_8_and_valid() -> None:
    result = score_mcr(chicken())
    assert result.profile == "mcr"
    assert result.valid
    assert result.reason is None
    assert fans(result) == {"MCR-43": 1}
    assert result.total == 8


def test_flowers_are_added_to_the_total_as_fan_81() -> None:
    result = score_mcr(chicken(flowers=3))
    assert result.valid
    assert fans(result) == {"MCR-43": 1, "MCR-81": 3}
    assert result.patterns[-1].subtotal == 3
    assert result.total == 11


def test_under_8_is_invalid_and_keeps_its_count() -> None:
    # 234m 567m 345p 678s (8s on a two-sided wait) + 99s, concealed, on a discard:
    # Concealed Hand 2 + All Chows 2 + Short Straight 1 = 5.
    result = score_mcr(hand("234567m345p67s99s", "8s"))
    assert not result.valid
    assert fans(result) == {"MCR-62": 1, "MCR-63": 1, "MCR-71": 1}
    assert result.total == 5
    assert result.reason is not None
    assert result.reason.startswith(MINIMUM_REASON)
    assert "has 5" in result.reason


def test_flowers_never_lift_a_hand_to_the_minimum() -> None:
    # Pair 55p instead: + All Simples 2 = 7; three flowers make 10 but the hand still cannot win.
    result = score_mcr(hand("234567m345p67s55p", "8s", flowers=3))
    assert not result.valid
    assert fans(result) == {"MCR-62": 1, "MCR-63": 1, "MCR-68": 1, "MCR-71": 1, "MCR-81": 3}
    assert result.total == 10
    assert result.reason == f"{MINIMUM_REASON}; this hand has 7"


def test_exactly_8_without_flowers_is_valid_and_flowers_add_on_top() -> None:
    # 234m 567m 567p 678s + 55p on a discard: Concealed Hand 2 + All Chows 2 + All Simples 2
    # + Mixed Double Chow 1 (567m/567p) + Short Straight 1 (234m/567m) = 8.
    plain = score_mcr(hand("234567m567p67s55p", "8s"))
    assert plain.valid
    assert fans(plain) == {"MCR-62": 1, "MCR-63": 1, "MCR-68": 1, "MCR-70": 1, "MCR-71": 1}
    assert plain.total == 8
    flowered = score_mcr(hand("234567m567p67s55p", "8s", flowers=2))
    assert flowered.valid
    assert flowered.total == 10


def test_self_drawn_versus_discard() -> None:
    # Self-drawn, the same hand has Fully Concealed Hand 4 instead of Concealed Hand 2 (and no
    # separate Self-Drawn): 4 + 2 + 2 + 1 + 1 = 10.
    result = score_mcr(hand("234567m567p67s55p", "8s", "self"))
    assert result.valid
    assert fans(result) == {"MCR-56": 1, "MCR-63": 1, "MCR-68": 1, "MCR-70": 1, "MCR-71": 1}
    assert result.total == 10
    # With melds, self-drawing adds Self-Drawn 1: the chicken hand becomes 1 fan and invalid.
    drawn = score_mcr(chicken(win_by="self"))
    assert fans(drawn) == {"MCR-80": 1}
    assert not drawn.valid
    assert drawn.total == 1


def test_seven_pairs() -> None:
    # 11m 33m 55p 77p 22s 99s EE: Seven Pairs 24 (no Concealed Hand, no Single Wait).
    discard = score_mcr(hand("1133m5577p2299sE", "E"))
    assert discard.valid
    assert fans(discard) == {"MCR-19": 1}
    assert discard.total == 24
    drawn = score_mcr(hand("1133m5577p2299sE", "E", "self"))
    assert fans(drawn) == {"MCR-19": 1, "MCR-80": 1}
    assert drawn.total == 25


def test_thirteen_orphans() -> None:
    # 88 alone: no All Types, Concealed Hand or Single Wait besides it.
    discard = score_mcr(hand("19m19p19sESWNPFC", "C"))
    assert fans(discard) == {"MCR-7": 1}
    assert discard.total == 88
    drawn = score_mcr(hand("19m19p19sESWNPFC", "9m", "self", flowers=1))
    assert fans(drawn) == {"MCR-7": 1, "MCR-80": 1, "MCR-81": 1}
    assert drawn.total == 90


def test_no_winning_shape_is_invalid_with_total_0() -> None:
    result = score_mcr(hand("1357m2468p13579s", "E"))
    assert not result.valid
    assert result.total == 0
    assert result.patterns == ()
    assert result.reason == NO_SHAPE_REASON
    assert "no winning shape" in result.reason


# ---------------------------------------------------------------- engine behaviour (quirks)


def test_quirk_chicken_hand_only_when_nothing_else_counts() -> None:
    """无番和 8 is given when no other fan counts, flowers aside: rule-conformant, pinned."""
    assert fans(score_mcr(chicken(flowers=8))) == {"MCR-43": 1, "MCR-81": 8}
    # Any fan, however small, replaces it (here Last Tile 4: the hand then falls under 8).
    last = score_mcr(chicken(flags=["last_of_kind"]))
    assert fans(last) == {"MCR-58": 1}
    assert not last.valid


def test_quirk_last_tile_ignored_when_the_win_completes_a_pair() -> None:
    # Single wait on E with an E in the hand: is4thTile is dropped by the engine.
    single = score_mcr(hand("567sE", "E", melds=CHICKEN_MELDS, flags=["last_of_kind"]))
    assert fans(single) == {"MCR-79": 1}
    assert any("Last Tile (MCR-58) not counted" in n for n in single.notes)
    pairs = score_mcr(hand("1133m5577p2299sE", "E", flags=["last_of_kind"]))
    assert fans(pairs) == {"MCR-19": 1}
    assert pairs.notes and "concealed tiles" in pairs.notes[0]
    # Completing a chow, the flag counts.
    assert "MCR-58" in fans(score_mcr(chicken(flags=["last_of_kind"])))


def test_quirk_last_tile_without_the_flag_when_own_melds_show_three() -> None:
    # Exposed pung of 9s, win on the 4th 9s completing 789s: Last Tile 4 + Tile Hog 2 + Pung 1.
    result = score_mcr(hand("234m567p78sEE", "9s", melds=[{"type": "pung", "tiles": "999s"}]))
    assert fans(result) == {"MCR-58": 1, "MCR-64": 1, "MCR-73": 1}
    assert result.total == 7


def test_quirk_situational_flags_and_their_exclusions() -> None:
    claim = score_mcr(hand("56sEE", "7s", melds=CHICKEN_MELDS, flags=["final_discard"]))
    assert fans(claim) == {"MCR-45": 1}
    draw = score_mcr(hand("56sEE", "7s", "self", melds=CHICKEN_MELDS, flags=["final_draw"]))
    assert fans(draw) == {"MCR-44": 1}  # Last Tile Draw excludes Self-Drawn
    robbed = score_mcr(
        hand("56sEE", "7s", melds=CHICKEN_MELDS, flags=["robbing_kong", "last_of_kind"])
    )
    assert fans(robbed) == {"MCR-47": 1}  # Robbing the Kong excludes Last Tile
    assert "Robbing the Kong excludes Last Tile" in robbed.notes[0]
    kong_melds = [*CHICKEN_MELDS[:2], {"type": "kong", "tiles": "2222s", "from": "opposite"}]
    replacement = score_mcr(hand("56sEE", "7s", "self", melds=kong_melds, flags=["win_on_kong"]))
    assert fans(replacement) == {"MCR-46": 1, "MCR-74": 1}  # no Self-Drawn
    assert replacement.total == 9


def test_quirk_robbing_dropped_when_the_tile_is_already_held() -> None:
    result = score_mcr(hand("567sE", "E", melds=CHICKEN_MELDS, flags=["robbing_kong"]))
    assert "MCR-47" not in fans(result)
    assert "robbed 4th tile" in result.notes[0]


def test_quirk_kongs() -> None:
    concealed = [{"type": "kong", "tiles": "CCCC", "concealed": True}]
    melded = [{"type": "kong", "tiles": "CCCC", "from": "right"}]
    # 234m 567p 999s + kong of red + NN; All Types 6 + Dragon Pung 2 + Pung of Terminals 1, and
    # a concealed kong keeps Concealed Hand 2 and adds Concealed Kong 2 …
    c = score_mcr(hand("234m567p99sNN", "9s", melds=concealed))
    assert fans(c) == {"MCR-51": 1, "MCR-59": 1, "MCR-62": 1, "MCR-67": 1, "MCR-73": 1}
    assert c.total == 13
    # … a melded kong is Melded Kong 1.
    m = score_mcr(hand("234m567p99sNN", "9s", melds=melded))
    assert fans(m) == {"MCR-51": 1, "MCR-59": 1, "MCR-73": 1, "MCR-74": 1}
    assert m.total == 10


def test_quirk_one_melded_one_concealed_kong_is_the_engines_5_fan_extra() -> None:
    melds: list[dict[str, Any]] = [
        {"type": "kong", "tiles": "CCCC", "from": "right"},
        {"type": "kong", "tiles": "5555p", "concealed": True},
    ]
    result = score_mcr(hand("234m99sNN", "9s", melds=melds))
    assert fans(result) == {"MCR-51": 1, "MCR-59": 1, "MCR-73": 1, "MCR-82": 1}
    assert result.total == 6 + 2 + 1 + 5
    assert any("明暗杠" in n for n in result.notes)


def test_quirk_engine_treats_pung_offer_0_as_concealed() -> None:
    """Why engine_pack never sends 0 for a PENG: the engine would grant Concealed Hand."""
    standing = ("W2", "W3", "W4", "B5", "B6", "B7", "T7", "T8", "J3", "J3")
    args = (standing, "T9", 0, False, False, False, False, 0, 0, True)
    zero = {f[2] for f in MahjongFanCalculator((("PENG", "F2", 0),), *args)}
    one = {f[2] for f in MahjongFanCalculator((("PENG", "F2", 1),), *args)}
    assert "门前清" in zero
    assert "门前清" not in one
    pung = Meld(MeldKind.PUNG, (28, 28, 28))
    assert engine_pack(pung)[2] != 0


def test_flags_without_an_mcr_fan_are_noted() -> None:
    result = score_mcr(hand("234567m567p67s55p", "8s", seat="S", flags=["earth"]))
    assert result.valid
    assert result.notes == ("flag earth has no MCR fan; ignored",)


# ---------------------------------------------------------------- errors


def test_engine_error_codes_are_what_we_expect() -> None:
    """Pin pymahjonggb's own errors: all TypeError with terse codes (one misspelt)."""
    rest = (0, False, False, False, False, 0, 0, True)
    with pytest.raises(TypeError, match=r"^ERROR_NOT_WIN$"):
        MahjongFanCalculator((), ("W1",) * 3 + ("B3",) * 10, "T5", *rest)
    with pytest.raises(TypeError, match=r"^ERROR_WRONG_TILES_COUNT$"):
        MahjongFanCalculator((), ("W1",) * 3 + ("B3",) * 3, "T5", *rest)
    with pytest.raises(TypeError, match=r"^ERROE_WRONG_TILE_CODE$"):
        MahjongFanCalculator((), ("X1",) * 13, "T5", *rest)
    with pytest.raises(TypeError, match=r"^ERROE_WRONG_OFFER_CODE$"):
        MahjongFanCalculator((("PENG", "W1", 4),), ("B3",) * 10, "T5", *rest)


def test_quirk_engine_does_not_check_more_than_4_copies() -> None:
    """ERROR_TILE_COUNT_GREATER_THAN_4 never fires in 1.4: five or more copies get scored.

    So the 4-copy limit rests on WinningHand's validation, which score_mcr relies on.
    """
    rest = (0, False, False, False, False, 0, 0, True)
    standing = ("W1",) * 4 + ("W2", "W3", "W4") + ("B3",) * 3 + ("T3",) * 3
    fifth = MahjongFanCalculator((), standing, "W1", *rest)
    assert fifth  # a hand with five 1m, scored
    fourteen = MahjongFanCalculator((), ("W5",) * 13, "W5", *rest)
    assert {name for _, _, name, _ in fourteen} >= {"七对", "清一色"}
    with pytest.raises(HandError, match="only 4 of each tile"):
        hand("1111234m333666p", "1m")


def _tampered(h: WinningHand, **fields: Any) -> WinningHand:
    """A hand whose fields were changed behind the validation (as a buggy caller could)."""
    for key, value in fields.items():
        object.__setattr__(h, key, value)
    return h


def test_unexpected_engine_error_becomes_a_clear_hand_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import referee.scoring.mcr as mcr

    def refuse(*args: object) -> object:
        raise TypeError("ERROR_TILE_COUNT_GREATER_THAN_4")

    monkeypatch.setattr(mcr, "MahjongFanCalculator", refuse)
    with pytest.raises(HandError, match="MCR scorer refused the hand: more than 4 copies"):
        score_mcr(chicken())


def test_quirk_engine_does_not_check_winds_or_flower_count() -> None:
    """Out-of-range winds pass and a negative flowerCount wraps (uint8): ours cannot be so."""
    standing = ("T7", "T8", "T9", "J3")
    packs = (("CHI", "W3", 1), ("CHI", "B7", 1), ("PENG", "T2", 2))
    out = MahjongFanCalculator(packs, standing, "J3", -3, False, False, False, False, 7, 9, True)
    assert (1, 253, "花牌", "Flower Tiles") in out


def test_wrong_tile_count_never_reaches_the_engine() -> None:
    h = _tampered(chicken(), concealed=tuple(parse_tiles("567sEE")))
    with pytest.raises(HandError, match="wrong tile count"):
        score_mcr(h)


def test_bad_tile_index_is_a_hand_error() -> None:
    h = _tampered(chicken(), win_tile=parse_tile("3f"))
    with pytest.raises(HandError, match="tile 36 cannot be scored"):
        score_mcr(h)
    h = _tampered(chicken(), concealed=(23, 24, 27, 99))
    with pytest.raises(HandError, match="tile 99"):
        score_mcr(h)


# ---------------------------------------------------------------- agreement with the engine

_SUIT_CODE = {"m": "W", "p": "B", "s": "T"}
_HONOUR_CODE = {"E": "F1", "S": "F2", "W": "F3", "N": "F4", "C": "J1", "F": "J2", "P": "J3"}


def _code(tile: int) -> str:
    """Independent of TILE_TO_ENGINE: from the notation name."""
    name = tile_name(tile)
    return _HONOUR_CODE[name] if name in _HONOUR_CODE else f"{_SUIT_CODE[name[1]]}{name[0]}"


def _direct(h: WinningHand) -> tuple[tuple[int, int, str, str], ...]:
    packs = []
    for m in h.melds:
        if m.kind is MeldKind.CHOW:
            claimed = m.tiles.index(m.claimed_tile) + 1 if m.claimed_tile is not None else 1
            packs.append(("CHI", _code(m.tiles[1]), claimed))
        elif m.concealed:
            packs.append(("GANG", _code(m.tiles[0]), 0))
        else:
            kind = "PENG" if m.kind is MeldKind.PUNG else "GANG"
            packs.append((kind, _code(m.tiles[0]), int(m.claimed_from or 1)))
    flags = h.flags
    result: tuple[tuple[int, int, str, str], ...] = MahjongFanCalculator(
        pack=tuple(packs),
        hand=tuple(_code(t) for t in h.concealed),
        winTile=_code(h.win_tile),
        flowerCount=h.flowers,
        isSelfDrawn=h.win_by is WinBy.SELF,
        is4thTile=Flag.LAST_OF_KIND in flags,
        isAboutKong=Flag.WIN_ON_KONG in flags or Flag.ROBBING_KONG in flags,
        isWallLast=Flag.FINAL_DRAW in flags or Flag.FINAL_DISCARD in flags,
        seatWind=int(h.seat),
        prevalentWind=int(h.prevalent),
        verbose=True,
    )
    return result


@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.randoms(use_true_random=False))
@pytest.mark.slow
def test_wrapper_agrees_with_direct_engine_calls(rng: random.Random) -> None:
    h = random_winning_hand(rng, max_flowers=8)
    direct = _direct(h)
    result = score_mcr(h)
    assert result.profile == "mcr"

    expected: dict[str, int] = {}
    for points, count, name_zh, _ in direct:
        fan = FAN_BY_ENGINE_NAME[name_zh]
        assert fan.points == points, f"table value of {fan.id} differs from the engine"
        expected[fan.id] = count
    assert fans(result) == expected
    total = sum(points * count for points, count, _, _ in direct)
    assert result.total == total
    assert sum(p.subtotal for p in result.patterns) == result.total
    without_flowers = total - h.flowers
    assert result.valid == (without_flowers >= 8)
    if not result.valid:
        assert result.reason is not None and result.reason.startswith(MINIMUM_REASON)


def test_random_hands_are_all_winning_shapes() -> None:
    """The generator's hands always have a shape, so the property test never meets NOT_WIN."""
    rng = random.Random(7)
    for _ in range(300):
        result = score_mcr(random_winning_hand(rng, max_flowers=8))
        assert result.reason != NO_SHAPE_REASON
