"""The review API: the sessions, a session's timeline (hands with results, alert marks), the
table at any event replayed from the log, the clip URLs of a moment (cited or around it)."""

from __future__ import annotations

import pytest
from dashkit import Dash

from dashboard.live import LiveTable
from dashboard.review import clip_urls
from dashboard.simrig import game
from referee.duties import RefereeTable
from referee.events import Event
from referee.tiles import tile_name


def _played(dash: Dash) -> list[Event]:
    events = game("T1", "S1", seed=3, hands=2)
    rig = dash.rig("T1", events)
    dash.call(rig.play, 10_000)
    dash.wait(lambda: dash.seq("T1") == len(rig.log) - 1)
    return list(rig.log)


@pytest.mark.slow
def test_timeline_and_state_follow_the_log(dash: Dash) -> None:
    log = _played(dash)
    viewer, _ = dash.login("viewer")
    listed = viewer.get("/api/review").json()
    assert [(s["table_id"], s["session_id"], s["hands"]) for s in listed] == [("T1", "S1", 2)]
    line = viewer.get("/api/review/T1/S1").json()
    duty = RefereeTable("T1", "S1")
    duty.apply_all(log)
    results = [r.to_dict() for r in duty.state.results]
    assert [h["result"] for h in line["hands"]] == results
    starts = [e.seq for e in log if e.type == "wall_built"]
    assert [h["first"] for h in line["hands"]] == starts
    assert line["hands"][0]["last"] == starts[1] - 1
    assert {a["seq"] for a in line["alerts"]} <= {e["seq"] for e in line["events"]}
    assert all(e["type"] != "observation" for e in line["events"])

    for hand, result in zip(line["hands"], results, strict=True):
        state = viewer.get(f"/api/review/T1/S1/state?seq={hand['last']}").json()
        assert state["result"] == result  # the hand ends at its last event
        replayed = RefereeTable("T1", "S1")
        replayed.apply_all(e for e in log if e.seq <= hand["last"])
        assert state["scores"] == replayed.totals()
    middle = line["events"][len(line["events"]) // 3]["seq"]
    state = viewer.get(f"/api/review/T1/S1/state?seq={middle}").json()
    replayed = RefereeTable("T1", "S1")
    replayed.apply_all(e for e in log if e.seq <= middle)
    hand = replayed.state.hand
    assert hand is not None and state["seq"] == middle
    for seat in state["seats"]:
        me = hand.seats[["E", "S", "W", "N"].index(seat["seat"])]
        assert seat["hand"] == [tile_name(t) for t in me.concealed]
        assert [x["name"] for row in seat["rows"] for x in row] == [tile_name(t) for t in me.river]
    assert sum(state["wall"]["sides"][0]) + sum(map(sum, state["wall"]["sides"][1:])) == (
        hand.wall.remaining
    )

    assert viewer.get("/api/review/T1/S9").status_code == 404
    assert viewer.get("/api/review/T1/S1/state?seq=-1").status_code == 422
    page = viewer.get(f"/review/T1/S1?seq={middle}")
    assert page.status_code == 200 and f'data-seq="{middle}"' in page.text
    board = viewer.get(f"/review/T1/S1/board?seq={middle}")
    assert board.status_code == 200 and 'class="review-board"' in board.text
    anonymous = dash.client.get("/api/review/T1/S1")  # the app's own client: not logged in
    assert anonymous.status_code == 401


def test_clip_urls_use_the_cited_recording_else_the_window_an_alert_gets() -> None:
    cited = Event.model_validate(
        {
            "table_id": "T1",
            "session_id": "S1",
            "seq": 7,
            "ts": 100.0,
            "source": "vision",
            "type": "discard",
            "payload": {"seat": "E", "tile": "5p"},
            "evidence": ["seq:6", "video:95.50-101.25", "still:99.80"],
        }
    )
    table = LiveTable("T1", "S1", RefereeTable("T1", "S1"))
    urls = clip_urls(table, cited)
    assert urls["video"] == "/api/tables/T1/clips/video?session=S1&start=95.50&end=101.25"
    assert urls["still"] == "/api/tables/T1/clips/still?session=S1&t=99.80"
    assert urls["audio"] == "/api/tables/T1/clips/audio?session=S1&start=90.00&end=102.00"
    early = cited.model_copy(update={"ts": 2.0, "evidence": ()})
    assert "start=0.00&end=4.00" in clip_urls(table, early)["video"]
    assert clip_urls(table, early)["still"].endswith("t=2.00")
