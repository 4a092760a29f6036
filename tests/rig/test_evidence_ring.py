"""The evidence ring keeps to its budget under a 4-hour soak (simulated session time, small
synthetic frames) while the segments around alerts survive; clips are cut by session time; each
hand's recording goes on the ring's time line, never over another's; an alert's pin holds, in
later sessions too, until the decision on it is logged."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from referee.duties import RefereeTable
from referee.events import (
    EngineEvent,
    Event,
    Payload,
    PenaltyDecision,
    PlayerLate,
    RefereeDecision,
    SessionStarted,
    Source,
)
from referee.hands import Wind
from rig.config import parse
from rig.evidence import Budget, NotKept, Recorder
from rig.evidence.media import AudioWriter, decoded_times
from rig.evidence.wiring import RigEvidence
from rig.inputs.voice import AudioRecording

FPS = 0.5  # sparse frames and a low rate keep the 4-hour soak quick; the ring is the same
BYTES = 1_000_000
RATE = 4000


def frame(t: float) -> np.ndarray:
    """A tiny frame whose brightness tells its time (so a clip's frames can be checked)."""
    img = np.zeros((48, 64, 3), np.uint8)
    img[:, :, 1] = int(t * 10) % 200 + 20
    img[:, : int(t) % 64, 2] = 255
    return img


def feed(rec: Recorder, t0: float, t1: float) -> None:
    """Camera frames at FPS and 0.5 s audio blocks from t0 to t1, in session time."""
    n = round((t1 - t0) * FPS)
    for i in range(n):
        t = t0 + i / FPS
        rec.record_frame(t, frame(t))
        tone = 0.3 * np.sin(2 * np.pi * 440 * (t + np.arange(round(RATE / FPS)) / RATE))
        rec.record_audio(t, tone.astype(np.float32), RATE)


@pytest.mark.slow
def test_four_hour_soak_keeps_the_budget_and_the_pinned_segments(tmp_path: Path) -> None:
    rec = Recorder(tmp_path / "ring", "S1", Budget(bytes=None, seconds=1800.0), segment_s=10.0)
    alerts = [600.0, 5400.0, 12000.0]
    t, hour, step = 0.0, 3600.0, 300.0
    while t < 4 * hour:
        feed(rec, t, t + step)
        t += step
        for a in alerts:
            if t - step <= a < t:
                rec.pin(a, f"alert at {a}")
        for kind in ("video", "audio"):
            segments = rec.ring.find(kind, 0.0, 1e9)
            newest = max(s.end for s in segments)
            loose = [s for s in segments if not s.pinned]
            assert all(s.end >= newest - 1800.0 for s in loose)  # the hours' budget
            assert sum(s.end - s.start for s in loose) <= 1800.0 + 10.0  # + the open segment
    rec.flush()
    video = rec.ring.kept("video")
    # what is left: the pins around the first two alerts, and the last half hour
    assert video[0][0] <= 570.0 and video[0][1] >= 610.0 and video[0][1] < 700.0
    assert video[1][0] <= 5370.0 and video[1][1] >= 5410.0
    assert video[-1][0] >= 4 * hour - 1800.0 - 10.0
    for a in alerts:
        clip = rec.clip("video", a - 5.0, a + 5.0)
        shots = [t for t in np.arange(a - 5.0, a + 5.0 + 1e-9, 0.5) if t % (1 / FPS) == 0]
        assert (clip.start, clip.end) == pytest.approx((shots[0], shots[-1]))
        assert decoded_times(clip.data) == pytest.approx([t - shots[0] for t in shots])
        sound = rec.clip("audio", a - 5.0, a + 5.0)
        samples, rate = sf.read(io.BytesIO(sound.data))
        assert rate == RATE and len(samples) == 10 * RATE
    files = {p for p in (tmp_path / "ring").rglob("*") if p.suffix in (".mp4", ".flac")}
    assert len(files) == rec.ring.usage()["segments"]  # the files dropped are gone from disk


@pytest.mark.slow
def test_the_byte_budget_holds_and_a_dropped_range_names_what_is_kept(tmp_path: Path) -> None:
    rec = Recorder(tmp_path / "ring", "S1", Budget(bytes=BYTES, seconds=None), segment_s=10.0)
    rec.pin(300.0, "proposal")
    sizes = []
    for t in range(0, 1800, 60):
        feed(rec, float(t), t + 60.0)
        sizes.append(rec.ring.usage()["bytes"])
    rec.flush()
    pinned = sum(s.bytes for k in ("video", "audio") for s in rec.ring.find(k, 0, 1e9) if s.pinned)
    assert pinned > 0
    assert pinned < BYTES and max(sizes) <= BYTES
    assert rec.ring.usage()["dropped"] > 0
    with pytest.raises(NotKept) as err:
        rec.clip("video", 100.0, 110.0)
    text = str(err.value)
    assert "no video of session S1 100.00-110.00" in text
    assert "the ring keeps video 270.00-310.00" in text  # the pinned range, then the newest
    assert text.rstrip().endswith("-1800.00")
    assert rec.clip("video", 295.0, 305.0).data  # the pinned one is served


def test_a_new_session_releases_the_old_pins(tmp_path: Path) -> None:
    old = Recorder(tmp_path / "ring", "S1", Budget(bytes=None, seconds=60.0))
    feed(old, 0.0, 40.0)
    old.pin(10.0, "win")
    feed(old, 40.0, 200.0)
    old.flush()
    assert old.ring.kept("video", "S1")[0][0] == 0.0
    new = Recorder(tmp_path / "ring", "S2", Budget(bytes=50_000, seconds=60.0))
    feed(new, 0.0, 300.0)
    new.flush()
    assert new.ring.kept("video", "S1") == []  # S1's pins hold no more: dropped by size first
    assert new.ring.kept("video", "S2")


def test_stills_are_kept_and_served_as_of_a_time(tmp_path: Path) -> None:
    rec = Recorder(tmp_path / "ring", "S1", Budget())
    img = np.zeros((40, 40, 3), np.uint8)
    assert rec.record_still(12.5, img) == "still:12.50"
    img[:] = 255
    rec.record_still(20.0, img)
    assert rec.still(19.0).start == 12.5 and rec.still(20.0).start == 20.0
    assert rec.still(25.0).data[:2] == b"\xff\xd8"  # a JPEG
    with pytest.raises(NotKept, match=r"the ring keeps still 12.50-12.50, 20.00-20.00"):
        rec.still(3.0)


def test_a_gap_in_the_audio_starts_a_new_segment(tmp_path: Path) -> None:
    rec = Recorder(tmp_path / "ring", "S1", Budget())
    rec.record_audio(0.0, np.zeros(RATE * 3, np.float32), RATE)
    rec.record_audio(10.0, np.zeros(RATE * 2, np.float32), RATE)  # 7 s nobody recorded
    rec.flush()
    assert rec.ring.kept("audio") == [(0.0, 3.0), (10.0, 12.0)]
    with pytest.raises(NotKept, match=r"keeps audio 0.00-3.00, 10.00-12.00"):
        rec.clip("audio", 4.0, 9.0)


def worker_hand(rec: Recorder, t0: float, seconds: float, level: float) -> None:
    """A hand's audio as the voice worker records it: FLAC segments on its own time line (from
    0, in a folder of its own), each put on the ring's at ``t0`` + its audio time (as
    rig/inputs/voice.py does)."""
    recording = AudioRecording(rec.incoming("audio"), rec.segment_s, rec.take_file)
    run = Path(recording.argv()[1])

    def done(kind: str, start: float, end: float, path: Path) -> None:
        recording.on_segment(kind, t0 + start, t0 + end, path)

    writer = AudioWriter(run, done, rec.segment_s)
    for i in range(round(seconds * 2)):
        writer.write(i / 2, np.full(RATE // 2, level, np.float32), RATE)
    writer.close()


def test_each_hands_recording_goes_on_the_rings_time_line_never_over_another(
    tmp_path: Path,
) -> None:
    rec = Recorder(tmp_path / "ring", "S1", Budget(), segment_s=10.0)
    for hand, level in enumerate((0.1, 0.3, 0.5)):  # three hands, each worker from 0 s
        worker_hand(rec, 100.0 + 40.0 * hand, 25.0, level)
    assert rec.ring.kept("audio") == [(100.0, 125.0), (140.0, 165.0), (180.0, 205.0)]
    names = sorted(p.name for p in (tmp_path / "ring" / "S1" / "audio").iterdir())
    assert names[0] == "000000100000.flac" and len(names) == 9  # by session time
    for start, level in ((105.0, 0.1), (150.0, 0.3), (190.0, 0.5)):
        samples, _ = sf.read(io.BytesIO(rec.clip("audio", start, start + 12.0).data))
        assert len(samples) == 12 * RATE and np.allclose(samples, level, atol=1e-3)
    assert not list((tmp_path / "ring" / ".incoming" / "audio").rglob("*.flac"))


def test_a_segment_is_never_written_over(tmp_path: Path) -> None:
    rec = Recorder(tmp_path / "ring", "S1", Budget(), segment_s=10.0)
    for level in (0.1, 0.4):  # two recordings that claim the same session time
        rec.record_audio(50.0, np.full(RATE * 2, level, np.float32), RATE)
        rec.flush()
    files = sorted(p.name for p in (tmp_path / "ring" / "S1" / "audio").iterdir())
    assert files == ["000000050000-1.flac", "000000050000.flac"]
    samples, _ = sf.read(io.BytesIO(rec.clip("audio", 50.0, 52.0).data))
    assert np.allclose(samples, 0.1, atol=1e-3)  # each instant once: the first recording's
    with pytest.raises(ValueError, match="never written over"):
        rec.ring.add("audio", 60.0, 62.0, tmp_path / "ring" / "S1" / "audio" / files[1])


def test_an_alerts_pin_holds_in_later_sessions_until_it_is_decided(tmp_path: Path) -> None:
    old = Recorder(tmp_path / "ring", "S1", Budget(bytes=None, seconds=60.0))
    feed(old, 0.0, 40.0)
    old.pin(10.0, "proposal WMC-5.2@7:S", holds="WMC-5.2@7:S")
    feed(old, 40.0, 200.0)
    old.flush()
    old.close()
    new = Recorder(tmp_path / "ring", "S2", Budget(bytes=50_000, seconds=60.0))
    feed(new, 0.0, 300.0)
    new.flush()
    kept = new.ring.kept("video", "S1")
    assert kept and kept[0][0] == 0.0 and kept[-1][1] >= 20.0  # undecided: held in S2 too
    assert new.ring.waiting("S1") == ["WMC-5.2@7:S"]
    assert new.release("WMC-5.2@7:S", "seq 90", "S1") == 1
    assert new.release("WMC-5.2@7:S", "seq 90", "S1") == 0  # the same decision heard again
    feed(new, 300.0, 320.0)  # the ring needs room again: the decided moment goes first
    new.flush()
    assert new.ring.kept("video", "S1") == [] and new.ring.waiting("S1") == []


def test_the_rig_pins_each_queued_alert_and_releases_it_at_its_decision(tmp_path: Path) -> None:
    cfg = parse({"table": {"id": "T1"}, "evidence": {"dir": str(tmp_path / "ev")}}).evidence
    assert cfg is not None
    ev = RigEvidence(cfg, "S1")
    duty = RefereeTable("T1", "S1")

    def log(seq: int, payload: Payload, outputs: list[EngineEvent] | None = None) -> list[Any]:
        """The event logged, the core's outputs (or ``outputs``) noted by the rig's evidence."""
        e = Event(
            table_id="T1",
            session_id="S1",
            seq=seq,
            ts=10.0 * seq,
            source=Source.REFEREE,
            type=payload.TYPE,
            payload=payload,
        )
        found = duty.apply(e).outputs() if outputs is None else outputs
        ev.note(e, found)
        return [o.payload for o in found]

    log(0, SessionStarted(players=("A", "B", "C", "D")))
    outputs = log(1, PlayerLate(seat=Wind.S, seconds=40))  # a proposal and its alert
    proposal = next(o["id"] for o in outputs if "id" in o)
    bare = EngineEvent(  # an alert of its own (no proposal): acknowledged, not decided
        table_id="T1",
        session_id="S1",
        seq=9,
        ts=20.0,
        type="alert",
        cause=2,
        payload={"rule": "WMC-10.1", "severity": "warning", "message": "-", "seq": 2},
    )
    log(2, RefereeDecision(referee="x", decision="note"), [bare])
    assert ev.recorder.ring.waiting() == [proposal, "alert@2"]
    ack = {"ack": [proposal, "alert:S1:1"], "seqs": [1, 2]}  # a proposal acknowledged waits on
    log(3, RefereeDecision(referee="x", decision="note", about_seq=1, data=ack))
    assert ev.recorder.ring.waiting() == [proposal]
    log(4, PenaltyDecision(proposal=proposal, verdict="dismiss", referee="x", reason="r"))
    assert ev.recorder.ring.waiting() == []
    ev.close()
