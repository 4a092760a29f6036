"""A tournament round in a real headless Chromium (#35): the head referee starts it from the
tournament page, each simulated rig is told its players; a player's page (name + PIN) shows
their own table only while the round is in play, and every table once it has ended; the staff's
pages stay closed to players; the hall's display and the printable seating list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_kit import browser, login, shot  # noqa: F401  (browser: the fixture)
from dashkit import LiveServer, prepare
from tournament_kit import NAME, create, play_round, rig

pytestmark = pytest.mark.slow


def _player_page(browser: Any, url: str, name: str, pin: str) -> Any:  # noqa: F811
    page = browser.new_context(viewport={"width": 1000, "height": 800}).new_page()
    page.goto(f"{url}/player")
    page.fill('input[name="name"]', name)
    page.fill('input[name="pin"]', pin)
    page.click('button[type="submit"]')
    return page


def test_a_player_sees_only_their_own_table_until_the_round_ends(
    browser: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    settings = prepare(None, data)
    pins = create(None, data, rounds=2)
    with LiveServer(settings) as srv:
        rigs = [rig(srv, t) for t in ("T1", "T2", "T3", "T4")]
        head = login(browser, srv.url, "head_referee")
        head.goto(f"{srv.url}/tournament")
        head.click('button[value="start"]')
        play_round(srv, rigs, "R1")
        seating = head.request.get(f"{srv.url}/api/tournament").json()["rounds"][0]["tables"]
        mine = seating[1]  # a player of table 2
        player = mine["seats"]["S"]

        wrong = _player_page(browser, srv.url, player, "not the pin")
        assert "wrong name or PIN" in wrong.inner_text(".error")
        page = _player_page(browser, srv.url, player, pins[player])
        page.wait_for_url(f"{srv.url}/player")
        round1 = page.locator('section[data-round="1"]')
        assert round1.locator("tr[data-table]").count() == 1  # their table, no other
        row = round1.locator('tr[data-table="2"]').inner_text()
        assert all(p in row for p in mine["seats"].values())
        others = {p for t in seating if t["table"] != 2 for p in t["seats"].values()}
        assert not any(p in round1.inner_text() for p in others)
        shot(page, "player")
        # the staff's pages and the API are not the player's
        page.goto(f"{srv.url}/tables/T1")
        assert page.url.startswith(f"{srv.url}/login")
        assert page.request.get(f"{srv.url}/api/tournament").status == 401

        head.goto(f"{srv.url}/tournament")
        head.click('section[data-round="1"] button[value="end"]')
        srv.wait(lambda: _ended(srv))
        page.goto(f"{srv.url}/player")
        round1 = page.locator('section[data-round="1"]')
        assert round1.locator("tr[data-table]").count() == 4  # the round is over: every table
        assert all(p in round1.inner_text() for p in others)

        hall = browser.new_context().new_page()  # no login: the hall's screen
        hall.goto(f"{srv.url}/hall")
        assert NAME in hall.inner_text("h1") and "Standings after round 1" in hall.inner_text(
            "body"
        )
        assert hall.locator("table.standings tbody tr").count() == 16
        printed = head.request.get(f"{srv.url}/tournament/rounds/2/seating").text()
        assert printed.count("<tr><td>P") == 16  # by name (after the four tables)
        assert all(f"<tr><td>{t} <small>T{t}</small>" in printed for t in range(1, 5))
        shot(head, "tournament")


def _ended(srv: Any) -> bool:
    from dashboard.tournament.store import load

    day = load(srv.svc.factory)
    return day is not None and day.rounds[1].status == "ended"
