"""The 44 patterns of WMC / Zung Jung v3.3 (shared/rules/SCORING-WMC.md): the one table of them.

Values differ between profiles in three places (2.1.2, 3.2.1, 3.3.1), so each pattern carries
its value per profile. The series of a pattern is its first two numbers ("4.2" for 4.2.3):
only the highest pattern of a series counts (WMC-12.2).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pattern:
    id: str
    name: str
    name_zh: str
    zj33: int
    wmc: int
    per_set: bool = False  # 3.1 counts once per qualifying set

    @property
    def series(self) -> str:
        return ".".join(self.id.split(".")[:2])

    def value(self, profile: str) -> int:
        return self.wmc if profile == "wmc" else self.zj33


_TABLE: tuple[Pattern, ...] = (
    Pattern("1.1", "All Sequences", "平和", 5, 5),
    Pattern("1.2", "Concealed Hand", "門前清", 5, 5),
    Pattern("1.3", "No Terminals", "斷么九", 5, 5),
    Pattern("2.1.1", "Mixed One-Suit", "混一色", 40, 40),
    Pattern("2.1.2", "Pure One-Suit", "清一色", 80, 100),
    Pattern("2.2", "Nine Gates", "九蓮寶燈", 480, 480),
    Pattern("3.1", "Value Honour", "番牌", 10, 10, per_set=True),
    Pattern("3.2.1", "Small Three Dragons", "小三元", 40, 30),
    Pattern("3.2.2", "Big Three Dragons", "大三元", 130, 130),
    Pattern("3.3.1", "Small Three Winds", "小三風", 30, 25),
    Pattern("3.3.2", "Big Three Winds", "大三風", 120, 120),
    Pattern("3.3.3", "Small Four Winds", "小四喜", 320, 320),
    Pattern("3.3.4", "Big Four Winds", "大四喜", 400, 400),
    Pattern("3.4", "All Honours", "字一色", 320, 320),
    Pattern("4.1", "All Triplets", "對對和", 30, 30),
    Pattern("4.2.1", "Two Concealed Triplets", "二暗刻", 5, 5),
    Pattern("4.2.2", "Three Concealed Triplets", "三暗刻", 30, 30),
    Pattern("4.2.3", "Four Concealed Triplets", "四暗刻", 125, 125),
    Pattern("4.3.1", "One Kong", "一槓", 5, 5),
    Pattern("4.3.2", "Two Kongs", "二槓", 20, 20),
    Pattern("4.3.3", "Three Kongs", "三槓", 120, 120),
    Pattern("4.3.4", "Four Kongs", "四槓", 480, 480),
    Pattern("5.1.1", "Two Identical Sequences", "一般高", 10, 10),
    Pattern("5.1.2", "Two Identical Sequences Twice", "兩般高", 60, 60),
    Pattern("5.1.3", "Three Identical Sequences", "一色三同順", 120, 120),
    Pattern("5.1.4", "Four Identical Sequences", "一色四同順", 480, 480),
    Pattern("6.1", "Three Similar Sequences", "三色同順", 35, 35),
    Pattern("6.2.1", "Small Three Similar Triplets", "三色小同刻", 30, 30),
    Pattern("6.2.2", "Three Similar Triplets", "三色同刻", 120, 120),
    Pattern("7.1", "Nine-Tile Straight", "一氣通貫", 40, 40),
    Pattern("7.2.1", "Three Consecutive Triplets", "三連刻", 100, 100),
    Pattern("7.2.2", "Four Consecutive Triplets", "四連刻", 200, 200),
    Pattern("8.1.1", "Mixed Lesser Terminals", "混全帶么", 40, 40),
    Pattern("8.1.2", "Pure Lesser Terminals", "純全帶么", 50, 50),
    Pattern("8.1.3", "Mixed Greater Terminals", "混么九", 100, 100),
    Pattern("8.1.4", "Pure Greater Terminals", "清么九", 400, 400),
    Pattern("9.1.1", "Final Draw", "海底撈月", 10, 10),
    Pattern("9.1.2", "Final Discard", "河底撈魚", 10, 10),
    Pattern("9.2", "Win on Kong", "嶺上開花", 10, 10),
    Pattern("9.3", "Robbing a Kong", "搶槓", 10, 10),
    Pattern("9.4.1", "Blessing of Heaven", "天和", 155, 155),
    Pattern("9.4.2", "Blessing of Earth", "地和", 155, 155),
    Pattern("10.1", "Thirteen Terminals", "十三么九", 160, 160),
    Pattern("10.2", "Seven Pairs", "七對子", 30, 30),
)

PATTERNS: dict[str, Pattern] = {p.id: p for p in _TABLE}
assert len(PATTERNS) == 44

LIMIT = 320  # WMC-12.3: compound limit 數滿貫 and single-pattern limit 役滿貫
