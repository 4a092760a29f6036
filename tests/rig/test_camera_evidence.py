"""The live camera recorded: the rig's camera worker, reading a short rendered clip, writes its
frames as MP4 segments and its settled tables as stills into the ring; a camera action's
`video:` and `still:` evidence is served by the clip server (a playable MP4 covering the range,
a JPEG); the ring's budget drops the camera's old segments like any others; and the game
re-derived from what the ring kept, with the same models, has no difference from the log."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from camera_kit import game

from referee.events import Event
from referee.evidence import clips_in
from referee.store import EventStore
from rig.bus.memory import MemoryBus
from rig.cli import main
from rig.config import RigConfig, parse
from rig.evidence import Budget, Ring
from rig.evidence.media import decoded_times
from rig.inputs import Draft
from rig.runtime import Rig
from vision.synth.video import RenderSpec, render_video

from .test_rig_evidence import TOKEN, fetch

pytestmark = pytest.mark.slow
MODELS = Path(__file__).resolve().parents[2] / "models"
CLIP_END = 25.0  # 14 s of play from the deal (10.77 s): draws and discards of every seat
STEP = 0.2  # 5 frames/s


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("clip")
    spec = RenderSpec(960, 540, fps=5, style="text", pose="low", seed=0, hovers=0, end=CLIP_END)
    render_video(list(game()), out / "clip.mp4", out / "truth.jsonl", spec)
    return out / "clip.mp4"


def _config(tmp: Path, clip: Path, realtime: bool = False, **evidence: object) -> RigConfig:
    return parse(
        {
            "table": {"id": "T5", "session": "S1", "log": str(tmp / "t5.sqlite")},
            "camera": {"source": str(clip), "realtime": realtime},
            "evidence": {
                "dir": str(tmp / "evidence"),
                "token": TOKEN,
                "host": "127.0.0.1",
                "segment_s": 2,
                **evidence,
            },
        }
    )


def _camera_finished(rig: Rig) -> bool:
    h = rig.supervisor.health.get("camera")
    return h is not None and h.finished


def _play(
    rig: Rig, check: Callable[[str], None], done: Callable[[Rig], bool] = _camera_finished
) -> float:
    """The clip's hand through the rig until ``done`` (the camera has read the whole clip);
    then ``check(clip server URL)`` and the rig stops. The session time once it has stopped
    (the camera worker records frames until it is stopped, not until the stop is asked)."""
    events = list(game())
    deal = next(i for i, e in enumerate(events) if e.type == "deal")

    async def run() -> float:
        await rig.start()
        try:
            for e in events[: deal + 1]:
                rig.submit("referee", Draft(e.payload, e.source))
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 120
            while not done(rig):
                assert loop.time() < deadline, "the camera did not get there"
                await asyncio.sleep(0.05)  # waiting on the worker process
            await rig.idle()
            assert rig.evidence is not None
            check(rig.evidence.status()["evidence_url"])  # the clip server has its own thread
        finally:
            await rig.stop()
        return rig.clock.now()

    return asyncio.run(run())


def _camera_actions(rig: Rig) -> list[Event]:
    logged = rig.store.events(rig.table_id, rig.session_id)
    return [e for e in logged if e.source == "vision" and e.type in ("draw", "discard")]


def test_camera_actions_cite_video_and_stills_the_rig_serves_and_rederive_agrees(
    tmp_path: Path, clip: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = _config(tmp_path, clip)
    rig = Rig(cfg, MemoryBus("local"))
    assert rig.evidence is not None
    rec = rig.evidence.recorder
    actions: list[Event] = []

    def served(url: str) -> None:
        actions.extend(_camera_actions(rig))
        assert len(actions) >= 6, "the clip's play did not reach the log"
        kept = rec.ring.kept("video")
        assert len(kept) == 1 and len(rec.ring.find("video", 0.0, 1e9)) >= 6
        first, last = kept[0]
        inside = [
            c
            for e in actions
            for c in clips_in(e.evidence)
            if c.kind == "video" and first <= c.start and c.end <= last
        ]
        assert inside, f"no camera action's video lies within the recording {kept}"
        ref = inside[len(inside) // 2]
        code, body = fetch(f"{url}/clips/video?start={ref.start:.2f}&end={ref.end:.2f}")
        assert code == 200 and body[4:8] == b"ftyp"
        times = decoded_times(body)  # a playable MP4 whose frames cover the cited range
        assert len(times) >= round((ref.end - ref.start) / STEP) - 1
        assert times[-1] == pytest.approx(ref.end - ref.start, abs=STEP + 0.01)

        stills = [c for e in actions for c in clips_in(e.evidence) if c.kind == "still"]
        assert len(stills) >= len(actions) // 2, "the actions cite no still of their change"
        code, body = fetch(f"{url}/stills?t={stills[-1].ts:.2f}")
        assert code == 200 and body[:2] == b"\xff\xd8"
        still = rec.ring.latest_still(stills[-1].ts)
        # (the citation has 2 decimals, the ring its ms: 12.425 is cited 12.42 or 12.43)
        assert still is not None and abs(still.start - stills[-1].ts) <= 0.005 + 1e-9

    _play(rig, served)
    assert cfg.evidence is not None and actions
    args = ["review", "rederive", str(cfg.table.log), "--models", str(MODELS)]
    code = main([*args, "--evidence", str(cfg.evidence.dir), "--json"])
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert "no longer keeps" not in out.err
    assert (code, report["differences"], report["hands"]) == (0, [], [])
    assert report["compared"] >= len(actions)


def test_the_rings_budget_drops_the_cameras_old_segments_and_rederive_says_what_is_gone(
    tmp_path: Path, clip: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = _config(tmp_path, clip, budget_hours=0.001)  # 3.6 s behind the newest segment
    rig = Rig(cfg, MemoryBus("local"))
    assert rig.evidence is not None and cfg.evidence is not None
    rec = rig.evidence.recorder
    kept: list[tuple[float, float]] = []
    deals: list[Event] = []

    def dropped(url: str) -> None:
        assert rec.ring.dropped >= 3
        kept.extend(rec.ring.kept("video"))
        [(first, last)] = kept
        assert last - first <= 3.6 + 2 + STEP  # the budget and the segment that crosses it
        deal = next(e for e in rig.store.events("T5", "S1") if e.type == "deal")
        deals.append(deal)
        code, body = fetch(f"{url}/clips/video?start={deal.ts:.2f}&end={deal.ts + 2:.2f}")
        detail = json.loads(body)["detail"]
        assert code == 404 and f"the ring keeps video {first:.2f}-{last:.2f}" in detail
        assert rec.ring.latest_still(first - 1.0) is None  # the camera's old stills went too
        segments = rec.ring.find("video", 0, 1e9)
        on_disk = list((cfg.evidence.dir / "S1" / "video").glob("*.mp4"))  # type: ignore[union-attr]
        assert len(on_disk) == len(segments)  # dropped from the index and from the disk

    _play(rig, dropped)
    deal = deals[0]
    args = ["review", "rederive", str(cfg.table.log), "--models", str(MODELS)]
    code = main([*args, "--evidence", str(cfg.evidence.dir / "S1"), "--json"])  # its own folder
    out = capsys.readouterr()
    [line] = [ln for ln in out.err.splitlines() if "no longer keeps" in ln]
    assert f"the video of {deal.ts:.2f}-{kept[0][0]:.2f} of the hand" in line
    assert f"(it keeps {kept[0][0]:.2f}-{kept[0][1]:.2f})" in line
    report = json.loads(out.out)  # what the rest of the hand gives is still compared
    assert code in (0, 1) and report["compared"] >= 6


def test_a_rig_stopped_mid_segment_keeps_what_the_camera_recorded_of_it(
    tmp_path: Path, clip: Path
) -> None:
    cfg = _config(tmp_path, clip, realtime=True, segment_s=60)  # no segment ends before the stop
    rig = Rig(cfg, MemoryBus("local"))

    assert rig.evidence is not None
    rec = rig.evidence.recorder

    def seen(rig: Rig) -> bool:
        return any(e.source == "vision" for e in rig.store.events("T5", "S1"))

    def none_finished_yet(url: str) -> None:
        assert rec.ring.find("video", 0.0, 1e9) == []  # the worker's segment is still open

    stopped = _play(rig, none_finished_yet, seen)
    with EventStore(cfg.table.log) as store:  # the frames the camera acted on: their stills
        logged = [e for e in store.events("T5", "S1") if e.source == "vision"]
    read = max(c.ts for e in logged for c in clips_in(e.evidence) if c.kind == "still")
    assert cfg.evidence is not None
    ring = Ring(cfg.evidence.dir, Budget(), "S1")
    try:
        [segment] = ring.find("video", 0.0, 1e9)
        # the segment is closed whole at the stop: it holds every frame up to the last one the
        # camera acted on (a loaded machine's worker lags the rig's clock: not up to the stop)
        assert read < segment.end <= stopped + STEP and decoded_times(segment.path)
    finally:
        ring.close()
