"""Score cards as PDF (reportlab, with its built-in CJK font: nothing to download or embed)."""

from __future__ import annotations

import io
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from referee.scoresheet import NO_RESULT, VOID, Row, ScoreCard

FONT = "STSong-Light"


def card_pdf(card: ScoreCard) -> bytes:
    return cards_pdf([card], f"Score card {card.table_id} {card.session_id} {card.half}")


def cards_pdf(cards: list[ScoreCard], title: str) -> bytes:
    """Every card on its own page of one document (a tournament's cards for the federation)."""
    if FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(FONT))
    story: list[object] = []
    for i, card in enumerate(cards):
        story += ([PageBreak()] if i else []) + _card(card)
    out = io.BytesIO()
    doc = SimpleDocTemplate(
        out,
        pagesize=landscape(A4),
        leftMargin=12 * mm,
        rightMargin=12 * mm,
        topMargin=12 * mm,
        bottomMargin=12 * mm,
        title=title,
    )
    doc.build(story or [Paragraph("No score cards", ParagraphStyle("t", fontName=FONT))])
    return out.getvalue()


def _value(row: Row) -> str:
    """The value column: the hand's points, a draw, or why it has none (never a draw's 0s)."""
    if row.status == "no_result":
        return f"{NO_RESULT} 无结果"
    if row.status == "voided":
        return f"{VOID} 作废"
    return str(row.value) if row.winner else "draw"


def _card(card: ScoreCard) -> list[object]:
    title = ParagraphStyle("t", fontName=FONT, fontSize=14, leading=18)
    small = ParagraphStyle("s", fontName=FONT, fontSize=7, leading=9)
    head = ["#", "Dealer 庄", "Winner 和", "Value", "Patterns 番种", *card.players]
    rows: list[list[object]] = [list(head)]
    for r in card.rows:
        pats = ", ".join(f"{p.name} {p.name_zh} {p.points}" for p in r.patterns)
        if r.penalty_rules:
            pats += " | " + "; ".join(r.penalty_rules)
        if r.ruling is not None:
            pats += f" | {r.status} by referee {r.ruling.referee}: {r.ruling.reason}"
        who = (
            "—"
            if r.winner is None
            else r.winner + (" (self)" if r.discarder is None else f" ← {r.discarder}")
        )
        cells = []
        amounts = r.amounts
        for p in card.players:
            pen = r.penalties.get(p, 0)
            cells.append(amounts.get(p, "") + (f" −{pen}" if pen else ""))
        rows.append(
            [
                str(r.number),
                r.dealer,
                who,
                Paragraph(escape(_value(r)), small),
                Paragraph(escape(pats), small),
                *cells,
            ]
        )
    rows.append(
        ["", "", "", "", "Total 合计", *(f"{card.totals.get(p, 0):+d}" for p in card.players)]
    )
    rows.append(
        [
            "",
            "",
            "",
            "",
            "Signature 签名",
            *("signed" if p in card.signatures else "" for p in card.players),
        ]
    )
    widths = [10 * mm, 28 * mm, 38 * mm, 16 * mm, 90 * mm] + [24 * mm] * len(card.players)
    table = Table(rows, colWidths=widths, repeatRows=1)
    table.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), FONT, 9),
                ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
            ]
        )
    )
    story: list[object] = [
        Paragraph(
            f"记分卡 Score card — table {card.table_id}, session {card.session_id}, "
            f"half {card.half}",
            title,
        ),
        Spacer(1, 4 * mm),
        table,
    ]
    for c in card.corrections:
        story.append(
            Paragraph(
                f"Correction: hand {c.hand + 1}, {c.player} {c.points:+d} — "
                f"{c.reason} (referee {c.referee})",
                small,
            )
        )
    return story
