"""The review page in a real headless Chromium: open a finished simulated game, scrub to an
alert, see the still and play its clip (recorded by a real rig clip server, kept by the dashboard
when the alert was decided, served after that server is gone), step through a hand with the keys
and see the board match the log replayed here (rivers, hands, melds, scores), J/K between
hands, space plays, a timeline mark jumps, ZH."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from browser_kit import browser, login, shot  # noqa: F401  (browser: the fixture)
from dashkit import LiveServer, prepare

from dashboard.clips import session_clips
from dashboard.simrig import game
from referee.duties import RefereeTable
from referee.events import Event
from referee.hands import Wind
from referee.tiles import tile_name
from rig.evidence import Budget, Recorder
from rig.evidence.server import EvidenceServer

pytestmark = pytest.mark.slow
TOKEN = "review-evidence-token"


def record_around(rec: Recorder, ts: float) -> None:
    """The rig's camera and microphones around ``ts``: 5 fps of 160x96 frames, 8 kHz sound,
    a still just before it."""
    start = max(0.0, ts - 12.0)
    for i in range(round((ts + 4.0 - start) * 5)):
        rec.record_frame(start + i / 5, np.full((96, 160, 3), (i * 9) % 250, np.uint8))
        rec.record_audio(start + i / 5, np.full(1600, 0.05, np.float32), 8000)
    rec.record_still(ts - 0.5, np.full((90, 120, 3), (40, 110, 70), np.uint8))
    rec.flush()


def expected(events: list[Event], seq: int) -> dict[str, Any]:
    """The table after ``seq`` by the log, replayed here: per seat river, hand, melds; scores."""
    duty = RefereeTable(events[0].table_id, events[0].session_id)
    for ev in events:
        if ev.seq > seq:
            break
        duty.apply(ev)
    st = duty.state
    hand = st.hand
    assert hand is not None
    seats = {}
    for w in Wind:
        me = hand.seats[w]
        seats[w.name] = {
            "river": [tile_name(t) for t in me.river],
            "hand": [tile_name(t) for t in me.concealed],
            "melds": sorted(tile_name(t) for m in me.melds for t in m.tiles),
        }
    return {"seats": seats, "scores": {p: f"{p} {v:+d}" for p, v in duty.totals().items()}}


def shown(page: Any) -> dict[str, Any]:
    """The board the page draws now, read back from its tiles."""
    seats = {}
    for w in "ESWN":
        seat = page.locator(f'.review-board .seat[data-seat="{w}"]')
        seats[w] = {
            "river": _titles(seat, ".river .tile"),
            "hand": _titles(seat, ".hand-tiles .tile"),
            "melds": sorted(t for t in _titles(seat, ".melds .meld:not(.flowers) .tile") if t),
        }
    scores = page.locator(".review-board .scores span").evaluate_all(
        "ss => Object.fromEntries(ss.map(s => [s.dataset.player, s.textContent.trim()]))"
    )
    return {"seats": seats, "scores": scores}


def _titles(seat: Any, selector: str) -> list[str]:
    titles: list[str] = seat.locator(selector).evaluate_all(
        "ts => ts.map(t => t.getAttribute('title'))"
    )
    return titles


def _until(page: Any, predicate: str, timeout: float = 10.0) -> None:
    """Poll a predicate in the page (the page's CSP refuses Playwright's eval-based waits)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(predicate):
        assert time.monotonic() < deadline, f"timed out: {predicate}"
        page.wait_for_timeout(100)


def at(page: Any) -> int:
    return int(page.locator(".review-board").get_attribute("data-seq"))


def wait_at(page: Any, seq: int) -> None:
    page.wait_for_selector(f'.review-board[data-seq="{seq}"]', timeout=5_000)


def test_review_a_finished_game_in_a_real_browser(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    settings = prepare(None, tmp_path / "data").model_copy(update={"evidence_token": TOKEN})
    rec = Recorder(tmp_path / "ring", "S1", Budget())
    server = EvidenceServer(rec, TOKEN, "127.0.0.1", 0).start()
    with LiveServer(settings) as srv:
        events = game("T1", "S1", seed=3, hands=2)
        rig = srv.rig("T1", events)
        rig.status_extra = {"evidence_url": server.url()}
        srv.call(rig.publish_status, "online")
        srv.call(rig.play, 10_000)
        srv.wait(lambda: srv.seq("T1") == len(rig.log) - 1)
        page = login(browser, srv.url, "referee")
        # a referee decides the first proposal: its clips are fetched from the rig and kept
        items = page.request.get(f"{srv.url}/api/alerts?table=T1").json()
        decided = min((a for a in items if a["proposal"]), key=lambda a: a["seq"])
        record_around(rec, decided["ts"])
        csrf = page.request.get(f"{srv.url}/api/session").json()["csrf"]
        answer = page.request.post(
            f"{srv.url}/api/decisions",
            data={"table_id": "T1", "item_id": decided["id"], "verdict": "confirm"},
            headers={"X-CSRF-Token": csrf},
        )
        assert answer.status == 200, answer.text()
        refs = {(c["kind"], c["start"], c["end"]) for c in decided["clips"]}

        def copies() -> int:  # its copies (other alerts' are kept too, as soon as the rig has them)
            return sum(
                (k.kind, k.start, k.end) in refs for k in session_clips(srv.svc.factory, "T1", "S1")
            )

        srv.wait(lambda: copies() == 3)
        srv.wait(lambda: rig.log[-1].type == "penalty_decision")
        srv.wait(lambda: srv.seq("T1") == len(rig.log) - 1)
        server.close()  # the rig's server is gone: what the review shows is the kept copy
        rec.close()
        log = list(rig.log)
        page.goto(f"{srv.url}/review")
        page.locator('tr[data-session="T1/S1"] a').click()
        page.wait_for_selector(".review-board")
        line = page.request.get(f"{srv.url}/api/review/T1/S1").json()
        seqs = [e["seq"] for e in line["events"]]
        assert at(page) == seqs[0]

        # scrub to the decided alert: the board is the one after the event that raised it
        alert = next(a for a in line["alerts"] if a["id"] == decided["id"])
        assert alert["status"] == "confirmed"
        assert any(d["type"] == "penalty_decision" for d in line["decisions"])
        page.locator("#scrub").evaluate(
            "(el, i) => { el.value = String(i); el.dispatchEvent(new Event('input')); }",
            seqs.index(alert["seq"]),
        )
        wait_at(page, alert["seq"])
        assert alert["rule"] in page.locator(".review-board .moment-alerts").inner_text()
        assert shown(page) == expected(log, alert["seq"])
        kept = {c["kind"]: c["url"] for c in decided["clips"]}  # the alert view's own links
        assert page.locator("#still").get_attribute("src") == kept["still"]
        assert page.locator("#clip").get_attribute("src") == kept["video"]
        page.wait_for_selector("#still:not([hidden])")
        _until(page, "() => document.getElementById('still').naturalWidth === 120")
        page.locator('[data-go="clip"]').click()
        _until(page, "() => document.getElementById('clip').currentTime > 0.3")
        assert page.locator("#no-clip").is_hidden()
        shot(page, "review")

        # a hand, step by step with the keys: K back to its start, then → to its last event
        page.locator("body").press("k")
        hand = next(h for h in line["hands"] if h["first"] <= alert["seq"] <= h["last"])
        wait_at(page, hand["first"])
        steps = [s for s in seqs if hand["first"] < s <= hand["last"]]
        for n, seq in enumerate(steps):
            page.keyboard.press("ArrowRight")
            wait_at(page, seq)
            if n % 5 == 0 or seq == steps[-1]:
                assert shown(page) == expected(log, seq), f"the board at #{seq}"
        result = page.locator(".review-board .moment-result").inner_text()
        assert hand["result"]["winner_name"] in result
        for pat in hand["result"]["patterns"]:
            assert pat["id"] in result
        page.keyboard.press("ArrowLeft")
        wait_at(page, steps[-2])

        # J: the next hand's first event; space plays on from there, space again stops
        page.keyboard.press("j")
        second = line["hands"][1]["first"]
        wait_at(page, second)
        page.keyboard.press(" ")
        page.wait_for_selector(f'.review-board:not([data-seq="{second}"])', timeout=5_000)
        assert at(page) > second
        page.keyboard.press(" ")
        page.wait_for_timeout(900)
        stopped = at(page)
        page.wait_for_timeout(900)
        assert at(page) == stopped

        # a mark on the timeline jumps to its event; ZH labels once the language is switched
        page.locator(f'.mark.alert[data-item="{alert["id"]}"]').dispatch_event("click")
        wait_at(page, alert["seq"])
        page.locator("button[data-lang-switch]").click()
        page.wait_for_selector("text=复盘")
        wait_at(page, alert["seq"])  # the page came back at the moment it showed
