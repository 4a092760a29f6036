"""A referee corrects a hand's points on the score card (WMC-8.1): a ``score_corrected`` event
sent to the table like a penalty decision; the card shows it, with the referee's name, only
once the table has logged it."""

from __future__ import annotations

import pytest
from dashkit import Dash

from dashboard.db.models import AuditEntry
from dashboard.simrig import game

URL = "/api/sheets/T1/S1/1/corrections"


def _played(dash: Dash) -> str:
    rig = dash.rig("T1", game("T1", "S1", seed=3, hands=3))
    dash.call(rig.play, 10_000)
    dash.wait(lambda: dash.seq("T1") == len(rig.log) - 1, 30)
    return str(dash.svc.live.tables["T1"].duty.cards()[0].players[0])


@pytest.mark.slow
def test_a_referee_corrects_a_hand_from_the_sheet(dash: Dash) -> None:
    player = _played(dash)
    c, csrf = dash.login("referee")
    h = {"X-CSRF-Token": csrf}
    page = c.get("/sheets/T1/S1/1").text
    assert f'data-correct="{URL}"' in page and "Correct a score" in page
    before = c.get("/api/sheets/T1/S1/1").json()
    body = {"number": 2, "player": player, "points": 8, "reason": "flower not counted"}
    r = c.post(URL, json=body, headers=h)
    assert r.status_code == 200, r.text
    sent = r.json()["sent"]
    assert sent["type"] == "score_corrected"
    assert sent["state"] in ("delivered", "applied")  # the rig is online: sent at once
    assert sent["payload"] == {
        "hand": before["hands"][1]["hand"],
        "player": player,
        "points": 8,
        "reason": "flower not counted",
        "referee": "referee",
    }
    dash.wait(lambda: bool(c.get("/api/sheets/T1/S1/1").json()["corrections"]))
    after = c.get("/api/sheets/T1/S1/1").json()
    assert after["corrections"][0]["referee"] == "referee"
    assert after["totals"][player] == before["totals"][player] + 8
    assert after["hands"][1]["totals"][player] == before["hands"][1]["totals"][player] + 8
    rig_log = dash.rigs[0].log
    assert rig_log[-1].type == "score_corrected" and rig_log[-1].source == "referee"
    page = c.get("/sheets/T1/S1/1").text
    assert f"{player} +8 — flower not counted (referee referee)" in page
    c.put("/api/session/lang", json={"lang": "zh"}, headers=h)
    page = c.get("/sheets/T1/S1/1").text
    assert "更正得分" in page and f"{player} +8 — flower not counted (裁判 referee)" in page
    with dash.svc.factory() as db:
        audit = db.query(AuditEntry).filter_by(action="score_correction").one()
    assert audit.actor == "referee" and audit.reason == "flower not counted"


@pytest.mark.slow
def test_a_correction_needs_a_reason_a_player_of_the_hand_and_a_hand_on_the_card(
    dash: Dash,
) -> None:
    player = _played(dash)
    c, csrf = dash.login("head_referee")
    h = {"X-CSRF-Token": csrf}
    ok = {"number": 1, "player": player, "points": -4, "reason": "wrong payer"}
    for change, status, words in (
        ({"reason": "  "}, 422, "needs a reason"),
        ({"player": "Nobody"}, 422, "did not play hand 1"),
        ({"points": 0}, 422, "changes nothing"),
        ({"number": 8}, 404, "hand 8 is not on this card"),
        ({"number": 9}, 422, "less than or equal to 8"),
    ):
        r = c.post(URL, json={**ok, **change}, headers=h)
        assert r.status_code == status and words in r.text, (change, r.text)
    assert c.post("/api/sheets/T1/S1/2/corrections", json=ok, headers=h).status_code == 404
    assert not any(m.name == "event" for m in dash.rigs[0].commands)  # nothing was sent
    viewer, vcsrf = dash.login("viewer")
    assert "data-correct" not in viewer.get("/sheets/T1/S1/1").text
    r = viewer.post(URL, json=ok, headers={"X-CSRF-Token": vcsrf})
    assert r.status_code == 403
