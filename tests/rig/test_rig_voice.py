"""The rig hears the table: a four-microphone recording of a simulated hand (voice.scene, as
bench/table_audio.py makes them) with one claim left unspoken and one tile slammed, the play
from a camera file, the session in simulated time. The voice input calibrates, checks every
claim the core records and hears the slam; the core raises WMC-5.2 and WMC-13.6 with their
audio clips; the alerts go out on the bus and the dashboard lists them with the evidence. The
same in the session's second hand, where every player's seat wind has moved one chair on from
the microphone of the same name. Without microphones a claim gets no alert and the record
says why; a bad audio file in the config is a clear config error."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dashkit import Dash, prepare

from referee.events import ClaimCheck, Event, VoiceSetup
from referee.game.sim import simulate
from referee.store import EventStore
from rig.bus import topic_filter
from rig.bus.memory import MemoryBus
from rig.cli import main as mjref
from rig.config import ConfigError, parse
from rig.runtime import Rig
from table_io.clock import FakeClock
from venue.demo_media import split_hands
from voice.audio_io import SR, Audio, write_wav
from voice.scene import Scene, tile_clack
from voice.verify import CAMERA_LAG_S, OPEN_MAX_S, PRE_S, Claim, claims_from_events

REPO = Path(__file__).resolve().parents[2]
WAIT = 60.0  # generous: only reached when something is broken
WORDS = {"chow": "chi1", "pung": "peng4", "kong": "gang4", "win": "hu2", "selfdraw": "zi4 mo1"}
CLIP = re.compile(r"^audio:(\d+\.\d\d)-(\d+\.\d\d)@([ESWN])$")


@pytest.fixture(scope="module")
def say() -> Callable[[str], Audio]:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed (Debian package espeak-ng)")
    from voice import synth

    def _say(text: str) -> Audio:
        return synth.espeak(text, "cmn-latn-pinyin", synth.Voice("espeak", "m3", 1.0, 50))

    return _say


def hand(index: int = 0) -> tuple[list[Event], list[Event]]:
    """Hand ``index`` of a simulated session (its calls taken out) and the hands before it, its
    idle time squeezed to keep the audio short: 10.5 s after the hands before (calibration),
    0.6 s at most between events, 1.8 s from a discard or draw to its exposure (room for the
    call). Audio time 0 is the end of the hands before."""
    hands = split_hands(simulate(hands=index + 1, seed=3))
    ours = {"table_id": "T1", "session_id": "S1"}
    before = [e.model_copy(update=ours) for h in hands[:index] for e in h]
    out: list[Event] = []
    t = (before[-1].ts if before else 0.0) + 10.5
    for e in hands[index]:
        if e.type == "call":
            continue
        if out:
            exposure = e.type in ("chow", "pung", "kong", "win")
            t += 1.8 if exposure else min(e.ts - out[-1].ts, 0.6)
        out.append(e.model_copy(update={"ts": round(t, 3)}))
    return before, out


def unspoken_of(claims: list[Claim]) -> Claim:
    """S's pung in the first hand; in a later one, the first chow or pung not by East."""
    melds = [c for c in claims if c.kind in ("chow", "pung") and c.seat != "E"]
    return next((c for c in melds if c.kind == "pung" and c.seat == "S"), melds[0])


def render(
    events: list[Event], say: Callable[[str], Audio], index: int = 0, t0: float = 0.0
) -> tuple[Audio, Claim, Event]:
    """The hand's sounds at the sim's times (less ``t0``, the audio's start), each on the
    microphone of its player's chair (hand ``index``'s East sits at chair ``index``): clacks, a
    call for every claim but one pung or chow, a slam at one discard and the winning tile
    slammed (allowed)."""
    rng = np.random.default_rng(11)
    scene = Scene(events[-1].ts - t0 + 4.0, rng)

    def mic(seat: int) -> int:
        return (index + seat) % 4

    for t in np.arange(1.0, 10.0, 0.9):  # the wall built: clacks to calibrate on
        scene.add(int(rng.integers(4)), tile_clack(rng), float(t), -28 + float(rng.uniform(-3, 3)))
    discards = [e for e in events if e.type == "discard"]
    slam = discards[len(discards) // 3]
    for e in events:
        seat = getattr(e.payload, "seat", None)
        if seat is None:
            continue
        ts = e.ts - t0
        if e is slam:
            scene.add(mic(seat), tile_clack(rng), ts, -5)
        elif e.type == "discard":
            scene.add(mic(seat), tile_clack(rng), ts, -26 + float(rng.uniform(-3, 3)))
        elif e.type in ("draw", "replacement_draw"):
            scene.add(mic(seat), tile_clack(rng), ts, -32)
        elif e.type in ("chow", "pung", "kong"):
            for k in range(3):
                scene.add(mic(seat), tile_clack(rng), ts + 0.12 * k, -27)
        elif e.type == "win":
            scene.add(mic(seat), tile_clack(rng), ts, -5)  # the winning tile, once: allowed
    claims = claims_from_events(events)
    silent = unspoken_of(claims)
    for c in claims:
        if c is not silent:
            scene.add(mic("ESWN".index(c.seat)), say(WORDS[c.kind]), c.t_discard - t0 + 0.4, -14)
    return scene.render(), silent, slam


def camera_line(e: Event) -> str:
    payload = e.payload.model_dump(mode="json")
    head = {"table_id": "X", "session_id": "X", "seq": 0, "ts": 0, "source": "vision"}
    return json.dumps({**head, "type": e.type, "payload": payload}) + "\n"


async def until(cond: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)  # waiting on real work: the voice process, the core task


async def play(rig: Rig, clock: FakeClock, camera: Path, events: list[Event], end: float) -> None:
    """Each event's line written to the camera file at its time on the session clock."""
    cam = next(i for i in rig.inputs if i.name == "camera")
    for n, e in enumerate(events, 1):
        await clock.advance(max(0.0, e.ts - 0.03 - clock.now()))
        with camera.open("a", encoding="utf-8") as f:
            f.write(camera_line(e))
        await clock.advance(0.03)

        def taken(n: int = n) -> bool:
            return cam.done >= n and rig._queue.empty()  # type: ignore[attr-defined]

        await until(taken, f"line {n} logged")
    await clock.advance(end - clock.now())


def config(tmp: Path, camera: Path, wav: Path | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "table": {"id": "T1", "session": "S1", "log": str(tmp / "t1.sqlite")},
        "camera": {"file": str(camera), "follow": True, "silent_after": 1000},
    }
    if wav is not None:
        out["voice"] = {"file": str(wav), "channels": 4, "seats": ["E", "S", "W", "N"],
                        "realtime": False, "calibrate_s": 10, "silent_after": 1000}  # fmt: skip
    return out


@pytest.mark.parametrize("index", [0, 1], ids=["first hand", "second hand: winds moved"])
@pytest.mark.slow
def test_the_rig_hears_an_unspoken_claim_and_a_slam_and_the_dashboard_lists_them(
    tmp_path: Path, say: Callable[[str], Audio], index: int
) -> None:
    if not (REPO / "models" / "voice_spotter.onnx").exists():
        pytest.skip("models/voice_spotter.onnx missing")
    before, events = hand(index)
    t0 = before[-1].ts if before else 0.0
    audio, silent, slam = render(events, say, index, t0)
    wav = tmp_path / "table.wav"
    write_wav(wav, audio)
    camera = tmp_path / "camera.jsonl"
    camera.write_text("", encoding="utf-8")
    cfg = parse(config(tmp_path, camera, wav))
    with EventStore(tmp_path / "t1.sqlite") as store:  # the hands before, logged without audio
        store.append_many(before)
    published: list[dict[str, Any]] = []

    with Dash(prepare(None, tmp_path / "data")) as dash:
        clock = FakeClock(t0)  # the session clock resumes at the log's end: audio time 0

        async def scenario() -> None:
            rig = Rig(cfg, dash.bus, clock=clock)  # on the app's loop (its thread: SQLite)
            sub = await dash.bus.subscribe(topic_filter(dash.bus.venue, "T1", "alerts"))

            async def collect() -> None:
                async for message in sub:
                    published.append(message.payload)

            task = asyncio.create_task(collect())
            await rig.start()
            try:
                voice = rig.voice
                assert voice is not None
                await until(lambda: voice.heard_all, "the voice worker to hear the file", 180)
                await play(rig, clock, camera, events, events[-1].ts + 3.5)
                await until(
                    lambda: {"WMC-5.2", "WMC-13.6"} <= {a["payload"]["rule"] for a in published},
                    "the voice alerts on the bus",
                )
                claims = len(claims_from_events(events))

                def all_checked() -> bool:  # a loaded machine's checks come in after the alerts
                    logged = rig.store.events("T1", "S1")
                    return sum(isinstance(e.payload, ClaimCheck) for e in logged) >= claims

                await until(all_checked, "a check of every claim")
                await rig.idle()
            finally:
                await rig.stop()
                task.cancel()

        dash.call(scenario)
        with EventStore(tmp_path / "t1.sqlite") as store:
            logged = list(store.events("T1", "S1"))
        dash.wait(lambda: dash.seq("T1") == logged[-1].seq)
        c, _ = dash.login("referee")
        listed = [a for a in c.get("/api/alerts?status=all").json() if a["table_id"] == "T1"]
        behind = {
            a["id"]: c.get(f"/api/tables/T1/events?seqs={','.join(map(str, a['evidence']))}").json()
            for a in listed
        }

    setup = [e.payload for e in logged if isinstance(e.payload, VoiceSetup)]
    assert len(setup) == 1 and setup[0].checks == "voice"
    assert any(e.type == "observation" and e.payload.kind == "calibration" for e in logged)  # type: ignore[attr-defined]
    checks = {e.seq: e for e in logged if isinstance(e.payload, ClaimCheck)}
    assert len(checks) == len(claims_from_events(events)), [  # every claim, kong and win checked
        (c.payload.claim_seq, c.payload.seat.name, c.payload.spoken, c.payload.reason)  # type: ignore[attr-defined]
        for c in checks.values()
    ]
    exposure = next(
        e
        for e in logged
        if e.type == silent.kind and e.ts > t0 and e.payload.seat.name == silent.seat  # type: ignore[attr-defined]
    )
    unspoken_checks = [e for e in checks.values() if e.payload.spoken is False]  # type: ignore[attr-defined]
    assert len(unspoken_checks) == 1, [(e.payload, e.evidence) for e in checks.values()]
    [unspoken] = unspoken_checks
    assert unspoken.payload.claim_seq == exposure.seq  # type: ignore[attr-defined]

    alerts = [a for a in published if a["type"] == "alert"]
    [alert] = [a for a in alerts if a["payload"]["rule"] in ("WMC-5.2", "WMC-5.5")]
    assert alert["cause"] == unspoken.seq and alert["payload"]["seat"] == silent.seat
    assert alert["payload"]["penalty"] == "warning"
    [ref] = alert["evidence"]
    start, end, seat = CLIP.match(ref).groups()  # type: ignore[union-attr]
    assert seat == silent.seat
    # the window opens before the discard the camera logged: the tile landed before it settled
    # (or, logged within a second of the move before it, as soon as that one: OPEN_MAX_S at most)
    opened = silent.t_discard - PRE_S - CAMERA_LAG_S
    assert opened - OPEN_MAX_S - 0.1 <= float(start) <= opened + 0.1
    assert float(end) == pytest.approx(silent.t_exposed + 1.0, abs=0.1)

    [proposal] = [p for p in published if p["type"] == "proposal" and p["cause"] == unspoken.seq]
    assert proposal["payload"]["kind"] == "warning" and proposal["evidence"] == [ref]
    slams = [a for a in alerts if "slammed" in a["payload"]["message"]]
    assert [a["payload"]["seat"] for a in slams] == [slam.payload.seat.name]  # type: ignore[attr-defined]
    s0, s1, s_seat = CLIP.match(slams[0]["evidence"][0]).groups()  # type: ignore[union-attr]
    assert float(s0) < slam.ts < float(s1) and s_seat == slam.payload.seat.name  # type: ignore[attr-defined]

    listed_5_2 = [a for a in listed if a["rule"] == "WMC-5.2"]
    assert len(listed_5_2) == 1 and listed_5_2[0]["seat"] == silent.seat
    shown = behind[listed_5_2[0]["id"]]
    assert any(e["type"] == "claim_check" and e["evidence"] == [ref] for e in shown)
    assert any(e["type"] == silent.kind and e["seq"] == exposure.seq for e in shown)


def test_without_microphones_a_claim_gets_no_alert_and_the_record_says_why(
    tmp_path: Path,
) -> None:
    _, events = hand()
    camera = tmp_path / "camera.jsonl"
    camera.write_text("", encoding="utf-8")
    bus = MemoryBus()
    clock = FakeClock(0.0)
    rig = Rig(parse(config(tmp_path, camera, None)), bus, clock=clock)
    published: list[dict[str, Any]] = []

    async def scenario() -> dict[str, Any]:
        sub = await bus.subscribe(topic_filter(bus.venue, "T1", "alerts"))

        async def collect() -> None:
            async for message in sub:
                published.append(message.payload)

        task = asyncio.create_task(collect())
        await rig.start()
        try:
            await play(rig, clock, camera, events, events[-1].ts + 1)
            await rig.idle()
            return rig.status()
        finally:
            await rig.stop()
            task.cancel()

    status = asyncio.run(asyncio.wait_for(scenario(), WAIT))
    assert "no audio input configured" in status["spoken_claims"]
    with EventStore(tmp_path / "t1.sqlite") as store:
        logged = list(store.events("T1", "S1"))
    [setup] = [e.payload for e in logged if isinstance(e.payload, VoiceSetup)]
    assert setup.checks == "none" and "not checked" in setup.reason
    checks = [e.payload for e in logged if isinstance(e.payload, ClaimCheck)]
    assert len(checks) == len(claims_from_events(events))
    assert all(c.spoken is None and "no audio input" in c.reason for c in checks)
    assert not [a for a in published if a["payload"].get("rule") in ("WMC-5.2", "WMC-5.5")]


def test_a_bad_audio_file_in_the_config_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    narrow = tmp_path / "phone.wav"
    write_wav(narrow, np.zeros((8000, 4), np.float32), sr=8000)
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"RIFF....not audio")
    mono = tmp_path / "mono.wav"
    write_wav(mono, np.zeros(SR, np.float32))
    cases = [
        (narrow, "sample rate 8000 Hz; expected at least 16000 Hz"),
        (broken, "cannot read audio"),
        (mono, "has 1 channel(s); expected voice.channels = 4"),
    ]
    for path, why in cases:
        with pytest.raises(ConfigError) as exc:
            parse({"voice": {"file": str(path), "channels": 4}}, "t.toml")
        [problem] = exc.value.problems
        assert problem.startswith("t.toml: voice.file = ") and why in problem, problem
    toml = tmp_path / "t.toml"
    toml.write_text(f'[voice]\nfile = "{narrow.name}"\nchannels = 4\n', encoding="utf-8")
    assert mjref(["rig", "--config", str(toml)]) == 2
    err = capsys.readouterr().err
    assert "sample rate 8000 Hz" in err and "Traceback" not in err
