"""Exports, languages and standings on a whole simulated session."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from dashkit import Dash

from dashboard.simrig import game
from dashboard.standings import Line, place_points


def _played(dash: Dash) -> list[object]:
    rig = dash.rig("T1", game("T1", "S1", seed=3, hands=8))
    dash.call(rig.play, 10_000)
    dash.wait(lambda: dash.seq("T1") == len(rig.log) - 1, 30)
    return rig.log  # type: ignore[return-value]


@pytest.mark.slow
def test_exports(dash: Dash) -> None:
    log = _played(dash)
    c, _ = dash.login("scorekeeper")
    rows = list(csv.reader(io.StringIO(c.get("/export/sheets.csv").text)))
    assert rows[0][:5] == ["table", "session", "half", "hand", "player"] and len(rows) == 1 + 32
    duty = dash.svc.live.tables["T1"].duty
    last = [r for r in rows[1:] if r[3] == "8"]
    assert {r[4]: int(r[7]) for r in last} == duty.cards()[0].totals
    pdf = c.get("/export/sheets/T1/S1/1.pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    assert c.get("/export/sheets/T1/S1/2.pdf").status_code == 404
    pens = list(csv.DictReader(io.StringIO(c.get("/export/penalties.csv").text)))
    assert len(pens) == len(duty.ledger.entries)
    assert all(p["rule"].startswith("WMC-") and p["status"] == "pending" for p in pens)
    jsonl = c.get("/export/records/T1/S1.jsonl").text.splitlines()
    assert [json.loads(x)["seq"] for x in jsonl] == [e.seq for e in log]  # type: ignore[attr-defined]
    st = list(csv.DictReader(io.StringIO(c.get("/export/standings.csv").text)))
    assert next(s["name"] for s in st if s["kind"] == "player") == max(
        duty.totals(), key=duty.totals().get
    )


@pytest.mark.slow
def test_chinese_interface_and_rule_text(dash: Dash) -> None:
    _played(dash)
    c, csrf = dash.login("referee")
    assert "Venue" in c.get("/").text
    assert (
        c.put("/api/session/lang", json={"lang": "zh"}, headers={"X-CSRF-Token": csrf}).status_code
        == 200
    )
    page = c.get("/alerts").text
    assert "赛场" in page and "确认" in page
    alert = c.get("/api/alerts").json()[0]
    assert alert["rule_text"] and all(ord(ch) < 128 for ch in alert["rule"])
    assert any("\u4e00" <= ch <= "\u9fff" for ch in alert["rule_text"])


def test_place_points_share_ties_and_tiebreak_order() -> None:
    assert place_points({"a": 10, "b": 10, "c": 0, "d": -20}) == {
        "a": 3.0,
        "b": 3.0,
        "c": 1.0,
        "d": 0.0,
    }
    x = Line("x", rank_points=4, score=10, wins=1)
    y = Line("y", rank_points=4, score=30, wins=0)
    assert sorted([x, y], key=lambda line: line.key(["rank_points", "score"]))[0] is y
    assert sorted([x, y], key=lambda line: line.key(["rank_points", "wins"]))[0] is x


def test_both_languages_have_every_word_and_every_rule_both() -> None:
    from dashboard.i18n import catalogue
    from dashboard.rules import summaries

    words = catalogue()
    assert set(words["en"]) == set(words["zh"])
    assert all(v.get("en") and v.get("zh") for v in summaries().values())


def test_every_rule_the_code_cites_has_a_summary() -> None:
    """An alert citing a rule with no summary reaches the referee with no text beside it."""
    from dashboard.rules import summaries

    root = Path(__file__).resolve().parents[2]
    cited = {
        m
        for pkg in ("referee", "rig", "voice", "vision", "table_io", "dashboard", "venue")
        for f in (root / pkg).rglob("*.py")
        for m in re.findall(r'"(WMC-\d+\.\d+)"', f.read_text(encoding="utf-8"))
    }
    assert cited, "no rule ID found in the code: the pattern is wrong"
    assert sorted(cited - set(summaries())) == []
