"""Evidence clips through the dashboard: fetched from a real rig clip server on demand, a copy
of an alert's kept as soon as the rig has them (at its first view, at the decision, or by the
keeper without either), served after the rig's ring dropped them or while the rig is offline;
the reasons a clip cannot be had (not kept, rig offline, wrong token, no login) are 4xx/5xx with
a reason."""

from __future__ import annotations

import io
import json
import socket
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from dashkit import Dash, prepare

from dashboard.clips import session_clips
from dashboard.simrig import SimRig, game
from rig.evidence import Budget, Recorder
from rig.evidence.server import EvidenceServer

TOKEN = "dash-evidence-token"


def record_around(rec: Recorder, ts: float) -> None:
    """What the rig's camera and microphones recorded around ``ts`` (2 fps, tiny frames)."""
    start = max(0.0, ts - 15.0)
    for i in range(round((ts + 5.0 - start) * 2)):
        t = start + i / 2
        rec.record_frame(t, np.full((32, 48, 3), (i * 7) % 250, np.uint8))
        rec.record_audio(t, np.full(4000, 0.05, np.float32), 8000)
    rec.record_still(ts - 1.0, np.zeros((24, 24, 3), np.uint8))
    rec.flush()


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[Dash, Recorder, EvidenceServer, SimRig]]:
    settings = prepare(None, tmp_path / "data").model_copy(update={"evidence_token": TOKEN})
    rec = Recorder(tmp_path / "ring", "S1", Budget())
    server = EvidenceServer(rec, TOKEN, "127.0.0.1", 0).start()
    with Dash(settings) as d:
        rig = d.rig("T4", game("T4", "S1", seed=3, hands=8))
        rig.status_extra = {"evidence_url": server.url()}
        d.call(rig.publish_status, "online")
        d.call(rig.play, 400)
        d.wait(lambda: d.seq("T4") == len(rig.log) - 1)
        d.wait(lambda: "evidence_url" in d.svc.live.presence["T4"].body)
        try:
            yield d, rec, server, rig
        finally:
            server.close()
            rec.close()


def first_proposal(d: Dash) -> tuple[Any, str, dict[str, Any]]:
    c, csrf = d.login("referee")
    items = [a for a in c.get("/api/alerts").json() if a["proposal"] and a["table_id"] == "T4"]
    assert items, "the simulated game raised no proposal"
    return c, csrf, items[0]


def kept_of(d: Dash, clips: list[dict[str, Any]]) -> list[Any]:
    """The dashboard's copies of these clips (an alert's: other alerts' are kept too)."""
    refs = {(x["kind"], x["start"], x["end"]) for x in clips}
    kept = session_clips(d.svc.factory, "T4", "S1")
    return [k for k in kept if (k.kind, k.start, k.end) in refs]


def rig_get(url: str) -> int:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return e.code


@pytest.mark.slow
def test_an_alerts_clips_are_kept_at_decision_and_outlive_the_ring(
    setup: tuple[Dash, Recorder, EvidenceServer, SimRig],
) -> None:
    d, rec, server, _ = setup
    c, csrf, item = first_proposal(d)
    record_around(rec, item["ts"])
    clips = item["clips"]  # the simulated log cites no recording: what was around the alert
    assert [x["kind"] for x in clips] == ["video", "audio", "still"]
    assert all(x["url"].startswith("/api/tables/T4/clips/") for x in clips)
    live = c.get(clips[0]["url"])  # before the decision: fetched from the rig on demand …
    assert live.status_code == 200 and live.headers["content-type"] == "video/mp4"
    assert [k.data for k in kept_of(d, clips) if k.kind == "video"] == [live.content]  # … kept

    r = c.post(
        "/api/decisions",
        json={"table_id": "T4", "item_id": item["id"], "verdict": "confirm"},
        headers={"X-CSRF-Token": csrf},
    )
    assert r.status_code == 200, r.text
    d.wait(lambda: len(kept_of(d, clips)) == 3)  # all kept after the answer
    kept = kept_of(d, clips)
    assert sorted(k.kind for k in kept) == ["audio", "still", "video"]
    assert {k.alert_id for k in kept} == {item["id"]}

    rec.ring.budget = Budget(bytes=1)  # the rig's ring moves on: everything unpinned goes
    assert rec.ring.enforce() > 0
    lost = clips[0]
    assert rig_get(f"{server.url()}/clips/video?start={lost['start']}&end={lost['end']}") == 404
    by_kind = {k.kind: k.data for k in kept}
    for x in clips:
        got = c.get(x["url"])
        assert got.status_code == 200 and got.content == by_kind[x["kind"]]
    page = c.get("/tables/T4").text
    assert f'<video controls preload="none" src="{clips[0]["url"].replace("&", "&amp;")}"' in page

    z = c.get("/export/sessions/T4/S1.zip")  # the session: its log and its alerts' clips
    assert z.status_code == 200 and z.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(z.content)) as archive:
        assert archive.read("log.jsonl").decode().count("\n") == d.seq("T4") + 1
        index = [
            e for e in json.loads(archive.read("clips/index.json")) if e["alert"] == item["id"]
        ]
        assert sorted(e["kind"] for e in index) == ["audio", "still", "video"]
        for e in index:
            assert archive.read(e["file"]) == by_kind[e["kind"]]
    assert c.get("/export/sessions/T4/S9.zip").status_code == 404


@pytest.mark.slow
def test_the_reasons_a_clip_cannot_be_had(
    setup: tuple[Dash, Recorder, EvidenceServer, SimRig],
) -> None:
    d, rec, server, rig = setup
    c, _, item = first_proposal(d)
    record_around(rec, item["ts"])
    url = "/api/tables/T4/clips/video?session=S1&start=1&end=2"
    r = c.get(url)  # the ring never had it: the rig's 404, naming what it keeps
    assert r.status_code == 404
    assert r.json()["detail"].startswith(
        "the rig: no video of session S1 1.00-2.00: the ring keeps"
    )
    assert d.client.get(url).status_code == 401  # no referee session
    assert c.get("/api/tables/T4/clips/video?session=S1&start=5").status_code == 400
    assert c.get("/api/tables/T4/clips/still?session=S1").status_code == 400
    assert c.get("/api/tables/T4/clips/smell?session=S1&t=1").status_code == 422
    d.svc.settings.evidence_token = "wrong"
    r = c.get(url)
    assert r.status_code == 502 and "refused the dashboard's evidence token" in r.json()["detail"]
    d.svc.settings.evidence_token = TOKEN
    body = d.svc.live.presence["T4"].body
    with socket.socket() as silent:  # a rig that takes the connection and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        real, body["evidence_url"] = (
            body["evidence_url"],
            f"http://127.0.0.1:{silent.getsockname()[1]}",
        )
        d.svc.settings.clip_timeout = 0.5
        r = c.get(url)
        assert r.status_code == 504 and "did not answer within 0.5 s" in r.json()["detail"]
        body["evidence_url"] = real
    server.close()
    r = c.get(url)
    assert r.status_code == 503 and "cannot be reached" in r.json()["detail"]
    d.call(rig.stop)
    d.rigs.remove(rig)
    d.wait(lambda: d.svc.live.presence["T4"].state == "offline")
    r = c.get(url)
    assert r.status_code == 503 and "rig is offline" in r.json()["detail"]
    r = c.get("/api/tables/T9/clips/audio?session=S1&start=1&end=2")
    assert r.status_code == 503 and "has not been seen" in r.json()["detail"]


@pytest.mark.slow
def test_an_undecided_alerts_evidence_is_served_from_the_dashboards_copy_when_the_rig_is_offline(
    setup: tuple[Dash, Recorder, EvidenceServer, SimRig],
) -> None:
    d, rec, server, rig = setup
    c, _, item = first_proposal(d)
    record_around(rec, item["ts"])  # the rig has the alert's moment: nobody views or decides it
    clips = item["clips"]
    d.wait(lambda: len(kept_of(d, clips)) == 3, timeout=40)  # copied as soon as the rig has it
    from_rig = {x["kind"]: c.get(x["url"]).content for x in clips}
    server.close()  # the rig goes offline: its clip server with it
    d.call(rig.stop)
    d.rigs.remove(rig)
    d.wait(lambda: d.svc.live.presence["T4"].state == "offline")
    for x in clips:
        got = c.get(x["url"])
        assert got.status_code == 200, got.text
        assert got.content == from_rig[x["kind"]]  # the same evidence as the rig gave
    audio = next(x for x in clips if x["kind"] == "audio")
    samples, _ = sf.read(io.BytesIO(c.get(audio["url"]).content))
    assert len(samples) == round((audio["end"] - audio["start"]) * 8000)
    assert np.allclose(samples, 0.05, atol=1e-3)  # what the microphones recorded
    r = c.get("/api/tables/T4/clips/audio?session=S1&start=1&end=2")  # neither has this one
    assert r.status_code == 503
    assert r.json()["detail"] == (
        "this table's rig is offline: its recordings cannot be had; "
        "the dashboard keeps no copy of it"
    )
