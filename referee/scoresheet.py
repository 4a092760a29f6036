"""The score card (WMC-8.1, 7.8): one card per table and half session, two rounds (8 hands).

Built from the engine's hand results and the penalty ledger, so the card always agrees with the
replayed game. Players sign at the end of the half (an event); a correction needs a referee's
confirmation. Exports: JSON, and HTML printable on one A4 page, laid out like the paper card.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.game.state import HandResult
from referee.hands import Wind
from referee.penalties import PenaltyLedger
from referee.scoring.result import PatternScore
from referee.tiles import tile_name

HANDS_PER_CARD = 8  # two rounds of four hands (WMC-8.1)


NO_RESULT = "no result (to settle)"
"""How the card shows a hand without a result that no referee has settled yet: never 0 / 0."""
VOID = "void"


class SheetError(ValueError):
    """A sign-off or correction that is not allowed; says why."""


@dataclass(frozen=True, slots=True)
class Ruling:
    """A referee's ruling on a hand (``hand_ruled``, WMC-7.8, 8.1): what the card shows for it
    in place of the record's result. ``payments`` per player; a win has a ``winner``."""

    hand: int
    ruling: str  # "void" or "settle"
    payments: dict[str, int]
    reason: str
    referee: str
    winner: str | None = None
    discarder: str | None = None  # with a winner: None is self-drawn
    value: int = 0


@dataclass(frozen=True, slots=True)
class Row:
    """One hand on the card; amounts are per player name."""

    number: int  # 1–8 on this card
    hand: int  # index of the hand in the session
    dealer: str
    winner: str | None
    discarder: str | None  # None with a winner: self-drawn
    win_tile: str | None
    value: int
    patterns: tuple[PatternScore, ...]
    payments: dict[str, int]
    penalties: dict[str, int]
    penalty_rules: tuple[str, ...]
    totals: dict[str, int]  # running totals on this card after this hand
    result: str = "win"  # or "exhaustive_draw", "unfinished" (no result in the record)
    marks: tuple[str, ...] = ()  # why a referee must look at it (HandResult.marks)
    ruling: Ruling | None = None  # a referee's, which the row shows in place of the record's

    @property
    def status(self) -> str:
        """What the card shows: ``settled`` or ``voided`` (a referee's ruling), ``no_result``
        (none yet: to settle), else the record's result (``win``, ``exhaustive_draw``, …)."""
        if self.ruling is not None:
            return "voided" if self.ruling.ruling == "void" else "settled"
        return "no_result" if self.result == "unfinished" else self.result

    @property
    def amounts(self) -> dict[str, str]:
        """Each player's amount as the card prints it: ``+24``, ``0``, ``void``, or ``—`` for a
        hand without a result (not a draw: nobody has settled it)."""
        status = self.status
        if status in ("no_result", "voided"):
            mark = VOID if status == "voided" else "—"
            return dict.fromkeys(self.payments, mark)
        return {p: f"{a:+d}" if a else "0" for p, a in self.payments.items()}


@dataclass(frozen=True, slots=True)
class Correction:
    hand: int
    player: str
    points: int  # added to the player's amount for that hand
    reason: str
    referee: str


@dataclass(slots=True)
class ScoreCard:
    table_id: str
    session_id: str
    half: int
    players: tuple[str, ...]
    rows: list[Row] = field(default_factory=list)
    signatures: dict[str, float] = field(default_factory=dict)
    corrections: list[Correction] = field(default_factory=list)

    @property
    def totals(self) -> dict[str, int]:
        return dict(self.rows[-1].totals) if self.rows else dict.fromkeys(self.players, 0)

    @property
    def signed(self) -> bool:
        return set(self.signatures) == set(self.players)

    def sign(self, player: str, ts: float) -> None:
        """A player signs the card at the end of the half (WMC-8.1)."""
        if player not in self.players:
            raise SheetError(f"{player!r} does not play on this card ({', '.join(self.players)})")
        if len(self.rows) < HANDS_PER_CARD:
            raise SheetError(
                f"the card has {len(self.rows)} of {HANDS_PER_CARD} hands: sign after the half"
            )
        self.signatures[player] = ts

    def to_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "session_id": self.session_id,
            "half": self.half,
            "players": list(self.players),
            "hands": [
                {
                    "number": r.number,
                    "hand": r.hand,
                    "dealer": r.dealer,
                    "winner": r.winner,
                    "discarder": r.discarder,
                    "self_drawn": r.winner is not None and r.discarder is None,
                    "win_tile": r.win_tile,
                    "result": r.result,
                    "status": r.status,
                    "ruling": _ruling_json(r.ruling),
                    "marks": list(r.marks),
                    "value": r.value,
                    "patterns": [p.to_json() for p in r.patterns],
                    "payments": r.payments,
                    "amounts": r.amounts,
                    "penalties": r.penalties,
                    "penalty_rules": list(r.penalty_rules),
                    "totals": r.totals,
                }
                for r in self.rows
            ],
            "totals": self.totals,
            "corrections": [
                {
                    "hand": c.hand,
                    "player": c.player,
                    "points": c.points,
                    "reason": c.reason,
                    "referee": c.referee,
                }
                for c in self.corrections
            ],
            "signatures": self.signatures,
            "signed": self.signed,
        }

    def to_html(self) -> str:
        return render_html(self)


def _ruling_json(r: Ruling | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "ruling": r.ruling,
        "winner": r.winner,
        "discarder": r.discarder,
        "value": r.value,
        "payments": r.payments,
        "reason": r.reason,
        "referee": r.referee,
    }


def build_cards(
    table_id: str,
    session_id: str,
    results: Sequence[HandResult],
    ledger: PenaltyLedger | None = None,
    corrections: Sequence[Correction] = (),
    rulings: Mapping[int, Ruling] | None = None,
) -> list[ScoreCard]:
    """Cards for a session: hands 1–8 on the first, 9–16 on the second (WMC-8.1); a ruled
    hand's row shows the ruling (``rulings`` by hand)."""
    ruled = rulings or {}
    cards: list[ScoreCard] = []
    for start in range(0, len(results), HANDS_PER_CARD):
        chunk = results[start : start + HANDS_PER_CARD]
        players = tuple(sorted({p for r in chunk for p in r.players}))
        card = ScoreCard(table_id, session_id, start // HANDS_PER_CARD + 1, players)
        card.corrections = [c for c in corrections if start <= c.hand < start + len(chunk)]
        totals = dict.fromkeys(players, 0)
        for number, result in enumerate(chunk, start=1):
            row = _row(number, result, ledger, card.corrections, totals, ruled.get(result.hand))
            totals = row.totals
            card.rows.append(row)
        cards.append(card)
    return cards


def correction(hand: int, player: str, points: int, reason: str, referee: str) -> Correction:
    """A correction to a recorded hand; only with a referee's confirmation (WMC-8.1)."""
    if not referee.strip():
        raise SheetError("a correction needs the confirming referee's id (WMC-8.1)")
    if not reason.strip():
        raise SheetError("a correction needs a reason")
    return Correction(hand, player, points, reason, referee)


def _row(
    number: int,
    result: HandResult,
    ledger: PenaltyLedger | None,
    corrections: Sequence[Correction],
    totals: dict[str, int],
    ruling: Ruling | None = None,
) -> Row:
    name = result.players
    payments = {name[w]: result.deltas.get(w, 0) for w in Wind}
    winner = name[result.winner] if result.winner is not None else None
    discarder = name[result.discarder] if result.discarder is not None else None
    win_tile = tile_name(result.win_tile) if result.win_tile is not None else None
    value, patterns = result.value, result.patterns
    if ruling is not None:
        payments = {p: ruling.payments.get(p, 0) for p in name}
        winner, discarder, value = ruling.winner, ruling.discarder, ruling.value
        win_tile, patterns = None, ()
    penalties = dict.fromkeys(name, 0)
    rules: list[str] = []
    if ledger is not None:
        for entry in ledger.confirmed(result.hand):
            penalties[name[entry.proposal.seat]] += entry.points
            rules.append(f"{entry.proposal.rule} {name[entry.proposal.seat]} −{entry.points}")
    after = dict(totals)
    for player in name:
        after[player] = after.get(player, 0) + payments[player] - penalties[player]
    for c in corrections:
        if c.hand == result.hand:
            after[c.player] = after.get(c.player, 0) + c.points
    return Row(
        number=number,
        hand=result.hand,
        dealer=result.dealer,
        winner=winner,
        discarder=discarder,
        win_tile=win_tile,
        value=value,
        patterns=patterns,
        payments=payments,
        penalties=penalties,
        penalty_rules=tuple(rules),
        totals=after,
        result=result.outcome,
        marks=result.marks,
        ruling=ruling,
    )


_CSS = """
@page { size: A4 landscape; margin: 12mm; }
body { font-family: "Noto Sans CJK SC", "Noto Sans", sans-serif; font-size: 10pt; }
h1 { font-size: 14pt; margin: 0 0 4pt; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #000; padding: 3pt 4pt; text-align: center; }
td.patterns { text-align: left; font-size: 8pt; }
tr.total td { font-weight: bold; border-top: 2px solid #000; }
.sign td { height: 28pt; }
.neg { color: #a00; }
"""


def render_html(card: ScoreCard) -> str:
    """The card as a printable page, columns as on the paper card."""
    e = html.escape
    head = "".join(f"<th>{e(p)}</th>" for p in card.players)
    rows = []
    for r in card.rows:
        status = r.status
        if status == "no_result":
            outcome, value, pats = "—", f"{NO_RESULT} 無結果（待裁定）", ""
        elif status == "voided":
            outcome, value, pats = "—", f"{VOID} 作廢", ""
        elif r.winner is None:
            outcome, value, pats = "—", "draw (荒牌)", ""
        else:
            outcome = e(r.winner)
            value = f"{r.value}"
            by = "self-drawn 自摸" if r.discarder is None else f"from {e(r.discarder)}"
            pats = e(
                ", ".join(
                    f"{p.id} {p.name} {p.points}" + (f"×{p.count}" if p.count > 1 else "")
                    for p in r.patterns
                )
            )
            tile = f" · {e(r.win_tile)}" if r.win_tile else ""
            outcome += f"<br><small>{by}{tile}</small>"
        cells = []
        amounts = r.amounts
        for p in card.players:
            pen = r.penalties.get(p, 0)
            text = amounts.get(p, "")
            if pen:
                text += f'<br><span class="neg">−{pen}</span>'
            cells.append(f"<td>{text}</td>")
        rules = f"<br><small>{e('; '.join(r.penalty_rules))}</small>" if r.penalty_rules else ""
        if r.ruling is not None:
            rules += (
                f"<br><small>{status} by referee {e(r.ruling.referee)}: "
                f"{e(r.ruling.reason)}</small>"
            )
        if r.marks:
            rules += f"<br><small>marked: {e(', '.join(r.marks))}</small>"
        rows.append(
            f"<tr><td>{r.number}</td><td>{e(r.dealer)}</td><td>{outcome}</td><td>{value}</td>"
            f'<td class="patterns">{pats}{rules}</td>{"".join(cells)}</tr>'
        )
    totals = "".join(f"<td>{card.totals.get(p, 0):+d}</td>" for p in card.players)
    signs = "".join(f"<td>{'signed' if p in card.signatures else ''}</td>" for p in card.players)
    fixes = "".join(
        f"<li>hand {c.hand + 1}: {e(c.player)} {c.points:+d} — {e(c.reason)} "
        f"(referee {e(c.referee)})</li>"
        for c in card.corrections
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>Score card {e(card.table_id)} half {card.half}</title><style>{_CSS}</style>"
        "</head><body>"
        f"<h1>記分卡 Score card — table {e(card.table_id)}, session {e(card.session_id)}, "
        f"half {card.half}</h1>"
        "<table><thead><tr><th>#</th><th>Dealer 莊</th><th>Winner 和</th><th>Value</th>"
        f"<th>Patterns 番種</th>{head}</tr></thead><tbody>{''.join(rows)}"
        f'<tr class="total"><td colspan="5">Total 合計</td>{totals}</tr>'
        f'<tr class="sign"><td colspan="5">Signature 簽名</td>{signs}</tr>'
        "</tbody></table>"
        + (f"<h2>Corrections (referee-confirmed)</h2><ul>{fixes}</ul>" if fixes else "")
        + "</body></html>"
    )
