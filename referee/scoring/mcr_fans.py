"""The 81 MCR fans (shared/rules/MCR.md) as data, and the lookup from pymahjonggb's output to them.

Numbers are the official order (1 Big Four Winds … 81 Flower Tiles); pattern IDs are
``MCR-<number>``. The engine also has one fan outside the 81 (明暗杠), numbered 82 here.
pymahjonggb names its fans by its own Chinese strings, which match the table except the three
wait fans (``独听・边张``, ``独听・嵌张``, ``独听・单钓``); its English names differ in spelling
(``All Honors``, ``Two Dragons Pungs`` …), so the lookup keys on the Chinese name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from referee.scoring.result import PatternScore


@dataclass(frozen=True, slots=True)
class Fan:
    """One MCR fan: official number 1–81, English and Chinese name, fan value."""

    number: int
    name: str
    name_zh: str
    points: int

    @property
    def id(self) -> str:
        return f"MCR-{self.number}"


_TABLE: tuple[tuple[int, tuple[tuple[str, str], ...]], ...] = (
    (
        88,
        (
            ("大四喜", "Big Four Winds"),
            ("大三元", "Big Three Dragons"),
            ("绿一色", "All Green"),
            ("九莲宝灯", "Nine Gates"),
            ("四杠", "Four Kongs"),
            ("连七对", "Seven Shifted Pairs"),
            ("十三幺", "Thirteen Orphans"),
        ),
    ),
    (
        64,
        (
            ("清幺九", "All Terminals"),
            ("小四喜", "Little Four Winds"),
            ("小三元", "Little Three Dragons"),
            ("字一色", "All Honours"),
            ("四暗刻", "Four Concealed Pungs"),
            ("一色双龙会", "Pure Terminal Chows"),
        ),
    ),
    (48, (("一色四同顺", "Quadruple Chow"), ("一色四节高", "Four Pure Shifted Pungs"))),
    (
        32,
        (
            ("一色四步高", "Four Pure Shifted Chows"),
            ("三杠", "Three Kongs"),
            ("混幺九", "All Terminals and Honours"),
        ),
    ),
    (
        24,
        (
            ("七对", "Seven Pairs"),
            ("七星不靠", "Greater Honours and Knitted Tiles"),
            ("全双刻", "All Even Pungs"),
            ("清一色", "Full Flush"),
            ("一色三同顺", "Pure Triple Chow"),
            ("一色三节高", "Pure Shifted Pungs"),
            ("全大", "Upper Tiles"),
            ("全中", "Middle Tiles"),
            ("全小", "Lower Tiles"),
        ),
    ),
    (
        16,
        (
            ("清龙", "Pure Straight"),
            ("三色双龙会", "Three-Suited Terminal Chows"),
            ("一色三步高", "Pure Shifted Chows"),
            ("全带五", "All Fives"),
            ("三同刻", "Triple Pung"),
            ("三暗刻", "Three Concealed Pungs"),
        ),
    ),
    (
        12,
        (
            ("全不靠", "Lesser Honours and Knitted Tiles"),
            ("组合龙", "Knitted Straight"),
            ("大于五", "Upper Four"),
            ("小于五", "Lower Four"),
            ("三风刻", "Big Three Winds"),
        ),
    ),
    (
        8,
        (
            ("花龙", "Mixed Straight"),
            ("推不倒", "Reversible Tiles"),
            ("三色三同顺", "Mixed Triple Chow"),
            ("三色三节高", "Mixed Shifted Pungs"),
            ("无番和", "Chicken Hand"),
            ("妙手回春", "Last Tile Draw"),
            ("海底捞月", "Last Tile Claim"),
            ("杠上开花", "Out with Replacement Tile"),
            ("抢杠和", "Robbing the Kong"),
        ),
    ),
    (
        6,
        (
            ("碰碰和", "All Pungs"),
            ("混一色", "Half Flush"),
            ("三色三步高", "Mixed Shifted Chows"),
            ("五门齐", "All Types"),
            ("全求人", "Melded Hand"),
            ("双暗杠", "Two Concealed Kongs"),
            ("双箭刻", "Two Dragon Pungs"),
        ),
    ),
    (
        4,
        (
            ("全带幺", "Outside Hand"),
            ("不求人", "Fully Concealed Hand"),
            ("双明杠", "Two Melded Kongs"),
            ("和绝张", "Last Tile"),
        ),
    ),
    (
        2,
        (
            ("箭刻", "Dragon Pung"),
            ("圈风刻", "Prevalent Wind"),
            ("门风刻", "Seat Wind"),
            ("门前清", "Concealed Hand"),
            ("平和", "All Chows"),
            ("四归一", "Tile Hog"),
            ("双同刻", "Double Pung"),
            ("双暗刻", "Two Concealed Pungs"),
            ("暗杠", "Concealed Kong"),
            ("断幺", "All Simples"),
        ),
    ),
    (
        1,
        (
            ("一般高", "Pure Double Chow"),
            ("喜相逢", "Mixed Double Chow"),
            ("连六", "Short Straight"),
            ("老少副", "Two Terminal Chows"),
            ("幺九刻", "Pung of Terminals or Honours"),
            ("明杠", "Melded Kong"),
            ("缺一门", "One Voided Suit"),
            ("无字", "No Honours"),
            ("边张", "Edge Wait"),
            ("坎张", "Closed Wait"),
            ("单钓将", "Single Wait"),
            ("自摸", "Self-Drawn"),
            ("花牌", "Flower Tiles"),
        ),
    ),
)

FANS: tuple[Fan, ...] = tuple(
    Fan(number, name, name_zh, points)
    for number, (points, name_zh, name) in enumerate(
        [(points, zh, en) for points, group in _TABLE for zh, en in group], start=1
    )
)
"""All 81 fans in official order: ``FANS[n - 1].number == n``."""

CONCEALED_AND_MELDED_KONG = Fan(82, "Concealed Kong and Melded Kong", "明暗杠", 5)
"""Not one of the 81: pymahjonggb's 明暗杠 (its HAS_CONCEALED_KONG_AND_MELDED_KONG option), 5 fan
for exactly one melded and one concealed kong. The 81-fan table alone would give Melded Kong 1 +
Concealed Kong 2 = 3; other readings give 6 (Two Melded Kongs 4 + Concealed Kong 2). We report
the engine's fan under the out-of-table number 82 and flag it in the result's notes."""

ENGINE_EXTRA_FANS: tuple[Fan, ...] = (CONCEALED_AND_MELDED_KONG,)

FAN_BY_NUMBER: Mapping[int, Fan] = MappingProxyType(
    {fan.number: fan for fan in (*FANS, *ENGINE_EXTRA_FANS)}
)
"""1–81 official, 82 the engine's extension."""

CHICKEN_HAND = FAN_BY_NUMBER[43]
LAST_TILE = FAN_BY_NUMBER[58]
FLOWER_TILES = FAN_BY_NUMBER[81]

# pymahjonggb's own Chinese names where they differ from the official table.
_ENGINE_ALIASES: dict[str, int] = {"独听・边张": 77, "独听・嵌张": 78, "独听・单钓": 79}

FAN_BY_ENGINE_NAME: Mapping[str, Fan] = MappingProxyType(
    {
        **{fan.name_zh: fan for fan in (*FANS, *ENGINE_EXTRA_FANS)},
        **{zh: FAN_BY_NUMBER[number] for zh, number in _ENGINE_ALIASES.items()},
    }
)
"""pymahjonggb's Chinese fan name (and the official one) → our fan."""


class UnknownFanError(LookupError):
    """pymahjonggb returned a fan this table does not know: a version mismatch, not a bad hand."""


def fan_for_engine_name(name_zh: str) -> Fan:
    try:
        return FAN_BY_ENGINE_NAME[name_zh]
    except KeyError:
        raise UnknownFanError(
            f"pymahjonggb returned the fan {name_zh!r}, which is not in the MCR table "
            "(referee/scoring/mcr_fans.py); is the installed pymahjonggb a supported version?"
        ) from None


ENGINE_PATTERNS: dict[tuple[str, int], PatternScore] = {}
"""``(engine Chinese name, count)`` → its PatternScore, shared (they are immutable). Filled for
every name and counts 1–8 at import, so the scorer's hot path is one dict lookup; other counts
are added on first use by :func:`pattern_from_engine`."""


def pattern_for(fan: Fan, count: int = 1) -> PatternScore:
    """The PatternScore of ``count`` times ``fan`` (shared instances)."""
    key = (fan.name_zh, count)
    pattern = ENGINE_PATTERNS.get(key)
    if pattern is None:
        pattern = PatternScore(fan.id, fan.name, fan.name_zh, fan.points, count)
        ENGINE_PATTERNS[key] = pattern
    return pattern


def pattern_from_engine(name_zh: str, count: int) -> PatternScore:
    """One pymahjonggb verbose entry ``(points, count, name_zh, name_en)`` as our pattern."""
    pattern = ENGINE_PATTERNS.get((name_zh, count))
    if pattern is None:
        pattern = pattern_for(fan_for_engine_name(name_zh), count)
        ENGINE_PATTERNS[(name_zh, count)] = pattern
    return pattern


for _name in FAN_BY_ENGINE_NAME:
    for _count in range(1, 9):
        pattern_from_engine(_name, _count)
del _name, _count
