"""`mjref demo`: the smoke check agrees with the simulation through the real pipelines and
fails (exit 1) when one is broken on purpose (the camera stream loses 10 s of frames); the live
demo prints its URL and login, serves the dashboard and stops cleanly on SIGINT; a table's rig
killed mid-hand (SIGKILL) is started again and neither its log nor the dashboard lose a thing."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from demokit import MJREF, Demo

from referee.duties import RefereeTable
from referee.events import Event, parse_line
from referee.store import EventStore
from rig.runtime import state_digest

pytestmark = pytest.mark.slow


def _smoke(cache: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MJREF, "demo", "--smoke", "--cache", str(cache), "--out", str(out), *extra],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_smoke_check_agrees_with_the_simulation(demo_cache: Path, tmp_path: Path) -> None:
    """One hand here, on a machine the other workers load (CI's `./run demo --smoke --hands 2`
    plays two, the second made while the first plays: 216 s instead of 72 in the suite)."""
    run = _smoke(demo_cache, tmp_path / "good")
    assert run.returncode == 0, run.stdout + run.stderr
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary["agree"] is True and summary["hands"] == 1
    assert summary["actions"] > 20
    assert "WMC-5.2" in summary["alerts"]  # the claim left unspoken in the table audio
    # every finding a referee is shown is one the demo planted in that hand, and each planted
    # one is shown: none more (a spoken claim flagged), none missing
    findings = summary["findings"]
    assert findings["raised"] == findings["planted"]
    assert ["WMC-5.2", "N", 1] in findings["planted"]
    assert [score["value"] > 0 for score in summary["scores"]] == [True]


def test_the_smoke_check_fails_when_the_camera_loses_frames(
    demo_cache: Path, tmp_path: Path
) -> None:
    # the camera lost from 10 s to the end: the record cannot agree (a 10 s gap mid-hand no
    # longer breaks it: fusion puts the actions seen at once after the gap in the rules' order)
    broken = _smoke(demo_cache, tmp_path / "broken", "--drop-frames", "10-1000")
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert json.loads(broken.stdout.strip().splitlines()[-1])["agree"] is False
    assert "differs" in broken.stderr and "Traceback" not in broken.stderr


def test_the_demo_serves_the_dashboard_and_stops_cleanly_on_sigint(
    demo_cache: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"  # the first hand made, the second not: it is being made at the stop
    cache.mkdir()
    for made in demo_cache.glob("*-hand0-*"):
        (cache / made.name).symlink_to(made)
    demo = Demo(cache, tmp_path, "--tables", "1")
    try:
        time.sleep(5)  # the table's rig and its workers are up
    finally:
        code, err = demo.stop()
    assert code == 0, err
    assert "Traceback" not in err
    left = subprocess.run(
        ["pgrep", "-f", str(cache)], capture_output=True, text=True, check=False
    ).stdout.split()
    assert left == []  # no worker outlived the demo


def _log(path: Path) -> list[tuple[int, str, str]]:
    return _key(_events(path))


def _events(path: Path) -> list[Event]:
    if not path.exists():
        return []
    with EventStore(path) as store:
        return list(store.events("T1", "S1"))


def _dashboard_events(data: Path) -> list[Event]:
    """The events of T1/S1 as the dashboard stored them (its SQLite, read-only)."""
    db = sqlite3.connect(f"file:{data / 'dashboard.sqlite'}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT body FROM events WHERE table_id='T1' AND session_id='S1' ORDER BY seq"
        ).fetchall()
    finally:
        db.close()
    return [parse_line(body) for (body,) in rows]


def _key(events: list[Event]) -> list[tuple[int, str, str]]:
    return [(e.seq, e.type, e.payload.model_dump_json()) for e in events]


def _digest(events: list[Event]) -> str:
    """The table state the events give."""
    duty = RefereeTable("T1", "S1")
    for e in events:
        duty.apply(e)
    return state_digest(duty)


def _rig_pid(demo: Demo) -> int | None:
    out = subprocess.run(
        ["pgrep", "-f", "only-table T1"], capture_output=True, text=True, check=False
    ).stdout.split()
    mine = [int(p) for p in out if _parent(int(p)) == demo.proc.pid]
    return mine[0] if mine else None


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def _wait(cond: Any, what: str, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)  # waiting on the demo's processes


def test_a_rig_killed_mid_hand_restarts_and_nothing_is_lost(
    demo_cache: Path, tmp_path: Path
) -> None:
    if shutil.which("mosquitto") is None:
        pytest.skip("mosquitto not installed")
    log = tmp_path / "T1.sqlite"
    demo = Demo(demo_cache, tmp_path, "--tables", "1", "--hands", "1", "--mqtt")
    try:
        _wait(lambda: sum(t == "discard" for _, t, _ in _log(log)) >= 4, "the hand under way", 480)
        pid = _rig_pid(demo)
        assert pid is not None
        before = _log(log)
        os.kill(pid, signal.SIGKILL)  # mid-hand: the rig, its conductor and its table link
        _wait(lambda: (p := _rig_pid(demo)) is not None and p != pid, "the rig started again")
        _wait(lambda: len(_log(log)) > len(before) + 2, "play going on after the restart")
        after = _log(log)
        assert after[: len(before)] == before  # the log kept every event, in order
        assert [s for s, _, _ in after] == list(range(len(after)))  # no gap, no repeat
        data = tmp_path / "dashboard"
        _wait(lambda: len(_dashboard_events(data)) >= len(after), "the dashboard catching up", 60)
        seen = _dashboard_events(data)
        assert _key(seen)[: len(after)] == after  # the dashboard holds the rig's record exactly
        assert _digest(seen) == _digest(_events(log)[: len(seen)])  # the same table state
    finally:
        code, err = demo.stop()
    assert code == 0, err
    assert "starting it again" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--tables", "0"), "--tables"),
        (("--tables", "17"), "--tables"),
        (("--hands", "5"), "--hands"),
        (("--seed", "-1"), "--seed"),
        (("--speed", "0"), "--speed"),
        (("--port", "70000"), "--port"),
        (("--drop-frames", "soon"), "--drop-frames"),
        (("--soak", "0"), "--soak"),
        (("--soak", "5", "--mqtt"), "--soak"),
        (("--out", "/proc/version/demo"), "expected a folder it can write"),
    ],
)
def test_bad_demo_arguments_are_refused_in_one_line(
    args: tuple[str, ...], says: str, tmp_path: Path
) -> None:
    argv = [*MJREF, "demo", "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "out")]
    run = subprocess.run([*argv, *args], capture_output=True, text=True, timeout=120, check=False)
    said = [line for line in run.stderr.splitlines() if line.strip()]
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert says in said[-1]


def test_a_taken_dashboard_port_is_refused_before_anything_starts(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        argv = [*MJREF, "demo", "--port", port, "--out", str(tmp_path / "out")]
        run = subprocess.run(
            [*argv, "--cache", str(tmp_path / "c")],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"--port {port}: the port is taken" in run.stderr and "dashboard:" not in run.stdout
