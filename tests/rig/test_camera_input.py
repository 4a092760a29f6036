"""The camera as the rig's input: a short rendered clip (an mp4 file, as a recording of the
overhead camera) is read by the camera worker's pipeline and its actions land in the rig's log
exactly; a worker that cannot load its models is restarted and reported."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from camera_kit import game

from referee.events import Event
from referee.store import EventStore
from rig.bus.memory import MemoryBus
from rig.config import ConfigError, parse
from rig.inputs import Draft
from rig.runtime import Rig
from vision.camera_eval import action_key
from vision.synth.video import RenderSpec, render_video

KINDS = ("draw", "discard", "chow", "pung", "kong", "win")
CLIP_END = 31.0  # the clip of tests/vision: its actions up to 29 s are settled in it


def _setup(events: list[Event]) -> list[Draft]:
    deal = next(i for i, e in enumerate(events) if e.type == "deal")
    return [Draft(e.payload, e.source) for e in events[: deal + 1]]


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("clip")
    spec = RenderSpec(1280, 720, fps=5, style="text", pose="low", seed=11, hovers=0, end=CLIP_END)
    render_video(list(game()), out / "clip.mp4", out / "truth.jsonl", spec)
    return out / "clip.mp4"


async def _play(rig: Rig, setup: list[Draft], until: float) -> None:
    await rig.start()
    try:
        for draft in setup:
            rig.submit("referee", draft)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + until
        while loop.time() < deadline:
            if rig.supervisor.health.get("camera") and rig.supervisor.health["camera"].finished:
                break
            await asyncio.sleep(0.05)  # waiting on the worker process
        await rig.idle()
    finally:
        await rig.stop()


@pytest.mark.slow
def test_a_rendered_clip_through_the_rig_gives_exactly_the_expected_actions(
    tmp_path: Path, clip: Path
) -> None:
    cfg = parse(
        {
            "table": {"log": str(tmp_path / "t.sqlite")},
            "camera": {"source": str(clip), "realtime": False},
        }
    )
    rig = Rig(cfg, MemoryBus("local"))
    events = list(game())
    asyncio.run(_play(rig, _setup(events), 120))
    with EventStore(tmp_path / "t.sqlite") as store:
        logged = list(store.events(rig.table_id, rig.session_id))
    got = [action_key(e) for e in logged if e.type in KINDS and e.source == "vision"]
    want = [action_key(e) for e in events if e.type in KINDS and e.ts <= CLIP_END - 2]
    assert got == want
    cited = [e for e in logged if e.source == "vision"]
    assert all(any(r.startswith("video:") for r in e.evidence) for e in cited)
    assert rig.supervisor.health["camera"].restarts == 0


@pytest.mark.slow
def test_a_camera_that_cannot_load_its_models_is_restarted_and_reported(
    tmp_path: Path, clip: Path
) -> None:
    broken = tmp_path / "models"
    broken.mkdir()
    (broken / "tile_detector.onnx").write_bytes(b"not a model")
    cfg = parse(
        {
            "table": {"log": str(tmp_path / "t.sqlite")},
            "camera": {"source": str(clip), "models": str(broken)},
            "supervise": {"backoff_min": 0.05, "backoff_max": 0.1},
        }
    )
    rig = Rig(cfg, MemoryBus("local"))

    async def run() -> None:
        await rig.start()
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60
            while "camera" not in rig.supervisor.health or (
                rig.supervisor.health["camera"].restarts < 2
            ):
                assert loop.time() < deadline, "the camera worker was not restarted"
                await asyncio.sleep(0.05)
        finally:
            await rig.stop()

    asyncio.run(run())
    health = rig.supervisor.health["camera"]
    assert health.state in ("degraded", "down")
    assert "camera worker exited 2" in health.detail and "models" in health.detail


def test_camera_config_needs_exactly_one_of_source_or_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        parse({"camera": {"source": str(tmp_path / "missing.mp4")}})
    assert "camera.source" in str(err.value) and "no such video file" in str(err.value)
    with pytest.raises(ConfigError) as err:
        parse({"camera": {}})
    assert "exactly one of source" in str(err.value)
    assert parse({"camera": {"source": "0"}}).camera is not None


@pytest.mark.slow
def test_the_worker_reads_no_frame_before_it_has_followed_the_whole_log(clip: Path) -> None:
    """A worker given the first part of the log (a hand already dealt: the last hand's, its
    pipe not yet read through on a loaded machine) waits for the rest before its first frame;
    it once took that part for the hand it films and read the frames up to the last one that
    hand's actions cited without actions (T1 hand 2: its first 22 actions lost)."""
    import json
    import subprocess
    import sys
    import threading
    import time

    from rig.inputs.camera import CAUGHT_UP

    events = list(game())
    deal = next(i for i, e in enumerate(events) if e.type == "deal")
    proc = subprocess.Popen(
        [sys.executable, "-m", "rig.camera_worker", "--source", str(clip), "--now", "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    said: list[dict[str, object]] = []
    reading = threading.Thread(target=lambda: said.extend(json.loads(x) for x in proc.stdout))
    reading.start()
    try:
        for e in events[: deal + 1]:  # a hand dealt: enough to look like one in play
            proc.stdin.write(e.model_dump_json() + "\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while len(said) < 6:  # up, its models loaded, waiting: 3 s (it once read frames here)
            assert time.monotonic() < deadline, "the worker said nothing"
            time.sleep(0.2)  # waiting on the worker process
        assert all(m == {"alive": 0} for m in said), said[:5]
        proc.stdin.write(CAUGHT_UP + "\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 120
        while not any("end" in m for m in said):
            assert time.monotonic() < deadline, "the worker did not read its file"
            time.sleep(0.2)
    finally:
        proc.stdin.close()
        proc.wait(30)
        reading.join(10)
    seen = [m["event"] for m in said if "event" in m]
    assert any(isinstance(e, dict) and e.get("type") == "discard" for e in seen)
