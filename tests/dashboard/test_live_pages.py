"""What the live pages are updated from: the Alerts badge is the server's count of open
alerts (in each page and in every live message), an alert tells its hand as the score card
numbers it and when it came (a clock time that survives a restart, the time into its hand),
a table whose rig is offline shows no clock figures, and every part of a live page that
static/live.js replaces in place has a key of its own."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from dashkit import Dash, prepare

from dashboard import views
from dashboard.live import LiveState
from dashboard.simrig import game
from referee.duties import RefereeTable
from referee.scoresheet import build_cards

BADGE = re.compile(r'<span id="alert-count"[^>]*>([^<]*)</span>')


def badge(html: str) -> str:
    found = BADGE.search(html)
    assert found is not None, "no Alerts badge in the page"
    return found.group(1)


def pushed(dash: Dash, queue: asyncio.Queue[str]) -> list[dict[str, Any]]:
    async def drain() -> list[str]:
        out = []
        while not queue.empty():
            out.append(queue.get_nowait())
        return out

    return [json.loads(m) for m in dash.call(drain)]


def test_the_badge_is_the_servers_count_of_open_alerts(dash: Dash) -> None:
    queue = dash.svc.hub.connect()
    rig = dash.rig("T1", game("T1", "S1", seed=3, hands=8))
    dash.call(rig.play, 45)  # three alerts, each proposing a penalty
    dash.wait(lambda: dash.seq("T1") == 44)
    c, csrf = dash.login("referee")
    open_ = c.get("/api/alerts").json()
    assert len(open_) == 3
    for path in ("/", "/alerts", "/sheets", "/standings", "/tables/T1", "/audit"):
        assert badge(c.get(path).text) == "3", path
    alerts = [m for m in pushed(dash, queue) if m["type"] == "alert"]
    assert [m["open_alerts"] for m in alerts] == [1, 2, 3]  # counted when each was pushed

    r = c.post(
        "/api/decisions",
        json={"table_id": "T1", "item_id": open_[0]["id"], "verdict": "confirm"},
        headers={"X-CSRF-Token": csrf},
    )
    assert r.status_code == 200, r.text
    dash.wait(lambda: dash.seq("T1") == 45)
    later: list[dict[str, Any]] = []

    def told(count: int) -> bool:
        later.extend(pushed(dash, queue))
        return any(m.get("open_alerts") == count for m in later)

    dash.wait(lambda: told(2))  # the table's change pushed with the new count
    assert badge(c.get("/alerts").text) == "2"
    assert views.open_total(dash.svc.live) == len(c.get("/api/alerts").json()) == 2


def test_no_open_alert_leaves_the_badge_empty(dash: Dash) -> None:
    c, _ = dash.login("viewer")
    assert badge(c.get("/").text) == ""


def test_an_alert_tells_its_hand_as_the_card_numbers_it() -> None:
    events = game("T1", "S1", seed=3, hands=10)  # two score cards: hands 1-8, then 1-2
    live = LiveState()
    for ev in events:
        live.apply(ev, 1000.0 + ev.ts)
    lt = live.tables["T1"]
    cards = build_cards("T1", "S1", lt.duty.state.results)
    number = {(c.half, r.number): r.hand for c in cards for r in c.rows}
    starts = {}
    duty = RefereeTable("T1", "S1")
    for ev in events:  # each hand begins with its wall (WMC-3.2)
        if ev.type == "wall_built":
            starts[duty.state.hands_played] = ev.ts
        duty.apply(ev)
    seen = set()
    for item in lt.items:
        v = views.alert_view(lt, item)
        assert number[(v["half"], v["hand_number"])] == v["hand"]
        assert v["at"] == 1000.0 + v["ts"]
        if v["hand"] in starts and v["ts"] >= starts[v["hand"]]:
            assert v["into_hand"] == round(v["ts"] - starts[v["hand"]], 3)
        seen.add(v["half"])
    assert seen == {1, 2}


@pytest.mark.slow  # two dashboards, one after the other
def test_an_alerts_clock_time_is_when_it_came_and_survives_a_restart(tmp_path: Path) -> None:
    settings = prepare(None, tmp_path / "data")
    with Dash(settings) as d:
        rig = d.rig("T1", game("T1", "S1", seed=3, hands=2))
        before = time.time()
        d.call(rig.play, 45)
        d.wait(lambda: d.seq("T1") == 44)
        after = time.time()
        c, _ = d.login("viewer")
        shown = c.get("/api/alerts").json()
        assert all(before - 1 <= a["at"] <= after + 1 for a in shown), shown
        page = c.get("/alerts").text
        for a in shown:
            assert time.strftime("%H:%M:%S", time.localtime(a["at"])) in page
        d.call(rig.stop)
        d.rigs.remove(rig)
    with Dash(settings) as again:
        c, _ = again.login("viewer")
        replayed = {a["id"]: a["at"] for a in c.get("/api/alerts").json()}
        # stored with the event when written, a moment after it was applied
        assert all(abs(replayed[a["id"]] - a["at"]) < 1.0 for a in shown)


def test_a_table_whose_rig_is_offline_shows_no_clock_figures(dash: Dash) -> None:
    rig = dash.rig("T1", game("T1", "S1", seed=3, hands=2))
    dash.call(rig.play, 10)  # a turn is running
    dash.wait(lambda: dash.seq("T1") == 9)
    c, _ = dash.login("viewer")
    assert c.get("/api/tables").json()[0]["clocks_state"] == "live"
    assert "unavailable" not in c.get("/tables/T1").text
    dash.call(rig.stop)
    dash.wait(lambda: dash.svc.live.presence["T1"].state == "offline")
    assert c.get("/api/tables").json()[0]["clocks_state"] == "unavailable"
    for path in ("/", "/tables/T1"):
        clocks = re.search(r'<div class="clocks"[^>]*>(.*?)</div>', c.get(path).text)
        assert clocks is not None, path
        text = re.sub(r"<[^>]+>", " ", clocks.group(1))
        assert text.count("unavailable") == 4, text
        assert not re.search(r"\d+s|\d+:\d\d", text), text


def test_every_part_of_a_live_page_has_a_key_of_its_own(dash: Dash) -> None:
    rig = dash.rig("T1", game("T1", "S1", seed=3, hands=2))
    dash.call(rig.play, 10_000)
    dash.wait(lambda: dash.seq("T1") == len(rig.log) - 1)
    c, _ = dash.login("head_referee")
    pages = [
        "/",
        "/alerts",
        "/alerts?status=all",
        "/tables/T1",
        "/sheets",
        "/sheets/T1/S1/1",
        "/standings",
    ]
    for path in pages:
        r = c.get(path)
        assert r.status_code == 200, (path, r.text)
        keys = Counter(re.findall(r'data-key="([^"]*)"', r.text))
        assert keys["main"] == 1 and keys["alert-count"] == 1, path
        twice = [k for k, n in keys.items() if n > 1]
        assert not twice, (path, twice)
