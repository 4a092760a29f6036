"""The rig's inputs, each run in its own supervised task (a process where CPU-heavy: voice).

An input turns its device into submissions for the core — a :class:`Draft` (a payload from a
sensor) or a table_io link output — and calls :meth:`Sink.alive` when it hears from its device.
The :class:`Supervisor` restarts a failing input with back-off and keeps its :class:`Health`
(ok / degraded / down, since when, restarts); a failing input never stops the core.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from referee.events import (
    PAYLOADS,
    ClaimCheck,
    ConductHeard,
    Event,
    LogLineError,
    Observation,
    Payload,
    Source,
    parse_line,
)
from referee.evidence import audio as audio_clip
from referee.hands import Wind
from rig.chairs import Chairs
from table_io.clock import Clock
from table_io.driver import TableDriver
from table_io.link import Output
from voice.bridge import call_payload
from voice.bridge import evidence as call_evidence
from voice.events import CallHeard
from voice.verify import Claim

HealthState = Literal["ok", "degraded", "down"]


@dataclass(frozen=True, slots=True)
class Draft:
    """One event-to-be from an input; the core gives it its seq and its time."""

    payload: Payload
    source: Source
    confidence: float = 1.0
    evidence: tuple[str, ...] = ()


Submission = Draft | Output


class Sink(Protocol):
    def submit(self, name: str, item: Submission) -> None: ...

    def alive(self, name: str) -> None: ...

    def alert(self, name: str, severity: str, message: str) -> None: ...


@dataclass
class Health:
    state: HealthState = "down"
    since: float = 0.0
    restarts: int = 0
    detail: str = "starting"
    last_seen: float | None = None
    finished: bool = False
    silent: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "health": self.state,
            "since": round(self.since, 3),
            "restarts": self.restarts,
            "detail": self.detail,
            "last_seen": None if self.last_seen is None else round(self.last_seen, 3),
            "finished": self.finished,
        }


class Input(ABC):
    """One device; ``run`` returns when a finite source ends and raises when the device fails."""

    name: str
    silent_after: float | None = None

    @abstractmethod
    async def run(self, sink: Sink) -> None: ...


@dataclass
class Supervisor:
    """Runs inputs, restarting each with exponential back-off; reports health changes."""

    clock: Clock
    backoff: tuple[float, float] = (0.2, 10.0)
    on_change: Callable[[str, Health], None] = lambda name, health: None
    health: dict[str, Health] = field(default_factory=dict)

    def set(self, name: str, state: HealthState, detail: str) -> None:
        h = self.health[name]
        if h.state != state or h.detail != detail:
            if h.state != state:
                h.since = self.clock.now()
            h.state, h.detail = state, detail
            self.on_change(name, h)

    async def supervise(self, inp: Input, sink: Sink) -> None:
        self.health[inp.name] = Health(since=self.clock.now())
        delay = self.backoff[0]
        while True:
            self.set(inp.name, "ok", "running")
            started = self.clock.now()
            try:
                await inp.run(sink)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any failure of a device: restart it, never stop the core
                h = self.health[inp.name]
                h.restarts += 1
                if self.clock.now() - started > 10 * self.backoff[1]:
                    delay = self.backoff[0]  # it ran a good while: start the back-off again
                state: HealthState = "down" if h.restarts > 3 else "degraded"
                self.set(inp.name, state, f"{type(exc).__name__}: {exc}"[:200])
                await self.clock.sleep(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            h = self.health[inp.name]
            h.finished = True
            self.set(inp.name, "ok", "finished")
            return

    def seen(self, name: str) -> None:
        h = self.health.get(name)
        if h is not None:
            h.last_seen = self.clock.now()


# ---- the inputs ------------------------------------------------------------------------------


class TableLinkInput(Input):
    """The automatic table over serial or tcp (table_io's driver, which reconnects by itself)."""

    name = "table_link"

    def __init__(self, port: str, clock: Clock, silent_after: float) -> None:
        self.port = port
        self.clock = clock
        self.silent_after = silent_after

    async def run(self, sink: Sink) -> None:
        async with TableDriver(self.port, clock=self.clock) as driver:
            beat = asyncio.create_task(self._heartbeats(driver, sink))
            try:
                async for output in driver.outputs():
                    sink.alive(self.name)
                    sink.submit(self.name, output)
            finally:
                beat.cancel()

    async def _heartbeats(self, driver: TableDriver, sink: Sink) -> None:
        """A quiet table is alive while the link hears its heartbeats (no output then)."""
        while True:
            await self.clock.sleep(0.5)
            if driver.link.online:
                sink.alive(self.name)


class CameraFileInput(Input):
    """A recorded observation/event file (JSONL, the envelope of EVENTS.md) standing in for the
    camera: each line is validated, re-stamped by the core and cites ``camera:<line>``.
    ``follow`` keeps reading lines appended later; ``skip`` lines were logged before a restart."""

    name = "camera"

    def __init__(
        self, path: Path, clock: Clock, silent_after: float, follow: bool, skip: int = 0
    ) -> None:
        self.path = path
        self.clock = clock
        self.silent_after = silent_after
        self.follow = follow
        self.done = skip  # lines already logged

    async def run(self, sink: Sink) -> None:
        with self.path.open("rb") as f:
            line_no, pending = 0, b""
            while True:
                pending += f.readline()
                if not pending.endswith(b"\n"):  # at the end, maybe in the middle of a line
                    if not self.follow:
                        if pending.strip() and line_no + 1 > self.done:
                            self._line(line_no + 1, pending.decode("utf-8", "replace"), sink)
                        return
                    await self.clock.sleep(0.02)  # the camera pipeline writes more
                    continue
                line_no += 1
                text, pending = pending.decode("utf-8", "replace"), b""
                sink.alive(self.name)
                if line_no > self.done and text.strip():
                    self._line(line_no, text, sink)
                self.done = max(self.done, line_no)

    def _line(self, n: int, text: str, sink: Sink) -> None:
        try:
            ev = parse_line(text, n)
        except LogLineError as exc:
            sink.alert(self.name, "warning", f"{self.path.name}: {exc}; line skipped")
            return
        evidence = (*ev.evidence, f"camera:{n}")
        sink.submit(self.name, Draft(ev.payload, ev.source, ev.confidence, evidence))


@dataclass(frozen=True)
class AudioRecording:
    """The voice worker also writes its audio as FLAC segments into ``dir``; each finished
    segment is handed to ``on_segment`` (the ring) on the session clock (audio time +
    ``VoiceInput.audio_t0``)."""

    dir: Path
    segment_s: float
    on_segment: Callable[[str, float, float, Path], None]

    def argv(self) -> list[str]:
        return ["--record", str(self.dir), "--segment-s", str(self.segment_s)]


HOLD_S = 2.0
"""A conduct sound is logged this long after it ended on the session clock: the win whose
winning tile it may be (WMC-13.6, allowed once) is in the log by then."""


def clip(t0: float, t1: float, seat: str | None) -> str:
    """The evidence contract's audio clip reference (session seconds)."""
    return audio_clip(max(0.0, t0), t1, seat)


@dataclass(frozen=True)
class VideoRecording:
    """The camera worker also writes its frames as MP4 segments into ``dir`` and the rectified
    table of each settled change as a still into ``stills``; each finished file is handed to
    ``on_file`` (the ring), its times on the session clock already (the worker's frames are).
    ``kept_until`` says where the ring's video ends: a restarted worker records on from there."""

    dir: Path
    stills: Path
    segment_s: float
    on_file: Callable[[str, float, float, Path], None]
    kept_until: Callable[[], float | None]

    def argv(self) -> list[str]:
        out = ["--record", str(self.dir), "--stills", str(self.stills)]
        out += ["--segment-s", str(self.segment_s)]
        until = self.kept_until()
        if until is not None:  # a segment ends a frame's step after its last frame
            out += ["--record-after", f"{until - 0.001:.3f}"]
        return out


WIND_DOWN_S = 3.0  # a recording worker told to stop finishes its open segment in this time


class CameraInput(Input):
    """The camera (a video file, a camera index or an RTSP stream), read by ``rig.camera_worker``
    in its own process: the pipeline of vision/camera.py and fusion. The worker is given the
    table's log first and then every event the other inputs add (``logged``), and answers with
    the game actions it saw, each submitted with its evidence (frame, still, ``video:`` clip).
    With ``recording`` the worker's segments and stills go into the ring as they are written."""

    name = "camera"

    def __init__(
        self,
        argv: list[str],
        clock: Clock,
        silent_after: float,
        history: Callable[[], list[Event]],
        recording: VideoRecording | None = None,
    ) -> None:
        self.argv = argv
        self.clock = clock
        self.silent_after = silent_after
        self.history = history  # the log so far (read at each start of the worker)
        self.recording = recording
        self._stdin: asyncio.StreamWriter | None = None

    def logged(self, events: Iterable[Event]) -> None:
        """Events the core logged: the worker's fusion follows those it did not send itself."""
        if self._stdin is None or self._stdin.is_closing():
            return
        for ev in events:
            if ev.source is not Source.VISION:
                self._stdin.write(ev.model_dump_json().encode() + b"\n")

    async def run(self, sink: Sink) -> None:
        record = self.recording.argv() if self.recording is not None else []
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "rig.camera_worker",
            *self.argv,
            *record,
            "--now",
            f"{self.clock.now():.3f}",
            "--now-at",
            f"{time.time():.3f}",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        for ev in self.history():
            proc.stdin.write(ev.model_dump_json().encode() + b"\n")
        self._stdin = proc.stdin
        ended = False
        try:
            async for raw in proc.stdout:
                ended = self._line(raw, sink) or ended
            code = await proc.wait()
        finally:
            self._stdin = None
            if proc.returncode is None:
                await self._stop(proc, sink)
        if code != 0 or not ended:
            err = (await proc.stderr.read()).decode(errors="replace").strip().splitlines()
            raise RuntimeError(f"camera worker exited {code}: {err[-1] if err else 'no output'}")

    def _line(self, raw: bytes, sink: Sink) -> bool:
        """One line of the worker; True when it says its file ended."""
        try:
            msg = json.loads(raw)
        except ValueError:  # capture's own status line (a live source offline, back)
            text = raw.decode(errors="replace").strip()
            sink.alert(self.name, "warning", text[:300])
            return False
        sink.alive(self.name)
        if "event" in msg:
            ev = parse_line(json.dumps(msg["event"]))
            sink.submit(self.name, Draft(ev.payload, ev.source, ev.confidence, ev.evidence))
        elif "alert" in msg:
            a = msg["alert"]
            sink.alert(self.name, "warning", f"{a['rule']}: {a['message']}"[:300])
        elif "segment" in msg and self.recording is not None:
            seg = msg["segment"]
            try:
                self.recording.on_file(seg["kind"], seg["start"], seg["end"], Path(seg["path"]))
            except (OSError, ValueError) as exc:  # not kept: say so, keep the camera running
                sink.alert(self.name, "warning", f"recording not kept: {exc}"[:300])
        return "end" in msg

    async def _stop(self, proc: asyncio.subprocess.Process, sink: Sink) -> None:
        """The input stops while the worker runs: a recording worker is told (its stdin
        closes) and given ``WIND_DOWN_S`` to finish its open segment, which is kept; then (or
        at once, not recording) it is killed."""
        try:
            if self.recording is not None and proc.stdin is not None and proc.stdout is not None:
                proc.stdin.close()
                async with asyncio.timeout(WIND_DOWN_S):
                    async for raw in proc.stdout:
                        if b'"segment"' in raw:  # what it saw after the stop is not logged
                            self._line(raw, sink)
                    await proc.wait()
        except (TimeoutError, asyncio.CancelledError, OSError):
            pass  # stopped again, or too slow: the open segment is lost
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()


class VoiceInput(Input):
    """The microphone or a WAV/FLAC file, heard by ``rig.voice_worker`` in its own process.

    With ``verify`` the worker also checks the claims the rig sends it (:meth:`check`) and
    reports conduct sounds; what it hears is stamped on the session clock: audio time 0 is
    the session time the worker said its audio started (``audio_t0``). What it heard is
    released to the core when the session clock has reached it (a file may be read faster than
    it would be played).
    """

    name = "voice"

    def __init__(
        self,
        argv: list[str],
        silent_after: float,
        heard_until: float = -1.0,
        *,
        clock: Clock | None = None,
        verify: bool = False,
        recording: AudioRecording | None = None,
        chairs: Chairs | None = None,
    ) -> None:
        self.argv = argv + (["--verify"] if verify else [])
        self.verify = verify
        self.chairs = chairs or Chairs()  # none followed: each seat wind at its own chair
        self.silent_after = silent_after
        self.heard_until = heard_until  # calls up to this audio time were logged (a restart)
        self.clock = clock
        self.recording = recording
        self.audio_t0 = 0.0
        self._proc: asyncio.subprocess.Process | None = None
        # (session time due, the draft then): made when due, as a chair's seat wind is known
        # only once the core has the hand the sound belongs to (a file is heard ahead of play)
        self._held: list[tuple[float, Callable[[], Draft]]] = []
        self.heard_all = False  # a file: the worker has heard all of it

    def _now(self) -> float:
        return self.clock.now() if self.clock is not None else 0.0

    def check(self, claim: Claim, sink: Sink) -> None:
        """Ask the worker whether ``claim`` (session times) was spoken; with no worker running
        the answer is uncertain now, and says why."""
        proc = self._proc
        if proc is None or proc.stdin is None or proc.returncode is not None:
            reason = "the voice input is not running: not checked"
            sink.submit(self.name, Draft(uncertain(claim, reason), Source.VOICE))
            return
        t0, at = self.audio_t0, claim.t_exposed
        line = {  # the worker hears chairs, not seat winds
            "claim": {
                "id": claim.id,
                "seat": self.chairs.chair(claim.seat, at),
                "kind": claim.kind,
                "t_discard": round(claim.t_discard - t0, 3),
                "t_exposed": round(claim.t_exposed - t0, 3),
                "own_turn": claim.own_turn,
                "discarder": claim.discarder and self.chairs.chair(claim.discarder, at),
            }
        }
        try:
            proc.stdin.write((json.dumps(line) + "\n").encode())
        except (BrokenPipeError, ConnectionResetError):  # it just died: the supervisor restarts it
            reason = "the voice input stopped: not checked"
            sink.submit(self.name, Draft(uncertain(claim, reason), Source.VOICE))

    async def run(self, sink: Sink) -> None:
        record = self.recording.argv() if self.recording is not None else []
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "rig.voice_worker",
            *self.argv,
            *record,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        self.audio_t0 = self._now()
        self._proc = proc
        assert proc.stdout is not None and proc.stderr is not None
        ended = False
        release = asyncio.create_task(self._release(sink))
        try:
            async for raw in proc.stdout:
                msg = json.loads(raw)
                sink.alive(self.name)
                if "call" in msg:
                    call = CallHeard.model_validate(msg["call"])
                    if call.t_start > self.heard_until:
                        self.heard_until = call.t_start
                        self._hold(call.t_end, functools.partial(self._call, call, self.audio_t0))
                elif "started" in msg:
                    self.audio_t0 = self._now()  # the models are loaded: the audio starts
                elif "verdict" in msg:
                    sink.submit(self.name, self._verdict(msg["verdict"]))
                elif "conduct" in msg:
                    e, t0 = msg["conduct"], self.audio_t0
                    self._hold(float(e["t_end"]), functools.partial(self._conduct, e, t0), HOLD_S)
                elif "calibrated" in msg:
                    data = {**msg["calibrated"], "audio_t0": round(self.audio_t0, 3)}
                    obs = Observation(sensor="voice", kind="calibration", data=data)
                    sink.submit(self.name, Draft(obs, Source.VOICE))
                elif "alert" in msg:
                    sink.alert(self.name, "warning", f"audio {msg['alert'].get('detail', '')}")
                elif "segment" in msg and self.recording is not None:
                    seg, t0 = msg["segment"], self.audio_t0
                    self.recording.on_segment(
                        "audio", t0 + seg["start"], t0 + seg["end"], Path(seg["path"])
                    )
                elif "end" in msg:
                    ended = self.heard_all = True
            code = await proc.wait()
        finally:
            release.cancel()
            self._proc = None
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        if code != 0 or not ended:
            err = (await proc.stderr.read()).decode(errors="replace").strip().splitlines()
            raise RuntimeError(f"voice worker exited {code}: {err[-1] if err else 'no output'}")

    def _hold(self, audio_t: float, draft: Callable[[], Draft], after: float = 0.0) -> None:
        self._held.append((self.audio_t0 + audio_t + after, draft))

    async def _release(self, sink: Sink) -> None:
        """Hand over what was heard once the session clock has reached it, in time order."""
        while True:
            now = self._now()
            due = sorted((d for d in self._held if d[0] <= now), key=lambda d: d[0])
            if due:
                self._held = [d for d in self._held if d[0] > now]
                for _, draft in due:
                    sink.submit(self.name, draft())
            if self.clock is None:
                await asyncio.sleep(0.05)
            else:
                await self.clock.sleep(0.05)

    def _verdict(self, v: dict[str, Any]) -> Draft:
        t0 = self.audio_t0
        at = t0 + float(v["t0"])

        def seat_of(chair: str) -> str:
            return self.chairs.seat(chair, at)

        seat = seat_of(str(v["seat"]))
        onset = v.get("onset")
        payload = ClaimCheck(
            claim_seq=int(v["id"]),
            seat=Wind[seat],
            kind=v["kind"],
            spoken=v.get("spoken"),
            word=v.get("word"),
            conf=v.get("conf"),
            onset=None if onset is None else round(onset + t0, 2),
            seat_heard=Wind[seat_of(v["seat_heard"])] if v.get("seat_heard") else None,
            rule=v.get("rule"),
            reason=str(v.get("reason", "")),
            others=tuple(
                {
                    **o,
                    "seat": o.get("seat") and seat_of(o["seat"]),
                    "onset": round(float(o["onset"]) + t0, 2),
                }
                for o in v.get("others", ())
            ),
        )
        conf = float(v["conf"]) if v.get("spoken") and v.get("conf") is not None else 1.0
        return Draft(payload, Source.VOICE, conf, (clip(t0 + v["t0"], t0 + v["t1"], seat),))

    def _call(self, call: CallHeard, t0: float) -> Draft:
        if call.seat is not None:
            at = t0 + call.t_start
            call = call.model_copy(update={"seat": self.chairs.seat(call.seat, at)})
        payload = call_payload(call)
        if self.verify:
            # The claim checks judge each claim against its exposure in the log; a heard call
            # is then the record's note, not a game event racing the camera's (one logged
            # before the draw it answers, or after the exposure it announced, reads as an
            # empty win or a claim of nothing: WMC-11.7, WMC-5.1 — false alerts).
            data = call.model_dump(mode="json")
            payload = Observation(sensor="voice", kind="call_heard", data=data)
        return Draft(payload, Source.VOICE, call.conf, call_evidence(call))

    def _conduct(self, e: dict[str, Any], t0: float) -> Draft:
        seat = e.get("seat") and self.chairs.seat(e["seat"], t0 + e["t_start"])
        payload = ConductHeard(
            kind=e["kind"],
            seat=Wind[seat] if seat else None,
            t_start=round(e["t_start"] + t0, 2),
            t_end=round(e["t_end"] + t0, 2),
            detail=str(e.get("detail", "")),
        )
        pad = 1.0 if e["kind"] == "slam" else 0.5
        evidence = (clip(t0 + e["t_start"] - pad, t0 + e["t_end"] + pad, seat),)
        return Draft(payload, Source.VOICE, 1.0, evidence)


def uncertain(claim: Claim, reason: str) -> ClaimCheck:
    """The answer for a claim nothing could check: no alert, and why (WMC-5.2)."""
    return ClaimCheck(
        claim_seq=int(claim.id),
        seat=Wind[claim.seat],
        kind=claim.kind,
        spoken=None,
        reason=reason,
    )


def referee_draft(command: dict[str, Any]) -> Draft:
    """A referee's command from the bus (``cmd/event``): a payload of a known type, logged with
    source ``referee`` (a decision, a clock adjustment, a pause …); ValueError names the fault."""
    kind = command.get("type")
    model = PAYLOADS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise ValueError(f"unknown event type {kind!r}; expected one of {', '.join(PAYLOADS)}")
    payload = model.model_validate(command.get("payload") or {})
    evidence = tuple(str(e) for e in command.get("evidence", ()))
    return Draft(payload, Source.REFEREE, 1.0, evidence)
