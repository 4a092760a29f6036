"""Ingest from the bus: idempotent, gaps asked for again, presence, decisions as events, and a
restart that rebuilds the same live state from the database."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from dashkit import Dash, prepare
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError

from dashboard import store
from dashboard.db import make_engine, session_factory
from dashboard.db.migrate import upgrade
from dashboard.db.models import StoredEvent
from dashboard.hub import Hub
from dashboard.ingest import Ingest
from dashboard.live import LiveState
from dashboard.metrics import DashMetrics
from dashboard.simrig import game
from referee.duties import replay
from rig.bus.memory import MemoryBus


def _state(d: Dash, table: str) -> dict[str, object]:
    return d.svc.live.tables[table].duty.state.to_dict()  # type: ignore[no-any-return]


@pytest.mark.slow
def test_live_state_is_the_replayed_log_and_duplicates_are_ignored(dash: Dash) -> None:
    rig = dash.rig("T1", game("T1", "S1", seed=3, hands=2))
    dash.call(rig.play, 120)
    dash.wait(lambda: dash.seq("T1") == 119)
    for ev in rig.log[:50]:  # the same events again (a rig resending)
        dash.call(rig._publish, ev)
    dash.call(rig.play, 1)
    dash.wait(lambda: dash.seq("T1") == 120)
    expected = replay(rig.log)
    assert expected is not None
    assert _state(dash, "T1") == expected.state.to_dict()
    with dash.svc.factory() as db:
        assert db.scalar(select(func.count()).select_from(StoredEvent)) == 121
    assert dash.svc.ingest.feed.duplicates >= 50


def test_gap_is_answered_with_resend_from(dash: Dash) -> None:
    rig = dash.rig("T2", game("T2", "S1", seed=4, hands=1))
    rig.hold = {5, 6}
    dash.call(rig.play, 12)
    dash.wait(lambda: dash.seq("T2") == 11)
    asked = [m.payload for m in rig.commands if m.name == "resend_from"]
    assert asked and asked[0]["seq"] == 5 and asked[0]["stream"] == "log"


@pytest.mark.slow
def test_presence_from_retained_status(dash: Dash) -> None:
    rig = dash.rig("T3", game("T3", "S1", seed=5, hands=1))
    dash.call(rig.play, 3)
    dash.wait(lambda: "T3" in dash.svc.live.presence)
    c, _ = dash.login("viewer")
    card = next(x for x in c.get("/api/tables").json() if x["table_id"] == "T3")
    assert card["health"]["rig"]["state"] == "online"
    assert card["health"]["inputs"]["camera"]["state"] == "ok"
    dash.call(rig.stop)
    dash.rigs.remove(rig)
    dash.wait(lambda: dash.svc.live.presence["T3"].state == "offline")
    card = next(x for x in c.get("/api/tables").json() if x["table_id"] == "T3")
    assert card["health"]["rig"]["state"] == "offline"
    assert card["health"]["rig"]["since"] is not None


@pytest.mark.slow
def test_decision_changes_the_record_only_through_the_table(dash: Dash) -> None:
    rig = dash.rig("T4", game("T4", "S1", seed=3, hands=8))
    dash.call(rig.play, 400)
    dash.wait(lambda: dash.seq("T4") == len(rig.log) - 1)
    c, csrf = dash.login("referee")
    items = [a for a in c.get("/api/alerts").json() if a["proposal"]]
    assert items, "the simulated game raised no proposal"
    item = items[0]
    before = len(rig.log)
    r = c.post(
        "/api/decisions",
        json={"table_id": "T4", "item_id": item["id"], "verdict": "confirm"},
        headers={"X-CSRF-Token": csrf},
    )
    assert r.status_code == 200, r.text
    dash.wait(lambda: dash.seq("T4") == before)
    assert rig.log[-1].type == "penalty_decision" and rig.log[-1].source == "referee"
    after = next(a for a in c.get("/api/alerts?status=all").json() if a["id"] == item["id"])
    assert (
        after["status"] == "confirmed" and after["proposal"]["decisions"][0]["referee"] == "referee"
    )
    audit = c.get("/api/audit").json()
    assert any(e["action"] == "decision_confirm" and e["target"] == item["id"] for e in audit)


@pytest.mark.slow
def test_restart_rebuilds_the_same_live_state(db_url: str | None, tmp_path: Path) -> None:
    settings = prepare(db_url, tmp_path / "data")
    with Dash(settings) as d:
        rig = d.rig("T5", game("T5", "S1", seed=7, hands=3))
        d.call(rig.play, 10_000)
        d.wait(lambda: d.seq("T5") == len(rig.log) - 1, 30)
        c, csrf = d.login("referee")
        pending = [a for a in c.get("/api/alerts").json() if a["status"] == "open"]
        assert pending
        c.post(
            "/api/decisions/acknowledge",
            json={"items": [["T5", pending[0]["id"]]]},
            headers={"X-CSRF-Token": csrf},
        )
        d.wait(lambda: d.seq("T5") == len(rig.log) - 1 and rig.log[-1].type == "referee_decision")
        before = d.svc.live.digest()
        d.call(rig.stop)
        d.rigs.remove(rig)
    with Dash(settings) as again:  # a new process' worth of state: only the database
        assert again.svc.live.digest() == before
        assert pending[0]["id"] in again.svc.live.tables["T5"].acked


@pytest.mark.slow
def test_the_store_counts_what_is_new_and_keeps_the_body(
    db_url: str | None, tmp_path: Path
) -> None:
    """The insert is one fixed statement per dialect; what it reports feeds the metrics."""
    settings = prepare(db_url, tmp_path / "data")
    engine = make_engine(settings.db_url)
    factory = session_factory(engine)
    events = game("T9", "S1", seed=1, hands=1)[:40]
    try:
        assert store.insert_events(factory, [(e, 1.0) for e in events[:30]]) == 30
        again = [(e, 2.0) for e in events[20:]]
        assert store.insert_events(factory, again) == 10  # 20..29 are there already
        assert store.insert_events(factory, []) == 0
        assert [e.model_dump_json() for e in store.stored_events(factory)] == [
            e.model_dump_json() for e in events
        ]
    finally:
        engine.dispose()


@pytest.mark.slow
def test_a_malformed_event_is_an_alert_not_a_silent_loss(dash: Dash) -> None:
    rig = dash.rig("T6", game("T6", "S1", seed=2, hands=1))
    dash.call(rig.play, 3)
    dash.wait(lambda: dash.seq("T6") == 2)
    bad = {**rig.log[2].model_dump(mode="json"), "seq": 3, "type": "discard", "payload": {}}
    dash.call(dash.bus.publish_event, "T6", bad)
    dash.wait(lambda: bool(dash.svc.live.rig_alerts.get("T6")))
    alert = dash.svc.live.rig_alerts["T6"][-1]["payload"]
    assert alert["rule"] == "SYS-ingest" and "seq 3 refused" in alert["message"]
    c, _ = dash.login("viewer")
    assert "SYS-ingest" in c.get("/tables/T6").text


@pytest.mark.slow
def test_clock_controls_are_events_logged_by_the_table(dash: Dash) -> None:
    rig = dash.rig("T8", game("T8", "S1", seed=2, hands=1))
    dash.call(rig.play, 30)
    dash.wait(lambda: dash.seq("T8") == 29)
    c, csrf = dash.login("referee")
    h = {"X-CSRF-Token": csrf}
    assert (
        c.post(
            "/api/tables/T8/controls", json={"action": "extend", "seat": "E"}, headers=h
        ).status_code
        == 422
    )  # the seconds are missing
    for body in (
        {"action": "pause"},
        {"action": "resume"},
        {"action": "extend", "seat": "S", "seconds": 20},
        {"action": "late", "seat": "W", "seconds": 45},
    ):
        assert c.post("/api/tables/T8/controls", json=body, headers=h).status_code == 200
    dash.wait(lambda: dash.seq("T8") == 33)
    assert [e.type for e in rig.log[-4:]] == [
        "table_paused",
        "table_resumed",
        "clock_extended",
        "player_late",
    ]
    audit = [e["action"] for e in c.get("/api/audit").json()]
    assert audit[:4] == ["control_late", "control_extend", "control_resume", "control_pause"]


@pytest.mark.slow
def test_a_failed_write_is_tried_again_and_nothing_is_lost(
    dash: Dash, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer runs behind the live state: the database refusing a batch delays it only."""
    real, failures = store.insert_events, []

    def refuse_twice(*args: Any) -> int:
        if len(failures) < 2:
            failures.append(1)
            raise OperationalError("INSERT", {}, Exception("the database is away"))
        return real(*args)

    monkeypatch.setattr(store, "insert_events", refuse_twice)
    dash.svc.ingest.retry_write = 0.05
    rig = dash.rig("T7", game("T7", "S1", seed=6, hands=1))
    dash.call(rig.play, 25)
    dash.wait(lambda: dash.seq("T7") == 24)  # the live state did not wait for the database
    assert len(failures) == 2
    with dash.svc.factory() as db:
        seqs = db.scalars(select(StoredEvent.seq).where(StoredEvent.table_id == "T7")).all()
    assert sorted(seqs) == list(range(25))


def test_stop_ends_when_a_message_arrives_as_it_stops(tmp_path: Path) -> None:
    """A message queued in the same instant as the stop: Python 3.11's ``asyncio.wait_for``
    returned that message and dropped the cancel, and the dashboard's shutdown waited forever."""
    engine = make_engine(f"sqlite:///{tmp_path / 'd.sqlite'}")
    upgrade(engine)

    async def run() -> None:
        metrics = DashMetrics()
        ingest = Ingest(
            MemoryBus("v"), session_factory(engine), LiveState(), Hub(metrics), metrics, tick=60
        )
        await ingest.start()
        await asyncio.sleep(0.01)  # the ingest waits on its queue
        ingest.submit("T1", [{"table_id": "T1", "seq": 0}])
        await asyncio.wait_for(ingest.stop(), 5)
        assert asyncio.all_tasks() == {asyncio.current_task()}  # nothing left running

    asyncio.run(run())
    engine.dispose()
