"""In a real headless Chromium: a referee settles a hand without a result from its WMC-7.8 item
in the alert queue (the form on the item, a reason), and the score card shows the result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_kit import browser, login  # noqa: F401  (browser: the fixture)
from dashkit import LiveServer, prepare
from duty_kit import first_end_lost

from dashboard.simrig import game

pytestmark = pytest.mark.slow


def test_wmc_7_8_a_referee_settles_a_hand_from_the_queue(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    with LiveServer(prepare(None, tmp_path / "data")) as srv:
        rig = srv.rig("T1", first_end_lost(game("T1", "S1", seed=3, hands=2, rate=0.0)))
        srv.call(rig.play, 10_000)
        srv.wait(lambda: srv.seq("T1") == len(rig.log) - 1)
        page = login(browser, srv.url, "referee")
        page.goto(f"{srv.url}/alerts")
        page.wait_for_selector("#live.up")
        form = page.locator('[data-item="hand:S1:0"] form.settle')
        players = form.locator('select[name="winner"] option').all_inner_texts()[1:]
        form.locator('select[name="winner"]').select_option(players[2])
        form.locator('input[name="value"]').fill("8")  # self-drawn: the discarder left empty
        form.locator('input[name="reason"]').fill("the camera clip shows the self-draw")
        form.locator('button[value="settle"]').click()
        srv.wait(lambda: rig.log[-1].type == "hand_ruled" and srv.seq("T1") == len(rig.log) - 1)
        page.goto(f"{srv.url}/sheets/T1/S1/1")
        first = page.locator("table.sheet tbody tr").first
        assert players[2] in first.inner_text() and "+24" in first.inner_text()
        assert "self-drawn" in first.inner_text() and "no result" not in first.inner_text()
        hand = page.request.get(f"{srv.url}/api/sheets/T1/S1/1").json()["hands"][0]
        assert hand["status"] == "settled" and hand["ruling"]["referee"] == "referee"
