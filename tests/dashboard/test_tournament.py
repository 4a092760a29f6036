"""A tournament run from the dashboard (#35), on SQLite and PostgreSQL: made by the CLI from a
players' list, its rounds started from the dashboard, each table's simulated rig told its players
through the bus, the round controls and the corrections as audit entries, the check before the
report, and the federation's results sheet."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from dashkit import Dash, prepare
from duty_kit import first_end_lost
from tournament_kit import NAME, control, create, db_args, play_round, players_csv, rig

from rig.cli import main as mjref

TABLES = ("T1", "T2", "T3", "T4")


def _api(client: Any, csrf: str, url: str, body: dict[str, Any]) -> Any:
    return client.post(url, json=body, headers={"X-CSRF-Token": csrf})


@pytest.mark.slow
def test_a_whole_tournament_from_creation_to_the_export(
    db_url: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str], request: Any
) -> None:
    """SQLite on the in-process bus (the embedded default); PostgreSQL through a real mosquitto,
    as a venue runs it."""
    mqtt = None
    if db_url is not None:
        mqtt = request.getfixturevalue("broker").url
    data = tmp_path / "data"
    settings = prepare(db_url, data)
    create(db_url, data, rounds=4)
    capsys.readouterr()
    assert mjref(["tournament", "seating", "--json", *db_args(db_url, data)]) == 0
    seating = json.loads(capsys.readouterr().out)
    assert seating["repeated_pairs"] == 0 and len(seating["rounds"]) == 4
    with Dash(settings, mqtt) as d:
        head, hcsrf = d.login("head_referee")
        ref, rcsrf = d.login("referee")
        rigs = [rig(d, t) for t in TABLES[:3]]
        for r in range(1, 5):
            if r == 1:  # T4's rig comes online late: it is told the round in play then
                control(d, head, hcsrf, 1, "start")
                rigs.append(rig(d, "T4"))
            else:
                control(d, head, hcsrf, r, "start")
            play_round(d, rigs, f"R{r}")
            tables = seating["rounds"][r - 1]["tables"]
            for sim, table in zip(rigs, tables, strict=True):  # the players as seated, by seat
                assert table["table"] == sim.table_id
                started = next(e for e in sim.log if e.type == "session_started")
                assert started.payload.players == tuple(table["seats"][s] for s in "ESWN")
                assert started.source == "referee"
            if r == 2:
                control(d, head, hcsrf, 2, "pause")
                assert (
                    _api(
                        head, hcsrf, "/api/tournament/rounds/2/controls", {"action": "pause"}
                    ).status_code
                    == 409
                )  # paused already
                control(d, head, hcsrf, 2, "resume")
                control(d, head, hcsrf, 2, "extend", minutes=10, table=3)
                d.wait(lambda: all(s.log[-1].type == "table_resumed" for s in rigs))
                assert all(
                    [e.type for e in s.log[-2:]] == ["table_paused", "table_resumed"] for s in rigs
                )
                day = head.get("/api/tournament").json()
                assert [t["minutes"] for t in day["rounds"][1]["tables"]] == [120, 120, 130, 120]
            for t in range(1, 5):
                ok = _api(ref, rcsrf, f"/api/tournament/rounds/{r}/tables/{t}/confirm", {})
                assert ok.status_code == 200 and ok.json()["confirmed_by"] == "referee"
            check = head.get("/api/tournament/check").json()
            assert not check["ready"] and any(
                f"round {r} is running" in p["what"] for p in check["problems"]
            )
            control(d, head, hcsrf, r, "end")
        # a referee may not run the rounds; nor start one that is over
        assert (
            _api(ref, rcsrf, "/api/tournament/rounds/1/controls", {"action": "start"}).status_code
            == 403
        )
        assert (
            _api(head, hcsrf, "/api/tournament/rounds/1/controls", {"action": "start"}).status_code
            == 409
        )
        check = head.get("/api/tournament/check").json()
        assert check == {"ready": True, "problems": []}, check["problems"]
        web = head.get("/export/tournament/ema.csv")
        assert web.status_code == 200
        lines = head.get("/api/tournament/standings").json()["players"]
        after1 = head.get("/api/tournament/standings?upto=1").json()["players"]
        assert all(x["sessions"] == 1 for x in after1) and after1 != lines
        page = head.get("/tournament/standings?upto=1").text
        assert all(f'<tr data-name="{x["name"]}" ' in page for x in after1)
        assert page.index(after1[0]["name"]) < page.index(after1[-1]["name"])
        pdf = head.get("/export/tournament/cards.pdf")
        assert pdf.content.startswith(b"%PDF") and pdf.content.count(b"/Type /Page\n") == 16
        audit = head.get("/api/audit?limit=500").json()
        d.wait(lambda: True)  # every event stored before the CLI reads the database
    # the CLI reads the same database: ready, and the same results sheet
    assert mjref(["tournament", "check", *db_args(db_url, data)]) == 0
    out = tmp_path / "results.csv"
    assert mjref(["tournament", "export", "ema", *db_args(db_url, data), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == web.text
    rows = list(csv.DictReader(io.StringIO(web.text)))
    assert list(rows[0]) == ["rank", "name", "ema_id", "country", "table_points", "score"]
    assert [r["name"] for r in rows] == [x["name"] for x in lines]
    assert len(rows) == 16 and "P16" not in {r["name"] for r in rows}  # the substitute sat out
    assert rows[0]["ema_id"] == str(4000 + int(rows[0]["name"][1:]))
    assert sum(float(r["table_points"]) for r in rows) == 4 * 4 * 7  # 4-2-1-0 at every table
    assert all(x["sessions"] == 4 for x in lines)
    actions = [(e["actor"], e["action"]) for e in audit]
    assert actions.count(("head_referee", "round_started")) == 4
    assert actions.count(("referee", "table_confirmed")) == 16
    assert ("head_referee", "round_extended") in actions


def _one_round(db_url: str | None, tmp_path: Path) -> tuple[Path, Any]:
    data = tmp_path / "data"
    settings = prepare(db_url, data)
    create(db_url, data, rounds=2)
    return data, settings


def _sheet(client: Any, table: str, session: str) -> dict[str, Any]:
    r = client.get(f"/api/sheets/{table}/{session}/1")
    assert r.status_code == 200, r.text
    return dict(r.json())


def _scores(client: Any) -> dict[str, int]:
    return {
        x["name"]: x["score"] for x in client.get("/api/tournament/standings").json()["players"]
    }


@pytest.mark.slow
def test_a_swap_re_derives_the_sheets_and_the_standings(db_url: str | None, tmp_path: Path) -> None:
    _, settings = _one_round(db_url, tmp_path)
    with Dash(settings) as d:
        head, csrf = d.login("head_referee")
        rigs = [rig(d, t) for t in TABLES]
        control(d, head, csrf, 1, "start")
        play_round(d, rigs, "R1")
        before, scores = _sheet(head, "T1", "R1"), _scores(head)
        seats = head.get("/api/tournament").json()["rounds"][0]["tables"][0]["seats"]
        a, b = seats["E"], seats["W"]
        penalties = head.get("/api/alerts?table=T1&status=all").json()
        swap = {"kind": "swap", "round": 1, "a": a, "b": b, "reason": "sat in each other's seats"}
        assert (
            _api(head, csrf, "/api/tournament/corrections", {**swap, "reason": ""}).status_code
            == 409
        )
        assert (
            _api(head, csrf, "/api/tournament/corrections", {**swap, "b": "P16"}).status_code == 409
        )  # the substitute does not sit
        ref, rcsrf = d.login("referee")
        assert _api(ref, rcsrf, "/api/tournament/corrections", swap).status_code == 403
        assert _api(head, csrf, "/api/tournament/corrections", swap).status_code == 200
        after = _sheet(head, "T1", "R1")
        assert after["players"] == before["players"]  # the same four (in name order)
        assert (
            after["totals"][a] == before["totals"][b] and after["totals"][b] == before["totals"][a]
        )
        for old, new in zip(before["hands"], after["hands"], strict=True):
            assert new["payments"][a] == old["payments"][b]
            assert new["penalties"][b] == old["penalties"][a]
        now = _scores(head)
        assert now[a] == scores[b] and now[b] == scores[a]
        assert {k: v for k, v in now.items() if k not in (a, b)} == {
            k: v for k, v in scores.items() if k not in (a, b)
        }
        moved = {x["id"]: x["player"] for x in head.get("/api/alerts?table=T1&status=all").json()}
        swapped = {a: b, b: a}
        assert moved == {x["id"]: swapped.get(x["player"], x["player"]) for x in penalties}
        seats = head.get("/api/tournament").json()["rounds"][0]["tables"][0]["seats"]
        assert seats["E"] == b and seats["W"] == a
        d.wait(lambda: True)
    with Dash(settings) as d:  # restarted: replayed from the log, the swap read from the audit
        head, _ = d.login("head_referee")
        assert _sheet(head, "T1", "R1") == after
        assert _scores(head) == now


@pytest.mark.slow
def test_check_names_a_missing_signature_and_a_session_that_does_not_sum_to_zero(
    db_url: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, settings = _one_round(db_url, tmp_path)
    with Dash(settings) as d:
        head, csrf = d.login("head_referee")
        ref, rcsrf = d.login("referee")
        rigs = [
            rig(
                d,
                t,
                unsigned=t == "T2",
                hands=5 if t == "T4" else 8,
                damage=first_end_lost if t == "T1" else None,  # hand 1 left without a result
            )
            for t in TABLES
        ]
        control(d, head, csrf, 1, "start")
        play_round(d, rigs, "R1")
        control(d, head, csrf, 1, "end")
        sheet = _sheet(head, "T3", "R1")
        player = sheet["players"][1]
        fix = {
            "kind": "hand",
            "round": 1,
            "table": 3,
            "hand": 2,
            "player": player,
            "points": 10,
            "reason": "miscounted the payment",
        }
        assert _api(ref, rcsrf, "/api/tournament/corrections", fix).status_code == 200
        assert _sheet(head, "T3", "R1")["totals"][player] == sheet["totals"][player] + 10
        scores = _scores(head)
        change = {
            "kind": "result",
            "round": 1,
            "player": player,
            "points": -30,
            "reason": "a late arrival's penalty",
        }
        assert _api(ref, rcsrf, "/api/tournament/corrections", change).status_code == 403
        assert _api(head, csrf, "/api/tournament/corrections", change).status_code == 200
        assert _scores(head)[player] == scores[player] - 30  # apart from the card: no hand moves
        problems = [p["what"] for p in head.get("/api/tournament/check").json()["problems"]]
        t2 = rigs[1].log[0].payload.players
        assert (
            f"round 1 table 2 (T2, session R1) card 1: not signed by {', '.join(sorted(t2))}"
            in problems
        )
        assert (
            "round 1 table 3 (T3, session R1) card 1 hand 3: the hand's scores sum to +10, not 0"
            in problems
        )
        t4 = ", ".join(sorted(rigs[3].log[0].payload.players))
        assert "round 1 table 4 (T4, session R1) card 1: 5 of 8 hands" in problems
        assert f"round 1 table 4 (T4, session R1) card 1: not signed by {t4}" in problems
        assert "round 2 is planned, not ended" in problems
        assert "round 2 table 1 (T1, session R2): no session logged" in problems
        no_result = (
            "round 1 table 1 (T1, session R1) card 1 hand 1: no result (a referee settles or "
            "voids it from the alert queue, WMC-7.8)"
        )
        assert no_result in problems
        assert len(problems) == 4 + 1 + 4 + 1  # nothing else: the rest of T1 and T3 in order
        void = {"ruling": "void", "reason": "replayed by agreement"}
        assert _api(ref, rcsrf, "/api/sheets/T1/R1/hands/1/ruling", void).status_code == 200
        d.wait(lambda: rigs[0].log[-1].type == "hand_ruled" and d.seq("T1") == len(rigs[0].log) - 1)
        problems = [p["what"] for p in head.get("/api/tournament/check").json()["problems"]]
        assert no_result not in problems and len(problems) == 4 + 1 + 4
        d.wait(lambda: True)
    capsys.readouterr()
    assert mjref(["tournament", "check", *db_args(db_url, data)]) == 1
    out = capsys.readouterr().out
    assert "not signed by" in out and "sum to +10" in out and "(/sheets/T3/R1/1)" in out


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda rows: rows[:-1], "15 players to seat"),
        (lambda rows: [*rows, rows[1]], "name listed twice: P00"),
        (lambda rows: [*rows, "P99,4003,NL,T,"], "EMA number listed twice: 4003"),
        (lambda rows: rows[1:], "header is p00"),
    ],
)
def test_bad_players_are_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, message: str
) -> None:
    csv_path = players_csv(tmp_path / "players.csv", n=16, substitutes=0)
    rows = csv_path.read_text(encoding="utf-8").splitlines()
    csv_path.write_text("\n".join(change(rows)) + "\n", encoding="utf-8")
    data = tmp_path / "data"
    argv = [
        "tournament",
        "create",
        "--data",
        str(data),
        "--name",
        NAME,
        "--rules",
        "wmc",
        "--players",
        str(csv_path),
        "--rounds",
        "3",
    ]
    assert mjref(argv) == 2
    assert message in capsys.readouterr().err
    assert not data.exists()  # nothing written
    with pytest.raises(SystemExit) as exc:
        mjref([*argv[:-4], "--rules", "riichi", *argv[-4:]])
    assert exc.value.code == 2 and "invalid choice: 'riichi'" in capsys.readouterr().err


@pytest.mark.slow
def test_a_substitute_takes_a_withdrawn_players_seats_from_a_round_on(tmp_path: Path) -> None:
    _, settings = _one_round(None, tmp_path)
    with Dash(settings) as d:
        head, csrf = d.login("head_referee")
        rigs = [rig(d, t) for t in TABLES]
        control(d, head, csrf, 1, "start")
        play_round(d, rigs, "R1")
        control(d, head, csrf, 1, "end")
        day = head.get("/api/tournament").json()
        where = next(t for t in day["rounds"][1]["tables"] if "P03" in t["seats"].values())
        seat = next(s for s, p in where["seats"].items() if p == "P03")
        out = {
            "kind": "replace",
            "round": 2,
            "out": "P03",
            "into": "P16",
            "reason": "withdrew: ill",
        }
        taken = {**out, "into": where["seats"]["E" if seat != "E" else "S"]}
        assert _api(head, csrf, "/api/tournament/corrections", taken).status_code == 409
        assert _api(head, csrf, "/api/tournament/corrections", out).status_code == 200
        after = head.get("/api/tournament").json()
        moved = after["rounds"][1]["tables"][where["table"] - 1]["seats"]
        assert moved == {**where["seats"], seat: "P16"}
        assert "P03" in str(after["rounds"][0]["tables"])  # round 1 as it was played
        control(d, head, csrf, 2, "start")
        play_round(d, rigs, "R2")
        told = rigs[where["table"] - 1].log[0].payload.players
        assert told == tuple(moved[s] for s in "ESWN")
        sessions = {
            x["name"]: x["sessions"]
            for x in head.get("/api/tournament/standings").json()["players"]
        }
        assert sessions["P03"] == 1 and sessions["P16"] == 1 and sessions["P00"] == 2


def test_without_pins_a_player_opens_their_page_by_name(tmp_path: Path) -> None:
    data = tmp_path / "data"
    settings = prepare(None, data)
    assert create(None, data, 2, "--no-pins") == {}
    with Dash(settings) as d:
        c = d.client
        form = c.get("/player")
        assert form.status_code == 200 and 'name="pin"' not in form.text
        token = c.cookies.get("mjref_login_csrf", "")
        assert c.post("/player", data={"name": "P07"}).status_code == 403  # no CSRF token
        assert c.post("/player", data={"name": "nobody", "csrf_token": token}).status_code == 401
        r = c.post("/player", data={"name": "P07", "csrf_token": token})
        assert r.status_code == 200 and "P07" in r.text and "your table" in r.text
