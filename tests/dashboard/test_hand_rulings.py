"""A hand the record left without a result (its end never reached the log) is an item of the
referees' queue citing WMC-7.8, shown on the score card, its PDF and the CSV export as "no result
(to settle)" — never as a draw's 0 / 0 / 0 / 0 — until a referee settles or voids it from the
queue: a ``hand_ruled`` event sent to the table like any decision, which the card, the standings
and the queue follow once the table has logged it."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from dashkit import Dash
from duty_kit import first_end_lost
from pdf_text import texts

from dashboard.simrig import SimRig, game
from referee.scoresheet import NO_RESULT

pytestmark = pytest.mark.slow  # a dashboard and a simulated table playing three hands

URL = "/api/sheets/T1/S1/hands/1/ruling"


def _played(dash: Dash) -> SimRig:
    rig = dash.rig("T1", first_end_lost(game("T1", "S1", seed=3, hands=3, rate=0.0)))
    dash.call(rig.play, 10_000)
    dash.wait(lambda: dash.seq("T1") == len(rig.log) - 1, 30)
    return rig


def _item(client: Any, status: str = "all") -> dict[str, Any]:
    (item,) = [
        a for a in client.get(f"/api/alerts?status={status}").json() if a["rule"] == "WMC-7.8"
    ]
    return dict(item)


def _pdf_row(client: Any, number: int) -> list[str]:
    """The strings the PDF card draws for hand ``number``: from its number to the next one's."""
    drawn = texts(client.get("/export/sheets/T1/S1/1.pdf").content)
    start = drawn.index(str(number), drawn.index("Patterns 番种"))
    return drawn[start : drawn.index(str(number + 1), start + 1)]


def _ruled(dash: Dash, client: Any, csrf: str, body: dict[str, Any]) -> None:
    rig = dash.rigs[0]
    r = client.post(URL, json=body, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200, r.text
    dash.wait(lambda: rig.log[-1].type == "hand_ruled" and dash.seq("T1") == len(rig.log) - 1)
    assert rig.log[-1].source == "referee" and rig.log[-1].payload.referee == "referee"


def test_wmc_7_8_a_hand_without_a_result_is_a_queue_item_and_no_result_on_the_card(
    dash: Dash,
) -> None:
    _played(dash)
    c, _ = dash.login("referee")
    item = _item(c, "open")
    assert item["hand"] == 0 and item["open"] and item["severity"] == "critical"
    assert item["message"].startswith("hand 1 has no result") and item["rule_text"]
    assert item["settle"]["url"] == URL and len(item["settle"]["players"]) == 4
    page = c.get("/alerts").text
    assert f'data-api="{URL}"' in page and 'name="ruling" value="void"' in page
    viewer, _ = dash.login("viewer")
    assert "WMC-7.8" in viewer.get("/alerts").text and URL not in viewer.get("/alerts").text
    hand = c.get("/api/sheets/T1/S1/1").json()["hands"][0]
    assert hand["status"] == "no_result" and set(hand["amounts"].values()) == {"—"}
    assert NO_RESULT in c.get("/sheets/T1/S1/1").text
    row = _pdf_row(c, 1)
    assert NO_RESULT in " ".join(row) and not {"0", "+0"} & set(row), row
    lines = list(csv.DictReader(io.StringIO(c.get("/export/sheets.csv").text)))
    first = [x for x in lines if x["hand"] == "1"]
    assert {(x["amount"], x["result"]) for x in first} == {("", NO_RESULT)}


def test_wmc_7_8_a_referee_settles_it_and_the_card_standings_and_queue_follow(
    dash: Dash,
) -> None:
    _played(dash)
    c, csrf = dash.login("referee")
    a, b, _, _ = _item(c)["settle"]["players"]
    before = {x["name"]: x for x in c.get("/api/standings").json()["players"]}
    body = {"ruling": "settle", "winner": a, "discarder": b, "value": 40, "reason": "camera clip"}
    _ruled(dash, c, csrf, body)
    item = _item(c)
    assert item["status"] == "settled" and not item["open"]
    assert not [x for x in c.get("/api/alerts").json() if x["rule"] == "WMC-7.8"]
    hand = c.get("/api/sheets/T1/S1/1").json()["hands"][0]
    assert hand["status"] == "settled" and (hand["winner"], hand["discarder"]) == (a, b)
    assert hand["payments"][a] == 120 and hand["payments"][b] == -60  # WMC-12.4, V = 40
    after = {x["name"]: x for x in c.get("/api/standings").json()["players"]}
    assert after[a]["score"] == before[a]["score"] + 120
    assert after[a]["wins"] == before[a]["wins"] + 1
    assert after[b]["score"] == before[b]["score"] - 60
    row = _pdf_row(c, 1)
    assert "+120" in row and NO_RESULT not in " ".join(row)
    assert "settled · ruled by referee: “camera clip”" in c.get("/sheets/T1/S1/1").text


def test_wmc_7_8_a_referee_voids_it(dash: Dash) -> None:
    _played(dash)
    c, csrf = dash.login("referee")
    totals = c.get("/api/sheets/T1/S1/1").json()["totals"]
    _ruled(dash, c, csrf, {"ruling": "void", "reason": "replayed by agreement"})
    assert _item(c)["status"] == "voided"
    sheet = c.get("/api/sheets/T1/S1/1").json()
    assert sheet["hands"][0]["status"] == "voided" and sheet["totals"] == totals
    row = _pdf_row(c, 1)
    assert row.count("void") == 4 and NO_RESULT not in " ".join(row)


def test_wmc_7_8_bad_rulings_are_refused_with_the_reason_and_nothing_is_sent(
    dash: Dash,
) -> None:
    rig = _played(dash)
    c, csrf = dash.login("head_referee")
    a, b, *_ = _item(c)["settle"]["players"]
    ok = {"ruling": "settle", "winner": a, "discarder": b, "value": 8, "reason": "clip"}
    for url, change, status, words in (
        (URL, {"winner": "Nobody"}, 422, "Nobody did not play hand 1"),
        (URL, {"discarder": a}, 422, "cannot win on his own discard"),
        (URL, {"value": None}, 422, "needs its value"),
        (URL, {"winner": None}, 422, "needs the winner"),
        (URL, {"winner": None, "discarder": None, "value": None, "payments": {a: 8}}, 422, "+8"),
        (URL, {"ruling": "void"}, 422, "a void ruling takes no result"),
        (URL, {"reason": "  "}, 422, "needs a reason"),
        (URL.replace("/1/", "/9/"), {}, 404, "hand 9 is not on the record"),
        (URL.replace("/1/", "/2/"), {}, 409, "hand 2 has a result"),
        (URL.replace("/S1/", "/S7/"), {}, 404, "no session S7 of table T1"),
    ):
        body = {k: v for k, v in {**ok, **change}.items() if v is not None}
        r = c.post(url, json=body, headers={"X-CSRF-Token": csrf})
        assert r.status_code == status and words in r.text, (change, r.text)
    assert not any(m.name == "event" for m in rig.commands)  # nothing was sent
    viewer, vcsrf = dash.login("viewer")
    assert viewer.post(URL, json=ok, headers={"X-CSRF-Token": vcsrf}).status_code == 403
