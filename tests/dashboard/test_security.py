"""Every write endpoint refuses an anonymous user, a wrong role and a missing CSRF token; rig
tokens write their own table only; logins are throttled and audited; passwords never leak."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
from dashkit import PASSWORD, Dash

from dashboard.auth import issue_token
from dashboard.db.models import AuditEntry, User
from dashboard.simrig import game

OPEN = {"/api/session": {"POST"}, "/login": {"POST"}, "/api/rigs/{table_id}/events": {"POST"}}
"""Unsafe endpoints with their own guard: the login (pre-session CSRF) and rig tokens."""

# The roles each write endpoint refuses (one is enough to show the role check).
WRONG_ROLE = {
    "/api/decisions": "scorekeeper",
    "/api/decisions/acknowledge": "viewer",
    "/api/tables/{table_id}/controls": "viewer",
    "/api/sheets/{table_id}/{session_id}/{half}/corrections": "scorekeeper",
    "/api/sheets/{table_id}/{session_id}/hands/{number}/ruling": "scorekeeper",
    "/api/tournament/rounds/{round_}/controls": "referee",
    "/api/tournament/rounds/{round_}/tables/{table}/confirm": "scorekeeper",
    "/api/tournament/corrections": "viewer",
}
BODIES: dict[str, dict[str, Any]] = {
    "/api/decisions": {"table_id": "T1", "item_id": "x", "verdict": "confirm"},
    "/api/decisions/acknowledge": {"items": [["T1", "x"]]},
    "/api/tables/{table_id}/controls": {"action": "pause"},
    "/api/session/lang": {"lang": "zh"},
    "/api/sheets/{table_id}/{session_id}/{half}/corrections": {
        "number": 1,
        "player": "x",
        "points": 1,
        "reason": "x",
    },
    "/api/sheets/{table_id}/{session_id}/hands/{number}/ruling": {"ruling": "void", "reason": "x"},
    "/api/tournament/rounds/{round_}/controls": {"action": "start"},
    "/api/tournament/corrections": {"kind": "swap", "round": 1, "a": "x", "b": "y", "reason": "x"},
}


def url_of(path: str) -> str:
    for key, value in (
        ("table_id", "T1"),
        ("session_id", "S1"),
        ("half", "1"),
        ("number", "1"),
        ("round_", "1"),
        ("table", "1"),
    ):
        path = path.replace("{" + key + "}", value)
    return path


def writes(dash: Dash) -> list[tuple[str, str]]:
    """Every unsafe method of the API (the OpenAPI schema lists every API route)."""
    out = []
    for path, ops in dash.app.openapi()["paths"].items():
        for method in {m.upper() for m in ops} & {"POST", "PUT", "PATCH", "DELETE"}:
            if method not in OPEN.get(path, set()):
                out.append((method, path))
    return sorted(out)


@pytest.mark.slow
def test_every_write_endpoint_is_listed(dash: Dash) -> None:
    assert {p for _, p in writes(dash)} == {*WRONG_ROLE, "/api/session", "/api/session/lang"}


@pytest.mark.slow
def test_anonymous_and_missing_csrf_are_refused(dash: Dash) -> None:
    c, _ = dash.login("head_referee")
    for method, path in writes(dash):
        url = url_of(path)
        body = BODIES.get(path)
        anon = dash.client.request(method, url, json=body)
        assert anon.status_code == 401, (method, path, anon.text)
        no_csrf = c.request(method, url, json=body)
        assert no_csrf.status_code == 403 and "CSRF" in no_csrf.text, (method, path)
        wrong = c.request(method, url, json=body, headers={"X-CSRF-Token": "nope"})
        assert wrong.status_code == 403, (method, path)


@pytest.mark.slow
def test_wrong_role_is_refused(dash: Dash) -> None:
    for path, role in WRONG_ROLE.items():
        c, csrf = dash.login(role)
        r = c.post(url_of(path), json=BODIES.get(path, {}), headers={"X-CSRF-Token": csrf})
        assert r.status_code == 403 and f"a {role} may not" in r.text, (path, r.text)


@pytest.mark.slow
def test_only_a_head_referee_revokes(dash: Dash) -> None:
    c, csrf = dash.login("referee")
    r = c.post(
        "/api/decisions",
        json={**BODIES["/api/decisions"], "verdict": "revoke", "reason": "x"},
        headers={"X-CSRF-Token": csrf},
    )
    assert r.status_code == 403 and "head referee" in r.text


@pytest.mark.slow
def test_viewer_reads_but_the_pages_offer_no_actions(dash: Dash) -> None:
    rig = dash.rig("T1", game("T1", "S1", seed=3, hands=8))
    dash.call(rig.play, 400)
    dash.wait(lambda: dash.seq("T1") == 399)
    viewer, _ = dash.login("viewer")
    page = viewer.get("/alerts")
    assert page.status_code == 200 and "data-decide" not in page.text
    ref, _ = dash.login("referee")
    assert "data-decide" in ref.get("/alerts").text


@pytest.mark.slow
def test_rig_token_writes_its_own_table_only(dash: Dash) -> None:
    token = issue_token(dash.svc.factory, "T7", 0.0)
    events = [e.model_dump(mode="json") for e in game("T7", "S1", seed=1, hands=1)[:5]]
    auth = {"Authorization": f"Bearer {token}"}
    assert dash.client.post("/api/rigs/T7/events", json={"events": events}).status_code == 401
    other = [{**e, "table_id": "T8"} for e in events]
    r = dash.client.post("/api/rigs/T8/events", json={"events": other}, headers=auth)
    assert r.status_code == 403
    r = dash.client.post("/api/rigs/T7/events", json={"events": other}, headers=auth)
    assert r.status_code == 403  # the path is its own, the events are not
    r = dash.client.post("/api/rigs/T7/events", json={"events": events}, headers=auth)
    assert r.status_code == 200
    dash.wait(lambda: dash.seq("T7") == 4)
    assert "T8" not in dash.svc.live.tables


@pytest.mark.slow
def test_login_throttled_audited_and_passwords_never_leak(
    dash: Dash, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    c = dash.client
    c.get("/login")
    csrf = {"X-CSRF-Token": c.cookies.get("mjref_login_csrf", "")}
    assert (
        c.post("/api/session", json={"name": "referee", "password": PASSWORD}).status_code == 403
    )  # no pre-login CSRF token
    bodies = []
    for _ in range(3):
        r = c.post("/api/session", json={"name": "referee", "password": "wrong one!"}, headers=csrf)
        assert r.status_code == 401
        bodies.append(r.text)
    r = c.post("/api/session", json={"name": "referee", "password": PASSWORD}, headers=csrf)
    assert r.status_code == 429 and "Retry-After" in r.headers
    ok = c.post("/api/session", json={"name": "viewer", "password": PASSWORD}, headers=csrf)
    assert ok.status_code == 200
    bodies.append(ok.text)
    cookie = ok.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    with dash.svc.factory() as db:
        actions = [a.action for a in db.query(AuditEntry).order_by(AuditEntry.id)]
        texts = [f"{a.detail} {a.reason}" for a in db.query(AuditEntry)]
        hashes = [u.password_hash for u in db.query(User)]
    assert actions.count("login_failed") == 3 and "login_throttled" in actions
    assert actions[-1] == "login"
    assert all(h.startswith("$argon2") for h in hashes)
    leaked = re.compile(re.escape(PASSWORD) + "|wrong one!")
    for text in [*bodies, *texts, caplog.text, c.get("/api/session").text]:
        assert not leaked.search(text)
