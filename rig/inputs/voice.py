"""The microphones as an input: the voice worker's process, its heard calls, claim checks
and conduct sounds, mapped from the chairs it hears to the hand's seat winds."""

from __future__ import annotations

import asyncio
import functools
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.events import ClaimCheck, ConductHeard, Observation, Source
from referee.evidence import audio as audio_clip
from referee.hands import Wind
from rig.chairs import Chairs
from rig.inputs.base import Draft, Input, Sink
from table_io.clock import Clock
from voice.bridge import call_payload
from voice.bridge import evidence as call_evidence
from voice.events import CallHeard
from voice.verify import Claim


@dataclass(frozen=True)
class AudioRecording:
    """The voice worker also writes its audio as FLAC segments, named by its own audio time
    (from 0 at each start), into a folder of its own under ``dir``; each finished segment is
    handed to ``on_segment`` (the ring, which files it by session time) on the session clock
    (audio time + ``VoiceInput.audio_t0``)."""

    dir: Path
    segment_s: float
    on_segment: Callable[[str, float, float, Path], None]

    def argv(self) -> list[str]:
        """The worker's recording options: a new folder each start (no two workers' files meet)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        run = tempfile.mkdtemp(prefix="worker-", dir=self.dir)
        return ["--record", run, "--segment-s", str(self.segment_s)]


HOLD_S = 2.0
"""A conduct sound is logged this long after it ended on the session clock: the win whose
winning tile it may be (WMC-13.6, allowed once) is in the log by then."""


def clip(t0: float, t1: float, seat: str | None) -> str:
    """The evidence contract's audio clip reference (session seconds)."""
    return audio_clip(max(0.0, t0), t1, seat)


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
                    try:
                        self.recording.on_segment(
                            "audio", t0 + seg["start"], t0 + seg["end"], Path(seg["path"])
                        )
                    except (OSError, ValueError) as exc:  # not kept: said, the hearing goes on
                        sink.alert(self.name, "warning", f"recording not kept: {exc}"[:300])
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
