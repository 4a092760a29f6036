"""A referee's decision or correction is a command kept until the rig has logged it
(dashboard/outbox.py): queued while the table is offline, sent again in order when it is back,
logged once by the rig however often it is sent, applied when its event comes back, failed
with the reason when the rig or its core refuses it — stored, so a dashboard restart keeps it.

Real parts: the app on SQLite and PostgreSQL, a simulated table (dashboard/simrig.py) on the
in-process bus, and a real rig (rig/runtime.py) on the in-process bus and over MQTT."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dashkit import Dash, prepare
from fastapi.testclient import TestClient

from dashboard.db.models import RigCommand
from dashboard.simrig import SimRig, game
from referee.events import Event, SessionStarted, Source
from rig.bus.broker import LocalBroker
from rig.bus.commands import cite
from rig.bus.mqtt import MqttBus
from rig.config import parse
from rig.inputs import Draft
from rig.runtime import Rig
from table_io.clock import FakeClock

PLAYERS = ("Ann", "Bo", "Chen", "Dai")


@pytest.fixture
def dash_db(db_url: str | None, tmp_path: Path) -> Iterator[Dash]:
    with Dash(prepare(db_url, tmp_path / "data")) as d:
        yield d


def playing(d: Dash) -> tuple[SimRig, dict[str, Any]]:
    """Table T1 playing until it has proposed a penalty; the alert that proposes it."""
    rig = d.rig("T1", game("T1", "S1", seed=6, hands=1, rate=0.1))
    d.call(rig.play, 30)
    d.wait(lambda: d.seq("T1") == len(rig.log) - 1)
    c, _ = d.login("referee")
    return rig, next(a for a in c.get("/api/alerts?table=T1").json() if a["proposal"])


def offline(d: Dash, rig: SimRig) -> None:
    d.call(rig.stop)
    d.wait(lambda: d.svc.live.presence["T1"].state == "offline")


def sent_events(rig: SimRig) -> list[dict[str, Any]]:
    return [m.payload for m in rig.commands if m.name == "event"]


def commands(c: TestClient, state: str = "all") -> list[dict[str, Any]]:
    r = c.get(f"/api/tables/T1/commands?state={state}")
    assert r.status_code == 200, r.text
    return list(r.json())


def stands(d: Dash, c: TestClient, command_id: str, state: str) -> None:
    d.wait(lambda: any(x["id"] == command_id and x["state"] == state for x in commands(c)))


def test_a_decision_for_a_table_offline_waits_and_is_applied_when_it_is_back(
    dash_db: Dash,
) -> None:
    d = dash_db
    rig, alert = playing(d)
    offline(d, rig)
    c, csrf = d.login("referee")
    h = {"X-CSRF-Token": csrf}
    body = {"table_id": "T1", "item_id": alert["id"], "verdict": "confirm"}
    r = c.post("/api/decisions", json=body, headers=h)
    assert r.status_code == 200, r.text
    sent = r.json()["commands"][0]
    assert sent["state"] == "queued" and sent["label"] == "waiting for the table"
    assert sent["type"] == "penalty_decision" and sent["target"] == alert["id"]
    assert sent_events(rig) == []  # nothing went: the rig is away
    assert [(x["id"], x["state"]) for x in commands(c, "pending")] == [(sent["id"], "queued")]
    shown = next(a for a in c.get("/api/alerts?table=T1").json() if a["id"] == alert["id"])
    assert shown["command"]["state"] == "queued" and shown["command"]["pending"]
    assert shown["proposal"]["status"] == "pending"  # not applied: the table has not logged it
    page = c.get("/tables/T1").text
    assert f'class="command st-queued" data-command="{sent["id"]}"' in page
    assert "waiting for the table" in page
    again = c.post("/api/decisions", json={**body, "verdict": "dismiss", "reason": "x"}, headers=h)
    assert again.status_code == 409 and "on its way to the table" in again.json()["detail"]
    with d.svc.factory() as db:
        row = db.query(RigCommand).one()
        assert (row.id, row.state, row.attempts, row.sent) == (sent["id"], "queued", 0, None)

    d.call(rig.start)  # the rig is back: it takes its queue
    stands(d, c, sent["id"], "applied")
    logged = [e for e in rig.log if e.type == "penalty_decision"]
    assert len(logged) == 1 and logged[0].evidence == (cite(sent["id"]),)
    assert logged[0].source == Source.REFEREE
    assert commands(c, "pending") == []
    shown = next(
        a for a in c.get("/api/alerts?table=T1&status=all").json() if a["id"] == alert["id"]
    )
    assert shown["proposal"]["status"] == "confirmed"
    assert shown["command"]["state"] == "applied" and shown["command"]["label"] == "applied"
    assert f'class="command st-applied" data-command="{sent["id"]}"' in c.get("/tables/T1").text
    c.put("/api/session/lang", json={"lang": "zh"}, headers=h)
    assert commands(c)[0]["label"] == "已生效"


def test_commands_queued_while_offline_go_in_order_once_each(dash: Dash) -> None:
    rig, alert = playing(dash)
    offline(dash, rig)
    c, csrf = dash.login("referee")
    h = {"X-CSRF-Token": csrf}
    made = [
        c.post(
            "/api/decisions",
            json={"table_id": "T1", "item_id": alert["id"], "verdict": "confirm"},
            headers=h,
        ),
        c.post("/api/tables/T1/controls", json={"action": "pause"}, headers=h),
        c.post("/api/tables/T1/controls", json={"action": "resume"}, headers=h),
    ]
    ids = [made[0].json()["commands"][0]["id"], *(r.json()["sent"]["id"] for r in made[1:])]
    assert [r.status_code for r in made] == [200] * 3
    assert [x["state"] for x in commands(c, "pending")] == ["queued"] * 3
    dash.call(rig.start)
    for cid in ids:
        stands(dash, c, cid, "applied")
    tail = rig.log[-3:]
    assert [e.type for e in tail] == ["penalty_decision", "table_paused", "table_resumed"]
    assert [e.evidence for e in tail] == [(cite(i),) for i in ids]
    offline(dash, rig)  # away and back again: nothing is left to send
    dash.call(rig.start)
    dash.wait(lambda: dash.svc.live.presence["T1"].state == "online")
    assert [p["id"] for p in sent_events(rig)] == ids


def test_a_command_delivered_but_not_seen_logged_is_sent_again_and_logged_once(
    dash: Dash,
) -> None:
    rig, _ = playing(dash)
    c, csrf = dash.login("referee")
    rig.hold = {len(rig.log)}  # the rig logs the pause but its event does not come back
    r = c.post("/api/tables/T1/controls", json={"action": "pause"}, headers={"X-CSRF-Token": csrf})
    sent = r.json()["sent"]
    assert sent["state"] == "delivered" and sent["label"] == "delivered to the table"
    dash.wait(lambda: len(sent_events(rig)) == 1)
    assert commands(c, "pending")[0]["state"] == "delivered"
    offline(dash, rig)
    dash.call(rig.start)  # back: what the dashboard has not seen logged goes again
    dash.wait(lambda: len(sent_events(rig)) == 2)
    assert sent_events(rig)[0] == sent_events(rig)[1]
    assert sum(e.type == "table_paused" for e in rig.log) == 1  # the rig logged it once
    dash.call(rig.publish_state)  # its retained state shows the event the dashboard lacks
    stands(dash, c, sent["id"], "applied")


def test_a_decision_the_core_refuses_is_failed_with_its_reason(dash: Dash) -> None:
    rig, alert = playing(dash)
    offline(dash, rig)
    c, csrf = dash.login("referee")
    body = {"table_id": "T1", "item_id": alert["id"], "verdict": "confirm"}
    sent = c.post("/api/decisions", json=body, headers={"X-CSRF-Token": csrf}).json()
    cid = sent["commands"][0]["id"]
    rig.logs["S1"], rig.log, rig.session_id = rig.log, [], "S2"  # back in another session
    dash.call(rig.start)
    stands(dash, c, cid, "failed")
    failed = commands(c)[0]
    assert failed["reason"] == f"no proposal {alert['proposal']['id']!r} to decide on"
    assert failed["label"] == "failed: " + failed["reason"]
    assert f'class="command st-failed" data-command="{cid}"' in c.get("/tables/T1").text


def _real_rig(d: Dash, tmp: Path, mqtt: str | None = None) -> Rig:
    """A rig of table T1 with no devices, made on the app's loop (its log is that thread's):
    on the app's in-process bus, or with a connection of its own to the broker ``mqtt``."""
    venue = d.settings.venue
    table = {"id": "T1", "session": "S1", "venue": venue, "log": str(tmp / "t1.sqlite")}
    cfg = parse({"table": table, "bus": {"state_every": 0.01}})

    async def make() -> Rig:
        bus = MqttBus(mqtt, venue) if mqtt else d.bus
        return Rig(cfg, bus, clock=FakeClock(0.0))

    rig: Rig = d.call(make)
    return rig


def _seated(d: Dash, rig: Rig) -> None:
    """Start ``rig`` on the app's loop; its session's players logged, and seen."""

    async def seat() -> None:
        await rig.start()
        rig.submit("referee", Draft(SessionStarted(players=PLAYERS), Source.REFEREE))

    d.call(seat)
    d.wait(lambda: d.seq("T1") >= 0)


def test_a_command_the_rig_refuses_is_failed_with_its_reason(dash: Dash, tmp_path: Path) -> None:
    rig = _real_rig(dash, tmp_path)
    _seated(dash, rig)
    try:
        # a command the rig's version does not know (a newer dashboard's event type)

        async def unknown() -> Any:
            return await dash.svc.outbox.send(
                "T1", "table_shaken", {}, actor="referee", action="control_shake"
            )

        cid = dash.call(unknown).id
        c, _ = dash.login("referee")
        stands(dash, c, cid, "failed")
        failed = commands(c)[0]
        assert failed["reason"].startswith("cmd/event refused: unknown event type 'table_shaken'")
        assert failed["label"] == "failed: " + failed["reason"]
    finally:
        dash.call(rig.stop)


@pytest.mark.slow  # a broker (mosquitto) in a subprocess
def test_a_real_rig_over_mqtt_takes_its_queue_when_it_is_back(
    broker: LocalBroker, tmp_path: Path
) -> None:
    with Dash(prepare(None, tmp_path / "data"), mqtt=broker.url) as d:
        assert d.call(d.bus.wait_connected, 10)  # type: ignore[attr-defined]
        rig = _real_rig(d, tmp_path, broker.url)
        _seated(d, rig)
        d.call(rig.stop)  # a clean stop: its status says offline
        d.wait(lambda: d.svc.live.presence["T1"].state == "offline")
        c, csrf = d.login("referee")
        r = c.post(
            "/api/tables/T1/controls", json={"action": "pause"}, headers={"X-CSRF-Token": csrf}
        )
        sent = r.json()["sent"]
        assert sent["state"] == "queued"
        back = _real_rig(d, tmp_path, broker.url)  # restarted on its log
        d.call(back.start)
        try:
            stands(d, c, sent["id"], "applied")

            async def pauses() -> list[Event]:  # the log is read on its own thread
                return [e for e in back.store.events("T1", "S1") if e.type == "table_paused"]

            paused = d.call(pauses)
            assert len(paused) == 1 and paused[0].evidence == (cite(sent["id"]),)
        finally:
            d.call(back.stop)


@pytest.mark.slow  # two apps, one after the other
def test_a_queued_command_outlives_a_dashboard_restart(tmp_path: Path) -> None:
    settings = prepare(None, tmp_path / "data")
    with Dash(settings) as d:
        rig, alert = playing(d)
        offline(d, rig)
        c, csrf = d.login("referee")
        body = {"table_id": "T1", "item_id": alert["id"], "verdict": "confirm"}
        cid = c.post("/api/decisions", json=body, headers={"X-CSRF-Token": csrf}).json()[
            "commands"
        ][0]["id"]
        d.rigs.clear()  # it stays away while the dashboard restarts
    with Dash(settings) as d:
        c, _ = d.login("referee")
        assert [(x["id"], x["state"]) for x in commands(c, "pending")] == [(cid, "queued")]
        shown = next(a for a in c.get("/api/alerts?table=T1").json() if a["id"] == alert["id"])
        assert shown["command"]["state"] == "queued"
        again = SimRig(d.bus, "T1", "S1", [])
        again.log = rig.log  # the same table, its log kept
        d.call(again.start)
        d.rigs.append(again)
        stands(d, c, cid, "applied")
        assert sum(e.type == "penalty_decision" for e in again.log) == 1


@pytest.mark.slow  # two apps, one after the other
def test_a_restart_marks_applied_what_the_log_shows_logged(tmp_path: Path) -> None:
    settings = prepare(None, tmp_path / "data")
    with Dash(settings) as d:
        playing(d)
        c, csrf = d.login("referee")
        r = c.post(
            "/api/tables/T1/controls", json={"action": "pause"}, headers={"X-CSRF-Token": csrf}
        )
        cid = r.json()["sent"]["id"]
        stands(d, c, cid, "applied")
        with d.svc.factory() as db:  # as if the dashboard had stopped before it said so
            db.query(RigCommand).filter_by(id=cid).update({"state": "delivered", "done": None})
            db.commit()
    with Dash(settings) as d:
        c, _ = d.login("referee")
        assert [(x["id"], x["state"]) for x in commands(c)] == [(cid, "applied")]
