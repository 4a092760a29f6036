"""A rig with recording on: a video file played as the camera and the voice worker's audio go
into the ring, the status names the clip server, camera events cite their video, a win pins its
segments, and the server hands out clips with the dashboard's token only. Each hand's new voice
input goes on the ring's time line (never over the last hand's audio), an alert's moment is
kept until its decision, and a rig opened again records on after what its ring holds."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from hand_audio_kit import LEVELS, decide, hand_wav, hear, level_of, start_session

from referee.events import Event, SessionStarted, Source
from referee.evidence import clips_in
from referee.store import EventStore
from rig.bus.memory import MemoryBus
from rig.config import parse
from rig.evidence import Budget, Recorder
from rig.rig_cli import make_bus
from rig.runtime import Rig
from table_io.clock import FakeClock
from voice.audio_io import SR, write_wav

from .test_rig_hand import CAMERA_PLAY, CAMERA_SETUP, camera_lines

TOKEN = "the-dashboards-token"
WAIT = 60.0  # only reached when something is broken


def video_file(path: Path, seconds: float, fps: int = 10) -> Path:
    out = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, (160, 120))
    for i in range(round(seconds * fps)):
        img = np.full((120, 160, 3), 40, np.uint8)
        cv2.putText(img, str(i), (20, 80), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (255, 255, 255), 2)
        out.write(img)
    out.release()
    return path


async def until(cond: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not cond():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)  # waiting on real I/O (the voice process, the video file)


def fetch(url: str, token: str | None = TOKEN) -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


@pytest.mark.slow
def test_a_rig_records_cites_pins_and_serves(tmp_path: Path) -> None:
    if not Path("models/voice_spotter.onnx").exists():
        pytest.skip("models/voice_spotter.onnx missing")
    noise = np.random.default_rng(1).normal(0, 0.01, int(6 * SR)).astype(np.float32)
    wav = tmp_path / "mic.wav"
    write_wav(wav, noise[:, None])
    camera = tmp_path / "camera.jsonl"
    camera.write_text(camera_lines(CAMERA_SETUP), encoding="utf-8")
    cfg = parse(
        {
            "table": {"id": "T3", "session": "S1", "log": str(tmp_path / "t3.sqlite")},
            "voice": {"file": str(wav)},
            "camera": {"file": str(camera), "follow": True},
            "evidence": {
                "dir": str(tmp_path / "evidence"),
                "video_file": str(video_file(tmp_path / "table.mp4", 6.0)),
                "token": TOKEN,
                "host": "127.0.0.1",
                "segment_s": 2,
                "budget_hours": 1,
            },
        }
    )
    asyncio.run(asyncio.wait_for(_run(cfg, camera), 2 * WAIT))


async def _run(cfg: object, camera: Path) -> None:
    assert hasattr(cfg, "table")
    rig = Rig(cfg, make_bus(cfg))  # type: ignore[arg-type]
    assert rig.evidence is not None
    rec = rig.evidence.recorder
    await rig.start()
    try:
        await until(lambda: rec.last_frame is not None and rec.last_frame > 1.0, "video frames")
        with camera.open("a", encoding="utf-8") as f:  # the camera sees play while recording
            f.write(camera_lines([*CAMERA_PLAY, ("win", {"seat": "S"})]))
        voice = rig.voice
        assert voice is not None  # a file heard: the worker then waits for claims, still running
        await until(
            lambda: rig.supervisor.health["video"].finished and voice.heard_all, "both files played"
        )
        await until(lambda: any(e.type == "win" for e in rig.store.events("T3", "S1")), "the win")
        await rig.idle()
        status = rig.status()
        url = status["evidence_url"]
        assert url.startswith("http://127.0.0.1:") and status["evidence"]["segments"] >= 6
        events = list(rig.store.events("T3", "S1"))
        win = next(e for e in events if e.type == "win")
        cited = clips_in(win.evidence)
        assert [c.kind for c in cited] == ["video"]
        assert cited[0].start == pytest.approx(win.ts - 5.0, abs=0.01) or cited[0].start == 0.0
        pinned = [s for s in rec.ring.find("video", 0.0, 1e9) if s.pinned]
        assert pinned and all(s.start < win.ts + 10.0 for s in pinned)
        assert any(s.pinned for s in rec.ring.find("audio", 0.0, 1e9))  # the voice worker's
        code, body = fetch(f"{url}/clips/video?start=0.5&end=3.5")
        assert code == 200 and body[4:8] == b"ftyp"
        a0 = voice.audio_t0  # the session time the worker's audio began (after its start-up)
        code, body = fetch(f"{url}/clips/audio?start={a0 + 1:.2f}&end={a0 + 4:.2f}")
        assert code == 200 and body[:4] == b"fLaC"
        code, body = fetch(f"{url}/clips/audio?start={a0 + 1:.2f}&end={a0 + 4:.2f}", token=None)
        assert code == 401
        code, body = fetch(f"{url}/clips/video?start=300&end=310")
        detail = json.loads(body)["detail"]
        assert code == 404 and re.search(r"the ring keeps video 0\.\d\d-6\.\d\d$", detail)
    finally:
        await rig.stop()


@pytest.mark.slow
def test_an_undecided_alerts_audio_outlives_the_next_hands_recordings(tmp_path: Path) -> None:
    """Each hand a new voice input whose file starts at 0 (as the demo): the alert raised in the
    first hand keeps its audio, with the first hand's sound, after two more hands; its pin
    holds until the referee's decision is logged."""
    if not Path("models/voice_spotter.onnx").exists():
        pytest.skip("models/voice_spotter.onnx missing")
    cfg = parse(
        {
            "table": {"id": "T5", "session": "S1", "log": str(tmp_path / "t5.sqlite")},
            "evidence": {
                "dir": str(tmp_path / "evidence"),
                "token": TOKEN,
                "host": "127.0.0.1",
                "segment_s": 2,
            },
        }
    )
    wavs = [hand_wav(tmp_path / f"hand{i}.wav", 5.0, lv) for i, lv in enumerate(LEVELS)]
    asyncio.run(asyncio.wait_for(_three_hands(cfg, wavs), 4 * WAIT))


async def _three_hands(cfg: object, wavs: list[Path]) -> None:
    assert hasattr(cfg, "table")
    rig = Rig(cfg, make_bus(cfg))  # type: ignore[arg-type]
    assert rig.evidence is not None
    ring = rig.evidence.recorder.ring
    await rig.start()
    try:
        start_session(rig)
        first = await hear(rig, wavs[0], late_after=1.0)
        proposal = next(o for o in rig.outputs if o.type == "proposal")
        assert first[0] < proposal.ts < first[1]
        for wav in wavs[1:]:  # two more hands, each its own recording from 0 s
            later = await hear(rig, wav)
            assert later[0] >= first[1] - 0.5
        url = rig.status()["evidence_url"]
        a, b = first[0] + 0.5, first[1] - 0.5
        code, body = fetch(f"{url}/clips/audio?start={a:.2f}&end={b:.2f}")
        assert code == 200, body
        assert level_of(body) == pytest.approx(LEVELS[0], abs=0.02)  # the first hand's sound
        assert ring.waiting() == [proposal.payload["id"]]
        decide(rig, proposal.payload["id"])
        await rig.idle()
        assert ring.waiting() == []
    finally:
        await rig.stop()


def test_a_rig_opened_again_records_on_after_what_its_ring_holds(tmp_path: Path) -> None:
    """The session's log ends at 12 s but its microphones were recorded to 30 s: the rig opened
    again goes on at 30 s, so what it records next never lies over what the ring keeps."""
    cfg = parse(
        {
            "table": {"id": "T7", "session": "S1", "log": str(tmp_path / "t7.sqlite")},
            "evidence": {"dir": str(tmp_path / "evidence")},
        }
    )
    assert cfg.evidence is not None
    rec = Recorder(cfg.evidence.dir, "S1", Budget())
    rec.record_audio(0.0, np.zeros(8000 * 30, np.float32), 8000)
    rec.close()
    store = EventStore(cfg.table.log)
    store.append(
        Event(
            table_id="T7",
            session_id="S1",
            seq=0,
            ts=12.0,
            source=Source.REFEREE,
            type="session_started",
            payload=SessionStarted(players=("A", "B", "C", "D")),
        )
    )
    store.close()
    rig = Rig(cfg, MemoryBus(), clock=FakeClock())
    try:
        assert rig.last_ts == 12.0 and rig.clock.now() == pytest.approx(30.0)
    finally:
        rig.store.close()
        assert rig.evidence is not None
        rig.evidence.close()
