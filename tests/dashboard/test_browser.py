"""The dashboard in a real headless Chromium (Playwright + Debian's chromium): log in, an alert
arrives live from a simulated table, its evidence opens, a confirmed penalty changes the score
sheet and the standings, a dismissal with a reason is in the audit, a viewer cannot act; a
referee corrects a score on the sheet.
``MJREF_SCREENSHOTS=DIR`` also saves a screenshot of each main view there (docs/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_kit import browser, login, shot  # noqa: F401  (browser: the fixture)
from dashkit import LiveServer, prepare

from dashboard.simrig import game

pytestmark = pytest.mark.slow


def test_referee_flow_in_a_real_browser(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    settings = prepare(None, tmp_path / "data")
    with LiveServer(settings) as srv:
        t1 = srv.rig("T1", game("T1", "S1", seed=3, hands=8))
        page = login(browser, srv.url, "referee")
        page.goto(f"{srv.url}/alerts")
        page.wait_for_selector("#live.up")
        assert page.locator("article.alert").count() == 0
        srv.call(
            t1.play_until,
            lambda ev: bool(srv.svc.live.tables.get("T1") and srv.svc.live.tables["T1"].items),
        )
        page.wait_for_selector("article.alert", timeout=10_000)  # pushed, not reloaded by us
        first = page.locator("article.alert").first
        first.locator("details.evidence summary").click()
        page.wait_for_selector("article.alert details.evidence .ev-list li")
        assert "#" in first.locator(".ev-list li").first.inner_text()

        srv.call(t1.play, 10_000)  # the rest of the session: 8 hands on the card
        srv.wait(lambda: srv.seq("T1") == len(t1.log) - 1)
        for table, seed in (("T2", 4), ("T3", 5)):
            rig = srv.rig(table, game(table, "S1", seed=seed, hands=2))
            srv.call(rig.play, 150)
        srv.call(srv.rigs[-1].stop)  # T3's rig goes offline
        srv.wait(
            lambda: (
                srv.svc.live.presence.get("T3") is not None
                and srv.svc.live.presence["T3"].state == "offline"
            )
        )

        items = page.request.get(f"{srv.url}/api/alerts?table=T1").json()
        points = [a for a in items if a["proposal"] and a["proposal"]["points"] > 0]
        others = [a for a in items if a["proposal"] and a not in points[:1]]
        assert points and others, "the simulated session proposed no point penalty"
        target, other = points[0], others[0]
        player = target["player"]
        half = target["hand"] // 8 + 1
        card = page.request.get(f"{srv.url}/api/sheets/T1/S1/{half}").json()
        standing = {
            x["name"]: x["score"]
            for x in page.request.get(f"{srv.url}/api/standings").json()["players"]
        }

        page.goto(f"{srv.url}/alerts")
        shot(page, "alerts")
        page.locator(f'[data-item="{target["id"]}"] button[data-decide="confirm"]').click()
        srv.wait(lambda: t1.log[-1].type == "penalty_decision")
        # decided, it leaves the open queue when the table's event comes back (live), once the
        # pointer has left it: the next alert never slides under a resting pointer
        page.hover("strong.brand")
        page.wait_for_selector(f'[data-item="{target["id"]}"]', state="detached")
        page.locator(f'[data-item="{other["id"]}"] input[name="reason"]').fill(
            "not seen by the floor referee"
        )
        page.locator(f'[data-item="{other["id"]}"] button[data-decide="dismiss"]').click()
        srv.wait(
            lambda: (
                t1.log[-1].type == "penalty_decision" and t1.log[-1].payload.verdict == "dismiss"
            )
        )  # type: ignore[union-attr]
        srv.wait(lambda: srv.seq("T1") == len(t1.log) - 1)

        page.goto(f"{srv.url}/sheets/T1/S1/{half}")
        after = page.request.get(f"{srv.url}/api/sheets/T1/S1/{half}").json()
        loss = target["proposal"]["points"]
        assert after["totals"][player] == card["totals"][player] - loss
        assert f"{after['totals'][player]:+d}" in page.locator("tr.total").inner_text()
        shot(page, "sheet")
        page.goto(f"{srv.url}/standings")
        row = page.locator(f'tr[data-name="{player}"] td.score')
        assert int(row.inner_text()) == standing[player] - loss
        shot(page, "standings")

        head = login(browser, srv.url, "head_referee")
        head.goto(f"{srv.url}/audit")
        assert "not seen by the floor referee" in head.locator("table.audit").inner_text()
        shot(head, "audit")
        head.goto(f"{srv.url}/")
        head.wait_for_selector(".card")
        assert "offline since" in head.locator('.card[data-table="T3"]').inner_text()
        shot(head, "overview")
        head.goto(f"{srv.url}/tables/T2")
        head.wait_for_selector(".seat .tile")
        shot(head, "table")

        viewer = login(browser, srv.url, "viewer")
        viewer.goto(f"{srv.url}/alerts?status=all")
        viewer.wait_for_selector("article.alert")
        assert viewer.locator("button[data-decide]").count() == 0
        csrf = viewer.request.get(f"{srv.url}/api/session").json()["csrf"]
        refused = viewer.request.post(
            f"{srv.url}/api/decisions/acknowledge",
            data={"items": [["T1", other["id"]]]},
            headers={"X-CSRF-Token": csrf},
        )
        assert refused.status == 403 and "viewer may not" in refused.text()


def test_a_referee_corrects_a_score_in_the_browser(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    with LiveServer(prepare(None, tmp_path / "data")) as srv:
        rig = srv.rig("T1", game("T1", "S1", seed=3, hands=2))
        srv.call(rig.play, 10_000)
        srv.wait(lambda: srv.seq("T1") == len(rig.log) - 1)
        page = login(browser, srv.url, "referee")
        page.goto(f"{srv.url}/sheets/T1/S1/1")
        page.wait_for_selector("#live.up")
        before = page.request.get(f"{srv.url}/api/sheets/T1/S1/1").json()
        player = before["players"][1]
        form = page.locator("form[data-correct]")
        form.locator('select[name="number"]').select_option("2")
        form.locator('select[name="player"]').select_option(player)
        form.locator('input[name="points"]').fill("-6")
        form.locator('input[name="reason"]').fill("paid the wrong seat")
        form.locator('button[type="submit"]').click()
        line = page.locator("ul.corrections li")
        line.wait_for(timeout=10_000)  # the table logged it; the page reloaded live
        assert line.inner_text() == f"hand 2: {player} -6 — paid the wrong seat (referee referee)"
        after = page.request.get(f"{srv.url}/api/sheets/T1/S1/1").json()
        assert after["totals"][player] == before["totals"][player] - 6
