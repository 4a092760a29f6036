"""WMC and Zung Jung v3.3 scoring: patterns per arrangement, series rule, limits, minimum.

Rules applied (shared/rules/WMC.md §7, §12; SCORING-WMC.md):
- freedom of count (WMC-7.6): the best total over every arrangement and every choice of the set
  the winning tile completes; patterns of two arrangements never mix;
- series rule (WMC-12.2): one pattern per series, the highest; 3.1 counts per set;
- concealed pung: a pung completed by a discard is exposed; a concealed kong is a concealed pung;
- limits (WMC-12.3): a single pattern ≥ 320 counts alone (the highest such); otherwise a sum
  ≥ 320 counts 320;
- minimum: profile ``wmc`` needs 5 points (a chicken hand is a false win, WMC-12.3); ``zj33``
  gives a chicken hand 1 point;
- Nine Gates (WMC-7.7): not on a Blessing of Heaven, nor self-drawn with the drawn tile mixed in.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.decompose import PAIR, Arrangement, SetKind, Shape, TileSet, decompose
from referee.hands import Flag, WinningHand
from referee.scoring.patterns import LIMIT, PATTERNS
from referee.scoring.result import PatternScore, ScoreResult
from referee.tiles import EAST, TERMINALS_AND_HONOURS, Tile


@dataclass(frozen=True, slots=True)
class ZjProfile:
    """A pattern-table profile. The uncertain points of SCORING-WMC.md are options here."""

    name: str
    minimum: int  # below this a hand may not win (0: none)
    chicken_points: int  # value of a hand with no pattern where the minimum allows it
    four_as_two_pairs: bool = True  # Seven Pairs with four identical tiles (10.2)
    heaven_void_by_concealed_kong: bool = True  # 9.4.1 "not after a concealed kong"


WMC = ZjProfile("wmc", minimum=5, chicken_points=0)
ZJ33 = ZjProfile("zj33", minimum=0, chicken_points=1)
PROFILES: dict[str, ZjProfile] = {p.name: p for p in (WMC, ZJ33)}

_TERMINAL_OR_HONOUR = frozenset(TERMINALS_AND_HONOURS)
_NINE_GATES = (3, 1, 1, 1, 1, 1, 1, 1, 3)

Found = list[tuple[str, int]]  # (pattern id, count)
_ORDER = {pid: index for index, pid in enumerate(PATTERNS)}
_VALUES = {name: {p.id: p.value(name) for p in PATTERNS.values()} for name in ("wmc", "zj33")}


class _HandFacts:
    """What depends on the tiles alone, computed once per hand for all arrangements."""

    __slots__ = (
        "all_honours",
        "all_simple",
        "concealed_hand",
        "flags",
        "nine_gates",
        "one_suit",
        "seat_wind",
        "terminals_only",
        "terms_and_honours",
    )

    def __init__(self, hand: WinningHand, profile: ZjProfile) -> None:
        kinds = set(hand.all_tiles)
        suits = {t // 9 for t in kinds if t < 27}
        honours = any(t >= 27 for t in kinds)
        self.all_simple = all(t < 27 and 1 <= t % 9 <= 7 for t in kinds)
        self.all_honours = not suits
        self.one_suit: str | None = None
        if len(suits) == 1:
            self.one_suit = "2.1.1" if honours else "2.1.2"
        self.terms_and_honours = kinds <= _TERMINAL_OR_HONOUR
        self.terminals_only = self.terms_and_honours and not honours
        self.concealed_hand = hand.is_closed
        self.seat_wind = EAST + int(hand.seat)
        self.nine_gates = _is_nine_gates(hand)
        self.flags = _flag_patterns(hand, profile)


def _is_nine_gates(hand: WinningHand) -> bool:
    if hand.melds or Flag.HEAVEN in hand.flags:
        return False
    if hand.self_drawn and Flag.DRAWN_TILE_NOT_APART in hand.flags:
        return False
    suit = hand.win_tile // 9
    if hand.win_tile >= 27 or any(t // 9 != suit for t in hand.concealed):
        return False
    counts = [0] * 9
    for t in hand.concealed:
        counts[t % 9] += 1
    return tuple(counts) == _NINE_GATES


def _flag_patterns(hand: WinningHand, profile: ZjProfile) -> Found:
    flags = hand.flags
    found: Found = []
    if Flag.FINAL_DRAW in flags:
        found.append(("9.1.1", 1))
    elif Flag.FINAL_DISCARD in flags:
        found.append(("9.1.2", 1))
    if Flag.WIN_ON_KONG in flags:
        found.append(("9.2", 1))
    if Flag.ROBBING_KONG in flags:
        found.append(("9.3", 1))
    if Flag.HEAVEN in flags:
        voided = profile.heaven_void_by_concealed_kong and any(m.concealed for m in hand.melds)
        if not voided:
            found.append(("9.4.1", 1))
    elif Flag.EARTH in flags:
        found.append(("9.4.2", 1))
    return found


def _regular_patterns(arr: Arrangement, facts: _HandFacts) -> Found:
    sets = arr.sets
    pair = arr.pair
    assert pair is not None
    found: Found = []
    chows: list[Tile] = []
    triplets: list[TileSet] = []
    for s in sets:
        if s.kind is SetKind.CHOW:
            chows.append(s.tile)
        else:
            triplets.append(s)

    if len(chows) == 4:
        found.append(("1.1", 1))
    if facts.concealed_hand:
        found.append(("1.2", 1))
    if facts.all_simple:
        found.append(("1.3", 1))
    if facts.nine_gates:
        found.append(("2.2", 1))
    elif facts.one_suit:
        found.append((facts.one_suit, 1))

    # Honours (3.x)
    value_sets = sum(1 for s in triplets if s.tile >= 31 or s.tile == facts.seat_wind)
    if value_sets:
        found.append(("3.1", value_sets))
    dragons = sum(1 for s in triplets if s.tile >= 31)
    if dragons == 3:
        found.append(("3.2.2", 1))
    elif dragons == 2 and pair >= 31:
        found.append(("3.2.1", 1))
    winds = sum(1 for s in triplets if 27 <= s.tile <= 30)
    wind_pair = 27 <= pair <= 30
    if winds == 4:
        found.append(("3.3.4", 1))
    elif winds == 3:
        found.append(("3.3.3" if wind_pair else "3.3.2", 1))
    elif winds == 2 and wind_pair:
        found.append(("3.3.1", 1))
    if facts.all_honours:
        found.append(("3.4", 1))

    # Triplets and kongs (4.x)
    if len(triplets) == 4:
        found.append(("4.1", 1))
    hidden = sum(1 for s in triplets if s.concealed)
    if hidden >= 2:
        found.append((("4.2.1", "4.2.2", "4.2.3")[hidden - 2], 1))
    kongs = sum(1 for s in triplets if s.kind is SetKind.KONG)
    if kongs:
        found.append((("4.3.1", "4.3.2", "4.3.3", "4.3.4")[kongs - 1], 1))

    if chows:
        _sequence_patterns(chows, found)
    suited_triplets = [s.tile for s in triplets if s.tile < 27]
    if len(suited_triplets) >= 2:
        _triplet_patterns(suited_triplets, pair, found)

    # Terminals (8.1.x): every set and the pair hold a terminal or an honour.
    if facts.terms_and_honours:
        found.append(("8.1.4" if facts.terminals_only else "8.1.3", 1))
    elif _outside(sets, pair):
        found.append(("8.1.1" if any(s.tile >= 27 for s in triplets) or pair >= 27 else "8.1.2", 1))
    found.extend(facts.flags)
    return found


def _sequence_patterns(chows: list[Tile], found: Found) -> None:
    starts = set(chows)
    if len(starts) < len(chows):
        same = sorted((chows.count(s) for s in starts), reverse=True)
        if same[0] == 4:
            found.append(("5.1.4", 1))
        elif same[0] == 3:
            found.append(("5.1.3", 1))
        else:
            found.append(("5.1.2" if len(same) > 1 and same[1] == 2 else "5.1.1", 1))
    if len(starts) >= 3:
        if any(n in starts and n + 9 in starts and n + 18 in starts for n in range(7)):
            found.append(("6.1", 1))
        if any(s in starts and s + 3 in starts and s + 6 in starts for s in (0, 9, 18)):
            found.append(("7.1", 1))


def _triplet_patterns(tiles: list[Tile], pair: Tile, found: Found) -> None:
    present = set(tiles)
    for number in range(9):
        suits_with = sum(1 for suit in range(3) if suit * 9 + number in present)
        if suits_with == 3:
            found.append(("6.2.2", 1))
            break
        if suits_with == 2 and pair < 27 and pair % 9 == number and pair not in present:
            found.append(("6.2.1", 1))
            break
    if len(present) >= 3:
        longest = 1
        for tile in present:
            if tile - 1 in present and (tile - 1) // 9 == tile // 9:
                continue
            run = 1
            while tile + run in present and (tile + run) // 9 == tile // 9:
                run += 1
            longest = max(longest, run)
        if longest >= 4:
            found.append(("7.2.2", 1))
        elif longest == 3:
            found.append(("7.2.1", 1))


def _outside(sets: tuple[TileSet, ...], pair: Tile) -> bool:
    if pair not in _TERMINAL_OR_HONOUR:
        return False
    for s in sets:
        if s.kind is SetKind.CHOW:
            if s.tile % 9 not in (0, 6):
                return False
        elif s.tile not in _TERMINAL_OR_HONOUR:
            return False
    return True


def _seven_pairs_patterns(facts: _HandFacts) -> Found:
    found: Found = [("10.2", 1)]
    if facts.all_simple:
        found.append(("1.3", 1))
    if facts.one_suit:
        found.append((facts.one_suit, 1))
    if facts.all_honours:
        found.append(("3.4", 1))
    if facts.terms_and_honours:
        found.append(("8.1.4" if facts.terminals_only else "8.1.3", 1))
    found.extend(facts.flags)
    return found


def _evaluate(found: Found, values: dict[str, int]) -> tuple[int, int, str | None]:
    """(total, raw sum, limit name) after the limit rules of WMC-12.3."""
    raw = 0
    single = 0
    for pid, count in found:
        value = values[pid]
        raw += value * count
        if value >= LIMIT and value > single:
            single = value
    if single:
        return single, raw, "single-pattern limit (WMC-12.3)"
    if raw >= LIMIT:
        return LIMIT, raw, "compound limit (WMC-12.3)"
    return raw, raw, None


def score_zj(hand: WinningHand, profile: ZjProfile = WMC) -> ScoreResult:
    """Score a declared win under a pattern-table profile (``wmc`` or ``zj33``)."""
    arrangements = decompose(hand, four_as_two_pairs=profile.four_as_two_pairs, every_choice=False)
    if not arrangements:
        return ScoreResult(
            profile.name,
            valid=False,
            total=0,
            reason="no winning shape: not 4 sets + a pair, Seven Pairs or Thirteen Terminals "
            "(false win, WMC-7.1)",
        )
    facts = _HandFacts(hand, profile)
    values = _VALUES[profile.name]
    best: tuple[int, int] | None = None
    best_found: Found = []
    best_limit: str | None = None
    best_arr = arrangements[0]
    for arr in arrangements:
        if arr.shape is Shape.REGULAR:
            found = _regular_patterns(arr, facts)
        elif arr.shape is Shape.SEVEN_PAIRS:
            found = _seven_pairs_patterns(facts)
        else:
            found = [("10.1", 1), *facts.flags]
        total, raw, limit = _evaluate(found, values)
        if best is None or (total, raw) > best:
            best, best_found, best_limit, best_arr = (total, raw), found, limit, arr
    assert best is not None
    total = best[0]
    best_found.sort(key=lambda item: _ORDER[item[0]])
    patterns = tuple(
        PatternScore(
            pid, PATTERNS[pid].name, PATTERNS[pid].name_zh, PATTERNS[pid].value(profile.name), count
        )
        for pid, count in best_found
    )
    if not patterns and profile.chicken_points:
        return ScoreResult(
            profile.name,
            valid=True,
            total=profile.chicken_points,
            arrangement=best_arr,
            notes=("chicken hand: no pattern",),
        )
    if total < profile.minimum:
        return ScoreResult(
            profile.name,
            valid=False,
            total=total,
            patterns=patterns,
            reason=f"{total} point(s) is under the {profile.minimum}-point minimum: "
            "a hand without enough patterns may not win (false win, WMC-12.3)",
            arrangement=best_arr,
        )
    notes: tuple[str, ...] = ()
    if Flag.HEAVEN in hand.flags and not any(p.id == "9.4.1" for p in patterns):
        notes = ("Blessing of Heaven voided by the concealed kong (SCORING 9.4.1)",)
    return ScoreResult(
        profile.name,
        valid=True,
        total=total,
        patterns=patterns,
        limit=best_limit,
        arrangement=best_arr,
        notes=notes,
    )


__all__ = ["PAIR", "PROFILES", "WMC", "ZJ33", "ZjProfile", "score_zj"]
