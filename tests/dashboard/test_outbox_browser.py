"""In a real headless Chromium: a referee confirms a penalty while the table's rig is down; the
alert shows "waiting for the table" (the toast says so too, not "Sent to the table"), and once
the rig is back and has logged the decision, the same alert shows it applied and confirmed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_kit import browser, login  # noqa: F401  (browser: the fixture)
from dashkit import LiveServer, prepare

from dashboard.simrig import game

pytestmark = pytest.mark.slow


def test_a_decision_sent_while_the_rig_is_down_waits_then_is_applied(
    browser: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    with LiveServer(prepare(None, tmp_path / "data")) as srv:
        rig = srv.rig("T1", game("T1", "S1", seed=6, hands=1, rate=0.1))
        srv.call(rig.play, 30)
        srv.wait(lambda: srv.seq("T1") == len(rig.log) - 1)
        srv.call(rig.stop)  # the rig goes down
        srv.wait(lambda: srv.svc.live.presence["T1"].state == "offline")
        page = login(browser, srv.url, "referee")
        items = page.request.get(f"{srv.url}/api/alerts?table=T1").json()
        target = next(a for a in items if a["proposal"])
        card = f'[data-item="{target["id"]}"]'

        page.goto(f"{srv.url}/tables/T1")
        page.wait_for_selector("#live.up")
        page.locator(f'{card} button[data-decide="confirm"]').click()
        toast = page.locator("#toast")
        toast.wait_for(state="visible")
        assert toast.inner_text() == "waiting for the table"
        waiting = page.locator(f"{card} .command.st-queued")
        waiting.wait_for(timeout=10_000)  # the page follows the outbox live
        assert waiting.inner_text() == "waiting for the table"
        assert page.locator(f'{card} button[data-decide="confirm"]').count() == 0
        assert page.locator(f"{card} .status").inner_text() == "open"  # not decided yet
        assert rig.log[-1].type != "penalty_decision"  # nothing reached the table

        srv.call(rig.start)  # back: it takes its queue
        applied = page.locator(f"{card} .command.st-applied")
        applied.wait_for(timeout=15_000)
        assert applied.inner_text() == "applied"
        assert "confirmed" in page.locator(f"{card} .status").inner_text()
        assert [e.type for e in rig.log].count("penalty_decision") == 1
        box = page.locator("section.commands")
        assert "penalty_decision" in box.inner_text() and "applied" in box.inner_text()
