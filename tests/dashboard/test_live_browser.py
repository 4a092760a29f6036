"""Live pages in a real headless Chromium while a table keeps playing: what the referee holds
stays as he left it (a form's dropdowns and typed text, the button he is about to click, the
row a form belongs to), the Alerts badge counts the open alerts (from the server), an alert
shows its clock time, its time into the hand and its hand, and a stopped table's clocks read
unavailable instead of stale figures."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from browser_kit import browser, login  # noqa: F401  (browser: the fixture)
from dashkit import LiveServer, prepare

from dashboard.simrig import game
from referee.duties import RefereeTable
from referee.events import Event, PenaltyDecision, ScoreCorrected

pytestmark = pytest.mark.slow
BADGE = "#alert-count"


def scored_after(events: list[Event], hands: int) -> int:
    """How many of ``events`` to play for ``hands`` hands to be scored."""
    duty = RefereeTable(events[0].table_id, events[0].session_id)
    for n, ev in enumerate(events, start=1):
        duty.apply(ev)
        if duty.state.hands_played >= hands:
            return n
    raise AssertionError(f"the game has fewer than {hands} hands")


def open_alerts(page: Any, url: str) -> list[dict[str, Any]]:
    return list(page.request.get(f"{url}/api/alerts").json())


def until(page: Any, condition: str) -> None:
    """Wait until a JavaScript condition holds in the page (as a function: the page's CSP
    allows no eval)."""
    page.wait_for_function(f"() => {condition}")


def badge_reads(page: Any, count: int) -> None:
    until(page, f"document.querySelector('{BADGE}').textContent == '{count}'")


def look_away(page: Any) -> None:
    """The referee leaves the form: nothing has the focus, the pointer rests on no control."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.hover("strong.brand")


def test_a_correction_keeps_its_choices_while_hands_are_scored(
    browser: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    with LiveServer(prepare(None, tmp_path / "data")) as srv:
        script = game("T1", "S1", seed=3, hands=4)
        two, three = scored_after(script, 2), scored_after(script, 3)
        rig = srv.rig("T1", script)
        srv.call(rig.play, two)
        srv.wait(lambda: srv.seq("T1") == two - 1)
        page = login(browser, srv.url, "referee")
        page.goto(f"{srv.url}/sheets/T1/S1/1")
        page.wait_for_selector("#live.up")
        players = page.request.get(f"{srv.url}/api/sheets/T1/S1/1").json()["players"]
        form = page.locator("form[data-correct]")
        form.locator('select[name="number"]').select_option("2")
        form.locator('select[name="player"]').select_option(players[1])
        form.locator('input[name="points"]').fill("-6")
        form.locator('input[name="reason"]').fill("paid the wrong seat")
        look_away(page)
        send = form.locator('button[type="submit"]').element_handle()

        srv.call(rig.play, three - two)  # a third hand is played and scored meanwhile
        srv.wait(lambda: srv.seq("T1") == three - 1)
        until(page, "document.querySelectorAll('table.sheet tbody tr').length >= 5")
        assert form.locator('select[name="number"]').input_value() == "2"
        assert form.locator('select[name="player"]').input_value() == players[1]
        assert form.locator('input[name="points"]').input_value() == "-6"
        assert form.locator('input[name="reason"]').input_value() == "paid the wrong seat"
        assert send.evaluate("b => b.isConnected"), "the form was replaced under the referee"

        send.click()
        srv.wait(lambda: rig.log[-1].type == "score_corrected")
        sent = rig.log[-1].payload
        assert isinstance(sent, ScoreCorrected)
        assert (sent.hand, sent.player, sent.points) == (1, players[1], -6)
        # sent, the form is empty again and so takes the page's news: the third hand
        until(
            page, "document.querySelectorAll('form[data-correct] [name=number] option').length == 3"
        )
        page.locator("ul.corrections li").wait_for(timeout=10_000)


def test_alerts_keep_what_the_referee_holds_and_the_badge_counts_open_ones(
    browser: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    with LiveServer(prepare(None, tmp_path / "data")) as srv:
        script = game("T1", "S1", seed=3, hands=8)
        rig = srv.rig("T1", script)
        srv.call(rig.play, 45)  # hand 1: three alerts, each with a proposal
        srv.wait(lambda: srv.seq("T1") == 44)
        page = login(browser, srv.url, "referee")
        page.goto(f"{srv.url}/alerts")
        page.wait_for_selector("#live.up")
        assert page.locator("article.alert").count() == len(open_alerts(page, srv.url)) == 3
        assert page.locator(BADGE).inner_text() == "3"  # after a page load

        target = open_alerts(page, srv.url)[1]
        card = page.locator(f'article.alert[data-item="{target["id"]}"]')
        card.locator('input[name="reason"]').fill("not seen by the floor referee")
        look_away(page)
        dismiss = card.locator('button[data-decide="dismiss"]').element_handle()
        kept = page.locator("article.alert").first.element_handle()

        srv.call(rig.play, 230 - 45)  # hands 2 and 3 begin: more alerts, a busy table
        srv.wait(lambda: srv.seq("T1") == 229)
        n = len(open_alerts(page, srv.url))
        assert n > 3
        until(page, f"document.querySelectorAll('article.alert').length == {n}")
        badge_reads(page, n)
        assert kept.evaluate("e => e.isConnected"), "an unchanged alert was rebuilt"
        assert dismiss.evaluate("b => b.isConnected"), "the button was replaced under the referee"
        assert card.locator('input[name="reason"]').input_value() == "not seen by the floor referee"

        dismiss.click()
        srv.wait(lambda: isinstance(rig.log[-1].payload, PenaltyDecision))
        decision = rig.log[-1].payload
        assert isinstance(decision, PenaltyDecision)
        assert (decision.proposal, decision.verdict) == (target["id"], "dismiss")
        assert decision.reason == "not seen by the floor referee"
        srv.wait(lambda: srv.seq("T1") == len(rig.log) - 1)
        look_away(page)
        card.wait_for(state="detached")
        left = len(open_alerts(page, srv.url))
        assert left == n - 1
        badge_reads(page, left)

        other = open_alerts(page, srv.url)[0]
        page.locator(f'[data-item="{other["id"]}"] button[data-decide="confirm"]').click()
        srv.wait(lambda: rig.log[-1].type == "penalty_decision")
        srv.wait(lambda: srv.seq("T1") == len(rig.log) - 1)
        badge_reads(page, left - 1)
        page.goto(f"{srv.url}/sheets")  # another page: the same count
        assert len(open_alerts(page, srv.url)) == left - 1
        assert page.locator(BADGE).inner_text() == str(left - 1)


def test_an_alert_shows_its_clock_time_and_its_hand(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    with LiveServer(prepare(None, tmp_path / "data")) as srv:
        script = game("T1", "S1", seed=3, hands=8)
        rig = srv.rig("T1", script)
        srv.call(rig.play, 120)
        srv.wait(lambda: srv.seq("T1") == 119)
        before = time.time()
        srv.call(rig.play, 130 - 120)  # seq 125: WMC-9.1 in the session's second hand
        srv.wait(lambda: srv.seq("T1") == 129)
        after = time.time()
        page = login(browser, srv.url, "referee")
        page.goto(f"{srv.url}/alerts")
        item = next(a for a in open_alerts(page, srv.url) if a["seq"] == 125)
        assert item["hand"] == 1
        start = next(e.ts for e in rig.log if e.type == "wall_built" and e.seq > 53)
        into = item["ts"] - start
        text = page.locator(f'article.alert[data-item="{item["id"]}"] header').inner_text()
        assert "hand 2" in text
        assert f"{int(into // 60)}:{int(into % 60):02d} into the hand" in text
        shown = re.search(r"\b(\d\d):(\d\d):(\d\d)\b", text)
        assert shown is not None, text
        came = range(int(before), int(after) + 1)  # when the table logged it, to the second
        clock = {time.strftime("%H:%M:%S", time.localtime(t)) for t in came}
        assert shown.group(0) in clock, (shown.group(0), clock)
        assert "#125" in text


def test_a_stopped_table_shows_its_clocks_unavailable(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    with LiveServer(prepare(None, tmp_path / "data")) as srv:
        rig = srv.rig("T1", game("T1", "S1", seed=3, hands=2))
        srv.call(rig.play, 10)  # a turn is running
        srv.wait(lambda: srv.seq("T1") == 9)
        page = login(browser, srv.url, "referee")
        page.goto(f"{srv.url}/tables/T1")
        page.wait_for_selector("#live.up")
        assert "turn" in page.locator(".clocks").inner_text()
        srv.call(rig.stop)  # the rig goes offline
        srv.wait(lambda: srv.svc.live.presence["T1"].state == "offline")
        until(page, "document.querySelector('.clocks').innerText.includes('unavailable')")
        clocks = page.locator(".clocks").inner_text()
        assert not re.search(r"\d+s|\d+:\d\d", clocks), clocks  # no stale figures
        page.goto(f"{srv.url}/")
        card = page.locator('.card[data-table="T1"] .clocks').inner_text()
        assert "unavailable" in card and not re.search(r"\d+s|\d+:\d\d", card), card
