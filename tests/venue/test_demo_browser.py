"""The demo's dashboard in a real headless Chromium: the demo login works, the unspoken claim
of the table's first hand (heard, or rather not heard, through the table audio) arrives as an
alert with a penalty proposal and its audio clip (recorded by the table's rig, served to the
dashboard), and a referee's confirmation is logged by the table's rig."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from browser_kit import browser  # noqa: F401  (the one Chromium fixture)
from demokit import Demo

from referee.store import EventStore

pytestmark = pytest.mark.slow


def _decisions(log: Path) -> list[Any]:
    if not log.exists():
        return []
    with EventStore(log) as store:
        return [e for e in store.events("T1", "S1") if e.type == "penalty_decision"]


def test_a_referee_confirms_a_penalty_on_the_demo_dashboard(
    browser: Any,  # noqa: F811  (the fixture)
    demo_cache: Path,
    tmp_path: Path,
) -> None:
    demo = Demo(demo_cache, tmp_path, "--tables", "1", "--hands", "1")
    try:
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        page.goto(f"{demo.url}/login")
        page.fill('input[name="name"]', "demo")
        page.fill('input[name="password"]', demo.password)
        page.click('button[type="submit"]')
        page.wait_for_url(f"{demo.url}/")
        page.goto(f"{demo.url}/alerts")
        confirm = 'article.alert button[data-decide="confirm"]'
        page.wait_for_selector(confirm, timeout=240_000)  # pushed live as the hand is played
        item = page.locator(confirm).first.locator("xpath=ancestor::article").first
        rule = item.inner_text()
        clip = item.locator("audio").first.get_attribute("src")  # the unspoken claim's clip
        assert clip, item.inner_html()
        deadline = time.monotonic() + 60  # served once the rig's 10 s segment has closed
        while (answer := page.request.get(f"{demo.url}{clip}")).status != 200:
            assert time.monotonic() < deadline, (answer.status, answer.text()[:300])
            time.sleep(1.0)  # waiting on the rig's recorder
        assert answer.headers["content-type"].startswith("audio/") and len(answer.body()) > 1000
        page.locator(confirm).first.click()
        deadline = time.monotonic() + 30
        while not _decisions(tmp_path / "T1.sqlite"):
            assert time.monotonic() < deadline, "the rig did not log the decision"
            time.sleep(0.2)  # waiting on the dashboard → bus → rig → log round trip
        decision = _decisions(tmp_path / "T1.sqlite")[0]
        assert decision.source == "referee" and decision.payload.verdict == "confirm"
        assert "WMC-" in rule
    finally:
        code, err = demo.stop()
    assert code == 0 and "Traceback" not in err, err
